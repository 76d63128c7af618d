//! gtk3-widget-factory (GTK 3) end to end: tree, actions, menu, input, capture.

mod common;

use common::{enabled, find, launch, node, options, shown};
use std::collections::HashSet;
use uidrive_atspi::AtspiDriver;
use uidrive_core::protocol::TreeParams;
use uidrive_core::protocol::{
    Action, CaptureParams, IdleParams, InputEvent, InputParams, MenuParams, PointerButton, Role,
    State,
};
use uidrive_core::{Driver, ErrorCode};

#[test]
fn gtk3_widget_factory_end_to_end() {
    let app = launch(&["gtk3-widget-factory"]);
    let tree = app.tree();

    // The tree: complete, ids unique, parents before children, real fields.
    assert!(tree.nodes.len() > 200, "only {} nodes", tree.nodes.len());
    let mut seen = HashSet::new();
    for n in &tree.nodes {
        if let Some(parent) = n.parent {
            assert!(seen.contains(&parent), "{} comes before its parent", n.id);
        }
        assert!(seen.insert(n.id), "id {} twice", n.id);
    }
    let windows = app.driver.windows().unwrap();
    let main = windows
        .windows
        .iter()
        .find(|w| w.id == tree.window)
        .expect("the tree's window is listed");
    assert!(!main.title.is_empty(), "the window has a title");
    assert!(main.visible);
    let check = find(&tree, Role::CheckBox, "checkbutton", |n| {
        enabled(n) && !n.has_state(&State::Checked) && !n.has_state(&State::Mixed)
    });
    let bounds = check.bounds.expect("a shown check box has bounds");
    assert!(
        bounds.x >= 0.0 && bounds.y >= 0.0 && bounds.x + bounds.width <= main.content_bounds.width
    );
    assert!(check.actions.contains(&Action::Press) && check.actions.contains(&Action::Focus));

    // Press a toggle button; its state reads back.
    let toggle = find(&tree, Role::ToggleButton, "togglebutton", |n| {
        enabled(n) && !n.has_state(&State::Checked)
    })
    .id;
    // One idle is enough: the tree right after it shows the press.
    app.act(toggle, Action::Press).unwrap();
    app.idle();
    assert!(
        node(&app.tree(), toggle).has_state(&State::Checked),
        "idle answered before the press landed"
    );

    // Toggle a check box on and off.
    let check = check.id;
    app.act(check, Action::Press).unwrap();
    app.wait_for("the check box is checked", |t| {
        node(t, check).has_state(&State::Checked)
    });
    app.act(check, Action::Press).unwrap();
    app.wait_for("the check box is unchecked", |t| {
        !node(t, check).has_state(&State::Checked)
    });

    // Set an entry's text and read it back.
    let tree = app.tree();
    let entry = tree
        .nodes
        .iter()
        .find(|n| {
            n.role == Role::TextField
                && n.value.as_deref() == Some("entry")
                && enabled(n)
                && shown(n)
        })
        .expect("the enabled entry")
        .id;
    app.act_text(entry, Action::SetValue, "uidrive ✓").unwrap();
    app.wait_for("the entry holds the new text", |t| {
        node(t, entry).value.as_deref() == Some("uidrive ✓")
    });

    // Move a slider and step a spin button.
    let slider = tree
        .nodes
        .iter()
        .find(|n| n.role == Role::Slider && enabled(n) && shown(n) && n.max == Some(100.0))
        .expect("an enabled slider")
        .id;
    app.act_text(slider, Action::SetValue, "75").unwrap();
    app.wait_for("the slider is at 75", |t| node(t, slider).now == Some(75.0));
    let spin = tree
        .nodes
        .iter()
        .find(|n| n.role == Role::Stepper && enabled(n) && n.now.is_some())
        .expect("an enabled spin button");
    let (min, max) = (spin.min.unwrap(), spin.max.unwrap());
    let (spin, before) = (spin.id, spin.now.unwrap());
    app.act(spin, Action::Increment).unwrap();
    app.wait_for("the spin button stepped up", |t| {
        node(t, spin).now == Some(before + 1.0)
    });
    // Setting a spin button's value moves both its number and its text.
    let target = ((min + max) / 2.0).round();
    let target = if target == before + 1.0 {
        target + 1.0
    } else {
        target
    };
    app.act_text(spin, Action::SetValue, &target.to_string())
        .unwrap();
    app.wait_for("the spin button is at the value set", |t| {
        let n = node(t, spin);
        n.now == Some(target)
            && n.value
                .as_deref()
                .and_then(|v| v.trim().parse::<f64>().ok())
                == Some(target)
    });
    let err = app.act_text(slider, Action::SetValue, "1000").unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest, "{err}");
    let label = find(&tree, Role::Text, "label", enabled).id;
    let err = app.act(label, Action::Press).unwrap_err();
    assert_eq!(err.code, ErrorCode::Unsupported, "{err}");
    assert!(err.message.contains("no press action"), "{err}");

    // Choose a menu item: the window has no menu bar, so the path starts at the combo box.
    let combo = find(&tree, Role::ComboBox, "Left", |_| true).id;
    app.driver
        .menu(&MenuParams {
            window: None,
            path: vec!["Left".into(), "Right".into()],
        })
        .unwrap();
    app.wait_for("the combo box shows the chosen item", |t| {
        node(t, combo).label.as_deref() == Some("Right")
    });
    let err = app
        .driver
        .menu(&MenuParams {
            window: None,
            path: vec!["Nope".into(), "Never".into()],
        })
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NoElement);
    assert!(err.message.contains("`Nope`"), "{err}");

    // Type into the entry with real key events, non-ASCII included.
    app.act_text(entry, Action::SetValue, "").unwrap();
    // An empty field shows no text: it has no value.
    let tree = app.wait_for("the entry is empty", |t| node(t, entry).value.is_none());
    let (x, y) = node(&tree, entry)
        .bounds
        .expect("the entry has bounds")
        .center();
    let typed = "héllo wörld ✓ Ωμέγα";
    app.driver
        .input(&InputParams {
            window: None,
            events: vec![
                InputEvent::Click(PointerButton::at(x, y)),
                InputEvent::Text { text: typed.into() },
            ],
            hold: false,
        })
        .unwrap();
    app.wait_for("the typed text is in the entry", |t| {
        node(t, entry).value.as_deref() == Some(typed)
    });

    // Capture the window as a PNG and decode it.
    let capture = app.driver.capture(&CaptureParams::default()).unwrap();
    let decoder = png::Decoder::new(capture.png.as_slice());
    let mut reader = decoder.read_info().expect("a PNG header");
    let mut pixels = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut pixels).expect("PNG pixels");
    assert_eq!((frame.width, frame.height), (capture.width, capture.height));
    // The window fits the desktop's screen: the capture is all of it.
    assert_eq!(f64::from(capture.width), main.content_bounds.width);
    assert_eq!(f64::from(capture.height), main.content_bounds.height);
    assert!(!capture.clipped, "the whole window is in the picture");
    assert!(
        pixels.iter().any(|&b| b != pixels[0]),
        "the capture is not one flat colour"
    );
}

