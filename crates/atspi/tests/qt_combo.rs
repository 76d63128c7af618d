//! A Qt 6 combo box chosen as a person chooses: Qt Designer's Screen Size
//! in its New Form dialog. Its popup items' own action (`Toggle`) selects
//! an item in the popup without committing it, so `select_option` clicks
//! the item; the outcome is confirmed only by what the combo box shows,
//! and the dialog's own tree reads the new choice afterwards.

mod common;

use common::{options, DEADLINE};
use std::time::{Duration, Instant};
use uidrive_core::locator::{Effect, Route};
use uidrive_core::protocol::{Role, Tree, TreeParams};
use uidrive_core::{App, Driver, RoleQuery, TextMatch};
use uidrive_x11::Desktop;

const DESIGNER: &str = "/usr/lib/qt6/bin/designer";

/// The New Form dialog's window, once it shows.
fn new_form(app: &App) -> u64 {
    let started = Instant::now();
    loop {
        let windows = app.driver().windows().unwrap().windows;
        if let Some(w) = windows.iter().find(|w| w.title == "New Form") {
            return w.id;
        }
        assert!(
            started.elapsed() < DEADLINE,
            "no New Form among {windows:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn tree(app: &App, window: u64) -> Tree {
    app.driver()
        .tree(&TreeParams {
            window: Some(window),
        })
        .expect("the dialog reads")
}

/// The names of the dialog's enabled combo boxes (Device is disabled).
fn combos_shown(tree: &Tree) -> Vec<String> {
    tree.nodes
        .iter()
        .filter(|n| n.role == Role::ComboBox && common::enabled(n))
        .filter_map(|n| n.label.clone())
        .collect()
}

#[test]
fn a_qt_combo_box_select_commits_the_choice_and_is_judged_by_what_it_shows() {
    let desktop = Desktop::start().expect("a headless desktop starts");
    // A config of its own: Designer keeps the last size chosen.
    let config = std::env::temp_dir().join(format!("uidrive-designer-{}", std::process::id()));
    std::fs::create_dir_all(&config).unwrap();
    let mut opts = options(&desktop);
    opts.env
        .push(("XDG_CONFIG_HOME".into(), config.display().to_string()));
    let argv = vec![DESIGNER.to_string()];
    let app = uidrive_atspi::launch_app(&argv, &opts).expect("Qt Designer launches");
    let dialog = new_form(&app);
    assert_eq!(combos_shown(&tree(&app, dialog)), ["Default size"]);
    // By its place: its name is its choice. Device, disabled, comes first.
    let screen_size = app
        .window(dialog)
        .get_by_role(Role::ComboBox, RoleQuery::any())
        .nth(1);
    for choice in ["VGA landscape (640x480)", "QVGA portrait (240x320)"] {
        let outcome = screen_size
            .select_option(TextMatch::exact(choice))
            .unwrap_or_else(|e| panic!("{choice} is chosen: {e}"));
        // The item's own action would only highlight it: it is clicked.
        assert_eq!(outcome.route, Route::Input, "{choice}");
        assert_eq!(
            outcome.effect,
            Effect::Confirmed(format!("it is named by its choice, now {choice:?}"))
        );
        // Committed: the combo box shows it (its popup closed), as read anew.
        assert_eq!(combos_shown(&tree(&app, dialog)), [choice]);
    }
    drop(app);
    let _ = std::fs::remove_dir_all(&config);
}
