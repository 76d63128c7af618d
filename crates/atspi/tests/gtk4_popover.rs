//! GTK 4 popovers: the elements inside an open popover have bounds where
//! the popover shows them on screen (in the window's content coordinates),
//! the hit test finds them there, and a locator's click on one is a real
//! click that takes effect. gnome-text-editor (GTK 4.8, libadwaita) on a
//! private headless desktop, its popovers checked against the X server's
//! own windows.
//!
//! GTK 4 answers positions inside a popover as if the popover's surface
//! sat on the button it belongs to; the surface is an override-redirect X
//! window somewhere else (below the button, moved to fit the screen).

use std::path::PathBuf;
use std::time::Duration;
use uidrive_atspi::{launch_app, LaunchOptions};
use uidrive_core::protocol::{Bounds, InputEvent, InputParams, Node, Role, Tree, WindowId};
use uidrive_core::{expect, App, RoleQuery, Route, TextMatch};
use uidrive_x11::{Desktop, Rect, X11};

/// A directory of its own under the system's temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let dir =
            std::env::temp_dir().join(format!("uidrive-popover-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

struct Editor {
    app: App,
    x11: X11,
    pid: u32,
    // Dropped after the app: the app's files, then its desktop.
    _home: TempDir,
    _desktop: Desktop,
}

/// gnome-text-editor on a desktop of its own, with its own (empty) state,
/// so no draft of an earlier run is restored.
fn editor() -> Editor {
    let desktop = Desktop::start().expect("a headless desktop starts");
    let home = TempDir::new();
    let mut env = desktop.env();
    for (name, dir) in [
        ("XDG_DATA_HOME", "data"),
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_CACHE_HOME", "cache"),
    ] {
        env.push((name.into(), home.0.join(dir).display().to_string()));
    }
    let argv = ["gnome-text-editor".to_string(), "--standalone".to_string()];
    let app = launch_app(
        &argv,
        &LaunchOptions {
            env,
            timeout: Duration::from_secs(60),
        },
    )
    .expect("gnome-text-editor launches");
    let x11 = desktop.x11().expect("the X display answers");
    let pid = app.pid().expect("uidrive launched the app");
    Editor {
        app,
        x11,
        pid,
        _home: home,
        _desktop: desktop,
    }
}

impl Editor {
    /// The window's content on screen, as `windows` says.
    fn content(&self, window: WindowId) -> Bounds {
        let list = self.app.windows().expect("the windows read");
        list.windows
            .iter()
            .find(|w| w.id == window)
            .map(|w| w.content_bounds)
            .expect("the window is listed")
    }

    /// The app's shown popup X windows (its open popovers).
    fn popups(&self) -> Vec<Rect> {
        self.x11
            .popups_of(self.pid)
            .expect("the X windows read")
            .into_iter()
            .map(|w| w.geometry)
            .collect()
    }

    fn escape(&self) {
        let _ = self.app.driver().input(&InputParams {
            window: None,
            events: vec![InputEvent::Key {
                key: "Escape".parse().unwrap(),
            }],
            hold: false,
        });
    }
}

fn node<'a>(tree: &'a Tree, role: Role, label: &str) -> &'a Node {
    tree.nodes
        .iter()
        .find(|n| n.role == role && n.label.as_deref() == Some(label))
        .unwrap_or_else(|| panic!("the tree has a {role} {label:?}"))
}

/// The element's box on screen: its bounds from the window content's corner.
fn on_screen(content: &Bounds, node: &Node) -> (i32, i32, i32, i32) {
    let b = node
        .bounds
        .unwrap_or_else(|| panic!("{:?} has bounds", node.label));
    (
        (content.x + b.x).round() as i32,
        (content.y + b.y).round() as i32,
        b.width.round() as i32,
        b.height.round() as i32,
    )
}

fn inside(inner: (i32, i32, i32, i32), outer: &Rect) -> bool {
    let (x, y, w, h) = inner;
    x >= outer.x
        && y >= outer.y
        && x + w <= outer.x + outer.width as i32
        && y + h <= outer.y + outer.height as i32
}

/// Opens the popover of the header bar's menu button `button`, waits for
/// `item` in it, and checks that the item's box lies inside the popover's X
/// window (and not where GTK's own answer would put it).
fn open_and_check(ed: &Editor, button: &str, role: Role, item: &str) -> (Tree, Rect) {
    let app = &ed.app;
    app.get_by_role(Role::Button, RoleQuery::name(TextMatch::exact(button)))
        .last()
        .click()
        .unwrap_or_else(|e| panic!("the {button} button is clicked: {e}"));
    expect(&app.get_by_role(role.clone(), RoleQuery::name(TextMatch::exact(item))))
        .to_be_visible()
        .unwrap_or_else(|e| panic!("{item} shows in the {button} menu: {e}"));
    let tree = app.tree(None).expect("the window reads");
    let popups = ed.popups();
    assert_eq!(popups.len(), 1, "one popover is open: {popups:?}");
    let popup = popups[0];
    let content = ed.content(tree.window);
    let found = node(&tree, role, item);
    let place = on_screen(&content, found);
    assert!(
        inside(place, &popup),
        "{item} at {place:?} on screen (bounds {:?}, content at {content:?}) is not inside \
         its popover's X window {popup:?}",
        found.bounds
    );
    // The button that opened it is where it was, outside the popover.
    let opener = tree
        .nodes
        .iter()
        .rfind(|n| n.role == Role::Button && n.label.as_deref() == Some(button))
        .expect("the menu button is in the tree");
    let opener_place = on_screen(&content, opener);
    assert!(
        !inside(opener_place, &popup),
        "the {button} button at {opener_place:?} is not inside the popover {popup:?}"
    );
    (tree, popup)
}

