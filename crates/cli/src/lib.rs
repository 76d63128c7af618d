//! The `uidrive` command line: agent commands over a session, `serve` (the
//! protocol on a socket) and `mcp` (the agent commands as MCP tools).
//!
//! A library so the same command runs from the `uidrive` binary and from inside
//! the Python wheel's extension (`uidrive` console script, `python -m uidrive`)
//! and the Node module's `uidrive` bin: one compiled core, no second binary.

mod commands;
mod ctx;
mod daemon;
mod files;
mod mcp;
mod output;
mod registry;
mod serve;
mod session;
mod target;
mod trace;
mod webdriver;

use clap::error::ErrorKind;
use clap::{Arg, ArgAction, ArgMatches, Args, FromArgMatches};
use ctx::Ctx;
use output::{CliError, EXIT_ERROR, EXIT_OK, EXIT_USAGE};
use session::{State, Store};
use std::ffi::OsString;
use std::process::ExitCode;
use std::sync::OnceLock;
use uidrive_facade::hints::{localize, Lang};

const ABOUT: &str = "Drive native desktop apps through their accessibility tree.\n\
Agents: run `uidrive skills` first for the guide.";

fn cli() -> clap::Command {
    let mut app = clap::Command::new("uidrive")
        .version(env!("CARGO_PKG_VERSION"))
        .about(ABOUT)
        .subcommand_required(true)
        .arg_required_else_help(true)
        .arg(
            Arg::new("session")
                .long("session")
                .global(true)
                .env("UIDRIVE_SESSION")
                .value_name("NAME")
                .default_value("default")
                .help("The session: its app, window and refs (default: `default`)"),
        )
        .arg(
            Arg::new("action-timeout")
                .long("action-timeout")
                .global(true)
                .env("UIDRIVE_TIMEOUT_MS")
                .value_name("MS")
                .value_parser(clap::value_parser!(u64))
                .help("How long actions wait for their element, in milliseconds (default 10000)"),
        )
        .arg(
            Arg::new("json")
                .long("json")
                .global(true)
                .action(ArgAction::SetTrue)
                .help("Print {ok, command, data | error} as JSON"),
        );
    for entry in registry::COMMANDS.iter().filter(|e| e.on_cli) {
        app = app.subcommand((entry.cli)());
    }
    app.subcommand(serve::ServeArgs::augment_args(
        clap::Command::new("serve")
            .about("Serve an app over the automation protocol on a Unix socket"),
    ))
    .subcommand(mcp::McpArgs::augment_args(
        clap::Command::new("mcp").about("Serve the agent commands as MCP tools over stdio"),
    ))
    .subcommand(webdriver::WebdriverArgs::augment_args(
        clap::Command::new("webdriver").about(
            "Serve a W3C WebDriver endpoint (Appium's conventions) for Selenium and Appium clients",
        ),
    ))
    .subcommand(trace::TraceArgs::augment_args(
        clap::Command::new("trace")
            .about("Show a trace of a session or a test run, as text or as an HTML page")
            .subcommand_required(true),
    ))
}

/// The command that starts this same program again (argv before `serve ...`),
/// for the session daemon. Unset: this executable. The Python and Node front
/// ends set it to their interpreter and launcher (`python -m uidrive`), since
/// there the executable is the interpreter.
static SELF_COMMAND: OnceLock<Vec<OsString>> = OnceLock::new();

/// The command that runs `uidrive` again, when a front end set one (see [`run_embedded`]).
pub(crate) fn self_command() -> Option<&'static [OsString]> {
    SELF_COMMAND.get().map(Vec::as_slice)
}

/// Runs the command line on `args` (the program name first) and answers its exit status.
pub fn run(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    ExitCode::from(run_code(args))
}

/// [`run`] from inside another program (a Python or Node extension):
/// `self_command` is the argv that starts `uidrive` again (for the daemon
/// `open` starts); the exit status is answered as a number.
pub fn run_embedded(args: Vec<OsString>, self_command: Vec<OsString>) -> u8 {
    if !self_command.is_empty() {
        let _ = SELF_COMMAND.set(self_command);
    }
    let code = run_code(args);
    // No Rust `main` returns here to flush stdout at exit.
    let _ = std::io::Write::flush(&mut std::io::stdout());
    code
}

