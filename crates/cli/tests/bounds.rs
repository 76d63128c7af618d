//! Every bound kept (issue 30, finding 6): a command's timeout bounds the
//! whole command, whatever part is frozen — the server (`uidrive serve`
//! stopped with SIGSTOP) or the app behind it — and timeouts past the
//! longest uidrive takes (one hour) are refused at once.
//!
//! A command may take its timeout and as much again (at least 5 s) for the
//! work around it (ctx::grace); the checks below allow 2 s more for
//! starting a process on a busy machine. Before this was kept,
//! `--action-timeout 2000 press` took 93 s against a stopped server and
//! 15 s against a stopped app.

use serde_json::Value;
use std::process::Command;
use std::time::{Duration, Instant};

/// What a command may take past its timeout here: the grace (at least 5 s,
/// the timeouts below are shorter), and slack for a busy machine.
const OVER: Duration = Duration::from_secs(7);

struct Home(tempfile::TempDir);

impl Home {
    fn new() -> Home {
        Home(
            tempfile::Builder::new()
                .prefix("udbd")
                .tempdir_in("/tmp")
                .unwrap(),
        )
    }

    fn run(&self, args: &[&str]) -> (i32, String, Duration) {
        let started = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_uidrive"))
            .args(["--session", "bounds"])
            .args(args)
            .env("XDG_CACHE_HOME", self.0.path().join("cache"))
            .env("XDG_RUNTIME_DIR", self.0.path())
            .env_remove("UIDRIVE_TIMEOUT_MS")
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.code().unwrap_or(-1), text, started.elapsed())
    }

    fn daemon(&self) -> u32 {
        let state: Value = serde_json::from_slice(
            &std::fs::read(self.0.path().join("cache/uidrive/sessions/bounds")).unwrap(),
        )
        .unwrap();
        state["target"]["daemon"].as_u64().unwrap() as u32
    }
}

fn signal(pid: u32, sig: i32) {
    // SAFETY: a signal to a process this test started.
    unsafe { libc::kill(pid as i32, sig) };
}

/// Continues what a test stopped, and closes the session, whatever failed.
struct Thaw<'a>(&'a Home, Vec<u32>);

impl Drop for Thaw<'_> {
    fn drop(&mut self) {
        for pid in &self.1 {
            signal(*pid, libc::SIGCONT);
        }
        let _ = self.0.run(&["close"]);
    }
}

/// The commands of the issue, each bounded by its own timeout.
fn each_command_keeps_its_time(home: &Home, what: &str) {
    for (args, timeout) in [
        (&["--action-timeout", "2000", "press", "key=x"][..], 2000),
        (&["wait", "--timeout", "1000"][..], 1000),
        (&["--action-timeout", "1500", "snapshot"][..], 1500),
    ] {
        let (code, text, took) = home.run(args);
        assert_ne!(code, 0, "{args:?} against a {what} succeeded: {text}");
        assert!(
            text.contains("timeout"),
            "{args:?} against a {what}: {text}"
        );
        let bound = Duration::from_millis(timeout) + OVER;
        assert!(
            took <= bound,
            "{args:?} against a {what} took {took:?}, more than {bound:?}: {text}"
        );
    }
}

#[test]
fn a_command_keeps_its_timeout_against_a_stopped_server() {
    let home = Home::new();
    let (code, text, _) = home.run(&["open", "--demo"]);
    assert_eq!(code, 0, "{text}");
    let daemon = home.daemon();
    let _thaw = Thaw(&home, vec![daemon]);
    signal(daemon, libc::SIGSTOP);
    each_command_keeps_its_time(&home, "stopped server");
}

#[test]
fn a_command_keeps_its_timeout_against_a_stopped_app() {
    let home = Home::new();
    let (code, text, _) = home.run(&["open", "--headless", "--launch", "gnome-calculator"]);
    assert_eq!(code, 0, "{text}");
    let daemon = home.daemon();
    let app = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .find(|p| {
            let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).unwrap_or_default();
            stat.contains("(gnome-calculato")
                && stat
                    .rsplit_once(')')
                    .and_then(|(_, r)| r.split_whitespace().nth(1)?.parse::<u32>().ok())
                    == Some(daemon)
        })
        .expect("the calculator under the daemon");
    let _thaw = Thaw(&home, vec![app]);
    signal(app, libc::SIGSTOP);
    each_command_keeps_its_time(&home, "stopped app");
}

#[test]
fn timeouts_past_the_longest_are_refused_at_once() {
    let home = Home::new();
    for args in [
        &["--action-timeout", "4294967295", "snapshot"][..],
        &["wait", "--timeout", "3600001"][..],
        &["open", "--demo", "--timeout", "99999999999"][..],
    ] {
        let (code, text, _) = home.run(args);
        assert_eq!(code, 2, "{args:?}: {text}");
        assert!(text.contains("3600000"), "{args:?}: {text}");
    }
}
