//! gnome-calculator, gtk4-demo (GTK 4) and zenity dialogs end to end.

mod common;

use common::{enabled, find, launch, node, options, DEADLINE};
use std::time::Instant;
use uidrive_atspi::AtspiDriver;
use uidrive_core::protocol::{
    Action, InputEvent, InputParams, PointerButton, Role, State, Tree, TreeParams,
};
use uidrive_core::Driver;

#[test]
fn gnome_calculator_computes_7_times_6() {
    let app = launch(&["gnome-calculator"]);
    let tree = app.tree();
    for label in ["7", "×", "6", "="] {
        let button = find(&tree, Role::Button, label, enabled).id;
        app.act(button, Action::Press).unwrap();
        app.idle();
    }
    app.wait_for("the display shows 42", |t| {
        t.nodes
            .iter()
            .any(|n| n.role == Role::TextField && n.value.as_deref().map(str::trim) == Some("42"))
    });
}

#[test]
fn gtk4_demo_tree_and_a_delayed_action() {
    let app = launch(&["gtk4-demo"]);
    let tree = app.tree();
    assert!(tree.nodes.len() > 300, "only {} nodes", tree.nodes.len());
    assert!(tree
        .nodes
        .iter()
        .any(|n| n.role == Role::List && n.label.as_deref() == Some("Demo list")));
    // GTK 4 gives no SHOWING state: shown elements must not read as offscreen.
    let search = find(&tree, Role::Button, "Search", enabled);
    assert!(!search.has_state(&State::Offscreen));
    let entry = tree
        .nodes
        .iter()
        .find(|n| n.role == Role::TextField && n.actions.contains(&Action::SetValue))
        .expect("the search entry");
    assert!(
        entry.has_state(&State::Offscreen),
        "the search bar starts hidden"
    );
    let entry = entry.id;
    // GTK 4 applies DoAction ~250 ms after it returns: one idle must cover that.
    app.act(search.id, Action::Press).unwrap();
    app.idle();
    let after = app.tree();
    let shown = node(&after, entry);
    assert!(
        shown.bounds.is_some() && !shown.has_state(&State::Offscreen),
        "idle answered before the press took effect: {shown:?}"
    );
    app.act_text(entry, Action::SetValue, "Benchmark").unwrap();
    app.wait_for("the search entry holds the text", |t| {
        node(t, entry).value.as_deref() == Some("Benchmark")
    });
    // A real click at a tab's bounds (GTK 4 reports them relative to the window) selects it.
    let tabs: Vec<_> = after.nodes.iter().filter(|n| n.role == Role::Tab).collect();
    assert!(tabs.len() >= 2 && tabs[0].has_state(&State::Selected));
    let (tab, (x, y)) = (
        tabs[1].id,
        tabs[1].bounds.expect("the second tab has bounds").center(),
    );
    app.driver
        .input(&InputParams {
            window: None,
            events: vec![InputEvent::Click(PointerButton::at(x, y))],
            hold: false,
        })
        .unwrap();
    app.wait_for("the click selected the second tab", |t| {
        node(t, tab).has_state(&State::Selected)
    });
}

/// A GTK 4 window that announces no change is read from the cache answer
/// kept from the read before, and reads as a fresh read does; once the app
/// announced a change, a driver whose kept answer was asked before it reads
/// the change at its next read.
#[test]
fn gtk4_reads_take_the_kept_cache_while_quiet_and_see_every_announced_change() {
    let app = launch(&["gtk4-demo"]);
    let read = |driver: &AtspiDriver| driver.tree(&TreeParams::default()).unwrap();
    let kept = app.read_until_kept();

    // A second driver expands the demo list's Benchmark row with a real
    // click on its expander, and reads until the row shows it.
    let expanded =
        |tree: &Tree| find(tree, Role::Group, "Benchmark", |_| true).has_state(&State::Expanded);
    let was = expanded(&kept);
    let group = find(&kept, Role::Group, "Benchmark", |_| true).id;
    let expander = find(&kept, Role::Button, "Expand", |n| n.parent == Some(group));
    let other = AtspiDriver::attach_pid(app.child.id(), &options(&app.desktop)).unwrap();
    let (x, y) = expander.bounds.expect("the expander has bounds").center();
    other
        .input(&InputParams {
            window: None,
            events: vec![InputEvent::Click(PointerButton::at(x, y))],
            hold: false,
        })
        .unwrap();
    let started = Instant::now();
    while expanded(&read(&other)) == was {
        assert!(
            started.elapsed() < DEADLINE,
            "the click did not toggle the row"
        );
    }
    // The first driver's kept answer predates the click; the app's events
    // since drop it.
    app.next_read_shows("the click", |t| expanded(t) != was);
}

/// GTK 4 sets no SHOWING, so uidrive skips `GetExtents` for an element
/// inside one whose box came back empty (a list's rows out of view, a hidden
/// page) and leaves its actions for later. Each element's box in the tree
/// must still be what the app answers when every element is asked.
fn boxes_match_the_apps_answers(argv: &[&str]) {
    let app = launch(argv);
    app.idle();
    let tree = app.tree();
    let answered = boxes_as_answered(&app);
    let parents: std::collections::HashMap<_, _> =
        tree.nodes.iter().map(|n| (n.id, n.parent)).collect();
    // Inside an element the app answers an empty box for.
    let inside_empty = |mut at: Option<uidrive_core::protocol::ElementId>| {
        while let Some(id) = at {
            if answered.get(&id) == Some(&false) {
                return true;
            }
            at = parents[&id];
        }
        false
    };
    let (mut compared, mut skipped) = (0, 0);
    for node in &tree.nodes {
        let Some(&has_box) = answered.get(&node.id) else {
            continue;
        };
        compared += 1;
        assert_eq!(
            node.bounds.is_some(),
            has_box,
            "{}: the app answers {} for {node:?}",
            argv[0],
            if has_box { "a box" } else { "no box" }
        );
        if inside_empty(node.parent) {
            skipped += 1;
            assert!(node.has_state(&State::Offscreen), "{node:?}");
        }
    }
    assert!(
        compared * 10 >= tree.nodes.len() * 9,
        "{}: only {compared} of {} elements were found by walking the app",
        argv[0],
        tree.nodes.len()
    );
    assert!(
        skipped > 0,
        "{}: no element sits inside an empty box",
        argv[0]
    );
}

