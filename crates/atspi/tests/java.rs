//! A Swing app (tests/apps/SwingForm.java), launched with nothing but
//! `java`: launching turns Java's ATK bridge on, and its combo box, list,
//! text field and modal dialog read and act as a person would use them.
//! The app's own label says what it got, as a witness.

mod common;

use common::{options, DEADLINE};
use std::process::Command;
use std::time::{Duration, Instant};
use uidrive_core::protocol::{CaptureParams, InputEvent, Role, Tree, TreeParams};
use uidrive_core::{App, Driver};
use uidrive_x11::Desktop;

fn launch(desktop: &Desktop) -> App {
    let classes = common::java::compile_swing_form();
    let argv: Vec<String> = ["java", "-cp", classes.to_str().unwrap(), "SwingForm"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    uidrive_atspi::launch_app(&argv, &options(desktop)).expect("the Swing app launches with a tree")
}

fn tree(app: &App, window: Option<u64>) -> Tree {
    app.driver()
        .tree(&TreeParams { window })
        .expect("the window reads")
}

/// Waits until a text element of the main window reads `text`.
fn reads(app: &App, text: &str) {
    let started = Instant::now();
    loop {
        let tree = tree(app, None);
        if tree.nodes.iter().any(|n| n.text() == Some(text)) {
            return;
        }
        assert!(started.elapsed() < DEADLINE, "the app never read {text:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn dialog(app: &App) -> u64 {
    let started = Instant::now();
    loop {
        let windows = app.driver().windows().unwrap().windows;
        if let Some(w) = windows.iter().find(|w| w.title == "Question") {
            return w.id;
        }
        assert!(started.elapsed() < DEADLINE, "no dialog among {windows:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_swing_form_reads_and_acts_with_the_bridge_launching_turned_on() {
    let desktop = Desktop::start().expect("a headless desktop starts");
    let app = launch(&desktop);
    let form = tree(&app, None);
    // A JList's items are its items, not plain text.
    let list = form
        .nodes
        .iter()
        .find(|n| n.role == Role::List && n.label.as_deref() == Some("Fruit"))
        .expect("the Fruit list")
        .id;
    let fruit: Vec<&str> = form
        .nodes
        .iter()
        .filter(|n| n.role == Role::ListItem && n.parent == Some(list))
        .filter_map(|n| n.label.as_deref())
        .collect();
    assert_eq!(fruit, ["Apple", "Banana", "Cherry", "Damson"]);
    // Openbox frames the window with a title bar: `bounds` is the whole
    // window, `contentBounds` the app's window inside it, where elements'
    // bounds, clicks, the hit test and captures count from.
    let listed = app.driver().windows().unwrap().windows;
    let main = listed.iter().find(|w| w.title == "Swing form").unwrap();
    let (outer, content) = (main.bounds, main.content_bounds);
    assert!(
        outer.x < content.x
            && outer.y + 10.0 < content.y
            && outer.x + outer.width > content.x + content.width
            && outer.y + outer.height > content.y + content.height,
        "a frame with a title bar round the content: {main:?}"
    );
    let shot = app
        .driver()
        .capture(&CaptureParams {
            window: Some(main.id),
        })
        .unwrap();
    assert_eq!(
        (f64::from(shot.width), f64::from(shot.height)),
        (content.width, content.height),
        "the capture is the content"
    );
    let combo_node = form
        .nodes
        .iter()
        .find(|n| n.role == Role::ComboBox)
        .expect("the combo box");
    // Under the menu bar (21 pixels), at the content's left edge: where
    // Swing lays it out, counted from the content, not from the title bar.
    let combo_box = combo_node.bounds.expect("the combo box has a box");
    assert_eq!(
        (combo_box.x, combo_box.y),
        (0.0, 21.0),
        "the combo box's place in the content: {combo_node:?}"
    );
    // The combo box ends on the option chosen (the app's label says so).
    let combo = app.get_by_role(Role::ComboBox, uidrive_core::RoleQuery::any());
    combo.select_option("Blue").expect("Blue is chosen");
    reads(&app, "colour Blue");
    let list = app.get_by_role(Role::List, "Fruit");
    list.select_option("Cherry").expect("Cherry is chosen");
    reads(&app, "fruit Cherry");
    // Real keys reach a Swing field (its frame is offered the focus).
    app.get_by_role(Role::TextField, "Name")
        .press_sequentially("Ada", None)
        .expect("real keys type into the field");
    // The modal dialog: answered by a real Enter, then by its Cancel action.
    let ask = app.get_by_role(Role::Button, "Ask");
    ask.activate().expect("Ask presses while its dialog runs");
    let question = dialog(&app);
    app.input(
        Some(question),
        vec![InputEvent::Key {
            key: "Enter".parse().unwrap(),
        }],
    )
    .unwrap();
    reads(&app, "answered OK");
    ask.activate().expect("Ask presses again");
    let question = dialog(&app);
    app.window(question)
        .get_by_role(Role::Button, "Cancel")
        .activate()
        .expect("Cancel presses");
    reads(&app, "answered Cancel");
    app.check_alive().expect("the app still runs");
    app.close().unwrap();
}

/// The JVM's heap in use, in kB, after it collected its garbage (the
/// bridge frees what it made for an element only when the element's Java
/// object is collected). The heap, not the process's resident memory:
/// the JVM keeps pages it grew into after a collection, in steps of
/// megabytes, which made the resident figure vary by more than the reads.
fn collected_heap(pid: u32) -> i64 {
    let jcmd = |command: &str| {
        let done = Command::new("jcmd")
            .args([&pid.to_string(), command])
            .output()
            .expect("jcmd runs (Debian: default-jdk-headless)");
        assert!(
            done.status.success(),
            "{}",
            String::from_utf8_lossy(&done.stderr)
        );
        String::from_utf8_lossy(&done.stdout).into_owned()
    };
    jcmd("GC.run");
    let info = jcmd("GC.heap_info");
    // "garbage-first heap   total 65536K, used 12345K [...]"
    let used = info
        .split("used ")
        .nth(1)
        .and_then(|rest| rest.split('K').next())
        .and_then(|n| n.trim().parse().ok());
    used.unwrap_or_else(|| panic!("no heap in use in jcmd's answer: {info}"))
}

#[test]
fn reading_a_java_app_again_and_again_grows_it_no_more_than_pyatspi_walks() {
    let desktop = Desktop::start().expect("a headless desktop starts");
    let app = launch(&desktop);
    let pid = app.pid().expect("launched");
    let walk = || {
        let script = format!(
            "{}/../../scripts/compat/atspi_walk.py",
            env!("CARGO_MANIFEST_DIR")
        );
        let done = Command::new("timeout")
            .args(["30", "/usr/bin/python3", &script, &pid.to_string()])
            .envs(desktop.env())
            .output()
            .expect("pyatspi's walk runs");
        assert!(
            done.status.success(),
            "{}",
            String::from_utf8_lossy(&done.stderr)
        );
    };
    // Both warm up first: the bridge's own tables, the JVM's.
    for _ in 0..5 {
        tree(&app, None);
        walk();
    }
    let before = collected_heap(pid);
    for _ in 0..20 {
        tree(&app, None);
    }
    let ours = collected_heap(pid) - before;
    for _ in 0..20 {
        walk();
    }
    let theirs = collected_heap(pid) - before - ours;
    eprintln!("20 reads: uidrive +{ours} kB, pyatspi +{theirs} kB");
    // Before, 20 to 60 reads grew the app by 22-50 MB.
    assert!(
        ours <= theirs.max(0) + 1024,
        "20 uidrive reads grew the app by {ours} kB, 20 pyatspi walks by {theirs} kB"
    );
    app.close().unwrap();
}
