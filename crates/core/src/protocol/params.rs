//! What the client asks: each method's params, and the checks made before a request leaves.

use super::keys::{Key, KeyChord, Modifier};
use super::names::Action;
use super::number;
use super::types::{ElementId, ElementKey, WindowId};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Params of `windows`, `hello` and any method that takes none.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

/// Params of `tree` and `capture`: the window, or the focused one (else the first).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WindowParams {
    /// The window, or the focused one (else the first) when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowId>,
}

/// Params of `tree`.
pub type TreeParams = WindowParams;
/// Params of `capture`.
pub type CaptureParams = WindowParams;

/// Params of `act`: an action on the element with `id`, or with `key` when one element has it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActParams {
    /// The window, or the focused one (else the first) when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowId>,
    /// The element, by the id a read gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<ElementId>,
    /// The element, by the app's own key; exactly one element must have it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<ElementKey>,
    /// What to do to the element.
    pub action: Action,
    /// The text of `setValue` and `insertText` (for a range, its number as text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Where `selectText` starts, in runes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<u32>,
    /// Where `selectText` ends, in runes; not before `from`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<u32>,
}

impl ActParams {
    /// An action on the element with `id`, with no text or range.
    pub fn on(id: ElementId, action: Action) -> ActParams {
        ActParams {
            window: None,
            id: Some(id),
            key: None,
            action,
            text: None,
            from: None,
            to: None,
        }
    }

    /// The same action in `window` (`None`: the focused one).
    pub fn in_window(mut self, window: Option<WindowId>) -> ActParams {
        self.window = window;
        self
    }

    /// The same action with `text` (for `setValue` and `insertText`).
    pub fn with_text(mut self, text: impl Into<String>) -> ActParams {
        self.text = Some(text.into());
        self
    }

    /// Checks the request before it is sent: `id` or `key` but not both, the text `setValue` and `insertText` need, `from <= to` for `selectText`, and a known action.
    /// The error is `invalid_request` and names the field.
    pub fn validate(&self) -> Result<()> {
        match (&self.id, &self.key) {
            (None, None) => {
                return Err(field_error(
                    "act.id",
                    "name the element by `id` or by `key`",
                ))
            }
            (Some(_), Some(_)) => {
                return Err(field_error("act.key", "give `id` or `key`, not both"));
            }
            _ => {}
        }
        match self.action {
            Action::SetValue | Action::InsertText if self.text.is_none() => Err(field_error(
                "act.text",
                &format!("`{}` needs the text to put in the element", self.action),
            )),
            Action::SelectText => match (self.from, self.to) {
                (Some(from), Some(to)) if from <= to => Ok(()),
                (Some(_), Some(_)) => Err(field_error("act.from", "`from` must not be after `to`")),
                _ => Err(field_error(
                    "act.from",
                    "`selectText` needs `from` and `to`, in runes",
                )),
            },
            Action::Other(ref name) => Err(field_error(
                "act.action",
                &format!(
                    "`{name}` is not an action; use one of {}",
                    list(Action::ALL.iter().map(|a| a.as_str()))
                ),
            )),
            _ => Ok(()),
        }
    }
}

/// How much one `input` request may ask for. Each bound keeps one request's
/// work small (a few thousand X events at most), so that a single line cannot
/// flood an app; beyond a bound the request is refused with `invalid_request`
/// before anything is sent. docs/protocol.md lists them.
pub mod input_limits {
    /// Events in one request.
    pub const EVENTS: usize = 1_000;
    /// DIPs one `wheel` event may scroll along each axis (100 clicks of 100 DIPs).
    pub const WHEEL_DELTA: f64 = 10_000.0;
    /// Wheel clicks of all the request's `wheel` events together, both axes
    /// (a delta of `d` DIPs is `round(|d| / 100)` clicks, at least one).
    pub const WHEEL_CLICKS: u64 = 1_000;
    /// Presses of one `click`, `pointerDown` or `pointerUp`.
    pub const CLICKS: u32 = 3;
    /// Entries in one event's `mods` (there are five modifiers).
    pub const MODS: usize = 5;
    /// Characters (Unicode scalar values) of all the request's `text` events together.
    pub const TEXT_CHARS: usize = 10_000;
    /// The magnitude of a coordinate, in DIPs.
    pub const COORDINATE: f64 = 1_000_000.0;
}

