//! Real apps on the headless Wayland desktop (sway, no X server): they run
//! as native Wayland clients with no `DISPLAY`, AT-SPI reads them as under
//! X11, and input and captures go through the compositor's protocols
//! (virtual pointer, virtual keyboard, screencopy) at the places sway says
//! their windows are.

mod common;

use std::process::Child;
use std::time::{Duration, Instant};

use common::{colours, DEADLINE};
use uidrive_atspi::{AtspiDriver, LaunchOptions};
use uidrive_core::protocol::{
    CaptureParams, IdleParams, InputEvent, InputParams, Node, PointerButton, Role, State, Tree,
    TreeParams,
};
use uidrive_core::Driver;
use uidrive_wayland::WaylandDesktop;

struct OnWayland {
    driver: AtspiDriver,
    child: Child,
    // Dropped after the app: the desktop ends last.
    desktop: WaylandDesktop,
}

impl Drop for OnWayland {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn launch(argv: &[&str]) -> OnWayland {
    let desktop = WaylandDesktop::start().expect("the headless Wayland desktop starts");
    let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
    // A home of its own in the desktop's runtime directory: no session or
    // draft of an earlier run is restored.
    let home = desktop.runtime_dir().join("home");
    let mut env = desktop.env();
    for (name, dir) in [
        ("HOME", home.clone()),
        ("XDG_CONFIG_HOME", home.join(".config")),
        ("XDG_CACHE_HOME", home.join(".cache")),
        ("XDG_DATA_HOME", home.join(".local/share")),
        ("XDG_STATE_HOME", home.join(".local/state")),
    ] {
        std::fs::create_dir_all(&dir).unwrap();
        env.push((name.to_string(), dir.display().to_string()));
    }
    let options = LaunchOptions {
        env,
        timeout: Duration::from_secs(60),
    };
    let (driver, child) = AtspiDriver::launch(&argv, &options)
        .unwrap_or_else(|e| panic!("{} launches on Wayland: {e} ({})", argv[0], e.suggestion));
    OnWayland {
        driver,
        child,
        desktop,
    }
}

impl OnWayland {
    fn tree(&self) -> Tree {
        self.driver
            .tree(&TreeParams::default())
            .expect("the window's tree reads")
    }

    fn idle(&self) {
        let _ = self.driver.idle(&IdleParams::within(None, 5_000));
    }

