//! Locators and `expect` over the in-memory driver: matching, strictness, the
//! actionability ladder and its retries, actions and their routes, and the
//! messages of failures. The UI changes between reads through the driver's
//! `before_tree` hook, so no test depends on how fast the machine is.

use std::sync::{Arc, Mutex};
use std::time::Duration;
use uidrive_core::memory::COUNTER_WINDOW;
use uidrive_core::memory::{node, Faults, Ui};
use uidrive_core::protocol::{
    ActParams, Action, Bounds, Capture, CaptureParams, CellAtParams, ElementId, EvalParams, Hello,
    IdleParams, InputParams, MenuParams, Node, Role, State, Tree, TreeParams, WindowList,
};
use uidrive_core::{
    expect, App, Driver, Effect, ErrorCode, Filter, MemoryDriver, Result, RoleQuery, Route,
    TextMatch, Timeouts,
};

/// The demo app, with the driver kept for editing the UI.
fn demo() -> (Arc<MemoryDriver>, App) {
    let driver = Arc::new(MemoryDriver::new());
    let app = App::new(driver.clone());
    (driver, app)
}

/// The demo app with short timeouts, for tests that expect a failure.
fn impatient() -> (Arc<MemoryDriver>, App) {
    let (driver, app) = demo();
    app.set_timeouts(Timeouts {
        action: Duration::from_millis(300),
        expect: Duration::from_millis(300),
    });
    (driver, app)
}

fn reads(driver: &MemoryDriver) -> u64 {
    driver.edit(|ui| ui.tree_reads)
}

fn log(driver: &MemoryDriver) -> Vec<String> {
    driver.edit(|ui| ui.log.clone())
}

fn edit_keyed(driver: &MemoryDriver, key: &str, change: impl FnOnce(&mut Node)) {
    driver.edit(|ui| change(ui.windows[0].keyed(key)));
}

fn add_node(driver: &MemoryDriver, node: Node) {
    driver.edit(|ui| ui.windows[0].nodes.push(node));
}

fn remove_keyed(ui: &mut Ui, key: &str) -> Node {
    let nodes = &mut ui.windows[0].nodes;
    let at = nodes
        .iter()
        .position(|n| n.key.as_ref().is_some_and(|k| k.to_string() == key))
        .expect("the demo UI has this key");
    nodes.remove(at)
}

// ---- finding and matching ----

#[test]
fn factories_find_elements_the_way_a_user_names_them() {
    let (_, app) = demo();
    assert_eq!(app.get_by_key("count").text().unwrap(), "Count: 0");
    assert_eq!(
        app.get_by_role(Role::Button, "Add")
            .node()
            .unwrap()
            .label
            .as_deref(),
        Some("Add")
    );
    assert_eq!(
        app.get_by_label("Name").value().unwrap().as_deref(),
        Some("Ada")
    );
    assert_eq!(app.get_by_text("count:").text().unwrap(), "Count: 0");
    assert_eq!(
        app.get_by_role(Role::Slider, RoleQuery::any())
            .value()
            .unwrap()
            .as_deref(),
        Some("50")
    );
    assert_eq!(
        app.get_by_role(Role::CheckBox, RoleQuery::name("subscribe").checked(false))
            .count()
            .unwrap(),
        1
    );
    assert_eq!(
        app.get_by_role(Role::CheckBox, RoleQuery::any().checked(true))
            .count()
            .unwrap(),
        0
    );
}

#[test]
fn placeholder_matches_fields_by_their_hint() {
    let (driver, app) = demo();
    edit_keyed(&driver, "name", |n| {
        n.placeholder = Some("Your  full\nname".into())
    });
    assert_eq!(app.get_by_placeholder("your full name").count().unwrap(), 1);
    assert_eq!(app.get_by_placeholder("nickname").count().unwrap(), 0);
}

#[test]
fn names_match_as_folded_case_insensitive_substrings_by_default() {
    let (driver, app) = demo();
    edit_keyed(&driver, "add", |n| {
        n.label = Some("  Add\n\t one  item ".into())
    });
    assert_eq!(
        app.get_by_role(Role::Button, "add one ITEM")
            .count()
            .unwrap(),
        1
    );
    assert_eq!(app.get_by_role(Role::Button, "one").count().unwrap(), 1);
    assert_eq!(app.get_by_text("add one item").count().unwrap(), 1);
}

#[test]
fn exact_matching_takes_the_whole_folded_text_with_case() {
    let (driver, app) = demo();
    edit_keyed(&driver, "add", |n| n.label = Some(" Add \n item".into()));
    assert_eq!(
        app.get_by_role(Role::Button, TextMatch::exact("Add item"))
            .count()
            .unwrap(),
        1
    );
    assert_eq!(
        app.get_by_role(Role::Button, TextMatch::exact("add item"))
            .count()
            .unwrap(),
        0
    );
    assert_eq!(
        app.get_by_role(Role::Button, TextMatch::exact("Add"))
            .count()
            .unwrap(),
        0
    );
}

#[test]
fn regex_matching_searches_the_folded_text() {
    let (driver, app) = demo();
    let count = TextMatch::regex(r"^Count: \d+$").unwrap();
    assert_eq!(app.get_by_text(count.clone()).text().unwrap(), "Count: 0");
    edit_keyed(&driver, "count", |n| n.label = Some("Count:\n 12  ".into()));
    assert_eq!(app.get_by_text(count).text().unwrap(), "Count:\n 12  ");
    assert_eq!(
        app.get_by_text(TextMatch::regex("(?i)^count").unwrap())
            .count()
            .unwrap(),
        1
    );
    assert_eq!(
        app.get_by_text(TextMatch::regex("^count").unwrap())
            .count()
            .unwrap(),
        0
    );
    assert_eq!(
        TextMatch::regex("(").unwrap_err().code,
        ErrorCode::InvalidRequest
    );
}

