//! The keyboard, as a person types: real key and text input into whatever
//! element has the focus (Playwright's `page.keyboard`), each answered with
//! what the tree showed of it.
//!
//! Text is checked against the focused element: its text (value) must come
//! to hold what was typed, else the call fails saying what it reads; where
//! nothing focused shows text, the outcome is `unverifiable`. A key chord
//! (and a menu path, [`App::choose_menu`]) is confirmed where the focus
//! moved, the focused element changed, the window changed, or a window
//! opened or closed, and `unverifiable` otherwise.

use crate::app::{App, Timeouts};
use crate::driver::Driver;
use crate::error::{Error, ErrorCode, Result};
use crate::locator::{change, describe_node, takes_text, window_change, Poller};
use crate::protocol::{
    ElementId, InputEvent, InputParams, KeyChord, Node, Tree, TreeParams, WindowId,
};
use crate::text_check::{self, node_landed as landed, what_node_reads, Wanted};
use crate::{ActionOutcome, Effect, Route};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The longest pause between two typed characters: a delay is for apps
/// that drop keys typed too fast, not for waiting on something.
pub const MAX_KEY_DELAY: Duration = Duration::from_secs(10);

/// How long typed text may take to show in the focused element, at most:
/// what is left of the App's action timeout, but no more than this.
const TEXT_SHOWS_WITHIN: Duration = Duration::from_secs(3);

/// Real keyboard input into a window's focused element (the focused window when none is named).
#[derive(Clone)]
pub struct Keyboard {
    driver: Arc<dyn Driver>,
    window: Option<WindowId>,
    timeouts: Timeouts,
}

impl App {
    /// The keyboard, typing into the focused window.
    pub fn keyboard(&self) -> Keyboard {
        Keyboard {
            driver: self.driver().clone(),
            window: None,
            timeouts: self.timeouts(),
        }
    }
}

/// The window and its focused element just before the input.
struct Before {
    tree: Tree,
    focused: Option<Node>,
    windows: Option<Vec<WindowId>>,
}

impl Keyboard {
    /// A keyboard for any driver, as front ends that hold a driver make one.
    pub fn new(driver: Arc<dyn Driver>, window: Option<WindowId>, timeouts: Timeouts) -> Keyboard {
        Keyboard {
            driver,
            window,
            timeouts,
        }
    }

    /// The same keyboard, typing into `window`.
    pub fn in_window(mut self, window: WindowId) -> Keyboard {
        self.window = Some(window);
        self
    }

    /// Types `text` into the focused element: one text event when `delay` is
    /// none, else one character at a time with `delay` between them. Then
    /// waits until the focused element's text holds it (`confirmed`); fails
    /// with `failed` and what it reads when it does not; `unverifiable` when
    /// nothing focused shows text.
    pub fn type_text(&self, text: &str, delay: Option<Duration>) -> Result<ActionOutcome> {
        let delay = checked_delay("type", delay)?;
        let before = match self.look() {
            Ok(before) => before,
            Err(e) if no_tree(&e) => {
                return self.by_pixels("typing", || self.send_text(text, delay));
            }
            Err(e) => return Err(e),
        };
        if text.is_empty() {
            return Ok(outcome(
                &before.tree,
                before.focused,
                Route::NotNeeded,
                Effect::Confirmed("no text to type".into()),
            ));
        }
        self.send_text(text, delay)?;
        self.confirm_typed(&before, text)
    }

    fn send_text(&self, text: &str, delay: Duration) -> Result<()> {
        if delay.is_zero() {
            return self.send(vec![InputEvent::Text { text: text.into() }]);
        }
        for (at, c) in text.chars().enumerate() {
            if at > 0 {
                std::thread::sleep(delay);
            }
            self.send(vec![InputEvent::Text { text: c.into() }])?;
        }
        Ok(())
    }

