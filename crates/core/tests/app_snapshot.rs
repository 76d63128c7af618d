//! Snapshots through an App: refs stable across snapshots, usable as locators,
//! refused once their element is gone.

use std::sync::Arc;
use uidrive_core::protocol::ElementKey;
use uidrive_core::snapshot::View;
use uidrive_core::{expect, App, ErrorCode, MemoryDriver};

#[test]
fn refs_from_an_apps_snapshots_drive_locators_and_go_stale() {
    let driver = Arc::new(MemoryDriver::new());
    let app = App::new(driver.clone());

    let first = app.snapshot(None).unwrap();
    let text = first.render(&View::interactive()).unwrap();
    let add = first
        .elements
        .iter()
        .find(|e| e.label.as_deref() == Some("Add"))
        .unwrap();
    assert!(
        text.contains(&format!("{} [button] \"Add\"", add.r)),
        "{text}"
    );

    app.get_by_ref(&add.r.to_string()).unwrap().click().unwrap();
    expect(&app.get_by_key("count"))
        .to_have_text("Count: 1")
        .unwrap();

    let second = app.snapshot(None).unwrap();
    let again = second.elements.iter().find(|e| e.id == add.id).unwrap();
    assert_eq!(again.r, add.r, "an element keeps its ref");

    driver.edit(|ui| {
        ui.windows[0]
            .nodes
            .retain(|n| n.key != Some(ElementKey::from("add")))
    });
    app.snapshot(None).unwrap();
    let err = app
        .get_by_ref(&add.r.to_string())
        .expect_err("the ref went stale");
    assert_eq!(err.code, ErrorCode::StaleRef, "{err}");
    assert_eq!(
        app.get_by_ref("button").err().unwrap().code,
        ErrorCode::InvalidRequest
    );
}