#[test]
fn popover_items_are_where_they_show_and_take_a_real_click() {
    let ed = editor();
    let app = &ed.app;
    expect(&app.get_by_role(Role::TextField, RoleQuery::any()).first())
        .to_be_visible()
        .expect("the editor shows");
    assert!(ed.popups().is_empty(), "no popover is open at the start");

    // The main menu: its theme selector's "Dark style" has no action of its
    // own, so only a real click at the right place chooses it.
    open_and_check(&ed, "Menu", Role::CheckBox, "Dark style");
    let dark = app.get_by_role(
        Role::CheckBox,
        RoleQuery::name(TextMatch::exact("Dark style")),
    );
    expect(&dark)
        .not()
        .to_be_checked()
        .expect("Dark style is not chosen at the start");
    let outcome = dark.click().expect("Dark style is clicked");
    assert_eq!(
        outcome.route,
        Route::Input,
        "the click on Dark style is a real click: {outcome:?}"
    );
    expect(&dark)
        .to_be_checked()
        .expect("Dark style reads checked after the click");
    ed.escape();
    app.idle(None, None).unwrap();

    // The View menu: Line Numbers, a check item; choosing it closes the
    // menu, so it is read back when the menu opens again.
    let (tree, _) = open_and_check(&ed, "View", Role::MenuItemCheckBox, "Line Numbers");
    let item = node(&tree, Role::MenuItemCheckBox, "Line Numbers");
    assert!(
        !item
            .states
            .contains(&uidrive_core::protocol::State::Checked),
        "Line Numbers is not checked at the start"
    );
    let line_numbers = app.get_by_role(
        Role::MenuItemCheckBox,
        RoleQuery::name(TextMatch::exact("Line Numbers")),
    );
    let outcome = line_numbers.click().expect("Line Numbers is clicked");
    assert_eq!(
        outcome.route,
        Route::Input,
        "the click on Line Numbers is a real click: {outcome:?}"
    );
    app.idle(None, None).unwrap();
    let (tree, _) = open_and_check(&ed, "View", Role::MenuItemCheckBox, "Line Numbers");
    let item = node(&tree, Role::MenuItemCheckBox, "Line Numbers");
    assert!(
        item.states
            .contains(&uidrive_core::protocol::State::Checked),
        "Line Numbers reads checked when the menu opens again: {:?}",
        item.states
    );
    ed.escape();
    app.close().unwrap();
}

/// The hit test agrees with the bounds: at the centre of an item of an open
/// popover it finds that item (or a part of it), not what is under the
/// popover in the window.
#[test]
fn the_hit_test_finds_popover_items_under_their_centre() {
    use uidrive_core::protocol::ElementAtParams;
    let ed = editor();
    let (tree, _) = open_and_check(&ed, "Menu", Role::MenuItem, "New Window");
    for (role, label) in [
        (Role::MenuItem, "New Window"),
        (Role::CheckBox, "Light style"),
        (Role::Button, "Zoom in"),
    ] {
        let target = node(&tree, role, label);
        let b = target.bounds.expect("the item has bounds");
        let (x, y) = (b.x + b.width / 2.0, b.y + b.height / 2.0);
        let hit = ed
            .app
            .driver()
            .element_at(&ElementAtParams {
                window: Some(tree.window),
                x,
                y,
            })
            .expect("the hit test answers")
            .unwrap_or_else(|| panic!("something is under {label}'s centre"));
        let mut at = Some(hit);
        let mut path = Vec::new();
        while let Some(id) = at {
            if id == target.id {
                break;
            }
            let n = tree.nodes.iter().find(|n| n.id == id);
            path.push(n.map(|n| format!("{} {:?}", n.role, n.label)));
            at = n.and_then(|n| n.parent);
        }
        assert_eq!(
            at,
            Some(target.id),
            "the hit at {label}'s centre ({x}, {y}) is not {label} or inside it: {path:?}"
        );
    }
    ed.escape();
    ed.app.close().unwrap();
}

#[test]
fn a_capture_is_the_content_that_bounds_count_from() {
    use uidrive_core::protocol::CaptureParams;
    let ed = editor();
    let tree = ed.app.tree(None).expect("the window reads");
    let content = ed.content(tree.window);
    let capture = ed
        .app
        .driver()
        .capture(&CaptureParams {
            window: Some(tree.window),
        })
        .expect("the window captures");
    // GTK 4's X window is bigger than its content by a frame; the capture
    // leaves the frame out, so a pixel at (x, y) is the point (x, y) of bounds.
    assert_eq!(
        (f64::from(capture.width), f64::from(capture.height)),
        (content.width, content.height),
        "the capture is the window's content"
    );
    ed.app.close().unwrap();
}
