//! Reads for a locator's matches alone (`Driver::tree_for`: every element's
//! role, label and states, every field of the elements a locator could
//! pick) pick what a whole read picks, on real GTK 3 and GTK 4 apps.

mod common;

use std::collections::BTreeSet;
use std::time::Duration;
use uidrive_atspi::{launch_app, LaunchOptions};
use uidrive_core::protocol::{Action, ElementId, Node, Role, Tree, TreeParams};
use uidrive_core::{expect, App, Driver, RoleQuery, TextMatch};
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

/// The nodes of `tree` that `wanted` names, in tree order.
fn named<'a>(tree: &'a Tree, wanted: &[ElementId]) -> Vec<&'a Node> {
    tree.nodes
        .iter()
        .filter(|n| wanted.contains(&n.id))
        .collect()
}

/// A locator's read right after another that filled in the same elements
/// takes the fields asked beside its structure (`early_fill`), and they
/// read as the fields the read before asked after it.
fn reads_in_a_row_fill_early_as_asked_after(argv: &[&str], role: Role) {
    let app = common::launch(argv);
    let wanted = |tree: &Tree| -> Vec<ElementId> {
        tree.nodes
            .iter()
            .filter(|n| n.role == role)
            .map(|n| n.id)
            .collect()
    };
    app.idle();
    let params = TreeParams::default();
    let served = app.driver.fills_from_early_answers();
    let first = app.driver.tree_for(&params, &wanted).unwrap();
    assert_eq!(
        app.driver.fills_from_early_answers(),
        served,
        "{}: a driver's first read has no fill before it to follow",
        argv[0]
    );
    let ids = wanted(&first);
    assert!(!ids.is_empty(), "{}: the window shows a {role:?}", argv[0]);
    app.idle();
    let second = app.driver.tree_for(&params, &wanted).unwrap();
    assert_eq!(
        app.driver.fills_from_early_answers() - served,
        ids.len() as u64,
        "{}: every element the first read filled in was asked early by the second",
        argv[0]
    );
    assert_eq!(named(&second, &ids), named(&first, &ids), "{}", argv[0]);
    assert!(
        named(&second, &ids).iter().any(|n| n.bounds.is_some()),
        "{}: the early fields carry boxes",
        argv[0]
    );
}

#[test]
fn gtk3_reads_in_a_row_fill_early_as_asked_after() {
    reads_in_a_row_fill_early_as_asked_after(&["gtk3-widget-factory"], Role::Button);
}

#[test]
fn gtk4_reads_in_a_row_fill_early_as_asked_after() {
    reads_in_a_row_fill_early_as_asked_after(&["gtk4-demo"], Role::Button);
}

/// Fields asked early are asked during the read that takes them: an entry
/// whose text changed after the read before shows its new text at once.
#[test]
fn fields_asked_early_show_a_change_made_since_the_read_before() {
    let app = common::launch(&["gtk3-widget-factory"]);
    app.idle();
    let params = TreeParams::default();
    let fields = |tree: &Tree| -> Vec<ElementId> {
        tree.nodes
            .iter()
            .filter(|n| n.role == Role::TextField)
            .map(|n| n.id)
            .collect()
    };
    let before = app.driver.tree_for(&params, &fields).unwrap();
    let entry = before
        .nodes
        .iter()
        .find(|n| n.role == Role::TextField && n.value.as_deref() == Some("entry"))
        .expect("an entry reading \"entry\"")
        .id;
    app.act_text(entry, Action::SetValue, "early ✓").unwrap();
    let served = app.driver.fills_from_early_answers();
    let after = app
        .driver
        .tree_for(&params, &|_: &Tree| vec![entry])
        .unwrap();
    assert!(
        app.driver.fills_from_early_answers() > served,
        "the entry's fields were asked early"
    );
    let node = after
        .nodes
        .iter()
        .find(|n| n.id == entry)
        .expect("the entry");
    assert_eq!(node.value.as_deref(), Some("early ✓"));
}
