//! The headless desktop: it starts, answers, runs side by side, and leaves nothing behind.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use uidrive_core::ErrorCode;
use uidrive_x11::{Desktop, DesktopOptions};

fn dbus_get(bus: &str, dest: &str, path: &str, method: &str, args: &[&str]) -> String {
    let out = Command::new("dbus-send")
        .arg(format!("--bus={bus}"))
        .args(["--print-reply=literal", "--reply-timeout=10000"])
        .arg(format!("--dest={dest}"))
        .arg(path)
        .arg(method)
        .args(args)
        .output()
        .expect("dbus-send runs");
    assert!(
        out.status.success(),
        "{method} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn a_desktop_has_a_display_a_session_bus_and_the_accessibility_bus() {
    let desktop = Desktop::start().expect("the desktop starts");
    assert!(desktop.display().starts_with(':'), "{}", desktop.display());

    let x = desktop.x11().expect("Xvfb answers");
    assert_eq!(x.screen_size(), (1920, 1200));
    // An area that runs off the screen is captured as far as it shows, and says so.
    let rect = |x, y, width, height| uidrive_x11::Rect {
        x,
        y,
        width,
        height,
    };
    let edge = x.capture_rect(rect(1900, 10, 100, 20)).unwrap();
    assert_eq!((edge.width, edge.height, edge.clipped), (20, 20, true));
    let inside = x.capture_rect(rect(10, 10, 100, 20)).unwrap();
    assert_eq!(
        (inside.width, inside.height, inside.clipped),
        (100, 20, false)
    );

    // A window manager manages the screen from the start (EWMH).
    assert_eq!(
        x.window_manager().unwrap().as_deref(),
        Some("Openbox"),
        "openbox manages the screen"
    );

    let a11y = desktop
        .a11y_bus_address()
        .expect("the accessibility bus address");
    assert!(a11y.starts_with("unix:"), "{a11y}");
    assert!(
        a11y.contains(desktop.runtime_dir().to_str().unwrap()),
        "the accessibility bus lives in the private runtime dir: {a11y}"
    );
    assert_eq!(x.at_spi_bus().unwrap().as_deref(), Some(a11y.as_str()));

    // The registry owns its name on the accessibility bus.
    let owned = dbus_get(
        &a11y,
        "org.freedesktop.DBus",
        "/org/freedesktop/DBus",
        "org.freedesktop.DBus.NameHasOwner",
        &["string:org.a11y.atspi.Registry"],
    );
    assert!(owned.ends_with("true"), "{owned}");

    // Toolkits see accessibility switched on.
    for property in ["IsEnabled", "ScreenReaderEnabled"] {
        let value = dbus_get(
            desktop.session_bus_address(),
            "org.a11y.Bus",
            "/org/a11y/bus",
            "org.freedesktop.DBus.Properties.Get",
            &["string:org.a11y.Status", &format!("string:{property}")],
        );
        assert!(value.ends_with("true"), "{property}: {value}");
    }

    let mode = std::fs::metadata(desktop.runtime_dir())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);

    let env = desktop.env();
    let get = |name: &str| env.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
    assert_eq!(get("DISPLAY"), Some(desktop.display()));
    assert_eq!(
        get("DBUS_SESSION_BUS_ADDRESS"),
        Some(desktop.session_bus_address())
    );
    assert_eq!(get("AT_SPI_BUS_ADDRESS"), Some(a11y.as_str()));
    assert_eq!(get("GTK_MODULES"), Some("gail:atk-bridge"));
    assert_eq!(get("QT_ACCESSIBILITY"), Some("1"));
    assert_eq!(get("GDK_BACKEND"), Some("x11"));
    assert_eq!(get("GSK_RENDERER"), Some("cairo"));
    // What a harness with its own display is given to launch apps the same way.
    for (name, value) in Desktop::toolkit_env() {
        assert_eq!(get(name), Some(*value), "{name} as the desktop sets it");
    }
}

#[test]
fn two_desktops_run_side_by_side() {
    let starts: Vec<_> = (0..2).map(|_| std::thread::spawn(Desktop::start)).collect();
    let desktops: Vec<Desktop> = starts
        .into_iter()
        .map(|t| t.join().unwrap().expect("the desktop starts"))
        .collect();
    let (a, b) = (&desktops[0], &desktops[1]);
    assert_ne!(a.display(), b.display());
    assert_ne!(a.session_bus_address(), b.session_bus_address());
    assert_ne!(a.a11y_bus_address().unwrap(), b.a11y_bus_address().unwrap());
    for desktop in &desktops {
        let x = desktop.x11().expect("each display answers");
        assert_eq!(
            x.at_spi_bus().unwrap(),
            Some(desktop.a11y_bus_address().unwrap())
        );
    }
}

