//! What a locator does. Each action climbs the ladder, then uses the
//! element's own action when it offers one and real input at its centre
//! otherwise, and says which it took.

use super::ladder::{Needs, Ready};
use super::matching::{is_shown, TextMatch, TreeIndex};
use super::resolve::{describe_node, human, worth_retrying, Poller, Read};
use super::Locator;
use crate::error::{Error, ErrorCode, Result};
use crate::protocol::{
    ActParams, Action, ElementAtParams, ElementId, InputEvent, InputParams, KeyChord, MouseButton,
    Node, PointerButton, Role, State, Tree, TreeParams, WindowId,
};
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::collections::HashSet;
use std::time::Duration;

/// How an action reached the element.
#[derive(Debug, Clone, PartialEq)]
pub enum Route {
    /// The element's own action, as assistive technology performs it.
    Semantic(Action),
    /// Real pointer or key input at the element.
    Input,
    /// Nothing had to be done: already checked, already in view, no text to type.
    NotNeeded,
}

impl Route {
    pub fn as_str(&self) -> String {
        match self {
            Route::Semantic(action) => format!("semantic:{action}"),
            Route::Input => "input".into(),
            Route::NotNeeded => "not_needed".into(),
        }
    }
}

/// What an action did.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionOutcome {
    pub route: Route,
    /// The element acted on, as read just before the action (the option, for `select_option`).
    pub element: Node,
    pub window: WindowId,
}

/// As JSON for front ends: `{"route": "semantic", "action": "press", "window": 1, "element": {...}}`,
/// with `route` `semantic`, `input` or `notNeeded` (`action` only for `semantic`).
impl Serialize for ActionOutcome {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match &self.route {
            Route::Semantic(action) => {
                map.serialize_entry("route", "semantic")?;
                map.serialize_entry("action", action.as_str())?;
            }
            Route::Input => map.serialize_entry("route", "input")?,
            Route::NotNeeded => map.serialize_entry("route", "notNeeded")?,
        }
        map.serialize_entry("window", &self.window)?;
        map.serialize_entry("element", &self.element)?;
        map.end()
    }
}

/// Why one attempt at an action ended without an outcome.
pub(crate) enum Failure {
    /// The element went between the read and the action: read again.
    Stale(Error),
    Fatal(Error),
}

impl From<Error> for Failure {
    fn from(err: Error) -> Failure {
        Failure::Fatal(err)
    }
}

type Attempt<T> = std::result::Result<T, Failure>;

/// A check after the action (check, select, set_value) gets at least this
/// long, even when the ladder used most of the timeout: some toolkits apply
/// an accessibility action a few hundred milliseconds after it returns.
const VERIFY_AT_LEAST: Duration = Duration::from_secs(1);

impl Locator {
    /// Presses the element: its `press` action when it offers one, else a real
    /// click at its centre.
    pub fn click(&self) -> Result<ActionOutcome> {
        self.perform_on_match("click", Needs::POINTER, |ready, _| {
            let route = self.press_or_click(ready.window(), ready.node(), Some(&ready.tree))?;
            Ok(outcome(ready, route))
        })
    }

    /// Presses the element as assistive technology does: its own press
    /// action, else a click at its centre. (`press` in the CLI; `click` is
    /// the real click a person makes.)
    /// A check box, toggle or radio button pressed this way must change its
    /// checked state: when the action left it as it was, a real click follows,
    /// and the press fails with `failed` if the state still stays. (A menu's
    /// check item is not read back: choosing it closes its menu, and with it
    /// the item, until the menu opens again.)
    pub fn activate(&self) -> Result<ActionOutcome> {
        let what = "press";
        let mut poller = self.poller(self.action_timeout());
        let done = self.perform_with_by(
            what,
            Needs::POINTER,
            &mut poller,
            Locator::read_matches,
            |ready, _| {
                let route = self.press_else_click(ready.window(), ready.node())?;
                Ok(outcome(ready, route))
            },
        )?;
        let before = &done.element;
        let toggles = matches!(
            before.role,
            Role::CheckBox | Role::ToggleButton | Role::Switch
        ) || (before.role == Role::Radio && !before.has_state(&State::Checked));
        if !toggles {
            return Ok(done);
        }
        let checked = !before.has_state(&State::Checked);
        self.confirm_checked(what, poller, done, checked)
    }

    /// A real double click at the element's centre.
    pub fn dblclick(&self) -> Result<ActionOutcome> {
        self.click_button(MouseButton::Left, 2)
    }

    /// A real click of `button`, `clicks` times in a row (2: a double
    /// click), at the element's centre once it can take it; never the
    /// element's own action (a right click opens a context menu).
    pub fn click_button(&self, button: MouseButton, clicks: u32) -> Result<ActionOutcome> {
        let most = crate::protocol::input_limits::CLICKS;
        if !(1..=most).contains(&clicks) {
            return Err(Error::invalid_request(format!(
                "click_button: {clicks} clicks; a click is 1 to {most} presses in a row (2: a double click, 3: a triple click)"
            )));
        }
        let what = match (button, clicks) {
            (MouseButton::Left, 2) => "dblclick",
            (MouseButton::Right, _) => "right click",
            _ => "click",
        };
        self.perform_on_match(what, Needs::POINTER, |ready, _| {
            let (x, y) = centre(ready.node())?;
            let mut click = PointerButton::at(x, y);
            click.button = (button != MouseButton::Left).then_some(button);
            click.clicks = (clicks != 1).then_some(clicks);
            self.send(ready.window(), vec![InputEvent::Click(click)])?;
            Ok(outcome(ready, Route::Input))
        })
    }

    /// Replaces the element's text: its `setValue` action, else focus, select
    /// all and type. Then waits until the element reads the new text; when
    /// `setValue` was taken but the text did not change, types it after all,
    /// and fails with `failed` and what the element reads if that did not
    /// change it either.
    pub fn fill(&self, text: &str) -> Result<ActionOutcome> {
        crate::trace::note_args(self.driver.as_ref(), || serde_json::json!({ "text": text }));
        let what = "fill";
        let mut poller = self.poller(self.action_timeout());
        let done = self.perform_text(what, &mut poller, |ready, poller| {
            if let Some(route) = self.try_semantic(ready, Action::SetValue, Some(text))? {
                return Ok(outcome(ready, route));
            }
            self.type_over(ready, poller, text)?;
            Ok(outcome(ready, Route::Input))
        })?;
        let holds = |node: &Node| reads_as(node, text);
        let retry = done.route != Route::Input;
        self.confirm_text(
            what,
            text,
            poller,
            done,
            holds,
            |_| retry,
            |ready, poller| self.type_over(ready, poller, text),
        )
    }

