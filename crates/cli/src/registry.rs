//! The one table of agent commands. The command line and the MCP server are
//! both built from it: each command's argument struct is parsed by clap on the
//! command line and by serde from an MCP tool call, and its JSON Schema (for
//! `tools/list`) comes from the same struct.

use crate::commands::{
    act, batch, desktop, desktop_services, gesture, lifecycle, observe, query, terms,
};
use crate::ctx::Ctx;
use crate::output::{CliError, Output};
use clap::ArgMatches;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// What a command does to the app, as MCP's tool hints say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hints {
    /// Only reads: safe to call at any time; the only tools an observation-only session gets.
    pub read_only: bool,
    /// May end something that can't be brought back (the app uidrive launched).
    pub destructive: bool,
    /// Calling it twice does what calling it once does.
    pub idempotent: bool,
}

pub const READS: Hints = Hints {
    read_only: true,
    destructive: false,
    idempotent: true,
};
pub const ACTS: Hints = Hints {
    read_only: false,
    destructive: false,
    idempotent: false,
};
pub const SETS: Hints = Hints {
    read_only: false,
    destructive: false,
    idempotent: true,
};
pub const ENDS: Hints = Hints {
    read_only: false,
    destructive: true,
    idempotent: true,
};

/// An agent command: its arguments are the struct, `run` is what it does.
pub trait Command: clap::Args + JsonSchema + DeserializeOwned + 'static {
    const NAME: &'static str;
    /// One line, for `--help` and the MCP tool's description.
    const ABOUT: &'static str;
    const HINTS: Hints;
    /// Offered as an MCP tool.
    const MCP: bool = true;
    /// Offered as an MCP tool only to a server started with `--desktop-tools`
    /// (the desktop's tools stay off the default short list).
    const MCP_DESKTOP: bool = false;
    /// Offered as a command-line command (a tool that groups several
    /// commands for MCP's short list is not).
    const CLI: bool = true;
    /// Allowed as a step of `batch`.
    const IN_BATCH: bool = true;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError>;
}

/// A command with its types erased, as the table holds it.
pub struct Entry {
    pub name: &'static str,
    pub about: &'static str,
    pub hints: Hints,
    pub mcp: bool,
    /// Offered over MCP only with `--desktop-tools`.
    pub mcp_desktop: bool,
    pub on_cli: bool,
    pub in_batch: bool,
    /// The clap subcommand.
    pub cli: fn() -> clap::Command,
    /// The JSON Schema of its arguments, an object.
    pub schema: fn() -> Map<String, Value>,
    pub run_cli: fn(&ArgMatches, &mut Ctx) -> Result<Output, CliError>,
    pub run_json: fn(Value, &mut Ctx) -> Result<Output, CliError>,
    /// Whether JSON arguments are the command's, without running it.
    pub check_json: fn(&Value) -> Result<(), CliError>,
}

const fn entry<C: Command>() -> Entry {
    Entry {
        name: C::NAME,
        about: C::ABOUT,
        hints: C::HINTS,
        mcp: C::MCP,
        mcp_desktop: C::MCP_DESKTOP,
        on_cli: C::CLI,
        in_batch: C::IN_BATCH,
        cli: cli_of::<C>,
        schema: schema_of::<C>,
        run_cli: run_cli::<C>,
        run_json: run_json::<C>,
        check_json: check_json::<C>,
    }
}

fn cli_of<C: Command>() -> clap::Command {
    // `about` goes last: a flattened struct's doc comment would replace it.
    C::augment_args(clap::Command::new(C::NAME)).about(C::ABOUT)
}

fn schema_of<C: Command>() -> Map<String, Value> {
    let schema = schemars::schema_for!(C);
    let mut object = match serde_json::to_value(schema) {
        Ok(Value::Object(object)) => object,
        _ => Map::new(),
    };
    object.remove("$schema");
    object.remove("title");
    object.insert("type".into(), Value::String("object".into()));
    object
}

fn run_cli<C: Command>(matches: &ArgMatches, ctx: &mut Ctx) -> Result<Output, CliError> {
    let args = C::from_arg_matches(matches).map_err(|e| CliError::usage(e.to_string()))?;
    // Every command keeps to its time; those with a timeout of their own set it.
    ctx.bound(ctx.action_budget());
    args.run(ctx)
        .map_err(|e| terms::in_callers_terms(C::NAME, ctx, e))
}

fn run_json<C: Command>(args: Value, ctx: &mut Ctx) -> Result<Output, CliError> {
    let args = if args.is_null() {
        Value::Object(Map::new())
    } else {
        args
    };
    let args: C =
        serde_json::from_value(args).map_err(|e| CliError::usage(format!("{}: {e}", C::NAME)))?;
    ctx.bound(ctx.action_budget());
    args.run(ctx)
        .map_err(|e| terms::in_callers_terms(C::NAME, ctx, e))
}

