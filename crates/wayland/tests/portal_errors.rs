//! Where the desktop portal cannot do what uidrive needs, the first input
//! or capture fails at once with a code, a message and what to enable:
//! a session bus with no portal at all, and a portal with no RemoteDesktop
//! (xdg-desktop-portal with no backend). Real dbus-daemon and
//! xdg-desktop-portal processes; nobody is asked anything.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use uidrive_core::ErrorCode;
use uidrive_wayland::portal::{Portal, CONSENT_TIMEOUT};

/// A session bus of its own, ended (with what it started) when dropped.
struct Bus {
    address: String,
    daemon: Child,
    others: Vec<Child>,
    _dir: tempfile::TempDir,
}

impl Drop for Bus {
    fn drop(&mut self) {
        for child in self.others.iter_mut().rev().chain([&mut self.daemon]) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Bus {
    /// `services`: whether D-Bus may start the installed services (the
    /// portal among them) on demand, as on a person's session.
    fn start(services: bool) -> Bus {
        let dir = tempfile::tempdir().unwrap();
        let mut command = Command::new("dbus-daemon");
        command.args(["--nofork", "--print-address"]);
        if services {
            command.arg("--session");
            command.arg(format!("--address=unix:path={}/bus", dir.path().display()));
        } else {
            // The session configuration less its service directories:
            // nothing can be started on demand.
            let config = dir.path().join("bus.conf");
            std::fs::write(
                &config,
                format!(
                    r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={}/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>"#,
                    dir.path().display()
                ),
            )
            .unwrap();
            command.arg(format!("--config-file={}", config.display()));
        }
        let mut daemon = command
            .stdout(Stdio::piped())
            .spawn()
            .expect("dbus-daemon runs (install dbus)");
        let mut line = String::new();
        BufReader::new(daemon.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert!(line.starts_with("unix:"), "dbus-daemon printed {line:?}");
        Bus {
            address: line.trim().to_string(),
            daemon,
            others: Vec::new(),
            _dir: dir,
        }
    }

    fn has_owner(&self, name: &str) -> bool {
        let out = Command::new("dbus-send")
            .args([
                &format!("--bus={}", self.address),
                "--print-reply",
                "--dest=org.freedesktop.DBus",
                "/org/freedesktop/DBus",
                "org.freedesktop.DBus.NameHasOwner",
                &format!("string:{name}"),
            ])
            .output()
            .expect("dbus-send runs");
        String::from_utf8_lossy(&out.stdout).contains("boolean true")
    }
}

#[test]
fn no_portal_on_the_bus_fails_at_once_saying_what_to_install() {
    let bus = Bus::start(false);
    let portal = Portal::for_bus(&bus.address).unwrap();
    let started = Instant::now();
    let err = portal.stream().expect_err("no portal, no session");
    let took = started.elapsed();
    assert_eq!(err.code, ErrorCode::Unsupported, "{err}");
    assert!(err.message.contains("no desktop portal"), "{err}");
    assert!(
        err.suggestion.contains("xdg-desktop-portal-gnome")
            && err.suggestion.contains("xdg-desktop-portal-kde"),
        "{}",
        err.suggestion
    );
    // At once: it does not wait for a dialog nobody will show.
    assert!(
        took < CONSENT_TIMEOUT / 10,
        "the error took {took:?}, as if it waited for consent"
    );
    println!("no portal: answered in {took:?}");
    // Capture says the same.
    let err = portal.capture_rect(0, 0, 10, 10).unwrap_err();
    assert_eq!(err.code, ErrorCode::Unsupported, "{err}");
}

#[test]
fn a_portal_without_remote_desktop_fails_at_once_naming_it() {
    let mut bus = Bus::start(true);
    // xdg-desktop-portal with no backend at all: it runs and answers,
    // but offers neither RemoteDesktop nor ScreenCast.
    let no_backends = tempfile::tempdir().unwrap();
    let runtime = tempfile::tempdir().unwrap();
    let portal_bin = Path::new("/usr/libexec/xdg-desktop-portal");
    assert!(
        portal_bin.exists(),
        "{} is missing: install xdg-desktop-portal (scripts/install-deps.sh)",
        portal_bin.display()
    );
    let child = Command::new(portal_bin)
        .env("DBUS_SESSION_BUS_ADDRESS", &bus.address)
        .env("XDG_DESKTOP_PORTAL_DIR", no_backends.path())
        .env("XDG_RUNTIME_DIR", runtime.path())
        .env("XDG_CURRENT_DESKTOP", "GNOME")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("xdg-desktop-portal starts");
    bus.others.push(child);
    let started = Instant::now();
    while !bus.has_owner("org.freedesktop.portal.Desktop") {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "xdg-desktop-portal did not take its name"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let portal = Portal::for_bus(&bus.address).unwrap();
    let started = Instant::now();
    let err = portal.stream().expect_err("no RemoteDesktop, no session");
    let took = started.elapsed();
    assert_eq!(err.code, ErrorCode::Unsupported, "{err}");
    assert!(err.message.contains("offers no RemoteDesktop"), "{err}");
    assert!(
        err.suggestion.contains("xdg-desktop-portal-gnome"),
        "{}",
        err.suggestion
    );
    assert!(took < CONSENT_TIMEOUT / 10, "the error took {took:?}");
    println!("no RemoteDesktop: answered in {took:?}");
}
