//! Actions whose handler runs a modal dialog in a nested loop: they return
//! once the dialog shows, the dialog is read (by uidrive, and by pyatspi
//! over the bus, which every other client shares), answered by a real key,
//! a real click or an action, and the app goes on answering. Before, GTK 3
//! and wx apps answered no call over the bus while such a dialog was open,
//! and the first real key froze them for good (`crate::lanes` says why);
//! Qt apps answered the action only once the dialog closed, and the action
//! failed as a `timeout`.

mod common;

use common::{find, launch, Running, DEADLINE};
use std::process::Command;
use std::time::{Duration, Instant};
use uidrive_core::protocol::{
    Action, IdleParams, InputEvent, InputParams, MenuParams, PointerButton, Role, Tree, TreeParams,
    Window,
};
use uidrive_core::Driver;

fn test_app(name: &str) -> String {
    format!("{}/../../tests/apps/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Waits until a window titled `title` shows, or none does (`present`).
fn wait_window(app: &Running, title: impl Fn(&str) -> bool, present: bool) -> Option<Window> {
    let started = Instant::now();
    loop {
        let windows = app.driver.windows().expect("the app lists its windows");
        let titles: Vec<String> = windows
            .windows
            .iter()
            .map(|w| format!("{:?}", w.title))
            .collect();
        let found = windows
            .windows
            .into_iter()
            .find(|w| w.visible && title(&w.title));
        if found.is_some() == present {
            return found;
        }
        assert!(
            started.elapsed() < DEADLINE,
            "a window {} after {DEADLINE:?}; the app shows {}",
            if present {
                "never showed"
            } else {
                "still shows"
            },
            titles.join(", ")
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn tree_of(app: &Running, window: u64) -> Tree {
    app.driver
        .tree(&TreeParams {
            window: Some(window),
        })
        .expect("the window reads")
}

fn key(app: &Running, window: u64, chord: &str) {
    app.driver
        .input(&InputParams {
            window: Some(window),
            events: vec![InputEvent::Key {
                key: chord.parse().unwrap(),
            }],
            hold: false,
        })
        .expect("the key is sent");
}

/// pyatspi's walk of the window titled `title` over the accessibility bus,
/// as any other client reads the app: the number of elements it read.
fn pyatspi_walk(app: &Running, title: &str) -> u64 {
    let script = format!(
        "{}/../../scripts/compat/atspi_walk.py",
        env!("CARGO_MANIFEST_DIR")
    );
    let output = Command::new("timeout")
        .args(["20", "/usr/bin/python3", &script])
        .arg(app.child.id().to_string())
        .args(["--title", title])
        .envs(app.desktop.env())
        .output()
        .expect("pyatspi's walk runs");
    let out = String::from_utf8_lossy(&output.stdout);
    let line: serde_json::Value = serde_json::from_str(out.trim()).unwrap_or_else(|_| {
        panic!(
            "pyatspi could not read the window {title:?}: {out} {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    line["nodes"].as_u64().expect("a count of nodes")
}

/// Settling asks the app over the bus, where its events come.
fn settles(app: &Running) {
    app.driver
        .idle(&IdleParams::within(None, 10_000))
        .expect("the app answers over the bus and settles");
}

/// A window that opens a modal question with a button `Ask` and writes the
/// answer in a label: each way to answer it, and the app goes on.
fn modal_question(argv: &[&str], dialog_title: &str) {
    let app = launch(argv);
    let main = wait_window(&app, |_| true, true).unwrap().id;
    let label_reads = |text: &str| {
        let started = Instant::now();
        loop {
            let tree = tree_of(&app, main);
            if tree.nodes.iter().any(|n| n.text() == Some(text)) {
                return;
            }
            assert!(
                started.elapsed() < DEADLINE,
                "the label never read {text:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let ask = || {
        let tree = tree_of(&app, main);
        let button = find(&tree, Role::Button, "Ask", |_| true).id;
        app.driver
            .act(
                &uidrive_core::protocol::ActParams::on(button, Action::Press).in_window(Some(main)),
            )
            .expect("the press returns while its handler runs the dialog");
        let dialog = wait_window(&app, |t| t == dialog_title, true).unwrap();
        // The dialog reads, over the bus as well, and the app settles.
        let tree = tree_of(&app, dialog.id);
        find(&tree, Role::Button, "OK", |_| true);
        assert!(
            pyatspi_walk(&app, dialog_title) > 2,
            "pyatspi reads the dialog"
        );
        settles(&app);
        dialog
    };
    // A real key answers it.
    let dialog = ask();
    key(&app, dialog.id, "Enter");
    wait_window(&app, |t| t == dialog_title, false);
    label_reads_prefix(&app, main, "answered ");
    // An action answers it.
    let dialog = ask();
    let tree = tree_of(&app, dialog.id);
    let ok = find(&tree, Role::Button, "OK", |_| true).id;
    app.driver
        .act(&uidrive_core::protocol::ActParams::on(ok, Action::Press).in_window(Some(dialog.id)))
        .expect("the dialog's OK presses");
    wait_window(&app, |t| t == dialog_title, false);
    label_reads("answered OK");
    // And a real click, twice in a row.
    for _ in 0..2 {
        let dialog = ask();
        let tree = tree_of(&app, dialog.id);
        let ok = find(&tree, Role::Button, "OK", |_| true);
        let (x, y) = ok.bounds.expect("OK has a place").center();
        app.driver
            .input(&InputParams {
                window: Some(dialog.id),
                events: vec![InputEvent::Click(PointerButton::at(x, y))],
                hold: false,
            })
            .expect("the click is sent");
        wait_window(&app, |t| t == dialog_title, false);
    }
    label_reads("answered OK");
    settles(&app);
    // Four dialogs were opened by actions, each answered: a connection
    // whose handler ran a dialog is not used again while the dialog shows,
    // and is once it went.
    let (open, held) = app.driver.action_lanes().expect("the lanes are counted");
    assert!(
        (1..=2).contains(&open),
        "{open} lanes for four dialogs in a row"
    );
    assert!(held <= 1, "{held} lanes still held with no dialog open");
}

fn label_reads_prefix(app: &Running, window: u64, prefix: &str) {
    let started = Instant::now();
    loop {
        let tree = tree_of(app, window);
        if tree
            .nodes
            .iter()
            .any(|n| n.text().is_some_and(|t| t.starts_with(prefix)))
        {
            return;
        }
        assert!(started.elapsed() < DEADLINE, "no label reads {prefix:?}…");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn gtk3_dialog_run_opened_by_an_action_is_answered_and_the_app_goes_on() {
    let script = test_app("gtk3_modal.py");
    modal_question(&["/usr/bin/python3", &script], "Question");
}

#[test]
fn wx_message_box_opened_by_an_action_is_answered_and_the_app_goes_on() {
    let script = test_app("wx_modal.py");
    modal_question(&["/usr/bin/python3", &script], "Information");
}

/// Chooses `path` in the window's menus.
fn menu(app: &Running, window: u64, path: &[&str]) -> uidrive_core::Result<()> {
    app.driver.menu(&MenuParams {
        window: Some(window),
        path: path.iter().map(|s| s.to_string()).collect(),
    })
}

#[test]
fn qt_file_dialog_opened_from_a_menu_is_no_false_timeout() {
    // Qt answers DoAction only once the handler, here QFileDialog's exec, returns.
    let app = launch(&["featherpad"]);
    let main = wait_window(&app, |_| true, true).unwrap().id;
    menu(&app, main, &["File", "Save As"]).expect("Save As is chosen while its dialog opens");
    let dialog = wait_window(&app, |t| t.starts_with("Save as"), true).unwrap();
    let tree = tree_of(&app, dialog.id);
    find(&tree, Role::Button, "Cancel", |_| true);
    key(&app, dialog.id, "Escape");
    wait_window(&app, |t| t.starts_with("Save as"), false);
    // And again, answered by the dialog's Cancel action this time.
    menu(&app, main, &["File", "Save As"]).expect("Save As is chosen again");
    let dialog = wait_window(&app, |t| t.starts_with("Save as"), true).unwrap();
    let tree = tree_of(&app, dialog.id);
    let cancel = find(&tree, Role::Button, "Cancel", |_| true).id;
    app.driver
        .act(
            &uidrive_core::protocol::ActParams::on(cancel, Action::Press)
                .in_window(Some(dialog.id)),
        )
        .expect("Cancel presses");
    wait_window(&app, |t| t.starts_with("Save as"), false);
    settles(&app);
    tree_of(&app, main);
}

#[test]
fn inkscape_save_as_dialog_takes_real_keys_and_the_app_goes_on() {
    let drawing = std::env::temp_dir().join(format!("uidrive-modal-{}.svg", std::process::id()));
    std::fs::write(
        &drawing,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect width="50" height="50"/></svg>"#,
    )
    .unwrap();
    let app = launch(&["inkscape", drawing.to_str().unwrap()]);
    let main = wait_window(&app, |t| t.ends_with("- Inkscape"), true)
        .unwrap()
        .id;
    menu(&app, main, &["File", "Save As..."]).expect("Save As... is chosen");
    let dialog = wait_window(&app, |t| t == "Select file to save to", true).unwrap();
    key(&app, dialog.id, "Ctrl+a");
    settles(&app);
    tree_of(&app, dialog.id);
    key(&app, dialog.id, "Escape");
    wait_window(&app, |t| t == "Select file to save to", false);
    settles(&app);
    assert!(
        tree_of(&app, main).nodes.len() > 10,
        "the drawing's window reads"
    );
    let _ = std::fs::remove_file(&drawing);
}

#[test]
fn audacity_tone_dialog_takes_real_keys_and_actions_and_the_app_goes_on() {
    let home = std::env::temp_dir().join(format!("uidrive-audacity-{}", std::process::id()));
    // Audacity keeps unsaved projects in a temp dir outside HOME, and offers
    // to recover those of every run killed before: this run gets its own.
    let config = home.join(".config/audacity");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("audacity.cfg"),
        format!("[Directories]\nTempDir={}/tmp\n", home.display()),
    )
    .unwrap();
    let desktop = uidrive_x11::Desktop::start().expect("a headless desktop starts");
    let mut options = common::options(&desktop);
    options
        .env
        .push(("HOME".to_string(), home.display().to_string()));
    let argv = vec!["audacity".to_string()];
    let (driver, child) =
        uidrive_atspi::AtspiDriver::launch(&argv, &options).expect("audacity launches");
    let app = Running {
        driver,
        child,
        desktop,
    };
    let main = wait_window(&app, |t| t == "Audacity", true).unwrap().id;
    // A fresh profile greets first.
    if let Some(welcome) = app
        .driver
        .windows()
        .unwrap()
        .windows
        .into_iter()
        .find(|w| w.title.starts_with("Welcome"))
    {
        key(&app, welcome.id, "Escape");
        wait_window(&app, |t| t.starts_with("Welcome"), false);
    }
    menu(&app, main, &["Generate", "Tone..."]).expect("Tone... is chosen");
    let dialog = wait_window(&app, |t| t == "Tone", true).unwrap();
    assert!(pyatspi_walk(&app, "Tone") > 5, "pyatspi reads the dialog");
    key(&app, dialog.id, "Escape");
    wait_window(&app, |t| t == "Tone", false);
    menu(&app, main, &["Generate", "Tone..."]).expect("Tone... is chosen again");
    let dialog = wait_window(&app, |t| t == "Tone", true).unwrap();
    let tree = tree_of(&app, dialog.id);
    let generate = find(&tree, Role::Button, "Generate", |_| true).id;
    app.driver
        .act(
            &uidrive_core::protocol::ActParams::on(generate, Action::Press)
                .in_window(Some(dialog.id)),
        )
        .expect("Generate presses");
    wait_window(&app, |t| t == "Tone", false);
    settles(&app);
    assert!(
        tree_of(&app, main).nodes.len() > 10,
        "the main window reads"
    );
    drop(app);
    let _ = std::fs::remove_dir_all(&home);
}