/// The mouse button of a pointer event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum MouseButton {
    /// The left (primary) button, the default.
    #[default]
    Left,
    /// The right button.
    Right,
    /// The middle button.
    Middle,
}

impl MouseButton {
    /// Every button.
    pub const ALL: [MouseButton; 3] = [MouseButton::Left, MouseButton::Right, MouseButton::Middle];

    /// The button's name on the wire: `left`, `right` or `middle`.
    pub fn as_str(self) -> &'static str {
        match self {
            MouseButton::Left => "left",
            MouseButton::Right => "right",
            MouseButton::Middle => "middle",
        }
    }
}

/// A click's count as a front end was given it (any number): the presses
/// in a row, a whole number from 1 to [`input_limits::CLICKS`]; else why not.
pub fn click_count(count: f64) -> std::result::Result<u32, String> {
    // `as` saturates (NaN is 0); the round trip says whether `count` was whole.
    let clicks = count as u32;
    if f64::from(clicks) == count && (1..=input_limits::CLICKS).contains(&clicks) {
        Ok(clicks)
    } else {
        Err(format!(
            "a click is 1 to {} presses in a row (2: a double click, 3: a triple click)",
            input_limits::CLICKS
        ))
    }
}

impl std::str::FromStr for MouseButton {
    type Err = String;

    /// `left`, `right` or `middle`; the error says so.
    fn from_str(text: &str) -> std::result::Result<MouseButton, String> {
        MouseButton::ALL
            .into_iter()
            .find(|b| b.as_str() == text)
            .ok_or_else(|| format!("{text:?} is not a mouse button: use left, right or middle"))
    }
}

/// Fields of `pointerDown`, `pointerUp` and `click`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointerButton {
    /// Horizontal place in DIPs, relative to the window's content.
    #[serde(serialize_with = "number::write")]
    pub x: f64,
    /// Vertical place in DIPs, relative to the window's content.
    #[serde(serialize_with = "number::write")]
    pub y: f64,
    /// The button; `None` means left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button: Option<MouseButton>,
    /// How many presses: 2 for a double click, 3 for a triple click.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clicks: Option<u32>,
    /// Modifiers held during the event.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mods: Vec<Modifier>,
}

impl PointerButton {
    /// The left button at `(x, y)`, once, with no modifiers.
    pub fn at(x: f64, y: f64) -> PointerButton {
        PointerButton {
            x,
            y,
            button: None,
            clicks: None,
            mods: Vec::new(),
        }
    }

    /// The button, left when none is given.
    pub fn button(&self) -> MouseButton {
        self.button.unwrap_or_default()
    }

    /// The number of presses, 1 when none is given.
    pub fn clicks(&self) -> u32 {
        self.clicks.unwrap_or(1)
    }
}

/// One event of an `input` request. Coordinates are DIPs relative to the window's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
pub enum InputEvent {
    /// Moves the pointer.
    PointerMove {
        /// Horizontal place in DIPs.
        #[serde(serialize_with = "number::write")]
        x: f64,
        /// Vertical place in DIPs.
        #[serde(serialize_with = "number::write")]
        y: f64,
        /// Modifiers held during the move.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        mods: Vec<Modifier>,
    },
    /// Presses a button.
    PointerDown(PointerButton),
    /// Releases a button.
    PointerUp(PointerButton),
    /// A move, then a press and a release for each click.
    Click(PointerButton),
    /// Scrolls at a point.
    Wheel {
        /// Horizontal place in DIPs.
        #[serde(serialize_with = "number::write")]
        x: f64,
        /// Vertical place in DIPs.
        #[serde(serialize_with = "number::write")]
        y: f64,
        /// Horizontal distance to scroll, in DIPs.
        #[serde(serialize_with = "number::write")]
        dx: f64,
        /// Vertical distance to scroll, in DIPs.
        #[serde(serialize_with = "number::write")]
        dy: f64,
        /// Scroll as a touchpad does, by exact amounts.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        precise: bool,
        /// Modifiers held during the scroll.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        mods: Vec<Modifier>,
    },
    /// Presses a key chord; types no text.
    KeyDown {
        /// The chord.
        key: KeyChord,
    },
    /// Releases a key chord.
    KeyUp {
        /// The chord.
        key: KeyChord,
    },
    /// Presses and releases the key; types no text.
    Key {
        /// The chord.
        key: KeyChord,
    },
    /// Text typed, or committed by an input method.
    Text {
        /// The characters, any Unicode.
        text: String,
    },
}