/// What must be gone once a desktop is stopped.
struct Traces {
    pids: Vec<u32>,
    runtime_dir: PathBuf,
    x_lock: PathBuf,
}

impl Traces {
    fn of(desktop: &Desktop) -> Traces {
        let pids = desktop.process_ids();
        assert_eq!(
            pids.len(),
            5,
            "the window manager, Xvfb, dbus-daemon, the launcher, the registry"
        );
        Traces {
            pids,
            runtime_dir: desktop.runtime_dir().to_path_buf(),
            x_lock: PathBuf::from(format!(
                "/tmp/.X{}-lock",
                desktop.display().trim_start_matches(':')
            )),
        }
    }

    /// Every process of the desktop's process groups, zombies included.
    fn leftovers(&self) -> Vec<String> {
        let mut left = Vec::new();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                continue;
            };
            let after = &stat[stat.rfind(')').unwrap() + 2..];
            let fields: Vec<&str> = after.split_whitespace().collect();
            let pgrp: u32 = fields[2].parse().unwrap();
            if self.pids.contains(&pgrp) || self.pids.contains(&pid) {
                left.push(stat.trim().to_string());
            }
        }
        left
    }

    fn assert_gone(&self) {
        assert_eq!(
            self.leftovers(),
            Vec::<String>::new(),
            "processes left behind"
        );
        assert!(!self.runtime_dir.exists(), "{:?} is left", self.runtime_dir);
        // Another test's desktop may take the display number at once: the
        // lock file must then name its X server, not ours.
        if let Ok(lock) = std::fs::read_to_string(&self.x_lock) {
            let owner: u32 = lock.trim().parse().unwrap_or(0);
            assert!(!self.pids.contains(&owner), "{:?} is left", self.x_lock);
        }
    }
}

#[test]
fn stopping_or_dropping_a_desktop_leaves_no_process_and_no_file() {
    let desktop = Desktop::start().expect("the desktop starts");
    let traces = Traces::of(&desktop);
    // Its five processes and the accessibility bus the launcher started.
    assert_eq!(traces.leftovers().len(), 6, "{:?}", traces.leftovers());
    desktop.stop();
    traces.assert_gone();

    let desktop = Desktop::start().expect("the desktop starts");
    // An app's connection must not keep anything alive.
    let _x = desktop.x11().unwrap();
    let traces = Traces::of(&desktop);
    drop(desktop);
    traces.assert_gone();
}

#[test]
fn a_missing_x_server_is_a_clear_error_not_a_hang() {
    let options = DesktopOptions {
        xvfb: PathBuf::from("/nonexistent/Xvfb"),
        ..DesktopOptions::default()
    };
    let started = Instant::now();
    let err = Desktop::start_with(&options).expect_err("there is no such X server");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(err.code, ErrorCode::Failed);
    assert!(err.message.contains("Xvfb"), "{}", err.message);
    assert!(err.message.contains("not found"), "{}", err.message);
    assert!(err.suggestion.contains("install"), "{}", err.suggestion);
}

#[test]
fn an_x_server_that_dies_at_once_is_reported_with_its_output() {
    // `false` exits without announcing a display.
    let options = DesktopOptions {
        xvfb: PathBuf::from("/bin/false"),
        ..DesktopOptions::default()
    };
    let started = Instant::now();
    let err = Desktop::start_with(&options).expect_err("the X server dies");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(err.code, ErrorCode::Failed);
    assert!(err.message.contains("/bin/false exited"), "{}", err.message);
}

#[test]
fn an_x_server_that_never_answers_times_out() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let silent = dir.path().join("silent-x");
    std::fs::write(&silent, "#!/bin/sh\nsleep 6011\n").unwrap();
    std::fs::set_permissions(&silent, std::fs::Permissions::from_mode(0o755)).unwrap();
    let options = DesktopOptions {
        xvfb: silent.clone(),
        timeout: Duration::from_millis(500),
        ..DesktopOptions::default()
    };
    let started = Instant::now();
    let err = Desktop::start_with(&options).expect_err("the X server never answers");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(err.code, ErrorCode::Timeout);
    assert!(err.message.contains("silent-x"), "{}", err.message);
    // The server that hung, and its child, were ended with the desktop.
    let survivors: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(silent.to_str().unwrap()) || c.contains("sleep 6011"))
        .collect();
    assert!(survivors.is_empty(), "{survivors:?}");
}