/// GTK's bridge keeps every peer connection it has accepted for the rest of
/// the app's life and looks at each on every turn of its main loop
/// (docs/apps.md), so the drivers of one process share theirs: a driver per
/// test against one running app must not leave it slower after each test.
#[test]
fn drivers_of_one_process_share_their_connections_to_the_app() {
    let app = launch(&["gtk3-widget-factory"]);
    app.tree();
    let pid = app.driver.pid();
    let sockets = || {
        std::fs::read_dir(format!("/proc/{pid}/fd"))
            .expect("the app's file descriptors can be listed")
            .filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
            .filter(|target| target.to_string_lossy().starts_with("socket:"))
            .count()
    };
    let with_one_driver = sockets();
    for _ in 0..3 {
        let other = AtspiDriver::attach_pid(pid, &common::options(&app.desktop))
            .expect("a second driver attaches");
        other
            .tree(&TreeParams::default())
            .expect("the second driver reads the window");
        assert_eq!(
            sockets(),
            with_one_driver,
            "the second driver opened connections of its own to the app"
        );
    }
}

/// The calls of every driver with direct connections run on the one thread
/// that reads those connections (`peer_pool::runtime`): drivers used from
/// several threads at once must each get their answers, none waiting on
/// another's call.
#[test]
fn drivers_of_one_process_answer_from_several_threads_at_once() {
    let app = launch(&["gtk3-widget-factory"]);
    let pid = app.driver.pid();
    let others: Vec<AtspiDriver> = (0..2)
        .map(|_| {
            AtspiDriver::attach_pid(pid, &common::options(&app.desktop))
                .expect("another driver attaches")
        })
        .collect();
    let drivers: Vec<&AtspiDriver> = std::iter::once(&app.driver).chain(&others).collect();
    std::thread::scope(|scope| {
        let readers: Vec<_> = drivers
            .iter()
            .map(|driver| {
                scope.spawn(move || {
                    (0..5)
                        .map(|_| {
                            driver
                                .idle(&IdleParams::default())
                                .expect("idle answers beside the other threads");
                            let tree = driver
                                .tree(&TreeParams::default())
                                .expect("the window is read beside the other threads");
                            tree.nodes.len()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for reader in readers {
            let counts = reader.join().expect("a reading thread did not panic");
            assert!(
                counts.iter().all(|&n| n > 200),
                "a read came back short of the window: {counts:?} nodes"
            );
        }
    });
}

/// GTK 3's bridge sends the events a client registered for: once it knows
/// this driver listens, a quiet window is read from the cache answer kept
/// from the read before, and a change another driver makes shows at the
/// first driver's next read.
#[test]
fn gtk3_reads_take_the_kept_cache_while_quiet_and_see_another_drivers_press() {
    let app = launch(&["gtk3-widget-factory"]);
    let kept = app.read_until_kept();
    let checked = |tree: &uidrive_core::protocol::Tree| {
        find(tree, Role::ToggleButton, "togglebutton", enabled).has_state(&State::Checked)
    };
    let was = checked(&kept);
    let toggle = find(&kept, Role::ToggleButton, "togglebutton", enabled).id;
    let other = AtspiDriver::attach_pid(app.child.id(), &options(&app.desktop)).unwrap();
    other.tree(&TreeParams::default()).unwrap();
    other
        .act(&uidrive_core::protocol::ActParams::on(
            toggle,
            Action::Press,
        ))
        .unwrap();
    assert_ne!(
        checked(&other.tree(&TreeParams::default()).unwrap()),
        was,
        "the press toggled the button"
    );
    app.next_read_shows("the press", |t| checked(t) != was);
}
