//! `wait --event` (issue 31): the events an action made the app send, handed
//! over from AT-SPI's event stream on a real app, each once.

mod common;

use common::Session;
use regex::Regex;

/// The ref of the first line matching `pattern` (a regex over the line after the ref).
fn ref_of(snapshot: &str, pattern: &str) -> String {
    let line = Regex::new(&format!(r"(?m)^\s*(@e\d+) {pattern}")).unwrap();
    match line.captures(snapshot) {
        Some(found) => found[1].to_string(),
        None => panic!("no line matches {pattern:?} in:\n{snapshot}"),
    }
}

#[test]
fn wait_event_hands_over_the_focus_and_value_events_of_an_entry() {
    let factory = Session::open("events-gtk3", &["gtk3-widget-factory"]);
    let controls = factory.ok(&["snapshot", "-i"]);
    let stepper = ref_of(&controls, r#"\[stepper\] value="50"$"#);
    let entry = ref_of(&controls, r#"\[textField\] value="entry"$"#);

    // The focus goes to the stepper, then to the entry: the wait for the
    // entry's focus answers the entry's event, not the stepper's.
    factory.ok(&["focus", &stepper]);
    factory.ok(&["focus", &entry]);
    let focus = factory.ok(&["wait", "--event", "focus", &entry]);
    assert!(
        focus.starts_with(&format!("focus (focused) on {entry} [textField]")),
        "{focus}"
    );
    assert!(focus.trim_end().ends_with(": \"true\""), "{focus}");

    // A fill: the value event carries the text the entry holds now.
    factory.ok(&["fill", &entry, "hello events"]);
    let answer = factory.json(&["wait", "--event", "value", &entry]);
    let event = &answer["event"];
    let value = answer.to_string();
    assert_eq!(event["kind"], "value", "{value}");
    assert_eq!(event["value"], "hello events", "{value}");
    assert_eq!(event["node"]["role"], "textField", "{value}");
    assert!(
        ["insert", "delete"].contains(&event["detail"].as_str().unwrap_or_default()),
        "{value}"
    );

    // Handed over once: no new focus came since, so the wait runs out.
    let (code, stdout, stderr) =
        factory.run(&["wait", "--event", "focus", &entry, "--timeout", "700"]);
    assert_ne!(code, 0, "{stdout}");
    assert!(
        stderr.contains("error: timeout: wait: no focus event on"),
        "{stderr}"
    );

    // A kind that is none is refused before anything is waited for.
    let (code, _, stderr) = factory.run(&["wait", "--event", "blur"]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn wait_event_hands_over_the_window_a_press_opened() {
    let app = format!(
        "{}/../../tests/apps/gtk3_modal.py",
        env!("CARGO_MANIFEST_DIR")
    );
    let modal = Session::open("events-window", &["/usr/bin/python3", &app]);
    modal.ok(&["press", "role=button name=Ask"]);
    // The dialog the press opened is the window event's element, read.
    let opened = modal.ok(&["wait", "--event", "window"]);
    assert!(opened.starts_with("window ("), "{opened}");
    assert!(opened.contains(r#"[alert] "Question""#), "{opened}");
    // Its next window event (its add, create or activate), named by the
    // dialog: the main window's deactivate, which may come first, is not it.
    let event = modal.json(&[
        "wait",
        "--event",
        "window",
        "role=alert name=Question",
        "--timeout",
        "5000",
    ]);
    assert_eq!(event["event"]["node"]["label"], "Question", "{event}");
}
