//! The headless desktop's services through the facade, against real
//! programs: the clipboard read by a second X client as an app pasting
//! would (a value large enough to go in pieces, INCR, included),
//! `notify-send` from libnotify-bin, and a StatusNotifierItem app
//! (tests/apps/tray_item.py).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use uidrive_facade::{headless, Desktop, HeadlessOptions};
use uidrive_x11::{Clipboard, Selection};

fn desktop() -> Desktop {
    headless(&HeadlessOptions::default()).expect("a headless desktop starts")
}

fn command(desktop: &Desktop, program: &str) -> Command {
    let mut command = Command::new(program);
    command.env_remove("WAYLAND_DISPLAY");
    command.envs(desktop.env().iter().cloned());
    command
}

#[test]
fn the_clipboard_is_served_to_other_clients() {
    let desktop = desktop();
    let services = desktop.services().unwrap();
    assert_eq!(
        services.clipboard_get(false).unwrap(),
        None,
        "empty at first"
    );

    // Another client of the display, as an app that pastes.
    let xauthority = desktop
        .env()
        .iter()
        .find(|(k, _)| k == "XAUTHORITY")
        .map(|(_, v)| PathBuf::from(v));
    let other = Clipboard::connect(desktop.display(), xauthority.as_deref()).unwrap();
    let wait = Duration::from_secs(5);

    services.clipboard_set("Grüße from uidrive", false).unwrap();
    assert_eq!(
        other.get(Selection::Clipboard, wait).unwrap().as_deref(),
        Some("Grüße from uidrive")
    );
    let offered = other.targets(Selection::Clipboard, wait).unwrap();
    for target in [
        "TARGETS",
        "UTF8_STRING",
        "STRING",
        "text/plain;charset=utf-8",
    ] {
        assert!(
            offered.iter().any(|t| t == target),
            "{target} in {offered:?}"
        );
    }
    // The primary selection is another one.
    assert_eq!(other.get(Selection::Primary, wait).unwrap(), None);
    services.clipboard_set("selected", true).unwrap();
    assert_eq!(
        other.get(Selection::Primary, wait).unwrap().as_deref(),
        Some("selected")
    );

    // A value larger than one piece goes as INCR.
    let big: String = (0..300_000)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    services.clipboard_set(&big, false).unwrap();
    let read = other.get(Selection::Clipboard, wait).unwrap().unwrap();
    assert_eq!(read.len(), big.len());
    assert!(read == big, "the large value came back whole");

    // Another client taking the clipboard: uidrive reads it from that one.
    other.set(Selection::Clipboard, "from the other").unwrap();
    assert_eq!(
        services.clipboard_get(false).unwrap().as_deref(),
        Some("from the other")
    );
    // Clearing empties it, whoever held it.
    services.clipboard_clear(false).unwrap();
    assert_eq!(services.clipboard_get(false).unwrap(), None);
    assert_eq!(other.get(Selection::Clipboard, wait).unwrap(), None);
    desktop.stop();
}

/// Reads what a child wrote on stdout until it ends, in a thread.
fn stdout_of(child: &mut std::process::Child) -> std::thread::JoinHandle<String> {
    let mut out = child.stdout.take().expect("piped");
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = out.read_to_string(&mut text);
        text
    })
}