    /// Types `text` at the caret: the element's `insertText` action, else focus
    /// and text input. (`type` in Python and Node.) Then waits until the
    /// element's text changed to hold it; when `insertText` was taken but
    /// changed nothing, types it after all, and fails with `failed` and what
    /// the element reads if that did not change it either.
    pub fn type_text(&self, text: &str) -> Result<ActionOutcome> {
        crate::trace::note_args(self.driver.as_ref(), || serde_json::json!({ "text": text }));
        let what = "type";
        let mut poller = self.poller(self.action_timeout());
        let done = self.perform_text(what, &mut poller, |ready, poller| {
            if text.is_empty() {
                return Ok(outcome(ready, Route::NotNeeded));
            }
            if let Some(route) = self.try_semantic(ready, Action::InsertText, Some(text))? {
                return Ok(outcome(ready, route));
            }
            self.focus_for_keys(ready, poller)?;
            self.send(ready.window(), vec![InputEvent::Text { text: text.into() }])?;
            Ok(outcome(ready, Route::Input))
        })?;
        if done.route == Route::NotNeeded {
            return Ok(done);
        }
        let before = done.element.value.clone().unwrap_or_default();
        let holds = |node: &Node| took_typing(node, &before, text);
        // Typed again only where the semantic route left the text as it was.
        let semantic = done.route != Route::Input;
        let unchanged = |seen: &Option<Node>| {
            seen.as_ref()
                .is_some_and(|n| n.value.clone().unwrap_or_default() == before)
        };
        self.confirm_text(
            what,
            text,
            poller,
            done,
            holds,
            |seen| semantic && unchanged(seen),
            |ready, poller| {
                self.focus_for_keys(ready, poller)?;
                self.send(ready.window(), vec![InputEvent::Text { text: text.into() }])
            },
        )
    }

    /// Waits until the element acted on by `done` `holds`. When it does not
    /// and `retry` (given what it read last) says the text is worth typing
    /// again, types it with `retype` under a fresh wait and waits again;
    /// otherwise, or if that fails too, fails with `failed` and what the
    /// element reads.
    #[allow(clippy::too_many_arguments)]
    fn confirm_text(
        &self,
        what: &str,
        text: &str,
        poller: Poller,
        done: ActionOutcome,
        holds: impl Fn(&Node) -> bool,
        retry: impl Fn(&Option<Node>) -> bool,
        mut retype: impl FnMut(&Ready, &mut Poller) -> Attempt<()>,
    ) -> Result<ActionOutcome> {
        let seen = match self.read_until(&poller, &done, &holds)? {
            Ok(_) => return Ok(done),
            Err(seen) => seen,
        };
        if !retry(&seen) {
            return Err(text_not_taken(
                what,
                self,
                &done,
                &seen,
                &format!("typing `{}`", clip(text)),
            ));
        }
        // The check may have used the action's time: the second route gets its own.
        let mut poller = self.poller(verify_time(&poller));
        let typed = self.perform_text(what, &mut poller, |ready, poller| {
            retype(ready, poller)?;
            Ok(outcome(ready, Route::Input))
        })?;
        match self.read_until(&poller, &typed, &holds)? {
            Ok(_) => Ok(typed),
            Err(seen) => Err(text_not_taken(
                what,
                self,
                &typed,
                &seen,
                &format!(
                    "{} and after typing `{}`",
                    route_name(&done.route),
                    clip(text)
                ),
            )),
        }
    }

    /// Focuses the element, then presses a key chord such as `Enter` or `CmdOrCtrl+A`.
    pub fn press(&self, key: &str) -> Result<ActionOutcome> {
        let chord: KeyChord = key
            .parse()
            .map_err(|e: String| Error::invalid_request(format!("press: {e}")))?;
        crate::trace::note_args(self.driver.as_ref(), || serde_json::json!({ "key": key }));
        let key = chord;
        self.perform_on_match("press", Needs::KEYS, |ready, poller| {
            self.focus_for_keys(ready, poller)?;
            self.send(ready.window(), vec![InputEvent::Key { key: key.clone() }])?;
            Ok(outcome(ready, Route::Input))
        })
    }

    /// Focuses the element, then types `text` as real keys one character at
    /// a time, `delay` apart (Playwright's `pressSequentially`); then waits
    /// until the element's text holds it, or fails with `failed` and what it reads.
    pub fn press_sequentially(&self, text: &str, delay: Option<Duration>) -> Result<ActionOutcome> {
        let what = "press_sequentially";
        let delay = crate::keyboard::checked_delay(what, delay)?;
        let mut poller = self.poller(self.action_timeout());
        let done = self.perform_text(what, &mut poller, |ready, poller| {
            self.focus_for_keys(ready, poller)?;
            let keys = text.chars().map(|c| InputEvent::Text { text: c.into() });
            if delay.is_zero() {
                // One input call for all the keys, still one event per
                // character; key by key only when the keyboard has too few
                // keycodes to lend for the characters on no key all at once
                // (refused before any key is sent).
                match self.send(ready.window(), keys.clone().collect()) {
                    Err(Failure::Fatal(e)) if e.code == ErrorCode::Unsupported => {}
                    sent => return sent.map(|()| outcome(ready, Route::Input)),
                }
            }
            for (at, key) in keys.enumerate() {
                if at > 0 {
                    std::thread::sleep(delay);
                }
                self.send(ready.window(), vec![key])?;
            }
            Ok(outcome(ready, Route::Input))
        })?;
        if text.is_empty() {
            return Ok(done);
        }
        let before = done.element.value.clone().unwrap_or_default();
        match self.read_until(&poller, &done, |node| took_typing(node, &before, text))? {
            Ok(_) => Ok(done),
            Err(seen) => Err(text_not_taken(
                what,
                self,
                &done,
                &seen,
                &format!("typing `{}` key by key", clip(text)),
            )),
        }
    }

    /// Checks a check box, switch, toggle or radio button unless it already is,
    /// then waits until it reads as checked.
    pub fn check(&self) -> Result<ActionOutcome> {
        self.set_checked(true)
    }

    /// Unchecks it unless it already is, then waits until it reads as unchecked.
    pub fn uncheck(&self) -> Result<ActionOutcome> {
        self.set_checked(false)
    }

    pub fn set_checked(&self, checked: bool) -> Result<ActionOutcome> {
        let what = if checked { "check" } else { "uncheck" };
        let mut poller = self.poller(self.action_timeout());
        let done = self.perform_with_by(what, Needs::POINTER, &mut poller, Locator::read_matches, |ready, _| {
            let node = ready.node();
            if node.has_state(&State::Checked) == checked {
                return Ok(outcome(ready, Route::NotNeeded));
            }
            if !checked && matches!(node.role, Role::Radio | Role::MenuItemRadio) {
                return Err(Error::invalid_request(format!(
                    "uncheck: {} is a radio button, which unchecks only when another in its group is checked",
                    describe_node(node)
                ))
                .into());
            }
            let route = self.press_or_click(ready.window(), node, Some(&ready.tree))?;
            Ok(outcome(ready, route))
        })?;
        if done.route == Route::NotNeeded {
            return Ok(done);
        }
        self.confirm_checked(what, poller, done, checked)
    }

