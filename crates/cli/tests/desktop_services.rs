//! The desktop's services from the command line, on real apps on uidrive's
//! headless desktop: text set on the clipboard pastes into mousepad and
//! text copied in mousepad reads back; `notify-send -A` is listed, its
//! action invoked (notify-send prints it) and it is gone after; a tray
//! item (tests/apps/tray_item.py) is listed, activated and its menu clicked.

mod common;

use common::Session;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Asks until `check` holds of the answer, for up to 15 s; the last answer.
fn until(pad: &Session, args: &[&str], check: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let data = pad.json(args);
        if check(&data) || Instant::now() > deadline {
            return data;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn the_clipboard_pastes_into_mousepad_and_reads_what_it_copied() {
    let pad = Session::open("clip", &["mousepad"]);
    pad.ok(&["snapshot", "-i"]);
    let empty = pad.json(&["clipboard", "get"]);
    assert_eq!(empty["text"], Value::Null, "{empty}");

    let set = "Pasted by uidrive ✓";
    pad.ok(&["clipboard", "set", set]);
    assert_eq!(pad.json(&["clipboard", "get"])["text"], set);
    // mousepad asks uidrive for it.
    pad.ok(&["key", "Ctrl+v"]);
    pad.ok(&[
        "wait",
        "role=textField",
        "--text",
        set,
        "--timeout",
        "15000",
    ]);

    // Copied in mousepad: read from mousepad, which holds it now.
    pad.ok(&["clipboard", "clear"]);
    assert_eq!(pad.json(&["clipboard", "get"])["text"], Value::Null);
    pad.ok(&["type", " and typed"]);
    let whole = format!("{set} and typed");
    pad.ok(&[
        "wait",
        "role=textField",
        "--text",
        &whole,
        "--timeout",
        "15000",
    ]);
    pad.ok(&["key", "Ctrl+a"]);
    pad.ok(&["key", "Ctrl+c"]);
    let copied = until(&pad, &["clipboard", "get"], |d| d["text"] == whole.as_str());
    assert_eq!(copied["text"], whole.as_str(), "{copied}");
    // Selecting made it the primary selection too.
    let primary = until(&pad, &["clipboard", "get", "--primary"], |d| {
        d["text"] == whole.as_str()
    });
    assert_eq!(primary["text"], whole.as_str(), "{primary}");
    let text = pad.ok(&["clipboard", "get"]);
    assert_eq!(text.trim_end(), whole);

    // The same through MCP's `desktop` tool (one of the desktop's tools), in the session.
    let mut mcp = Mcp::attach(&pad);
    let (read, error) = mcp.tool("desktop", json!({"op": "clipboard-get"}));
    assert!(!error && read.trim_end() == whole, "{read}");
    let (_, error) = mcp.tool(
        "desktop",
        json!({"op": "clipboard-set", "text": "from MCP"}),
    );
    assert!(!error);
    assert_eq!(pad.json(&["clipboard", "get"])["text"], "from MCP");
    let (refused, error) = mcp.tool("desktop", json!({"op": "paste"}));
    assert!(error && refused.contains("clipboard-get"), "{refused}");
}

/// `uidrive mcp --attach-session NAME`: MCP tools in a command-line session.
struct Mcp {
    child: Child,
    out: BufReader<std::process::ChildStdout>,
    next: u64,
}

impl Mcp {
    fn attach(session: &Session) -> Mcp {
        let mut child = Command::new(env!("CARGO_BIN_EXE_uidrive"))
            .args(["mcp", "--desktop-tools", "--attach-session", session.name])
            .env("XDG_CACHE_HOME", session.home.path().join("cache"))
            .env("XDG_RUNTIME_DIR", session.home.path())
            .env_remove("UIDRIVE_SESSION")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let mut mcp = Mcp {
            child,
            out,
            next: 0,
        };
        mcp.call(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        );
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut line = String::new();
        self.out.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap()
    }

    /// A tool's text answer, and whether it is an error.
    fn tool(&mut self, name: &str, arguments: Value) -> (String, bool) {
        let answer = self.call("tools/call", json!({"name": name, "arguments": arguments}));
        let result = &answer["result"];
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        (text.to_string(), result["isError"] == true)
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The desktop's environment, read from the app the session launched on it.
fn desktop_env(pad: &Session) -> Vec<(String, String)> {
    let environ = std::fs::read(format!("/proc/{}/environ", pad.app_pid())).unwrap();
    environ
        .split(|b| *b == 0)
        .filter_map(|entry| {
            let entry = String::from_utf8_lossy(entry);
            let (k, v) = entry.split_once('=')?;
            [
                "DISPLAY",
                "XAUTHORITY",
                "DBUS_SESSION_BUS_ADDRESS",
                "XDG_RUNTIME_DIR",
            ]
            .contains(&k)
            .then(|| (k.to_string(), v.to_string()))
        })
        .collect()
}

fn on_desktop(env: &[(String, String)], program: &str) -> Command {
    let mut command = Command::new(program);
    command.env_remove("WAYLAND_DISPLAY");
    command.envs(env.iter().cloned());
    command
}

fn wait_exit(child: &mut std::process::Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the process did not end");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn lines_when(log: &Path, line: &str) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let seen: Vec<String> = std::fs::read_to_string(log)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect();
        if seen.iter().any(|l| l == line) || Instant::now() > deadline {
            return seen;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn notifications_and_the_tray_are_read_and_acted_on() {
    let pad = Session::open("notes", &["mousepad"]);
    let env = desktop_env(&pad);
    assert_eq!(pad.ok(&["notifications"]).trim(), "no notifications");

    let mut notify = on_desktop(&env, "notify-send")
        .args(["-A", "open=Open", "Build finished", "All green"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("notify-send runs (scripts/install-deps.sh installs libnotify-bin)");
    let mut out = notify.stdout.take().unwrap();
    let printed = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = out.read_to_string(&mut text);
        text
    });
    let waited = pad.json(&["wait", "--notification", "All green", "--timeout", "20000"]);
    let note = &waited["notification"];
    assert_eq!(note["summary"], "Build finished", "{waited}");
    let id = note["id"].as_u64().unwrap().to_string();
    let listed = pad.ok(&["notifications"]);
    assert!(
        listed.contains(&format!("{id} \"Build finished\" \"All green\""))
            && listed.contains("open=\"Open\""),
        "{listed}"
    );
    let (code, _, stderr) = pad.run(&["notification", "action", &id, "close"]);
    assert_ne!(code, 0, "an action the notification lacks is refused");
    assert!(
        stderr.contains("open"),
        "the error names its actions: {stderr}"
    );
    pad.ok(&["notification", "action", &id, "open"]);
    assert!(wait_exit(&mut notify).success());
    assert_eq!(
        printed.join().unwrap().trim(),
        "open",
        "notify-send printed the action"
    );
    let after = pad.json(&["notifications"]);
    assert_eq!(after["notifications"], serde_json::json!([]), "{after}");

    // Dismissing one.
    on_desktop(&env, "notify-send")
        .args(["Second", "to dismiss"])
        .status()
        .unwrap();
    let second = pad.json(&["wait", "--notification", "Second"]);
    let id = second["notification"]["id"].as_u64().unwrap().to_string();
    pad.ok(&["notification", "dismiss", &id]);
    assert_eq!(pad.ok(&["notifications"]).trim(), "no notifications");
    let (code, _, _) = pad.run(&["wait", "--notification", "never", "--timeout", "300"]);
    assert_ne!(code, 0, "no such notification: the wait times out");

    // The tray.
    let log = std::env::temp_dir().join(format!("uidrive-cli-tray-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut item = on_desktop(&env, "/usr/bin/python3")
        .arg(repo.join("tests/apps/tray_item.py"))
        .arg(&log)
        .spawn()
        .unwrap();
    assert!(lines_when(&log, "registered").contains(&"registered".into()));
    let tray = pad.json(&["tray"]);
    assert_eq!(tray["items"][0]["id"], "uidrive-test-tray", "{tray}");
    assert_eq!(tray["items"][0]["title"], "uidrive test tray", "{tray}");
    assert_eq!(tray["items"][0]["status"], "Active", "{tray}");
    pad.ok(&["tray", "activate", "uidrive-test-tray"]);
    assert!(lines_when(&log, "activate 0 0").contains(&"activate 0 0".into()));
    let menu = pad.ok(&["tray", "menu", "uidrive-test-tray"]);
    assert!(menu.contains("1 \"Open Window\""), "{menu}");
    assert!(menu.contains("4 \"Disabled\" disabled"), "{menu}");
    pad.ok(&["tray", "click", "uidrive-test-tray", "Open Window"]);
    let seen = lines_when(&log, "clicked 1 _Open Window");
    assert!(seen.contains(&"clicked 1 _Open Window".into()), "{seen:?}");
    let _ = item.kill();
    let _ = item.wait();
    let _ = std::fs::remove_file(&log);
}
