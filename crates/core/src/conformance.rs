//! A conformance suite: checks that the server at a socket speaks the protocol.
//!
//! It runs against `serve` over any driver (the in-memory one, the AT-SPI one)
//! and against any app that claims to speak the protocol. It needs the app to
//! show at least one window.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

/// The outcome of one check.
#[derive(Debug, Clone)]
pub struct Check {
    /// What the check checks, in a few words.
    pub name: &'static str,
    /// `Ok` when it passed, else why it failed.
    pub outcome: Result<(), String>,
}

/// All checks, in order.
#[derive(Debug, Clone)]
pub struct Report {
    /// Every check run, with its outcome.
    pub checks: Vec<Check>,
}

impl Report {
    /// The checks that failed.
    pub fn failures(&self) -> Vec<&Check> {
        self.checks.iter().filter(|c| c.outcome.is_err()).collect()
    }

    /// Whether every check passed.
    pub fn passed(&self) -> bool {
        self.failures().is_empty()
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for check in &self.checks {
            match &check.outcome {
                Ok(()) => writeln!(f, "ok   {}", check.name)?,
                Err(why) => writeln!(f, "FAIL {}: {why}", check.name)?,
            }
        }
        Ok(())
    }
}

type Outcome = Result<(), String>;
type CheckFn = fn(&Path) -> Outcome;