    /// Waits until the element acted on by `done` reads as `checked`; when a
    /// semantic action left it as it was, clicks it and waits again; fails
    /// with `failed` and what it reads when the state never comes.
    fn confirm_checked(
        &self,
        what: &str,
        poller: Poller,
        done: ActionOutcome,
        checked: bool,
    ) -> Result<ActionOutcome> {
        let wanted = if checked { "checked" } else { "unchecked" };
        let holds = |node: &Node| node.has_state(&State::Checked) == checked;
        let Route::Semantic(_) = &done.route else {
            self.verify(what, &poller, &done, wanted, holds)?;
            return Ok(done);
        };
        if self.read_until(&poller, &done, holds)?.is_ok() {
            return Ok(done);
        }
        // The app took the action and the state stayed: click it instead.
        let mut poller = self.poller(verify_time(&poller));
        let clicked = self.perform_with_by(
            what,
            Needs::POINTER,
            &mut poller,
            Locator::read_matches,
            |ready, _| {
                let node = ready.node();
                if node.has_state(&State::Checked) == checked {
                    return Ok(outcome(ready, Route::NotNeeded));
                }
                let (x, y) = centre(node)?;
                self.send(
                    ready.window(),
                    vec![InputEvent::Click(PointerButton::at(x, y))],
                )?;
                Ok(outcome(ready, Route::Input))
            },
        )?;
        if clicked.route == Route::NotNeeded {
            return Ok(done);
        }
        let route = format!("a click after {}", done.route.as_str());
        self.verify_route(what, &poller, &clicked, &route, wanted, holds)?;
        Ok(clicked)
    }

    /// Chooses the item of a combo box, list, menu button or tab list whose
    /// text matches: presses it if it shows, else opens the element first
    /// (`expand`, else `press`, else a click) and waits for it to show, inside
    /// the element or in a popup the opening showed (a web page's `<select>`
    /// drops its options down in a popup of the browser's own). Then waits
    /// until the element reads the option as chosen. A popup it opened is
    /// closed again when the choice fails.
    pub fn select_option(&self, option: impl Into<TextMatch>) -> Result<ActionOutcome> {
        let option = option.into();
        crate::trace::note_args(
            self.driver.as_ref(),
            || serde_json::json!({ "option": option.to_string() }),
        );
        let what = "select_option";
        let mut poller = self.poller(self.action_timeout());
        // What the element is, and what showed, before the popup opened.
        let mut opened: Option<(WindowId, ElementId, HashSet<ElementId>)> = None;
        let done = self.perform_with(what, Needs::POINTER, &mut poller, |ready, poller| {
            let container = ready.node().id;
            if let Some(item) = pick_option(&ready.tree, ready.at, &option)? {
                return self.choose(ready.window(), item);
            }
            let shown_before: HashSet<ElementId> =
                ready.tree.nodes.iter().filter(|n| is_shown(n)).map(|n| n.id).collect();
            let route = self.open(ready)?;
            opened = Some((ready.window(), container, shown_before.clone()));
            let mut steady = None;
            loop {
                let tree = self.driver.tree(&TreeParams { window: Some(ready.window()) })?;
                let index = TreeIndex::new(&tree);
                let Some(at) = index.position(container) else {
                    return Err(Failure::Stale(Error::no_element("the element went after opening it")));
                };
                let item = match pick_option(&tree, at, &option)? {
                    Some(item) => Some(item),
                    None => pick_popup_option(&tree, &shown_before, &option)?,
                };
                if let Some(item) = item {
                    // A popup may still be moving into place: click where
                    // the item shows in two reads in a row. By its text and
                    // place: Java's bridge makes a list's items anew at
                    // every read, each with another id.
                    let here = (item.label.clone(), item.bounds);
                    if steady.as_ref() == Some(&here) {
                        return self.choose(ready.window(), item);
                    }
                    steady = Some(here);
                    if !poller.expired() {
                        poller.settle()?;
                        continue;
                    }
                } else {
                    steady = None;
                }
                if poller.expired() {
                    let mut offered = item_texts(&tree, at);
                    for text in popup_item_texts(&tree, &shown_before) {
                        if !offered.contains(&text) {
                            offered.push(text);
                        }
                    }
                    return Err(Error::no_element(format!(
                        "{what}: {self} shows no option {option} after opening it ({}) and waiting {}; it offers: {}",
                        route.as_str(),
                        human(poller.timeout()),
                        if offered.is_empty() { "nothing".into() } else { offered.join(", ") }
                    ))
                    .with_suggestion("check the option's text against the items the element shows")
                    .into());
                }
                poller.wait()?;
            }
        });
        let done = match done {
            Ok(done) => done,
            Err(e) => {
                self.close_popup(opened.as_ref());
                return Err(e);
            }
        };
        let chosen = done.element.id;
        let mut check = self.poller(verify_time(&poller));
        let mut last = String::new();
        loop {
            match self.read() {
                Ok(read) => {
                    let at = read
                        .only()
                        .and_then(|n| TreeIndex::new(&read.tree).position(n.id));
                    let verdict = match at {
                        Some(at) => chosen_state(&read.tree, at, chosen, &option),
                        // The element the locator names went: judge by the item.
                        _ => match read.tree.node(chosen) {
                            Some(item)
                                if item.has_state(&State::Selected)
                                    || item.has_state(&State::Checked) =>
                            {
                                Ok(())
                            }
                            _ => Err("the element no longer shows".to_string()),
                        },
                    };
                    match verdict {
                        Ok(()) => return Ok(done),
                        Err(seen) => last = seen,
                    }
                }
                Err(e) if worth_retrying(&e) => {}
                Err(e) => return Err(e),
            }
            if check.expired() {
                self.close_popup(opened.as_ref());
                return Err(Error::failed(format!(
                    "{what}: {} on the option {} of {self}, but the element does not read it as chosen after {}; {last}",
                    done.route.as_str(),
                    describe_node(&done.element),
                    human(check.timeout())
                ))
                .with_suggestion("check that the element reacts to this action; the app may refuse it"));
            }
            check.watch(done.window);
            check.wait()?;
        }
    }

    /// Closes the popup `select_option` opened, if it still shows: the
    /// element's `collapse` action, else Escape.
    fn close_popup(&self, opened: Option<&(WindowId, ElementId, HashSet<ElementId>)>) {
        let Some((window, container, shown_before)) = opened else {
            return;
        };
        let Ok(tree) = self.driver.tree(&TreeParams {
            window: Some(*window),
        }) else {
            return;
        };
        let node = tree.node(*container);
        let popup_shows = tree
            .nodes
            .iter()
            .any(|n| is_shown(n) && !shown_before.contains(&n.id) && ITEM_ROLES.contains(&n.role));
        let expanded = node.is_some_and(|n| n.has_state(&State::Expanded));
        if !(expanded || popup_shows) {
            return;
        }
        if let Some(node) = node.filter(|n| expanded && n.has_action(&Action::Collapse)) {
            let params = ActParams::on(node.id, Action::Collapse).in_window(Some(*window));
            if self.driver.act(&params).is_ok() {
                return;
            }
        }
        let _ = self.driver.input(&InputParams {
            window: Some(*window),
            events: vec![InputEvent::Key {
                key: chord("Escape"),
            }],
        });
        let _ = self.driver.idle(&crate::protocol::IdleParams {
            window: Some(*window),
            timeout: Some(2_000),
        });
    }

    /// Moves the pointer over the element's centre.
    pub fn hover(&self) -> Result<ActionOutcome> {
        self.perform_on_match("hover", Needs::HOVER, |ready, _| {
            let (x, y) = centre(ready.node())?;
            let mods = Vec::new();
            self.send(ready.window(), vec![InputEvent::PointerMove { x, y, mods }])?;
            Ok(outcome(ready, Route::Input))
        })
    }

