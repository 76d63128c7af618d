//! What a locator does. Each action climbs the ladder, then uses the
//! element's own action when it offers one and real input at its centre
//! otherwise, then looks for its effect in the tree (see [`super::effect`])
//! and says which route it took and what it saw.

use super::effect::{find_again, ActionOutcome, Effect, Route};
use super::ladder::{Needs, Ready};
use super::matching::{is_shown, TextMatch, TreeIndex};
use super::observe::{
    done, done_by, gone_with, text_landed, verify_time, Done, Reread, Seen, VERIFY_AT_LEAST,
};
use super::picture::Picture;
use super::resolve::{describe_node, human, worth_retrying, Poller, Read};
use super::retarget::Purpose;
use super::Locator;
use crate::error::{Error, ErrorCode, Result};
use crate::protocol::{
    ActParams, Action, ElementAtParams, ElementId, IdleParams, InputEvent, InputParams, KeyChord,
    MouseButton, Node, PointerButton, Role, State, Tree, TreeParams, WindowId,
};
use crate::text_check::{self, clip, node_landed, Wanted};
use std::collections::{HashMap, HashSet};
use std::time::Duration;

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

impl Locator {
    /// Presses the element: its `press` action when it offers one, else a real
    /// click at its centre. Then looks for the change: the element reads
    /// otherwise, or went, or a window opened or closed.
    pub fn click(&self) -> Result<ActionOutcome> {
        if self.visual_query().is_some() {
            return self.click_button(MouseButton::Left, 1);
        }
        self.traced("click", || {
            let mut poller = self.poller(self.action_timeout());
            let done =
                self.perform_on_match("click", Needs::POINTER, &mut poller, |ready, _| {
                    let windows = self.windows_now();
                    let route =
                        self.press_or_click(ready.window(), ready.node(), Some(&ready.tree))?;
                    Ok(done(ready, route, windows))
                })?;
            self.observe_change(&mut poller, done, "click")
        })
    }

    /// Presses the element as assistive technology does: its own press
    /// action, else a click at its centre. (`press` in the CLI; `click` is
    /// the real click a person makes.)
    /// A check box, toggle or radio button pressed this way is confirmed when
    /// its checked state flips. When its own action was taken and the state
    /// reads as before a moment later, it is pressed again (a real
    /// click) only if it is drawn exactly as before the action, so that the
    /// app plainly ignored it (LibreOffice's Bold toggle ignores its first
    /// press action); a press that may have toggled it is never repeated, as
    /// the second would turn it back, and answers `unverifiable` (GTK 3's
    /// popover menu items keep their state in the window's action, where
    /// accessibility does not see it). It fails with `failed` when a real
    /// click left the state as it was. (A menu's check item is not read
    /// back: choosing it closes its menu, and with it the item, until the
    /// menu opens again.) Anything else is looked at as `click` looks: it
    /// reads otherwise, went, or a window opened or closed.
    pub fn activate(&self) -> Result<ActionOutcome> {
        if self.visual_query().is_some() {
            return self.click_button(MouseButton::Left, 1);
        }
        let what = "press";
        self.traced(what, || {
            let mut poller = self.poller(self.action_timeout());
            let mut drawn = None;
            let mut looked = None;
            let done = self.perform_on_match(what, Needs::POINTER, &mut poller, |ready, _| {
                let windows = self.windows_now();
                drawn = self.picture_before_press(ready);
                if press_shows(ready.node()) && !toggles(ready.node()) {
                    looked = self.looks_now(ready.window());
                }
                let route = self.press_else_click(ready.window(), ready.node())?;
                Ok(done(ready, route, windows))
            })?;
            if !toggles(&done.element) {
                let outcome = self.observe_change(&mut poller, done, what)?;
                return match looked {
                    Some(before) => self.click_if_press_unseen(outcome, before),
                    None => Ok(outcome),
                };
            }
            let checked = !done.element.has_state(&State::Checked);
            self.confirm_checked(what, poller, done, checked, drawn, Promise::Press)
        })
    }

    /// The window's elements and windows as a press could change them, read whole.
    fn looks_now(&self, window: WindowId) -> Option<Looks> {
        let tree = self
            .driver
            .tree(&TreeParams {
                window: Some(window),
            })
            .ok()?;
        Some(looks(&tree, self.windows_now()))
    }

    /// A press whose own action answered but showed nothing, on an element
    /// whose press must show (a menu button, a combo box, a tab...): the
    /// window is given longer to show it (GTK 4 applies actions a moment
    /// late), and when it still does not, the press is made again as a real
    /// click at its centre. The route says `input` then, and the effect what
    /// that click showed. A press that showed, or was a click already, is
    /// left as it is.
    fn click_if_press_unseen(
        &self,
        mut outcome: ActionOutcome,
        before: Looks,
    ) -> Result<ActionOutcome> {
        if outcome.effect.is_confirmed() || !matches!(outcome.route, Route::Semantic(_)) {
            return Ok(outcome);
        }
        let window = outcome.window;
        let settle =
            crate::protocol::IdleParams::within(Some(window), PRESS_SETTLE.as_millis() as u64);
        let _ = self.driver.idle(&settle);
        let Some(after) = self.looks_now(window) else {
            return Ok(outcome);
        };
        if after != before {
            return Ok(outcome);
        }
        let Some((x, y)) = after
            .bounds_of(outcome.element.id)
            .filter(|b| !b.is_empty())
            .map(|b| b.center())
        else {
            return Ok(outcome);
        };
        self.driver.input(&InputParams {
            window: Some(window),
            events: vec![InputEvent::Click(PointerButton::at(x, y))],
            hold: false,
        })?;
        outcome.route = Route::Input;
        let _ = self.driver.idle(&settle);
        outcome.effect = match self.looks_now(window) {
            Some(clicked) if clicked != after => Effect::Confirmed(
                "its press action changed nothing; a real click at its centre changed the window"
                    .into(),
            ),
            Some(_) => Effect::Unverifiable(
                "neither its press action nor a real click at its centre changed what the window shows"
                    .into(),
            ),
            None => Effect::Confirmed(format!("window {window} went after a real click")),
        };
        Ok(outcome)
    }

    /// A real double click at the element's centre.
    pub fn dblclick(&self) -> Result<ActionOutcome> {
        self.click_button(MouseButton::Left, 2)
    }

    /// `click` for a plain left click, else `click_button`: the one rule
    /// every front end's click options (a button, a count) follow.
    pub fn click_with(&self, button: MouseButton, clicks: u32) -> Result<ActionOutcome> {
        if button == MouseButton::Left && clicks == 1 {
            self.click()
        } else {
            self.click_button(button, clicks)
        }
    }

