//! A person's Wayland session, as near as CI gets to one: GNOME's
//! compositor (mutter, headless, one virtual monitor, no X server),
//! PipeWire and wireplumber, and xdg-desktop-portal with its GNOME backend,
//! started on demand by D-Bus as on a real session. No sway, no
//! `SWAYSOCK`: uidrive reaches the app's display through the portal alone,
//! and the portal's consent dialog (a GTK window on the accessibility bus)
//! is answered through AT-SPI, as a person answers it.

mod common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{colours, DEADLINE};
use uidrive_atspi::{AtspiDriver, LaunchOptions};
use uidrive_core::protocol::{
    ActParams, Action, CaptureParams, IdleParams, InputEvent, InputParams, Node, PointerButton,
    Role, State, Tree, TreeParams,
};
use uidrive_core::{Driver, ErrorCode, Result};
use uidrive_x11::buses::Buses;

const WIDTH: u32 = 1280;
const HEIGHT: u32 = 800;
const WAYLAND_NAME: &str = "uidrive-mutter";

/// mutter, PipeWire and wireplumber on a session bus and accessibility bus
/// of their own; the portal comes when first asked for.
struct GnomeSession {
    /// Ended last-first: wireplumber, pipewire, mutter.
    children: Vec<Child>,
    buses: Buses,
    env: Vec<(String, String)>,
    /// The runtime directory (a `tempfile::TempDir`: removed when dropped).
    dir: Option<Box<dyn std::any::Any>>,
    _alive: std::fs::File,
}

impl Drop for GnomeSession {
    fn drop(&mut self) {
        for child in self.children.iter_mut().rev() {
            let _ = child.kill();
            let _ = child.wait();
        }
        // The portal and its backends, started by the bus, end with it.
        self.buses.stop();
        drop(self.dir.take());
    }
}

