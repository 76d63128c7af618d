//! The actions of issue 31 over the in-memory driver: `scroll`, `expand` and
//! `collapse`, `increment` and `decrement`, `select_text`, and keys held by
//! `Keyboard::down` / `up`: what each sends, what it reads back, and the
//! arguments refused before anything is looked for.

use std::sync::{Arc, Mutex};
use std::time::Duration;
use uidrive_core::protocol::{
    ActParams, Action, Bounds, Capture, CaptureParams, EvalParams, Hello, IdleParams, InputEvent,
    InputParams, Key, MenuParams, NamedKey, State, Tree, TreeParams, WindowList,
};
use uidrive_core::{
    App, Driver, Effect, ErrorCode, MemoryDriver, Result, Route, ScrollDirection, Timeouts,
};

/// The demo UI, keeping every `input` request as it came.
struct Recorder {
    inner: MemoryDriver,
    inputs: Mutex<Vec<InputParams>>,
}

impl Driver for Recorder {
    fn hello(&self) -> Result<Hello> {
        self.inner.hello()
    }
    fn windows(&self) -> Result<WindowList> {
        self.inner.windows()
    }
    fn tree(&self, params: &TreeParams) -> Result<Tree> {
        self.inner.tree(params)
    }
    fn act(&self, params: &ActParams) -> Result<()> {
        self.inner.act(params)
    }
    fn input(&self, params: &InputParams) -> Result<()> {
        self.inputs.lock().unwrap().push(params.clone());
        // As a GTK 4 tree row takes them: Shift+Right expands the focused
        // row, Shift+Left collapses it.
        for event in &params.events {
            let InputEvent::Key { key } = event else {
                continue;
            };
            let expand = match key.to_string().as_str() {
                "Shift+Right" => true,
                "Shift+Left" => false,
                _ => continue,
            };
            self.inner.edit(|ui| {
                let window = &mut ui.windows[0];
                let Some(focus) = window.focus else { return };
                if let Some(row) = window.nodes.iter_mut().find(|n| n.id == focus) {
                    row.states.retain(|s| s != &State::Expanded);
                    if expand {
                        row.states.push(State::Expanded);
                    }
                }
            });
        }
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
}

fn demo() -> (Arc<Recorder>, App) {
    let driver = Arc::new(Recorder {
        inner: MemoryDriver::new(),
        inputs: Mutex::default(),
    });
    let app = App::new(driver.clone());
    app.set_timeouts(Timeouts {
        action: Duration::from_millis(500),
        expect: Duration::from_millis(500),
    });
    (driver, app)
}

fn acts(driver: &Recorder, action: &str) -> usize {
    let wanted = format!("act {action}");
    driver
        .inner
        .edit(|ui| ui.log.iter().filter(|l| **l == wanted).count())
}

fn confirmed(effect: &Effect) -> &str {
    match effect {
        Effect::Confirmed(seen) => seen,
        Effect::Unverifiable(checked) => panic!("unverifiable: {checked}"),
    }
}

// ---- increment, decrement ----

#[test]
fn increment_and_decrement_step_the_number_and_read_it_back() {
    let (driver, app) = demo();
    let volume = app.get_by_key("volume");
    // The demo's slider: 0 to 100, at 50, steps of 10.
    let done = volume.increment(2).unwrap();
    assert_eq!(done.route, Route::Semantic(Action::Increment));
    assert!(
        confirmed(&done.effect).contains("moved from 50"),
        "{:?}",
        done.effect
    );
    assert_eq!(acts(&driver, "increment"), 2);
    assert_eq!(volume.node().unwrap().now, Some(70.0));

    let done = volume.decrement(3).unwrap();
    assert_eq!(done.route, Route::Semantic(Action::Decrement));
    confirmed(&done.effect);
    assert_eq!(acts(&driver, "decrement"), 3);
    assert_eq!(volume.node().unwrap().now, Some(40.0));
}

#[test]
fn at_its_end_a_step_is_not_needed_and_nothing_is_sent() {
    let (driver, app) = demo();
    let volume = app.get_by_key("volume");
    driver
        .inner
        .edit(|ui| ui.windows[0].keyed("volume").now = Some(100.0));
    let done = volume.increment(1).unwrap();
    assert_eq!(done.route, Route::NotNeeded);
    let seen = confirmed(&done.effect);
    assert!(
        seen.contains("maximum") && seen.contains("already"),
        "{seen}"
    );
    assert_eq!(acts(&driver, "increment"), 0);

    driver
        .inner
        .edit(|ui| ui.windows[0].keyed("volume").now = Some(0.0));
    let done = volume.decrement(5).unwrap();
    assert_eq!(done.route, Route::NotNeeded);
    assert!(
        confirmed(&done.effect).contains("minimum"),
        "{:?}",
        done.effect
    );
    assert_eq!(acts(&driver, "decrement"), 0);
}

#[test]
fn a_step_that_does_not_move_the_number_fails_saying_what_it_reads() {
    let (driver, app) = demo();
    // The app takes the action and does nothing: a step of 0.
    driver
        .inner
        .edit(|ui| ui.windows[0].keyed("volume").step = Some(0.0));
    let err = app.get_by_key("volume").increment(1).unwrap_err();
    assert_eq!(err.code, ErrorCode::Failed, "{err}");
    assert!(err.message.contains("above 50"), "{}", err.message);
}

#[test]
fn step_counts_out_of_range_and_elements_without_steps_are_refused() {
    let (driver, app) = demo();
    let nowhere = app.get_by_key("no-such-key");
    for bad in [0, uidrive_core::locator::MOST_STEPS + 1] {
        let err = nowhere.increment(bad).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest, "{err}");
        let err = nowhere.decrement(bad).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest, "{err}");
    }
    // Refused before anything was looked for.
    assert_eq!(driver.inner.edit(|ui| ui.tree_reads), 0);

    let err = app.get_by_key("add").increment(1).unwrap_err();
    assert_eq!(err.code, ErrorCode::Unsupported, "{err}");
    assert!(
        err.message.contains("offers no increment"),
        "{}",
        err.message
    );
}

