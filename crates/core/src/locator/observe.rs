//! Looking for an action's effect once it was made: reading the element it
//! was made on again (by identity, else place, else the locator) until it
//! holds, and, for an action whose purpose the tree cannot name (a press, a
//! key chord), what changed around it. See [`super::effect`] for what an
//! outcome says.

use super::effect::{change, find_again, window_change, ActionOutcome, Effect, Route};
use super::ladder::Ready;
use super::resolve::{describe_node, human, worth_retrying, Poller};
use super::Locator;
use crate::error::{Error, ErrorCode, Result};
use crate::protocol::{ElementId, Node, Tree, TreeParams, WindowId};
use crate::text_check;
use std::time::Duration;

/// How [`Locator::observe_change_in`] reads the window after the action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reread {
    /// Every field of the target and of what the locator could pick; the
    /// others' names and states may be a toolkit's cached ones.
    ForTarget,
    /// Every field of every element, for an action whose effect is on
    /// others' names (a list's rows, which GTK 4 renames when it recycles
    /// them on a scroll, and whose cached names lag).
    Whole,
}

/// What one attempt did, before its effect was looked at.
pub(crate) struct Done {
    pub route: Route,
    /// The element acted on, as read just before the action.
    pub element: Node,
    pub window: WindowId,
    /// Where the window's focus was just before the action.
    pub focus: Option<ElementId>,
    /// The app's windows just before the action, where the action's effect
    /// may be a window that opens or closes.
    pub windows: Option<Vec<WindowId>>,
    /// The read the action was made on, where its effect may be anywhere
    /// in the window (a press, a key chord).
    pub before: Option<Tree>,
}

impl Done {
    /// The outcome with `effect`, the element as `last` read it (if it was).
    pub(crate) fn outcome(self, effect: Effect, last: Option<Node>) -> ActionOutcome {
        ActionOutcome {
            route: self.route,
            effect,
            element: last.unwrap_or(self.element),
            window: self.window,
            closed: Vec::new(),
        }
    }

    pub(crate) fn confirmed(self, seen: impl Into<String>, last: Option<Node>) -> ActionOutcome {
        self.outcome(Effect::Confirmed(seen.into()), last)
    }
}

/// What reading the acted-on element again came to.
pub(crate) enum Seen {
    /// It reads as wanted.
    Holds(Node),
    /// The check's time is up: the element as last read, if it was.
    Not(Option<Node>),
    /// Its window went.
    WindowGone,
}

/// A check after the action (check, select, set_value) gets at least this
/// long, even when the ladder used most of the timeout: some toolkits apply
/// an accessibility action a few hundred milliseconds after it returns.
pub(crate) const VERIFY_AT_LEAST: Duration = Duration::from_secs(1);

impl Locator {
    /// The ids of the app's windows now, for an action whose effect may be a
    /// window opening or closing; `None` when they cannot be listed.
    pub(crate) fn windows_now(&self) -> Option<Vec<WindowId>> {
        let list = self.driver.windows().ok()?;
        Some(list.windows.iter().map(|w| w.id).collect())
    }

    /// Looks for the effect of an action whose purpose the tree cannot name
    /// (a press, a click, a key chord, a drag): once the window settled, the
    /// element reads otherwise, or went, or the focus moved, or elements
    /// came, went or changed name or state in its window, or a window opened
    /// or closed. None of these is `unverifiable`, saying what was checked:
    /// what a press does beyond them (a value elsewhere, the clipboard) is
    /// the app's.
    pub(crate) fn observe_change(
        &self,
        poller: &mut Poller,
        done: Done,
        what: &str,
    ) -> Result<ActionOutcome> {
        self.observe_change_in(poller, done, what, Reread::ForTarget)
    }

