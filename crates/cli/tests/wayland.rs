//! The command line on the headless Wayland desktop: `open --headless
//! wayland --launch CMD` starts sway, its buses and the app under the
//! session's `uidrive serve`; the app is a native Wayland client (no
//! `DISPLAY`), typed text reads back, and `close` leaves no compositor,
//! bus or app running. An unknown backend is a usage error at once.

mod common;

use common::{environ, procs_under, runs, Session};
use std::time::{Duration, Instant};

/// Far above anything closing takes: only a process that never goes reaches it.
const GUARD: Duration = Duration::from_secs(30);

#[test]
fn mousepad_on_the_wayland_desktop_types_reads_back_and_close_leaves_nothing() {
    let pad = Session::open_on("wlpad", &["--headless", "wayland"], &["mousepad"]);
    let procs = procs_under(pad.daemon());
    let names: Vec<&str> = procs.iter().map(|p| p.name.as_str()).collect();
    for part in ["sway", "dbus-daemon", "at-spi2-registr", "mousepad"] {
        assert!(
            names.contains(&part),
            "no {part} under the daemon: {names:?}"
        );
    }
    assert!(!names.contains(&"Xvfb"), "an X server runs: {names:?}");
    let env = environ(pad.app_pid());
    // The compositor's socket by its name in the app's own runtime
    // directory, as in a person's session; the kernel says it is sway's.
    let var = |k: &str| {
        env.iter()
            .find_map(|v| v.strip_prefix(&format!("{k}=")))
            .unwrap_or_else(|| panic!("no {k}: {env:?}"))
    };
    let name = var("WAYLAND_DISPLAY");
    assert!(
        name.starts_with("wayland-") && !name.contains('/'),
        "{name}"
    );
    let runtime_dir = std::path::PathBuf::from(var("XDG_RUNTIME_DIR"));
    let socket = runtime_dir.join(name);
    let listener = uidrive_wayland::socket_listener(&socket).expect("the socket answers");
    assert!(
        procs.iter().any(|p| p.pid == listener && p.name == "sway"),
        "{listener} is not the daemon's sway: {procs:?}"
    );
    assert!(!env.iter().any(|v| v.starts_with("DISPLAY=")), "{env:?}");

    let controls = pad.ok(&["snapshot", "-i"]);
    assert!(controls.contains("[textField]"), "{controls}");
    let text = "typed on Wayland from the command line";
    // Real keys through the compositor's virtual keyboard, read back from the field.
    let data = pad.json(&["type", text]);
    assert_eq!(data["effect"], "confirmed", "{data}");
    assert_eq!(data["element"]["value"], text, "{data}");
    let shown = pad.ok(&["snapshot"]);
    assert!(shown.contains(&format!("value=\"{text}\"")), "{shown}");

    let closed = pad.ok(&["close"]);
    assert!(closed.contains("none still runs"), "{closed}");
    let deadline = Instant::now() + GUARD;
    let mut left: Vec<_> = procs.iter().filter(|p| runs(p)).collect();
    while !left.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        left.retain(|p| runs(p));
    }
    assert!(left.is_empty(), "still running after close: {left:?}");
    // The runtime directory went too, with the name of the socket in it.
    assert!(
        std::fs::symlink_metadata(&socket).is_err() && !runtime_dir.exists(),
        "{} stayed after close",
        runtime_dir.display()
    );
}

