//! The toolkit's hit test (`elementAt`): the element at a button's centre is
//! the button or a part of it, and a point outside every element hits nothing
//! inside the window. Real apps on a private headless desktop.

mod common;

use common::launch;
use uidrive_core::protocol::{ElementAtParams, ElementId, Node, Role, Tree};
use uidrive_core::Driver;

/// Whether `hit` is `target` or one of its descendants in `tree`.
fn within(tree: &Tree, hit: ElementId, target: ElementId) -> bool {
    let mut at = Some(hit);
    while let Some(id) = at {
        if id == target {
            return true;
        }
        at = tree
            .nodes
            .iter()
            .find(|n| n.id == id)
            .and_then(|n| n.parent);
    }
    false
}

fn centre(node: &Node) -> (f64, f64) {
    let b = node.bounds.as_ref().expect("the button has bounds");
    (b.x + b.width / 2.0, b.y + b.height / 2.0)
}

fn hits_its_button(argv: &[&str], label: &str) {
    let app = launch(argv);
    let tree = app.tree();
    let button = tree
        .nodes
        .iter()
        .find(|n| n.role == Role::Button && n.label.as_deref() == Some(label))
        .unwrap_or_else(|| panic!("{} shows a button {label:?}", argv[0]));
    let (x, y) = centre(button);
    let hit = app
        .driver
        .element_at(&ElementAtParams { window: None, x, y })
        .unwrap_or_else(|e| panic!("{} answers a hit test: {e}", argv[0]))
        .expect("something is under the button's centre");
    assert!(
        within(&tree, hit, button.id),
        "the hit {hit} at ({x}, {y}) is not the button {} or inside it",
        button.id
    );
    // The deepest: nothing the read shows inside the hit is under the point
    // (GTK 4 is asked once, as it answers the deepest widget at once).
    let under = |n: &&Node| {
        n.bounds
            .as_ref()
            .is_some_and(|b| x >= b.x && y >= b.y && x < b.x + b.width && y < b.y + b.height)
    };
    let deeper = tree
        .nodes
        .iter()
        .filter(|n| n.parent == Some(hit))
        .find(under);
    assert!(
        deeper.is_none(),
        "{deeper:?} is inside the hit {hit} and under ({x}, {y})"
    );
}

#[test]
fn gtk4_hit_test_finds_the_button_under_its_centre() {
    hits_its_button(&["gnome-calculator"], "7");
}

#[test]
fn gtk3_hit_test_finds_the_button_under_its_centre() {
    hits_its_button(&["gtk3-widget-factory"], "Sans Regular");
}

/// A locator's click is a real click where the hit test says it lands: the
/// outcome names the input route, and the calculator takes the key.
#[test]
fn a_locator_click_is_a_real_click_where_it_lands() {
    use uidrive_core::{expect, RoleQuery, Route, TextMatch};
    let desktop = uidrive_x11::Desktop::start().expect("a headless desktop starts");
    let argv = vec!["gnome-calculator".to_string()];
    let app = uidrive_atspi::launch_app(&argv, &common::options(&desktop))
        .expect("gnome-calculator launches");
    let outcome = app
        .get_by_role(Role::Button, TextMatch::exact("7"))
        .click()
        .expect("7 is clicked");
    assert_eq!(outcome.route, Route::Input, "{outcome:?}");
    expect(&app.get_by_role(Role::TextField, RoleQuery::any()).first())
        .to_have_value(TextMatch::exact("7"))
        .unwrap();
    app.close().unwrap();
}