#[test]
fn text_keeps_the_inner_element_and_label_skips_plain_text() {
    let (driver, app) = demo();
    add_node(
        &driver,
        node(100, None, Role::Button, "Seven", (20.0, 300.0, 40.0, 40.0)),
    );
    add_node(
        &driver,
        node(
            101,
            Some(100),
            Role::Text,
            "Seven",
            (24.0, 304.0, 30.0, 30.0),
        ),
    );
    // A label beside the field names it too: get_by_label finds the field, not the label.
    add_node(
        &driver,
        node(102, None, Role::Text, "Name", (20.0, 350.0, 60.0, 20.0)),
    );
    let seven = app.get_by_text("Seven").node().unwrap();
    assert_eq!(seven.id, ElementId(101));
    assert_eq!(
        app.get_by_label("Name").node().unwrap().role,
        Role::TextField
    );
    // get_by_text skips the field, whose label comes from beside it.
    assert_eq!(
        app.get_by_text(TextMatch::exact("Name")).node().unwrap().id,
        ElementId(102)
    );
}

#[test]
fn hidden_elements_are_left_out_unless_asked_for() {
    let (driver, app) = impatient();
    edit_keyed(&driver, "add", |n| {
        n.bounds = Some(Bounds::new(20.0, 48.0, 0.0, 0.0))
    });
    edit_keyed(&driver, "name", |n| n.states.push(State::Offscreen));
    assert_eq!(app.get_by_key("add").count().unwrap(), 0);
    assert_eq!(app.get_by_key("name").count().unwrap(), 0);
    assert_eq!(
        app.get_by_key("add").include_hidden(true).count().unwrap(),
        1
    );
    assert!(!app.get_by_key("add").is_visible().unwrap());
    assert!(!app
        .get_by_key("add")
        .include_hidden(true)
        .is_visible()
        .unwrap());

    let err = app.get_by_key("add").click().unwrap_err();
    assert_eq!(err.code, ErrorCode::NoElement);
    assert!(
        err.message.contains("1 hidden element matches"),
        "{}",
        err.message
    );
    assert!(
        err.suggestion.contains("include_hidden"),
        "{}",
        err.suggestion
    );

    // Included, it is found, and the visible rung is what fails.
    let err = app
        .get_by_key("add")
        .include_hidden(true)
        .click()
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotActionable);
    assert!(err.message.contains("not visible"), "{}", err.message);
}

// ---- refining ----

#[test]
fn chains_nth_first_last_filter_and_all() {
    let (_, app) = demo();
    let items = app.get_by_role(Role::ListItem, RoleQuery::any());
    assert_eq!(items.count().unwrap(), 3);
    assert_eq!(items.first().text().unwrap(), "Apple");
    assert_eq!(items.nth(1).text().unwrap(), "Banana");
    assert_eq!(items.last().text().unwrap(), "Cherry");
    assert_eq!(items.nth(7).count().unwrap(), 0);
    let texts: Vec<String> = items
        .all()
        .unwrap()
        .iter()
        .map(|l| l.text().unwrap())
        .collect();
    assert_eq!(texts, ["Apple", "Banana", "Cherry"]);

    assert_eq!(items.filter_has_text("ERR").text().unwrap(), "Cherry");
    assert_eq!(
        items
            .filter(Filter::new().has_not_text("a"))
            .text()
            .unwrap(),
        "Cherry"
    );

    // Inside another element, and holding another element.
    let fruits = app.get_by_key("fruits");
    assert_eq!(
        fruits
            .get_by_role(Role::ListItem, RoleQuery::any())
            .count()
            .unwrap(),
        3
    );
    assert_eq!(fruits.get_by_text("Count").count().unwrap(), 0);
    let banana = app.get_by_text(TextMatch::exact("Banana"));
    assert_eq!(
        app.get_by_role(Role::List, RoleQuery::any())
            .filter_has(&banana)
            .count()
            .unwrap(),
        1
    );
    assert_eq!(
        app.get_by_role(Role::List, RoleQuery::any())
            .filter(Filter::new().has_not(&banana))
            .count()
            .unwrap(),
        0
    );
    assert_eq!(fruits.find(&banana).text().unwrap(), "Banana");
}

#[test]
fn selector_strings_parse_into_the_same_locators() {
    let (_, app) = demo();
    assert_eq!(
        app.locator("role=listItem[name=/^b/i]").text().unwrap(),
        "Banana"
    );
    assert_eq!(
        app.locator("key=fruits >> role=listItem >> nth=2")
            .text()
            .unwrap(),
        "Cherry"
    );
    assert_eq!(app.locator("text=\"Count: 0\"").count().unwrap(), 1);
    assert_eq!(
        app.get_by_key("fruits")
            .locator("text=apple")
            .count()
            .unwrap(),
        1
    );
    let err = app.locator("role=frobnicator").click().unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
    assert!(err.message.contains("frobnicator"), "{}", err.message);
}

#[test]
fn windows_are_chosen_by_id_or_title() {
    let (_, app) = impatient();
    assert_eq!(app.window(1).get_by_key("add").count().unwrap(), 1);
    assert_eq!(
        app.window_titled("count").get_by_key("add").text().unwrap(),
        "Add"
    );
    assert_eq!(
        app.window_titled("Settings")
            .get_by_key("add")
            .count()
            .unwrap(),
        0
    );
    let err = app
        .window_titled("Settings")
        .get_by_key("add")
        .click()
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NoWindow);
    assert!(err.message.contains("\"Counter\""), "{}", err.message);
}

// ---- strictness ----

#[test]
fn two_matches_fail_at_once_with_the_candidates() {
    let (driver, app) = demo(); // the default 10 s timeout: the failure must not wait for it
    add_node(
        &driver,
        node(
            100,
            None,
            Role::Button,
            "Add more",
            (20.0, 300.0, 100.0, 30.0),
        ),
    );
    let before = reads(&driver);
    let err = app.get_by_role(Role::Button, "add").click().unwrap_err();
    assert_eq!(err.code, ErrorCode::Ambiguous);
    assert_eq!(
        reads(&driver) - before,
        1,
        "ambiguity is reported on the first read"
    );
    assert!(
        err.message.contains("matches 2 elements"),
        "{}",
        err.message
    );
    assert!(
        err.message.contains("button \"Add\" key=add"),
        "{}",
        err.message
    );
    assert!(
        err.message
            .contains("button \"Add more\" at (20, 300) 100x30"),
        "{}",
        err.message
    );
    assert!(err.suggestion.contains("nth"), "{}", err.suggestion);

    // Reads are strict too; count and nth are not.
    assert_eq!(
        app.get_by_role(Role::Button, "add")
            .text()
            .unwrap_err()
            .code,
        ErrorCode::Ambiguous
    );
    assert_eq!(app.get_by_role(Role::Button, "add").count().unwrap(), 2);
    assert_eq!(
        app.get_by_role(Role::Button, "add").nth(1).text().unwrap(),
        "Add more"
    );
    assert_eq!(
        app.get_by_role(Role::Button, TextMatch::exact("Add"))
            .text()
            .unwrap(),
        "Add"
    );
    let err = expect(&app.get_by_role(Role::Button, "add"))
        .to_be_enabled()
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Ambiguous);
}