fn wait_until(what: &str, ready: impl Fn() -> bool) {
    let started = Instant::now();
    while !ready() {
        assert!(
            started.elapsed() < DEADLINE,
            "{what}: not so after {DEADLINE:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl GnomeSession {
    fn start() -> GnomeSession {
        GnomeSession::start_with(true)
    }

    /// `pipewire`: whether PipeWire (and wireplumber) run in the session.
    fn start_with(pipewire: bool) -> GnomeSession {
        let (dir, alive) = uidrive_x11::private_runtime_dir().expect("a runtime directory");
        let path = dir.path().to_path_buf();
        let home = path.join("home");
        std::fs::create_dir_all(&home).unwrap();
        let mut base: Vec<(String, String)> = vec![
            ("XDG_RUNTIME_DIR".into(), path.display().to_string()),
            ("WAYLAND_DISPLAY".into(), WAYLAND_NAME.into()),
            ("XDG_CURRENT_DESKTOP".into(), "GNOME".into()),
            ("XDG_SESSION_TYPE".into(), "wayland".into()),
            ("GDK_BACKEND".into(), "wayland".into()),
            ("HOME".into(), home.display().to_string()),
            (
                "XDG_CONFIG_HOME".into(),
                home.join(".config").display().to_string(),
            ),
            (
                "XDG_CACHE_HOME".into(),
                home.join(".cache").display().to_string(),
            ),
            (
                "XDG_DATA_HOME".into(),
                home.join(".local/share").display().to_string(),
            ),
            (
                "XDG_STATE_HOME".into(),
                home.join(".local/state").display().to_string(),
            ),
        ];
        base.extend(
            uidrive_x11::Desktop::toolkit_env()
                .iter()
                .filter(|(k, _)| *k != "GDK_BACKEND")
                .map(|(k, v)| (k.to_string(), v.to_string())),
        );
        let removed = [
            "DISPLAY",
            "XAUTHORITY",
            "WAYLAND_SOCKET",
            "SWAYSOCK",
            "AT_SPI_BUS",
            "DBUS_SESSION_BUS_ADDRESS",
        ];
        let mut session = GnomeSession {
            children: Vec::new(),
            buses: Buses::default(),
            env: Vec::new(),
            dir: Some(Box::new(dir)),
            _alive: alive,
        };
        session
            .buses
            .start(&path, &base, &removed, Duration::from_secs(20))
            .expect("the session bus and the accessibility bus start");
        session.env = session.buses.env_with(base);
        let spawn = |session: &mut GnomeSession, argv: &[&str]| {
            let mut command = Command::new(argv[0]);
            command
                .args(&argv[1..])
                .envs(session.env.iter().cloned())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            for name in removed {
                if !session.env.iter().any(|(k, _)| k == name) {
                    command.env_remove(name);
                }
            }
            let child = command.spawn().unwrap_or_else(|e| {
                panic!(
                    "{} starts: {e} (scripts/install-deps.sh installs it)",
                    argv[0]
                )
            });
            session.children.push(child);
        };
        let virtual_monitor = format!("{WIDTH}x{HEIGHT}");
        spawn(
            &mut session,
            &[
                "mutter",
                "--headless",
                "--wayland",
                "--no-x11",
                "--virtual-monitor",
                &virtual_monitor,
                "--wayland-display",
                WAYLAND_NAME,
            ],
        );
        wait_until("mutter listens", || path.join(WAYLAND_NAME).exists());
        if pipewire {
            spawn(&mut session, &["pipewire"]);
            wait_until("pipewire listens", || path.join("pipewire-0").exists());
            spawn(&mut session, &["wireplumber"]);
        }
        session
    }

    fn options(&self) -> LaunchOptions {
        LaunchOptions {
            env: self.env.clone(),
            timeout: Duration::from_secs(60),
        }
    }

    /// Answers the portal's dialog as a person does, through AT-SPI:
    /// Share with remote interaction allowed, or Cancel. Gives up when
    /// `ended` says the input that asked is over (it failed before asking).
    fn answer_consent(&self, share: bool, ended: impl Fn() -> bool) {
        let started = Instant::now();
        let portal = loop {
            let options = LaunchOptions {
                timeout: Duration::from_secs(1),
                ..self.options()
            };
            match AtspiDriver::attach_name("xdg-desktop-portal-gnome", &options) {
                Ok(portal) => break portal,
                Err(_) if ended() => return,
                Err(e) => assert!(
                    started.elapsed() < DEADLINE * 3,
                    "the portal's dialog shows: {e} ({})",
                    e.suggestion
                ),
            }
        };
        let is = |n: &Node, role: Role, word: &str| {
            n.role == role && n.label.as_deref().is_some_and(|l| l.contains(word))
        };
        let tree = wait_for_tree(&portal, "the portal's dialog", |t| {
            t.nodes.iter().any(|n| is(n, Role::Button, "Share"))
        });
        if share {
            let allow = tree
                .nodes
                .iter()
                .find(|n| is(n, Role::CheckBox, "Allow remote interaction"))
                .expect("the dialog asks whether to allow remote interaction");
            if !allow.has_state(&State::Checked) {
                portal
                    .act(&ActParams::on(allow.id, Action::Press))
                    .expect("the switch toggles");
                wait_for_tree(&portal, "remote interaction allowed", |t| {
                    t.nodes.iter().any(|n| {
                        is(n, Role::CheckBox, "Allow remote interaction")
                            && n.has_state(&State::Checked)
                    })
                });
            }
        }
        let word = if share { "Share" } else { "Cancel" };
        let tree = portal
            .tree(&TreeParams::default())
            .expect("the dialog reads");
        let button = tree
            .nodes
            .iter()
            .find(|n| is(n, Role::Button, word))
            .unwrap_or_else(|| panic!("the dialog has {word}"));
        portal
            .act(&ActParams::on(button.id, Action::Press))
            .unwrap_or_else(|e| panic!("{word} is pressed: {e}"));
    }
}

fn wait_for_tree(driver: &AtspiDriver, what: &str, check: impl Fn(&Tree) -> bool) -> Tree {
    let started = Instant::now();
    loop {
        let _ = driver.idle(&IdleParams::within(None, 5_000));
        if let Ok(tree) = driver.tree(&TreeParams::default()) {
            if check(&tree) {
                return tree;
            }
        }
        if started.elapsed() > DEADLINE {
            let tree = driver.tree(&TreeParams::default());
            let text = tree
                .as_ref()
                .ok()
                .and_then(|t| text_field(t)?.value.clone());
            panic!("{what}: not so after {DEADLINE:?} (the text field reads {text:?})");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn text_field(tree: &Tree) -> Option<&Node> {
    tree.nodes
        .iter()
        .find(|n| n.role == Role::TextField && n.has_state(&State::Multiline))
}

fn centre(node: &Node) -> (f64, f64) {
    let b = node.bounds.expect("the element has bounds");
    (b.x + b.width / 2.0, b.y + b.height / 2.0)
}

fn input(driver: &AtspiDriver, events: Vec<InputEvent>) -> Result<()> {
    driver.input(&InputParams {
        window: None,
        events,
        hold: false,
    })
}

/// `work` on a thread of its own, while the test answers the portal's
/// dialog it brings up.
fn answering<T: Send>(session: &GnomeSession, share: bool, work: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        let done = scope.spawn(work);
        session.answer_consent(share, || done.is_finished());
        done.join().expect("the thread asking the portal ends")
    })
}

fn has_focus(app: &AtspiDriver) -> bool {
    app.windows()
        .is_ok_and(|w| w.windows.iter().any(|w| w.focused))
}

#[test]
fn mousepad_through_the_desktop_portal_types_clicks_and_captures() {
    let session = GnomeSession::start();
    let argv: Vec<String> = vec!["mousepad".into()];
    let (app, mut child) = AtspiDriver::launch(&argv, &session.options())
        .unwrap_or_else(|e| panic!("mousepad launches on mutter: {e} ({})", e.suggestion));
    let child = EndChild(&mut child);

    // A native Wayland client of mutter: no X display, no sway.
    let environ = std::fs::read(format!("/proc/{}/environ", child.0.id())).unwrap();
    let environ: Vec<String> = environ
        .split(|b| *b == 0)
        .map(|v| String::from_utf8_lossy(v).into_owned())
        .collect();
    assert!(environ
        .iter()
        .any(|v| v == &format!("WAYLAND_DISPLAY={WAYLAND_NAME}")));
    assert!(!environ
        .iter()
        .any(|v| v.starts_with("DISPLAY=") || v.starts_with("SWAYSOCK=")));

    // Reading asks nobody anything.
    wait_for_tree(&app, "the editor shows", |t| text_field(t).is_some());
    assert!(
        AtspiDriver::attach_name(
            "xdg-desktop-portal-gnome",
            &LaunchOptions {
                timeout: Duration::from_millis(500),
                ..session.options()
            }
        )
        .is_err(),
        "no portal dialog before any input or capture"
    );

    // The first capture asks; a refusal is an error that says so.
    let refused = answering(&session, false, || app.capture(&CaptureParams::default()))
        .expect_err("consent refused");
    assert_eq!(refused.code, ErrorCode::Unsupported, "{refused}");
    assert!(refused.message.contains("refused"), "{refused}");
    assert!(
        refused.suggestion.contains("Share"),
        "{}",
        refused.suggestion
    );

    // Asked again and allowed. The session is shared now, but where the
    // window is on the screen nobody tells a client: its capture is refused,
    // saying why and what to do.
    let err = answering(&session, true, || app.capture(&CaptureParams::default()))
        .expect_err("no place, no capture");
    assert_eq!(err.code, ErrorCode::Unsupported, "{err}");
    assert!(err.message.contains("where the window"), "{err}");
    assert!(err.suggestion.contains("fullscreen"), "{}", err.suggestion);

    // The window has the keyboard focus once the session's keyboard is on
    // the seat (uidrive taps Shift as the session starts: mutter headless
    // has no keyboard of its own).
    wait_for_tree(&app, "mousepad has the keyboard focus", |_| has_focus(&app));

    // Keys go through the portal (no dialog: the session is kept) and read back.
    // Text the session's keyboard layout may lack is refused, nothing typed.
    let err = input(&app, vec![InputEvent::Text { text: "ñ".into() }])
        .expect_err("a character beyond ASCII");
    assert_eq!(err.code, ErrorCode::Unsupported, "{err}");
    assert!(err.suggestion.contains("setValue"), "{}", err.suggestion);
    let typed = "Hello portal, 42!";
    input(&app, vec![InputEvent::Text { text: typed.into() }])
        .unwrap_or_else(|e| panic!("keys through the portal: {e} ({})", e.suggestion));
    let tree = wait_for_tree(&app, "the typed text reads back", |t| {
        text_field(t).and_then(|n| n.value.as_deref()) == Some(typed)
    });
    input(
        &app,
        vec![
            InputEvent::Key {
                key: "Ctrl+a".parse().unwrap(),
            },
            InputEvent::Text { text: "Z".into() },
        ],
    )
    .expect("keys with a modifier");
    wait_for_tree(&app, "Ctrl+A and Z replaced the text", |t| {
        text_field(t).and_then(|n| n.value.as_deref()) == Some("Z")
    });

    // A click at an element of a window that does not fill the screen is
    // refused as its capture was.
    let edit = common::find(&tree, Role::Menu, "Edit", |_| true).clone();
    let (x, y) = centre(&edit);
    let err = input(&app, vec![InputEvent::Click(PointerButton::at(x, y))])
        .expect_err("no place, no click");
    assert_eq!(err.code, ErrorCode::Unsupported, "{err}");
    assert!(err.suggestion.contains("fullscreen"), "{}", err.suggestion);

    // Fullscreen (F11, a key: keys need no place), the window is the
    // screen: a real click on Edit opens its menu.
    input(
        &app,
        vec![InputEvent::Key {
            key: "F11".parse().unwrap(),
        }],
    )
    .expect("F11");
    let fills = |_: &Tree| {
        app.windows().ok().is_some_and(|w| {
            w.windows
                .iter()
                .any(|w| (w.bounds.width, w.bounds.height) == (f64::from(WIDTH), f64::from(HEIGHT)))
        })
    };
    wait_for_tree(&app, "mousepad fills the screen", fills);
    // Read again once it settled: positions from before the change are stale.
    let tree = wait_for_tree(&app, "mousepad settles fullscreen", |_| true);
    let select_all_shown = |t: &Tree| {
        t.nodes.iter().any(|n| {
            n.role == Role::MenuItem && n.label.as_deref() == Some("Select All") && common::shown(n)
        })
    };
    assert!(
        !select_all_shown(&tree),
        "the Edit menu is closed before the click"
    );
    let edit = common::find(&tree, Role::Menu, "Edit", |_| true);
    let (x, y) = centre(edit);
    // As a person does: the pointer comes over it, then the click.
    input(
        &app,
        vec![InputEvent::PointerMove {
            x,
            y,
            mods: Vec::new(),
        }],
    )
    .expect("the pointer moves through the portal");
    let _ = app.idle(&IdleParams::within(None, 5_000));
    input(&app, vec![InputEvent::Click(PointerButton::at(x, y))])
        .unwrap_or_else(|e| panic!("a click through the portal: {e} ({})", e.suggestion));
    wait_for_tree(&app, "the Edit menu opened by the click", select_all_shown);

    // A capture is a frame of the screen stream over PipeWire: a real
    // picture (the window with its Edit menu open).
    let started = Instant::now();
    let capture = app
        .capture(&CaptureParams::default())
        .unwrap_or_else(|e| panic!("a capture through the portal: {e} ({})", e.suggestion));
    println!("capture through PipeWire took {:?}", started.elapsed());
    let (w, h, seen) = colours(&capture.png, 16);
    assert_eq!((w, h), (WIDTH, HEIGHT));
    assert!(seen >= 3, "the capture shows only {seen} colours");
}

/// Kills the app when the test ends, before the session goes.
struct EndChild<'a>(&'a mut Child);

impl Drop for EndChild<'_> {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn without_pipewire_the_portal_session_fails_saying_to_start_it() {
    let session = GnomeSession::start_with(false);
    let argv: Vec<String> = vec!["mousepad".into()];
    let (app, mut child) = AtspiDriver::launch(&argv, &session.options())
        .unwrap_or_else(|e| panic!("mousepad launches on mutter: {e} ({})", e.suggestion));
    let _child = EndChild(&mut child);
    wait_for_tree(&app, "the editor shows", |t| text_field(t).is_some());
    // The person allows it; the screen stream cannot start without PipeWire.
    let err = answering(&session, true, || app.capture(&CaptureParams::default()))
        .expect_err("no PipeWire, no session");
    println!("without PipeWire: {err} ({})", err.suggestion);
    assert_eq!(err.code, ErrorCode::Failed, "{err}");
    assert!(err.suggestion.contains("pipewire"), "{}", err.suggestion);
}
