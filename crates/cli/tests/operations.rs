//! The operations the command line gained from the operation table, each
//! driven on a real app as an agent would (issue 31): read with `get`,
//! `is`, `find` and `verify`; stepped, focused, hovered, selected, expanded,
//! collapsed and scrolled, each read back through the command line itself.

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

/// `x y width height`, as `get bounds` prints it.
fn bounds(session: &Session, target: &str) -> Vec<i64> {
    let out = session.ok(&["get", "bounds", target]);
    out.split_whitespace().map(|n| n.parse().unwrap()).collect()
}

#[test]
fn gtk3_widgets_are_read_stepped_focused_and_verified_from_the_command_line() {
    let factory = Session::open("ops-gtk3", &["gtk3-widget-factory"]);
    let controls = factory.ok(&["snapshot", "-i"]);
    let stepper = ref_of(&controls, r#"\[stepper\] value="50"$"#);
    let disabled = ref_of(&controls, r#"\[stepper\] value="0" disabled"#);

    assert_eq!(factory.ok(&["get", "value", &stepper]), "50\n");
    let stepped = factory.ok(&["increment", &stepper, "3"]);
    assert!(
        stepped.contains("# confirmed: it moved from 50"),
        "{stepped}"
    );
    assert_eq!(factory.ok(&["get", "value", &stepper]), "53\n");
    factory.ok(&["decrement", &stepper]);
    assert_eq!(factory.ok(&["get", "value", &stepper]), "52\n");

    assert_eq!(factory.ok(&["is", "enabled", &stepper]), "true\n");
    assert_eq!(factory.ok(&["is", "enabled", &disabled]), "false\n");

    // verify: exit 0 when the claim holds, 1 with what was read when not.
    assert_eq!(
        factory.ok(&["verify", &stepper, "--value", "52"]),
        "satisfied\n"
    );
    let (code, stdout, stderr) =
        factory.run(&["verify", &stepper, "--value", "99", "--timeout", "300"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.starts_with("unsatisfied: "), "{stdout}");
    assert!(stderr.contains("last observed value \"52\""), "{stderr}");

    // find: every match, as snapshot lines with refs an action takes.
    let found = factory.ok(&["find", r#"role=checkBox name="checkbutton""#]);
    assert_eq!(found.lines().count(), 6, "{found}");
    assert!(found.lines().all(|l| l.starts_with("@e")), "{found}");
    let unchecked = ref_of(&found, r#"\[checkBox\] "checkbutton"$"#);
    factory.ok(&["check", &unchecked]);
    assert_eq!(factory.ok(&["is", "checked", &unchecked]), "true\n");

    let entry = ref_of(&controls, r#"\[textField\] value="entry"$"#);
    let focused = factory.ok(&["focus", &entry]);
    assert!(
        focused.contains("# confirmed: the focus is on it"),
        "{focused}"
    );
    assert_eq!(factory.ok(&["is", "focused", &entry]), "true\n");
    let selected = factory.ok(&["select-text", &entry, "1", "3"]);
    assert!(selected.contains(r#"selected="nt""#), "{selected}");

    // A hover shows nothing the tree can prove: it says so.
    let hovered = factory.ok(&["hover", &unchecked]);
    assert!(
        hovered.contains("# unverifiable: the pointer was moved"),
        "{hovered}"
    );
}

#[test]
fn gtk4_demo_rows_collapse_and_expand_and_its_list_scrolls() {
    let demo = Session::open("ops-gtk4", &["gtk4-demo"]);
    let all = demo.ok(&["snapshot"]);
    let benchmark = ref_of(&all, r#"\[listItem\] "Benchmark""#);
    // Its expander says what it is: a GTK 4 row keeps the state inside it.
    assert_eq!(demo.ok(&["is", "expanded", &benchmark]), "true\n");
    let collapsed = demo.ok(&["collapse", &benchmark]);
    assert!(
        collapsed.contains("# confirmed: it reads collapsed"),
        "{collapsed}"
    );
    assert_eq!(demo.ok(&["is", "expanded", &benchmark]), "false\n");
    assert_eq!(
        demo.ok(&["find", r#"role=listItem name="Fishbowl""#])
            .trim(),
        "no element matches role=listItem name=\"Fishbowl\"",
        "the rows under it went"
    );
    let expanded = demo.ok(&["expand", &benchmark]);
    assert!(
        expanded.contains("# confirmed: it reads expanded"),
        "{expanded}"
    );
    assert_eq!(demo.ok(&["is", "expanded", &benchmark]), "true\n");

    // Ten notches down the list: a later demo comes up toward its top.
    let dialogs = r#"role=listItem name="Dialogs""#;
    let before = bounds(&demo, dialogs);
    let first = ref_of(&all, r#"\[listItem\] "Application Class""#);
    let scrolled = demo.ok(&["scroll", &first, "down", "10"]);
    assert!(scrolled.contains("# confirmed:"), "{scrolled}");
    let after = bounds(&demo, dialogs);
    assert!(
        after[1] + 100 < before[1],
        "Dialogs moved up the list: {before:?} -> {after:?}"
    );
}