    /// Gives the element the keyboard focus: its `focus` action, else a click.
    pub fn focus(&self) -> Result<ActionOutcome> {
        let mut poller = self.poller(self.action_timeout());
        let done = self.perform_with_by(
            "focus",
            Needs::ATTACHED,
            &mut poller,
            Locator::read_matches,
            |ready, _| {
                if focus_within(&ready.tree, ready.node().id) {
                    return Ok(outcome(ready, Route::NotNeeded));
                }
                if let Some(route) = self.try_semantic(ready, Action::Focus, None)? {
                    return Ok(outcome(ready, route));
                }
                let route = self.press_or_click(ready.window(), ready.node(), Some(&ready.tree))?;
                Ok(outcome(ready, route))
            },
        )?;
        if done.route == Route::NotNeeded {
            return Ok(done);
        }
        self.confirm_focus(&poller, done)
    }

    /// Waits until the focus is on the element acted on by `done` or inside
    /// it; fails with `failed` and where the focus is when it never comes
    /// (an app may accept the call and leave the focus where it was).
    fn confirm_focus(&self, poller: &Poller, done: ActionOutcome) -> Result<ActionOutcome> {
        let waited = verify_time(poller);
        let mut focus_on = String::from("an element not read");
        let whole = || {
            self.driver.tree(&TreeParams {
                window: Some(done.window),
            })
        };
        let came = self.read_window_until(poller, done.window, whole, |tree| {
            if focus_within(tree, done.element.id) {
                return Some(());
            }
            focus_on = tree
                .focused()
                .map(describe_node)
                .unwrap_or_else(|| "nothing in the window".into());
            None
        })?;
        match came {
            Some(()) => Ok(done),
            None => Err(Error::failed(format!(
                "focus: {} on {} but the focus did not come to it after {}; it is on {focus_on}",
                done.route.as_str(),
                self,
                human(waited)
            ))
            .with_suggestion("click the element, or press Tab until the focus gets there")),
        }
    }

    /// Scrolls the containers around the element to show it. Hidden elements
    /// are matched for this action, since showing them is its point.
    pub fn scroll_into_view(&self) -> Result<ActionOutcome> {
        let within = self.include_hidden(true);
        within.perform("scroll_into_view", Needs::ATTACHED, |ready, _| {
            if is_shown(ready.node()) {
                return Ok(outcome(ready, Route::NotNeeded));
            }
            match within.try_semantic(ready, Action::ScrollIntoView, None)? {
                Some(route) => Ok(outcome(ready, route)),
                None => Err(Error::unsupported(format!(
                    "scroll_into_view: {} offers no scrollIntoView action",
                    describe_node(ready.node())
                ))
                .into()),
            }
        })
    }

    /// Sets a slider's or spinner's number: its `setValue` action, else
    /// `increment`/`decrement` until it gets there; then waits until it reads so.
    pub fn set_value(&self, value: f64) -> Result<ActionOutcome> {
        if !value.is_finite() {
            return Err(Error::invalid_request(
                "set_value: the value must be a finite number",
            ));
        }
        crate::trace::note_args(
            self.driver.as_ref(),
            || serde_json::json!({ "value": value }),
        );
        let what = "set_value";
        let mut poller = self.poller(self.action_timeout());
        let done = self.perform_with(what, Needs::VALUE, &mut poller, |ready, poller| {
            let node = ready.node();
            let (min, max) = (node.min.unwrap_or(f64::MIN), node.max.unwrap_or(f64::MAX));
            if value < min || value > max {
                return Err(Error::invalid_request(format!(
                    "set_value: {value} is outside {}'s range {min} to {max}",
                    describe_node(node)
                ))
                .into());
            }
            if node.now.is_some_and(|now| close(now, value, node)) {
                return Ok(outcome(ready, Route::NotNeeded));
            }
            if let Some(route) = self.try_semantic(ready, Action::SetValue, Some(&number(value)))? {
                return Ok(outcome(ready, route));
            }
            let steps = node.has_action(&Action::Increment) && node.has_action(&Action::Decrement);
            match node.now {
                Some(now) if steps => {
                    let route = self.step_to(ready, now, value, poller)?;
                    Ok(outcome(ready, route))
                }
                _ => Err(Error::unsupported(format!(
                    "set_value: {} offers neither setValue nor increment and decrement with a value",
                    describe_node(node)
                ))
                .with_suggestion("use fill for text, or press arrow keys with press(\"Right\")")
                .into()),
            }
        })?;
        if done.route != Route::NotNeeded {
            let wanted = format!("at {}", number(value));
            self.verify(what, &poller, &done, &wanted, |node| {
                node.now.is_none_or(|now| close(now, value, node))
            })?;
        }
        Ok(done)
    }

    /// Drags the element onto `target`'s centre with real pointer input.
    pub fn drag_to(&self, target: &Locator) -> Result<ActionOutcome> {
        target.check_valid()?;
        self.perform("drag_to", Needs::POINTER, |ready, poller| {
            let onto = target.wait_ready("drag_to (target)", Needs::HOVER, poller)?;
            if onto.window() != ready.window() {
                return Err(Error::unsupported(format!(
                    "drag_to: the target is in window {}, the element in window {}",
                    onto.window(),
                    ready.window()
                ))
                .into());
            }
            let (from, to) = (centre(ready.node())?, centre(onto.node())?);
            let middle = ((from.0 + to.0) / 2.0, (from.1 + to.1) / 2.0);
            let move_to = |(x, y): (f64, f64)| InputEvent::PointerMove {
                x,
                y,
                mods: Vec::new(),
            };
            self.send(
                ready.window(),
                vec![
                    InputEvent::PointerDown(PointerButton::at(from.0, from.1)),
                    move_to(middle),
                    move_to(to),
                    InputEvent::PointerUp(PointerButton::at(to.0, to.1)),
                ],
            )?;
            Ok(outcome(ready, Route::Input))
        })
    }

    /// Focuses the element, selects all its text and types `text` over it
    /// (Delete for no text).
    fn type_over(&self, ready: &Ready, poller: &mut Poller, text: &str) -> Attempt<()> {
        self.focus_for_keys(ready, poller)?;
        let last = if text.is_empty() {
            InputEvent::Key {
                key: chord("Delete"),
            }
        } else {
            InputEvent::Text { text: text.into() }
        };
        self.send(
            ready.window(),
            vec![
                InputEvent::Key {
                    key: chord("CmdOrCtrl+A"),
                },
                last,
            ],
        )
    }

    /// Reads the acted-on element until `holds` (`Ok(node)`), or until the
    /// check's time is up (`Err` with the element as last read, if it was).
    fn read_until(
        &self,
        poller: &Poller,
        done: &ActionOutcome,
        holds: impl Fn(&Node) -> bool,
    ) -> Result<std::result::Result<Node, Option<Node>>> {
        let mut last: Option<Node> = None;
        let read = || self.read_for(done.window, done.element.id);
        let found = self.read_window_until(poller, done.window, read, |tree| {
            let node = find_again(self, tree, done);
            if let Some(node) = node.as_ref().filter(|n| holds(n)) {
                return Some(node.clone());
            }
            last = node.or(last.take());
            None
        })?;
        Ok(found.ok_or(last))
    }

