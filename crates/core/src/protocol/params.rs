//! What the client asks: each method's params, and the checks made before a request leaves.

use super::keys::{KeyChord, Modifier};
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowId>,
}

pub type TreeParams = WindowParams;
pub type CaptureParams = WindowParams;

/// Params of `act`: an action on the element with `id`, or with `key` when one element has it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<ElementId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<ElementKey>,
    pub action: Action,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<u32>,
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

    pub fn in_window(mut self, window: Option<WindowId>) -> ActParams {
        self.window = window;
        self
    }

    pub fn with_text(mut self, text: impl Into<String>) -> ActParams {
        self.text = Some(text.into());
        self
    }

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

/// The mouse button of a pointer event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum MouseButton {
    #[default]
    Left,
    Right,
    Middle,
}

/// Fields of `pointerDown`, `pointerUp` and `click`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointerButton {
    #[serde(serialize_with = "number::write")]
    pub x: f64,
    #[serde(serialize_with = "number::write")]
    pub y: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button: Option<MouseButton>,
    /// How many presses: 2 for a double click, 3 for a triple click.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clicks: Option<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mods: Vec<Modifier>,
}

impl PointerButton {
    pub fn at(x: f64, y: f64) -> PointerButton {
        PointerButton {
            x,
            y,
            button: None,
            clicks: None,
            mods: Vec::new(),
        }
    }

    pub fn button(&self) -> MouseButton {
        self.button.unwrap_or_default()
    }

    pub fn clicks(&self) -> u32 {
        self.clicks.unwrap_or(1)
    }
}

/// One event of an `input` request. Coordinates are DIPs relative to the window's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
pub enum InputEvent {
    PointerMove {
        #[serde(serialize_with = "number::write")]
        x: f64,
        #[serde(serialize_with = "number::write")]
        y: f64,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        mods: Vec<Modifier>,
    },
    PointerDown(PointerButton),
    PointerUp(PointerButton),
    /// A move, then a press and a release for each click.
    Click(PointerButton),
    Wheel {
        #[serde(serialize_with = "number::write")]
        x: f64,
        #[serde(serialize_with = "number::write")]
        y: f64,
        #[serde(serialize_with = "number::write")]
        dx: f64,
        #[serde(serialize_with = "number::write")]
        dy: f64,
        /// Scroll as a touchpad does, by exact amounts.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        precise: bool,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        mods: Vec<Modifier>,
    },
    KeyDown {
        key: KeyChord,
    },
    KeyUp {
        key: KeyChord,
    },
    /// Presses and releases the key; types no text.
    Key {
        key: KeyChord,
    },
    /// Text typed, or committed by an input method.
    Text {
        text: String,
    },
}

impl InputEvent {
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

    fn validate(&self, at: usize) -> Result<()> {
        let field = |name: &str| format!("input.events[{at}].{name}");
        let finite = |name: &str, v: f64| {
            if v.is_finite() {
                Ok(())
            } else {
                Err(field_error(&field(name), "must be a finite number"))
            }
        };
        match self {
            InputEvent::PointerMove { x, y, .. } => {
                finite("x", *x)?;
                finite("y", *y)
            }
            InputEvent::PointerDown(p) | InputEvent::PointerUp(p) | InputEvent::Click(p) => {
                finite("x", p.x)?;
                finite("y", p.y)?;
                match p.clicks {
                    Some(0) => Err(field_error(&field("clicks"), "must be at least 1")),
                    Some(n) if n > 3 => Err(field_error(&field("clicks"), "must be 1, 2 or 3")),
                    _ => Ok(()),
                }
            }
            InputEvent::Wheel { x, y, dx, dy, .. } => {
                finite("x", *x)?;
                finite("y", *y)?;
                finite("dx", *dx)?;
                finite("dy", *dy)
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

/// Params of `input`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowId>,
    pub events: Vec<InputEvent>,
}

impl InputParams {
    pub fn validate(&self) -> Result<()> {
        if self.events.is_empty() {
            return Err(field_error(
                "input.events",
                "is empty; send at least one event",
            ));
        }
        self.events
            .iter()
            .enumerate()
            .try_for_each(|(at, event)| event.validate(at))
    }
}

/// Params of `menu`: the labels along the menu bar's path, as `["File", "New Window"]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MenuParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowId>,
    pub path: Vec<String>,
}

impl MenuParams {
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowId>,
    pub script: String,
}

/// Params of `idle`: `timeout` in milliseconds.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdleParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
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