impl InputEvent {
    /// The events of one keystroke of `chord`, as a platform's backend sends
    /// them: the key, and for a key that types (a character key, with at
    /// most Shift) the text it types, since a key event types none.
    pub fn keystroke(chord: KeyChord) -> Vec<InputEvent> {
        let typed = match chord.key {
            Key::Char(_) => chord.typed_char(),
            Key::Named(_) => None,
        };
        let mut events = vec![InputEvent::Key { key: chord }];
        if let Some(c) = typed {
            events.push(InputEvent::Text { text: c.into() });
        }
        events
    }

    /// The event's `type` on the wire, as `pointerMove` or `keyDown`.
    pub fn type_name(&self) -> &'static str {
        match self {
            InputEvent::PointerMove { .. } => "pointerMove",
            InputEvent::PointerDown(_) => "pointerDown",
            InputEvent::PointerUp(_) => "pointerUp",
            InputEvent::Click(_) => "click",
            InputEvent::Wheel { .. } => "wheel",
            InputEvent::KeyDown { .. } => "keyDown",
            InputEvent::KeyUp { .. } => "keyUp",
            InputEvent::Key { .. } => "key",
            InputEvent::Text { .. } => "text",
        }
    }

    /// Checks the event alone; the request's totals are checked by [`InputParams::validate`].
    fn validate(&self, at: usize) -> Result<()> {
        use input_limits as limit;
        let field = |name: &str| format!("input.events[{at}].{name}");
        let coordinate = |name: &str, v: f64| {
            if !v.is_finite() {
                Err(field_error(&field(name), "must be a finite number"))
            } else if v.abs() > limit::COORDINATE {
                Err(field_error(
                    &field(name),
                    &format!(
                        "is {v}; coordinates are at most {} DIPs from the window's corner",
                        limit::COORDINATE
                    ),
                ))
            } else {
                Ok(())
            }
        };
        let mods = |mods: &[Modifier]| {
            if mods.len() > limit::MODS {
                Err(field_error(
                    &field("mods"),
                    &format!(
                        "has {} entries; name each of the {} modifiers at most once",
                        mods.len(),
                        limit::MODS
                    ),
                ))
            } else {
                Ok(())
            }
        };
        match self {
            InputEvent::PointerMove { x, y, mods: m } => {
                coordinate("x", *x)?;
                coordinate("y", *y)?;
                mods(m)
            }
            InputEvent::PointerDown(p) | InputEvent::PointerUp(p) | InputEvent::Click(p) => {
                coordinate("x", p.x)?;
                coordinate("y", p.y)?;
                mods(&p.mods)?;
                match p.clicks {
                    Some(0) => Err(field_error(&field("clicks"), "must be at least 1")),
                    Some(n) if n > limit::CLICKS => Err(field_error(
                        &field("clicks"),
                        &format!("is {n}; it must be 1, 2 or 3"),
                    )),
                    _ => Ok(()),
                }
            }
            InputEvent::Wheel {
                x,
                y,
                dx,
                dy,
                mods: m,
                ..
            } => {
                coordinate("x", *x)?;
                coordinate("y", *y)?;
                mods(m)?;
                for (name, delta) in [("dx", *dx), ("dy", *dy)] {
                    if !delta.is_finite() {
                        return Err(field_error(&field(name), "must be a finite number"));
                    }
                    if delta.abs() > limit::WHEEL_DELTA {
                        return Err(field_error(
                            &field(name),
                            &format!(
                                "is {delta}; one wheel event scrolls at most {} DIPs ({} clicks) per axis",
                                limit::WHEEL_DELTA,
                                wheel_clicks(limit::WHEEL_DELTA)
                            ),
                        )
                        .with_suggestion("scroll in several smaller events, or use scrollIntoView"));
                    }
                }
                Ok(())
            }
            InputEvent::KeyDown { .. } | InputEvent::KeyUp { .. } | InputEvent::Key { .. } => {
                Ok(())
            }
            InputEvent::Text { text } if text.is_empty() => Err(field_error(
                &field("text"),
                "is empty; send the text to type",
            )),
            InputEvent::Text { .. } => Ok(()),
        }
    }
}