// ---- the ladder, retried ----

#[test]
fn an_element_that_appears_late_is_waited_for() {
    let (driver, app) = demo();
    let add = driver.edit(|ui| remove_keyed(ui, "add"));
    let mut pending = Some(add);
    driver.before_tree(move |ui| {
        if ui.tree_reads == 4 {
            ui.windows[0]
                .nodes
                .push(pending.take().expect("added once"));
        }
    });
    let done = app.get_by_role(Role::Button, "Add").click().unwrap();
    assert_eq!(done.route, Route::Semantic(Action::Press));
    assert!(reads(&driver) >= 4);
    expect(&app.get_by_key("count"))
        .to_have_text(TextMatch::exact("Count: 1"))
        .unwrap();
}

#[test]
fn an_element_that_never_appears_times_out_with_no_element() {
    let (driver, app) = impatient();
    driver.edit(|ui| remove_keyed(ui, "add"));
    let err = app.get_by_key("add").click().unwrap_err();
    assert_eq!(err.code, ErrorCode::NoElement);
    assert!(
        err.message
            .starts_with("click: no element matches get_by_key(\"add\")"),
        "{}",
        err.message
    );
    assert!(err.message.contains("after 300 ms"), "{}", err.message);
    assert!(reads(&driver) > 2, "it kept reading until the timeout");
}

#[test]
fn a_disabled_element_is_acted_on_once_enabled() {
    let (driver, app) = demo();
    edit_keyed(&driver, "add", |n| n.states.push(State::Disabled));
    driver.before_tree(|ui| {
        if ui.tree_reads == 4 {
            ui.windows[0]
                .keyed("add")
                .states
                .retain(|s| s != &State::Disabled);
        }
    });
    app.get_by_key("add").click().unwrap();
    assert!(
        reads(&driver) >= 4,
        "enabled at read 4, with the same bounds as read 3"
    );
    assert_eq!(
        log(&driver),
        ["act press"],
        "nothing was sent while it was disabled"
    );
    expect(&app.get_by_key("count"))
        .to_have_text("Count: 1")
        .unwrap();
}

#[test]
fn a_disabled_element_times_out_naming_the_rung_and_its_last_look() {
    let (driver, app) = impatient();
    edit_keyed(&driver, "add", |n| n.states.push(State::Disabled));
    let err = app.get_by_key("add").click().unwrap_err();
    assert_eq!(err.code, ErrorCode::NotActionable);
    assert!(
        err.message.contains("was not enabled after 300 ms"),
        "{}",
        err.message
    );
    assert!(
        err.message
            .contains("last read: button \"Add\" key=add [focusable, disabled] at (20, 48) 360x32"),
        "{}",
        err.message
    );
    assert!(log(&driver).is_empty());
}

/// Moves the Add button on every read until read `until`.
fn move_add_until(driver: &MemoryDriver, until: u64) {
    driver.before_tree(move |ui| {
        if ui.tree_reads <= until {
            let add = ui.windows[0].keyed("add");
            add.bounds = Some(Bounds::new(20.0 + ui.tree_reads as f64, 48.0, 360.0, 32.0));
        }
    });
}

#[test]
fn a_moving_element_is_acted_on_once_it_holds_still() {
    let (driver, app) = demo();
    move_add_until(&driver, 5);
    let done = app.get_by_key("add").click().unwrap();
    assert_eq!(
        done.element.bounds,
        Some(Bounds::new(25.0, 48.0, 360.0, 32.0))
    );
    assert!(reads(&driver) >= 6, "read 5 and 6 showed the same bounds");
    assert_eq!(log(&driver), ["act press"]);
}

#[test]
fn an_element_that_keeps_moving_is_not_stable() {
    let (driver, app) = impatient();
    move_add_until(&driver, u64::MAX);
    let err = app.get_by_key("add").click().unwrap_err();
    assert_eq!(err.code, ErrorCode::NotActionable);
    assert!(err.message.contains("was not stable"), "{}", err.message);
    assert!(err.message.contains("moved from ("), "{}", err.message);
    assert!(log(&driver).is_empty());
}

#[test]
fn reads_need_only_the_element_not_the_ladder() {
    let (driver, app) = demo();
    edit_keyed(&driver, "add", |n| n.states.push(State::Disabled));
    move_add_until(&driver, u64::MAX);
    assert!(!app.get_by_key("add").is_enabled().unwrap());
    assert_eq!(
        app.get_by_key("add").states().unwrap(),
        [State::Focusable, State::Disabled]
    );
    assert!(app.get_by_key("add").bounds().unwrap().is_some());
}

type Change = Box<dyn FnOnce(&mut Ui) + Send>;

/// The demo app behind a driver with hooks: its next `act` first runs a
/// change (as if the app changed between the locator's read and its action)
/// or runs one after it (as an app's handler does once the action ran), it
/// may drop typed text (an app that answers input and loses it), and it
/// counts the window reads.
#[derive(Default)]
struct Racy {
    inner: Arc<MemoryDriver>,
    before_act: Mutex<Option<Change>>,
    after_act: Mutex<Option<Change>>,
    drops_text: bool,
    trees: std::sync::atomic::AtomicUsize,
}

