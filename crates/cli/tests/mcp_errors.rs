//! The MCP server answers what is not JSON as JSON-RPC requires (issue 14,
//! finding 5): `-32700 Parse error` with a null id, and carries on.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

/// Far above any answer's time: only a hang reaches it.
const HANG_GUARD: Duration = Duration::from_secs(30);

struct Mcp {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Mcp {
    fn start() -> Mcp {
        let home = std::env::temp_dir().join(format!("ud-mcp-{}", std::process::id()));
        let mut child = Command::new(env!("CARGO_BIN_EXE_uidrive"))
            .arg("mcp")
            .env("XDG_CACHE_HOME", home.join("cache"))
            .env("XDG_RUNTIME_DIR", &home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("uidrive mcp starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Mcp {
            stdin: child.stdin.take(),
            child,
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn answer(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(HANG_GUARD)
            .expect("an answer from the MCP server");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn assert_parse_error(answer: &Value) {
    assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
    assert_eq!(answer["id"], Value::Null, "{answer}");
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("Parse error"),
        "{answer}"
    );
}

#[test]
fn a_line_that_is_not_json_is_answered_with_a_parse_error_and_the_session_goes_on() {
    let mut mcp = Mcp::start();
    mcp.send("not json");
    assert_parse_error(&mcp.answer());

    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}
        }
    });
    mcp.send(&initialize.to_string());
    let answer = mcp.answer();
    assert_eq!(answer["id"], 1, "{answer}");
    assert_eq!(
        answer["result"]["serverInfo"]["name"], "uidrive",
        "{answer}"
    );
    mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());

    // Cut short, and broken in the middle.
    mcp.send(r#"{"jsonrpc": "2.0", "id": 2, "method": "tools/list""#);
    assert_parse_error(&mcp.answer());
    mcp.send("{\"jsonrpc\": \"2.0\", \"id\": 3, \u{1}}");
    assert_parse_error(&mcp.answer());

    // Still answering after them.
    mcp.send(&json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}).to_string());
    let answer = mcp.answer();
    assert_eq!(answer["id"], 4, "{answer}");
    let tools = answer["result"]["tools"].as_array().expect("tools");
    assert!(tools.iter().any(|t| t["name"] == "snapshot"), "{answer}");

    // Closing stdin ends the server.
    drop(mcp.stdin.take());
    let started = std::time::Instant::now();
    while mcp.child.try_wait().unwrap().is_none() {
        assert!(started.elapsed() < HANG_GUARD, "the server did not end");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Issue 30, finding 7: every line gets its answer, with the right code and
/// the id as the client wrote it.
#[test]
fn every_line_is_answered_with_the_right_code_and_its_own_id() {
    let mut mcp = Mcp::start();
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}
        }
    });
    mcp.send(&initialize.to_string());
    assert_eq!(mcp.answer()["id"], 1);
    mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());

    let raw = |mcp: &mut Mcp, line: &[u8]| {
        let stdin = mcp.stdin.as_mut().unwrap();
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    };
    // A line that is not UTF-8: a parse error.
    raw(
        &mut mcp,
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"x\":\"\xff\"}",
    );
    assert_parse_error(&mcp.answer());
    // Nested 100,000 deep, alone or in a request's params: invalid, with the id when there is one.
    raw(
        &mut mcp,
        &[b"[".repeat(100_000), b"]".repeat(100_000)].concat(),
    );
    let answer = mcp.answer();
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    let deep = [
        &br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"windows","arguments":{"a":"#[..],
        &b"[".repeat(200),
        &b"]".repeat(200),
        b"}}}",
    ]
    .concat();
    raw(&mut mcp, &deep);
    let answer = mcp.answer();
    assert_eq!(
        (answer["id"].clone(), answer["error"]["code"].clone()),
        (json!(3), json!(-32600)),
        "{answer}"
    );
    // A malformed tools/call: invalid params, not an unknown method.
    for (id, params) in [
        (4, json!({"nam": "windows"})),
        (5, json!(7)),
        (6, json!({"name": 1})),
        (7, json!({"name": "windows", "arguments": [1]})),
    ] {
        mcp.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
                .to_string(),
        );
        let answer = mcp.answer();
        assert_eq!(
            (answer["id"].clone(), answer["error"]["code"].clone()),
            (json!(id), json!(-32602)),
            "{answer}"
        );
    }
    // Ids come back as written: a 30-digit integer, a string.
    mcp.send(r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"tools/list"}"#);
    let line = mcp.lines.recv_timeout(HANG_GUARD).unwrap();
    assert!(
        line.starts_with(r#"{"id":123456789012345678901234567890,"#),
        "{line}"
    );
    // Blank lines are skipped: the next answer is the ping's.
    raw(&mut mcp, b"   \n\t\n");
    mcp.send(r#"{"jsonrpc":"2.0","id":"after blank lines","method":"ping"}"#);
    let answer = mcp.answer();
    assert_eq!(answer["id"], "after blank lines", "{answer}");
    assert!(answer["result"].is_object(), "{answer}");
}