/// The wheel clicks a delta of `delta` DIPs is sent as: `round(|d| / 100)`, at
/// least one for a delta that is not zero (as the X11 input does).
pub fn wheel_clicks(delta: f64) -> u64 {
    if delta == 0.0 || !delta.is_finite() {
        return 0;
    }
    (delta.abs() / 100.0).round().max(1.0) as u64
}

/// Params of `input`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputParams {
    /// The window, or the focused one (else the first) when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowId>,
    /// The events, delivered in order.
    pub events: Vec<InputEvent>,
    /// uidrive's addition: keys and buttons the request leaves down stay
    /// down after it (until a later `keyUp` or `pointerUp`, or until the
    /// connection that sent it closes). Without it, a request releases what
    /// it pressed when it ends.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hold: bool,
}

impl InputParams {
    /// Whether any event goes to the keyboard (a key or text): its window
    /// must have the focus first.
    pub fn has_keyboard_events(&self) -> bool {
        self.events.iter().any(|e| {
            matches!(
                e,
                InputEvent::Key { .. }
                    | InputEvent::KeyDown { .. }
                    | InputEvent::KeyUp { .. }
                    | InputEvent::Text { .. }
            )
        })
    }

    /// Checks every event and the request's totals against [`input_limits`].
    pub fn validate(&self) -> Result<()> {
        use input_limits as limit;
        if self.events.is_empty() {
            return Err(field_error(
                "input.events",
                "is empty; send at least one event",
            ));
        }
        if self.events.len() > limit::EVENTS {
            return Err(field_error(
                "input.events",
                &format!(
                    "has {} events; one request takes at most {}",
                    self.events.len(),
                    limit::EVENTS
                ),
            )
            .with_suggestion("send the events in several requests"));
        }
        let mut clicks = 0u64;
        let mut chars = 0usize;
        for (at, event) in self.events.iter().enumerate() {
            event.validate(at)?;
            match event {
                InputEvent::Wheel { dx, dy, .. } => {
                    clicks += wheel_clicks(*dx) + wheel_clicks(*dy);
                    if clicks > limit::WHEEL_CLICKS {
                        return Err(field_error(
                            &format!("input.events[{at}]"),
                            &format!(
                                "brings the request's wheel clicks to {clicks}; one request scrolls at most {} clicks ({} DIPs)",
                                limit::WHEEL_CLICKS,
                                limit::WHEEL_CLICKS * 100
                            ),
                        )
                        .with_suggestion("scroll in several requests, or use scrollIntoView"));
                    }
                }
                InputEvent::Text { text } => {
                    chars += text.chars().count();
                    if chars > limit::TEXT_CHARS {
                        return Err(field_error(
                            &format!("input.events[{at}].text"),
                            &format!(
                                "brings the request's text to {chars} characters; one request types at most {}",
                                limit::TEXT_CHARS
                            ),
                        )
                        .with_suggestion("type long text in several requests, or set it with act setValue"));
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// Params of `menu`: the labels along the menu bar's path, as `["File", "New Window"]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MenuParams {
    /// The window, or the focused one (else the first) when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowId>,
    /// The labels from the menu bar down.
    pub path: Vec<String>,
}

impl MenuParams {
    /// Checks that the path is not empty and that no label is blank (`invalid_request`).
    pub fn validate(&self) -> Result<()> {
        if self.path.is_empty() {
            return Err(field_error(
                "menu.path",
                "is empty; give the labels from the menu bar down, as [\"File\", \"Quit\"]",
            ));
        }
        if let Some(at) = self.path.iter().position(|label| label.trim().is_empty()) {
            return Err(field_error(
                &format!("menu.path[{at}]"),
                "is empty; every label must name a menu item",
            ));
        }
        Ok(())
    }
}

/// Params of `eval`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalParams {
    /// The window, or the focused one (else the first) when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowId>,
    /// The JavaScript to run.
    pub script: String,
}

/// Params of `idle`: `timeout` in milliseconds, and uidrive's addition
/// `quiet`: how long, in milliseconds, the window must send no event once
/// the app has processed what it was sent (none: the server's own rule;
/// 0: settled as soon as a round trip shows the app processed it). A server
/// lists `quiet` in `hello`'s `idleParams` when it takes it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdleParams {
    /// The window, or the focused one (else the first) when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowId>,
    /// The longest wait, in milliseconds; `None` lets the server wait as long as it takes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
    /// How long the window must stay quiet, in milliseconds; `None` uses the server's own rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quiet: Option<u64>,
}

impl IdleParams {
    /// Settles `window` (none: the focused one) within `timeout_ms`, by the server's rule.
    pub fn within(window: Option<WindowId>, timeout_ms: u64) -> IdleParams {
        IdleParams {
            window,
            timeout: Some(timeout_ms),
            quiet: None,
        }
    }
}

/// The longest timeout uidrive takes anywhere, in milliseconds (one hour):
/// an `idle`'s, and every timeout a front end is given (the facade's
/// `time` refuses longer ones). Far beyond any test; a mistaken
/// `UINT32_MAX` (49 days) is refused instead of hanging a run.
pub const MAX_TIMEOUT_MS: u64 = 3_600_000;

impl IdleParams {
    /// Checks `timeout` against [`MAX_TIMEOUT_MS`].
    pub fn validate(&self) -> Result<()> {
        match self.timeout {
            Some(ms) if ms > MAX_TIMEOUT_MS => Err(field_error(
                "idle.timeout",
                &format!("is {ms} ms; the longest is {MAX_TIMEOUT_MS} ms (one hour)"),
            )),
            _ => Ok(()),
        }
    }
}

/// Params of `elementAt` (uidrive's addition): a point in the window's content.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ElementAtParams {
    /// The window, or the focused one (else the first) when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowId>,
    /// Horizontal place in DIPs, relative to the window's content.
    pub x: f64,
    /// Vertical place in DIPs, relative to the window's content.
    pub y: f64,
}

/// Params of `cellAt` (uidrive's addition): a table's cell by its place,
/// counted from 1 as a cell's `rowIndex` and `colIndex` are.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CellAtParams {
    /// The window, or the focused one (else the first) when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowId>,
    /// The table, as a read of the window gave it.
    pub table: ElementId,
    /// The cell's row, from 1.
    pub row: i64,
    /// The cell's column, from 1.
    pub column: i64,
}

impl CellAtParams {
    /// Checks that `row` and `column` are at least 1 (`invalid_request`).
    pub fn validate(&self) -> Result<()> {
        for (field, place) in [("cellAt.row", self.row), ("cellAt.column", self.column)] {
            if place < 1 {
                return Err(field_error(
                    field,
                    "counts from 1, as rowIndex and colIndex do",
                ));
            }
        }
        Ok(())
    }
}

/// Params of `hello`. Both fields are optional; a server ignores what it does not know.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HelloParams {
    /// The highest protocol version the client speaks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<u32>,
    /// The client's name and version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
}

pub(crate) fn field_error(field: &str, problem: &str) -> Error {
    Error::invalid_request(format!("{field} {problem}"))
}

fn list<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names.collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod click_tests {
    use super::*;

    #[test]
    fn click_counts_are_whole_numbers_from_one_to_three() {
        assert_eq!(click_count(1.0), Ok(1));
        assert_eq!(click_count(3.0), Ok(3));
        for bad in [0.0, -1.0, 4.0, 1.5, f64::NAN, f64::INFINITY, 2f64.powi(40)] {
            let why = click_count(bad).unwrap_err();
            assert!(why.contains("1 to 3 presses"), "{bad}: {why}");
        }
        assert_eq!("right".parse::<MouseButton>(), Ok(MouseButton::Right));
        assert!("Right".parse::<MouseButton>().is_err());
    }
}
