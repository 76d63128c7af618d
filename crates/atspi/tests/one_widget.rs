//! One widget, one element: GTK 4's menu buttons (an outer button holding a
//! toggle with the same name) read as one element that takes the toggle's
//! actions, and notebook tabs take their label's name.

mod common;

use common::launch;
use uidrive_core::protocol::{Action, Role, Tree};

fn labelled(tree: &Tree, role: Role, label: &str) -> usize {
    tree.nodes
        .iter()
        .filter(|n| n.role == role && n.label.as_deref() == Some(label))
        .count()
}

#[test]
fn gnome_calculators_mode_button_is_one_element_that_opens_its_menu() {
    let app = launch(&["gnome-calculator"]);
    let tree = app.tree();
    assert_eq!(
        labelled(&tree, Role::Button, "Basic"),
        1,
        "one [button] \"Basic\""
    );
    let button = common::find(&tree, Role::Button, "Basic", |_| true);
    assert!(button.has_action(&Action::Press), "{button:?}");
    app.act(button.id, Action::Press).unwrap();
    app.wait_for("the mode menu shows Advanced", |t| {
        t.nodes.iter().any(|n| {
            n.label.as_deref() == Some("Advanced") && n.role != Role::Button && common::shown(n)
        })
    });
}

#[test]
fn gtk4_demo_notebook_tabs_read_their_labels() {
    let app = launch(&["gtk4-demo"]);
    let tree = app.tree();
    assert_eq!(labelled(&tree, Role::Tab, "Tab"), 0, "no tab named Tab");
    assert_eq!(labelled(&tree, Role::Tab, "Info"), 1);
    assert_eq!(labelled(&tree, Role::Tab, "Source"), 1);
}
