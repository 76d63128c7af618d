//! `uidrive serve` and socket paths (issue 14, finding 3): a path longer than
//! a Unix socket allows fails at once with a clear error; the longest that
//! fits works; SIGTERM stops the server even when its socket file is gone.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use uidrive_core::{Driver, SocketDriver, MAX_SOCKET_PATH_BYTES};

/// Far above the time any of this takes: only a hang reaches it.
const HANG_GUARD: Duration = Duration::from_secs(30);

fn path_of_len(dir: &Path, len: usize) -> PathBuf {
    let base = dir.as_os_str().len() + 1;
    let sub = dir.join("d".repeat(len - base - 3));
    std::fs::create_dir_all(&sub).unwrap();
    let path = sub.join("ab");
    assert_eq!(path.as_os_str().len(), len);
    path
}

fn wait_exit(child: &mut std::process::Child) -> std::process::ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if started.elapsed() > HANG_GUARD {
            let _ = child.kill();
            panic!("uidrive serve did not end");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_socket_path_too_long_fails_at_once_and_says_why() {
    let dir = tempfile::Builder::new()
        .prefix("ud")
        .tempdir_in("/tmp")
        .unwrap();
    let path = path_of_len(dir.path(), MAX_SOCKET_PATH_BYTES + 1);
    let out = Command::new(env!("CARGO_BIN_EXE_uidrive"))
        .args(["serve", "--demo", "--socket"])
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(!stderr.contains("UIDRIVE_LISTENING"), "{stderr}");
    assert!(
        stderr.contains("invalid_request") || stderr.contains("107"),
        "{stderr}"
    );
    assert!(
        stderr.contains("108 bytes") && stderr.contains("107"),
        "{stderr}"
    );
    assert!(stderr.contains("hint:"), "{stderr}");
}

#[test]
fn the_longest_path_that_fits_works_and_sigterm_stops_the_server_without_its_socket() {
    let dir = tempfile::Builder::new()
        .prefix("ud")
        .tempdir_in("/tmp")
        .unwrap();
    let path = path_of_len(dir.path(), MAX_SOCKET_PATH_BYTES);
    let mut serve = Command::new(env!("CARGO_BIN_EXE_uidrive"))
        .args(["serve", "--demo", "--socket"])
        .arg(&path)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = serve.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if line.contains("UIDRIVE_LISTENING") {
                let _ = tx.send(());
            }
        }
    });
    rx.recv_timeout(HANG_GUARD).expect("the server listens");
    let client = SocketDriver::connect(&path).unwrap();
    assert_eq!(client.windows().unwrap().windows.len(), 1);
    // Someone removes the socket: nothing can reach the server any more.
    std::fs::remove_file(&path).unwrap();
    // SAFETY: kill(2) on the child this test started.
    unsafe {
        libc::kill(serve.id() as libc::pid_t, libc::SIGTERM);
    }
    let status = wait_exit(&mut serve);
    assert!(status.success(), "{status}");
}