impl Driver for Racy {
    fn hello(&self) -> Result<Hello> {
        self.inner.hello()
    }
    fn windows(&self) -> Result<WindowList> {
        self.inner.windows()
    }
    fn tree(&self, params: &TreeParams) -> Result<Tree> {
        self.trees.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.inner.tree(params)
    }
    fn act(&self, params: &ActParams) -> Result<()> {
        if let Some(change) = self.before_act.lock().unwrap().take() {
            self.inner.edit(change);
        }
        self.inner.act(params)?;
        if let Some(change) = self.after_act.lock().unwrap().take() {
            self.inner.edit(change);
        }
        Ok(())
    }
    fn input(&self, params: &InputParams) -> Result<()> {
        let mut kept = params.clone();
        if self.drops_text {
            kept.events
                .retain(|e| !matches!(e, uidrive_core::protocol::InputEvent::Text { .. }));
            if kept.events.is_empty() {
                return Ok(());
            }
        }
        self.inner.input(&kept)
    }
    fn menu(&self, params: &MenuParams) -> Result<()> {
        self.inner.menu(params)
    }
    fn capture(&self, params: &CaptureParams) -> Result<Capture> {
        self.inner.capture(params)
    }
    fn eval(&self, params: &EvalParams) -> Result<serde_json::Value> {
        self.inner.eval(params)
    }
    fn idle(&self, params: &IdleParams) -> Result<()> {
        self.inner.idle(params)
    }
}

fn racy(change: impl FnOnce(&mut Ui) + Send + 'static) -> (Arc<MemoryDriver>, App) {
    let inner = Arc::new(MemoryDriver::new());
    let driver = Racy {
        inner: inner.clone(),
        before_act: Mutex::new(Some(Box::new(change))),
        ..Racy::default()
    };
    (inner, App::new(Arc::new(driver)))
}

#[test]
fn an_element_replaced_between_resolve_and_act_is_found_again() {
    // The view rebuilds the button under a new id just before the press lands.
    let (driver, app) = racy(|ui| ui.windows[0].keyed("add").id = ElementId(777));
    let done = app.get_by_key("add").click().unwrap();
    assert_eq!(done.element.id, ElementId(777));
    assert_eq!(
        log(&driver),
        ["act press", "act press"],
        "the first press missed, the second landed"
    );
    expect(&app.get_by_key("count"))
        .to_have_text("Count: 1")
        .unwrap();
}

#[test]
fn an_element_gone_between_resolve_and_act_fails_with_no_element() {
    let (driver, app) = racy(|ui| {
        remove_keyed(ui, "add");
    });
    app.set_timeouts(Timeouts {
        action: Duration::from_millis(300),
        expect: Duration::from_millis(300),
    });
    let err = app.get_by_key("add").click().unwrap_err();
    assert_eq!(err.code, ErrorCode::NoElement);
    assert!(
        err.message
            .contains("no element matches get_by_key(\"add\")"),
        "{}",
        err.message
    );
    assert_eq!(log(&driver), ["act press"]);
}

// ---- actions and their routes ----

#[test]
fn click_falls_back_to_real_input_without_a_press_action() {
    let (driver, app) = demo();
    edit_keyed(&driver, "add", |n| {
        n.actions.retain(|a| a != &Action::Press)
    });
    let done = app.get_by_key("add").click().unwrap();
    assert_eq!(done.route, Route::Input);
    assert_eq!(log(&driver), ["input click"]);
}

#[test]
fn fill_replaces_and_type_inserts_at_the_caret() {
    let (driver, app) = demo();
    let name = app.get_by_label("Name");
    assert_eq!(
        name.fill("Grace").unwrap().route,
        Route::Semantic(Action::SetValue)
    );
    assert_eq!(
        name.type_text(" Hopper").unwrap().route,
        Route::Semantic(Action::InsertText)
    );
    expect(&name)
        .to_have_value(TextMatch::exact("Grace Hopper"))
        .unwrap();
    assert_eq!(name.type_text("").unwrap().route, Route::NotNeeded);

    // Without insertText, typing focuses the field and sends text input.
    edit_keyed(&driver, "name", |n| {
        n.actions.retain(|a| a != &Action::InsertText)
    });
    assert_eq!(name.type_text("!").unwrap().route, Route::Input);
    expect(&name)
        .to_have_value(TextMatch::exact("Grace Hopper!"))
        .unwrap();
    assert!(name.is_focused().unwrap());
}

#[test]
fn press_sequentially_sends_its_keys_in_one_request_unless_the_keyboard_refuses() {
    let typed = |most_input_events: Option<usize>| {
        let (driver, app) = demo();
        driver.set_faults(Faults {
            most_input_events,
            ..Faults::default()
        });
        let name = app.get_by_label("Name");
        assert_eq!(
            name.press_sequentially("Lee", None).unwrap().route,
            Route::Input
        );
        // The demo's field holds "Ada"; the keys go in at the caret, its end.
        expect(&name)
            .to_have_value(TextMatch::exact("AdaLee"))
            .unwrap();
        let texts = log(&driver).iter().filter(|l| *l == "input text").count();
        (driver.edit(|ui| ui.input_requests), texts)
    };
    // The field takes the focus without input; the three keys go at once.
    assert_eq!(typed(None), (1, 3));
    // Refused whole, they go key by key, each typed once.
    assert_eq!(typed(Some(2)), (4, 3));
}

#[test]
fn fill_needs_an_editable_element() {
    let (driver, app) = impatient();
    let err = app.get_by_key("add").fill("x").unwrap_err();
    assert_eq!(err.code, ErrorCode::NotActionable);
    assert!(err.message.contains("was not editable"), "{}", err.message);
    edit_keyed(&driver, "name", |n| n.states.push(State::ReadOnly));
    let err = app.get_by_key("name").fill("x").unwrap_err();
    assert!(
        err.message.contains("[focusable, readOnly]"),
        "{}",
        err.message
    );
    assert!(log(&driver).is_empty());
}

#[test]
fn press_focuses_then_sends_the_key() {
    let (driver, app) = demo();
    let done = app.get_by_key("add").press("Enter").unwrap();
    assert_eq!(done.route, Route::Input);
    assert_eq!(log(&driver), ["act focus", "input key"]);
    expect(&app.get_by_key("count"))
        .to_have_text("Count: 1")
        .unwrap();
    let err = app.get_by_key("add").press("Hyper+Q").unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
}

#[test]
fn check_and_uncheck_act_only_when_needed_and_verify() {
    let (driver, app) = demo();
    let subscribe = app.get_by_role(Role::CheckBox, "Subscribe");
    assert_eq!(
        subscribe.check().unwrap().route,
        Route::Semantic(Action::Press)
    );
    assert!(subscribe.is_checked().unwrap());
    assert_eq!(subscribe.check().unwrap().route, Route::NotNeeded);
    assert_eq!(
        subscribe.uncheck().unwrap().route,
        Route::Semantic(Action::Press)
    );
    assert_eq!(subscribe.uncheck().unwrap().route, Route::NotNeeded);
    expect(&subscribe).not().to_be_checked().unwrap();
    assert_eq!(log(&driver), ["act press", "act press"]);
}

