//! The clipboard of the headless Wayland desktop (sway's wlr-data-control,
//! through wl-copy and wl-paste) against a real app: what mousepad copies
//! with Ctrl+C reads back, text uidrive sets is what mousepad pastes with
//! Ctrl+V, and what another client of the compositor reads.

use std::process::Command;
use std::time::{Duration, Instant};
use uidrive_core::protocol::{InputEvent, Node, PointerButton, Role, State, Tree};
use uidrive_facade::{Backend, Desktop, HeadlessOptions, LaunchOptions};

fn field(tree: &Tree) -> Option<&Node> {
    tree.nodes
        .iter()
        .find(|n| n.role == Role::TextField && n.has_state(&State::Multiline))
}

fn text(tree: &Tree) -> Option<String> {
    field(tree).and_then(|n| n.value.clone())
}

fn key(key: &str) -> InputEvent {
    InputEvent::Key {
        key: key.parse().unwrap(),
    }
}

/// Reads the app until `check` holds, for up to a minute (what an app
/// under a loaded machine can take), failing with what it last read.
fn wait_for<T: std::fmt::Debug>(what: &str, read: impl Fn() -> T, check: impl Fn(&T) -> bool) -> T {
    let started = Instant::now();
    loop {
        let now = read();
        if check(&now) {
            return now;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{what}: last read {now:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_wayland_clipboard_pastes_into_mousepad_and_reads_its_copy() {
    let desktop: Desktop = uidrive_facade::headless(&HeadlessOptions {
        backend: Some(Backend::Wayland),
        ..Default::default()
    })
    .expect("the headless Wayland desktop starts");
    let home = std::env::temp_dir().join(format!("uidrive-wlclip-{}", std::process::id()));
    std::fs::create_dir_all(&home).unwrap();
    let mut env = vec![("HOME".to_string(), home.display().to_string())];
    env.push((
        "XDG_CONFIG_HOME".to_string(),
        home.join(".config").display().to_string(),
    ));
    let app = desktop
        .launch(
            &["mousepad".to_string()],
            &LaunchOptions {
                env,
                timeout: Some(Duration::from_secs(60)),
                socket_env: None,
            },
        )
        .expect("mousepad launches on the Wayland desktop");
    let services = desktop.services().unwrap();
    let read = || {
        let _ = app.idle(None, Some(Duration::from_secs(5)));
        app.tree(None).map(|t| text(&t)).unwrap_or(None)
    };
    wait_for(
        "the editor shows",
        || app.tree(None).ok().is_some_and(|t| field(&t).is_some()),
        |shown| *shown,
    );

    // A real click into the text gives it the keyboard focus.
    let tree = app.tree(None).unwrap();
    let b = field(&tree)
        .and_then(|n| n.bounds)
        .expect("the editor's bounds");
    app.input(
        None,
        vec![InputEvent::Click(PointerButton::at(
            b.x + b.width / 2.0,
            b.y + b.height / 2.0,
        ))],
    )
    .unwrap();

    // Copied by the app, read by uidrive.
    app.input(
        None,
        vec![
            key("Ctrl+a"),
            InputEvent::Text {
                text: "copied in mousepad".into(),
            },
        ],
    )
    .unwrap();
    wait_for("typed over", read, |t| {
        t.as_deref() == Some("copied in mousepad")
    });
    app.input(None, vec![key("Ctrl+a"), key("Ctrl+c")]).unwrap();
    wait_for(
        "Ctrl+C put the text on the clipboard",
        || services.clipboard_get(false).unwrap(),
        |c| c.as_deref() == Some("copied in mousepad"),
    );

    // Set by uidrive, pasted by the app with a real Ctrl+V (GTK 3 matches
    // the V of its accelerator by keycode: docs/wayland.md, Input).
    services.clipboard_set("set by uidrive", false).unwrap();
    app.input(None, vec![key("Ctrl+a"), key("Ctrl+v")]).unwrap();
    wait_for("Ctrl+V pasted uidrive's text", read, |t| {
        t.as_deref() == Some("set by uidrive")
    });

    // The compositor's selection holds what uidrive sets: a second
    // data-control client, wl-paste, reads it back.
    services.clipboard_set("Grüße über Wayland", false).unwrap();
    let mut paste = Command::new("wl-paste");
    paste.args(["--no-newline"]).env_clear().envs(
        desktop
            .env()
            .iter()
            .filter(|(k, _)| k == "WAYLAND_DISPLAY" || k == "XDG_RUNTIME_DIR")
            .cloned(),
    );
    let pasted = paste.output().expect("wl-paste runs");
    assert_eq!(
        String::from_utf8_lossy(&pasted.stdout),
        "Grüße über Wayland"
    );
    services.clipboard_set("primary text", true).unwrap();
    assert_eq!(
        services.clipboard_get(true).unwrap().as_deref(),
        Some("primary text")
    );

    // Text is no image.
    assert_eq!(services.clipboard_get_image(false).unwrap(), None);

    services.clipboard_clear(false).unwrap();
    assert_eq!(services.clipboard_get(false).unwrap(), None);
    drop(app);
    drop(desktop);
    let _ = std::fs::remove_dir_all(home);
}