    /// Reads `window` with `read` until `look` finds what it waits for in a
    /// read, or until the check's time is up (`None`): at least
    /// [`VERIFY_AT_LEAST`], else what is left of the action's time.
    fn read_window_until<T>(
        &self,
        poller: &Poller,
        window: WindowId,
        read: impl Fn() -> Result<Tree>,
        mut look: impl FnMut(&Tree) -> Option<T>,
    ) -> Result<Option<T>> {
        let mut check = self.poller(verify_time(poller));
        loop {
            match read() {
                Ok(tree) => {
                    if let Some(found) = look(&tree) {
                        return Ok(Some(found));
                    }
                }
                Err(e) if worth_retrying(&e) => {}
                Err(e) => return Err(e),
            }
            if check.expired() {
                return Ok(None);
            }
            check.watch(window);
            check.wait()?;
        }
    }

    fn perform(
        &self,
        what: &str,
        needs: Needs,
        act: impl FnMut(&Ready, &mut Poller) -> Attempt<ActionOutcome>,
    ) -> Result<ActionOutcome> {
        let mut poller = self.poller(self.action_timeout());
        self.perform_with(what, needs, &mut poller, act)
    }

    /// As [`Locator::perform`], for an action that looks at nothing of the
    /// read but the match, its parents and the focus: the read may leave the
    /// other elements' fields out ([`Locator::read_matches`]).
    fn perform_on_match(
        &self,
        what: &str,
        needs: Needs,
        act: impl FnMut(&Ready, &mut Poller) -> Attempt<ActionOutcome>,
    ) -> Result<ActionOutcome> {
        let mut poller = self.poller(self.action_timeout());
        self.perform_with_by(what, needs, &mut poller, Locator::read_matches, act)
    }

    /// As [`Locator::perform_on_match`] on `poller`, for an action on the
    /// element's text: it needs an editable element.
    fn perform_text(
        &self,
        what: &str,
        poller: &mut Poller,
        act: impl FnMut(&Ready, &mut Poller) -> Attempt<ActionOutcome>,
    ) -> Result<ActionOutcome> {
        self.perform_with_by(what, Needs::TEXT, poller, Locator::read_matches, act)
    }

    /// Climbs the ladder and acts; when the element went between the read and
    /// the action, reads again and retries until the deadline.
    fn perform_with(
        &self,
        what: &str,
        needs: Needs,
        poller: &mut Poller,
        act: impl FnMut(&Ready, &mut Poller) -> Attempt<ActionOutcome>,
    ) -> Result<ActionOutcome> {
        self.perform_with_by(what, needs, poller, Locator::read, act)
    }

    /// As [`Locator::perform_with`], reading the window with `read`.
    fn perform_with_by(
        &self,
        what: &str,
        needs: Needs,
        poller: &mut Poller,
        read: fn(&Locator) -> Result<Read>,
        mut act: impl FnMut(&Ready, &mut Poller) -> Attempt<ActionOutcome>,
    ) -> Result<ActionOutcome> {
        let step = self.trace_begin(what, self.trace_args());
        let done = self.climb_and_act(what, needs, poller, read, &mut act);
        crate::trace::end_action(step, &done);
        done
    }

    /// `perform_with` without its trace step.
    fn climb_and_act(
        &self,
        what: &str,
        needs: Needs,
        poller: &mut Poller,
        read: fn(&Locator) -> Result<Read>,
        act: &mut impl FnMut(&Ready, &mut Poller) -> Attempt<ActionOutcome>,
    ) -> Result<ActionOutcome> {
        self.check_valid()?;
        loop {
            let ready = self.wait_ready_by(what, needs, poller, read)?;
            match act(&ready, poller) {
                Ok(done) => return Ok(done),
                Err(Failure::Fatal(e)) => return Err(e),
                Err(Failure::Stale(e)) if poller.expired() => {
                    return Err(Error {
                        message: format!(
                            "{what}: {self}: the element went away before the action landed, until the timeout ({})",
                            e.message
                        ),
                        ..e
                    })
                }
                Err(Failure::Stale(_)) => poller.wait()?,
            }
        }
    }

    fn act_on(
        &self,
        window: WindowId,
        node: &Node,
        action: Action,
        text: Option<&str>,
    ) -> Attempt<()> {
        let mut params = ActParams::on(node.id, action).in_window(Some(window));
        params.text = text.map(str::to_string);
        self.driver.act(&params).map_err(stale_if_gone)
    }

    fn send(&self, window: WindowId, events: Vec<InputEvent>) -> Attempt<()> {
        self.driver
            .input(&InputParams {
                window: Some(window),
                events,
            })
            .map_err(stale_if_gone)
    }

    /// The element's own action if it offers it and the driver takes it;
    /// `None` to fall back to input.
    fn try_semantic(
        &self,
        ready: &Ready,
        action: Action,
        text: Option<&str>,
    ) -> Attempt<Option<Route>> {
        if !ready.node().has_action(&action) {
            return Ok(None);
        }
        match self.act_on(ready.window(), ready.node(), action.clone(), text) {
            Ok(()) => Ok(Some(Route::Semantic(action))),
            Err(Failure::Fatal(e)) if e.code == ErrorCode::Unsupported => Ok(None),
            Err(other) => Err(other),
        }
    }

    /// A real click at the element's centre when the toolkit's hit test says
    /// it lands on the element (or a part of it, per `tree`), as a person's
    /// click would; else the element's own press action; else a click at its
    /// centre all the same.
    fn press_or_click(&self, window: WindowId, node: &Node, tree: Option<&Tree>) -> Attempt<Route> {
        if self.click_lands(window, node, tree)? {
            let (x, y) = centre(node)?;
            self.send(window, vec![InputEvent::Click(PointerButton::at(x, y))])?;
            return Ok(Route::Input);
        }
        self.press_else_click(window, node)
    }

    /// The element's own press action, else a click at its centre.
    fn press_else_click(&self, window: WindowId, node: &Node) -> Attempt<Route> {
        if node.has_action(&Action::Press) {
            match self.act_on(window, node, Action::Press, None) {
                Ok(()) => return Ok(Route::Semantic(Action::Press)),
                Err(Failure::Fatal(e)) if e.code == ErrorCode::Unsupported => {}
                Err(other) => return Err(other),
            }
        }
        let (x, y) = centre(node)?;
        self.send(window, vec![InputEvent::Click(PointerButton::at(x, y))])?;
        Ok(Route::Input)
    }

