//! gnome-calculator, gtk4-demo (GTK 4) and zenity dialogs end to end.

mod common;

use common::{enabled, find, launch, node, DEADLINE};
use std::time::Instant;
use uidrive_core::protocol::{Action, InputEvent, InputParams, PointerButton, Role, State};
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
        })
        .unwrap();
    app.wait_for("the click selected the second tab", |t| {
        node(t, tab).has_state(&State::Selected)
    });
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
