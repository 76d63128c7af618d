//! `uidrive serve` as a process: the listening marker, the protocol, and the
//! socket removed when it is told to stop.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use uidrive_core::{conformance, Driver, SocketDriver};

fn socket_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("uidrive-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("demo.sock")
}

fn wait_gone(path: &Path) -> bool {
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

        Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(wait_gone(&path), "SIG{signal} left the socket behind");
        assert!(child.wait().unwrap().success());
    }
}

#[test]
fn serve_without_a_target_is_refused() {
    let path = socket_path("none");
    let out = Command::new(env!("CARGO_BIN_EXE_uidrive"))
        .args(["serve", "--socket"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--demo"));
}

fn launch_demo() -> uidrive_core::App {
    let command = format!(
        "exec '{}' serve --demo --socket \"$DEMO_SOCKET\"",
        env!("CARGO_BIN_EXE_uidrive")
    );
    let argv = ["sh".to_string(), "-c".to_string(), command];
    uidrive_core::App::launch_socket(&argv, &[], "DEMO_SOCKET", Duration::from_secs(10)).unwrap()
}

#[test]
fn an_app_launched_on_a_fresh_socket_is_driven_and_its_exit_is_named() {
    use uidrive_core::{expect, protocol::Role, ErrorCode};
    let app = launch_demo();
    app.get_by_role(Role::Button, "Add").click().unwrap();
    expect(&app.get_by_key("count"))
        .to_have_text("Count: 1")
        .unwrap();

    let pid = app.pid().unwrap();
    Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let err = loop {
        match app.windows() {
            Err(err) if err.code == ErrorCode::AppExited => break err,
            _ if Instant::now() > deadline => panic!("the app's exit was never reported"),
            _ => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    assert!(err.message.contains("exited"), "{}", err.message);
    let err = app.get_by_role(Role::Button, "Add").click().unwrap_err();
    assert_eq!(
        err.code,
        ErrorCode::AppExited,
        "locators see the exit too: {err}"
    );
    app.close().unwrap();
}

#[test]
fn launching_an_app_that_exits_or_never_listens_fails_clearly() {
    use uidrive_core::{App, ErrorCode};
    let argv = ["sh".to_string(), "-c".to_string(), "exit 3".to_string()];
    let err = App::launch_socket(&argv, &[], "DEMO_SOCKET", Duration::from_secs(10))
        .err()
        .unwrap();
    assert_eq!(err.code, ErrorCode::AppExited, "{err}");

    let argv = ["sleep".to_string(), "30".to_string()];
    let err = App::launch_socket(&argv, &[], "DEMO_SOCKET", Duration::from_millis(300))
        .err()
        .unwrap();
    assert_eq!(err.code, ErrorCode::Timeout, "{err}");
    assert!(err.suggestion.contains("DEMO_SOCKET"), "{}", err.suggestion);
}
