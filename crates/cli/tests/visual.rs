//! Visual targets on real apps: a Tk app and xterm, which show assistive
//! technology nothing, driven by the text OCR reads on their windows and a
//! picture matched on them; and gtk3-widget-factory, where OCR and the tree
//! must agree on where a button is.

mod common;

use common::Session;
use serde_json::Value;

const TK_APP: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/apps/tk_press.py");

/// The `--json` envelope of a command, whether it succeeded or not.
fn answer(session: &Session, args: &[&str]) -> (i32, Value) {
    let mut all = vec!["--json"];
    all.extend(args);
    let (code, stdout, stderr) = session.run(&all);
    let last = stdout.lines().last().unwrap_or_default();
    let value = serde_json::from_str(last)
        .unwrap_or_else(|e| panic!("{args:?}: {e}\nstdout: {stdout}\nstderr: {stderr}"));
    (code, value)
}

fn bounds(value: &Value) -> (f64, f64, f64, f64) {
    let b = &value["bounds"];
    let n = |k: &str| b[k].as_f64().unwrap_or_else(|| panic!("no {k} in {value}"));
    (n("x"), n("y"), n("width"), n("height"))
}

#[test]
fn a_tk_app_is_driven_by_the_text_and_pictures_it_shows() {
    let home = tempfile::tempdir().unwrap();
    let tk = Session {
        home: tempfile::Builder::new()
            .prefix("udvis")
            .tempdir_in("/tmp")
            .unwrap(),
        name: "tk",
    };
    // Opened, not refused: it says it has no tree and names the visual targets.
    let opened = tk.json(&[
        "open",
        "--headless",
        "--timeout",
        "60000",
        "--launch",
        "/usr/bin/python3",
        TK_APP,
    ]);
    assert_eq!(opened["tree"], false, "{opened}");
    let notice = opened["notice"].as_str().unwrap_or_default();
    assert!(notice.contains("no accessibility tree"), "{opened}");
    let targets = opened["visual_targets"].to_string();
    assert!(
        targets.contains("ocr=") && targets.contains("image="),
        "{opened}"
    );

    // A snapshot says the same, and names the OCR route.
    let (code, refused) = answer(&tk, &["snapshot"]);
    assert_ne!(code, 0, "{refused}");
    assert_eq!(refused["error"]["code"], "unsupported", "{refused}");
    assert!(
        refused["error"]["suggestion"]
            .as_str()
            .unwrap_or_default()
            .contains("snapshot --ocr"),
        "{refused}"
    );
    let read = tk.json(&["snapshot", "--ocr"]);
    let lines: Vec<&str> = read["ocr"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["text"].as_str())
        .collect();
    assert!(lines.contains(&"Press me"), "{read}");
    assert!(lines.contains(&"Not pressed"), "{read}");

    // Hovering moves the pointer there; nothing in the pixels has to show it.
    let hovered = tk.json(&["hover", "ocr=\"Press me\""]);
    assert_eq!(hovered["effect"], "unverifiable", "{hovered}");

    // Click the button by its text; the label below it changes.
    let clicked = tk.json(&["click", "ocr=\"Press me\""]);
    assert_eq!(clicked["effect"], "confirmed", "{clicked}");
    let shown = tk.json(&["wait", "ocr=\"Pressed 1\""]);
    assert_eq!(shown["shown"], true, "{shown}");
    tk.ok(&["wait", "--gone", "ocr=\"Not pressed\""]);
    tk.ok(&["verify", "ocr~=\"pressed 1\""]);

    // A capture of the button, used as a picture, clicks it again.
    let picture = home.path().join("press-me.png");
    let file = picture.to_str().unwrap();
    tk.ok(&["screenshot", "ocr=\"Press me\"", file]);
    let found = tk.json(&["get", "bounds", &format!("image=\"{file}\" threshold=0.95")]);
    let text_box = tk.json(&["get", "bounds", "ocr=\"Press me\""]);
    assert_eq!(bounds(&found), bounds(&text_box), "{found} {text_box}");
    let clicked = tk.json(&["click", &format!("image=\"{file}\"")]);
    assert_eq!(clicked["effect"], "confirmed", "{clicked}");
    tk.ok(&["wait", "ocr=\"Pressed 2\""]);

    // Text that never shows: the wait times out, and says what it looked for.
    let (code, missing) = answer(
        &tk,
        &["wait", "ocr=\"Nothing like this\"", "--timeout", "1500"],
    );
    assert_ne!(code, 0, "{missing}");
    assert_eq!(missing["error"]["code"], "timeout", "{missing}");
    assert!(
        missing["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("Nothing like this"),
        "{missing}"
    );

    // The visual idle: a change that comes on its own, after the click.
    tk.ok(&["click", "ocr=\"Change later\""]);
    let changed = tk.json(&["wait", "--changed", "--timeout", "20000"]);
    assert_eq!(changed["changed"], true, "{changed}");
    tk.ok(&["wait", "ocr=\"Done later\""]);
    // Nothing moves now: a wait for a change times out.
    let (code, still) = answer(&tk, &["wait", "--changed", "--timeout", "1000"]);
    assert_ne!(code, 0, "{still}");
    assert_eq!(still["error"]["code"], "timeout", "{still}");
    tk.ok(&["close"]);
}

#[test]
fn text_echoed_in_xterm_is_found_twice() {
    let xterm = Session::open(
        "xterm",
        &[
            "xterm",
            "-fa",
            "DejaVu Sans Mono",
            "-fs",
            "14",
            "-geometry",
            "60x12",
            "-e",
            "sh",
        ],
    );
    xterm.ok(&["type", "echo uidrive42"]);
    xterm.ok(&["key", "Return"]);
    // The command line and what it printed.
    xterm.ok(&["wait", "ocr=\"uidrive42\" >> nth=1"]);
    let (code, both) = answer(&xterm, &["get", "bounds", "ocr=\"uidrive42\""]);
    assert_ne!(code, 0, "{both}");
    assert_eq!(both["error"]["code"], "ambiguous", "{both}");
    let typed = xterm.json(&["get", "bounds", "ocr~=\"echo uidrive42\""]);
    let printed = xterm.json(&["get", "bounds", "ocr=\"uidrive42\" >> nth=1"]);
    let (_, typed_y, _, _) = bounds(&typed);
    let (_, printed_y, _, _) = bounds(&printed);
    assert!(printed_y > typed_y, "{typed} {printed}");
    xterm.ok(&["close"]);
}

#[test]
fn ocr_and_the_tree_agree_on_a_gtk_buttons_box() {
    let factory = Session::open("factory", &["gtk3-widget-factory"]);
    let tree = factory.json(&[
        "get",
        "bounds",
        "role=toggleButton name=\"togglebutton\" >> nth=0",
    ]);
    let ocr = factory.json(&["get", "bounds", "ocr=\"togglebutton\" >> nth=0"]);
    let (tx, ty, tw, th) = bounds(&tree);
    let (ox, oy, ow, oh) = bounds(&ocr);
    // The text's box lies inside the button's, centred on it within a few pixels.
    assert!(
        ox >= tx && oy >= ty && ox + ow <= tx + tw && oy + oh <= ty + th,
        "{tree} {ocr}"
    );
    let centre = |x: f64, w: f64| x + w / 2.0;
    assert!(
        (centre(tx, tw) - centre(ox, ow)).abs() <= 4.0,
        "{tree} {ocr}"
    );
    assert!(
        (centre(ty, th) - centre(oy, oh)).abs() <= 4.0,
        "{tree} {ocr}"
    );
    factory.ok(&["close"]);
}