    /// Input to an app with no tree (see `uidrive_atspi::NoTree`): sent as
    /// to any app, and its effect looked for in the window's pixels, the
    /// only witness such an app has.
    fn by_pixels(&self, what: &str, send: impl FnOnce() -> Result<()>) -> Result<ActionOutcome> {
        let window = crate::visual::window_of(&*self.driver, self.window)?;
        let look = || {
            self.driver
                .capture(&crate::protocol::CaptureParams {
                    window: Some(window),
                })
                .ok()
                .map(|c| c.png)
        };
        let before = look();
        send()?;
        let until = Instant::now() + Duration::from_millis(1500);
        let mut changed = false;
        while !changed && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(50));
            changed = before.is_some() && look().is_some_and(|now| Some(now) != before);
        }
        let effect = if changed {
            Effect::Confirmed(format!("the window's pixels changed after the {what}"))
        } else {
            Effect::Unverifiable(format!(
                "the {what} left the window's pixels as they were for 1500 ms; an app without a tree shows nothing else to check"
            ))
        };
        Ok(ActionOutcome {
            route: Route::Input,
            effect,
            element: Node::default(),
            window,
            closed: Vec::new(),
        })
    }

    /// Presses a key chord such as `Enter`, `Ctrl+A` or `CmdOrCtrl+Shift+Z`;
    /// a key that types (`a`, `Shift+a`) types its character, as a
    /// keystroke does ([`InputEvent::keystroke`]).
    /// `confirmed` when the focus moved, the focused element changed,
    /// elements of the window came, went or changed name or state, or a
    /// window opened or closed; else `unverifiable`: what a chord does is
    /// the app's.
    pub fn press(&self, chord: &str) -> Result<ActionOutcome> {
        let key: KeyChord = chord
            .parse()
            .map_err(|e: String| Error::invalid_request(format!("press: {e}")))?;
        let mut before = match self.look() {
            Ok(before) => before,
            Err(e) if no_tree(&e) => {
                return self.by_pixels(&format!("key {chord}"), || {
                    self.send(InputEvent::keystroke(key.clone()))
                });
            }
            Err(e) => return Err(e),
        };
        before.windows = windows_of(&self.driver);
        self.send(InputEvent::keystroke(key.clone()))?;
        self.observe_chord(&before, &key)
    }

    /// Presses `chord`'s keys and leaves them down (a held Shift for the
    /// clicks and keys that follow) until [`Keyboard::up`], or until the
    /// connection to the app closes. `unverifiable`: a held key shows
    /// nothing until the next input.
    pub fn down(&self, chord: &str) -> Result<ActionOutcome> {
        self.hold(chord, true)
    }

    /// Releases keys [`Keyboard::down`] held. `unverifiable` as `down` is.
    pub fn up(&self, chord: &str) -> Result<ActionOutcome> {
        self.hold(chord, false)
    }

    fn hold(&self, chord: &str, down: bool) -> Result<ActionOutcome> {
        let verb = if down { "down" } else { "up" };
        let key: KeyChord = chord
            .parse()
            .map_err(|e: String| Error::invalid_request(format!("key {verb}: {e}")))?;
        let before = self.look()?;
        let event = if down {
            InputEvent::KeyDown { key }
        } else {
            InputEvent::KeyUp { key }
        };
        self.driver.input(&InputParams {
            window: self.window,
            events: vec![event],
            hold: true,
        })?;
        let checked = if down {
            format!("{chord} is held down; what it changes shows with the input that follows")
        } else {
            format!("{chord} was released; a released key shows nothing by itself")
        };
        Ok(outcome(
            &before.tree,
            before.focused.clone(),
            Route::Input,
            Effect::Unverifiable(checked),
        ))
    }

    fn send(&self, events: Vec<InputEvent>) -> Result<()> {
        self.driver.input(&InputParams {
            window: self.window,
            events,
            hold: false,
        })
    }

    /// The window and its focused element, read whole (the others as a
    /// locator's lean read leaves them).
    fn look(&self) -> Result<Before> {
        let params = TreeParams {
            window: self.window,
        };
        let tree = self
            .driver
            .tree_for(&params, &|lean| lean.focus.into_iter().collect())?;
        let focused = tree.focused().cloned();
        Ok(Before {
            tree,
            focused,
            windows: None,
        })
    }

    fn read_again(&self, window: WindowId, also: Option<ElementId>) -> Result<Tree> {
        let params = TreeParams {
            window: Some(window),
        };
        self.driver.tree_for(&params, &|lean| {
            lean.focus.into_iter().chain(also).collect::<Vec<_>>()
        })
    }

    /// Waits until the element focused before, or the one focused now, holds
    /// `text`.
    fn confirm_typed(&self, before: &Before, text: &str) -> Result<ActionOutcome> {
        let window = before.tree.window;
        let Some(focused) = before.focused.as_ref().filter(|n| shows_text(n)) else {
            let checked = match &before.focused {
                Some(node) => format!(
                    "the focused element, {}, shows no text to read back",
                    describe_node(node)
                ),
                None => format!("no element of window {window} had the focus"),
            };
            return Ok(outcome(
                &before.tree,
                before.focused.clone(),
                Route::Input,
                Effect::Unverifiable(checked),
            ));
        };
        let was = focused.value.clone().unwrap_or_default();
        let limit = self.timeouts.action.min(TEXT_SHOWS_WITHIN);
        let mut poller = Poller::new(self.driver.clone(), limit);
        poller.watch(window);
        let started = Instant::now();
        let mut last = Some(focused.clone());
        loop {
            poller.settle()?;
            match self.read_again(window, Some(focused.id)) {
                Ok(tree) => {
                    let same = tree.node(focused.id).cloned();
                    if let Some(node) = same.as_ref().filter(|n| {
                        landed(
                            n,
                            Wanted::Took {
                                before: &was,
                                typed: text,
                            },
                        )
                    }) {
                        let seen =
                            format!("{} reads {}", describe_node(node), what_node_reads(node));
                        return Ok(outcome(
                            &tree,
                            Some(node.clone()),
                            Route::Input,
                            Effect::Confirmed(seen),
                        ));
                    }
                    // The text may go to an editor the app opened for it (a spreadsheet cell's).
                    let now = tree.focused().filter(|n| n.id != focused.id).cloned();
                    if let Some(node) = now.as_ref().filter(|n| {
                        landed(
                            n,
                            Wanted::Took {
                                before: "",
                                typed: text,
                            },
                        )
                    }) {
                        let seen = format!(
                            "the focus went to {}, which reads {}",
                            describe_node(node),
                            what_node_reads(node)
                        );
                        return Ok(outcome(
                            &tree,
                            Some(node.clone()),
                            Route::Input,
                            Effect::Confirmed(seen),
                        ));
                    }
                    last = same.or(last);
                }
                Err(e) if matches!(e.code, ErrorCode::NoWindow | ErrorCode::NoElement) => {}
                Err(e) => return Err(e),
            }
            if poller.expired() {
                let reads_now = last
                    .as_ref()
                    .map(what_node_reads)
                    .unwrap_or_else(|| "nothing".into());
                return Err(Error::failed(format!(
                    "type: typed `{}` into the focused element, {}, but it still reads {reads_now} after {} ms",
                    text_check::clip(text),
                    describe_node(focused),
                    started.elapsed().as_millis()
                ))
                .with_suggestion(
                    "the app may not take input yet, or the focus is elsewhere: type into a target (a locator's type, or `type --into`)",
                ));
            }
            poller.wait()?;
        }
    }

    /// What a chord changed: the focus, the focused element, the windows.
    fn observe_chord(&self, before: &Before, key: &KeyChord) -> Result<ActionOutcome> {
        let sent = Sent {
            driver: &self.driver,
            timeouts: self.timeouts,
            what: format!("the key {key}"),
        };
        sent.observe(before, |seen| {
            self.read_again(seen.tree.window, seen.focused.as_ref().map(|n| n.id))
        })
    }
}

