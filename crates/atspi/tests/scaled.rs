//! Apps that scale themselves: bounds, real clicks and captures agree in the
//! X server's pixels (Qt at `QT_SCALE_FACTOR=1.5`, GTK 3 and GTK 4 at
//! `GDK_SCALE=2`).

mod common;

use common::{find, options, Running, DEADLINE};
use std::time::Instant;
use uidrive_atspi::AtspiDriver;
use uidrive_core::protocol::{
    Bounds, Capture, CaptureParams, ElementAtParams, InputEvent, InputParams, Node, PointerButton,
    Role, State, Tree,
};
use uidrive_core::Driver;
use uidrive_x11::Desktop;

fn launch_with(argv: &[&str], var: (&str, &str)) -> Running {
    let desktop = Desktop::start().expect("a headless desktop starts");
    let mut opts = options(&desktop);
    opts.env.push((var.0.to_string(), var.1.to_string()));
    let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
    let (driver, child) = AtspiDriver::launch(&argv, &opts)
        .unwrap_or_else(|e| panic!("{} launches: {e} ({})", argv[0], e.suggestion));
    Running {
        driver,
        child,
        desktop,
    }
}

fn click_centre(app: &Running, node: &Node) {
    let b = node.bounds.as_ref().expect("the element has bounds");
    let (x, y) = (b.x + b.width / 2.0, b.y + b.height / 2.0);
    app.driver
        .input(&InputParams {
            window: None,
            events: vec![InputEvent::Click(PointerButton::at(x, y))],
            hold: false,
        })
        .expect("the click is sent");
}

fn capture(app: &Running) -> Capture {
    app.driver
        .capture(&CaptureParams { window: None })
        .expect("the window captures")
}

/// The capture's RGBA pixels.
fn pixels(capture: &Capture) -> Vec<u8> {
    let decoder = png::Decoder::new(capture.png.as_slice());
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("a frame");
    buf.truncate(info.buffer_size());
    let channels = info.color_type.samples();
    buf.chunks(channels)
        .flat_map(|p| [p[0], p[1], p[2], 255])
        .collect()
}

/// How many pixels inside `area` differ between two captures of one size.
fn changed_inside(before: &Capture, after: &Capture, area: &Bounds) -> usize {
    assert_eq!((before.width, before.height), (after.width, after.height));
    let (a, b) = (pixels(before), pixels(after));
    let width = before.width as usize;
    let (x0, y0) = (area.x.max(0.0) as usize, area.y.max(0.0) as usize);
    let x1 = ((area.x + area.width) as usize).min(width);
    let y1 = ((area.y + area.height) as usize).min(before.height as usize);
    (y0..y1)
        .flat_map(|y| (x0..x1).map(move |x| (y * width + x) * 4))
        .filter(|&at| a[at..at + 4] != b[at..at + 4])
        .count()
}

/// Whether the bounds lie inside the capture.
fn inside(capture: &Capture, b: &Bounds) -> bool {
    b.x >= 0.0
        && b.y >= 0.0
        && b.x + b.width <= f64::from(capture.width)
        && b.y + b.height <= f64::from(capture.height)
}

/// FeatherPad (Qt 5) at 1.5: its window answers 700×500 on AT-SPI and is
/// 1050×750 on the X server. A real click at the centre of a check box's
/// bounds checks it, and the capture changes inside those bounds.
#[test]
fn qt_at_scale_1_5_clicks_land_and_captures_show_the_element() {
    let app = launch_with(&["featherpad"], ("QT_SCALE_FACTOR", "1.5"));
    let label = "Whole Word (F6)";
    let tree = app.wait_for("the search bar shows", |t| {
        t.nodes
            .iter()
            .any(|n| n.role == Role::CheckBox && n.label.as_deref() == Some(label))
    });
    let check = find(&tree, Role::CheckBox, label, |_| true).clone();
    assert!(!check.has_state(&State::Checked));
    let before = capture(&app);
    let bounds = check.bounds.expect("the check box has bounds");
    assert!(inside(&before, &bounds), "{bounds:?} inside the capture");
    let window = app.driver.windows().unwrap().windows[0].content_bounds;
    assert_eq!(
        (f64::from(before.width), f64::from(before.height)),
        (window.width, window.height),
        "the capture is the X window's content"
    );
    click_centre(&app, &check);
    app.wait_for("the check box reads checked after the click", |t| {
        common::node(t, check.id).has_state(&State::Checked)
    });
    app.idle();
    let after = capture(&app);
    assert!(
        changed_inside(&before, &after, &bounds) > 0,
        "the capture changed inside the check box's bounds"
    );
}