// ---- select_text ----

#[test]
fn select_text_selects_the_runes_and_reads_the_selection_back() {
    let (driver, app) = demo();
    let name = app.get_by_key("name");
    let done = name.select_text(1, 3).unwrap();
    assert_eq!(done.route, Route::Semantic(Action::SelectText));
    confirmed(&done.effect);
    assert_eq!(done.element.selection, Some([1, 3]));
    assert_eq!(name.node().unwrap().selection, Some([1, 3]));
    assert_eq!(acts(&driver, "selectText"), 1);
    // An empty selection is a caret.
    name.select_text(0, 0).unwrap();
    assert_eq!(name.node().unwrap().selection, Some([0, 0]));
}

#[test]
fn select_text_refuses_from_after_to_and_a_range_past_the_end() {
    let (driver, app) = demo();
    let err = app.get_by_key("no-such-key").select_text(3, 1).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest, "{err}");
    assert!(err.message.contains("after"), "{}", err.message);
    assert_eq!(driver.inner.edit(|ui| ui.tree_reads), 0);
    // "Ada" has three runes.
    let err = app.get_by_key("name").select_text(1, 9).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest, "{err}");
    let err = app.get_by_key("add").select_text(0, 1).unwrap_err();
    assert_eq!(err.code, ErrorCode::Unsupported, "{err}");
}

// ---- expand, collapse ----

#[test]
fn expand_and_collapse_read_the_expanded_state_back() {
    let (driver, app) = demo();
    // The demo's menu bar has no height; give its File item some, to be shown.
    driver
        .inner
        .edit(|ui| ui.windows[0].keyed("file").bounds = Some(Bounds::new(0.0, 0.0, 40.0, 20.0)));
    let file = app.get_by_key("file");
    let done = file.expand().unwrap();
    assert_eq!(done.route, Route::Semantic(Action::Expand));
    confirmed(&done.effect);
    assert!(file.node().unwrap().has_state(&State::Expanded));

    let again = file.expand().unwrap();
    assert_eq!(again.route, Route::NotNeeded);
    assert!(confirmed(&again.effect).contains("already"));
    assert_eq!(acts(&driver, "expand"), 1);

    let done = file.collapse().unwrap();
    assert_eq!(done.route, Route::Semantic(Action::Collapse));
    confirmed(&done.effect);
    assert!(!file.node().unwrap().has_state(&State::Expanded));
}