/// Input sent with no element of its own (a key chord, a menu path), to be
/// looked for in the window it went to.
struct Sent<'a> {
    driver: &'a Arc<dyn Driver>,
    timeouts: Timeouts,
    /// The input as a message names it: `the key Enter`, `the menu item File > New`.
    what: String,
}

impl Sent<'_> {
    /// Once the window settled: the focus moved, the focused element
    /// changed, elements of the window came, went or changed name or state,
    /// or a window opened or closed (`confirmed`); none of these is
    /// `unverifiable`, what the input does beyond them being the app's.
    fn observe(
        &self,
        before: &Before,
        read: impl Fn(&Before) -> Result<Tree>,
    ) -> Result<ActionOutcome> {
        let window = before.tree.window;
        let mut poller = Poller::new(self.driver.clone(), self.timeouts.action);
        poller.watch(window);
        match poller.settle() {
            Err(e) if e.code == ErrorCode::AppExited => {
                return Ok(gone(before, format!("the app exited after {}", self.what)))
            }
            settled => settled?,
        }
        let tree = match read(before) {
            Ok(tree) => Some(tree),
            Err(e) if e.code == ErrorCode::AppExited => {
                return Ok(gone(before, format!("the app exited after {}", self.what)))
            }
            Err(e) if matches!(e.code, ErrorCode::NoWindow | ErrorCode::NoElement) => None,
            Err(e) => return Err(e),
        };
        let windows = windows_of(self.driver);
        let mut seen = Vec::new();
        let mut closed = Vec::new();
        if let (Some(before), Some(now)) = (&before.windows, &windows) {
            for w in now.iter().filter(|w| !before.contains(w)) {
                seen.push(format!("window {w} opened"));
            }
            for w in before.iter().filter(|w| !now.contains(w)) {
                seen.push(format!("window {w} closed"));
                closed.push(*w);
            }
        }
        let Some(tree) = tree else {
            let went = if seen.is_empty() {
                format!("window {window} went")
            } else {
                seen.join("; ")
            };
            let mut outcome = gone(before, went);
            outcome.closed = if closed.is_empty() {
                vec![window]
            } else {
                closed
            };
            return Ok(outcome);
        };
        let was = before.focused.as_ref().map(|n| n.id);
        if tree.focus != was {
            seen.push(match tree.focused() {
                Some(now) => format!("the focus moved to {}", describe_node(now)),
                None => "the focus left the window".into(),
            });
        } else if let Some(focused) = &before.focused {
            if let Some(changed) = tree.node(focused.id).and_then(|now| change(focused, now)) {
                seen.push(format!("the focused element changed: {changed}"));
            }
        }
        let target = was.unwrap_or(ElementId(u64::MAX));
        if let Some(changed) = window_change(&before.tree, &tree, target) {
            seen.push(changed);
        }
        let effect = if seen.is_empty() {
            let on = before
                .focused
                .as_ref()
                .map(describe_node)
                .unwrap_or_else(|| format!("window {window}, where nothing had the focus"));
            Effect::Unverifiable(format!(
                "{} went to {on}, which reads as before; the focus stayed, no element came, went or changed name or state, and no window opened or closed: what it does beyond that is the app's",
                self.what
            ))
        } else {
            Effect::Confirmed(seen.join("; "))
        };
        let focused = tree.focused().cloned();
        let mut outcome = outcome(&tree, focused, Route::Input, effect);
        outcome.closed = closed;
        Ok(outcome)
    }
}