/// zenity (GTK 3) at GDK_SCALE=2: a real click at the centre of the OK
/// button's bounds answers the dialog (zenity exits 0, which nothing else
/// in the dialog does), and the button lies inside the capture.
#[test]
fn gtk3_at_scale_2_a_click_lands_on_the_button() {
    let mut app = launch_with(
        &["zenity", "--entry", "--text", "Name?"],
        ("GDK_SCALE", "2"),
    );
    let tree = app.tree();
    let ok = find(&tree, Role::Button, "OK", |_| true).clone();
    let shot = capture(&app);
    let bounds = ok.bounds.expect("OK has bounds");
    assert!(inside(&shot, &bounds), "{bounds:?} inside the capture");
    // Twice the size AT-SPI answers, as the X server shows it.
    assert!(bounds.width > 100.0, "{bounds:?} in device pixels");
    click_centre(&app, &ok);
    let started = Instant::now();
    let status = loop {
        if let Some(status) = app.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < DEADLINE,
            "zenity still runs after a click on OK"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(status.success(), "zenity answered OK: {status}");
}

/// A GTK 4 window with a header bar at GDK_SCALE=2 and at 1. Its X window is
/// its content (350×230 on AT-SPI) times the scale plus a resize border of
/// 5 app pixels all round, so the two sizes' ratio differs on each axis. At
/// both scales, for the window's check box and then for the one in a
/// popover (a surface of its own): the bounds lie where the capture shows
/// it (it changes there when checked), a hit test at their centre answers
/// it, and a real click there checks it, which the app's own label says.
#[test]
fn gtk4_at_scale_2_and_1_bounds_hit_tests_clicks_and_captures_agree() {
    for scale in [2.0, 1.0] {
        let script = format!(
            "{}/../../tests/apps/gtk4_check.py",
            env!("CARGO_MANIFEST_DIR")
        );
        let app = launch_with(
            &["/usr/bin/python3", &script],
            ("GDK_SCALE", &scale.to_string()),
        );
        let tree = app.wait_for("the check box shows", |t| {
            t.nodes.iter().any(|n| n.role == Role::CheckBox)
        });
        let check = find(&tree, Role::CheckBox, "Remember me", |_| true).clone();
        // AT-SPI answers 282×16 at any scale: the bounds are in device pixels.
        let bounds = check.bounds.expect("the check box has bounds");
        assert_eq!((bounds.width, bounds.height), (282.0 * scale, 16.0 * scale));
        let window = app.driver.windows().unwrap().windows[0].content_bounds;
        let shot = capture(&app);
        assert_eq!(
            (f64::from(shot.width), f64::from(shot.height)),
            (window.width, window.height),
            "the capture is the window's content"
        );
        check_by_a_real_click(&app, &tree, &check, "on", scale);
        let options = find(&tree, Role::Button, "Options", |_| true).clone();
        click_centre(&app, &options);
        app.wait_for("the popover's check box shows", |t| {
            t.nodes
                .iter()
                .any(|n| n.role == Role::CheckBox && n.label.as_deref() == Some("Extra"))
        });
        app.idle();
        let tree = app.tree();
        let extra = find(&tree, Role::CheckBox, "Extra", |_| true).clone();
        check_by_a_real_click(&app, &tree, &extra, "extra on", scale);
    }
}

/// Checks the unchecked `check` of `tree` by a real click at its centre,
/// after a hit test there answers it, until the app's label reads `says`;
/// the capture changes at its indicator (the first square of its bounds).
fn check_by_a_real_click(app: &Running, tree: &Tree, check: &Node, says: &str, scale: f64) {
    assert!(!check.has_state(&State::Checked));
    let bounds = check.bounds.expect("the check box has bounds");
    let before = capture(app);
    assert!(inside(&before, &bounds), "{bounds:?} inside the capture");
    let (x, y) = (
        bounds.x + bounds.width / 2.0,
        bounds.y + bounds.height / 2.0,
    );
    let hit = app
        .driver
        .element_at(&ElementAtParams { window: None, x, y })
        .expect("the hit test answers")
        .expect("an element at the check box's centre");
    let mut at = Some(hit);
    while at.is_some_and(|id| id != check.id) {
        at = tree.node(at.unwrap()).and_then(|n| n.parent);
    }
    assert_eq!(
        at,
        Some(check.id),
        "at {scale}: the hit is {check:?} or inside it"
    );
    click_centre(app, check);
    app.wait_for("the app's label reads the click", |t| {
        t.node(check.id)
            .is_some_and(|n| n.has_state(&State::Checked))
            && t.nodes.iter().any(|n| n.text() == Some(says))
    });
    app.idle();
    let after = capture(app);
    let indicator = Bounds::new(bounds.x, bounds.y, bounds.height, bounds.height);
    assert!(
        changed_inside(&before, &after, &indicator) > 0,
        "at {scale}: the capture changed at the check box's indicator {indicator:?}"
    );
}
