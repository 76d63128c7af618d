//! Nothing is left behind (issue 30, finding 5): a killed `uidrive serve`
//! takes its desktop and app with it, a killed app is reaped at once,
//! `close` says what it stopped only once it is gone, a damaged or empty
//! session file still lets `close` stop what the session started, and no
//! lock file stays under the sessions directory.
//!
//! Every check looks at this test's own processes only: the daemon a
//! session started and what runs under it, found from `/proc`.

mod common;

use common::{procs_under, runs, stat, Proc};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// Far above anything these waits take: only a process that never goes reaches it.
const GUARD: Duration = Duration::from_secs(30);

struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        Home {
            dir: tempfile::Builder::new()
                .prefix("udlb")
                .tempdir_in("/tmp")
                .unwrap(),
        }
    }

    fn run(&self, session: &str, args: &[&str]) -> (i32, String, String) {
        let out = Command::new(env!("CARGO_BIN_EXE_uidrive"))
            .arg("--session")
            .arg(session)
            .args(args)
            .env("XDG_CACHE_HOME", self.dir.path().join("cache"))
            .env("XDG_RUNTIME_DIR", self.dir.path())
            .env_remove("UIDRIVE_SESSION")
            .output()
            .expect("uidrive runs");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    fn ok(&self, session: &str, args: &[&str]) -> String {
        let (code, stdout, stderr) = self.run(session, args);
        assert_eq!(
            code, 0,
            "uidrive {args:?}\nstdout: {stdout}\nstderr: {stderr}"
        );
        stdout
    }

    fn sessions(&self) -> PathBuf {
        self.dir.path().join("cache/uidrive/sessions")
    }

    fn daemon(&self, session: &str) -> u32 {
        let text = std::fs::read_to_string(self.sessions().join(session)).unwrap();
        let state: Value = serde_json::from_str(&text).unwrap();
        state["target"]["daemon"].as_u64().expect("a daemon") as u32
    }

    /// The files uidrive keeps for sessions, by name.
    fn files(&self) -> Vec<String> {
        std::fs::read_dir(self.sessions())
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Waits until none of `procs` runs; answers those still running at the guard.
fn wait_gone(procs: &[Proc]) -> Vec<Proc> {
    let deadline = Instant::now() + GUARD;
    loop {
        let left: Vec<Proc> = procs.iter().filter(|p| runs(p)).cloned().collect();
        if left.is_empty() || Instant::now() >= deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn kill(pid: u32, signal: i32) {
    // SAFETY: kill(2) on a process this test started (through uidrive).
    unsafe {
        libc::kill(pid as i32, signal);
    }
}

/// Stops whatever a failed test leaves running, by its own pids only.
struct Reap(Vec<Proc>);

impl Drop for Reap {
    fn drop(&mut self) {
        for p in self.0.iter().filter(|p| runs(p)) {
            kill(p.pid, libc::SIGKILL);
        }
    }
}

fn open_calculator(home: &Home, session: &str) -> (u32, Vec<Proc>) {
    home.ok(
        session,
        &["open", "--headless", "--launch", "gnome-calculator"],
    );
    let daemon = home.daemon(session);
    let procs = procs_under(daemon);
    let names: Vec<&str> = procs.iter().map(|p| p.name.as_str()).collect();
    for part in [
        "Xvfb",
        "dbus-daemon",
        "at-spi2-registr",
        "openbox",
        "gnome-calculato",
    ] {
        assert!(
            names.contains(&part),
            "no {part} under the daemon: {names:?}"
        );
    }
    (daemon, procs)
}

#[test]
fn a_killed_server_takes_its_desktop_and_app_with_it_and_close_says_so() {
    let home = Home::new();
    let (daemon, procs) = open_calculator(&home, "killed");
    let _reap = Reap(procs.clone());
    kill(daemon, libc::SIGKILL);
    let left = wait_gone(&procs);
    assert!(
        left.is_empty(),
        "still running after the server was killed: {left:?}"
    );
    let said = home.ok("killed", &["close"]);
    assert!(
        said.contains("had already ended") && !said.contains("and stopped"),
        "{said}"
    );
    assert!(
        home.files().is_empty(),
        "left in the sessions directory: {:?}",
        home.files()
    );
}

#[test]
fn a_killed_app_is_reaped_at_once() {
    let home = Home::new();
    let (daemon, procs) = open_calculator(&home, "reaped");
    let _reap = Reap(procs.clone());
    let app = procs
        .iter()
        .find(|p| p.name.starts_with("gnome-calc"))
        .unwrap()
        .clone();
    kill(app.pid, libc::SIGKILL);
    // Gone from /proc, not a zombie, while its server still runs.
    let deadline = Instant::now() + GUARD;
    while stat(app.pid).is_some_and(|(_, started, _, _)| started == app.started)
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        stat(app.pid).is_none_or(|(_, started, _, _)| started != app.started),
        "the killed app is still in /proc: {:?}",
        stat(app.pid)
    );
    assert!(runs(&procs[0]), "the server {daemon} went too");
    home.ok("reaped", &["close"]);
}

#[test]
fn close_stops_what_a_session_started_when_its_file_is_damaged_or_empty() {
    let home = Home::new();
    for (session, contents) in [("damaged", "{\"target\": {garbage"), ("empty", "")] {
        let (_, procs) = open_calculator(&home, session);
        let _reap = Reap(procs.clone());
        std::fs::write(home.sessions().join(session), contents).unwrap();
        if session == "damaged" {
            // Other commands refuse it, and say `close` helps.
            let (code, _, stderr) = home.run(session, &["snapshot"]);
            assert_ne!(code, 0);
            assert!(stderr.contains("uidrive close"), "{stderr}");
        }
        let said = home.ok(session, &["close"]);
        assert!(said.contains("stopped the uidrive serve"), "{said}");
        let left = wait_gone(&procs);
        assert!(
            left.is_empty(),
            "{session}: still running after close: {left:?}"
        );
        // `close` answered after checking: nothing was still running when it did.
        assert!(procs.iter().all(|p| !runs(p)));
    }
    assert!(
        home.files().is_empty(),
        "left in the sessions directory: {:?}",
        home.files()
    );
}

#[test]
fn no_lock_file_stays_after_a_session_ends_or_never_opens() {
    let home = Home::new();
    home.ok("demo", &["open", "--demo"]);
    home.ok("demo", &["snapshot"]);
    assert!(
        home.files().contains(&"demo".to_string()),
        "{:?}",
        home.files()
    );
    home.ok("demo", &["close"]);
    // A command on a session that never opened an app fails, and keeps nothing.
    for session in ["never", "never2"] {
        let (code, _, _) = home.run(session, &["snapshot"]);
        assert_ne!(code, 0);
    }
    home.ok("never3", &["close"]);
    assert!(
        home.files().is_empty(),
        "left in the sessions directory: {:?}",
        home.files()
    );
}
