//! Every answer true: the false answers issue 28 found on real apps, each
//! driven through the command line as a new user or an agent would, on a
//! private headless desktop of its own. Each test names the answer it guards.

mod common;

use common::Session;
use regex::Regex;
use serde_json::{json, Value};
use std::process::Command;
use std::time::Duration;

/// One app at a time: these tests time settles and bounds, which the other
/// apps' start-up on a two-core machine would blur. Taken before the
/// session, so it is let go after the session closed.
fn alone() -> std::sync::MutexGuard<'static, ()> {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// The ref of the first line matching `pattern` (a regex over the line after the ref).
fn ref_of(snapshot: &str, pattern: &str) -> String {
    let line = Regex::new(&format!(r"(?m)^\s*(@e\d+) {pattern}")).unwrap();
    match line.captures(snapshot) {
        Some(found) => found[1].to_string(),
        None => panic!("no line matches {pattern:?} in:\n{snapshot}"),
    }
}

/// The id of the window titled `title`, once the app shows it (20 looks, 0.25 s apart).
fn window_titled(session: &Session, title: &str) -> u64 {
    let mut windows = Value::Null;
    for _ in 0..20 {
        windows = session.json(&["windows"]);
        let found = windows["windows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["title"] == title)
            .and_then(|w| w["id"].as_u64());
        if let Some(id) = found {
            return id;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    panic!("no window {title:?}: {windows}")
}

/// issue 28: `batch 'press 7' 'press ×' 'press 6' 'press ='` on
/// gnome-calculator ended on `7×6` or `no changes` in 3 runs of 6: the
/// calculator works `=` out a moment after the press.
#[test]
fn a_batch_on_the_calculator_ends_on_the_result_every_run() {
    let _alone = alone();
    let calc = Session::open("calc", &["gnome-calculator"]);
    let result = Regex::new(r#"(?m)^\+ @e\d+ \[textField\].* value="42""#).unwrap();
    for run in 1..=3 {
        calc.ok(&["key", "Escape", "--settle"]);
        calc.ok(&["snapshot", "-i"]);
        let out = calc.ok(&[
            "batch",
            r#"press role=button name="7""#,
            r#"press role=button name="×""#,
            r#"press role=button name="6""#,
            r#"press role=button name="=""#,
        ]);
        assert!(
            result.is_match(&out),
            "run {run}: the settled diff shows the result:\n{out}"
        );
        // Each press said what it saw: `=` showed the result come.
        assert_eq!(
            out.matches("\n# confirmed: ").count() + out.matches("\n# unverifiable: ").count(),
            4,
            "{out}"
        );
    }
}

/// issue 28: `select 'role=comboBox name="Left"' Middle` on gtk3-widget-factory
/// changed the combo box, then waited 10 s and failed: its name is its choice,
/// and the check found it again by the old name.
#[test]
fn select_follows_a_combo_box_named_by_its_choice() {
    let _alone = alone();
    let factory = Session::open("combo", &["gtk3-widget-factory"]);
    let out = factory.ok(&["select", r#"role=comboBox name="Left""#, "Middle"]);
    assert!(
        out.contains("# confirmed: it is named by its choice, now \"Middle\""),
        "{out}"
    );
    let controls = factory.ok(&["snapshot", "-i"]);
    assert!(controls.contains("[comboBox] \"Middle\""), "{controls}");

    // The combo box with an entry: its options are listed (hidden) before
    // it opens; `select` said it "shows no option" while listing it.
    let entry_combo = ref_of(&controls, r#"\[comboBox\] "comboboxentry"$"#);
    let out = factory.ok(&["select", &entry_combo, "Mickey Mouse"]);
    assert!(out.contains("# confirmed: "), "{out}");
    let controls = factory.ok(&["snapshot", "-i"]);
    assert!(
        controls.contains("[textField] value=\"Mickey Mouse\""),
        "{controls}"
    );

    // `fill` printed the field's value from before the fill.
    let field = ref_of(&controls, r#"\[textField\] value="Mickey Mouse""#);
    let out = factory.ok(&["fill", &field, "first"]);
    assert!(
        out.starts_with(&format!("filled {field} [textField] value=\"first\"")),
        "{out}"
    );
    assert!(out.contains("# confirmed: it reads `first`"), "{out}");
}

/// issue 28: pressing the Close button of gnome-text-editor's Preferences
/// with `--settle` closed the window and exited 1 (`no_window`, later
/// `no_element ... is gone`); without `--settle` it said "pressed" while
/// `windows` still listed the window.
#[test]
fn a_dialog_closed_by_its_own_button_is_a_success_that_says_so() {
    let _alone = alone();
    let editor = Session::open("editor", &["gnome-text-editor", "--standalone"]);
    for settle in [false, true] {
        editor.ok(&["key", "Ctrl+,"]);
        let window = window_titled(&editor, "Preferences").to_string();
        editor.ok(&["snapshot", "-i", "--window", &window]);
        let mut args = vec!["press", r#"role=button name="Close""#, "--window", &window];
        if settle {
            args.push("--settle");
        }
        let out = editor.ok(&args);
        // Said as the effect, or (settled) as the diff's window line.
        if !settle {
            assert!(
                out.contains(&format!("# confirmed: window {window} closed")),
                "{out}"
            );
        }
        assert!(
            out.contains(&format!("- window {window}")),
            "settle {settle}: {out}"
        );
        let windows = editor.ok(&["windows"]);
        assert!(!windows.contains("\"Preferences\""), "{windows}");
    }
    // The session's window went with it: the next command reads the one left.
    editor.ok(&["snapshot", "-i"]);
}

/// issue 28: in gnome-calculator, pressing a dialog's own close button
/// reported `no_element: the element /org/gnome/... is gone`.
#[test]
fn the_calculators_about_dialog_closes_by_its_own_button() {
    let _alone = alone();
    let calc = Session::open("about", &["gnome-calculator"]);
    calc.ok(&["press", r#"role=button[name="Primary menu"] >> nth=0"#]);
    calc.ok(&["press", r#"role=menuItem[name="About Calculator"]"#]);
    let about = window_titled(&calc, "About").to_string();
    let data = calc.json(&["press", r#"role=button name="Close""#, "--window", &about]);
    assert_eq!(data["effect"], "confirmed", "{data}");
    assert_eq!(
        data["closed"],
        json!([about.parse::<u64>().unwrap()]),
        "{data}"
    );
    let windows = calc.ok(&["windows"]);
    assert!(!windows.contains("\"About\""), "{windows}");
}

/// issue 28: `type` with no target verified nothing: it said "typed" while
/// the text was not (yet) in the field. Now it is checked against the
/// focused element, and a snapshot right after reads the whole text.
#[test]
fn text_typed_with_no_target_is_read_back_from_the_focused_field() {
    let _alone = alone();
    let pad = Session::open("pad", &["mousepad"]);
    pad.ok(&["snapshot", "-i"]);
    let text = "The quick brown fox jumps over the lazy dog";
    let data = pad.json(&["type", text]);
    assert_eq!(data["effect"], "confirmed", "{data}");
    assert_eq!(data["element"]["value"], text, "{data}");
    let shown = pad.ok(&["snapshot"]);
    assert!(shown.contains(&format!("value=\"{text}\"")), "{shown}");
    // A chord's effect is the app's: said so, with what was checked.
    let data = pad.json(&["key", "Shift+F10"]);
    assert!(
        data["effect"] == "confirmed" || data["checked"].as_str().is_some(),
        "{data}"
    );
}

/// issue 30.6: `idle` kept no bound: it answered `{}` in 1-2 ms on an app
/// whose label changes every 6 ms, said "kept changing for 0 ms" with
/// timeout 0 on a static app, and took 3 s for a timeout of 2 s.
#[test]
fn idle_answers_within_its_timeout_and_times_out_on_an_app_that_never_settles() {
    // zenity's progress dialog, its label set anew every 6 ms.
    let ticker = r##"python3 -u -c 'import time
i = 0
while True:
    print("# tick %d" % i, flush=True); i += 1; time.sleep(0.006)
' | zenity --progress --text=start"##;
    let _alone = alone();
    let busy = Session::open("ticker", &["sh", "-c", ticker]);
    // Once the label has changed a hundred times, the changes are flowing.
    busy.ok(&["wait", "--text", r"/^tick \d{3,}$/", "--timeout", "30000"]);
    for timeout in [300u64, 2000] {
        let (answer, took) = busy.request("idle", json!({ "timeout": timeout }));
        assert_eq!(answer["error"]["code"], "timeout", "{answer}");
        let ms = took.as_millis() as u64;
        assert!(
            ms + 50 >= timeout && ms <= timeout + 500,
            "idle with timeout {timeout} answered after {ms} ms"
        );
    }
    drop(busy);

    let still = Session::open("still", &["gtk3-widget-factory"]);
    let (answer, _) = still.request("idle", json!({ "timeout": 0 }));
    assert_eq!(
        answer["result"],
        json!({}),
        "timeout 0 checks once: {answer}"
    );
    let (answer, took) = still.request("idle", json!({ "timeout": 2000 }));
    assert_eq!(answer["result"], json!({}), "{answer}");
    assert!(took < Duration::from_millis(2000), "{took:?}");
    // A frozen app answers nothing: `timeout`, at its bound, not a second later.
    let pid = still.app_pid();
    let stop = |signal: &str| {
        Command::new("kill")
            .args([signal, &pid.to_string()])
            .status()
            .unwrap()
    };
    stop("-STOP");
    let (answer, took) = still.request("idle", json!({ "timeout": 2000 }));
    stop("-CONT");
    assert_eq!(answer["error"]["code"], "timeout", "{answer}");
    let ms = took.as_millis() as u64;
    assert!(
        (1950..=2500).contains(&ms),
        "a frozen app's idle answered after {ms} ms"
    );
}

/// A one-page PDF of one line, `text`, written by hand (no PDF tool needed).
fn write_pdf(path: &std::path::Path, text: &str) {
    let content = format!("BT /F1 24 Tf 40 150 Td ({text}) Tj ET");
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>".to_string(),
        format!("<< /Length {} >>\nstream\n{content}\nendstream", content.len()),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
    ];
    let mut pdf = String::from("%PDF-1.4\n");
    let mut offsets = Vec::new();
    for (at, object) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf += &format!("{} 0 obj\n{object}\nendobj\n", at + 1);
    }
    let xref = pdf.len();
    pdf += &format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1);
    for offset in offsets {
        pdf += &format!("{offset:010} 00000 n \n");
    }
    pdf += &format!(
        "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
        objects.len() + 1
    );
    std::fs::write(path, pdf).unwrap();
}

/// The state of a GTK window's action, as the app itself keeps it: asked of
/// the app over its session bus (`org.gtk.Actions`, which a
/// GtkApplicationWindow exports), by every connection on that bus until
/// one answers for `object`. `Some(true)` for an action whose state is `true`.
fn gtk_action_state(pid: u32, object: &str, action: &str) -> Option<bool> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
    let bus = environ
        .split(|b| *b == 0)
        .find_map(|e| e.strip_prefix(b"DBUS_SESSION_BUS_ADDRESS="))
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .expect("the app has a session bus");
    let send = |dest: &str, path: &str, method: &str, args: &[&str]| {
        let out = Command::new("dbus-send")
            .arg(format!("--bus={bus}"))
            .args(["--print-reply", "--reply-timeout=5000"])
            .arg(format!("--dest={dest}"))
            .args([path, method])
            .args(args)
            .output()
            .expect("dbus-send runs");
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let names = send(
        "org.freedesktop.DBus",
        "/org/freedesktop/DBus",
        "org.freedesktop.DBus.ListNames",
        &[],
    )
    .expect("the bus lists its names");
    let unique = Regex::new(r#"string ":([0-9.]+)""#).unwrap();
    let described = unique.captures_iter(&names).find_map(|name| {
        send(
            &format!(":{}", &name[1]),
            object,
            "org.gtk.Actions.Describe",
            &[&format!("string:{action}")],
        )
    })?;
    // The reply: (enabled, parameter type, [state]): the state is its last boolean.
    let boolean = Regex::new(r"boolean (true|false)").unwrap();
    boolean
        .captures_iter(&described)
        .last()
        .map(|found| &found[1] == "true")
}

/// issue 29: Evince's hamburger menu check items (GTK 3 GtkModelButton)
/// never tell their checked state to accessibility (it is the window's
/// action's). `press "Night Mode"` turned night mode on, read no change,
/// clicked again (off) and failed after 13 s. One press now: night mode is
/// on (as the app's own action state says), and the answer says it could
/// not be read rather than confirming or failing.
#[test]
fn a_popover_check_item_is_pressed_once_and_said_unverifiable() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("night.pdf");
    write_pdf(&pdf, "Night test");
    let evince = Session::open("popover", &["evince", pdf.to_str().unwrap()]);
    let night = || {
        gtk_action_state(
            evince.app_pid(),
            "/org/gnome/Evince/window/1",
            "inverted-colors",
        )
    };
    assert_eq!(night(), Some(false), "night mode starts off");
    evince.ok(&["press", r#"role=toggleButton name="File options""#]);
    let item = r#"role=checkBox name="Night Mode""#;
    let pressed = evince.json(&["press", item]);
    assert_eq!(
        night(),
        Some(true),
        "one press turned night mode on: {pressed}"
    );
    assert_eq!(pressed["route"], "semantic:press", "{pressed}");
    assert_eq!(pressed["effect"], "unverifiable", "{pressed}");
    let checked = pressed["checked"].as_str().unwrap();
    assert!(
        checked.contains("still reads unchecked")
            && checked.contains("drawn otherwise")
            && checked.contains("not pressed again"),
        "{checked}"
    );

    // `check` promises a state it cannot read here: it fails saying so,
    // after one press (night mode off again), never two.
    let (code, stdout, stderr) = evince.run(&["--json", "check", item]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let failed: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(failed["error"]["code"], "failed", "{failed}");
    let message = failed["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("the app took semantic:press") && message.contains("not pressed again"),
        "{message}"
    );
    assert_eq!(night(), Some(false), "check pressed it once: {message}");
}

/// issue 29: `select` on Nautilus's grid view (GTK 4) chose the file and
/// failed after 10 s: the grid selects the cell that holds the item (a cell
/// "NautilusGridCell" around the file's own), not the item the check read.
#[test]
fn select_on_a_gtk4_grid_view_reads_the_cell_around_the_item() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    for name in ["alpha.txt", "beta.txt", "gamma.txt"] {
        std::fs::write(dir.path().join(name), name).unwrap();
    }
    let nautilus = Session::open("grid", &["nautilus", dir.path().to_str().unwrap()]);
    let chosen = nautilus.json(&["select", "role=table", "beta.txt"]);
    assert_eq!(chosen["effect"], "confirmed", "{chosen}");
    let observed = chosen["observed"].as_str().unwrap();
    assert!(
        observed.starts_with("its item \"beta.txt\" is chosen"),
        "{observed}"
    );
    // The grid shows it so: the cell around beta.txt, and only it, reads selected.
    let snapshot = nautilus.ok(&["snapshot"]);
    let selected = Regex::new(
        r#"(?m)\[cell\] "NautilusGridCell"[^\n]* selected\n\s*@e\d+ \[cell\] "([^"]+)""#,
    )
    .unwrap();
    let files: Vec<&str> = selected
        .captures_iter(&snapshot)
        .map(|c| c.get(1).unwrap().as_str())
        .collect();
    assert_eq!(files, ["beta.txt"], "{snapshot}");
}

/// Calc's sheet read one cell, where it shows 1,050, once its Tip of the Day
/// closed after a key and a few reads a second apart: Calc had dropped the
/// objects of the cells kept by their place, and every later read skipped
/// them. A kept cell that went is asked for again.
#[test]
fn calcs_cells_read_back_after_its_first_dialog_closes() {
    let _alone = alone();
    let profile = tempfile::Builder::new()
        .prefix("udcalc")
        .tempdir_in("/tmp")
        .unwrap();
    let installation = format!("-env:UserInstallation=file://{}", profile.path().display());
    let calc = Session::open("sheet", &["localc", "--norestore", &installation]);
    let cells = |calc: &Session| {
        let snapshot = calc.ok(&["snapshot", "-w", "1"]);
        snapshot.lines().filter(|l| l.contains("[cell]")).count()
    };
    let windows = calc.ok(&["windows"]);
    assert!(windows.contains("\"Tip of the Day"), "{windows}");
    // Calc maximizes itself a moment after it shows (on a fresh profile,
    // under the desktop's window manager) and rebuilds its grid: the sheet
    // is read once it shows its cells, up to 30 s.
    let started = std::time::Instant::now();
    let mut before = cells(&calc);
    while before <= 100 && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_secs(1));
        before = cells(&calc);
    }
    assert!(before > 100, "the sheet shows its cells: {before}");
    calc.ok(&["key", "Enter", "-w", "1"]);
    for _ in 0..3 {
        cells(&calc);
        std::thread::sleep(Duration::from_secs(1));
    }
    let windows = calc.ok(&["windows"]);
    if let Some(line) = windows.lines().find(|l| l.contains("\"Tip of the Day")) {
        let id = line.split_whitespace().nth(1).unwrap();
        calc.ok(&["press", r#"role=button name="OK""#, "-w", id]);
    }
    for read in 0..2 {
        let after = cells(&calc);
        assert!(
            after * 10 >= before * 9,
            "read {read} after the dialog closed holds {after} cells; {before} before"
        );
    }
}