#[test]
fn a_check_that_does_not_take_fails_with_what_it_shows() {
    let (driver, app) = impatient();
    // A radio the app never checks: the press lands but the state stays.
    let mut radio = node(100, None, Role::Radio, "Large", (20.0, 300.0, 100.0, 20.0));
    radio.actions = vec![Action::Press];
    add_node(&driver, radio);
    let err = app.get_by_role(Role::Radio, "Large").check().unwrap_err();
    assert_eq!(err.code, ErrorCode::Failed);
    assert!(
        err.message
            .contains("semantic:press on get_by_role(\"radio\", name=\"Large\")"),
        "{}",
        err.message
    );
    assert!(
        err.message.contains("it still reads unchecked")
            && err.message.contains("not pressed again"),
        "{}",
        err.message
    );

    driver.edit(|ui| {
        ui.windows[0]
            .node_mut(ElementId(100))
            .unwrap()
            .states
            .push(State::Checked)
    });
    let err = app.get_by_role(Role::Radio, "Large").uncheck().unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
}

#[test]
fn select_option_presses_the_matching_item_and_verifies() {
    let (driver, app) = demo();
    let fruits = app.get_by_key("fruits");
    let done = fruits.select_option("banana").unwrap();
    assert_eq!(done.route, Route::Semantic(Action::Press));
    assert_eq!(done.element.label.as_deref(), Some("Banana"));
    expect(&app.get_by_text("Banana"))
        .to_have_state(State::Selected)
        .unwrap();
    assert_eq!(log(&driver), ["act press"]);
}

#[test]
fn select_option_opens_a_closed_combo_box_first() {
    let (driver, app) = demo();
    // A combo box whose items show once it is expanded.
    let mut combo = node(
        100,
        None,
        Role::ComboBox,
        "Size",
        (20.0, 300.0, 100.0, 20.0),
    );
    combo.actions = vec![Action::Expand, Action::Collapse];
    add_node(&driver, combo);
    for (id, label) in [(101, "Small"), (102, "Large")] {
        let mut item = node(
            id,
            Some(100),
            Role::ListItem,
            label,
            (20.0, 320.0, 100.0, 20.0),
        );
        item.bounds = Some(Bounds::new(
            20.0,
            300.0 + 20.0 * (id - 100) as f64,
            0.0,
            0.0,
        ));
        item.actions = vec![Action::Press];
        add_node(&driver, item);
    }
    driver.before_tree(|ui| {
        let window = &mut ui.windows[0];
        let open = window
            .node_mut(ElementId(100))
            .unwrap()
            .has_state(&State::Expanded);
        for id in [101, 102] {
            let item = window.node_mut(ElementId(id)).unwrap();
            if let Some(b) = item.bounds.as_mut() {
                (b.width, b.height) = if open { (100.0, 20.0) } else { (0.0, 0.0) };
            }
        }
    });
    let done = app
        .get_by_role(Role::ComboBox, "Size")
        .select_option(TextMatch::exact("Large"))
        .unwrap();
    assert_eq!(done.element.id, ElementId(102));
    assert_eq!(log(&driver), ["act expand", "act press"]);

    let err = app
        .get_by_role(Role::ComboBox, "Size")
        .with_timeout(Duration::from_millis(200))
        .select_option("Medium")
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NoElement);
    assert!(
        err.message.contains("it offers: \"Small\", \"Large\""),
        "{}",
        err.message
    );
}

#[test]
fn set_value_uses_set_value_else_steps() {
    let (driver, app) = demo();
    let volume = app.get_by_role(Role::Slider, "Volume");
    assert_eq!(
        volume.set_value(70.0).unwrap().route,
        Route::Semantic(Action::SetValue)
    );
    expect(&volume)
        .to_have_value(TextMatch::exact("70"))
        .unwrap();
    // A string is the whole value (Playwright's rule): "7" is not "70".
    let impatient = expect(&volume).with_timeout(Duration::from_millis(100));
    let err = impatient.to_have_value("7").unwrap_err();
    assert_eq!(err.code, ErrorCode::AssertionFailed, "{err}");
    impatient.not().to_have_value("7").unwrap();
    expect(&app.get_by_key("count"))
        .to_contain_text("Count")
        .unwrap();
    assert_eq!(volume.set_value(70.0).unwrap().route, Route::NotNeeded);

    edit_keyed(&driver, "volume", |n| {
        n.actions.retain(|a| a != &Action::SetValue)
    });
    assert_eq!(
        volume.set_value(40.0).unwrap().route,
        Route::Semantic(Action::Decrement)
    );
    expect(&volume)
        .to_have_value(TextMatch::exact("40"))
        .unwrap();
    let presses = log(&driver)
        .iter()
        .filter(|l| *l == "act decrement")
        .count();
    assert_eq!(presses, 3);

    let err = volume.set_value(400.0).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
    assert!(err.message.contains("range 0 to 100"), "{}", err.message);
}

#[test]
fn hover_dblclick_and_drag_send_real_input_at_the_centres() {
    let (driver, app) = demo();
    assert_eq!(app.get_by_key("add").hover().unwrap().route, Route::Input);
    assert_eq!(
        app.get_by_key("add").dblclick().unwrap().route,
        Route::Input
    );
    let apple = app.get_by_text("Apple");
    assert_eq!(
        apple.drag_to(&app.get_by_text("Cherry")).unwrap().route,
        Route::Input
    );
    assert_eq!(
        log(&driver),
        [
            "input pointerMove",
            "input click",
            "input pointerDown",
            "input pointerMove",
            "input pointerMove",
            "input pointerUp"
        ]
    );
}