fn run_code(args: impl IntoIterator<Item = OsString>) -> u8 {
    uidrive_facade::install_vision();
    let raw: Vec<OsString> = target::join_selector_words(args.into_iter().collect());
    let matches = match cli().try_get_matches_from(&raw) {
        Ok(matches) => matches,
        Err(e) => return bad_arguments(e, raw.iter().any(|a| a == "--json")),
    };
    let Some((name, sub)) = matches.subcommand() else {
        return EXIT_USAGE;
    };
    match name {
        "serve" => match serve::ServeArgs::from_arg_matches(sub) {
            Ok(args) => report(serve::run(args)),
            Err(e) => bad_arguments(e, false),
        },
        "mcp" => match mcp::McpArgs::from_arg_matches(sub) {
            Ok(args) => report(mcp::run(args, named_session(&matches, sub))),
            Err(e) => bad_arguments(e, false),
        },
        "webdriver" => match webdriver::WebdriverArgs::from_arg_matches(sub) {
            Ok(args) => report(webdriver::run(args)),
            Err(e) => bad_arguments(e, false),
        },
        "trace" => match trace::TraceArgs::from_arg_matches(sub) {
            Ok(args) => report(trace::run(args)),
            Err(e) => bad_arguments(e, false),
        },
        _ => run_command(name, &matches, sub),
    }
}

/// The session named by `--session` or `UIDRIVE_SESSION`, if one was (not the default).
fn named_session(top: &ArgMatches, sub: &ArgMatches) -> Option<String> {
    [sub, top].into_iter().find_map(|m| {
        let named = !matches!(
            m.value_source("session"),
            None | Some(clap::parser::ValueSource::DefaultValue)
        );
        named
            .then(|| m.get_one::<String>("session").cloned())
            .flatten()
    })
}

fn run_command(name: &str, top: &ArgMatches, sub: &ArgMatches) -> u8 {
    let json = sub.get_flag("json") || top.get_flag("json");
    let session = sub
        .get_one::<String>("session")
        .or_else(|| top.get_one::<String>("session"))
        .cloned()
        .unwrap_or_else(|| "default".into());
    let Some(entry) = registry::find_cli(name) else {
        return EXIT_USAGE;
    };
    // `close` opens a session whose file is damaged too: it must still stop
    // what the session started.
    let mut damaged = None;
    let opened = if name == "skills" {
        Ok((Store::Memory, State::default()))
    } else if name == "close" {
        Store::open_file_lenient(&session).map(|(store, read)| match read {
            session::Read::State(state) => (store, state),
            session::Read::Damaged(e) => {
                damaged = Some(e);
                (store, State::default())
            }
        })
    } else {
        Store::open_file(&session)
    };
    let (store, state) = match opened {
        Ok(opened) => opened,
        Err(e) => {
            let usage = e.code == uidrive_core::ErrorCode::InvalidRequest;
            let mut failure = CliError::from(e);
            failure.usage = usage;
            let failure = Err(failure);
            return output::print(name, &failure, json);
        }
    };
    let mut ctx = Ctx::new(session, store, state);
    ctx.damaged = damaged;
    let action_timeout = sub
        .get_one::<u64>("action-timeout")
        .or_else(|| top.get_one::<u64>("action-timeout"))
        .map(|ms| uidrive_facade::time::whole_millis("--action-timeout", *ms))
        .transpose();
    ctx.action_timeout = match action_timeout {
        Ok(timeout) => timeout,
        Err(e) => {
            let mut failure = CliError::from(e);
            failure.usage = true;
            return output::print(name, &Err(failure), json);
        }
    };
    let mut result = (entry.run_cli)(sub, &mut ctx);
    // Suggestions in the command line's terms (`uidrive open --headless`, not Rust API names).
    if let Err(failure) = &mut result {
        failure.error = localize(failure.error.clone(), Lang::Cli);
    }
    // The state is kept even after a failure: refs seen on the way stay valid.
    if let Err(e) = ctx.save() {
        if result.is_ok() {
            result = Err(e.into());
        }
    }
    output::print(name, &result, json)
}

fn bad_arguments(e: clap::Error, json: bool) -> u8 {
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            EXIT_OK
        }
        _ if json => {
            let message = e.to_string();
            let first = message
                .lines()
                .next()
                .unwrap_or("bad arguments")
                .trim_start_matches("error: ");
            let failure: Result<output::Output, CliError> = Err(CliError::usage(first.to_string()));
            output::print("uidrive", &failure, true);
            EXIT_USAGE
        }
        _ => {
            let _ = e.print();
            EXIT_USAGE
        }
    }
}

fn report(outcome: Result<(), uidrive_core::Error>) -> u8 {
    match outcome {
        Ok(()) => EXIT_OK,
        Err(err) => {
            let err = localize(err, Lang::Cli);
            eprintln!(
                "error: {}: {}\nhint: {}",
                err.code,
                output::one_line(&err.message),
                output::one_line(&err.suggestion)
            );
            EXIT_ERROR
        }
    }
}

#[cfg(test)]
mod well_formed {
    /// clap checks a command's definition only when it is built: this builds
    /// every subcommand, so a bad one fails here rather than at a user's call.
    #[test]
    fn every_command_is_well_formed() {
        super::cli().debug_assert();
    }
}
