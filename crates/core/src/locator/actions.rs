//! What a locator does. Each action climbs the ladder, then uses the
//! element's own action when it offers one and real input at its centre
//! otherwise, and says which it took.

use super::ladder::{Needs, Ready};
use super::matching::{is_shown, TextMatch, TreeIndex};
use super::resolve::{describe_node, human, worth_retrying, Poller};
use super::Locator;
use crate::error::{Error, ErrorCode, Result};
use crate::protocol::{
    ActParams, Action, InputEvent, InputParams, KeyChord, Node, PointerButton, Role, State, Tree,
    TreeParams, WindowId,
};
use serde::ser::{Serialize, SerializeMap, Serializer};
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
        self.perform("click", Needs::POINTER, |ready, _| {
            let route = self.press_or_click(ready.window(), ready.node())?;
            Ok(outcome(ready, route))
        })
    }

    /// A real double click at the element's centre.
    pub fn dblclick(&self) -> Result<ActionOutcome> {
        self.perform("dblclick", Needs::POINTER, |ready, _| {
            let (x, y) = centre(ready.node())?;
            let mut click = PointerButton::at(x, y);
            click.clicks = Some(2);
            self.send(ready.window(), vec![InputEvent::Click(click)])?;
            Ok(outcome(ready, Route::Input))
        })
    }

    /// Replaces the element's text: its `setValue` action, else focus, select
    /// all and type.
    pub fn fill(&self, text: &str) -> Result<ActionOutcome> {
        self.perform("fill", Needs::TEXT, |ready, poller| {
            if let Some(route) = self.try_semantic(ready, Action::SetValue, Some(text))? {
                return Ok(outcome(ready, route));
            }
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
            )?;
            Ok(outcome(ready, Route::Input))
        })
    }

    /// Types `text` at the caret: the element's `insertText` action, else focus
    /// and text input. (`type` in Python and Node.)
    pub fn type_text(&self, text: &str) -> Result<ActionOutcome> {
        self.perform("type", Needs::TEXT, |ready, poller| {
            if text.is_empty() {
                return Ok(outcome(ready, Route::NotNeeded));
            }
            if let Some(route) = self.try_semantic(ready, Action::InsertText, Some(text))? {
                return Ok(outcome(ready, route));
            }
            self.focus_for_keys(ready, poller)?;
            self.send(ready.window(), vec![InputEvent::Text { text: text.into() }])?;
            Ok(outcome(ready, Route::Input))
        })
    }

    /// Focuses the element, then presses a key chord such as `Enter` or `CmdOrCtrl+A`.
    pub fn press(&self, key: &str) -> Result<ActionOutcome> {
        let key: KeyChord = key
            .parse()
            .map_err(|e: String| Error::invalid_request(format!("press: {e}")))?;
        self.perform("press", Needs::KEYS, |ready, poller| {
            self.focus_for_keys(ready, poller)?;
            self.send(ready.window(), vec![InputEvent::Key { key: key.clone() }])?;
            Ok(outcome(ready, Route::Input))
        })
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
        let done = self.perform_with(what, Needs::POINTER, &mut poller, |ready, _| {
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
            let route = self.press_or_click(ready.window(), node)?;
            Ok(outcome(ready, route))
        })?;
        if done.route != Route::NotNeeded {
            let wanted = if checked { "checked" } else { "unchecked" };
            self.verify(what, &poller, &done, wanted, |node| {
                node.has_state(&State::Checked) == checked
            })?;
        }
        Ok(done)
    }

    /// Chooses the item of a combo box, list, menu button or tab list whose
    /// text matches: presses it if it shows, else opens the element first
    /// (`expand`, else `press`, else a click) and waits for it to show.
    pub fn select_option(&self, option: impl Into<TextMatch>) -> Result<ActionOutcome> {
        let option = option.into();
        let what = "select_option";
        let mut poller = self.poller(self.action_timeout());
        let done = self.perform_with(what, Needs::POINTER, &mut poller, |ready, poller| {
            let container = ready.node().id;
            if let Some(item) = pick_option(&ready.tree, ready.at, &option)? {
                return self.choose(ready.window(), item);
            }
            let opened = self.open(ready)?;
            loop {
                let tree = self.driver.tree(&TreeParams { window: Some(ready.window()) })?;
                let index = TreeIndex::new(&tree);
                let Some(at) = index.position(container) else {
                    return Err(Failure::Stale(Error::no_element("the element went after opening it")));
                };
                if let Some(item) = pick_option(&tree, at, &option)? {
                    return self.choose(ready.window(), item);
                }
                if poller.expired() {
                    let offered = item_texts(&tree, at);
                    return Err(Error::no_element(format!(
                        "{what}: {self} shows no option {option} after opening it ({}) and waiting {}; it offers: {}",
                        opened.as_str(),
                        human(poller.timeout()),
                        if offered.is_empty() { "nothing".into() } else { offered.join(", ") }
                    ))
                    .with_suggestion("check the option's text against the items the element shows")
                    .into());
                }
                poller.wait()?;
            }
        })?;
        let chosen = done.element.id;
        let container = self.clone();
        self.verify(what, &poller, &done, "selected", |item| {
            item.id != chosen
                || item.has_state(&State::Selected)
                || item.has_state(&State::Checked)
                || !is_shown(item)
        })
        .or_else(|e| {
            // The item may go with its popup; then the element's own text tells.
            match container.read() {
                Ok(read)
                    if read
                        .only()
                        .and_then(Node::text)
                        .is_some_and(|t| option.matches(t)) =>
                {
                    Ok(done.element.clone())
                }
                _ => Err(e),
            }
        })?;
        Ok(done)
    }

    /// Moves the pointer over the element's centre.
    pub fn hover(&self) -> Result<ActionOutcome> {
        self.perform("hover", Needs::HOVER, |ready, _| {
            let (x, y) = centre(ready.node())?;
            let mods = Vec::new();
            self.send(ready.window(), vec![InputEvent::PointerMove { x, y, mods }])?;
            Ok(outcome(ready, Route::Input))
        })
    }

    /// Gives the element the keyboard focus: its `focus` action, else a click.
    pub fn focus(&self) -> Result<ActionOutcome> {
        self.perform("focus", Needs::ATTACHED, |ready, _| {
            if let Some(route) = self.try_semantic(ready, Action::Focus, None)? {
                return Ok(outcome(ready, route));
            }
            let route = self.press_or_click(ready.window(), ready.node())?;
            Ok(outcome(ready, route))
        })
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

    fn perform(
        &self,
        what: &str,
        needs: Needs,
        act: impl FnMut(&Ready, &mut Poller) -> Attempt<ActionOutcome>,
    ) -> Result<ActionOutcome> {
        let mut poller = self.poller(self.action_timeout());
        self.perform_with(what, needs, &mut poller, act)
    }

    /// Climbs the ladder and acts; when the element went between the read and
    /// the action, reads again and retries until the deadline.
    fn perform_with(
        &self,
        what: &str,
        needs: Needs,
        poller: &mut Poller,
        mut act: impl FnMut(&Ready, &mut Poller) -> Attempt<ActionOutcome>,
    ) -> Result<ActionOutcome> {
        self.check_valid()?;
        loop {
            let ready = self.wait_ready(what, needs, poller)?;
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

    fn press_or_click(&self, window: WindowId, node: &Node) -> Attempt<Route> {
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
        self.press_or_click(ready.window(), node)
    }

    fn choose(&self, window: WindowId, item: Node) -> Attempt<ActionOutcome> {
        let route = self.press_or_click(window, &item)?;
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
        let mut check = self.poller(poller.remaining().max(VERIFY_AT_LEAST));
        let mut last: Option<Node> = None;
        loop {
            match self.driver.tree(&TreeParams {
                window: Some(done.window),
            }) {
                Ok(tree) => {
                    let node = find_again(self, &tree, done);
                    if let Some(node) = &node {
                        if holds(node) {
                            return Ok(node.clone());
                        }
                    }
                    last = node.or(last);
                }
                Err(e) if worth_retrying(&e) => {}
                Err(e) => return Err(e),
            }
            if check.expired() {
                let seen = last
                    .as_ref()
                    .map(describe_node)
                    .unwrap_or_else(|| "the element was gone".into());
                return Err(Error::failed(format!(
                    "{what}: {} on {} but it was not {wanted} after {}; last read: {seen}",
                    done.route.as_str(),
                    self,
                    human(check.timeout())
                ))
                .with_suggestion(
                    "check that the element reacts to this action; the app may refuse it",
                ));
            }
            check.watch(done.window);
            check.wait()?;
        }
    }
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