fn check_json<C: Command>(args: &Value) -> Result<(), CliError> {
    serde_json::from_value::<C>(args.clone())
        .map(|_| ())
        .map_err(|e| CliError::usage(format!("{}: {e}", C::NAME)))
}

/// Every agent command, in the order `--help` lists them.
pub static COMMANDS: &[Entry] = &[
    entry::<lifecycle::Open>(),
    entry::<observe::Windows>(),
    entry::<observe::SnapshotCmd>(),
    entry::<act::Press>(),
    entry::<act::Fill>(),
    entry::<act::Click>(),
    entry::<act::Type>(),
    entry::<act::KeyCmd>(),
    entry::<act::Check>(),
    entry::<act::Select>(),
    entry::<act::Menu>(),
    entry::<gesture::Scroll>(),
    entry::<gesture::ScrollIntoView>(),
    entry::<gesture::Hover>(),
    entry::<gesture::Drag>(),
    entry::<gesture::Focus>(),
    entry::<gesture::Expand>(),
    entry::<gesture::Collapse>(),
    entry::<gesture::Increment>(),
    entry::<gesture::Decrement>(),
    entry::<gesture::SetValue>(),
    entry::<gesture::SelectText>(),
    entry::<gesture::ExpandTool>(),
    entry::<gesture::SetValueTool>(),
    entry::<gesture::FocusTool>(),
    entry::<query::Get>(),
    entry::<query::Is>(),
    entry::<query::FindCmd>(),
    entry::<query::Verify>(),
    entry::<act::Eval>(),
    entry::<observe::Wait>(),
    entry::<observe::Screenshot>(),
    entry::<desktop::WindowCmd>(),
    entry::<desktop::Apps>(),
    entry::<batch::Batch>(),
    entry::<lifecycle::Close>(),
    entry::<lifecycle::Skills>(),
    // The desktop's services (clipboard, notifications, tray).
    entry::<desktop_services::Clipboard>(),
    entry::<desktop_services::Notifications>(),
    entry::<desktop_services::Notification>(),
    entry::<desktop_services::Tray>(),
    entry::<desktop_services::DesktopTool>(),
];

/// The command-line command of that name.
pub fn find_cli(name: &str) -> Option<&'static Entry> {
    COMMANDS.iter().find(|e| e.on_cli && e.name == name)
}

/// The MCP tool of that name.
pub fn find_mcp(name: &str) -> Option<&'static Entry> {
    COMMANDS.iter().find(|e| e.mcp && e.name == name)
}

/// The command line held to the operation table (crates/facade/operations.json):
/// every operation it names is a command (or a command and its flags, or a
/// command and a sample target), each of the operation's parameters is an
/// argument of that command with the table's kind (a flag for a boolean,
/// a value otherwise) and optionality, and every argument of a command is
/// a parameter of one of its operations, an argument the table lists under
/// `also`, or one of the arguments every command shares.
#[cfg(test)]
mod table {
    use super::{find_cli, COMMANDS};
    use clap::ArgAction;
    use std::collections::{BTreeMap, BTreeSet};
    use uidrive_facade::operations::{self, ParamType};

    /// Arguments of the command line itself, not of an operation.
    const SHARED: [&str; 7] = [
        "settle",
        "full",
        "window",
        "session",
        "json",
        "action_timeout",
        "help",
    ];
    /// The element a locator operation acts on: the object the libraries
    /// call it on, an argument on the command line.
    const TARGETS: [&str; 3] = ["target", "selector", "source"];