impl App {
    /// Chooses a menu item by the labels along its path (the protocol's
    /// `menu`), then looks for its effect as the keyboard's `press` does:
    /// `confirmed` when the focus moved, the window changed or a window
    /// opened or closed, else `unverifiable`.
    pub fn choose_menu(&self, window: Option<WindowId>, path: &[String]) -> Result<ActionOutcome> {
        let keyboard = match window {
            Some(id) => self.keyboard().in_window(id),
            None => self.keyboard(),
        };
        let mut before = keyboard.look()?;
        before.windows = windows_of(&keyboard.driver);
        self.menu(Some(before.tree.window), path.to_vec())?;
        let sent = Sent {
            driver: &keyboard.driver,
            timeouts: keyboard.timeouts,
            what: format!("the menu item {}", path.join(" > ")),
        };
        sent.observe(&before, |seen| keyboard.read_again(seen.tree.window, None))
    }
}

/// The outcome of input whose window (or app) went with it.
fn gone(before: &Before, seen: String) -> ActionOutcome {
    let mut outcome = outcome(
        &before.tree,
        before.focused.clone(),
        Route::Input,
        Effect::Confirmed(seen),
    );
    outcome.closed = vec![before.tree.window];
    outcome
}

fn windows_of(driver: &Arc<dyn Driver>) -> Option<Vec<WindowId>> {
    let list = driver.windows().ok()?;
    Some(list.windows.iter().map(|w| w.id).collect())
}

