//! The actionability ladder: before an action, the locator must find exactly
//! one element that is visible, enabled, stable and (for text) editable. Each
//! rung is checked on a fresh read and retried until the action's timeout.

use super::matching::is_shown;
use super::resolve::{ambiguous, describe_node, human, not_found, worth_retrying, Poller, Read};
use super::Locator;
use crate::error::{Error, ErrorCode, Result};
use crate::protocol::{Action, Bounds, ElementId, Node, Role, State, Tree, WindowId};

/// One check of the ladder after the first (exactly one match), in the order they are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rung {
    /// The element has an area and is not offscreen.
    Visible,
    /// The element has no `disabled` state.
    Enabled,
    /// The element's bounds were the same in two reads in a row.
    Stable,
    /// The element takes text (or a value) and is not read-only.
    Editable,
}

impl Rung {
    pub fn as_str(self) -> &'static str {
        match self {
            Rung::Visible => "visible",
            Rung::Enabled => "enabled",
            Rung::Stable => "stable",
            Rung::Editable => "editable",
        }
    }

    fn why(self) -> &'static str {
        match self {
            Rung::Visible => "it has no area or is offscreen",
            Rung::Enabled => "it has the disabled state",
            Rung::Stable => "its bounds changed between two reads",
            Rung::Editable => "it is read-only or does not take text",
        }
    }
}

/// What an element must take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Editable {
    No,
    /// Text, for `fill` and `type`: a text field, or anything offering setValue or insertText.
    Text,
    /// A value, for `set_value`: anything not read-only.
    Value,
}

/// The rungs an action climbs besides the first (exactly one match), which every action needs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Needs {
    pub visible: bool,
    pub enabled: bool,
    pub stable: bool,
    pub editable: Editable,
}

impl Needs {
    /// Only that the element is there (focus, scroll_into_view, reads).
    pub const ATTACHED: Needs = Needs {
        visible: false,
        enabled: false,
        stable: false,
        editable: Editable::No,
    };
    /// What a pointer action needs: click, check, select, drag.
    pub const POINTER: Needs = Needs {
        visible: true,
        enabled: true,
        stable: true,
        editable: Editable::No,
    };
    /// Hover: the pointer over it, whether it is enabled or not.
    pub const HOVER: Needs = Needs {
        visible: true,
        enabled: false,
        stable: true,
        editable: Editable::No,
    };
    /// Keys go to a visible, enabled element.
    pub const KEYS: Needs = Needs {
        visible: true,
        enabled: true,
        stable: false,
        editable: Editable::No,
    };
    pub const TEXT: Needs = Needs {
        visible: true,
        enabled: true,
        stable: true,
        editable: Editable::Text,
    };
    pub const VALUE: Needs = Needs {
        visible: true,
        enabled: true,
        stable: true,
        editable: Editable::Value,
    };

    /// The rungs this climbs, by name, the match first.
    pub fn names(&self) -> Vec<&'static str> {
        let mut names = vec!["found"];
        for (needed, rung) in [
            (self.visible, Rung::Visible),
            (self.enabled, Rung::Enabled),
            (self.stable, Rung::Stable),
            (self.editable != Editable::No, Rung::Editable),
        ] {
            if needed {
                names.push(rung.as_str());
            }
        }
        names
    }

    /// The first rung (after the match and before `Stable`) the node fails.
    fn failing(&self, node: &Node) -> Option<Rung> {
        if self.visible && !is_shown(node) {
            return Some(Rung::Visible);
        }
        if self.enabled && node.has_state(&State::Disabled) {
            return Some(Rung::Enabled);
        }
        let editable = match self.editable {
            Editable::No => true,
            Editable::Text => takes_text(node) && !node.has_state(&State::ReadOnly),
            Editable::Value => !node.has_state(&State::ReadOnly),
        };
        (!editable).then_some(Rung::Editable)
    }
}

/// Roles a person types into.
const TEXT_ROLES: &[Role] = &[Role::TextField, Role::ComboBox, Role::Search];

pub(crate) fn takes_text(node: &Node) -> bool {
    TEXT_ROLES.contains(&node.role)
        || node.has_action(&Action::SetValue)
        || node.has_action(&Action::InsertText)
}

/// The one element that passed the ladder, in the read it passed in.
pub(crate) struct Ready {
    pub tree: Tree,
    pub at: usize,
}

impl Ready {
    pub fn node(&self) -> &Node {
        &self.tree.nodes[self.at]
    }

    pub fn window(&self) -> WindowId {
        self.tree.window
    }
}

/// What the last read showed, for the timeout message.
enum LastSeen {
    NotFound(Vec<Node>),
    Failing(Rung, Node),
    Moving(Option<Bounds>, Node),
    Error(Error),
}

