//! A headless desktop is its user's alone (issue 30, finding 1): another
//! local user can neither connect to its display (no cookie, no TCP), nor to
//! its session or accessibility bus, even when the runtime directory is
//! opened up for the test (then D-Bus's own one-user policy refuses him).
//!
//! The second user is a real account: the test creates `uidrive-probe` with
//! `useradd` if it is missing, so it needs root (CI runs as root), and runs
//! each probe as that user.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output};
use uidrive_x11::Desktop;

#[path = "common/other_user.rs"]
mod other_user;
use other_user::other_user;

/// Runs `program args` as the other user, with an environment of its own.
fn as_other(program: &str, args: &[&str]) -> Output {
    let (uid, gid) = other_user();
    Command::new(program)
        .args(args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", "/")
        .uid(uid)
        .gid(gid)
        .output()
        .unwrap_or_else(|e| panic!("{program} runs as the other user: {e}"))
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `ListNames` on `bus`, as this user or as the other one.
fn dbus_list(bus: &str, as_other_user: bool) -> Output {
    let bus = format!("--bus={bus}");
    let args = [
        bus.as_str(),
        "--print-reply",
        "--reply-timeout=5000",
        "--dest=org.freedesktop.DBus",
        "/org/freedesktop/DBus",
        "org.freedesktop.DBus.ListNames",
    ];
    if as_other_user {
        as_other("dbus-send", &args)
    } else {
        Command::new("dbus-send").args(args).output().unwrap()
    }
}

#[test]
fn another_user_reaches_neither_the_display_nor_the_buses() {
    let desktop = Desktop::start().expect("the desktop starts");
    let display = desktop.display().to_string();
    let xauthority = desktop.xauthority();
    let env = desktop.env();
    let value = |name: &str| {
        env.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("the desktop's env has no {name}: {env:?}"))
    };
    assert_eq!(value("XAUTHORITY"), xauthority.display().to_string());
    let runtime = desktop.runtime_dir().to_path_buf();
    assert_eq!(
        std::fs::metadata(&runtime).unwrap().permissions().mode() & 0o777,
        0o700
    );
    assert!(xauthority.starts_with(&runtime));

    // The display: its own user with the cookie gets in (the control)...
    let with_cookie = Command::new("xdpyinfo")
        .args(["-display", &display])
        .env("XAUTHORITY", &xauthority)
        .output()
        .unwrap();
    assert!(with_cookie.status.success(), "{}", text(&with_cookie));
    // ...without it even its own user does not (the server checks cookies)...
    let without = Command::new("xdpyinfo")
        .args(["-display", &display])
        .env("XAUTHORITY", "/nonexistent")
        .output()
        .unwrap();
    assert!(!without.status.success(), "{}", text(&without));
    // ...and another user has no cookie and cannot read the file.
    let other = as_other("xdpyinfo", &["-display", &display]);
    assert!(!other.status.success(), "{}", text(&other));
    assert!(
        text(&other).contains("Authorization required") || text(&other).contains("unable to open"),
        "{}",
        text(&other)
    );
    let read = as_other("cat", &[xauthority.to_str().unwrap()]);
    assert!(!read.status.success(), "the other user read the cookie");

    // No TCP: nothing listens on the display's port.
    let number: u16 = display[1..].parse().unwrap();
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", 6000 + number)).is_err(),
        "the display listens on TCP port {}",
        6000 + number
    );

    // Both buses: the owner lists names, the other user cannot connect.
    let buses = [
        ("session", value("DBUS_SESSION_BUS_ADDRESS")),
        ("accessibility", value("AT_SPI_BUS_ADDRESS")),
    ];
    for (name, bus) in &buses {
        let own = dbus_list(bus, false);
        assert!(own.status.success(), "{name} bus: {}", text(&own));
        let other = dbus_list(bus, true);
        assert!(!other.status.success(), "{name} bus let the other user in");
    }

    // With the runtime directory opened to the other user, each bus's own
    // policy (one user per bus, D-Bus's default) still refuses him.
    let opened = OpenedUp::new(&runtime);
    for (name, bus) in &buses {
        let other = dbus_list(bus, true);
        assert!(
            !other.status.success(),
            "{name} bus let the other user in once he could reach its socket: {}",
            text(&other)
        );
        // The socket let him connect; the bus dropped him (dbus-send
        // says it could not register: the bus closed the connection).
        assert!(
            !text(&other).contains("Permission denied")
                && text(&other).contains("Failed to register"),
            "not the bus's own refusal: {}",
            text(&other)
        );
    }
    // And the display still wants the cookie, which stays unreadable.
    let other = as_other("xdpyinfo", &["-display", &display]);
    assert!(!other.status.success(), "{}", text(&other));
    drop(opened);
    desktop.stop();
}

/// Lets others through the runtime directory (and its `at-spi` directory)
/// while it lives, so a probe reaches the sockets themselves.
struct OpenedUp(Vec<std::path::PathBuf>);

impl OpenedUp {
    fn new(runtime: &Path) -> OpenedUp {
        let dirs = vec![runtime.to_path_buf(), runtime.join("at-spi")];
        for dir in &dirs {
            if dir.is_dir() {
                std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o711)).unwrap();
            }
        }
        OpenedUp(dirs)
    }
}

impl Drop for OpenedUp {
    fn drop(&mut self) {
        for dir in &self.0 {
            if dir.is_dir() {
                let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
            }
        }
    }
}
