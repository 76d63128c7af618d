//! The command line driving real apps (gnome-calculator, gtk3-widget-factory)
//! on private headless desktops that `open --headless` starts: Xvfb, D-Bus and
//! the AT-SPI registry, held by the session's background `uidrive serve`.

mod common;

use common::Session;
use regex::Regex;

/// The ref of the first line matching `pattern` (a regex over the line after the ref).
fn ref_of(snapshot: &str, pattern: &str) -> String {
    let line = Regex::new(&format!(r"(?m)^(@e\d+) {pattern}")).unwrap();
    match line.captures(snapshot) {
        Some(found) => found[1].to_string(),
        None => panic!("no line matches {pattern:?} in:\n{snapshot}"),
    }
}

/// gnome-calculator names its buttons "7 7" (name and label run together), or "7".
fn button(snapshot: &str, label: &str) -> String {
    let label = regex::escape(label);
    ref_of(snapshot, &format!(r#"\[button\] "{label}( {label})?""#))
}

#[test]
fn gnome_calculator_computes_7_times_6() {
    let calc = Session::open("calc", &["gnome-calculator"]);
    let controls = calc.ok(&["snapshot", "-i"]);
    let (seven, times, six, equals) = (
        button(&controls, "7"),
        button(&controls, "×"),
        button(&controls, "6"),
        button(&controls, "="),
    );
    // One press, and the diff shows the display change, with context.
    let diff = calc.ok(&["press", &seven, "--settle"]);
    assert!(
        Regex::new(r#"(?m)^\+ @e\d+ \[textField\].* value="7""#)
            .unwrap()
            .is_match(&diff),
        "{diff}"
    );
    assert!(diff.lines().any(|l| l.starts_with("= ")), "{diff}");
    // The rest in one batch, observed once at the end.
    let steps = [
        format!("press {times}"),
        format!("press {six}"),
        format!("press {equals}"),
    ];
    let mut args = vec!["batch"];
    args.extend(steps.iter().map(String::as_str));
    let out = calc.ok(&args);
    assert!(out.starts_with("ok 1: pressed"), "{out}");
    assert!(
        Regex::new(r#"(?m)^\+ @e\d+ \[textField\].* value="42""#)
            .unwrap()
            .is_match(&out),
        "{out}"
    );
    // The whole window reads 42 too (the display, and the history line).
    let full = calc.ok(&["snapshot"]);
    assert!(full.contains("value=\"42\""), "{full}");
}

#[test]
fn gtk3_widget_factory_refuses_a_ref_whose_page_went() {
    let factory = Session::open("factory", &["gtk3-widget-factory"]);
    let controls = factory.ok(&["snapshot", "-i"]);
    let page_two = ref_of(&controls, r#"\[radio\] "Page 2""#);
    let check = ref_of(&controls, r#"\[checkBox\] "checkbutton"$"#);
    // check: the diff shows the box checked (a real click also focuses it).
    let diff = factory.ok(&["check", &check, "--settle"]);
    assert!(
        Regex::new(&format!(
            r#"(?m)^\+ {check} \[checkBox\] "checkbutton"( focused)? checked$"#
        ))
        .unwrap()
        .is_match(&diff),
        "{diff}"
    );
    // Switch the page: page 1's controls leave the tree.
    let diff = factory.ok(&["press", &page_two, "--settle"]);
    assert!(
        diff.contains(&format!("+ {page_two} [radio] \"Page 2\" checked")),
        "{diff}"
    );
    let (code, stdout, stderr) = factory.run(&["--json", "press", &check]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let answer: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(answer["error"]["code"], "stale_ref", "{answer}");
    // A new snapshot never gives the gone element's ref to another.
    let after = factory.ok(&["snapshot", "-i"]);
    assert!(!after.contains(&format!("{check} ")), "{after}");
}

#[test]
fn two_sessions_drive_two_apps_side_by_side() {
    let calc = Session::open("left", &["gnome-calculator"]);
    let factory = Session::open("right", &["gtk3-widget-factory"]);
    let calc_controls = calc.ok(&["snapshot", "-i"]);
    let factory_controls = factory.ok(&["snapshot", "-i"]);
    assert!(calc_controls.contains("[button] \"×"), "{calc_controls}");
    assert!(
        factory_controls.contains("[checkBox] \"checkbutton\""),
        "{factory_controls}"
    );
    // Each session acts on its own app with its own refs.
    let plus = button(&calc_controls, "+");
    assert!(calc
        .ok(&["press", &plus])
        .starts_with(&format!("pressed {plus}")));
    let page_three = ref_of(&factory_controls, r#"\[radio\] "Page 3""#);
    assert!(factory
        .ok(&["press", &page_three, "--settle"])
        .contains("\"Page 3\" checked"));
    assert!(calc.ok(&["windows"]).contains("\"Calculator\""));
}