    fn wait_for(&self, what: &str, check: impl Fn(&Tree) -> bool) -> Tree {
        let started = Instant::now();
        loop {
            self.idle();
            let tree = self.tree();
            if check(&tree) {
                return tree;
            }
            assert!(
                started.elapsed() < DEADLINE,
                "{what}: not so after {DEADLINE:?}; it shows {:?}",
                tree.nodes
                    .iter()
                    .filter(|n| n.label.is_some() || n.value.is_some())
                    .map(|n| (n.role.to_string(), n.label.clone(), n.value.clone()))
                    .take(60)
                    .collect::<Vec<_>>()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn input(&self, events: Vec<InputEvent>) {
        self.driver
            .input(&InputParams {
                window: None,
                events,
                hold: false,
            })
            .unwrap_or_else(|e| panic!("input goes through Wayland: {e} ({})", e.suggestion));
    }

    /// Its environment as the kernel has it.
    fn environ(&self) -> Vec<String> {
        let raw = std::fs::read(format!("/proc/{}/environ", self.child.id())).unwrap();
        raw.split(|b| *b == 0)
            .map(|v| String::from_utf8_lossy(v).into_owned())
            .collect()
    }
}

fn centre(node: &Node) -> (f64, f64) {
    let b = node.bounds.expect("the element has bounds");
    (b.x + b.width / 2.0, b.y + b.height / 2.0)
}

fn text_field(tree: &Tree) -> Option<&Node> {
    tree.nodes
        .iter()
        .find(|n| n.role == Role::TextField && n.has_state(&State::Multiline))
}

#[test]
fn mousepad_on_wayland_types_clicks_and_captures() {
    let app = launch(&["mousepad"]);
    let pids = app.desktop.process_ids();

    // A native Wayland client: the compositor's socket by its name in the
    // app's runtime directory (sway's, as the kernel says), no X display.
    let environ = app.environ();
    let var = |k: &str| {
        environ
            .iter()
            .find_map(|v| v.strip_prefix(&format!("{k}=")))
            .unwrap_or_else(|| panic!("no {k}: {environ:?}"))
    };
    let name = var("WAYLAND_DISPLAY");
    assert!(
        name.starts_with("wayland-") && !name.contains('/'),
        "{name}"
    );
    let socket = std::path::Path::new(var("XDG_RUNTIME_DIR")).join(name);
    let listener = uidrive_wayland::socket_listener(&socket).expect("the socket answers");
    assert!(
        pids.contains(&listener),
        "{listener} is not one of {pids:?}"
    );
    assert_eq!(
        std::fs::read_to_string(format!("/proc/{listener}/comm"))
            .unwrap()
            .trim(),
        "sway"
    );
    assert!(
        !environ.iter().any(|v| v.starts_with("DISPLAY=")),
        "{environ:?}"
    );
    assert!(environ.iter().any(|v| v == "GDK_BACKEND=wayland"));

    // The window is where sway shows it.
    let windows = app.driver.windows().expect("its windows");
    let window = &windows.windows[0];
    assert_eq!(
        (window.bounds.width, window.bounds.height),
        (1920.0, 1200.0),
        "sway tiles the one window over the output: {window:?}"
    );

    // A real click into the text, then real keys: typed text reads back.
    let tree = app.wait_for("the editor shows", |t| text_field(t).is_some());
    let field = text_field(&tree).unwrap();
    let (x, y) = centre(field);
    app.input(vec![InputEvent::Click(PointerButton::at(x, y))]);
    let typed = "Hello Wayland, ñ € ✓";
    app.input(vec![InputEvent::Text { text: typed.into() }]);
    let tree = app.wait_for("the typed text reads back", |t| {
        text_field(t).and_then(|n| n.value.as_deref()) == Some(typed)
    });
    // Keys with a modifier: Ctrl+A selects all, then a capital letter
    // replaces it (a key of its own in uidrive's keymap, no Shift).
    app.input(vec![
        InputEvent::Key {
            key: "Ctrl+a".parse().unwrap(),
        },
        InputEvent::Text { text: "Z".into() },
    ]);
    app.wait_for("Ctrl+A and Z replaced the text", |t| {
        text_field(t).and_then(|n| n.value.as_deref()) == Some("Z")
    });

    // A real click on the menu bar's Edit opens its menu.
    let edit = common::find(&tree, Role::Menu, "Edit", |_| true);
    let (x, y) = centre(edit);
    assert!(y < 100.0, "Edit is in the menu bar: {edit:?}");
    let select_all_shown = |t: &Tree| {
        t.nodes.iter().any(|n| {
            n.role == Role::MenuItem && n.label.as_deref() == Some("Select All") && common::shown(n)
        })
    };
    assert!(
        !select_all_shown(&app.tree()),
        "the Edit menu is closed before the click"
    );
    app.input(vec![InputEvent::Click(PointerButton::at(x, y))]);
    app.wait_for("the Edit menu opened by the click", select_all_shown);
    app.input(vec![InputEvent::Key {
        key: "Escape".parse().unwrap(),
    }]);

    // A capture is a real picture of the window, of its size.
    let capture = app
        .driver
        .capture(&CaptureParams::default())
        .expect("a capture through screencopy");
    let (w, h, seen) = colours(&capture.png, 16);
    assert_eq!((w, h), (capture.width, capture.height));
    assert_eq!((w, h), (1920, 1200));
    assert!(seen >= 3, "the capture shows only {seen} colours");

    drop(app);
    for pid in pids {
        assert!(
            !std::path::Path::new(&format!("/proc/{pid}")).exists()
                || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                    .map(|s| s.contains(") Z "))
                    .unwrap_or(true),
            "process {pid} of the Wayland desktop still runs"
        );
    }
}

fn manage(app: &OnWayland, params: serde_json::Value) -> uidrive_core::protocol::WindowState {
    let params = serde_json::from_value(params.clone()).unwrap();
    app.driver
        .manage_window(&params)
        .unwrap_or_else(|e| panic!("{params:?}: {e} ({})", e.suggestion))
}

/// The states `windows` lists for the app's first window, and its bounds.
fn listed(app: &OnWayland) -> (Vec<String>, uidrive_core::protocol::Bounds) {
    let windows = app.driver.windows().expect("its windows");
    let window = &windows.windows[0];
    let states = serde_json::from_value(window.extra["states"].clone()).unwrap_or_default();
    (states, window.bounds)
}

#[test]
fn mousepad_window_managed_through_sway() {
    let app = launch(&["mousepad"]);
    app.wait_for("the editor shows", |t| text_field(t).is_some());

    // sway tiles the one window over its workspace: maximized.
    let (states, _) = listed(&app);
    assert!(states.iter().any(|s| s == "maximized"), "{states:?}");

    // A move floats the tiled window first, and says so.
    let moved = manage(&app, serde_json::json!({"op": "move", "x": 100, "y": 80}));
    assert_eq!(moved.effect, "confirmed");
    assert!(
        moved.extra["note"].as_str().unwrap().contains("floating"),
        "{moved:?}"
    );
    assert_eq!((moved.bounds.x, moved.bounds.y), (100.0, 80.0));
    let resized = manage(
        &app,
        serde_json::json!({"op": "resize", "width": 700, "height": 500}),
    );
    assert_eq!(
        (resized.bounds.width, resized.bounds.height),
        (700.0, 500.0)
    );
    let (states, bounds) = listed(&app);
    assert_eq!(
        (bounds.x, bounds.y, bounds.width, bounds.height),
        (100.0, 80.0, 700.0, 500.0),
        "windows reads the new place back"
    );
    assert!(!states.iter().any(|s| s == "maximized"), "{states:?}");

    // Minimize hides it in sway's scratchpad; restore shows it again, floating.
    let minimized = manage(&app, serde_json::json!({"op": "minimize"}));
    assert!(
        minimized.states.iter().any(|s| s == "minimized"),
        "{minimized:?}"
    );
    assert!(listed(&app).0.iter().any(|s| s == "minimized"));
    let restored = manage(&app, serde_json::json!({"op": "restore"}));
    assert!(
        !restored
            .states
            .iter()
            .any(|s| s == "minimized" || s == "maximized"),
        "{restored:?}"
    );
    assert_eq!(restored.extra["floating"], true);

    // Maximize tiles it again: it fills the output.
    let maximized = manage(&app, serde_json::json!({"op": "maximize"}));
    assert!(
        maximized.states.iter().any(|s| s == "maximized"),
        "{maximized:?}"
    );
    assert_eq!(
        (maximized.bounds.width, maximized.bounds.height),
        (1920.0, 1200.0)
    );
    let focused = manage(&app, serde_json::json!({"op": "focus"}));
    assert!(focused.states.iter().any(|s| s == "focused"), "{focused:?}");

    // Typed text still lands after all that: input follows the new places.
    let field_at = |t: &Tree| text_field(t).map(centre);
    let tree = app.tree();
    let (x, y) = field_at(&tree).expect("the editor");
    app.input(vec![InputEvent::Click(PointerButton::at(x, y))]);
    app.input(vec![InputEvent::Text {
        text: "kept".into(),
    }]);
    app.wait_for("typed text reads back", |t| {
        text_field(t).and_then(|n| n.value.as_deref()) == Some("kept")
    });
}

#[test]
fn mousepad_menu_select_all_on_wayland() {
    let app = launch(&["mousepad"]);
    let tree = app.wait_for("the editor shows", |t| text_field(t).is_some());
    let (x, y) = centre(text_field(&tree).unwrap());
    app.input(vec![
        InputEvent::Click(PointerButton::at(x, y)),
        InputEvent::Text {
            text: "select me".into(),
        },
    ]);
    app.wait_for("the typed text reads back", |t| {
        text_field(t).and_then(|n| n.value.as_deref()) == Some("select me")
    });
    app.driver
        .menu(&serde_json::from_value(serde_json::json!({"path": ["Edit", "Select All"]})).unwrap())
        .unwrap_or_else(|e| panic!("menu Edit > Select All: {e} ({})", e.suggestion));
    // Everything selected: one typed letter replaces it all.
    app.input(vec![InputEvent::Text { text: "x".into() }]);
    app.wait_for("the selection was replaced", |t| {
        text_field(t).and_then(|n| n.value.as_deref()) == Some("x")
    });
}

#[test]
fn gnome_text_editor_on_wayland_new_tab_by_a_real_click() {
    let app = launch(&["gnome-text-editor"]);
    let editor = |t: &Tree| t.nodes.iter().find(|n| n.role == Role::TextField).cloned();
    let is_new_tab = |n: &Node| {
        n.role == Role::Button && n.label.as_deref().is_some_and(|l| l.starts_with("New tab"))
    };
    // Each tab of its tab bar has a Close Tab button.
    let tabs = |t: &Tree| {
        t.nodes
            .iter()
            .filter(|n| n.role == Role::Button && n.label.as_deref() == Some("Close Tab"))
            .count()
    };
    let tree = app.wait_for("the editor shows", |t| {
        editor(t).is_some() && t.nodes.iter().any(is_new_tab)
    });
    let before = tabs(&tree);
    let new_tab = tree.nodes.iter().find(|n| is_new_tab(n)).unwrap();
    let (x, y) = centre(new_tab);
    // As a person does: the pointer comes over the button, the app sees it
    // there, then the click. A click whose motion was the pointer's first
    // over the just-shown window was lost in 1 full run of 5.
    app.input(vec![InputEvent::PointerMove {
        x,
        y,
        mods: Vec::new(),
    }]);
    app.idle();
    std::thread::sleep(Duration::from_millis(100));
    app.input(vec![InputEvent::Click(PointerButton::at(x, y))]);
    app.wait_for("a new tab opened by the click", |t| tabs(t) == before + 1);

    // Typed text reads back in the editor (GTK 4 through the virtual keyboard).
    let tree = app.tree();
    let (x, y) = centre(&editor(&tree).unwrap());
    app.input(vec![
        InputEvent::Click(PointerButton::at(x, y)),
        InputEvent::Text {
            text: "GTK 4 on Wayland".into(),
        },
    ]);
    app.wait_for("the typed text reads back", |t| {
        t.nodes
            .iter()
            .any(|n| n.role == Role::TextField && n.value.as_deref() == Some("GTK 4 on Wayland"))
    });
    let capture = app
        .driver
        .capture(&CaptureParams::default())
        .expect("a capture through screencopy");
    let (_, _, seen) = colours(&capture.png, 16);
    assert!(seen >= 3, "the capture shows only {seen} colours");
}

/// The pixel at (x, y) of a PNG capture.
fn pixel(png: &[u8], x: f64, y: f64) -> [u8; 3] {
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("its pixels");
    let step = info.color_type.samples();
    let at = (y as usize * info.width as usize + x as usize) * step;
    [buf[at], buf[at + 1], buf[at + 2]]
}

fn dark(rgb: [u8; 3]) -> bool {
    rgb.iter().all(|&c| c < 80)
}

/// The main menu is a popover (an xdg_popup) of a button at the window's
/// right edge, at the output's: sway slides it left to keep it on the
/// output, while GTK gives its items' places as if it hung centred below
/// the button, partly past the output. Its style items read where sway
/// shows them, and a real click at the Dark one's centre chooses it.
#[test]
fn gnome_text_editor_main_menu_at_the_right_edge_dark_style_by_a_real_click() {
    let app = launch(&["gnome-text-editor"]);
    let menu_button = |t: &Tree| {
        t.nodes
            .iter()
            .find(|n| n.role == Role::Button && n.label.as_deref() == Some("Menu"))
            .cloned()
    };
    let style = |t: &Tree, label: &str| {
        t.nodes
            .iter()
            .find(|n| n.role == Role::CheckBox && n.label.as_deref() == Some(label))
            .cloned()
    };
    let tree = app.wait_for("the Menu button shows", |t| menu_button(t).is_some());
    let window = tree.nodes[0].bounds.expect("the window has bounds");
    let button = menu_button(&tree).unwrap();
    let (x, y) = centre(&button);
    assert!(
        window.x + window.width - x < 100.0,
        "the Menu button is at the window's right edge: {button:?} in {window:?}"
    );
    app.input(vec![InputEvent::PointerMove {
        x,
        y,
        mods: Vec::new(),
    }]);
    app.idle();
    std::thread::sleep(Duration::from_millis(100));
    app.input(vec![InputEvent::Click(PointerButton::at(x, y))]);
    let tree = app.wait_for("the main menu's Dark style item, shown", |t| {
        style(t, "Dark style")
            .is_some_and(|n| n.bounds.is_some() && !n.has_state(&State::Offscreen))
    });
    let dark_item = style(&tree, "Dark style").unwrap();
    let light_item = style(&tree, "Light style").expect("Light style shows beside Dark");
    let b = dark_item.bounds.unwrap();
    assert!(
        b.x >= window.x && b.x + b.width <= window.x + window.width,
        "Dark style reads inside the window: {b:?} in {window:?}"
    );
    assert!(
        !dark_item.has_state(&State::Checked),
        "Dark style is checked before the click"
    );
    // Its box covers the item's pixels: the dark disc fills its centre
    // and comes to within a few pixels of each side; Light's disc is white.
    let capture = app
        .driver
        .capture(&CaptureParams::default())
        .expect("a capture through screencopy");
    let (cx, cy) = centre(&dark_item);
    let (ox, oy) = (window.x, window.y);
    for (dx, dy) in [
        (0.0, 0.0),
        (-b.width / 2.0 + 4.0, 0.0),
        (b.width / 2.0 - 4.0, 0.0),
        (0.0, -b.height / 2.0 + 4.0),
        (0.0, b.height / 2.0 - 4.0),
    ] {
        let rgb = pixel(&capture.png, cx + dx - ox, cy + dy - oy);
        assert!(
            dark(rgb),
            "the Dark style disc shows at ({}, {}) of its box {b:?}: {rgb:?}",
            cx + dx,
            cy + dy
        );
    }
    for (dx, dy) in [(-b.width / 2.0 - 2.0, 0.0), (b.width / 2.0 + 2.0, 0.0)] {
        let rgb = pixel(&capture.png, cx + dx - ox, cy + dy - oy);
        assert!(
            !dark(rgb),
            "just outside Dark style's box {b:?} the disc no longer shows: {rgb:?}"
        );
    }
    let (lx, ly) = centre(&light_item);
    let rgb = pixel(&capture.png, lx - ox, ly - oy);
    assert!(
        rgb.iter().all(|&c| c > 230),
        "the Light style disc is white at its box's centre: {rgb:?}"
    );

    app.input(vec![InputEvent::PointerMove {
        x: cx,
        y: cy,
        mods: Vec::new(),
    }]);
    app.idle();
    app.input(vec![InputEvent::Click(PointerButton::at(cx, cy))]);
    app.wait_for("Dark style checked by the click", |t| {
        style(t, "Dark style").is_some_and(|n| n.has_state(&State::Checked))
    });
    // Its effect: the editor turns dark, in a capture of the window.
    app.input(vec![InputEvent::Key {
        key: "Escape".parse().unwrap(),
    }]);
    let started = Instant::now();
    loop {
        let capture = app
            .driver
            .capture(&CaptureParams::default())
            .expect("a capture");
        let rgb = pixel(&capture.png, 40.0, window.height - 40.0);
        if dark(rgb) {
            break;
        }
        assert!(
            started.elapsed() < DEADLINE,
            "the editor is not dark after Dark style: {rgb:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn kcalc_on_wayland_computes_42_from_typed_keys() {
    let app = launch(&["kcalc"]);
    let environ = app.environ();
    assert!(environ.iter().any(|v| v == "QT_QPA_PLATFORM=wayland"));
    app.wait_for("kcalc shows its keys", |t| {
        t.nodes.iter().filter(|n| n.role == Role::Button).count() > 10
    });
    app.input(vec![
        InputEvent::Text { text: "6*7".into() },
        InputEvent::Key {
            key: "Enter".parse().unwrap(),
        },
    ]);
    app.wait_for("kcalc shows 42", |t| {
        t.nodes.iter().any(|n| {
            n.role != Role::Button
                && (n.label.as_deref() == Some("42") || n.value.as_deref() == Some("42"))
        })
    });
}

/// Qt 6.4 given `AT_SPI_BUS_ADDRESS` joins the accessibility bus but never
/// serves its tree (its bridge announces itself before it listens for the
/// connection); without it, it finds the bus through the session bus. The
/// launch leaves it out, and Qt Designer 6 reads as on X11.
#[test]
fn qt6_designer_on_wayland_reads_without_the_bus_address() {
    let app = launch(&["/usr/lib/qt6/bin/designer"]);
    let environ = app.environ();
    assert!(environ.iter().any(|v| v == "QT_QPA_PLATFORM=wayland"));
    assert!(
        !environ.iter().any(|v| v.starts_with("AT_SPI_BUS_ADDRESS=")),
        "the app is not given the accessibility bus's address"
    );
    app.wait_for("Designer's New Form dialog lists its templates", |t| {
        t.nodes
            .iter()
            .any(|n| n.role == Role::Cell && n.label.as_deref() == Some("Main Window"))
    });
}