    /// A real click of `button`, `clicks` times in a row (2: a double
    /// click), at the element's centre once it can take it; never the
    /// element's own action (a right click opens a context menu). Looked at
    /// as `click` looks.
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
        if self.visual_query().is_some() {
            return self.traced(what, || {
                self.visual_pointer(what, Needs::POINTER, true, |(x, y)| {
                    let mut click = PointerButton::at(x, y);
                    click.button = (button != MouseButton::Left).then_some(button);
                    click.clicks = (clicks != 1).then_some(clicks);
                    vec![InputEvent::Click(click)]
                })
            });
        }
        self.traced(what, || {
            let mut poller = self.poller(self.action_timeout());
            let done = self.perform_on_match(what, Needs::POINTER, &mut poller, |ready, _| {
                let (x, y) = centre(ready.node())?;
                let mut click = PointerButton::at(x, y);
                click.button = (button != MouseButton::Left).then_some(button);
                click.clicks = (clicks != 1).then_some(clicks);
                let windows = self.windows_now();
                self.send(ready.window(), vec![InputEvent::Click(click)])?;
                Ok(done(ready, Route::Input, windows))
            })?;
            self.observe_change(&mut poller, done, what)
        })
    }

    /// Replaces the element's text: its `setValue` action, else focus, select
    /// all and type. Then waits until the element reads the new text; when
    /// `setValue` was taken but the text did not change, types it after all,
    /// and fails with `failed` and what the element reads if that did not
    /// change it either.
    pub fn fill(&self, text: &str) -> Result<ActionOutcome> {
        // A part of a compound widget (a combo box's label) fills its field.
        if let Some(field) = self.retarget(Purpose::Fill)? {
            return field.fill(text);
        }
        crate::trace::note_args(self.driver.as_ref(), || serde_json::json!({ "text": text }));
        let what = "fill";
        self.traced(what, || {
            let mut poller = self.poller(self.action_timeout());
            let done = self.perform_text(what, &mut poller, |ready, poller| {
                if let Some(route) = self.try_semantic(ready, Action::SetValue, Some(text))? {
                    return Ok(done(ready, route, None));
                }
                self.type_over(ready, poller, text)?;
                Ok(done(ready, Route::Input, None))
            })?;
            let holds = |node: &Node| node_landed(node, Wanted::Reads(text));
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
        })
    }

    /// Types `text` at the caret: the element's `insertText` action, else focus
    /// and text input. (`type` in Python and Node.) Then waits until the
    /// element's text changed to hold it; when `insertText` was taken but
    /// changed nothing, types it after all, and fails with `failed` and what
    /// the element reads if that did not change it either.
    pub fn type_text(&self, text: &str) -> Result<ActionOutcome> {
        crate::trace::note_args(self.driver.as_ref(), || serde_json::json!({ "text": text }));
        let what = "type";
        self.traced(what, || {
            let mut poller = self.poller(self.action_timeout());
            let done = self.perform_text(what, &mut poller, |ready, poller| {
                if text.is_empty() {
                    return Ok(done(ready, Route::NotNeeded, None));
                }
                if let Some(route) = self.try_semantic(ready, Action::InsertText, Some(text))? {
                    return Ok(done(ready, route, None));
                }
                self.focus_for_keys(ready, poller)?;
                self.send(ready.window(), vec![InputEvent::Text { text: text.into() }])?;
                Ok(done(ready, Route::Input, None))
            })?;
            if done.route == Route::NotNeeded {
                return Ok(done.confirmed("no text to type", None));
            }
            let before = done.element.value.clone().unwrap_or_default();
            let holds = |node: &Node| {
                node_landed(
                    node,
                    Wanted::Took {
                        before: &before,
                        typed: text,
                    },
                )
            };
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
        })
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
        done: Done,
        holds: impl Fn(&Node) -> bool,
        retry: impl Fn(&Option<Node>) -> bool,
        mut retype: impl FnMut(&Ready, &mut Poller) -> Attempt<()>,
    ) -> Result<ActionOutcome> {
        let seen = match self.read_until(&poller, &done, &holds)? {
            Seen::Holds(node) => return Ok(text_landed(done, node)),
            Seen::WindowGone => return self.window_went(done),
            Seen::Not(seen) => seen,
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
            Ok(done_by(ready, Route::Input))
        })?;
        match self.read_until(&poller, &typed, &holds)? {
            Seen::Holds(node) => Ok(text_landed(typed, node)),
            Seen::WindowGone => self.window_went(typed),
            Seen::Not(seen) => Err(text_not_taken(
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

    /// Focuses the element, then presses a key chord such as `Enter` or
    /// `CmdOrCtrl+A`. Then looks as `click` looks, the focus moving counting
    /// too; a chord that changed nothing the tree shows is `unverifiable`.
    pub fn press(&self, key: &str) -> Result<ActionOutcome> {
        let chord: KeyChord = key
            .parse()
            .map_err(|e: String| Error::invalid_request(format!("press: {e}")))?;
        crate::trace::note_args(self.driver.as_ref(), || serde_json::json!({ "key": key }));
        self.traced("press", || {
            let mut poller = self.poller(self.action_timeout());
            let done =
                self.perform_on_match("press", Needs::KEYS, &mut poller, |ready, poller| {
                    self.focus_for_keys(ready, poller)?;
                    let windows = self.windows_now();
                    self.send(ready.window(), InputEvent::keystroke(chord.clone()))?;
                    let mut done = done(ready, Route::Input, windows);
                    // The focus it had once focus_for_keys gave it: the element itself.
                    done.focus = Some(ready.node().id);
                    Ok(done)
                })?;
            self.observe_change(&mut poller, done, &format!("the key {chord}"))
        })
    }

    /// Focuses the element, then types `text` as real keys one character at
    /// a time, `delay` apart (Playwright's `pressSequentially`); then waits
    /// until the element's text holds it, or fails with `failed` and what it reads.
    pub fn press_sequentially(&self, text: &str, delay: Option<Duration>) -> Result<ActionOutcome> {
        let what = "press_sequentially";
        let delay = crate::keyboard::checked_delay(what, delay)?;
        self.traced(what, || {
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
                        sent => return sent.map(|()| done(ready, Route::Input, None)),
                    }
                }
                for (at, key) in keys.enumerate() {
                    if at > 0 {
                        std::thread::sleep(delay);
                    }
                    self.send(ready.window(), vec![key])?;
                }
                Ok(done(ready, Route::Input, None))
            })?;
            if text.is_empty() {
                return Ok(done.confirmed("no text to type", None));
            }
            let before = done.element.value.clone().unwrap_or_default();
            let typed = Wanted::Took {
                before: &before,
                typed: text,
            };
            match self.read_until(&poller, &done, |node| node_landed(node, typed))? {
                Seen::Holds(node) => Ok(text_landed(done, node)),
                Seen::WindowGone => self.window_went(done),
                Seen::Not(seen) => Err(text_not_taken(
                    what,
                    self,
                    &done,
                    &seen,
                    &format!("typing `{}` key by key", clip(text)),
                )),
            }
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

    /// Checks the element (`true`) or unchecks it (`false`) unless it already reads so, then waits until it does.
    pub fn set_checked(&self, checked: bool) -> Result<ActionOutcome> {
        // A row's text or a check box's label checks the check box of it.
        if let Some(check) = self.retarget(Purpose::Check)? {
            return check.set_checked(checked);
        }
        let what = if checked { "check" } else { "uncheck" };
        self.traced(what, || {
            let mut poller = self.poller(self.action_timeout());
            let mut drawn = None;
            let done = self.perform_with_by(what, Needs::POINTER, &mut poller, Locator::read_matches, |ready, _| {
                let node = ready.node();
                if node.has_state(&State::Checked) == checked {
                    return Ok(done_by(ready, Route::NotNeeded));
                }
                if !checked && matches!(node.role, Role::Radio | Role::MenuItemRadio) {
                    return Err(Error::invalid_request(format!(
                        "uncheck: {} is a radio button, which unchecks only when another in its group is checked",
                        describe_node(node)
                    ))
                    .into());
                }
                drawn = self.picture_before_press(ready);
                let route = self.press_or_click(ready.window(), node, Some(&ready.tree))?;
                Ok(done_by(ready, route))
            })?;
            if done.route == Route::NotNeeded {
                let already = if checked { "checked already" } else { "unchecked already" };
                return Ok(done.confirmed(format!("it read {already}"), None));
            }
            self.confirm_checked(what, poller, done, checked, drawn, Promise::State)
        })
    }

    /// Waits until the element acted on by `done` reads as `checked` (for a
    /// press, only a moment: [`VERIFY_AT_LEAST`]). When its own
    /// action was taken and the state stays, clicks it only if it is drawn
    /// as it was before the action (`drawn`), and waits again; otherwise
    /// answers without acting again: `unverifiable` for a press, `failed`
    /// for check and uncheck, which promise the state.
    fn confirm_checked(
        &self,
        what: &str,
        poller: Poller,
        done: Done,
        checked: bool,
        drawn: Option<Picture>,
        promise: Promise,
    ) -> Result<ActionOutcome> {
        let wanted = checked_word(checked);
        let holds = |node: &Node| node.has_state(&State::Checked) == checked;
        let seen = format!("it reads {wanted}");
        let Route::Semantic(_) = &done.route else {
            let route = done.route.as_str();
            return self.verify_route(what, &poller, done, &route, wanted, &seen, holds);
        };
        let found = match promise {
            Promise::State => self.read_until(&poller, &done, holds)?,
            // A press promises no state, and its state may never show: a
            // moment's look (some apps never settle: LibreOffice).
            Promise::Press => self.read_until(&self.poller(VERIFY_AT_LEAST), &done, holds)?,
        };
        let last = match found {
            Seen::Holds(node) => return Ok(done.confirmed(seen, Some(node))),
            Seen::WindowGone => return self.window_went(done),
            Seen::Not(last) => last,
        };
        // The state stayed. Ignored, or toggled where accessibility cannot see it?
        let now = drawn
            .as_ref()
            .and_then(|_| self.picture_of(done.window, &done.element));
        let looks = match (&drawn, &now) {
            (Some(before), Some(now)) if before == now => {
                return self.click_instead(what, &poller, done, checked);
            }
            (Some(_), Some(_)) => "it is drawn otherwise than before",
            _ => "how it is drawn could not be compared",
        };
        let stays = checked_word(!checked);
        match promise {
            Promise::Press => {
                let checked = format!(
                    "the app took its press action; it still reads {stays} a moment later, but {looks}, so {STATE_NOT_SHOWN}: look at the app (a capture) to see it"
                );
                Ok(done.outcome(Effect::Unverifiable(checked), last))
            }
            Promise::State => {
                let last = last
                    .as_ref()
                    .map(describe_node)
                    .unwrap_or_else(|| "the element was gone".into());
                Err(Error::failed(format!(
                    "{what}: the app took {} on {self}; it still reads {stays} after {}, but {looks}, so {STATE_NOT_SHOWN} (if it was {wanted} already without saying so, this press made it {stays}); last read: {last}",
                    done.route.as_str(),
                    human(verify_time(&poller)),
                ))
                .with_suggestion(
                    "look at the app (a capture) to see its state: this element's checked state is not told to assistive technology, so check and uncheck cannot keep their promise; press answers unverifiable instead",
                ))
            }
        }
    }

    /// The element's picture before a press of its own action whose effect
    /// is a checked state (see [`Locator::confirm_checked`]).
    fn picture_before_press(&self, ready: &Ready) -> Option<Picture> {
        let node = ready.node();
        (toggles(node) && node.has_action(&Action::Press))
            .then(|| self.picture_of(ready.window(), node))
            .flatten()
    }

    /// The app took the element's own action and ignored it (its state and
    /// its picture are as before): a real click instead, then waits again.
    fn click_instead(
        &self,
        what: &str,
        poller: &Poller,
        done: Done,
        checked: bool,
    ) -> Result<ActionOutcome> {
        let wanted = checked_word(checked);
        let holds = |node: &Node| node.has_state(&State::Checked) == checked;
        let seen = format!("it reads {wanted}");
        let mut poller = self.poller(verify_time(poller));
        let clicked = self.perform_on_match(what, Needs::POINTER, &mut poller, |ready, _| {
            let node = ready.node();
            if node.has_state(&State::Checked) == checked {
                return Ok(done_by(ready, Route::NotNeeded));
            }
            let (x, y) = centre(node)?;
            self.send(
                ready.window(),
                vec![InputEvent::Click(PointerButton::at(x, y))],
            )?;
            Ok(done_by(ready, Route::Input))
        })?;
        if clicked.route == Route::NotNeeded {
            // It came late, on its own.
            let last = Some(clicked.element);
            return Ok(done.confirmed(seen, last));
        }
        let route = format!("a click after {}", done.route.as_str());
        self.verify_route(what, &poller, clicked, &route, wanted, &seen, holds)
    }

    /// Chooses the item of a combo box, list, menu button or tab list whose
    /// text matches: presses it if it shows, else opens the element first
    /// (its `expand` or `press` action, else a click) and waits for it to
    /// show, inside the element or in a popup the opening showed (a web
    /// page's `<select>` drops its options down in a popup of the browser's
    /// own). Then waits until the element (found again by its identity, or
    /// its place, since a GTK 3 combo box's name is its choice) reads the
    /// option as chosen. A popup it opened is closed again when the choice
    /// fails.
    pub fn select_option(&self, option: impl Into<TextMatch>) -> Result<ActionOutcome> {
        let option = option.into();
        // An item, or a label inside a combo box, chooses through its widget.
        if let Some(widget) = self.retarget(Purpose::Select)? {
            return widget.select_option(option);
        }
        crate::trace::note_args(
            self.driver.as_ref(),
            || serde_json::json!({ "option": option.to_string() }),
        );
        self.traced("select_option", || self.choose_option(&option))
    }

    fn choose_option(&self, option: &TextMatch) -> Result<ActionOutcome> {
        let what = "select_option";
        let mut poller = self.poller(self.action_timeout());
        // What the element is, and what showed, before the popup opened.
        let mut opened: Option<(WindowId, ElementId, HashSet<ElementId>)> = None;
        let mut container: Option<Node> = None;
        let done = self.perform_with(what, Needs::POINTER, &mut poller, |ready, poller| {
            container = Some(ready.node().clone());
            let container = ready.node().id;
            if let Some(item) = pick_option(&ready.tree, ready.at, option)? {
                return self.choose(ready.window(), item);
            }
            let shown_before: HashSet<ElementId> = ready
                .tree
                .nodes
                .iter()
                .filter(|n| is_shown(n))
                .map(|n| n.id)
                .collect();
            let route = self.open(ready)?;
            opened = Some((ready.window(), container, shown_before.clone()));
            let mut steady = None;
            loop {
                let tree = self.driver.tree(&TreeParams {
                    window: Some(ready.window()),
                })?;
                let index = TreeIndex::new(&tree);
                let Some(at) = index.position(container) else {
                    return Err(Failure::Stale(Error::no_element(
                        "the element went after opening it",
                    )));
                };
                let item = match pick_option(&tree, at, option)? {
                    Some(item) => Some(item),
                    None => pick_popup_option(&tree, &shown_before, option)?,
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
                    return Err(no_option_shows(
                        what,
                        self,
                        option,
                        &route,
                        poller,
                        &tree,
                        at,
                        &shown_before,
                    )
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
        let container = container.expect("the element was read before the choice");
        let chosen = done.element.id;
        let mut check = self.poller(verify_time(&poller));
        let mut last = String::new();
        loop {
            match self.read() {
                Ok(read) => {
                    // The element chosen on: by its identity or place, as the
                    // locator's text may name its old choice.
                    let again = find_again(self, &read.tree, &container);
                    let at = again
                        .as_ref()
                        .and_then(|n| TreeIndex::new(&read.tree).position(n.id));
                    let verdict = match at {
                        Some(at) => chosen_state(&read.tree, at, chosen, option, &container),
                        // The element went: judge by the item.
                        _ => match read.tree.node(chosen) {
                            Some(item)
                                if item.has_state(&State::Selected)
                                    || item.has_state(&State::Checked) =>
                            {
                                Ok(format!("{} reads selected", describe_node(item)))
                            }
                            _ => Err("the element no longer shows".to_string()),
                        },
                    };
                    match verdict {
                        Ok(seen) => {
                            let item = read.tree.node(chosen).cloned();
                            return Ok(done.confirmed(seen, item));
                        }
                        Err(seen) => last = seen,
                    }
                }
                Err(e) if e.code == ErrorCode::NoWindow => {
                    if let Some(gone) = self.closed_window(done.window)? {
                        return Ok(gone_with(done, gone));
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
            hold: false,
        });
        let _ = self
            .driver
            .idle(&crate::protocol::IdleParams::within(Some(*window), 2_000));
    }

    /// Moves the pointer over the element's centre. Nothing the tree shows
    /// proves a hover (a tooltip comes later, if at all): `unverifiable`.
    pub fn hover(&self) -> Result<ActionOutcome> {
        if self.visual_query().is_some() {
            return self.traced("hover", || {
                self.visual_pointer("hover", Needs::HOVER, false, |(x, y)| {
                    vec![InputEvent::PointerMove {
                        x,
                        y,
                        mods: Vec::new(),
                    }]
                })
            });
        }
        self.traced("hover", || {
            let mut poller = self.poller(self.action_timeout());
            let done = self.perform_on_match("hover", Needs::HOVER, &mut poller, |ready, _| {
                let (x, y) = centre(ready.node())?;
                let mods = Vec::new();
                self.send(ready.window(), vec![InputEvent::PointerMove { x, y, mods }])?;
                Ok(done_by(ready, Route::Input))
            })?;
            let at = done.element.bounds.map(|b| b.center()).unwrap_or_default();
            Ok(done.outcome(
                Effect::Unverifiable(format!(
                    "the pointer was moved to the element's centre ({}, {}); what hovering shows (a tooltip) is the app's and comes later, if at all",
                    at.0, at.1
                )),
                None,
            ))
        })
    }

    /// Gives the element the keyboard focus: its `focus` action, else a click.
    pub fn focus(&self) -> Result<ActionOutcome> {
        self.traced("focus", || {
            let mut poller = self.poller(self.action_timeout());
            let done =
                self.perform_on_match("focus", Needs::ATTACHED, &mut poller, |ready, _| {
                    if focus_within(&ready.tree, ready.node().id) {
                        return Ok(done_by(ready, Route::NotNeeded));
                    }
                    if let Some(route) = self.try_semantic(ready, Action::Focus, None)? {
                        return Ok(done_by(ready, route));
                    }
                    let route =
                        self.press_or_click(ready.window(), ready.node(), Some(&ready.tree))?;
                    Ok(done_by(ready, route))
                })?;
            if done.route == Route::NotNeeded {
                return Ok(done.confirmed("the focus was on it already", None));
            }
            self.confirm_focus(&poller, done)
        })
    }

    /// Waits until the focus is on the element acted on by `done` or inside
    /// it; fails with `failed` and where the focus is when it never comes
    /// (an app may accept the call and leave the focus where it was).
    fn confirm_focus(&self, poller: &Poller, done: Done) -> Result<ActionOutcome> {
        let waited = verify_time(poller);
        let mut focus_on = String::from("an element not read");
        let whole = || {
            self.driver.tree(&TreeParams {
                window: Some(done.window),
            })
        };
        let came = self.read_window_until(poller, done.window, whole, |tree| {
            if focus_within(tree, done.element.id) {
                return Some(tree.node(done.element.id).cloned());
            }
            focus_on = tree
                .focused()
                .map(describe_node)
                .unwrap_or_else(|| "nothing in the window".into());
            None
        })?;
        match came {
            Some(Some(last)) => Ok(done.confirmed("the focus is on it", last)),
            Some(None) => self.window_went(done),
            None => Err(Error::failed(format!(
                "focus: {} on {} but the focus did not come to it after {}; it is on {focus_on}",
                done.route.as_str(),
                self,
                human(waited)
            ))
            .with_suggestion("click the element, or press Tab until the focus gets there")),
        }
    }

    /// Scrolls the containers around the element to show it, then waits
    /// until it shows. Hidden elements are matched for this action, since
    /// showing them is its point.
    pub fn scroll_into_view(&self) -> Result<ActionOutcome> {
        let within = self.include_hidden(true);
        let what = "scroll_into_view";
        within.traced(what, || {
            let mut poller = within.poller(within.action_timeout());
            let done =
                within.perform_on_match(what, Needs::ATTACHED, &mut poller, |ready, _| {
                    if is_shown(ready.node()) {
                        return Ok(done_by(ready, Route::NotNeeded));
                    }
                    match within.try_semantic(ready, Action::ScrollIntoView, None)? {
                        Some(route) => Ok(done_by(ready, route)),
                        None => Err(Error::unsupported(format!(
                            "{what}: {} offers no scrollIntoView action",
                            describe_node(ready.node())
                        ))
                        .into()),
                    }
                })?;
            if done.route == Route::NotNeeded {
                return Ok(done.confirmed("it showed already", None));
            }
            within.verify(what, &poller, done, "shown", "it shows", is_shown)
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
        self.traced(what, || {
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
                    return Ok(done_by(ready, Route::NotNeeded));
                }
                if let Some(route) = self.try_semantic(ready, Action::SetValue, Some(&number(value)))? {
                    return Ok(done_by(ready, route));
                }
                let steps = node.has_action(&Action::Increment) && node.has_action(&Action::Decrement);
                match node.now {
                    Some(now) if steps => {
                        let route = self.step_to(ready, now, value, poller)?;
                        Ok(done_by(ready, route))
                    }
                    _ => Err(Error::unsupported(format!(
                        "set_value: {} offers neither setValue nor increment and decrement with a value",
                        describe_node(node)
                    ))
                    .with_suggestion("use fill for text, or press arrow keys with press(\"Right\")")
                    .into()),
                }
            })?;
            if done.route == Route::NotNeeded {
                let seen = format!("it read {} already", number(value));
                return Ok(done.confirmed(seen, None));
            }
            let wanted = format!("at {}", number(value));
            let seen = format!("it reads {}", number(value));
            // An element that gives no number (a text spin button) is taken at its word.
            if done.element.now.is_none() {
                let checked = "it gives no number to read back".to_string();
                return Ok(done.outcome(Effect::Unverifiable(checked), None));
            }
            self.verify(what, &poller, done, &wanted, &seen, |node| {
                node.now.is_some_and(|now| close(now, value, node))
            })
        })
    }

    /// Drags the element onto `target`'s centre with real pointer input,
    /// then looks as `click` looks.
    pub fn drag_to(&self, target: &Locator) -> Result<ActionOutcome> {
        target.check_valid()?;
        if self.visual_query().is_some() {
            // Where to drop is found first; the drag itself starts from the
            // source's box as the ladder finds it.
            let mut poller = target.poller(target.action_timeout());
            let onto = target.wait_ready("drag_to (target)", Needs::HOVER, &mut poller)?;
            let to = centre(onto.node())?;
            return self.traced("drag_to", || {
                self.visual_pointer("drag", Needs::POINTER, true, |from| {
                    let middle = ((from.0 + to.0) / 2.0, (from.1 + to.1) / 2.0);
                    let move_to = |(x, y): (f64, f64)| InputEvent::PointerMove {
                        x,
                        y,
                        mods: Vec::new(),
                    };
                    vec![
                        InputEvent::PointerDown(PointerButton::at(from.0, from.1)),
                        move_to(middle),
                        move_to(to),
                        InputEvent::PointerUp(PointerButton::at(to.0, to.1)),
                    ]
                })
            });
        }
        self.traced("drag_to", || {
            let mut poller = self.poller(self.action_timeout());
            let done =
                self.perform_with("drag_to", Needs::POINTER, &mut poller, |ready, poller| {
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
                    let windows = self.windows_now();
                    self.send(
                        ready.window(),
                        vec![
                            InputEvent::PointerDown(PointerButton::at(from.0, from.1)),
                            move_to(middle),
                            move_to(to),
                            InputEvent::PointerUp(PointerButton::at(to.0, to.1)),
                        ],
                    )?;
                    Ok(done(ready, Route::Input, windows))
                })?;
            self.observe_change(&mut poller, done, "the drag")
        })
    }

    /// Turns the mouse wheel `notches` clicks over the element's centre
    /// (real input). `confirmed` when the tree shows it: elements came,
    /// went, moved or changed, or the focus moved; else `unverifiable`.
    pub fn scroll(&self, direction: ScrollDirection, notches: u32) -> Result<ActionOutcome> {
        let most = crate::protocol::input_limits::WHEEL_CLICKS;
        if notches == 0 || u64::from(notches) > most {
            return Err(Error::invalid_request(format!(
                "scroll: {notches} notches; give 1 to {most} wheel clicks"
            )));
        }
        crate::trace::note_args(
            self.driver.as_ref(),
            || serde_json::json!({ "direction": direction.as_str(), "notches": notches }),
        );
        self.traced("scroll", || {
            let mut poller = self.poller(self.action_timeout());
            let done = self.perform_with("scroll", Needs::HOVER, &mut poller, |ready, _| {
                let (x, y) = centre(ready.node())?;
                let (dx, dy) = direction.delta(notches);
                let windows = self.windows_now();
                let wheel = InputEvent::Wheel {
                    x,
                    y,
                    dx,
                    dy,
                    precise: false,
                    mods: Vec::new(),
                };
                self.send(ready.window(), vec![wheel])?;
                Ok(done(ready, Route::Input, windows))
            })?;
            // A list lays its rows out anew on a frame after the wheel's
            // events (GTK 4 renames the rows it recycles then): let the app
            // fall quiet by the driver's rule first, so the read that looks
            // for the change sees the rows shown now. Its failure is the
            // read's to report.
            let quiet = poller.remaining().min(SCROLL_SETTLE);
            let _ = self.driver.idle(&IdleParams::within(
                Some(done.window),
                quiet.as_millis() as u64,
            ));
            self.observe_change_in(&mut poller, done, "the scroll", Reread::Whole)
        })
    }

    /// Expands a tree row, an expander or a combo box: its `expand` action,
    /// else, for an expandable row that offers none (GTK 4's tree rows),
    /// Shift+Right with the focus on it (`collapse`: Shift+Left); then waits
    /// until it reads `expanded`.
    pub fn expand(&self) -> Result<ActionOutcome> {
        self.set_expanded(true)
    }

    /// Collapses what [`Locator::expand`] expands; waits until it no longer
    /// reads `expanded`.
    pub fn collapse(&self) -> Result<ActionOutcome> {
        self.set_expanded(false)
    }

    fn set_expanded(&self, expanded: bool) -> Result<ActionOutcome> {
        let (what, action, wanted) = if expanded {
            ("expand", Action::Expand, "expanded")
        } else {
            ("collapse", Action::Collapse, "collapsed")
        };
        self.traced(what, || {
            let mut poller = self.poller(self.action_timeout());
            let done = self.perform_on_match(what, Needs::KEYS, &mut poller, |ready, poller| {
                // A GTK 4 tree row shows its state on the expander inside it.
                let node = &ready.tree.nodes[expander_at(&ready.tree, ready.at)];
                let done_on = |route| Done {
                    route,
                    element: node.clone(),
                    window: ready.window(),
                    focus: None,
                    windows: None,
                    before: None,
                };
                let shows = node.has_state(&State::Expandable) || node.has_state(&State::Expanded);
                if shows
                    && node.has_state(&State::Expanded) == expanded
                    && (expanded || !node.has_action(&Action::Collapse))
                {
                    return Ok(done_on(Route::NotNeeded));
                }
                if node.has_action(&action) {
                    self.act_on(ready.window(), node, action.clone(), None)?;
                    return Ok(done_on(Route::Semantic(action.clone())));
                }
                // An expander with no action of its own: its toggle button
                // pressed, else the keys a tree row takes with the focus on it.
                // A toggle scrolled out of view reads no (or stale) bounds:
                // then the keys, which need none of its own.
                let toggle = children_of(&ready.tree, node.id)
                    .find(|c| c.role == Role::Button || c.role == Role::ToggleButton)
                    .filter(|c| {
                        !c.has_state(&State::Offscreen) && c.bounds.is_some_and(|b| !b.is_empty())
                    });
                match toggle {
                    Some(button) if shows => {
                        let route = self.press_or_click(ready.window(), button, Some(&ready.tree))?;
                        Ok(done_on(route))
                    }
                    None if shows => {
                        self.focus_for_keys(ready, poller)?;
                        let keys = if expanded { "Shift+Right" } else { "Shift+Left" };
                        self.send(ready.window(), InputEvent::keystroke(chord(keys)))?;
                        Ok(done_on(Route::Input))
                    }
                    _ => Err(Error::unsupported(format!(
                        "{what}: {} offers no {what} action",
                        describe_node(ready.node())
                    ))
                    .with_suggestion(
                        "press it, or press Right/Left (Shift+Right on some trees) with the focus on it",
                    )
                    .into()),
                }
            })?;
            if done.route == Route::NotNeeded {
                return Ok(done.confirmed(format!("it was {wanted} already"), None));
            }
            let seen = format!("it reads {wanted}");
            self.verify(what, &poller, done, wanted, &seen, |node| {
                node.has_state(&State::Expanded) == expanded
            })
        })
    }

    /// Steps a slider or spin button up `steps` times by its `increment`
    /// action; waits until its number grew.
    pub fn increment(&self, steps: u32) -> Result<ActionOutcome> {
        self.step(Action::Increment, steps)
    }

    /// Steps a slider or spin button down `steps` times by its `decrement`
    /// action; waits until its number fell.
    pub fn decrement(&self, steps: u32) -> Result<ActionOutcome> {
        self.step(Action::Decrement, steps)
    }

    fn step(&self, action: Action, steps: u32) -> Result<ActionOutcome> {
        let what = action.as_str();
        if steps == 0 || steps > MOST_STEPS {
            return Err(Error::invalid_request(format!(
                "{what}: {steps} steps; give 1 to {MOST_STEPS}"
            )));
        }
        crate::trace::note_args(
            self.driver.as_ref(),
            || serde_json::json!({ "steps": steps }),
        );
        let up = action == Action::Increment;
        self.traced(what, || {
            let mut poller = self.poller(self.action_timeout());
            let mut from = None;
            let done = self.perform_with(what, Needs::VALUE, &mut poller, |ready, _| {
                let node = ready.node();
                if !node.has_action(&action) {
                    return Err(Error::unsupported(format!(
                        "{what}: {} offers no {what} action",
                        describe_node(node)
                    ))
                    .with_suggestion(
                        "press Up/Down or Right/Left with the focus on it, or use set_value",
                    )
                    .into());
                }
                from = node.now;
                // At its end already: nothing to step, so nothing is sent.
                let at_end = node.now.is_some_and(|now| {
                    if up {
                        node.max.is_some_and(|max| now >= max)
                    } else {
                        node.min.is_some_and(|min| now <= min)
                    }
                });
                if at_end {
                    return Ok(done_by(ready, Route::NotNeeded));
                }
                for _ in 0..steps {
                    self.act_on(ready.window(), node, action.clone(), None)?;
                }
                Ok(done_by(ready, Route::Semantic(action.clone())))
            })?;
            let Some(from) = from else {
                let checked = "it gives no number to read back".to_string();
                return Ok(done.outcome(Effect::Unverifiable(checked), None));
            };
            if done.route == Route::NotNeeded {
                let end = if up { "its maximum" } else { "its minimum" };
                return Ok(
                    done.confirmed(format!("it was at {end} ({}) already", number(from)), None)
                );
            }
            let wanted = if up { "above" } else { "below" };
            let wanted = format!("{wanted} {}", number(from));
            let seen = format!("it moved from {}", number(from));
            self.verify(what, &poller, done, &wanted, &seen, |node| {
                node.now
                    .is_some_and(|now| if up { now > from } else { now < from })
            })
        })
    }

    /// Selects the runes `[from, to)` of the element's text (its
    /// `selectText` action); waits until its selection reads so.
    pub fn select_text(&self, from: u32, to: u32) -> Result<ActionOutcome> {
        if from > to {
            return Err(Error::invalid_request(format!(
                "select_text: from ({from}) is after to ({to})"
            )));
        }
        crate::trace::note_args(
            self.driver.as_ref(),
            || serde_json::json!({ "from": from, "to": to }),
        );
        let what = "select_text";
        self.traced(what, || {
            let mut poller = self.poller(self.action_timeout());
            let done = self.perform_on_match(what, Needs::KEYS, &mut poller, |ready, _| {
                let node = ready.node();
                if !node.has_action(&Action::SelectText) {
                    return Err(Error::unsupported(format!(
                        "{what}: {} offers no selectText action",
                        describe_node(node)
                    ))
                    .with_suggestion("focus it and press Shift+Right, or Ctrl+A for all of it")
                    .into());
                }
                let mut params =
                    ActParams::on(node.id, Action::SelectText).in_window(Some(ready.window()));
                params.from = Some(from);
                params.to = Some(to);
                self.driver.act(&params).map_err(stale_if_gone)?;
                Ok(done_by(ready, Route::Semantic(Action::SelectText)))
            })?;
            let wanted = format!("selecting {from} to {to}");
            let seen = format!("its selection reads {from} to {to}");
            self.verify(what, &poller, done, &wanted, &seen, |node| {
                node.selection == Some([from, to])
            })
        })
    }

    /// Runs a whole action, its check of the effect included, as one trace step.
    fn traced(
        &self,
        what: &str,
        action: impl FnOnce() -> Result<ActionOutcome>,
    ) -> Result<ActionOutcome> {
        let step = self.trace_begin(what, self.trace_args());
        let result = action().map_err(|e| self.about(e, what));
        crate::trace::end_action(step, &result);
        result
    }

    /// `err` with what it is about: the operation, and this locator unless
    /// a step nearer the failure named another element.
    pub(crate) fn about(&self, err: Error, what: &str) -> Error {
        err.from_operation(what).detail(|d| {
            if d.element.is_none() {
                d.element = Some(self.subject());
            }
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

    /// Climbs the ladder and acts, reading with [`Locator::read_matches`]:
    /// for an action that looks at nothing of the read but the match, its
    /// parents and the focus.
    fn perform_on_match(
        &self,
        what: &str,
        needs: Needs,
        poller: &mut Poller,
        act: impl FnMut(&Ready, &mut Poller) -> Attempt<Done>,
    ) -> Result<Done> {
        self.perform_with_by(what, needs, poller, Locator::read_matches, act)
    }

    /// As [`Locator::perform_on_match`], for an action on the element's
    /// text: it needs an editable element.
    fn perform_text(
        &self,
        what: &str,
        poller: &mut Poller,
        act: impl FnMut(&Ready, &mut Poller) -> Attempt<Done>,
    ) -> Result<Done> {
        self.perform_with_by(what, Needs::TEXT, poller, Locator::read_matches, act)
    }

    /// Climbs the ladder and acts, reading the whole window.
    fn perform_with(
        &self,
        what: &str,
        needs: Needs,
        poller: &mut Poller,
        act: impl FnMut(&Ready, &mut Poller) -> Attempt<Done>,
    ) -> Result<Done> {
        self.perform_with_by(what, needs, poller, Locator::read, act)
    }

    /// Climbs the ladder (reading the window with `read`) and acts; when the
    /// element went between the read and the action, reads again and retries
    /// until the deadline.
    fn perform_with_by(
        &self,
        what: &str,
        needs: Needs,
        poller: &mut Poller,
        read: fn(&Locator) -> Result<Read>,
        mut act: impl FnMut(&Ready, &mut Poller) -> Attempt<Done>,
    ) -> Result<Done> {
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
                hold: false,
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

    /// Opens a combo box or menu button so its items show: its `expand`
    /// action, else its own `press` action where a click at its centre
    /// would land on a part inside it that is not the opener (a combo box
    /// entry's text field), else as `press_or_click` does.
    fn open(&self, ready: &Ready) -> Attempt<Route> {
        let node = ready.node();
        if !node.has_state(&State::Expanded) {
            if let Some(route) = self.try_semantic(ready, Action::Expand, None)? {
                return Ok(route);
            }
        }
        if node.role == Role::ComboBox && holds_a_field(&ready.tree, ready.at) {
            return self.press_else_click(ready.window(), node);
        }
        self.press_or_click(ready.window(), node, Some(&ready.tree))
    }

    fn choose(&self, window: WindowId, item: Node) -> Attempt<Done> {
        let route = self.press_or_click(window, &item, None)?;
        Ok(Done {
            route,
            element: item,
            window,
            focus: None,
            windows: None,
            before: None,
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
}

/// Whether the element at `at` holds a text field among its children (a
/// combo box with an entry): a click at its centre lands in the field.
fn holds_a_field(tree: &Tree, at: usize) -> bool {
    let id = tree.nodes[at].id;
    tree.nodes
        .iter()
        .any(|n| n.parent == Some(id) && matches!(n.role, Role::TextField | Role::Search))
}

/// The `no_element` of a `select_option` whose option never showed: what
/// the element offers, shown or not, so that an option listed but hidden
/// (in a popup that did not open) is not called missing.
#[allow(clippy::too_many_arguments)]
fn no_option_shows(
    what: &str,
    locator: &Locator,
    option: &TextMatch,
    route: &Route,
    poller: &Poller,
    tree: &Tree,
    at: usize,
    shown_before: &HashSet<ElementId>,
) -> Error {
    let mut offered = item_texts(tree, at);
    for text in popup_item_texts(tree, shown_before) {
        if !offered.contains(&text) {
            offered.push(text);
        }
    }
    let hidden: Vec<String> = items(tree, at)
        .into_iter()
        .map(|i| &tree.nodes[i])
        .filter(|n| !is_shown(n) && n.text().is_some_and(|t| option.matches(t)))
        .map(describe_node)
        .collect();
    let offers = if offered.is_empty() {
        "nothing".into()
    } else {
        offered.join(", ")
    };
    match hidden.first() {
        Some(item) => Error::no_element(format!(
            "{what}: {locator} lists the option {option}, but it did not show after opening the element ({}) and waiting {}: {item}; it offers: {offers}",
            route.as_str(),
            human(poller.timeout())
        ))
        .with_suggestion("the element's popup did not open: press the element, then choose the option with a click"),
        None => Error::no_element(format!(
            "{what}: {locator} shows no option {option} after opening it ({}) and waiting {}; it offers: {offers}",
            route.as_str(),
            human(poller.timeout())
        ))
        .with_suggestion("check the option's text against the items the element shows"),
    }
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

fn stale_if_gone(err: Error) -> Failure {
    if err.code == ErrorCode::NoElement {
        Failure::Stale(err)
    } else {
        Failure::Fatal(err)
    }
}

/// The element that shows whether `at` is expanded: itself when it says so
/// (or offers expand or collapse), else an element inside it, at most two
/// levels down, that does (a GTK 4 tree row's expander).
pub(crate) fn expander_at(tree: &Tree, at: usize) -> usize {
    let says = |n: &Node| {
        n.has_state(&State::Expandable)
            || n.has_state(&State::Expanded)
            || n.has_action(&Action::Expand)
            || n.has_action(&Action::Collapse)
    };
    if says(&tree.nodes[at]) {
        return at;
    }
    let mut level = vec![tree.nodes[at].id];
    for _ in 0..2 {
        let next: Vec<usize> = (0..tree.nodes.len())
            .filter(|&i| tree.nodes[i].parent.is_some_and(|p| level.contains(&p)))
            .collect();
        if let Some(&found) = next.iter().find(|&&i| says(&tree.nodes[i])) {
            return found;
        }
        level = next.iter().map(|&i| tree.nodes[i].id).collect();
    }
    at
}

fn children_of(tree: &Tree, id: ElementId) -> impl Iterator<Item = &Node> {
    tree.nodes.iter().filter(move |n| n.parent == Some(id))
}

/// How long a press is given to show before it is made again as a click.
const PRESS_SETTLE: Duration = Duration::from_millis(1500);

/// Whether pressing the element must show in the tree: it opens something,
/// or holds a state that a press changes. (A plain button's press may do
/// what the tree cannot show, as copying does: it is never pressed twice.)
fn press_shows(node: &Node) -> bool {
    matches!(
        node.role,
        Role::MenuButton
            | Role::PopUpButton
            | Role::ComboBox
            | Role::ToggleButton
            | Role::CheckBox
            | Role::Radio
            | Role::Switch
            | Role::Tab
            | Role::Disclosure
    ) || node.has_popup.is_some()
        || node.has_state(&State::Expandable)
}

/// What a press could change that the tree shows: each element's role,
/// label, value, number and states, and the windows there are; with where
/// each element is, which is not compared (a layout may move).
struct Looks {
    seen: Vec<String>,
    windows: Option<Vec<WindowId>>,
    bounds: HashMap<ElementId, crate::protocol::Bounds>,
}

impl PartialEq for Looks {
    fn eq(&self, other: &Looks) -> bool {
        self.seen == other.seen && self.windows == other.windows
    }
}

impl Looks {
    fn bounds_of(&self, id: ElementId) -> Option<crate::protocol::Bounds> {
        self.bounds.get(&id).copied()
    }
}

fn looks(tree: &Tree, windows: Option<Vec<WindowId>>) -> Looks {
    let seen = tree
        .nodes
        .iter()
        .map(|n| {
            format!(
                "{} {} {:?} {:?} {:?} {:?}",
                n.id, n.role, n.label, n.value, n.now, n.states
            )
        })
        .collect();
    let bounds = tree
        .nodes
        .iter()
        .filter_map(|n| Some((n.id, n.bounds?)))
        .collect();
    Looks {
        seen,
        windows,
        bounds,
    }
}

/// How long `scroll` waits at most for the app to fall quiet after the wheel.
const SCROLL_SETTLE: Duration = Duration::from_secs(2);

/// At most this many steps in one `increment` or `decrement`.
pub const MOST_STEPS: u32 = 1_000;

/// Which way [`Locator::scroll`] turns the wheel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScrollDirection {
    /// Scroll up.
    Up,
    /// Scroll down.
    Down,
    /// Scroll left.
    Left,
    /// Scroll right.
    Right,
}

impl ScrollDirection {
    /// Every direction.
    pub const ALL: [ScrollDirection; 4] = [
        ScrollDirection::Up,
        ScrollDirection::Down,
        ScrollDirection::Left,
        ScrollDirection::Right,
    ];

    /// The direction's name: `up`, `down`, `left` or `right`.
    pub fn as_str(self) -> &'static str {
        match self {
            ScrollDirection::Up => "up",
            ScrollDirection::Down => "down",
            ScrollDirection::Left => "left",
            ScrollDirection::Right => "right",
        }
    }

    /// The wheel's delta for `notches` clicks (the protocol counts 100 per click).
    fn delta(self, notches: u32) -> (f64, f64) {
        let d = f64::from(notches) * 100.0;
        match self {
            ScrollDirection::Up => (0.0, -d),
            ScrollDirection::Down => (0.0, d),
            ScrollDirection::Left => (-d, 0.0),
            ScrollDirection::Right => (d, 0.0),
        }
    }
}

impl std::str::FromStr for ScrollDirection {
    type Err = Error;

    fn from_str(text: &str) -> Result<ScrollDirection> {
        ScrollDirection::ALL
            .into_iter()
            .find(|d| d.as_str().eq_ignore_ascii_case(text))
            .ok_or_else(|| {
                Error::invalid_request(format!(
                    "scroll: {text:?} is not a direction; use up, down, left or right"
                ))
            })
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
                    .mentioning(crate::error::Term::ExactMatch)
                    .detail(|d| d.candidates = Some(many.len()))
                    .into());
                }
            }
        }
    };
    Ok(Some(chosen.clone()))
}

/// The `failed` error of a fill or type whose text did not land: what the
/// element read last, after what.
fn text_not_taken(
    what: &str,
    locator: &Locator,
    done: &Done,
    seen: &Option<Node>,
    after: &str,
) -> Error {
    let reads = match seen {
        Some(node) => text_check::node_reads(node),
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
    .detail(|d| {
        d.observed = seen.as_ref().and_then(|node| node.value.clone());
        d.window = Some(done.window);
    })
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

/// Whether the element at `at` reads `option` as chosen, and how: its value
/// is the option, or its item with that text is selected or checked, or
/// (for an element named by its choice, as a GTK 3 combo box is) its name
/// became the option. An element whose items are commands (a menu button)
/// has chosen once the item (`chosen`) went or hid. `Err` says what it reads
/// instead. `before` is the element as read before the choice.
fn chosen_state(
    tree: &Tree,
    at: usize,
    chosen: ElementId,
    option: &TextMatch,
    before: &Node,
) -> std::result::Result<String, String> {
    let node = &tree.nodes[at];
    if let Some(value) = node.value.as_deref().filter(|v| option.matches(v)) {
        return Ok(format!("it reads {value:?}"));
    }
    let inside = items(tree, at);
    // A combo box that shows its choice, as its value or (Qt's, GTK 3's) its
    // name being one of its items' texts, is judged by what it shows: an
    // item selected in its popup is not chosen until the combo shows it
    // (Qt's popup item's action selects it there without committing it).
    // (Chromium's value is all its options' texts run together: not a choice.)
    if node.role == Role::ComboBox {
        let an_item = |text: &&str| inside.iter().any(|&i| tree.nodes[i].text() == Some(*text));
        if let Some(value) = node.value.as_deref().filter(an_item) {
            return Err(format!("it still reads {value:?}"));
        }
        if let Some(label) = node.label.as_deref().filter(an_item) {
            if option.matches(label) {
                return Ok(format!("it is named by its choice, now {label:?}"));
            }
            return Err(format!("it still shows {label:?}"));
        }
    }
    let picked: Vec<&Node> = inside
        .iter()
        .map(|&i| &tree.nodes[i])
        .filter(|n| n.has_state(&State::Selected) || n.has_state(&State::Checked))
        .collect();
    if let Some(item) = picked
        .iter()
        .find(|n| n.text().is_some_and(|t| option.matches(t)))
    {
        let text = item.text().unwrap_or_default();
        return Ok(format!("its item {text:?} is chosen"));
    }
    // GTK 4's list and grid views select the row or cell that holds the
    // item (Nautilus's grid: a cell "NautilusGridCell" around the file's).
    if let Some(holder) = picked.iter().find(|n| holds(tree, n.id, chosen)) {
        let text = tree.node(chosen).and_then(Node::text).unwrap_or_default();
        let around = holder.text().unwrap_or_default();
        return Ok(format!(
            "its item {text:?} is chosen: the {} {around:?} around it reads selected",
            holder.role
        ));
    }
    // A GTK 3 combo box (wx's Choice is one) has no value: its name is the
    // text it shows, and its popup's items never read as selected.
    let named_by_choice = matches!(node.role, Role::ComboBox | Role::Stepper)
        && node.value.is_none()
        && before.value.is_none();
    if let Some(label) = node
        .label
        .as_deref()
        .filter(|l| named_by_choice && option.matches(l))
    {
        return Ok(format!("it is named by its choice, now {label:?}"));
    }
    // A combo box with no value now (wx's Choice, a GTK 3 one) is named
    // by the text it shows, and its popup's items never read as selected.
    let shows = node.value.is_none() && node.role == Role::ComboBox;
    if let Some(label) = node.label.as_deref().filter(|l| shows && option.matches(l)) {
        return Ok(format!("it shows {label:?}"));
    }
    let commands = matches!(
        node.role,
        Role::MenuButton | Role::PopUpButton | Role::Button | Role::Menu | Role::MenuBar
    );
    if commands {
        match tree.node(chosen) {
            None => return Ok("the item went with its menu".into()),
            Some(item) if !is_shown(item) => return Ok("the item hid with its menu".into()),
            Some(item) if item.has_state(&State::Selected) || item.has_state(&State::Checked) => {
                return Ok(format!("{} reads chosen", describe_node(item)))
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

/// Whether `inner` is `outer` or lies inside it.
fn holds(tree: &Tree, outer: ElementId, inner: ElementId) -> bool {
    let mut at = Some(inner);
    // At most as many steps up as the tree has elements: a parent loop ends too.
    for _ in 0..=tree.nodes.len() {
        match at {
            Some(id) if id == outer => return true,
            Some(id) => at = tree.node(id).and_then(|n| n.parent),
            None => return false,
        }
    }
    false
}

/// Why a check box whose own action was taken is not pressed again when its
/// state reads as before.
const STATE_NOT_SHOWN: &str = "it is not pressed again, which could turn it back: its toolkit may keep the state where accessibility does not show it (GTK 3's popover menu items keep theirs in the window's action)";

/// What an action on a checkable element promises.
#[derive(Clone, Copy)]
enum Promise {
    /// A press: the state flips if the toolkit shows it.
    Press,
    /// check and uncheck: the state asked for.
    State,
}

/// Whether pressing the element flips its checked state: a check box,
/// toggle, switch, or a radio button not yet checked.
fn toggles(node: &Node) -> bool {
    matches!(
        node.role,
        Role::CheckBox | Role::ToggleButton | Role::Switch
    ) || (node.role == Role::Radio && !node.has_state(&State::Checked))
}

fn checked_word(checked: bool) -> &'static str {
    if checked {
        "checked"
    } else {
        "unchecked"
    }
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
        /// Whether a swallowed action redraws the window, as a check item
        /// that toggles where accessibility cannot see it does: how many did.
        redraws: Option<Mutex<u8>>,
    }

    impl Swallowing {
        fn new(actions: &[Action], text_input: bool) -> Arc<Swallowing> {
            Arc::new(Swallowing {
                app: MemoryDriver::new(),
                actions: actions.to_vec(),
                text_input,
                swallowed: Mutex::new(Vec::new()),
                redraws: None,
            })
        }

        /// Takes `actions` without a change the tree shows, but draws anew.
        fn redrawing(actions: &[Action]) -> Arc<Swallowing> {
            Arc::new(Swallowing {
                redraws: Some(Mutex::new(0)),
                ..Arc::into_inner(Swallowing::new(actions, false)).unwrap()
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
                if let Some(redrawn) = &self.redraws {
                    *redrawn.lock().unwrap() += 1;
                }
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
                        hold: false,
                    })?,
                }
            }
            Ok(())
        }
        fn menu(&self, params: &MenuParams) -> Result<()> {
            self.app.menu(params)
        }
        fn capture(&self, params: &CaptureParams) -> Result<Capture> {
            let mut capture = self.app.capture(params)?;
            if let Some(redrawn) = &self.redraws {
                let shade = 100 + *redrawn.lock().unwrap();
                capture.png = crate::png::solid(capture.width, capture.height, [shade; 3]);
            }
            Ok(capture)
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
    fn a_check_box_drawn_anew_by_its_action_is_never_pressed_twice() {
        // GTK 3's popover check items: the action toggles the item where
        // accessibility cannot see it, and only its picture tells.
        let unchecked = |driver: &Swallowing| {
            !driver
                .app
                .edit(|ui| ui.windows[0].keyed("subscribe").has_state(&State::Checked))
        };
        let driver = Swallowing::redrawing(&[Action::Press]);
        let done = app(&driver).get_by_key("subscribe").activate().unwrap();
        assert_eq!(done.route, Route::Semantic(Action::Press));
        let Effect::Unverifiable(checked) = &done.effect else {
            panic!("{:?}", done.effect)
        };
        assert!(
            checked.contains("drawn otherwise") && checked.contains("not pressed again"),
            "{checked}"
        );
        assert!(unchecked(&driver), "no click followed the press");
        assert_eq!(driver.swallowed(), ["act press"]);

        // check promises the state, which cannot be read: it fails saying so.
        let driver = Swallowing::redrawing(&[Action::Press]);
        let err = app(&driver).get_by_key("subscribe").check().unwrap_err();
        assert_eq!(err.code, ErrorCode::Failed, "{err}");
        assert!(
            err.message.contains("the app took semantic:press")
                && err.message.contains("not pressed again"),
            "{}",
            err.message
        );
        assert!(unchecked(&driver), "no click followed the press");
        assert_eq!(driver.swallowed(), ["act press"]);
    }

    /// Qt Designer's Screen Size combo with its popup list, the combo
    /// named `shows` and the popup's `selected` item reading selected.
    fn qt_combo(shows: &str, selected: &str) -> Tree {
        let node = |id: u64, parent: Option<u64>, role: Role, label: &str| {
            let mut states = vec![State::Selectable];
            if label == selected && role == Role::ListItem {
                states.push(State::Selected);
            }
            Node {
                id: ElementId(id),
                parent: parent.map(ElementId),
                role,
                label: Some(label.to_string()).filter(|l| !l.is_empty()),
                states,
                ..Node::default()
            }
        };
        let mut nodes = vec![
            node(1, None, Role::ComboBox, shows),
            node(2, Some(1), Role::List, ""),
        ];
        for (id, item) in [
            "Default size",
            "QVGA portrait (240x320)",
            "VGA landscape (640x480)",
        ]
        .iter()
        .enumerate()
        {
            nodes.push(node(3 + id as u64, Some(2), Role::ListItem, item));
        }
        Tree {
            window: 1,
            focus: None,
            nodes,
            announcements: None,
            extra: Default::default(),
        }
    }

    #[test]
    fn a_combo_box_has_chosen_only_what_it_shows() {
        let vga = TextMatch::from("VGA landscape (640x480)");
        let before = qt_combo("Default size", "Default size").nodes[0].clone();
        // The popup's item selected, the combo still showing its old choice.
        let uncommitted = qt_combo("Default size", "VGA landscape (640x480)");
        assert_eq!(
            chosen_state(&uncommitted, 0, ElementId(5), &vga, &before),
            Err("it still shows \"Default size\"".to_string())
        );
        let committed = qt_combo("VGA landscape (640x480)", "VGA landscape (640x480)");
        assert_eq!(
            chosen_state(&committed, 0, ElementId(5), &vga, &before),
            Ok("it is named by its choice, now \"VGA landscape (640x480)\"".to_string())
        );
        // A combo named by its label, not its choice, is judged by its item.
        let labelled = qt_combo("Screen Size", "VGA landscape (640x480)");
        assert!(chosen_state(&labelled, 0, ElementId(5), &vga, &before).is_ok());
        // So is one whose value is no item's text (Chromium's: all of them).
        let mut all_texts = labelled;
        all_texts.nodes[0].value = Some("Default sizeQVGA portrait (240x320)".into());
        assert!(chosen_state(&all_texts, 0, ElementId(5), &vga, &before).is_ok());
        // A value that is an item's text is what the combo shows.
        let mut shows_value = qt_combo("Screen Size", "VGA landscape (640x480)");
        shows_value.nodes[0].value = Some("Default size".into());
        assert_eq!(
            chosen_state(&shows_value, 0, ElementId(5), &vga, &before),
            Err("it still reads \"Default size\"".to_string())
        );
    }
}