#[test]
fn focus_and_scroll_into_view() {
    let (driver, app) = demo();
    assert_eq!(
        app.get_by_key("name").focus().unwrap().route,
        Route::Semantic(Action::Focus)
    );
    expect(&app.get_by_key("name")).to_be_focused().unwrap();

    edit_keyed(&driver, "cherry", |n| {
        n.states.push(State::Offscreen);
        n.actions.push(Action::ScrollIntoView);
    });
    let cherry = app.get_by_key("cherry");
    expect(&cherry).to_be_hidden().unwrap();
    assert_eq!(
        cherry.scroll_into_view().unwrap().route,
        Route::Semantic(Action::ScrollIntoView)
    );
    expect(&cherry).to_be_visible().unwrap();
    assert_eq!(cherry.scroll_into_view().unwrap().route, Route::NotNeeded);
}

// ---- expect ----

#[test]
fn expectations_pass_when_the_ui_gets_there() {
    let (driver, app) = demo();
    driver.before_tree(|ui| {
        if ui.tree_reads == 3 {
            ui.windows[0].keyed("count").label = Some("Count: 3".into());
            ui.windows[0].keyed("add").states.push(State::Disabled);
        }
    });
    expect(&app.get_by_key("count"))
        .to_have_text(TextMatch::exact("Count: 3"))
        .unwrap();
    expect(&app.get_by_key("add")).to_be_disabled().unwrap();
    expect(&app.get_by_key("add"))
        .to_have_state(State::Disabled)
        .unwrap();
    expect(&app.get_by_key("add"))
        .not()
        .to_be_enabled()
        .unwrap();
    expect(&app.get_by_key("name")).to_be_editable().unwrap();
    expect(&app.get_by_role(Role::ListItem, RoleQuery::any()))
        .to_have_count(3)
        .unwrap();
    expect(&app.get_by_key("nothing")).to_have_count(0).unwrap();
    expect(&app.get_by_key("nothing")).to_be_hidden().unwrap();
    expect(&app.get_by_key("add")).not().to_be_hidden().unwrap();
}

#[test]
fn failed_expectations_say_expected_and_last_observed() {
    let (_, app) = impatient();
    let err = expect(&app.get_by_key("count"))
        .to_have_text(TextMatch::exact("Count: 5"))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::AssertionFailed);
    assert!(
        err.message.starts_with(
            "expected get_by_key(\"count\") to have text \"Count: 5\", last observed text \"Count: 0\""
        ),
        "{}",
        err.message
    );
    assert!(err.message.ends_with("(waited 300 ms)"), "{}", err.message);

    let err = expect(&app.get_by_key("add"))
        .not()
        .to_be_enabled()
        .unwrap_err();
    assert!(
        err.message
            .starts_with("expected get_by_key(\"add\") not to be enabled, last observed enabled"),
        "{}",
        err.message
    );

    let err = expect(&app.get_by_key("nothing"))
        .to_be_visible()
        .unwrap_err();
    assert!(
        err.message.contains("last observed no element matches"),
        "{}",
        err.message
    );

    // With no element, neither an assertion nor its negation holds.
    let err = expect(&app.get_by_key("nothing"))
        .not()
        .to_be_checked()
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::AssertionFailed);

    let err = expect(&app.get_by_role(Role::ListItem, RoleQuery::any()))
        .with_timeout(Duration::from_millis(50))
        .to_have_count(2)
        .unwrap_err();
    assert!(
        err.message
            .contains("last observed 3 elements (waited 50 ms)"),
        "{}",
        err.message
    );

    let err = expect(&app.get_by_key("subscribe"))
        .to_be_checked()
        .unwrap_err();
    assert!(
        err.message
            .contains("last observed unchecked (checkBox \"Subscribe\""),
        "{}",
        err.message
    );
}

#[test]
fn a_locator_timeout_overrides_the_app_default() {
    let (driver, app) = demo(); // 10 s by default
    driver.edit(|ui| remove_keyed(ui, "add"));
    let err = app
        .get_by_key("add")
        .with_timeout(Duration::from_millis(100))
        .click()
        .unwrap_err();
    assert!(err.message.contains("after 100 ms"), "{}", err.message);
    assert_eq!(
        app.get_by_key("add").action_timeout(),
        Duration::from_secs(10)
    );
    assert_eq!(
        app.get_by_key("add").expect_timeout(),
        Duration::from_secs(5)
    );
}

#[test]
fn locators_describe_themselves_as_written() {
    let (_, app) = demo();
    let locator = app
        .window_titled(TextMatch::exact("Counter"))
        .get_by_role(Role::List, RoleQuery::any())
        .get_by_role(
            Role::ListItem,
            RoleQuery::name(TextMatch::regex("^B").unwrap()).selected(false),
        )
        .filter_has_text("an")
        .nth(0);
    assert_eq!(
        locator.to_string(),
        "window_titled(\"Counter\" exact).get_by_role(\"list\").get_by_role(\"listItem\", name=/^B/, selected=false).filter(has_text=\"an\").nth(0)"
    );
    assert_eq!(locator.text().unwrap(), "Banana");
}

#[test]
fn locators_cross_threads_and_outcomes_serialize() {
    fn shareable<T: Send + Sync + Clone>() {}
    shareable::<uidrive_core::Locator>();
    shareable::<uidrive_core::Expect>();
    shareable::<uidrive_core::WindowRef>();

    let (_, app) = demo();
    let add = app.get_by_key("add");
    let done = std::thread::spawn(move || add.click())
        .join()
        .unwrap()
        .unwrap();
    let json = serde_json::to_value(&done).unwrap();
    assert_eq!(json["route"], "semantic:press");
    // The button reads as before; the count beside it changed.
    assert_eq!(json["effect"], "confirmed");
    assert!(
        json["observed"]
            .as_str()
            .unwrap()
            .starts_with("the window changed: 1 element(s) changed name or state"),
        "{json}"
    );
    assert_eq!(json["window"], 1);
    assert_eq!(json["element"]["key"], "add");
}

