//! An app that uidrive launched and that starts again as a new process
//! (tests/apps/restarting.py, as LibreOffice does on its first start with a
//! new profile): the driver follows the new instance while the process it
//! launched runs, and answers `app_exited` once that process has ended too.
//! And an app that shows a splash screen first (tests/apps/splash_first.py,
//! as LibreOffice does on Wayland): the launch waits for its main window.

mod common;

use common::DEADLINE;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};
use uidrive_atspi::{AtspiDriver, LaunchOptions};
use uidrive_core::protocol::{Role, TreeParams};
use uidrive_core::{Driver, ErrorCode};

fn restarting_app(args: &[&str], go: &Path) -> Vec<String> {
    let script = format!(
        "{}/../../tests/apps/restarting.py",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut argv = vec!["/usr/bin/python3".to_string(), script];
    argv.extend(args.iter().map(|a| a.to_string()));
    argv.push(go.display().to_string());
    argv
}

/// The titles of the windows the driver lists.
fn titles(driver: &AtspiDriver) -> Vec<String> {
    let windows = driver.windows().unwrap_or_else(|e| {
        panic!("the app's windows list: {e} ({})", e.suggestion);
    });
    windows.windows.iter().map(|w| w.title.clone()).collect()
}

/// The label the app's window shows: `instance N, process P`.
fn label(driver: &AtspiDriver) -> String {
    let tree = driver
        .tree(&TreeParams { window: Some(1) })
        .expect("window 1 reads");
    tree.nodes
        .iter()
        .filter(|n| n.role == Role::Text)
        .find_map(|n| n.label.clone().filter(|l| l.starts_with("instance ")))
        .expect("the window shows its label")
}

fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_none_or(|state| state == "Z"),
        Err(_) => true,
    }
}

fn wait_until(what: &str, done: impl Fn() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(
            started.elapsed() < DEADLINE,
            "{what}: not so after {DEADLINE:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Follows the app from its first instance to its second, then checks that
/// it ends as an app does: `app_exited` once no process of the launch runs.
fn follows_the_restart(driver: &AtspiDriver, mut child: Child, go: &Path, same_process: bool) {
    let launcher = child.id();
    let first = driver.pid();
    assert_ne!(
        first, launcher,
        "the driver reads the instance, not its launcher"
    );
    assert_eq!(titles(driver), ["Instance 1"]);
    assert_eq!(label(driver), format!("instance 1, process {first}"));

    // Told to restart, the first instance ends (or replaces itself) and
    // the launcher, which still runs, starts the second.
    std::fs::write(go, b"").unwrap();
    if !same_process {
        wait_until("the first instance exited", || gone(first));
    }
    wait_until("the driver lists the second instance's window", || {
        titles(driver) == ["Instance 2"]
    });
    let second = driver.pid();
    assert_eq!(
        second == first,
        same_process,
        "the second instance runs in {second}, the first ran in {first}"
    );
    assert_eq!(
        label(driver),
        format!("instance 2, process {second}"),
        "reads reach the second instance, its first window is window 1 again"
    );
    assert!(
        child.try_wait().unwrap().is_none(),
        "the launcher still runs"
    );

    // The app's last process ends, and with it the launcher: nothing is
    // left to follow, and the answer is `app_exited`, not a wait for a
    // third instance (which would end on the launch's timeout, a minute).
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &second.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let err = driver.windows().expect_err("the app has exited");
    assert_eq!(err.code, ErrorCode::AppExited, "{err}");
    let status = child.wait().unwrap();
    assert!(
        !status.success(),
        "the launcher reports its app's end: {status}"
    );
}

fn options(env: Vec<(String, String)>) -> LaunchOptions {
    LaunchOptions {
        env,
        timeout: Duration::from_secs(60),
    }
}

fn go_file(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    dir.join("go")
}

#[test]
fn an_app_that_restarts_as_a_new_process_is_followed_on_wayland() {
    let desktop = uidrive_wayland::WaylandDesktop::start().expect("the Wayland desktop starts");
    let go = go_file(&desktop.runtime_dir().join("restarting"));
    let (driver, child) = AtspiDriver::launch(&restarting_app(&[], &go), &options(desktop.env()))
        .unwrap_or_else(|e| panic!("the app launches: {e} ({})", e.suggestion));
    follows_the_restart(&driver, child, &go, false);
}

#[test]
fn an_app_that_replaces_itself_is_followed_on_x11() {
    let desktop = uidrive_x11::Desktop::start().expect("the X11 desktop starts");
    let dir = std::env::temp_dir().join(format!("uidrive-restarting-{}", std::process::id()));
    let go = go_file(&dir);
    let (driver, child) =
        AtspiDriver::launch(&restarting_app(&["--exec"], &go), &options(desktop.env()))
            .unwrap_or_else(|e| panic!("the app launches: {e} ({})", e.suggestion));
    follows_the_restart(&driver, child, &go, true);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_launch_waits_past_the_splash_screen_on_wayland() {
    let desktop = uidrive_wayland::WaylandDesktop::start().expect("the Wayland desktop starts");
    let dir = desktop.runtime_dir().join("splash");
    std::fs::create_dir_all(&dir).unwrap();
    let (shown, go) = (dir.join("shown"), dir.join("go"));
    let script = format!(
        "{}/../../tests/apps/splash_first.py",
        env!("CARGO_MANIFEST_DIR")
    );
    let argv: Vec<String> = ["/usr/bin/python3", &script]
        .iter()
        .map(|s| s.to_string())
        .chain([shown.display().to_string(), go.display().to_string()])
        .collect();
    // The app shows its main window only when told, a second after its
    // splash screen showed: a launch that took the splash for the app's
    // window would have answered before.
    let teller = {
        let (shown, go) = (shown.clone(), go.clone());
        std::thread::spawn(move || {
            wait_until("the splash screen showed", || shown.exists());
            std::thread::sleep(Duration::from_secs(1));
            std::fs::write(&go, b"").unwrap();
        })
    };
    let (driver, mut child) = AtspiDriver::launch(&argv, &options(desktop.env()))
        .unwrap_or_else(|e| panic!("the app launches: {e} ({})", e.suggestion));
    assert!(
        go.exists(),
        "the launch answered while only the splash screen showed"
    );
    teller.join().unwrap();
    let windows = driver.windows().expect("the app's windows list");
    let listed: Vec<(u64, &str)> = windows
        .windows
        .iter()
        .map(|w| (w.id, w.title.as_str()))
        .collect();
    assert_eq!(listed, [(1, "Main window")], "the main window is window 1");
    let _ = child.kill();
    let _ = child.wait();
}
