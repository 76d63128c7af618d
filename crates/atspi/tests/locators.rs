//! Locators and `expect` over the Linux driver, end to end: real apps on a
//! private headless desktop, driven only through locators, with no sleeps.

use std::time::Duration;
use uidrive_atspi::{launch_app, LaunchOptions};
use uidrive_core::protocol::Role;
use uidrive_core::{expect, App, ErrorCode, RoleQuery, TextMatch};
use uidrive_x11::Desktop;

fn launch(desktop: &Desktop, argv: &[&str]) -> App {
    let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
    let options = LaunchOptions {
        env: desktop.env(),
        timeout: Duration::from_secs(30),
    };
    launch_app(&argv, &options).unwrap_or_else(|e| panic!("{} launches: {e}", argv[0]))
}

#[test]
fn gnome_calculator_through_locators_only() {
    let desktop = Desktop::start().expect("a headless desktop starts");
    let app = launch(&desktop, &["gnome-calculator"]);
    let key = |label: &str| app.get_by_role(Role::Button, TextMatch::exact(label));
    for label in ["7", "×", "6", "="] {
        key(label)
            .click()
            .unwrap_or_else(|e| panic!("press {label}: {e}"));
    }
    expect(&app.get_by_role(Role::TextField, RoleQuery::any()).first())
        .to_have_value(TextMatch::exact("42"))
        .unwrap();

    // Strictness: "any button" matches dozens, and that is an error at once, not a guess.
    let err = app
        .get_by_role(Role::Button, RoleQuery::any())
        .click()
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Ambiguous, "{err}");
    assert!(err.message.contains("button"), "{}", err.message);
    app.close().unwrap();
}

#[test]
fn gtk3_widget_factory_through_locators_only() {
    let desktop = Desktop::start().expect("a headless desktop starts");
    let app = launch(&desktop, &["gtk3-widget-factory"]);

    let check = app
        .get_by_role(
            Role::CheckBox,
            RoleQuery::name("checkbutton").disabled(false),
        )
        .nth(1);
    expect(&check).not().to_be_checked().unwrap();
    check.check().unwrap();
    expect(&check).to_be_checked().unwrap();
    check.uncheck().unwrap();
    expect(&check).not().to_be_checked().unwrap();

    let entry = app
        .get_by_role(Role::TextField, RoleQuery::any().disabled(false))
        .nth(2);
    expect(&entry)
        .to_have_value(TextMatch::exact("entry"))
        .unwrap();
    entry.fill("uidrive ✓ größer").unwrap();
    expect(&entry)
        .to_have_value(TextMatch::exact("uidrive ✓ größer"))
        .unwrap();
    // Typing after a fill appends, as it would for a person.
    entry.type_text(" ok").unwrap();
    expect(&entry)
        .to_have_value(TextMatch::exact("uidrive ✓ größer ok"))
        .unwrap();

    let slider = app
        .get_by_role(Role::Slider, RoleQuery::any().disabled(false))
        .first();
    slider.set_value(75.0).unwrap();
    expect(&slider)
        .to_have_value(TextMatch::exact("75"))
        .unwrap();

    let disabled = app
        .get_by_role(Role::Slider, RoleQuery::any().disabled(true))
        .first();
    expect(&disabled).to_be_disabled().unwrap();
    let err = disabled
        .with_timeout(Duration::from_millis(800))
        .set_value(10.0)
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotActionable, "{err}");
    assert!(
        err.message.contains("enabled"),
        "the failed rung is named: {}",
        err.message
    );

    let page2 = app.get_by_role(Role::Radio, "Page 2");
    page2.click().unwrap();
    expect(&page2).to_be_checked().unwrap();
    expect(&check).to_be_hidden().unwrap();
    app.close().unwrap();
}
