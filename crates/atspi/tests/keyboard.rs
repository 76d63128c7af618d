//! The keyboard as a person uses it, on a real app: a locator types key by
//! key into its field, and the app's keyboard presses chords and types into
//! whatever has the focus. gtk3-widget-factory on a private headless desktop.

use std::time::Duration;
use uidrive_atspi::{launch_app, LaunchOptions};
use uidrive_core::protocol::Role;
use uidrive_core::{expect, RoleQuery, Route, TextMatch};
use uidrive_x11::Desktop;

#[test]
fn keys_typed_one_by_one_and_chords_reach_the_focused_field() {
    let desktop = Desktop::start().expect("a headless desktop starts");
    let options = LaunchOptions {
        env: desktop.env(),
        timeout: Duration::from_secs(30),
    };
    let app = launch_app(&["gtk3-widget-factory".to_string()], &options)
        .expect("gtk3-widget-factory launches");
    let entry = app
        .get_by_role(Role::TextField, RoleQuery::any().disabled(false))
        .nth(2);
    expect(&entry)
        .to_have_value(TextMatch::exact("entry"))
        .unwrap();

    // Without a delay, the keys go in one input request, one key per character.
    entry.press("CmdOrCtrl+A").unwrap();
    entry.press_sequentially("ça va ✓", None).unwrap();
    expect(&entry)
        .to_have_value(TextMatch::exact("ça va ✓"))
        .unwrap();

    // Select what the field holds, then type over it key by key, 5 ms apart.
    entry.press("CmdOrCtrl+A").unwrap();
    let outcome = entry
        .press_sequentially("größer ✓", Some(Duration::from_millis(5)))
        .unwrap();
    assert_eq!(outcome.route, Route::Input);
    expect(&entry)
        .to_have_value(TextMatch::exact("größer ✓"))
        .unwrap();

    // The app's keyboard types into the element that has the focus.
    let keyboard = app.keyboard();
    keyboard.press("End").unwrap();
    keyboard.type_text("!", None).unwrap();
    keyboard
        .type_text("ab", Some(Duration::from_millis(5)))
        .unwrap();
    expect(&entry)
        .to_have_value(TextMatch::exact("größer ✓!ab"))
        .unwrap();
    keyboard.press("Backspace").unwrap();
    expect(&entry)
        .to_have_value(TextMatch::exact("größer ✓!a"))
        .unwrap();
    app.close().unwrap();
}