#[test]
fn notify_send_is_recorded_and_its_action_invoked() {
    let desktop = desktop();
    let services = desktop.services().unwrap();
    let mut notify = command(&desktop, "notify-send")
        .args([
            "-A",
            "open=Open",
            "-u",
            "critical",
            "Build finished",
            "All green",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .expect("notify-send runs (scripts/install-deps.sh installs libnotify-bin)");
    let printed = stdout_of(&mut notify);
    let note = services
        .wait_for_notification(
            Some("Build finished"),
            None,
            None,
            Some(Duration::from_secs(20)),
        )
        .unwrap();
    assert_eq!(note.summary, "Build finished");
    assert_eq!(note.body, "All green");
    assert_eq!(note.urgency, "critical");
    assert_eq!(note.app_name, "notify-send");
    assert_eq!(note.actions.len(), 1);
    assert_eq!(note.actions[0].id, "open");
    assert_eq!(note.actions[0].label, "Open");
    assert!(services
        .notifications()
        .unwrap()
        .iter()
        .any(|n| n.id == note.id));

    let unknown = services.notification_invoke(note.id, "nope").unwrap_err();
    assert_eq!(unknown.code, uidrive_core::ErrorCode::InvalidRequest);
    assert!(unknown.suggestion.contains("open"), "{unknown:?}");

    services.notification_invoke(note.id, "open").unwrap();
    let status = wait_exit(&mut notify);
    assert!(status.success(), "notify-send ended: {status}");
    assert_eq!(printed.join().unwrap().trim(), "open");
    assert!(
        !services
            .notifications()
            .unwrap()
            .iter()
            .any(|n| n.id == note.id),
        "gone from the list after its action"
    );

    // Dismissing: the app is told, and the notification is gone.
    let mut waiting = command(&desktop, "notify-send")
        .args(["--wait", "-a", "builder", "Second", "to dismiss"])
        .spawn()
        .unwrap();
    let second = services
        .wait_for_notification(
            None,
            Some("dismiss"),
            Some("builder"),
            Some(Duration::from_secs(20)),
        )
        .unwrap();
    services.notification_dismiss(second.id).unwrap();
    assert!(
        wait_exit(&mut waiting).success(),
        "notify-send --wait ended on the close"
    );
    assert!(services.notifications().unwrap().is_empty());
    let missing = services.notification_dismiss(second.id).unwrap_err();
    assert_eq!(missing.code, uidrive_core::ErrorCode::NoElement);

    // Replacing keeps the id; expiry closes.
    let replaced = command(&desktop, "notify-send")
        .args(["-p", "-t", "600000", "First text"])
        .output()
        .unwrap();
    let id: u32 = String::from_utf8_lossy(&replaced.stdout)
        .trim()
        .parse()
        .unwrap();
    command(&desktop, "notify-send")
        .args(["-r", &id.to_string(), "-t", "1500", "Second text"])
        .status()
        .unwrap();
    let list = services.notifications().unwrap();
    assert_eq!(list.len(), 1, "{list:?}");
    assert_eq!((list[0].id, list[0].summary.as_str()), (id, "Second text"));
    let expired = Instant::now() + Duration::from_secs(30);
    while !services.notifications().unwrap().is_empty() && Instant::now() < expired {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(services.notifications().unwrap().is_empty(), "expired");
    let timeout = services
        .wait_for_notification(Some("never"), None, None, Some(Duration::from_millis(300)))
        .unwrap_err();
    assert_eq!(timeout.code, uidrive_core::ErrorCode::Timeout);
    desktop.stop();
}

fn wait_exit(child: &mut std::process::Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the process did not end");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn lines(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn wait_for_line(log: &Path, line: &str) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let seen = lines(log);
        if seen.iter().any(|l| l == line) || Instant::now() > deadline {
            return seen;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_tray_item_is_listed_activated_and_its_menu_clicked() {
    let desktop = desktop();
    let services = desktop.services().unwrap();
    let log = std::env::temp_dir().join(format!("uidrive-tray-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let mut item = command(&desktop, "/usr/bin/python3")
        .arg(repo().join("tests/apps/tray_item.py"))
        .arg(&log)
        .spawn()
        .unwrap();
    let seen = wait_for_line(&log, "registered");
    assert!(seen.contains(&"registered".to_string()), "{seen:?}");

    let items = services.tray().unwrap();
    assert_eq!(items.len(), 1, "{items:?}");
    let it = &items[0];
    assert_eq!(it.id, "uidrive-test-tray");
    assert_eq!(it.title, "uidrive test tray");
    assert_eq!(it.tooltip, "Test tray\nAll is well");
    assert_eq!(it.status, "Active");
    assert!(it.has_menu);

    services.tray_activate("uidrive-test-tray").unwrap();
    let seen = wait_for_line(&log, "activate 0 0");
    assert!(seen.contains(&"activate 0 0".to_string()), "{seen:?}");

    let menu = services.tray_menu("uidrive test tray").unwrap();
    let labels: Vec<&str> = menu.iter().map(|e| e.label.as_str()).collect();
    assert_eq!(labels, ["Open Window", "", "Quit", "Disabled"]);
    assert!(menu[1].separator);
    assert!(!menu[3].enabled);
    services
        .tray_click("uidrive-test-tray", "Open Window")
        .unwrap();
    let seen = wait_for_line(&log, "clicked 1 _Open Window");
    assert!(
        seen.contains(&"clicked 1 _Open Window".to_string()),
        "{seen:?}"
    );
    let disabled = services
        .tray_click("uidrive-test-tray", "Disabled")
        .unwrap_err();
    assert_eq!(disabled.code, uidrive_core::ErrorCode::NotActionable);
    services.tray_click("uidrive-test-tray", "3").unwrap();
    let seen = wait_for_line(&log, "clicked 3 Quit");
    assert!(seen.contains(&"clicked 3 Quit".to_string()), "{seen:?}");

    // An item whose app left is no longer listed.
    let _ = item.kill();
    let _ = item.wait();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !services.tray().unwrap().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(services.tray().unwrap().is_empty());
    let _ = std::fs::remove_file(&log);
    desktop.stop();
}

/// An app whose copy is an image (GTK 3 offers image/png): read as PNG.
#[test]
fn an_image_on_the_clipboard_reads_as_png() {
    use std::io::BufRead;
    let desktop = desktop();
    let services = desktop.services().unwrap();
    // Nothing on the clipboard, or only text: no image.
    assert_eq!(services.clipboard_get_image(false).unwrap(), None);
    services.clipboard_set("just text", false).unwrap();
    assert_eq!(services.clipboard_get_image(false).unwrap(), None);

    let mut app = command(&desktop, "/usr/bin/python3")
        .arg(repo().join("tests/apps/clipboard_image.py"))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut ready = String::new();
    std::io::BufReader::new(app.stdout.take().unwrap())
        .read_line(&mut ready)
        .unwrap();
    assert_eq!(ready.trim(), "ready");
    let png = services
        .clipboard_get_image(false)
        .unwrap()
        .expect("the app offers image/png");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    // IHDR: width and height, big-endian, after the chunk's length and name.
    let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(png[20..24].try_into().unwrap());
    assert_eq!((width, height), (7, 5));
    let _ = app.kill();
    let _ = app.wait();
    desktop.stop();
}