/// With `--xwayland`, an app told `GDK_BACKEND=x11` is an X client of
/// Xwayland: typed text reads back, and `close` ends Xwayland too (wlroots
/// starts it outside the daemon's process tree).
#[test]
fn an_x_client_on_xwayland_types_and_close_ends_xwayland() {
    let pad = Session::open_on(
        "xwpad",
        &["--headless", "wayland", "--xwayland"],
        &["env", "GDK_BACKEND=x11", "mousepad"],
    );
    let env = environ(pad.app_pid());
    let display = env
        .iter()
        .find_map(|v| v.strip_prefix("DISPLAY="))
        .expect("the X client has Xwayland's DISPLAY")
        .to_string();
    let xwayland: Vec<_> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
            args.len() > 1 && args[0].ends_with(b"Xwayland") && args[1] == display.as_bytes()
        })
        .flat_map(procs_under)
        .collect();
    assert_eq!(xwayland.len(), 1, "one Xwayland on {display}: {xwayland:?}");

    let text = "typed into an X client on Xwayland";
    let data = pad.json(&["type", text]);
    assert_eq!(data["effect"], "confirmed", "{data}");
    assert_eq!(data["element"]["value"], text, "{data}");

    let procs = procs_under(pad.daemon());
    pad.ok(&["close"]);
    let left: Vec<_> = procs.iter().chain(&xwayland).filter(|p| runs(p)).collect();
    assert!(left.is_empty(), "still running after close: {left:?}");
}

/// GTK 3 matches its key bindings by keycode: Tab moves the dialog's focus
/// and Enter activates the focused button only when GTK finds the virtual
/// keyboard's key for them in the keymap. Each is the newest key of
/// uidrive's keymap when it is sent, the one GTK 3.24 did not find before
/// the keymap got a spare highest key (`SPARE` in
/// crates/wayland/src/keymap.rs): without it, Tab left Cancel focused.
#[test]
fn a_gtk3_modal_dialog_is_answered_with_real_keys() {
    let app = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/apps/gtk3_modal.py"
    );
    let modal = Session::open_on(
        "wlmodal",
        &["--headless", "wayland"],
        &["/usr/bin/python3", app],
    );
    let asked = modal.json(&["click", "role=button name=Ask"]);
    assert_eq!(asked["effect"], "confirmed", "{asked}");
    // A snapshot right after the click once still read the main window
    // (a full test run, under load): the wait follows the dialog first.
    modal.ok(&["wait", "--window-titled", "Question"]);
    let dialog = modal.ok(&["snapshot", "-i"]);
    assert!(dialog.contains("[button] \"OK\""), "{dialog}");

    // Cancel has the dialog's focus (as on X11, where Enter answers Cancel): Tab to OK.
    modal.ok(&["key", "Tab"]);
    let dialog = modal.ok(&["snapshot", "-i"]);
    assert!(dialog.contains("[button] \"OK\" focused"), "{dialog}");
    let answered = modal.json(&["key", "Enter"]);
    assert_eq!(answered["effect"], "confirmed", "{answered}");
    assert_eq!(answered["observed"], "window 2 closed", "{answered}");
    // The dialog's run() returned OK: the main window's label says so.
    modal.ok(&["wait", "role=text name=\"answered OK\""]);
    let main = modal.ok(&["snapshot"]);
    assert!(main.contains("[text] \"answered OK\""), "{main}");
}

#[test]
fn an_unknown_backend_or_xwayland_on_x11_is_a_usage_error() {
    let session = Session {
        home: tempfile::Builder::new()
            .prefix("udwl")
            .tempdir_in("/tmp")
            .unwrap(),
        name: "wlbad",
    };
    let (code, stdout, stderr) =
        session.run(&["open", "--headless", "mir", "--launch", "mousepad"]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stderr.contains("mir") && stderr.contains("x11") && stderr.contains("wayland"),
        "{stderr}"
    );
    let (code, stdout, stderr) =
        session.run(&["open", "--headless", "--xwayland", "--launch", "mousepad"]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stderr.contains("Xwayland runs on the Wayland desktop"),
        "{stderr}"
    );
    let (code, _, stderr) = session.run(&[
        "serve",
        "--socket",
        "/tmp/udwl-none",
        "--headless",
        "mir",
        "--launch",
        "mousepad",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("wayland"), "{stderr}");
    // Nothing was started: the session has nothing open.
    let (_, stdout, _) = session.run(&["close"]);
    assert!(stdout.contains("had nothing open"), "{stdout}");
}
