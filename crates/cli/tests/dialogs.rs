//! A modal dialog driven from the command line, as an agent does: the press
//! that opens it returns, the dialog is read and answered by a real key,
//! and the session, which was reading the dialog, follows the focus back to
//! the window that takes it (before, every command failed with `no_window
//! ... has no window 2` until `-w 1`).

use serde_json::Value;
use std::process::Command;

struct Home {
    dir: tempfile::TempDir,
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

    fn ok(&self, args: &[&str]) -> Value {
        let out = Command::new(env!("CARGO_BIN_EXE_uidrive"))
            .args(["--session", "dialogs", "--json"])
            .args(args)
            .env("XDG_CACHE_HOME", self.dir.path().join("cache"))
            .env("XDG_RUNTIME_DIR", self.dir.path())
            .env_remove("UIDRIVE_SESSION")
            .output()
            .expect("uidrive runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "uidrive {args:?}\nstdout: {stdout}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
    }

    fn windows(&self) -> Vec<Value> {
        self.ok(&["windows"])["data"]["windows"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        let _ = Command::new(env!("CARGO_BIN_EXE_uidrive"))
            .args(["--session", "dialogs", "close"])
            .env("XDG_CACHE_HOME", self.dir.path().join("cache"))
            .env("XDG_RUNTIME_DIR", self.dir.path())
            .output();
    }
}

fn wait_until(what: &str, mut check: impl FnMut() -> bool) {
    let started = std::time::Instant::now();
    while !check() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "{what}: not so after 20 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[test]
fn a_modal_dialog_is_answered_and_the_session_follows_the_focus_back() {
    let home = Home::new();
    let app = format!(
        "{}/../../tests/apps/gtk3_modal.py",
        env!("CARGO_MANIFEST_DIR")
    );
    home.ok(&["open", "--headless", "--launch", "/usr/bin/python3", &app]);
    home.ok(&["press", "role=button name=Ask"]);
    wait_until("the dialog shows", || home.windows().len() == 2);
    let dialog = home
        .windows()
        .into_iter()
        .find(|w| w["title"] == "Question")
        .expect("the dialog is listed");
    let id = dialog["id"].to_string();
    // Reading the dialog makes it the session's window.
    let read = home.ok(&["snapshot", "-i", "-w", &id]);
    assert!(read.to_string().contains("OK"), "{read}");
    home.ok(&["key", "Enter"]);
    wait_until("the dialog closes", || home.windows().len() == 1);
    // The session's window went: commands follow the focus to the main window.
    let main = home.ok(&["snapshot"]);
    assert!(main.to_string().contains("answered "), "{main}");
    home.ok(&["press", "role=button name=Ask"]);
    wait_until("the dialog shows again", || home.windows().len() == 2);
}
