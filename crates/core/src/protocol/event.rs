//! Accessibility events, uidrive's addition to the protocol (`waitEvent`):
//! what changed in an app, as the app itself announced it.

use super::types::{ElementId, Node, WindowId};
use super::MAX_TIMEOUT_MS;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// What kind of change an event announces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum EventKind {
    /// An element got the keyboard focus.
    Focus,
    /// An element's value or text changed.
    Value,
    /// An element's accessible name changed.
    Name,
    /// One of an element's states was set or cleared (focus included).
    States,
    /// Elements were added to or removed from an element.
    Children,
    /// A window opened, closed, or was activated or deactivated.
    Window,
}

impl EventKind {
    /// Every kind, in a fixed order (the C ABI numbers them by this order).
    pub const ALL: [EventKind; 6] = [
        EventKind::Focus,
        EventKind::Value,
        EventKind::Name,
        EventKind::States,
        EventKind::Children,
        EventKind::Window,
    ];

    /// The kind's name: `focus`, `value`, `name`, `states`, `children` or `window`.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Focus => "focus",
            EventKind::Value => "value",
            EventKind::Name => "name",
            EventKind::States => "states",
            EventKind::Children => "children",
            EventKind::Window => "window",
        }
    }
}

impl std::fmt::Display for EventKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for EventKind {
    type Err = Error;

    /// A kind by its name; the error lists the names.
    fn from_str(text: &str) -> Result<EventKind> {
        EventKind::ALL
            .into_iter()
            .find(|k| k.as_str() == text)
            .ok_or_else(|| {
                Error::invalid_request(format!(
                    "{text:?} is no event kind: use focus, value, name, states, children or window"
                ))
            })
    }
}

/// Params of `waitEvent` (uidrive's addition): the first event of `kind`
/// since the server's last action (`act`, `input` or `menu`) that no
/// earlier `waitEvent` answered, else the next one to come.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WaitEventParams {
    /// The kind of event.
    pub kind: EventKind,
    /// Only events of this element (for `window`: of this window's element).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<ElementId>,
    /// Milliseconds to wait at most; the server answers `timeout` after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
}

impl WaitEventParams {
    /// Checks `timeout` against [`MAX_TIMEOUT_MS`].
    pub fn validate(&self) -> Result<()> {
        match self.timeout {
            Some(ms) if ms > MAX_TIMEOUT_MS => Err(Error::invalid_request(format!(
                "waitEvent.timeout: {ms} ms is over the most, {MAX_TIMEOUT_MS} ms"
            ))),
            _ => Ok(()),
        }
    }
}

/// An event, as `waitEvent` answers it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// What kind of change it announces.
    pub kind: Option<EventKind>,
    /// The toolkit's own word for the change: the state (`focused`,
    /// `checked`), the property (`accessible-name`), `insert` or `delete`
    /// of text, `add` or `remove` of children, `create`, `destroy`,
    /// `activate` or `deactivate` of a window.
    #[serde(default)]
    pub detail: String,
    /// The element it is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<ElementId>,
    /// The element's window, where it is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowId>,
    /// The element as read once the event came (`None` once it is gone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<Node>,
    /// The new value, where the event has one: a value or text event's
    /// value, a name event's name, `true` or `false` for a state set or cleared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_and_unknown_ones_are_refused_naming_the_kinds() {
        for kind in EventKind::ALL {
            assert_eq!(kind.as_str().parse::<EventKind>().unwrap(), kind);
            let wire = serde_json::to_value(kind).unwrap();
            assert_eq!(wire, kind.as_str());
        }
        let err = "blur".parse::<EventKind>().unwrap_err();
        assert!(
            err.message.contains("focus, value, name"),
            "{}",
            err.message
        );
        let params = WaitEventParams {
            kind: EventKind::Focus,
            element: Some(ElementId(7)),
            timeout: Some(MAX_TIMEOUT_MS + 1),
        };
        assert!(params.validate().is_err());
    }
}
