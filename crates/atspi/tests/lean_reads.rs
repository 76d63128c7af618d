//! Reads for a locator's matches alone (`Driver::tree_for`: every element's
//! role, label and states, every field of the elements a locator could
//! pick) pick what a whole read picks, on real GTK 3 and GTK 4 apps.

use std::collections::BTreeSet;
use std::time::Duration;
use uidrive_atspi::{launch_app, LaunchOptions};
use uidrive_core::protocol::Role;
use uidrive_core::{expect, App, RoleQuery, TextMatch};
use uidrive_x11::Desktop;

fn launch(desktop: &Desktop, argv: &[&str]) -> App {
    let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
    let options = LaunchOptions {
        env: desktop.env(),
        timeout: Duration::from_secs(30),
    };
    launch_app(&argv, &options).unwrap_or_else(|e| panic!("{} launches: {e}", argv[0]))
}

/// For every role and every label the window shows (and every role without
/// a name), the number of matches `count` finds on a whole read is the
/// number `expect` accepts on a read for the matches alone.
fn lean_reads_pick_as_whole_reads(argv: &[&str]) {
    let desktop = Desktop::start().expect("a headless desktop starts");
    let app = launch(&desktop, argv);
    expect(&app.get_by_role(Role::Button, RoleQuery::any()).first())
        .to_be_visible()
        .unwrap_or_else(|e| panic!("{}: a button shows: {e}", argv[0]));
    app.idle(None, Some(Duration::from_secs(10))).unwrap();
    let tree = app.tree(None).unwrap();
    // Each role, each role with each label, and that inside the nearest
    // labelled ancestor.
    type Query = (Role, Option<String>);
    // (the labelled ancestor's role and label, the role, the label)
    type Named = (Option<(String, String)>, String, Option<String>);
    let mut queries: BTreeSet<Named> = BTreeSet::new();
    for node in &tree.nodes {
        let role = node.role.as_str().to_string();
        queries.insert((None, role.clone(), None));
        let Some(label) = &node.label else { continue };
        queries.insert((None, role.clone(), Some(label.clone())));
        let mut up = node.parent.and_then(|p| tree.node(p));
        while let Some(parent) = up {
            if let Some(outer) = &parent.label {
                let outer = (parent.role.as_str().to_string(), outer.clone());
                queries.insert((Some(outer), role.clone(), Some(label.clone())));
                break;
            }
            up = parent.parent.and_then(|p| tree.node(p));
        }
    }
    let role_of = |name: &str| -> Role {
        serde_json::from_value(serde_json::Value::String(name.to_string())).unwrap()
    };
    let query = |(role, label): Query| match label {
        Some(label) => (role, RoleQuery::name(TextMatch::exact(label))),
        None => (role, RoleQuery::any()),
    };
    // At most about 120 of them, spread over the window, to keep the test short.
    let every = queries.len() / 120 + 1;
    let mut checked = 0;
    for (outer, role, label) in queries.iter().step_by(every) {
        let (inner_role, inner) = query((role_of(role), label.clone()));
        let locator = match outer {
            Some((outer_role, outer_label)) => {
                let (r, q) = query((role_of(outer_role), Some(outer_label.clone())));
                app.get_by_role(r, q).get_by_role(inner_role, inner)
            }
            None => app.get_by_role(inner_role, inner),
        };
        let whole = locator.count().unwrap();
        expect(&locator)
            .with_timeout(Duration::from_secs(2))
            .to_have_count(whole)
            .unwrap_or_else(|e| panic!("{}: {locator}: {e}", argv[0]));
        checked += 1;
    }
    assert!(checked > 10, "{}: only {checked} queries", argv[0]);
    app.close().unwrap();
}

#[test]
fn gtk3_widget_factory_lean_reads_pick_as_whole_reads() {
    lean_reads_pick_as_whole_reads(&["gtk3-widget-factory"]);
}

#[test]
fn gnome_calculator_lean_reads_pick_as_whole_reads() {
    lean_reads_pick_as_whole_reads(&["gnome-calculator"]);
}

#[test]
fn gtk4_demo_lean_reads_pick_as_whole_reads() {
    lean_reads_pick_as_whole_reads(&["gtk4-demo"]);
}
