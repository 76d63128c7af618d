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
        Session::open_on(name, &["--headless"], argv)
    }

    /// Opens `argv` on the desktop `desktop` asks for (`--headless wayland`).
    pub fn open_on(name: &'static str, desktop: &[&str], argv: &[&str]) -> Session {
        let session = Session {
            home: tempfile::Builder::new()
                .prefix("udreal")
                .tempdir_in("/tmp")
                .unwrap(),
            name,
        };
        let mut args = vec!["open"];
        args.extend(desktop);
        args.extend(["--timeout", "60000", "--launch"]);
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

    /// The pid of the session's `uidrive serve`.
    pub fn daemon(&self) -> u32 {
        self.state()["target"]["daemon"].as_u64().unwrap() as u32
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
            "sway",
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

/// A process: its pid, start time (to tell it from a later one with the
/// same pid) and name.
#[derive(Debug, Clone, PartialEq)]
pub struct Proc {
    pub pid: u32,
    pub started: u64,
    pub name: String,
}

/// (parent, start time, name, zombie) of a process.
pub fn stat(pid: u32) -> Option<(u32, u64, String, bool)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (head, rest) = stat.rsplit_once(')')?;
    let name = head.split_once('(')?.1.to_string();
    let fields: Vec<&str> = rest.split_whitespace().collect();
    Some((
        fields[1].parse().ok()?,
        fields[19].parse().ok()?,
        name,
        fields[0] == "Z",
    ))
}

/// `pid` and every live process under it.
pub fn procs_under(pid: u32) -> Vec<Proc> {
    let all: Vec<(u32, u32, Proc)> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|p| {
            let (ppid, started, name, zombie) = stat(p)?;
            (!zombie).then_some((
                p,
                ppid,
                Proc {
                    pid: p,
                    started,
                    name,
                },
            ))
        })
        .collect();
    let mut found: Vec<Proc> = all
        .iter()
        .filter(|p| p.0 == pid)
        .map(|p| p.2.clone())
        .collect();
    let mut at = 0;
    while at < found.len() {
        let parent = found[at].pid;
        found.extend(all.iter().filter(|p| p.1 == parent).map(|p| p.2.clone()));
        at += 1;
    }
    found
}

/// Whether the process still runs: the same one (start time), not a zombie.
pub fn runs(p: &Proc) -> bool {
    stat(p.pid).is_some_and(|(_, started, _, zombie)| started == p.started && !zombie)
}

/// A process's environment, as the kernel has it.
pub fn environ(pid: u32) -> Vec<String> {
    let raw = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
    raw.split(|b| *b == 0)
        .filter(|v| !v.is_empty())
        .map(|v| String::from_utf8_lossy(v).into_owned())
        .collect()
}