#[test]
fn gtk4_demo_boxes_match_the_apps_answers() {
    // Its demo list keeps about a hundred rows out of view, each a subtree.
    boxes_match_the_apps_answers(&["gtk4-demo"]);
}

#[test]
fn gnome_text_editor_boxes_match_the_apps_answers() {
    // Its documents sit in stack pages, which have no box of their own.
    boxes_match_the_apps_answers(&["gnome-text-editor"]);
}

/// Whether each element `GetChildren` reaches from the app's root has a box,
/// as its `GetExtents` answers, asked of every element one by one.
fn boxes_as_answered(
    app: &common::Running,
) -> std::collections::HashMap<uidrive_core::protocol::ElementId, bool> {
    use zbus::zvariant::OwnedObjectPath;
    let session = app
        .desktop
        .env()
        .into_iter()
        .find(|(name, _)| name == "DBUS_SESSION_BUS_ADDRESS")
        .expect("the desktop has a session bus")
        .1;
    let pid = app.child.id();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    runtime.block_on(async {
        let session = zbus::connection::Builder::address(session.as_str())
            .unwrap()
            .build()
            .await
            .expect("the session bus");
        let a11y: String = session
            .call_method(
                Some("org.a11y.Bus"),
                "/org/a11y/bus",
                Some("org.a11y.Bus"),
                "GetAddress",
                &(),
            )
            .await
            .expect("the accessibility bus address")
            .body()
            .deserialize()
            .unwrap();
        let bus = zbus::connection::Builder::address(a11y.as_str())
            .unwrap()
            .build()
            .await
            .expect("the accessibility bus");
        let children = |dest: String, path: OwnedObjectPath| {
            let bus = bus.clone();
            async move {
                bus.call_method(
                    Some(dest.as_str()),
                    path.as_str(),
                    Some("org.a11y.atspi.Accessible"),
                    "GetChildren",
                    &(),
                )
                .await
                .ok()
                .and_then(|m| {
                    m.body()
                        .deserialize::<Vec<(String, OwnedObjectPath)>>()
                        .ok()
                })
                .unwrap_or_default()
            }
        };
        let mut root = None;
        let registry = OwnedObjectPath::try_from("/org/a11y/atspi/accessible/root").unwrap();
        for (dest, path) in children("org.a11y.atspi.Registry".into(), registry).await {
            let owner: u32 = bus
                .call_method(
                    Some("org.freedesktop.DBus"),
                    "/org/freedesktop/DBus",
                    Some("org.freedesktop.DBus"),
                    "GetConnectionUnixProcessID",
                    &(dest.as_str(),),
                )
                .await
                .expect("the app's process")
                .body()
                .deserialize()
                .unwrap();
            if owner == pid {
                root = Some((dest, path));
            }
        }
        let mut todo = vec![root.expect("the app is on the registry")];
        let mut answered = std::collections::HashMap::new();
        while let Some((dest, path)) = todo.pop() {
            let extents = bus
                .call_method(
                    Some(dest.as_str()),
                    path.as_str(),
                    Some("org.a11y.atspi.Component"),
                    "GetExtents",
                    &(1u32,),
                )
                .await
                .ok()
                .and_then(|m| m.body().deserialize::<(i32, i32, i32, i32)>().ok());
            let has_box = extents.is_some_and(|(_, _, width, height)| width > 0 && height > 0);
            answered.insert(uidrive_atspi::element_id(&dest, path.as_str()), has_box);
            todo.extend(
                children(dest, path)
                    .await
                    .into_iter()
                    .filter(|(_, p)| p.as_str() != "/org/a11y/atspi/null"),
            );
        }
        answered
    })
}

fn zenity_button_ends_the_dialog(argv: &[&str], button: &str, want_code: i32) {
    let mut app = launch(argv);
    let tree = app.tree();
    let id = find(&tree, Role::Button, button, enabled).id;
    app.act(id, Action::Press).unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = app.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < DEADLINE,
            "zenity still runs after pressing {button}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(want_code));
}

#[test]
fn zenity_question_answers_yes() {
    zenity_button_ends_the_dialog(&["zenity", "--question", "--text", "Proceed?"], "Yes", 0);
}

#[test]
fn zenity_info_closes_with_ok() {
    zenity_button_ends_the_dialog(&["zenity", "--info", "--text", "Done."], "OK", 0);
}

#[test]
fn launch_app_gives_an_app_that_owns_the_process() {
    let desktop = uidrive_x11::Desktop::start().expect("a headless desktop starts");
    let argv: Vec<String> = ["zenity", "--info", "--text", "Done."]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let app =
        uidrive_atspi::launch_app(&argv, &common::options(&desktop)).expect("zenity launches");
    let pid = app.pid().expect("the app knows its process");
    let tree = app.tree(None).unwrap();
    assert!(tree
        .nodes
        .iter()
        .any(|n| n.role == Role::Button && n.label.as_deref() == Some("OK")));
    app.close().unwrap();
    // close() kills and reaps the process, so it is gone from /proc.
    assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());
}
