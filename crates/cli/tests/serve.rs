//! `uidrive serve` as a process: the listening marker, the protocol, and the
//! socket removed when it is told to stop.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use uidrive_core::{conformance, Driver, SocketDriver};

fn socket_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("uidrive-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("demo.sock")
}

fn wait_gone(path: &PathBuf) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if !path.exists() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn serve_announces_itself_speaks_the_protocol_and_cleans_up_on_signals() {
    for signal in ["TERM", "INT"] {
        let path = socket_path(signal);
        let mut child = Command::new(env!("CARGO_BIN_EXE_uidrive"))
            .args(["serve", "--demo", "--socket"])
            .arg(&path)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let marker = format!("UIDRIVE_LISTENING path={}", path.display());
        let mut line = String::new();
        while stderr.read_line(&mut line).unwrap() > 0 && !line.contains("UIDRIVE_LISTENING") {
            line.clear();
        }
        assert_eq!(line.trim(), marker);

        let report = conformance::run(&path);
        assert!(report.passed(), "{report}");
        let client = SocketDriver::connect(&path).unwrap();
        assert!(client.hello().unwrap().server.contains("memory demo"));

        Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status().unwrap();
        assert!(wait_gone(&path), "SIG{signal} left the socket behind");
        assert!(child.wait().unwrap().success());
    }
}

#[test]
fn serve_without_a_target_is_refused() {
    let path = socket_path("none");
    let out = Command::new(env!("CARGO_BIN_EXE_uidrive")).args(["serve", "--socket"]).arg(&path).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--demo"));
}