    /// Whether a click at the element's centre would land on it: the app's
    /// hit test finds the element there, or an element inside it. A driver
    /// without a hit test (the in-memory demo, a protocol-1 server) says no.
    fn click_lands(&self, window: WindowId, node: &Node, tree: Option<&Tree>) -> Attempt<bool> {
        let Ok((x, y)) = centre(node) else {
            return Ok(false);
        };
        let hit = match self.driver.element_at(&ElementAtParams {
            window: Some(window),
            x,
            y,
        }) {
            Ok(Some(hit)) => hit,
            Ok(None) => return Ok(false),
            Err(e) if e.code == ErrorCode::Unsupported => return Ok(false),
            Err(e) => return Err(Failure::Fatal(e)),
        };
        let parent_of = |id: ElementId| {
            tree.and_then(|t| t.nodes.iter().find(|n| n.id == id))
                .and_then(|n| n.parent)
        };
        let mut at = Some(hit);
        while let Some(id) = at {
            if id == node.id {
                return Ok(true);
            }
            at = parent_of(id);
        }
        Ok(false)
    }

    /// Gives the element the focus unless it has it, and lets the window
    /// settle, so the keys that follow reach it.
    fn focus_for_keys(&self, ready: &Ready, poller: &mut Poller) -> Attempt<()> {
        let node = ready.node();
        if ready.tree.focus == Some(node.id) {
            return Ok(());
        }
        if self.try_semantic(ready, Action::Focus, None)?.is_none() {
            let (x, y) = centre(node)?;
            self.send(
                ready.window(),
                vec![InputEvent::Click(PointerButton::at(x, y))],
            )?;
        }
        poller.settle()?;
        Ok(())
    }

    /// Opens a combo box or menu button so its items show.
    fn open(&self, ready: &Ready) -> Attempt<Route> {
        let node = ready.node();
        if !node.has_state(&State::Expanded) {
            if let Some(route) = self.try_semantic(ready, Action::Expand, None)? {
                return Ok(route);
            }
        }
        self.press_or_click(ready.window(), node, Some(&ready.tree))
    }

    fn choose(&self, window: WindowId, item: Node) -> Attempt<ActionOutcome> {
        let route = self.press_or_click(window, &item, None)?;
        Ok(ActionOutcome {
            route,
            element: item,
            window,
        })
    }

    /// Steps a slider toward `target` one `increment` or `decrement` at a time,
    /// reading it after each step, and stops at the step nearest the target.
    fn step_to(
        &self,
        ready: &Ready,
        mut now: f64,
        target: f64,
        poller: &mut Poller,
    ) -> Attempt<Route> {
        let id = ready.node().id;
        let mut node = ready.node().clone();
        let mut route = Route::NotNeeded;
        while !close(now, target, &node) {
            let action = if now < target {
                Action::Increment
            } else {
                Action::Decrement
            };
            self.act_on(ready.window(), &node, action.clone(), None)?;
            route = Route::Semantic(action);
            let before = now;
            loop {
                let tree = self.driver.tree(&TreeParams {
                    window: Some(ready.window()),
                })?;
                node = tree.node(id).cloned().ok_or_else(|| {
                    Failure::Stale(Error::no_element("the element went while stepping"))
                })?;
                now = node.now.unwrap_or(before);
                if now != before {
                    break;
                }
                if poller.expired() {
                    return Err(Error::failed(format!(
                        "set_value: {} stayed at {before} after {}",
                        describe_node(&node),
                        route.as_str()
                    ))
                    .into());
                }
                poller.wait()?;
            }
            let passed = (before < target) != (now < target);
            if passed {
                break;
            }
        }
        Ok(route)
    }

    /// Reads the acted-on element until `holds`, or fails with `failed` and
    /// what it showed last. The element is found by id, else by the locator.
    fn verify(
        &self,
        what: &str,
        poller: &Poller,
        done: &ActionOutcome,
        wanted: &str,
        holds: impl Fn(&Node) -> bool,
    ) -> Result<Node> {
        self.verify_route(what, poller, done, &done.route.as_str(), wanted, holds)
    }

    /// As [`Locator::verify`], naming the route as `route` in the message.
    fn verify_route(
        &self,
        what: &str,
        poller: &Poller,
        done: &ActionOutcome,
        route: &str,
        wanted: &str,
        holds: impl Fn(&Node) -> bool,
    ) -> Result<Node> {
        let waited = verify_time(poller);
        self.read_until(poller, done, holds)?.map_err(|last| {
            let seen = last
                .as_ref()
                .map(describe_node)
                .unwrap_or_else(|| "the element was gone".into());
            Error::failed(format!(
                "{what}: {} on {} but it was not {wanted} after {}; last read: {seen}",
                route,
                self,
                human(waited)
            ))
            .with_suggestion("check that the element reacts to this action; the app may refuse it")
        })
    }
}

/// How long a check after an action reads: what is left of the action's
/// time, and at least [`VERIFY_AT_LEAST`].
fn verify_time(poller: &Poller) -> Duration {
    poller.remaining().max(VERIFY_AT_LEAST)
}

/// Whether the window's focus is on the element `id` or inside it.
fn focus_within(tree: &Tree, id: ElementId) -> bool {
    let mut at = tree.focused();
    for _ in 0..tree.nodes.len() {
        match at {
            Some(node) if node.id == id => return true,
            Some(node) => at = node.parent.and_then(|parent| tree.node(parent)),
            None => return false,
        }
    }
    false
}

/// The acted-on element in a later read: by id, else the locator's one match.
fn find_again(locator: &Locator, tree: &Tree, done: &ActionOutcome) -> Option<Node> {
    if let Some(node) = tree.node(done.element.id) {
        return Some(node.clone());
    }
    let picked = TreeIndex::new(tree).select(&locator.steps, locator.include_hidden);
    match picked.as_slice() {
        [at] => Some(tree.nodes[*at].clone()),
        _ => None,
    }
}

fn stale_if_gone(err: Error) -> Failure {
    if err.code == ErrorCode::NoElement {
        Failure::Stale(err)
    } else {
        Failure::Fatal(err)
    }
}

fn outcome(ready: &Ready, route: Route) -> ActionOutcome {
    ActionOutcome {
        route,
        element: ready.node().clone(),
        window: ready.window(),
    }
}

fn centre(node: &Node) -> Result<(f64, f64)> {
    match node.bounds {
        Some(b) if !b.is_empty() => Ok(b.center()),
        _ => Err(Error::unsupported(format!(
            "{} has no area to send input to",
            describe_node(node)
        ))
        .with_suggestion("use an action the element offers (see its `actions`)")),
    }
}

fn chord(text: &str) -> KeyChord {
    text.parse().expect("a chord written in the code parses")
}

/// Close enough for a slider: within half a step, or a rounding error without one.
fn close(now: f64, target: f64, node: &Node) -> bool {
    let tolerance = match node.step {
        Some(step) if step > 0.0 => step / 2.0,
        _ => 1e-9 * target.abs().max(1.0),
    };
    (now - target).abs() <= tolerance
}

/// A number as the protocol writes one: whole numbers without a point.
pub(crate) fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 9e15 {
        format!("{}", value as i64)
    } else {
        format!("{value}")
    }
}

/// Roles of the items a combo box, list, menu or tab list offers.
const ITEM_ROLES: &[Role] = &[
    Role::ListItem,
    Role::MenuItem,
    Role::MenuItemRadio,
    Role::MenuItemCheckBox,
    Role::TreeItem,
    Role::Tab,
    Role::Radio,
    Role::Row,
    Role::Cell,
];

