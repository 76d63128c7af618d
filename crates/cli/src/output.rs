//! What a command answers, how it is printed (text or the `--json` envelope),
//! exit codes, and progress on a terminal.

use serde_json::{json, Value};
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use uidrive_core::{Error, ErrorCode};

/// Exit codes: done, an error, bad arguments.
pub const EXIT_OK: u8 = 0;
pub const EXIT_ERROR: u8 = 1;
pub const EXIT_USAGE: u8 = 2;

/// A command's answer: short text for people and agents, data for `--json`.
#[derive(Debug, Clone, Default)]
pub struct Output {
    pub text: String,
    pub data: Value,
    /// A PNG to hand an MCP client as an image.
    pub image: Option<Vec<u8>>,
}

impl Output {
    pub fn new(text: impl Into<String>, data: Value) -> Output {
        Output {
            text: text.into(),
            data,
            image: None,
        }
    }
}

/// A failed command (boxed: results stay small).
#[derive(Debug, Clone)]
pub struct CliError(Box<Failure>);

impl std::ops::Deref for CliError {
    type Target = Failure;
    fn deref(&self) -> &Failure {
        &self.0
    }
}

impl std::ops::DerefMut for CliError {
    fn deref_mut(&mut self) -> &mut Failure {
        &mut self.0
    }
}

/// The error, whether it was the caller's arguments, and what was done
/// before it failed (a batch's steps).
#[derive(Debug, Clone)]
pub struct Failure {
    pub error: Error,
    pub usage: bool,
    pub data: Option<Value>,
    /// Text printed before the error (a batch's steps and its observation).
    pub text: String,
}

impl CliError {
    /// Bad arguments: exit code 2.
    pub fn usage(message: impl Into<String>) -> CliError {
        let mut e = CliError::from(
            Error::invalid_request(message)
                .with_suggestion("run `uidrive skills` or `uidrive COMMAND --help` for the syntax"),
        );
        e.usage = true;
        e
    }

    pub fn exit_code(&self) -> u8 {
        if self.usage {
            EXIT_USAGE
        } else {
            EXIT_ERROR
        }
    }
}

impl From<Error> for CliError {
    fn from(error: Error) -> CliError {
        CliError(Box::new(Failure {
            error,
            usage: false,
            data: None,
            text: String::new(),
        }))
    }
}

pub fn error_json(error: &Error) -> Value {
    json!({
        "code": error.code.as_str(),
        "message": error.message,
        "suggestion": error.suggestion,
    })
}

/// The `--json` envelope: `{ok, command, data}` or `{ok, command, error}`.
pub fn envelope(command: &str, result: &Result<Output, CliError>) -> Value {
    match result {
        Ok(out) => json!({"ok": true, "command": command, "data": out.data}),
        Err(e) => {
            let mut value = json!({"ok": false, "command": command, "error": error_json(&e.error)});
            if let Some(data) = &e.data {
                value["data"] = data.clone();
            }
            value
        }
    }
}

/// Prints a result and answers the exit code.
pub fn print(command: &str, result: &Result<Output, CliError>, json: bool) -> u8 {
    let mut stdout = std::io::stdout().lock();
    if json {
        let _ = writeln!(stdout, "{}", envelope(command, result));
    } else {
        match result {
            Ok(out) => {
                let _ = stdout.write_all(terminal_safe(&out.text).as_bytes());
                if !out.text.is_empty() && !out.text.ends_with('\n') {
                    let _ = writeln!(stdout);
                }
            }
            Err(e) => {
                let _ = stdout.write_all(terminal_safe(&e.text).as_bytes());
                let _ = stdout.flush();
                eprintln!("error: {}: {}", e.error.code, one_line(&e.error.message));
                eprintln!("hint: {}", one_line(&e.error.suggestion));
            }
        }
    }
    let _ = stdout.flush();
    match result {
        Ok(_) => EXIT_OK,
        Err(e) => e.exit_code(),
    }
}

/// Text for a terminal: names, values and titles an app or a caller chose
/// may hold what would make a terminal show something else (a bidi
/// override, a carriage return, an escape sequence); those are written as
/// `\u{202e}`. Lines in the snapshot's own quoting are escaped already.
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    uidrive_core::snapshot::terminal_safe(text)
}

/// An error's message or hint on the one line it is printed on: a newline
/// in it (a name echoed back) is written `\n`, so it cannot start a line
/// that looks like uidrive's own.
pub fn one_line(text: &str) -> String {
    terminal_safe(text).replace('\n', "\\n")
}

/// The error for a session with nothing open.
pub fn nothing_open(session: &str) -> Error {
    Error::new(
        ErrorCode::Disconnected,
        format!("session `{session}` has no app open"),
    )
    .with_suggestion(
        "run `uidrive open --launch CMD...` (or --socket PATH, --pid N, --app NAME) first",
    )
}

/// Shows `waiting for …  3s` on stderr while a long wait runs, when stderr is a terminal.
pub struct Progress {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Progress {
    pub fn start(what: String) -> Progress {
        let stop = Arc::new(AtomicBool::new(false));
        if !std::io::stderr().is_terminal() {
            return Progress { stop, thread: None };
        }
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let started = Instant::now();
            let mut shown = false;
            while !flag.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                let elapsed = started.elapsed();
                if elapsed >= Duration::from_secs(1) {
                    eprint!("\r{what}… {}s ", elapsed.as_secs());
                    shown = true;
                }
            }
            if shown {
                eprint!("\r\x1b[K");
            }
        });
        Progress {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
