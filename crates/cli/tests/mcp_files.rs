//! Read-only means read-only (issue 30, finding 3): the MCP server writes no
//! file unless the host gave it a directory at start (`--files-dir`), and
//! then only under it, never through a symlink. Its `screenshot` tool took
//! any path: it overwrote a file with a PNG and tried /proc/self/mem.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        // SAFETY: SIGTERM to the server this test started.
        unsafe { libc::kill(self.0.id() as i32, libc::SIGTERM) };
        let _ = self.0.wait();
    }
}

/// `uidrive serve --demo` on a socket in `dir`.
fn demo(dir: &Path) -> (Served, String) {
    let socket = dir.join("demo.sock");
    let mut child = Command::new(env!("CARGO_BIN_EXE_uidrive"))
        .args(["serve", "--demo", "--socket"])
        .arg(&socket)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    for line in BufReader::new(stderr).lines() {
        if line.unwrap().starts_with("UIDRIVE_LISTENING") {
            break;
        }
    }
    (Served(child), socket.to_str().unwrap().to_string())
}

struct Mcp {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl Mcp {
    fn start(args: &[&str], home: &Path) -> Mcp {
        let mut child = Command::new(env!("CARGO_BIN_EXE_uidrive"))
            .arg("mcp")
            .args(args)
            .env("XDG_CACHE_HOME", home.join("cache"))
            .env_remove("UIDRIVE_MCP_FILES_DIR")
            .env_remove("UIDRIVE_SESSION")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut mcp = Mcp {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            child,
            next: 0,
        };
        mcp.call("initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}));
        writeln!(
            mcp.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )
        .unwrap();
        mcp
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let request =
            json!({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params});
        writeln!(self.stdin, "{request}").unwrap();
        self.stdin.flush().unwrap();
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap()
    }

    /// A tool's text answer, and whether it is an error.
    fn tool(&mut self, name: &str, arguments: Value) -> (String, bool) {
        let answer = self.call("tools/call", json!({"name": name, "arguments": arguments}));
        let result = &answer["result"];
        let text = result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        (text, result["isError"] == true)
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn read_only_writes_no_file_and_tools_write_only_under_the_given_directory() {
    let home = tempfile::tempdir().unwrap();
    let (_server, socket) = demo(home.path());
    let victim = home.path().join("notes.txt");
    std::fs::write(&victim, b"my notes").unwrap();

    // Read-only, no directory given: the writes are refused, the file kept.
    let mut mcp = Mcp::start(&["--read-only", "--socket", &socket], home.path());
    for file in [victim.to_str().unwrap(), "/proc/self/mem", "shot.png"] {
        let (text, error) = mcp.tool("screenshot", json!({"file": file}));
        assert!(error, "screenshot to {file} was not refused: {text}");
        assert!(text.contains("writes no files"), "{text}");
    }
    assert_eq!(std::fs::read(&victim).unwrap(), b"my notes");
    // The capture comes back inline instead.
    let answer = mcp.call("tools/call", json!({"name": "screenshot", "arguments": {}}));
    assert_eq!(answer["result"]["content"][1]["type"], "image", "{answer}");
    drop(mcp);

    // With a directory: written under it, refused elsewhere, never through a symlink.
    let out = home.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::os::unix::fs::symlink(&victim, out.join("link.png")).unwrap();
    let mut mcp = Mcp::start(
        &[
            "--read-only",
            "--socket",
            &socket,
            "--files-dir",
            out.to_str().unwrap(),
        ],
        home.path(),
    );
    let (text, error) = mcp.tool("screenshot", json!({"file": "shot.png"}));
    assert!(!error, "{text}");
    assert!(std::fs::read(out.join("shot.png"))
        .unwrap()
        .starts_with(b"\x89PNG"));
    for file in [victim.to_str().unwrap(), "/proc/self/mem", "../notes.txt"] {
        let (text, error) = mcp.tool("screenshot", json!({"file": file}));
        assert!(error, "screenshot to {file} was not refused: {text}");
    }
    let (text, error) = mcp.tool("screenshot", json!({"file": out.join("link.png")}));
    assert!(!error, "{text}");
    assert_eq!(
        std::fs::read(&victim).unwrap(),
        b"my notes",
        "written through the symlink"
    );
    assert!(std::fs::read(out.join("link.png"))
        .unwrap()
        .starts_with(b"\x89PNG"));
}
