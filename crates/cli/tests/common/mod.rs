//! A command-line session on a real app: `uidrive open --headless --launch`
//! into a session store of its own, closed when dropped (even when the test
//! failed), and what the tests ask of it.

#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

pub struct Session {
    pub home: tempfile::TempDir,
    pub name: &'static str,
}

impl Session {
    /// Opens `argv` (the program and its arguments) on a headless desktop.
    pub fn open(name: &'static str, argv: &[&str]) -> Session {
        let session = Session {
            home: tempfile::Builder::new()
                .prefix("udreal")
                .tempdir_in("/tmp")
                .unwrap(),
            name,
        };
        let mut args = vec!["open", "--headless", "--timeout", "60000", "--launch"];
        args.extend(argv);
        session.ok(&args);
        session
    }

    pub fn run(&self, args: &[&str]) -> (i32, String, String) {
        let out = Command::new(env!("CARGO_BIN_EXE_uidrive"))
            .arg("--session")
            .arg(self.name)
            .args(args)
            .env("XDG_CACHE_HOME", self.home.path().join("cache"))
            .env("XDG_RUNTIME_DIR", self.home.path())
            .output()
            .expect("uidrive runs");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    pub fn ok(&self, args: &[&str]) -> String {
        let (code, stdout, stderr) = self.run(args);
        assert_eq!(
            code, 0,
            "uidrive {args:?}\nstdout: {stdout}\nstderr: {stderr}"
        );
        stdout
    }

    /// The `--json` envelope's data of a command that succeeded.
    pub fn json(&self, args: &[&str]) -> Value {
        let mut all = vec!["--json"];
        all.extend(args);
        let out = self.ok(&all);
        let answer: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
        answer["data"].clone()
    }

    /// The session's state file, as `open` wrote it.
    fn state(&self) -> Value {
        let path = self
            .home
            .path()
            .join("cache/uidrive/sessions")
            .join(self.name);
        serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
    }

    /// One protocol request on the socket of the session's `uidrive serve`,
    /// as any client sends it; its answer and how long it took.
    pub fn request(&self, method: &str, params: Value) -> (Value, Duration) {
        let socket = PathBuf::from(self.state()["target"]["socket"].as_str().unwrap());
        let mut conn = UnixStream::connect(socket).unwrap();
        let line = json!({"id": 1, "method": method, "params": params}).to_string() + "\n";
        let started = Instant::now();
        conn.write_all(line.as_bytes()).unwrap();
        let mut answer = String::new();
        BufReader::new(conn).read_line(&mut answer).unwrap();
        (serde_json::from_str(&answer).unwrap(), started.elapsed())
    }

    /// The pid of the app the session launched: the daemon's one child that
    /// is not a part of the desktop.
    pub fn app_pid(&self) -> u32 {
        let daemon = self.state()["target"]["daemon"].as_u64().unwrap();
        let helpers = [
            "Xvfb",
            "dbus-daemon",
            "at-spi-bus-laun",
            "at-spi2-registr",
            "openbox",
        ];
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                continue;
            };
            let Some((head, tail)) = stat.rsplit_once(')') else {
                continue;
            };
            let ppid: u64 = tail.split_whitespace().nth(1).unwrap().parse().unwrap();
            let comm = head.split_once('(').map_or("", |(_, c)| c);
            if ppid == daemon && !helpers.contains(&comm) {
                found.push(pid);
            }
        }
        assert_eq!(found.len(), 1, "one app under the daemon: {found:?}");
        found[0]
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // Stops the app and its desktop, even when the test failed.
        let _ = self.run(&["close"]);
    }
}
