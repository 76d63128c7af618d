//! Sessions side by side keep to their own files and daemons (issue 14,
//! finding 4): names that share a stem, names that look like uidrive's own
//! files, concurrent commands, and an `open` that fails.

use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

struct Home {
    dir: tempfile::TempDir,
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Home {
    fn new() -> Home {
        Home {
            dir: tempfile::Builder::new()
                .prefix("ud")
                .tempdir_in("/tmp")
                .unwrap(),
        }
    }

    fn uidrive(&self, session: &str, args: &[&str]) -> Run {
        let out = Command::new(env!("CARGO_BIN_EXE_uidrive"))
            .arg("--session")
            .arg(session)
            .arg("--json")
            .args(args)
            .env("XDG_CACHE_HOME", self.dir.path().join("cache"))
            .env("XDG_RUNTIME_DIR", self.dir.path())
            .env_remove("UIDRIVE_SESSION")
            .output()
            .expect("uidrive runs");
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    fn ok(&self, session: &str, args: &[&str]) -> Value {
        let run = self.uidrive(session, args);
        assert_eq!(
            run.code, 0,
            "uidrive --session {session} {args:?}\nstdout: {}\nstderr: {}",
            run.stdout, run.stderr
        );
        serde_json::from_str(run.stdout.trim())
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", run.stdout))
    }

    fn sessions(&self) -> PathBuf {
        self.dir.path().join("cache/uidrive/sessions")
    }

    fn state(&self, session: &str) -> Value {
        let text = std::fs::read_to_string(self.sessions().join(session))
            .unwrap_or_else(|e| panic!("session {session}'s file: {e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("session {session}: {e}: {text}"))
    }

    fn daemon(&self, session: &str) -> u32 {
        self.state(session)["target"]["daemon"]
            .as_u64()
            .unwrap_or_else(|| panic!("session {session} has no daemon: {}", self.state(session)))
            as u32
    }
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| {
            let state = stat
                .rsplit_once(')')
                .map(|(_, r)| r.trim_start().to_string());
            !state.unwrap_or_default().starts_with('Z')
        })
        .unwrap_or(false)
}

/// Every daemon still running at the end is stopped, whatever failed.
struct Cleanup<'a>(&'a Home, Vec<&'static str>);

impl Drop for Cleanup<'_> {
    fn drop(&mut self) {
        for session in &self.1 {
            let _ = self.0.uidrive(session, &["close"]);
        }
    }
}

#[test]
fn sessions_with_one_stem_run_side_by_side_and_close_their_own_daemon() {
    let home = Home::new();
    let names = ["p.one", "p.two", "p"];
    let _cleanup = Cleanup(&home, names.to_vec());
    // Opened at once.
    std::thread::scope(|scope| {
        for name in names {
            let home = &home;
            scope.spawn(move || home.ok(name, &["open", "--demo"]));
        }
    });
    let daemons: Vec<u32> = names.iter().map(|n| home.daemon(n)).collect();
    let sockets: Vec<String> = names
        .iter()
        .map(|n| {
            home.state(n)["target"]["socket"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    for (at, pid) in daemons.iter().enumerate() {
        assert!(alive(*pid), "{}'s daemon", names[at]);
        assert_eq!(
            daemons.iter().filter(|p| *p == pid).count(),
            1,
            "{daemons:?}"
        );
        assert_eq!(
            sockets.iter().filter(|s| **s == sockets[at]).count(),
            1,
            "{sockets:?}"
        );
    }
    // Rounds of concurrent commands that each save their session.
    for _ in 0..5 {
        std::thread::scope(|scope| {
            for name in names {
                let home = &home;
                scope.spawn(move || {
                    home.ok(name, &["snapshot", "-i"]);
                    home.ok(name, &["press", "role=button name=Add"]);
                });
            }
        });
        for (at, name) in names.iter().enumerate() {
            assert_eq!(
                home.daemon(name),
                daemons[at],
                "{name} took another's daemon"
            );
        }
    }
    // Nothing but the sessions' own files is left in the directory.
    for entry in std::fs::read_dir(home.sessions()).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        assert!(!name.ends_with(".tmp"), "a temporary file was left: {name}");
    }
    // Closing one stops its daemon only.
    home.ok("p.one", &["close"]);
    assert!(!home.sessions().join("p.one").exists());
    let started = std::time::Instant::now();
    while alive(daemons[0]) && started.elapsed() < std::time::Duration::from_secs(30) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(!alive(daemons[0]), "p.one's daemon still runs");
    assert!(
        alive(daemons[1]) && alive(daemons[2]),
        "close stopped another session's daemon"
    );
    let windows = home.ok("p.two", &["windows"]);
    assert!(windows.to_string().contains("Counter"), "{windows}");
    home.ok("p", &["windows"]);
}

#[test]
fn sessions_named_like_uidrive_files_are_sessions_of_their_own() {
    let home = Home::new();
    let _cleanup = Cleanup(&home, vec!["s1", "s1.tmp", "s1.lock"]);
    home.ok("s1", &["open", "--demo"]);
    let s1 = home.daemon("s1");
    // Read before anything else is opened: not s1's lock or log.
    for name in ["s1.lock", "s1.log", "s1.tmp"] {
        let run = home.uidrive(name, &["windows"]);
        assert_ne!(run.code, 0, "{name}: {}", run.stdout);
        assert!(
            run.stdout.contains("has no app open") || run.stderr.contains("has no app open"),
            "{name} is not an empty session of its own: {} {}",
            run.stdout,
            run.stderr
        );
    }
    home.ok("s1.tmp", &["open", "--demo"]);
    home.ok("s1.lock", &["open", "--demo"]);
    // Each saves over and over; s1 keeps its own state.
    for _ in 0..3 {
        home.ok("s1.tmp", &["snapshot"]);
        home.ok("s1", &["snapshot"]);
        home.ok("s1.lock", &["snapshot"]);
    }
    assert_eq!(home.daemon("s1"), s1);
    assert_ne!(home.daemon("s1.tmp"), s1);
    assert_ne!(home.daemon("s1.lock"), s1);
    home.ok("s1.tmp", &["close"]);
    assert!(alive(s1));
    home.ok("s1", &["windows"]);
}

#[test]
fn a_failed_open_leaves_no_session_file_or_daemon_behind() {
    let home = Home::new();
    let missing = home.dir.path().join("nobody.sock");
    let run = home.uidrive("f1", &["open", "--socket", missing.to_str().unwrap()]);
    assert_ne!(run.code, 0);
    assert!(!home.sessions().join("f1").exists(), "f1's file was left");

    let run = home.uidrive("f2", &["open", "--launch", "/nonexistent/uidrive-test-app"]);
    assert_ne!(run.code, 0, "{}", run.stdout);
    assert!(!home.sessions().join("f2").exists(), "f2's file was left");
    // No `uidrive serve` of this home's is left running.
    let home_dir = home.dir.path().to_string_lossy().to_string();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        let pid: u32 = entry.file_name().to_string_lossy().parse().unwrap_or(0);
        assert!(
            !(cmdline.contains(" serve ") && cmdline.contains(&home_dir) && alive(pid)),
            "a daemon was left: {cmdline}"
        );
    }

    // A session that had an app open keeps it when a later open is refused for its arguments.
    home.ok("f3", &["open", "--demo"]);
    let pid = home.daemon("f3");
    let run = home.uidrive("f3", &["open", "--demo", "--headless"]);
    assert_ne!(run.code, 0);
    assert_eq!(home.daemon("f3"), pid);
    home.ok("f3", &["close"]);
}