/// Whether typed text would show in `node`: it takes text, or has a text.
fn shows_text(node: &Node) -> bool {
    takes_text(node) || node.value.is_some()
}

/// Keyboard input's outcome: the element is the focused one, else the window.
fn outcome(tree: &Tree, focused: Option<Node>, route: Route, effect: Effect) -> ActionOutcome {
    let element = focused
        .or_else(|| tree.nodes.first().cloned())
        .unwrap_or_default();
    ActionOutcome {
        route,
        effect,
        element,
        window: tree.window,
        closed: Vec::new(),
    }
}

/// A per-character delay, refused past [`MAX_KEY_DELAY`].
pub(crate) fn checked_delay(what: &str, delay: Option<Duration>) -> Result<Duration> {
    let delay = delay.unwrap_or_default();
    if delay > MAX_KEY_DELAY {
        return Err(Error::invalid_request(format!(
            "{what}: a delay of {} ms between keys is more than the {} ms allowed",
            delay.as_millis(),
            MAX_KEY_DELAY.as_millis()
        ))
        .with_suggestion("use a delay of a few milliseconds, or none"));
    }
    Ok(delay)
}

/// Whether a read failed because the app has no accessibility tree (its
/// driver answers `unsupported` to every read of one).
fn no_tree(err: &Error) -> bool {
    err.code == ErrorCode::Unsupported
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemoryDriver;
    use crate::protocol::{Role, TreeParams};

    fn field_value(driver: &MemoryDriver) -> String {
        let tree = driver.tree(&TreeParams::default()).unwrap();
        let focus = tree.focus.expect("a focused element");
        let node = tree.nodes.iter().find(|n| n.id == focus).unwrap();
        node.value.clone().unwrap_or_default()
    }

    #[test]
    fn the_keyboard_types_into_the_focused_field() {
        let driver = Arc::new(MemoryDriver::new());
        let app = App::new(driver.clone());
        app.get_by_role(Role::TextField, crate::RoleQuery::any())
            .first()
            .focus()
            .unwrap();
        let before = field_value(&driver);
        app.keyboard().type_text("ab", None).unwrap();
        app.keyboard()
            .type_text("cd", Some(Duration::from_millis(1)))
            .unwrap();
        assert_eq!(field_value(&driver), format!("{before}abcd"));
        let err = app
            .keyboard()
            .type_text("x", Some(Duration::from_secs(60)))
            .unwrap_err();
        assert_eq!(err.code, crate::ErrorCode::InvalidRequest, "{err}");
        let err = app.keyboard().press("Ctrl+Nope").unwrap_err();
        assert_eq!(err.code, crate::ErrorCode::InvalidRequest, "{err}");
    }
}