    /// As [`Locator::observe_change`], reading the window again as `reread` says.
    pub(crate) fn observe_change_in(
        &self,
        poller: &mut Poller,
        done: Done,
        what: &str,
        reread: Reread,
    ) -> Result<ActionOutcome> {
        poller.watch(done.window);
        match poller.settle() {
            // A dialog's OK that ends its app (zenity) took the window with it.
            Err(e) if e.code == ErrorCode::AppExited => return Ok(gone_with(done, None)),
            settled => settled?,
        }
        let read = match reread {
            Reread::ForTarget => self.read_for(done.window, done.element.id),
            Reread::Whole => self.driver.tree(&TreeParams {
                window: Some(done.window),
            }),
        };
        let tree = match read {
            Ok(tree) => tree,
            Err(e) if e.code == ErrorCode::AppExited => return Ok(gone_with(done, None)),
            Err(e) if worth_retrying(&e) => {
                if let Some(gone) = self.closed_window(done.window)? {
                    return Ok(gone_with(done, gone));
                }
                // Its window is listed but cannot be read just now: it went from it.
                let went = format!(
                    "{} went from window {}",
                    describe_node(&done.element),
                    done.window
                );
                return Ok(done.confirmed(went, None));
            }
            Err(e) => return Err(e),
        };
        let windows = self.windows_now();
        let (opened, closed) = match (&done.windows, &windows) {
            (Some(before), Some(now)) => (
                now.iter()
                    .filter(|w| !before.contains(w))
                    .copied()
                    .collect(),
                before
                    .iter()
                    .filter(|w| !now.contains(w))
                    .copied()
                    .collect(),
            ),
            _ => (Vec::new(), Vec::new()),
        };
        let mut seen = Vec::new();
        let again = find_again(self, &tree, &done.element);
        match &again {
            Some(node) => {
                if let Some(changed) = change(&done.element, node) {
                    seen.push(format!("the element changed: {changed}"));
                }
            }
            None => seen.push(format!(
                "{} went from the window",
                describe_node(&done.element)
            )),
        }
        if tree.focus != done.focus {
            let now = tree.focused().map(describe_node);
            seen.push(match now {
                Some(now) => format!("the focus moved to {now}"),
                None => "the focus left the window".into(),
            });
        }
        if let Some(changed) = done
            .before
            .as_ref()
            .and_then(|b| window_change(b, &tree, done.element.id))
        {
            seen.push(changed);
        }
        for w in &opened {
            seen.push(format!("window {w} opened"));
        }
        for w in &closed {
            seen.push(format!("window {w} closed"));
        }
        let effect = if seen.is_empty() {
            let looked = if windows.is_some() {
                "and no window opened or closed"
            } else {
                "(the windows could not be listed)"
            };
            Effect::Unverifiable(format!(
                "after {what} the element reads as before, the focus stayed, no element came, went or changed name or state, {looked}; what it did beyond that (a value elsewhere) is the app's: read the window to see it"
            ))
        } else {
            Effect::Confirmed(seen.join("; "))
        };
        let mut outcome = done.outcome(effect, again);
        outcome.closed = closed;
        Ok(outcome)
    }

    /// `Some(window)` when `window` is no longer among the app's windows:
    /// the action's effect was to close it.
    pub(crate) fn closed_window(&self, window: WindowId) -> Result<Option<WindowId>> {
        let list = match self.driver.windows() {
            Ok(list) => list,
            // The app ended with the action: its windows with it.
            Err(e) if e.code == ErrorCode::AppExited => return Ok(Some(window)),
            Err(e) => return Err(e),
        };
        Ok((!list.windows.iter().any(|w| w.id == window)).then_some(window))
    }

    /// The outcome of an action whose window went while its effect was
    /// being read; an error if the window is in fact still there.
    pub(crate) fn window_went(&self, done: Done) -> Result<ActionOutcome> {
        match self.closed_window(done.window)? {
            Some(gone) => Ok(gone_with(done, gone)),
            None => Err(Error::no_element(format!(
                "{self}: {} went from window {} while its effect was read",
                describe_node(&done.element),
                done.window
            ))
            .with_suggestion("read the window again: the element may have been made anew")),
        }
    }

    /// Reads the acted-on element (by its identity, else its place, else the
    /// locator) until `holds`, its window goes, or the check's time is up.
    pub(crate) fn read_until(
        &self,
        poller: &Poller,
        done: &Done,
        holds: impl Fn(&Node) -> bool,
    ) -> Result<Seen> {
        let mut last: Option<Node> = None;
        let read = || self.read_for(done.window, done.element.id);
        let found = self.read_window_until(poller, done.window, read, |tree| {
            let node = find_again(self, tree, &done.element);
            if let Some(node) = node.as_ref().filter(|n| holds(n)) {
                return Some(node.clone());
            }
            last = node.or(last.take());
            None
        })?;
        Ok(match found {
            Some(Some(node)) => Seen::Holds(node),
            Some(None) => Seen::WindowGone,
            None => Seen::Not(last),
        })
    }

