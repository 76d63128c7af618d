//! Input state never leaks (issue 30, finding 4), against `uidrive serve
//! --headless --launch gnome-calculator`: keys a request holds down are
//! released when it ends, unless it asks to `hold` them, and then when its
//! connection closes; a key event types no text (`key 1, text 1` is one
//! keystroke), and a character key sent alone, which X would type, is
//! refused before anything is sent.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;
use uidrive_core::protocol::{Role, TreeParams};
use uidrive_core::{Driver, SocketDriver};

const GUARD: Duration = Duration::from_secs(30);

struct Server {
    child: Child,
    socket: PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        // SAFETY: SIGTERM to the server this test started.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let _ = self.child.wait();
    }
}

fn calculator() -> Server {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("calc.sock");
    let mut child = Command::new(env!("CARGO_BIN_EXE_uidrive"))
        .args(["serve", "--socket"])
        .arg(&socket)
        .args(["--headless", "--launch", "gnome-calculator"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    for line in BufReader::new(stderr).lines() {
        if line.unwrap().starts_with("UIDRIVE_LISTENING") {
            break;
        }
    }
    Server {
        child,
        socket,
        _dir: dir,
    }
}

/// One connection of a raw protocol client.
struct Conn(BufReader<UnixStream>);

impl Conn {
    fn open(socket: &Path) -> Conn {
        let stream = UnixStream::connect(socket).unwrap();
        stream.set_read_timeout(Some(GUARD)).unwrap();
        Conn(BufReader::new(stream))
    }

    fn input(&mut self, hold: bool, events: Value) -> Value {
        let mut params = json!({"events": events});
        if hold {
            params["hold"] = json!(true);
        }
        let line = json!({"id": 1, "method": "input", "params": params}).to_string() + "\n";
        self.0.get_mut().write_all(line.as_bytes()).unwrap();
        let mut answer = String::new();
        self.0.read_line(&mut answer).unwrap();
        serde_json::from_str(&answer).unwrap()
    }
}

/// The calculator's display: the value of its first text field.
fn display(socket: &Path) -> String {
    let client = SocketDriver::connect(socket).unwrap();
    client.idle(&Default::default()).ok();
    let tree = client.tree(&TreeParams::default()).unwrap();
    tree.nodes
        .iter()
        .find(|n| n.role == Role::TextField)
        .and_then(|n| n.value.clone())
        .unwrap_or_default()
}

fn clear(socket: &Path) {
    let mut conn = Conn::open(socket);
    let answer = conn.input(false, json!([{"type": "key", "key": "Escape"}]));
    assert!(answer["result"].is_object(), "{answer}");
}

fn ok(answer: Value) {
    assert!(answer["result"].is_object(), "{answer}");
}

#[test]
fn held_keys_go_with_their_request_or_their_connection_and_key_events_type_no_text() {
    let server = calculator();
    let socket = &server.socket;

    // The finding: a keyDown with no keyUp, on a connection that
    // then closes; the next client's typing used to type nothing.
    clear(socket);
    ok(Conn::open(socket).input(false, json!([{"type": "keyDown", "key": "Ctrl+Shift+a"}])));
    ok(Conn::open(socket).input(false, json!([{"type": "text", "text": "12"}])));
    assert_eq!(display(socket), "12");

    // With `hold`, the keys stay down for the connection's next request...
    clear(socket);
    let mut holding = Conn::open(socket);
    ok(holding.input(true, json!([{"type": "keyDown", "key": "Ctrl+Shift+a"}])));
    ok(holding.input(false, json!([{"type": "text", "text": "3"}])));
    assert_eq!(
        display(socket),
        "",
        "Ctrl and Shift were not held: 3 was typed"
    );
    // ...and go when the connection closes (once the server reads its end:
    // another client may come first, so it tries again a few times).
    drop(holding);
    let mut tries = 0;
    let shown = loop {
        clear(socket);
        ok(Conn::open(socket).input(false, json!([{"type": "text", "text": "4"}])));
        let shown = display(socket);
        tries += 1;
        if shown == "4" || tries == 20 {
            break shown;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(
        shown, "4",
        "the keys stayed held after their connection closed"
    );

    // A key event types no text: `key 5, text 5, key 6, text 6` types "56".
    clear(socket);
    ok(Conn::open(socket).input(
        false,
        json!([
            {"type": "key", "key": "5"}, {"type": "text", "text": "5"},
            {"type": "key", "key": "6"}, {"type": "text", "text": "6"},
        ]),
    ));
    assert_eq!(display(socket), "56");

    // A character key alone would type on X: refused, nothing sent.
    let answer = Conn::open(socket).input(
        false,
        json!([{"type": "text", "text": "7"}, {"type": "key", "key": "8"}]),
    );
    assert_eq!(answer["error"]["code"], "unsupported", "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("input.events[1]"),
        "{answer}"
    );
    assert_eq!(display(socket), "56", "part of a refused request was sent");

    // The command line's `key` sends a keystroke: it types its character once.
    let dir = tempfile::tempdir().unwrap();
    let cli = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_uidrive"))
            .args(["--session", "keys"])
            .args(args)
            .env("XDG_CACHE_HOME", dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    cli(&["open", "--socket", socket.to_str().unwrap()]);
    cli(&["key", "9"]);
    cli(&["close"]);
    assert_eq!(display(socket), "569");
}