#[test]
fn locators_work_the_same_over_the_socket() {
    let memory = Arc::new(MemoryDriver::new());
    let dir = std::env::temp_dir().join(format!("uidrive-locators-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("app.sock");
    let server = uidrive_core::serve(memory.clone(), &path).unwrap();
    let app = App::connect(&path).unwrap();

    let done = app.get_by_role(Role::Button, "Add").click().unwrap();
    assert_eq!(done.route, Route::Semantic(Action::Press));
    app.get_by_label("Name").fill("Grace").unwrap();
    expect(&app.get_by_key("count"))
        .to_have_text(TextMatch::exact("Count: 1"))
        .unwrap();
    expect(&app.get_by_key("name"))
        .to_have_value(TextMatch::exact("Grace"))
        .unwrap();
    assert_eq!(log(&memory), ["act press", "act setValue"]);

    let err = app
        .get_by_role(Role::ListItem, RoleQuery::any())
        .click()
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Ambiguous);
    drop(app);
    server.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_element_that_held_still_since_the_last_read_takes_the_action_on_one_read() {
    let driver = Arc::new(Racy::default());
    let app = App::new(driver.clone());
    let reads = || driver.trees.load(std::sync::atomic::Ordering::SeqCst);
    // A first action reads the window twice: its bounds must be the same in
    // two reads. Then one read of the element looks for the click's effect.
    app.get_by_key("add").click().unwrap();
    let first = reads();
    assert_eq!(
        first,
        2 + 1,
        "two reads for an element seen for the first time"
    );
    // The next one, moments later, compares with the read before it: one read.
    app.get_by_key("add").click().unwrap();
    assert_eq!(
        reads() - first,
        1 + 1,
        "one read when nothing moved since the last"
    );
    // A move since the last read still needs the second look.
    let at = driver.inner.edit(|ui| ui.tree_reads);
    move_add_until(&driver.inner, at + 2);
    let before = reads();
    app.get_by_key("add").click().unwrap();
    assert!(reads() - before >= 2, "a moved element is read again");
    expect(&app.get_by_key("count"))
        .to_have_text("Count: 3")
        .unwrap();
}

// ---- cells of a table too big to read whole ----

/// The demo app with a sheet whose read holds only its first cell (it is
/// `truncated`); any other cell up to row 1000 is given by `cellAt`, which
/// counts its asks.
struct Sheet {
    inner: Arc<MemoryDriver>,
    asks: std::sync::atomic::AtomicUsize,
}

const SHEET: u64 = 900;

fn cell_node(row: i64, column: i64) -> Node {
    let mut cell = node(
        10_000 + row as u64 * 100 + column as u64,
        Some(SHEET),
        Role::Cell,
        &format!("R{row}C{column}"),
        (0.0, 0.0, 0.0, 0.0),
    );
    cell.row_index = Some(row);
    cell.col_index = Some(column);
    cell.value = Some(format!("value {row}/{column}"));
    cell.states.push(State::Offscreen);
    cell
}

impl Driver for Sheet {
    fn hello(&self) -> Result<Hello> {
        self.inner.hello()
    }
    fn windows(&self) -> Result<WindowList> {
        self.inner.windows()
    }
    fn tree(&self, params: &TreeParams) -> Result<Tree> {
        let mut tree = self.inner.tree(params)?;
        let mut sheet = node(SHEET, None, Role::Table, "Sheet1", (0.0, 0.0, 400.0, 300.0));
        sheet.truncated = true;
        let mut first = cell_node(1, 1);
        first.bounds = Some(Bounds::new(0.0, 0.0, 80.0, 20.0));
        first.states.clear();
        tree.nodes.extend([sheet, first]);
        Ok(tree)
    }
    fn act(&self, params: &ActParams) -> Result<()> {
        self.inner.act(params)
    }
    fn input(&self, params: &InputParams) -> Result<()> {
        self.inner.input(params)
    }
    fn menu(&self, params: &MenuParams) -> Result<()> {
        self.inner.menu(params)
    }
    fn capture(&self, params: &CaptureParams) -> Result<Capture> {
        self.inner.capture(params)
    }
    fn eval(&self, params: &EvalParams) -> Result<serde_json::Value> {
        self.inner.eval(params)
    }
    fn idle(&self, params: &IdleParams) -> Result<()> {
        self.inner.idle(params)
    }
    fn cell_at(&self, params: &CellAtParams) -> Result<Vec<Node>> {
        self.asks.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        assert_eq!(
            params.table,
            ElementId(SHEET),
            "only the truncated table is asked"
        );
        Ok(if params.row <= 1000 {
            vec![cell_node(params.row, params.column)]
        } else {
            Vec::new()
        })
    }
}

fn sheet() -> (Arc<Sheet>, App) {
    let driver = Arc::new(Sheet {
        inner: Arc::new(MemoryDriver::new()),
        asks: Default::default(),
    });
    let app = App::new(driver.clone());
    app.set_timeouts(Timeouts {
        action: Duration::from_millis(300),
        expect: Duration::from_millis(300),
    });
    (driver, app)
}

fn asks(driver: &Sheet) -> usize {
    driver.asks.load(std::sync::atomic::Ordering::SeqCst)
}

#[test]
fn a_cell_in_the_read_is_found_by_its_place_without_asking() {
    let (driver, app) = sheet();
    let first = app.get_by_role(Role::Table, RoleQuery::any()).cell(1, 1);
    assert_eq!(first.text().unwrap(), "R1C1");
    assert_eq!(asks(&driver), 0);
}

#[test]
fn a_cell_the_read_lacks_is_asked_of_the_table() {
    let (driver, app) = sheet();
    let far = app.get_by_role(Role::Table, RoleQuery::any()).cell(500, 2);
    assert_eq!(far.value().unwrap().as_deref(), Some("value 500/2"));
    assert_eq!(asks(&driver), 1);
    // The same through the selector string, and hidden as it is.
    let node = app.locator("role=table >> cell=500,2").node().unwrap();
    assert_eq!(node.label.as_deref(), Some("R500C2"));
    assert_eq!(node.parent, Some(ElementId(SHEET)));
    expect(&far).to_be_hidden().unwrap();
}

#[test]
fn a_place_the_table_lacks_is_no_element_and_row_zero_is_refused() {
    let (_, app) = sheet();
    let sheet = app.get_by_role(Role::Table, RoleQuery::any());
    let err = sheet.cell(2000, 1).text().unwrap_err();
    assert_eq!(err.code, ErrorCode::NoElement, "{err}");
    assert!(err.message.contains("cell(2000, 1)"), "{}", err.message);
    let err = sheet.cell(0, 1).text().unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest, "{err}");
    assert!(err.message.contains("count from 1"), "{}", err.message);
}

#[test]
fn click_button_sends_that_button_and_refuses_a_count_before_looking() {
    use uidrive_core::protocol::MouseButton;
    let (driver, app) = impatient();
    let add = app.get_by_key("add");
    let done = add.click_button(MouseButton::Right, 1).unwrap();
    assert_eq!(done.route, Route::Input);
    // A right click is not a press: the demo's count stays where it was.
    assert_eq!(
        app.get_by_key("count").text().unwrap(),
        "Count: 0",
        "{:?}",
        log(&driver)
    );
    add.click_button(MouseButton::Left, 1).unwrap();
    assert_eq!(app.get_by_key("count").text().unwrap(), "Count: 1");
    for bad in [0, 4] {
        let err = app
            .get_by_key("nope")
            .click_button(MouseButton::Left, bad)
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest, "{err}");
        assert!(err.message.contains("presses in a row"), "{}", err.message);
    }
}