    /// Reads `window` with `read` until `look` finds what it waits for in a
    /// read (`Some(Some(_))`), the window is gone from the app's windows
    /// (`Some(None)`), or the check's time is up (`None`): at least
    /// [`VERIFY_AT_LEAST`], else what is left of the action's time.
    pub(crate) fn read_window_until<T>(
        &self,
        poller: &Poller,
        window: WindowId,
        read: impl Fn() -> Result<Tree>,
        mut look: impl FnMut(&Tree) -> Option<T>,
    ) -> Result<Option<Option<T>>> {
        let mut check = self.poller(verify_time(poller));
        loop {
            match read() {
                Ok(tree) => {
                    if let Some(found) = look(&tree) {
                        return Ok(Some(Some(found)));
                    }
                }
                Err(e) if e.code == ErrorCode::AppExited => return Ok(Some(None)),
                Err(e) if worth_retrying(&e) => {
                    if self.closed_window(window)?.is_some() {
                        return Ok(Some(None));
                    }
                }
                Err(e) => return Err(e),
            }
            if check.expired() {
                return Ok(None);
            }
            check.watch(window);
            match check.wait() {
                Err(e) if e.code == ErrorCode::AppExited => return Ok(Some(None)),
                waited => waited?,
            }
        }
    }

    /// Reads the acted-on element until `holds` (confirmed: `seen`), or
    /// fails with `failed` and what it showed last.
    pub(crate) fn verify(
        &self,
        what: &str,
        poller: &Poller,
        done: Done,
        wanted: &str,
        seen: &str,
        holds: impl Fn(&Node) -> bool,
    ) -> Result<ActionOutcome> {
        let route = done.route.as_str();
        self.verify_route(what, poller, done, &route, wanted, seen, holds)
    }

    /// As [`Locator::verify`], naming the route as `route` in the message.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn verify_route(
        &self,
        what: &str,
        poller: &Poller,
        done: Done,
        route: &str,
        wanted: &str,
        seen: &str,
        holds: impl Fn(&Node) -> bool,
    ) -> Result<ActionOutcome> {
        let waited = verify_time(poller);
        match self.read_until(poller, &done, holds)? {
            Seen::Holds(node) => Ok(done.confirmed(seen, Some(node))),
            Seen::WindowGone => self.window_went(done),
            Seen::Not(last) => {
                let seen = last
                    .as_ref()
                    .map(describe_node)
                    .unwrap_or_else(|| "the element was gone".into());
                Err(Error::failed(format!(
                    "{what}: {} on {} but it was not {wanted} after {}; last read: {seen}",
                    route,
                    self,
                    human(waited)
                ))
                .with_suggestion(
                    "check that the element reacts to this action; the app may refuse it",
                ))
            }
        }
    }
}

/// What an attempt on the ready element did by `route`, with the windows
/// as they were before it (for actions whose effect may be a window).
pub(crate) fn done(ready: &Ready, route: Route, windows: Option<Vec<WindowId>>) -> Done {
    let before = windows.is_some().then(|| ready.tree.clone());
    Done {
        route,
        element: ready.node().clone(),
        window: ready.window(),
        focus: ready.tree.focus,
        windows,
        before,
    }
}

pub(crate) fn done_by(ready: &Ready, route: Route) -> Done {
    done(ready, route, None)
}

/// The outcome of an action whose window went with it (`None`: with the
/// whole app, which exited): confirmed, naming it.
pub(crate) fn gone_with(done: Done, window: impl Into<Option<WindowId>>) -> ActionOutcome {
    let (seen, window) = match window.into() {
        Some(window) => (format!("window {window} closed"), window),
        None => (
            format!("the app exited, and window {} with it", done.window),
            done.window,
        ),
    };
    let mut outcome = done.confirmed(seen, None);
    outcome.closed = vec![window];
    outcome
}

/// The outcome of text that landed: the element as read with it.
pub(crate) fn text_landed(done: Done, node: Node) -> ActionOutcome {
    let seen = format!("it {}", text_check::node_reads(&node));
    done.confirmed(seen, Some(node))
}

/// How long a check after an action reads: what is left of the action's
/// time, and at least [`VERIFY_AT_LEAST`].
pub(crate) fn verify_time(poller: &Poller) -> Duration {
    poller.remaining().max(VERIFY_AT_LEAST)
}
