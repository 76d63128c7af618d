//! `Find`: one door to the finders of an App, a window and a locator.

use std::sync::Arc;
use uidrive_core::protocol::{ElementKey, Role};
use uidrive_core::{App, Find, MemoryDriver, RoleQuery, TextMatch};

#[test]
fn every_root_finds_through_the_trait() {
    let app = App::new(Arc::new(MemoryDriver::new()));
    let window = app.window(1);
    let roots: [&dyn Find; 2] = [&app, &window];
    for root in roots {
        assert_eq!(
            root.get_by_key(ElementKey::from("add")).text().unwrap(),
            "Add"
        );
        let button = root.get_by_role(Role::Button, RoleQuery::name(TextMatch::exact("Add")));
        assert_eq!(button.count().unwrap(), 1);
        assert_eq!(root.locator("role=listItem").count().unwrap(), 3);
    }
    let list: &dyn Find = &app.get_by_key(ElementKey::from("fruits"));
    assert_eq!(
        list.get_by_text(TextMatch::exact("Banana"))
            .count()
            .unwrap(),
        1
    );
    assert_eq!(
        list.get_by_text(TextMatch::exact("Add")).count().unwrap(),
        0,
        "searches inside the list only"
    );
}