// ---- outcomes: what the tree showed of an action ----

fn reacting(change: impl FnOnce(&mut Ui) + Send + 'static) -> (Arc<MemoryDriver>, App) {
    let inner = Arc::new(MemoryDriver::new());
    let driver = Arc::new(Racy {
        inner: inner.clone(),
        after_act: Mutex::new(Some(Box::new(change))),
        ..Racy::default()
    });
    let app = App::new(driver);
    app.set_timeouts(Timeouts {
        action: Duration::from_millis(500),
        expect: Duration::from_millis(500),
    });
    (inner, app)
}

#[test]
fn a_press_that_closes_its_window_succeeds_and_names_it() {
    // A dialog's Close: its handler takes the window down.
    let (_, app) = reacting(|ui| ui.windows.clear());
    let done = app.get_by_key("add").activate().unwrap();
    assert_eq!(done.closed, [COUNTER_WINDOW]);
    assert_eq!(
        done.effect,
        Effect::Confirmed(format!("window {COUNTER_WINDOW} closed"))
    );
    let json = serde_json::to_value(&done).unwrap();
    assert_eq!(json["closed"], serde_json::json!([COUNTER_WINDOW]));
}

#[test]
fn a_press_that_shows_no_change_is_unverifiable_and_says_what_was_checked() {
    let (driver, app) = demo();
    let mut copy = node(100, None, Role::Button, "Copy", (20.0, 300.0, 80.0, 20.0));
    copy.actions = vec![Action::Press];
    add_node(&driver, copy);
    let done = app.get_by_role(Role::Button, "Copy").activate().unwrap();
    let Effect::Unverifiable(checked) = &done.effect else {
        panic!("{:?}", done.effect)
    };
    assert!(
        checked.contains("the element reads as before")
            && checked.contains("no window opened or closed"),
        "{checked}"
    );
}

#[test]
fn a_combo_box_named_by_its_choice_is_followed_by_its_identity() {
    // GTK 3: a combo box's accessible name is its chosen item's text, and
    // its items keep no selected state once the menu closes.
    let (driver, app) = reacting(|ui| {
        let window = &mut ui.windows[0];
        window.node_mut(ElementId(100)).unwrap().label = Some("Middle".into());
        for id in [101, 102] {
            window.node_mut(ElementId(id)).unwrap().states.clear();
        }
    });
    let mut combo = node(
        100,
        None,
        Role::ComboBox,
        "Left",
        (20.0, 300.0, 100.0, 20.0),
    );
    combo.actions = vec![Action::Press];
    add_node(&driver, combo);
    for (id, label) in [(101, "Left"), (102, "Middle")] {
        let y = 300.0 + 20.0 * (id - 100) as f64;
        let mut item = node(id, Some(100), Role::MenuItem, label, (20.0, y, 100.0, 20.0));
        item.actions = vec![Action::Press];
        add_node(&driver, item);
    }
    let done = app
        .get_by_role(Role::ComboBox, TextMatch::exact("Left"))
        .select_option(TextMatch::exact("Middle"))
        .unwrap();
    assert_eq!(
        done.effect,
        Effect::Confirmed("it is named by its choice, now \"Middle\"".into())
    );
}

#[test]
fn a_filled_field_is_answered_as_read_after_the_fill() {
    let (_, app) = demo();
    let done = app.get_by_label("Name").fill("Grace").unwrap();
    assert_eq!(done.element.value.as_deref(), Some("Grace"));
    assert_eq!(done.effect, Effect::Confirmed("it reads `Grace`".into()));
}

#[test]
fn keyboard_text_is_checked_against_the_focused_field() {
    let (_, app) = demo();
    app.get_by_label("Name").focus().unwrap();
    let done = app.keyboard().type_text("!", None).unwrap();
    assert!(done.effect.is_confirmed(), "{:?}", done.effect);
    assert_eq!(done.element.value.as_deref(), Some("Ada!"));
    // Where the focus shows no text, nothing can be read back.
    app.get_by_key("add").focus().unwrap();
    let done = app.keyboard().type_text("x", None).unwrap();
    let Effect::Unverifiable(checked) = &done.effect else {
        panic!("{:?}", done.effect)
    };
    assert!(checked.contains("shows no text"), "{checked}");
}

#[test]
fn keyboard_text_that_never_lands_fails_saying_what_the_field_reads() {
    // The app answers the input and drops its text (input lost right after
    // an app opened, as LibreOffice did).
    let app = App::new(Arc::new(Racy {
        drops_text: true,
        ..Racy::default()
    }));
    app.set_timeouts(Timeouts {
        action: Duration::from_millis(400),
        expect: Duration::from_millis(400),
    });
    app.get_by_label("Name").focus().unwrap();
    let err = app.keyboard().type_text("Grace", None).unwrap_err();
    assert_eq!(err.code, ErrorCode::Failed, "{err}");
    assert!(
        err.message
            .contains("typed `Grace` into the focused element")
            && err.message.contains("still reads `Ada`"),
        "{}",
        err.message
    );
}

#[test]
fn a_menu_path_is_answered_with_what_it_changed() {
    let (_, app) = demo();
    app.get_by_key("add").click().unwrap();
    let done = app
        .choose_menu(None, &["File".into(), "New".into()])
        .unwrap();
    let Effect::Confirmed(seen) = &done.effect else {
        panic!("{:?}", done.effect)
    };
    assert!(seen.contains("changed name or state"), "{seen}");
    let done = app
        .choose_menu(None, &["File".into(), "Quit".into()])
        .unwrap();
    assert_eq!(done.closed, [COUNTER_WINDOW], "{:?}", done.effect);
}