/// Items inside the element, or inside the elements it `controls`.
fn items(tree: &Tree, container: usize) -> Vec<usize> {
    let index = TreeIndex::new(tree);
    let mut found = index.inside(container);
    for controlled in &tree.nodes[container].controls {
        if let Some(at) = index.position(*controlled) {
            found.push(at);
            found.extend(index.inside(at));
        }
    }
    found.sort_unstable();
    found.dedup();
    found.retain(|&at| ITEM_ROLES.contains(&tree.nodes[at].role));
    found
}

fn item_texts(tree: &Tree, container: usize) -> Vec<String> {
    items(tree, container)
        .into_iter()
        .filter_map(|at| tree.nodes[at].text().map(|t| format!("{t:?}")))
        .collect()
}

/// The one showing item whose text matches; of several, the one equal to the
/// text (ignoring case), else an `ambiguous` error.
fn pick_option(tree: &Tree, container: usize, option: &TextMatch) -> Attempt<Option<Node>> {
    let matching: Vec<&Node> = items(tree, container)
        .into_iter()
        .map(|at| &tree.nodes[at])
        .filter(|node| is_shown(node) && node.text().is_some_and(|t| option.matches(t)))
        .collect();
    pick_one(matching, option)
}

/// Of the matching items, the only one, or the one equal to the option's text.
fn pick_one(matching: Vec<&Node>, option: &TextMatch) -> Attempt<Option<Node>> {
    let chosen = match matching.as_slice() {
        [] => return Ok(None),
        [one] => *one,
        many => {
            let equal: Vec<&&Node> = many
                .iter()
                .filter(|n| n.text().is_some_and(|t| option.equals_ignoring_case(t)))
                .collect();
            match equal.as_slice() {
                [one] => **one,
                _ => {
                    let listed: Vec<String> = many.iter().map(|n| describe_node(n)).collect();
                    return Err(Error::new(
                        ErrorCode::Ambiguous,
                        format!(
                            "select_option: {} options match {option}: {}",
                            many.len(),
                            listed.join("; ")
                        ),
                    )
                    .with_suggestion("give the option's whole text, or TextMatch::exact")
                    .into());
                }
            }
        }
    };
    Ok(Some(chosen.clone()))
}

/// Whether a text element reads `text`; a password field, as many mask characters.
fn reads_as(node: &Node, text: &str) -> bool {
    let value = node.value.as_deref().unwrap_or_default();
    if node.has_state(&State::Password) {
        value.chars().count() == text.chars().count()
    } else {
        value == text
    }
}

/// Whether a text element that read `before` took `typed`: its text changed
/// and holds it (a password field: grew by as many characters).
fn took_typing(node: &Node, before: &str, typed: &str) -> bool {
    let value = node.value.as_deref().unwrap_or_default();
    if node.has_state(&State::Password) {
        value.chars().count() == before.chars().count() + typed.chars().count()
    } else {
        value != before && value.contains(typed)
    }
}

/// The `failed` error of a fill or type whose text did not land: what the
/// element read last, after what.
fn text_not_taken(
    what: &str,
    locator: &Locator,
    done: &ActionOutcome,
    seen: &Option<Node>,
    after: &str,
) -> Error {
    let reads = match seen {
        Some(node) if node.has_state(&State::Password) => format!(
            "holds {} characters",
            node.value.as_deref().unwrap_or_default().chars().count()
        ),
        Some(node) => format!(
            "reads `{}`",
            clip(node.value.as_deref().unwrap_or_default())
        ),
        None => "was gone".into(),
    };
    let element = seen.as_ref().unwrap_or(&done.element);
    Error::failed(format!(
        "{what}: {locator}: {} still {reads} after {after}",
        describe_node(element)
    ))
    .with_suggestion(
        "the field may refuse this text (a filter, a length limit) or not take input now",
    )
}

/// Text for a message: at most 80 characters.
fn clip(text: &str) -> String {
    if text.chars().count() <= 80 {
        text.to_string()
    } else {
        let head: String = text.chars().take(77).collect();
        format!("{head}...")
    }
}

/// A route as messages name it: the action, or `input`.
fn route_name(route: &Route) -> String {
    match route {
        Route::Semantic(action) => action.as_str().to_string(),
        other => other.as_str(),
    }
}

/// Items a popup shows that did not show before it opened (`shown_before`).
fn popup_items(tree: &Tree, shown_before: &HashSet<ElementId>) -> Vec<usize> {
    (0..tree.nodes.len())
        .filter(|&at| {
            let node = &tree.nodes[at];
            ITEM_ROLES.contains(&node.role) && is_shown(node) && !shown_before.contains(&node.id)
        })
        .collect()
}

fn popup_item_texts(tree: &Tree, shown_before: &HashSet<ElementId>) -> Vec<String> {
    popup_items(tree, shown_before)
        .into_iter()
        .filter_map(|at| tree.nodes[at].text().map(|t| format!("{t:?}")))
        .collect()
}

/// The one item matching `option` among those a popup newly shows.
fn pick_popup_option(
    tree: &Tree,
    shown_before: &HashSet<ElementId>,
    option: &TextMatch,
) -> Attempt<Option<Node>> {
    let found: Vec<&Node> = popup_items(tree, shown_before)
        .into_iter()
        .map(|at| &tree.nodes[at])
        .filter(|n| n.text().is_some_and(|t| option.matches(t)))
        .collect();
    pick_one(found, option)
}

/// Whether the element at `at` reads `option` as chosen: its value is the
/// option, or its item with that text is selected or checked. An element
/// whose items are commands (a menu button) has chosen once the item
/// (`chosen`) went or hid. `Err` says what it reads instead.
fn chosen_state(
    tree: &Tree,
    at: usize,
    chosen: ElementId,
    option: &TextMatch,
) -> std::result::Result<(), String> {
    let node = &tree.nodes[at];
    if node.value.as_deref().is_some_and(|v| option.matches(v)) {
        return Ok(());
    }
    // A GTK 3 combo box (wx's Choice is one) has no value: its name is the
    // text it shows, and its popup's items never read as selected.
    let shows = node.value.is_none() && node.role == Role::ComboBox;
    if shows && node.label.as_deref().is_some_and(|l| option.matches(l)) {
        return Ok(());
    }
    let inside = items(tree, at);
    let picked: Vec<&Node> = inside
        .iter()
        .map(|&i| &tree.nodes[i])
        .filter(|n| n.has_state(&State::Selected) || n.has_state(&State::Checked))
        .collect();
    if picked
        .iter()
        .any(|n| n.text().is_some_and(|t| option.matches(t)))
    {
        return Ok(());
    }
    let commands = matches!(
        node.role,
        Role::MenuButton | Role::PopUpButton | Role::Button | Role::Menu | Role::MenuBar
    );
    if commands {
        match tree.node(chosen) {
            None => return Ok(()),
            Some(item)
                if !is_shown(item)
                    || item.has_state(&State::Selected)
                    || item.has_state(&State::Checked) =>
            {
                return Ok(())
            }
            Some(_) => {}
        }
    }
    let chosen_now: Vec<String> = picked
        .iter()
        .filter_map(|n| n.text().map(|t| format!("{t:?}")))
        .collect();
    Err(match (node.value.as_deref(), chosen_now.is_empty()) {
        (Some(v), _) => format!("it reads {v:?}"),
        (None, false) => format!("its chosen item is {}", chosen_now.join(", ")),
        (None, true) => format!("last read: {}", describe_node(node)),
    })
}