/// Runs every check against the server at `socket`.
pub fn run(socket: &Path) -> Report {
    let checks: [(&'static str, CheckFn); 10] = [
        ("answers windows with at least one window", windows_answer),
        ("echoes ids of every JSON type", ids_echoed),
        (
            "answers requests sent in one write, in order",
            framing_in_order,
        ),
        (
            "parse_error with a null id for a line that is not a JSON object",
            broken_lines,
        ),
        (
            "unknown_method for a method it does not have",
            unknown_method,
        ),
        ("invalid_request for bad params", bad_params),
        ("no_window for an unknown window", unknown_window),
        ("no_element for an unknown element", unknown_element),
        ("serves two connections side by side", parallel_connections),
        ("answers requests after an error", answers_after_error),
    ];
    Report {
        checks: checks
            .iter()
            .map(|(name, check)| Check {
                name,
                outcome: check(socket),
            })
            .collect(),
    }
}

/// A raw line client with a timeout on every read, so no check can hang.
struct Raw {
    reader: BufReader<UnixStream>,
}

impl Raw {
    fn open(socket: &Path) -> Result<Raw, String> {
        let stream = UnixStream::connect(socket)
            .map_err(|e| format!("cannot connect to {}: {e}", socket.display()))?;
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .map_err(|e| e.to_string())?;
        Ok(Raw {
            reader: BufReader::new(stream),
        })
    }

    fn send(&mut self, bytes: &[u8]) -> Outcome {
        self.reader
            .get_mut()
            .write_all(bytes)
            .map_err(|e| format!("write failed: {e}"))
    }

    fn answer(&mut self) -> Result<Value, String> {
        let mut line = String::new();
        match self.reader.read_line(&mut line) {
            Ok(0) => Err("the server closed the connection".into()),
            Ok(_) => {
                serde_json::from_str(&line).map_err(|e| format!("answer is not JSON ({e}): {line}"))
            }
            Err(e) => Err(format!("no answer: {e}")),
        }
    }

    fn call(&mut self, request: Value) -> Result<Value, String> {
        self.send(format!("{request}\n").as_bytes())?;
        self.answer()
    }
}

fn expect_code(answer: &Value, code: &str) -> Outcome {
    match answer.pointer("/error/code").and_then(Value::as_str) {
        Some(found) if found == code => {
            let message = answer
                .pointer("/error/message")
                .and_then(Value::as_str)
                .unwrap_or("");
            if message.is_empty() {
                Err(format!("error `{code}` has no message"))
            } else {
                Ok(())
            }
        }
        _ => Err(format!("expected error `{code}`, got {answer}")),
    }
}

fn expect_result(answer: &Value) -> Result<&Value, String> {
    answer
        .get("result")
        .ok_or_else(|| format!("expected a result, got {answer}"))
}

fn first_window(socket: &Path) -> Result<Value, String> {
    let answer = Raw::open(socket)?.call(json!({"id": 1, "method": "windows"}))?;
    expect_result(&answer)?
        .pointer("/windows/0/id")
        .cloned()
        .ok_or_else(|| format!("no window listed: {answer}"))
}

fn windows_answer(socket: &Path) -> Outcome {
    let answer = Raw::open(socket)?.call(json!({"id": 1, "method": "windows"}))?;
    let windows = expect_result(&answer)?["windows"]
        .as_array()
        .ok_or("`windows` is not a list")?;
    let first = windows.first().ok_or("the app shows no window")?;
    for field in [
        "id",
        "title",
        "kind",
        "bounds",
        "contentBounds",
        "focused",
        "visible",
    ] {
        if first.get(field).is_none() {
            return Err(format!("window lacks `{field}`: {first}"));
        }
    }
    Ok(())
}

fn ids_echoed(socket: &Path) -> Outcome {
    let mut raw = Raw::open(socket)?;
    for id in [
        json!(7),
        json!("seven"),
        json!({"n": [1, 2]}),
        json!(null),
        json!(1.5),
        json!([true]),
    ] {
        let answer = raw.call(json!({"id": id, "method": "windows"}))?;
        if answer.get("id") != Some(&id) {
            return Err(format!("sent id {id}, got {answer}"));
        }
    }
    Ok(())
}

fn framing_in_order(socket: &Path) -> Outcome {
    let mut raw = Raw::open(socket)?;
    let window = first_window(socket)?;
    let batch = format!(
        "{}\n{}\n{}\n",
        json!({"id": "a", "method": "tree", "params": {"window": window}}),
        json!({"id": "b", "method": "nope"}),
        json!({"id": "c", "method": "windows"})
    );
    raw.send(batch.as_bytes())?;
    for want in ["a", "b", "c"] {
        let answer = raw.answer()?;
        if answer["id"] != want {
            return Err(format!(
                "expected the answer to `{want}` next, got {answer}"
            ));
        }
    }
    Ok(())
}

fn broken_lines(socket: &Path) -> Outcome {
    let mut raw = Raw::open(socket)?;
    for line in ["{not json", "[1, 2]", "\"text\"", "42"] {
        let answer = raw.call_line(line)?;
        expect_code(&answer, "parse_error")?;
        if answer.get("id") != Some(&Value::Null) {
            return Err(format!("a parse_error must carry a null id, got {answer}"));
        }
    }
    Ok(())
}

impl Raw {
    fn call_line(&mut self, line: &str) -> Result<Value, String> {
        self.send(format!("{line}\n").as_bytes())?;
        self.answer()
    }
}

fn unknown_method(socket: &Path) -> Outcome {
    let answer = Raw::open(socket)?.call(json!({"id": 1, "method": "teleport"}))?;
    expect_code(&answer, "unknown_method")
}

fn bad_params(socket: &Path) -> Outcome {
    let mut raw = Raw::open(socket)?;
    let window = first_window(socket)?;
    let cases = [
        json!({"id": 1, "method": "tree", "params": {"window": "first"}}),
        json!({"id": 2, "method": "act", "params": {"window": window, "id": "1"}}),
        json!({"id": 3, "method": "input", "params": {"window": window, "events": [{"type": "levitate"}]}}),
        json!({"id": 4, "method": "idle", "params": {"window": window, "timeout": -5}}),
        json!({"id": 5, "method": "tree", "params": {"window": window, "colour": "red"}}),
    ];
    for case in cases {
        let answer = raw.call(case.clone())?;
        expect_code(&answer, "invalid_request").map_err(|e| format!("{case}: {e}"))?;
    }
    Ok(())
}

fn unknown_window(socket: &Path) -> Outcome {
    let mut raw = Raw::open(socket)?;
    for method in ["tree", "capture", "idle"] {
        let answer =
            raw.call(json!({"id": 1, "method": method, "params": {"window": 987_654_321u64}}))?;
        expect_code(&answer, "no_window").map_err(|e| format!("{method}: {e}"))?;
    }
    Ok(())
}

fn unknown_element(socket: &Path) -> Outcome {
    let window = first_window(socket)?;
    let answer = Raw::open(socket)?.call(json!({"id": 1, "method": "act", "params": {
        "window": window, "id": "18446744073709551557", "action": "focus"
    }}))?;
    expect_code(&answer, "no_element")
}

fn parallel_connections(socket: &Path) -> Outcome {
    let window = first_window(socket)?;
    let mut slow = Raw::open(socket)?;
    let mut quick = Raw::open(socket)?;
    // The idle request goes first; the second connection must be answered whatever idle does.
    slow.send(
        format!(
            "{}\n",
            json!({"id": "idle", "method": "idle", "params": {"window": window, "timeout": 2000}})
        )
        .as_bytes(),
    )?;
    let answer = quick.call(json!({"id": "w", "method": "windows"}))?;
    expect_result(&answer)?;
    let idle = slow.answer()?;
    if idle["id"] != "idle" {
        return Err(format!("idle answered with the wrong id: {idle}"));
    }
    match (
        idle.get("result"),
        idle.pointer("/error/code").and_then(Value::as_str),
    ) {
        (Some(_), _) | (None, Some("timeout")) => Ok(()),
        _ => Err(format!("idle gave neither a result nor `timeout`: {idle}")),
    }
}

fn answers_after_error(socket: &Path) -> Outcome {
    let mut raw = Raw::open(socket)?;
    expect_code(&raw.call_line("garbage")?, "parse_error")?;
    expect_code(
        &raw.call(json!({"id": 2, "method": "nope"}))?,
        "unknown_method",
    )?;
    let answer = raw.call(json!({"id": 3, "method": "windows"}))?;
    expect_result(&answer).map(|_| ())
}