    fn arg_of<'a>(command: &'a clap::Command, id: &str) -> Option<&'a clap::Arg> {
        command.get_arguments().find(|a| a.get_id() == id)
    }

    #[test]
    fn every_operation_the_command_line_names_takes_the_tables_parameters() {
        let mut diffs = Vec::new();
        let mut served: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
        let ops = operations::all();
        for op in &ops {
            for spelling in op.cli.names() {
                let mut words = spelling.split_whitespace();
                let name = words.next().unwrap_or_default();
                let Some(entry) = find_cli(name) else {
                    diffs.push(format!("{}: no command `{name}`", op.op));
                    continue;
                };
                let command = (entry.cli)();
                let known = served.entry(entry.name).or_default();
                let rest: Vec<&str> = words.collect();
                // Words that are no flags fill the positionals in order: a
                // preset value (`get text`) or, for a target, a sample in
                // the syntax every command takes (`find role=button >> nth=1`).
                let bare: Vec<&str> = rest
                    .iter()
                    .copied()
                    .filter(|w| !w.starts_with("--"))
                    .collect();
                let positionals: Vec<&clap::Arg> = command
                    .get_arguments()
                    .filter(|a| a.is_positional())
                    .collect();
                let mut in_target = false;
                let mut sample = Vec::new();
                for (at, word) in bare.iter().enumerate() {
                    let arg = positionals.get(at.min(positionals.len().saturating_sub(1)));
                    match arg {
                        Some(arg) if !in_target && !TARGETS.contains(&arg.get_id().as_str()) => {
                            let values: Vec<String> = arg
                                .get_possible_values()
                                .iter()
                                .map(|v| v.get_name().to_string())
                                .collect();
                            if !values.iter().any(|v| v == word) {
                                diffs.push(format!(
                                    "{}: `{name}` takes no `{word}` ({values:?})",
                                    op.op
                                ));
                            }
                            known.insert(arg.get_id().to_string());
                        }
                        _ => {
                            in_target = true;
                            sample.push(*word);
                        }
                    }
                }
                let is_sample = !sample.is_empty();
                if is_sample {
                    let text = sample.join(" ");
                    let parsed = crate::target::parse(&text).map_err(|e| e.error.clone());
                    let valid = parsed.and_then(|t| match t {
                        // A visual target reads a capture (and a template's
                        // file): its sample is checked as written, not run.
                        crate::target::TargetSpec::Selector(s)
                            if s.starts_with("ocr") || s.starts_with("image=") =>
                        {
                            uidrive_core::visual::check_selector(&s)
                        }
                        crate::target::TargetSpec::Selector(s) => {
                            let app = uidrive_core::App::new(std::sync::Arc::new(
                                uidrive_core::MemoryDriver::new(),
                            ));
                            app.locator(&s).count().map(|_| ())
                        }
                        crate::target::TargetSpec::Ref(_) => Ok(()),
                    });
                    if let Err(e) = valid {
                        diffs.push(format!("{}: `{text}` is no target: {}", op.op, e.message));
                    }
                }
                // A timeout of the call's own: `--timeout` where the command
                // waits, else the global --action-timeout.
                if op.timeout.is_some() {
                    known.insert("timeout".into());
                }
                for flag in rest.iter().filter_map(|w| w.strip_prefix("--")) {
                    let id = flag.replace('-', "_");
                    if arg_of(&command, &id).is_none() {
                        diffs.push(format!("{}: `{name}` has no --{flag}", op.op));
                    }
                    known.insert(id);
                }
                if let Some(also) = op.also.get("cli") {
                    known.extend(also.keys().cloned());
                }
                // The flags the spelling names: the operation's own, given
                // by choosing it (`verify --count`), so optional in clap.
                let chosen: Vec<String> = rest
                    .iter()
                    .filter_map(|w| w.strip_prefix("--"))
                    .map(|f| f.replace('-', "_"))
                    .collect();
                for p in &op.params {
                    let Some(id) = p.spelled("cli") else { continue };
                    known.insert(id.clone());
                    // Written inside the sample target (`role=button name="Add"`).
                    if is_sample {
                        continue;
                    }
                    let Some(arg) = arg_of(&command, &id) else {
                        diffs.push(format!("{}: `{name}` takes no `{id}`", op.op));
                        continue;
                    };
                    let flag = matches!(arg.get_action(), ArgAction::SetTrue);
                    if flag != (p.ty == ParamType::Bool) {
                        diffs.push(format!(
                            "{}: `{name}`'s `{id}` is {}, the table says {:?}",
                            op.op,
                            if flag { "a flag" } else { "a value" },
                            p.ty
                        ));
                    }
                    let required = arg.is_required_set() && arg.get_default_values().is_empty();
                    if required == p.may_be_left_out_in("cli") && !chosen.contains(&id) {
                        diffs.push(format!(
                            "{}: `{name}`'s `{id}` is {}, the table says otherwise",
                            op.op,
                            if required { "required" } else { "optional" }
                        ));
                    }
                }
            }
        }
        for entry in COMMANDS.iter().filter(|e| e.on_cli) {
            let Some(known) = served.get(entry.name) else {
                // The command line's own: the guide, and steps run as one.
                if !["skills", "batch"].contains(&entry.name) {
                    diffs.push(format!("`{}` is no operation's command", entry.name));
                }
                continue;
            };
            for arg in (entry.cli)().get_arguments() {
                let id = arg.get_id().as_str();
                if !known.contains(id) && !SHARED.contains(&id) && !TARGETS.contains(&id) {
                    diffs.push(format!(
                        "`{}` takes `{id}`, which no operation of it lists (a parameter, or under also)",
                        entry.name
                    ));
                }
            }
        }
        diffs.sort();
        diffs.dedup();
        assert!(
            diffs.is_empty(),
            "{} differences between the command line and crates/facade/operations.json:\n  {}",
            diffs.len(),
            diffs.join("\n  ")
        );
    }
}