impl Locator {
    /// Climbs the ladder until every rung holds or the poller's deadline
    /// passes. More than one match fails at once with `ambiguous`.
    pub(crate) fn wait_ready(
        &self,
        what: &str,
        needs: Needs,
        poller: &mut Poller,
    ) -> Result<Ready> {
        self.wait_ready_by(what, needs, poller, Locator::read)
    }

    /// As [`Locator::wait_ready`], reading the window with `read`: for
    /// actions that look at nothing but the match, [`Locator::read_matches`].
    pub(crate) fn wait_ready_by(
        &self,
        what: &str,
        needs: Needs,
        poller: &mut Poller,
        read: fn(&Locator) -> Result<Read>,
    ) -> Result<Ready> {
        let mut previous: Option<(ElementId, Option<Bounds>)> = None;
        // Every pass of the loop sets what it saw before the deadline is checked.
        let mut last: LastSeen;
        loop {
            let mut quick = false;
            match read(self) {
                Ok(read) => {
                    poller.watch(read.window());
                    match read.matches.len() {
                        0 => {
                            last = LastSeen::NotFound(self.hidden_matches(&read.tree));
                            previous = None;
                        }
                        1 => {
                            let at = read.matches[0];
                            let node = read.node(at);
                            let now = (node.id, node.bounds);
                            // Two reads in a row with the same bounds: this wait's
                            // own, or on its first read the window's read before
                            // (an earlier action's or check's, moments ago).
                            let seen_before = read.before.as_ref().and_then(|b| b.get(&node.id));
                            // The one match in the same place: by its bounds,
                            // as some toolkits make their items anew at every
                            // read (Qt's tree views), each with another id.
                            let steady = previous
                                .is_some_and(|(_, was)| was.is_some() && was == node.bounds)
                                || (previous.is_none()
                                    && node.bounds.is_some()
                                    && seen_before == node.bounds.as_ref());
                            let before = previous.filter(|(id, _)| *id == node.id);
                            previous = Some(now);
                            if let Some(rung) = needs.failing(node) {
                                last = LastSeen::Failing(rung, node.clone());
                            } else if !needs.stable || steady {
                                let Read { tree, .. } = read;
                                self.trace_ready(&needs.names(), tree.window, &tree.nodes[at]);
                                return Ok(Ready { tree, at });
                            } else {
                                // A first look needs one more read, soon; a move needs a pause.
                                quick = before.is_none();
                                last = LastSeen::Moving(before.and_then(|(_, b)| b), node.clone());
                            }
                        }
                        _ => return Err(ambiguous(self, &read, what)),
                    }
                }
                Err(e) if worth_retrying(&e) => last = LastSeen::Error(e),
                Err(e) => return Err(e),
            }
            self.trace_waiting(&last);
            if poller.expired() {
                return Err(self.gave_up(what, poller, last));
            }
            if quick {
                poller.settle()?;
            } else {
                poller.wait()?;
            }
        }
    }

    /// Tells the trace what this read of the ladder waits on.
    fn trace_waiting(&self, last: &LastSeen) {
        let (rung, node) = match last {
            LastSeen::NotFound(_) => ("found", None),
            LastSeen::Failing(rung, node) => (rung.as_str(), Some(node)),
            LastSeen::Moving(_, node) => (Rung::Stable.as_str(), Some(node)),
            LastSeen::Error(_) => ("read", None),
        };
        self.trace_rung(rung, node, || match last {
            LastSeen::NotFound(hidden) if hidden.is_empty() => "no element matches".into(),
            LastSeen::NotFound(hidden) => format!("only hidden: {}", describe_node(&hidden[0])),
            LastSeen::Failing(rung, node) => format!("{}: {}", rung.why(), describe_node(node)),
            LastSeen::Moving(_, node) => format!("bounds not yet steady: {}", describe_node(node)),
            LastSeen::Error(e) => e.message.clone(),
        });
    }

    fn gave_up(&self, what: &str, poller: &Poller, last: LastSeen) -> Error {
        let waited = human(poller.timeout());
        let not_actionable = |rung: Rung, seen: String| {
            Error::new(
                ErrorCode::NotActionable,
                format!(
                    "{what}: {self} was not {} after {waited} ({}); last read: {seen}",
                    rung.as_str(),
                    rung.why()
                ),
            )
        };
        match last {
            LastSeen::NotFound(hidden) => not_found(self, what, poller.timeout(), &hidden),
            LastSeen::Failing(rung, node) => not_actionable(rung, describe_node(&node)),
            LastSeen::Moving(before, node) => {
                let from = before
                    .map(|b| format!("moved from ({}, {}) {}x{}; ", b.x, b.y, b.width, b.height))
                    .unwrap_or_default();
                not_actionable(Rung::Stable, format!("{from}{}", describe_node(&node)))
            }
            LastSeen::Error(e) => Error {
                message: format!(
                    "{what}: {self}: still failing after {waited}: {}",
                    e.message
                ),
                ..e
            },
        }
    }
}
