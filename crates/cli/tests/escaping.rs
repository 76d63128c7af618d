//! What could spoof a terminal is escaped in the command line's text output
//! (issue 30, finding 8): a bidi override (U+202E) or a newline in an app's
//! names, values and titles, and a newline in a session name, are written
//! as escapes, never raw.

use std::process::Command;

/// A GTK window whose title, button and field hold a bidi override, a
/// newline, a carriage return and an escape sequence.
const APP: &str = r#"
import gi
gi.require_version("Gtk", "3.0")
from gi.repository import Gtk
win = Gtk.Window(title="invoice\u202efdp.exe")
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
box.add(Gtk.Button(label="Pay\u202e now\nOK"))
entry = Gtk.Entry()
entry.set_text("amount\r\x1b[2Jcleared")
box.add(entry)
win.add(box)
win.connect("destroy", Gtk.main_quit)
win.show_all()
Gtk.main()
"#;

fn run(home: &std::path::Path, session: &str, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_uidrive"))
        .arg("--session")
        .arg(session)
        .args(args)
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("XDG_RUNTIME_DIR", home)
        .env_remove("UIDRIVE_SESSION")
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn assert_nothing_raw(text: &str) {
    for c in ['\u{202e}', '\r', '\u{1b}'] {
        assert!(!text.contains(c), "a raw U+{:04X} in:\n{text}", c as u32);
    }
}

#[test]
fn names_values_and_titles_are_escaped_in_text_output() {
    let home = tempfile::tempdir().unwrap();
    let script = home.path().join("spoof.py");
    std::fs::write(&script, APP).unwrap();
    let (ok, out, err) = run(
        home.path(),
        "spoof",
        &[
            "open",
            "--headless",
            "--launch",
            "/usr/bin/python3",
            script.to_str().unwrap(),
        ],
    );
    assert!(ok, "{out}{err}");
    assert_nothing_raw(&out);
    for args in [&["snapshot"][..], &["snapshot", "-i"], &["windows"]] {
        let (ok, out, err) = run(home.path(), "spoof", args);
        assert!(ok, "{args:?}: {out}{err}");
        assert_nothing_raw(&out);
        assert!(
            out.contains("\\u{202e}"),
            "{args:?}: the override is not shown escaped:\n{out}"
        );
    }
    let (_, snapshot, _) = run(home.path(), "spoof", &["snapshot"]);
    // The button's label keeps to its line: its newline is escaped.
    let button = snapshot.lines().find(|l| l.contains("[button]")).unwrap();
    assert!(button.contains("now\\nOK"), "{button}");
    let field = snapshot
        .lines()
        .find(|l| l.contains("[textField]"))
        .unwrap();
    assert!(field.contains("\\u{d}\\u{1b}[2J"), "{field}");
    // An error that echoes a name keeps it on its line too.
    let (ok, _, err) = run(
        home.path(),
        "spoof",
        &[
            "--action-timeout",
            "500",
            "press",
            "role=button name=\"x\u{202e}y\nhint: fake\"",
        ],
    );
    assert!(!ok);
    assert_nothing_raw(&err);
    assert!(!err.lines().any(|l| l.starts_with("hint: fake")), "{err}");
    let (ok, _, _) = run(home.path(), "spoof", &["close"]);
    assert!(ok);
}

#[test]
fn a_session_name_with_a_newline_or_an_override_is_escaped() {
    let home = tempfile::tempdir().unwrap();
    let (ok, out, err) = run(home.path(), "evil\nerror: fake\u{202e}", &["snapshot"]);
    assert!(!ok);
    assert_nothing_raw(&format!("{out}{err}"));
    assert_eq!(
        err.lines().filter(|l| l.starts_with("error:")).count(),
        1,
        "{err}"
    );
    assert!(err.contains("\\n") && err.contains("\\u{202e}"), "{err}");
}
