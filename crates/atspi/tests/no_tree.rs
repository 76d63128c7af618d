//! Apps that show a window but never join the accessibility bus: the
//! launch says so at once (before, it waited out its timeout and reported
//! `app_exited` while the app ran), calls that need the tree fail at once
//! with `unsupported` saying why, and the app's window still takes real
//! input and is captured.

mod common;

use common::{options, DEADLINE};
use std::time::{Duration, Instant};
use uidrive_core::protocol::{InputEvent, TreeParams};
use uidrive_core::{App, Driver, ErrorCode};
use uidrive_x11::Desktop;

fn launch(desktop: &Desktop, argv: &[&str]) -> App {
    let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
    uidrive_atspi::launch_app(&argv, &options(desktop))
        .unwrap_or_else(|e| panic!("{} launches: {e}", argv[0]))
}

/// What every such app must show: a notice naming `toolkit`, its window,
/// `unsupported` for the tree, and a capture with something drawn.
fn says_it_has_no_tree(app: &App, toolkit: &str) {
    let windows = app.driver().windows().expect("its windows are listed");
    let notice = windows.extra["notice"].as_str().unwrap_or_default();
    assert!(
        notice.contains("no accessibility tree") && notice.contains(toolkit),
        "{notice:?}"
    );
    assert_eq!(windows.windows.len(), 1, "{windows:?}");
    let err = app
        .driver()
        .tree(&TreeParams::default())
        .expect_err("no tree to read");
    assert_eq!(err.code, ErrorCode::Unsupported, "{err}");
    assert!(err.message.contains(toolkit), "{err}");
    assert!(!err.suggestion.is_empty());
    let err = app
        .get_by_role(uidrive_core::protocol::Role::Button, "Press")
        .with_timeout(Duration::from_secs(5))
        .click()
        .expect_err("no tree to find a button in");
    assert_eq!(err.code, ErrorCode::Unsupported, "{err}");
    let png = app
        .driver()
        .capture(&Default::default())
        .expect("a capture");
    assert!(
        png.width > 10 && png.height > 10,
        "{}x{}",
        png.width,
        png.height
    );
    app.check_alive().expect("the app still runs");
}

#[test]
fn a_tk_window_is_told_at_once_and_takes_real_keys() {
    let desktop = Desktop::start().expect("a headless desktop starts");
    let script = format!("{}/../../tests/apps/tk_form.py", env!("CARGO_MANIFEST_DIR"));
    let app = launch(&desktop, &["/usr/bin/python3", &script]);
    says_it_has_no_tree(&app, "Tk");
    // The field has the focus: typed text and Enter change the window's title.
    app.input(
        None,
        vec![
            InputEvent::Text {
                text: "hello".into(),
            },
            InputEvent::Key {
                key: "Enter".parse().unwrap(),
            },
        ],
    )
    .expect("keys are sent");
    let started = Instant::now();
    loop {
        let title = app.driver().windows().unwrap().windows[0].title.clone();
        if title == "Tk form: hello" {
            break;
        }
        assert!(started.elapsed() < DEADLINE, "the title reads {title:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
    app.close().unwrap();
}

#[test]
fn xterm_is_told_at_once_and_runs_what_is_typed() {
    let desktop = Desktop::start().expect("a headless desktop starts");
    let witness = std::env::temp_dir().join(format!("uidrive-xterm-{}", std::process::id()));
    let _ = std::fs::remove_file(&witness);
    let app = launch(&desktop, &["xterm", "-fn", "fixed", "-e", "sh"]);
    says_it_has_no_tree(&app, "Xt");
    app.input(
        None,
        vec![
            InputEvent::Text {
                text: format!("echo typed > {}", witness.display()),
            },
            InputEvent::Key {
                key: "Enter".parse().unwrap(),
            },
        ],
    )
    .expect("keys are sent");
    let started = Instant::now();
    while std::fs::read_to_string(&witness)
        .ok()
        .as_deref()
        .map(str::trim)
        != Some("typed")
    {
        assert!(
            started.elapsed() < DEADLINE,
            "the shell never ran the typed line"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    app.close().unwrap();
    let _ = std::fs::remove_file(&witness);
}

#[test]
fn java_without_its_bridge_says_to_turn_it_on() {
    let classes = common::java::compile_swing_form();
    let desktop = Desktop::start().expect("a headless desktop starts");
    // As a launcher that drops uidrive's JAVA_TOOL_OPTIONS would start it.
    let line = format!(
        "unset JAVA_TOOL_OPTIONS; exec java -cp {} SwingForm",
        classes.display()
    );
    let app = launch(&desktop, &["sh", "-c", &line]);
    says_it_has_no_tree(&app, "Java");
    let err = app.driver().tree(&TreeParams::default()).unwrap_err();
    assert!(err.message.contains("ATK bridge"), "{err}");
    assert!(
        err.suggestion.contains("JAVA_TOOL_OPTIONS")
            || err.suggestion.contains("libatk-wrapper-java"),
        "{}",
        err.suggestion
    );
    app.close().unwrap();
}