#[cfg(test)]
mod tests {
    //! Actions whose semantic route answers success and changes nothing, as
    //! Firefox's `EditableText` does: an in-memory app behind a driver that
    //! swallows chosen requests.
    use super::*;
    use crate::driver::Driver;
    use crate::memory::MemoryDriver;
    use crate::protocol::{
        Capture, CaptureParams, EvalParams, Hello, IdleParams, MenuParams, WindowList,
    };
    use crate::{App, Timeouts};
    use serde_json::Value;
    use std::sync::{Arc, Mutex};

    /// The demo app, except that the listed actions and (optionally) text
    /// input are answered with success and not done.
    struct Swallowing {
        app: MemoryDriver,
        actions: Vec<Action>,
        text_input: bool,
        swallowed: Mutex<Vec<String>>,
    }

    impl Swallowing {
        fn new(actions: &[Action], text_input: bool) -> Arc<Swallowing> {
            Arc::new(Swallowing {
                app: MemoryDriver::new(),
                actions: actions.to_vec(),
                text_input,
                swallowed: Mutex::new(Vec::new()),
            })
        }

        fn swallowed(&self) -> Vec<String> {
            self.swallowed.lock().unwrap().clone()
        }
    }

    impl Driver for Swallowing {
        fn hello(&self) -> Result<Hello> {
            self.app.hello()
        }
        fn windows(&self) -> Result<WindowList> {
            self.app.windows()
        }
        fn tree(&self, params: &TreeParams) -> Result<Tree> {
            self.app.tree(params)
        }
        fn act(&self, params: &ActParams) -> Result<()> {
            if self.actions.contains(&params.action) {
                self.swallowed
                    .lock()
                    .unwrap()
                    .push(format!("act {}", params.action));
                return Ok(());
            }
            self.app.act(params)
        }
        fn input(&self, params: &InputParams) -> Result<()> {
            let select_all = chord("CmdOrCtrl+A");
            for event in &params.events {
                match event {
                    InputEvent::Text { .. } if self.text_input => {
                        self.swallowed.lock().unwrap().push("input text".into());
                    }
                    // The in-memory app has no Ctrl+A: select the focused field's text.
                    InputEvent::Key { key } if *key == select_all => self.app.edit(|ui| {
                        let window = &mut ui.windows[0];
                        let focus = window.focus;
                        if let Some(node) = focus.and_then(|id| window.node_mut(id)) {
                            let end = node.value.as_deref().unwrap_or_default().chars().count();
                            node.selection = Some([0, end as u32]);
                        }
                    }),
                    other => self.app.input(&InputParams {
                        window: params.window,
                        events: vec![other.clone()],
                    })?,
                }
            }
            Ok(())
        }
        fn menu(&self, params: &MenuParams) -> Result<()> {
            self.app.menu(params)
        }
        fn capture(&self, params: &CaptureParams) -> Result<Capture> {
            self.app.capture(params)
        }
        fn eval(&self, params: &EvalParams) -> Result<Value> {
            self.app.eval(params)
        }
        fn idle(&self, params: &IdleParams) -> Result<()> {
            self.app.idle(params)
        }
    }

    fn app(driver: &Arc<Swallowing>) -> App {
        let app = App::new(driver.clone());
        app.set_timeouts(Timeouts {
            action: Duration::from_millis(300),
            expect: Duration::from_millis(300),
        });
        app
    }

    fn value(driver: &Swallowing, key: &str) -> String {
        driver
            .app
            .edit(|ui| ui.windows[0].keyed(key).value.clone().unwrap_or_default())
    }

    #[test]
    fn fill_types_the_text_when_set_value_changed_nothing() {
        let driver = Swallowing::new(&[Action::SetValue], false);
        let done = app(&driver).get_by_key("name").fill("Grace").unwrap();
        assert_eq!(done.route, Route::Input);
        assert_eq!(value(&driver, "name"), "Grace");
        assert_eq!(driver.swallowed(), ["act setValue"]);
    }

    #[test]
    fn fill_fails_with_what_the_field_reads_when_nothing_lands() {
        let driver = Swallowing::new(&[Action::SetValue], true);
        let err = app(&driver).get_by_key("name").fill("Grace").unwrap_err();
        assert_eq!(err.code, ErrorCode::Failed, "{err}");
        assert!(
            err.message
                .contains("still reads `Ada` after setValue and after typing `Grace`"),
            "{}",
            err.message
        );
        assert_eq!(value(&driver, "name"), "Ada");
    }

    #[test]
    fn type_text_types_when_insert_text_changed_nothing() {
        let driver = Swallowing::new(&[Action::InsertText], false);
        let done = app(&driver).get_by_key("name").type_text(" L").unwrap();
        assert_eq!(done.route, Route::Input);
        assert_eq!(value(&driver, "name"), "Ada L");

        let driver = Swallowing::new(&[Action::InsertText], true);
        let err = app(&driver).get_by_key("name").type_text(" L").unwrap_err();
        assert_eq!(err.code, ErrorCode::Failed, "{err}");
        assert!(err.message.contains("still reads `Ada`"), "{}", err.message);
    }

    #[test]
    fn check_clicks_when_press_changed_nothing() {
        let driver = Swallowing::new(&[Action::Press], false);
        let done = app(&driver).get_by_key("subscribe").check().unwrap();
        assert_eq!(done.route, Route::Input);
        let checked = driver
            .app
            .edit(|ui| ui.windows[0].keyed("subscribe").has_state(&State::Checked));
        assert!(checked);
        assert_eq!(driver.swallowed(), ["act press"]);
    }

    #[test]
    fn press_on_a_check_box_clicks_when_its_action_changed_nothing() {
        let driver = Swallowing::new(&[Action::Press], false);
        let done = app(&driver).get_by_key("subscribe").activate().unwrap();
        assert_eq!(done.route, Route::Input);
        let checked = driver
            .app
            .edit(|ui| ui.windows[0].keyed("subscribe").has_state(&State::Checked));
        assert!(checked, "a real click checked it");
        assert_eq!(driver.swallowed(), ["act press"]);
        // Taken at its word where the action works: one press, no click.
        let driver = Swallowing::new(&[], false);
        let done = app(&driver).get_by_key("subscribe").activate().unwrap();
        assert_eq!(done.route, Route::Semantic(Action::Press));
    }

    #[test]
    fn text_checks_read_masks_in_password_fields() {
        let mut node = Node {
            value: Some("•••".into()),
            states: vec![State::Password],
            ..Node::default()
        };
        assert!(reads_as(&node, "abc"));
        assert!(!reads_as(&node, "ab"));
        assert!(took_typing(&node, "•", "xy"));
        node.states.clear();
        assert!(!reads_as(&node, "abc"));
        node.value = Some("abc".into());
        assert!(took_typing(&node, "ab", "c"));
        assert!(!took_typing(&node, "abc", "c"));
    }
}