#[test]
fn a_row_with_no_expand_action_takes_the_keys_of_a_tree_with_the_focus_on_it() {
    let (driver, app) = demo();
    driver.inner.edit(|ui| {
        let file = ui.windows[0].keyed("file");
        file.bounds = Some(Bounds::new(0.0, 0.0, 40.0, 20.0));
        file.actions = vec![Action::Focus];
    });
    let file = app.get_by_key("file");
    let done = file.expand().unwrap();
    assert_eq!(done.route, Route::Input);
    confirmed(&done.effect);
    assert!(file.node().unwrap().has_state(&State::Expanded));
    assert_eq!(acts(&driver, "focus"), 1, "focused before the keys");
    let done = file.collapse().unwrap();
    assert_eq!(done.route, Route::Input);
    assert!(!file.node().unwrap().has_state(&State::Expanded));
    let keys: Vec<String> = driver
        .inputs
        .lock()
        .unwrap()
        .iter()
        .flat_map(|input| input.events.clone())
        .filter_map(|event| match event {
            InputEvent::Key { key } => Some(key.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(keys, ["Shift+Right", "Shift+Left"]);
}

#[test]
fn expanding_what_does_not_expand_is_unsupported() {
    let (_, app) = demo();
    let err = app.get_by_key("add").expand().unwrap_err();
    assert_eq!(err.code, ErrorCode::Unsupported, "{err}");
    assert!(err.message.contains("offers no expand"), "{}", err.message);
}

// ---- scroll ----

#[test]
fn scroll_turns_the_wheel_over_the_element_by_notches() {
    let (driver, app) = demo();
    let fruits = app.get_by_key("fruits");
    let node = fruits.node().unwrap();
    let centre = node.bounds.unwrap().center();
    let done = fruits.scroll(ScrollDirection::Down, 3).unwrap();
    assert_eq!(done.route, Route::Input);
    // The demo scrolls nothing, so nothing shows it.
    assert!(
        matches!(done.effect, Effect::Unverifiable(_)),
        "{:?}",
        done.effect
    );
    fruits.scroll(ScrollDirection::Left, 1).unwrap();
    let wheels: Vec<(f64, f64, f64, f64)> = driver
        .inputs
        .lock()
        .unwrap()
        .iter()
        .flat_map(|input| input.events.clone())
        .filter_map(|event| match event {
            InputEvent::Wheel { x, y, dx, dy, .. } => Some((x, y, dx, dy)),
            _ => None,
        })
        .collect();
    assert_eq!(
        wheels,
        [
            (centre.0, centre.1, 0.0, 300.0),
            (centre.0, centre.1, -100.0, 0.0)
        ]
    );
}

#[test]
fn scroll_refuses_no_notches_too_many_and_unknown_directions() {
    let (driver, app) = demo();
    let nowhere = app.get_by_key("no-such-key");
    for bad in [0, 1_001] {
        let err = nowhere.scroll(ScrollDirection::Up, bad).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest, "{err}");
    }
    assert_eq!(driver.inner.edit(|ui| ui.tree_reads), 0);
    assert_eq!(
        "DOWN".parse::<ScrollDirection>().unwrap(),
        ScrollDirection::Down
    );
    let err = "sideways".parse::<ScrollDirection>().unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
    assert!(
        err.message.contains("up, down, left or right"),
        "{}",
        err.message
    );
}

// ---- keys held ----

#[test]
fn keys_held_down_stay_down_across_requests_until_released() {
    let (driver, app) = demo();
    let keyboard = app.keyboard();
    let down = keyboard.down("Shift").unwrap();
    assert_eq!(down.route, Route::Input);
    assert!(
        matches!(down.effect, Effect::Unverifiable(_)),
        "{:?}",
        down.effect
    );
    keyboard.up("Shift").unwrap();
    let inputs = driver.inputs.lock().unwrap().clone();
    assert_eq!(inputs.len(), 2);
    assert!(inputs.iter().all(|i| i.hold), "held across requests");
    let shift = Key::Named(NamedKey::Shift);
    assert!(matches!(&inputs[0].events[..], [InputEvent::KeyDown { key }] if key.key == shift));
    assert!(matches!(&inputs[1].events[..], [InputEvent::KeyUp { key }] if key.key == shift));

    let err = keyboard.down("Hyper+q").unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest, "{err}");
    assert!(err.message.starts_with("key down:"), "{}", err.message);
    let err = keyboard.up("").unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest, "{err}");
    assert_eq!(driver.inputs.lock().unwrap().len(), 2, "nothing more sent");
}
