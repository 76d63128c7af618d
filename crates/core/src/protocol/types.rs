//! What the app answers: windows, elements and their fields.

use super::names::{Action, AutoComplete, Current, HasPopup, NameSource, Role, State, WindowKind};
use super::number;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::fmt;
use std::str::FromStr;

/// A window's id, as `windows` lists it.
pub type WindowId = u64;

/// An element's id: 64 bits, written as a string of digits so that
/// JavaScript's numbers don't round it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ElementId(pub u64);

impl fmt::Display for ElementId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl FromStr for ElementId {
    type Err = String;

    fn from_str(digits: &str) -> Result<ElementId, String> {
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("element id `{digits}` is not a string of digits"));
        }
        digits
            .parse()
            .map(ElementId)
            .map_err(|_| format!("element id `{digits}` does not fit in 64 bits"))
    }
}

impl Serialize for ElementId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ElementId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let digits = String::deserialize(deserializer)?;
        digits.parse().map_err(serde::de::Error::custom)
    }
}

/// The app's own, lasting name for an element: a string, a boolean or an integer.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ElementKey {
    /// A key that is a boolean.
    Bool(bool),
    /// A key that is an integer.
    Int(i64),
    /// A key that is a string.
    Str(String),
}

impl fmt::Display for ElementKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ElementKey::Bool(b) => write!(f, "{b}"),
            ElementKey::Int(i) => write!(f, "{i}"),
            ElementKey::Str(s) => f.write_str(s),
        }
    }
}

impl From<&str> for ElementKey {
    fn from(key: &str) -> ElementKey {
        ElementKey::Str(key.to_string())
    }
}

/// A rectangle in DIPs.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Bounds {
    /// Left edge.
    #[serde(serialize_with = "number::write")]
    pub x: f64,
    /// Top edge.
    #[serde(serialize_with = "number::write")]
    pub y: f64,
    /// Width.
    #[serde(serialize_with = "number::write")]
    pub width: f64,
    /// Height.
    #[serde(serialize_with = "number::write")]
    pub height: f64,
}

impl Bounds {
    /// A rectangle from its top-left corner and its size.
    pub fn new(x: f64, y: f64, width: f64, height: f64) -> Bounds {
        Bounds {
            x,
            y,
            width,
            height,
        }
    }

    /// Whether the rectangle has no area (a width or height of zero or less).
    pub fn is_empty(&self) -> bool {
        self.width <= 0.0 || self.height <= 0.0
    }

    /// The point in the middle, as `(x, y)`.
    pub fn center(&self) -> (f64, f64) {
        (self.x + self.width / 2.0, self.y + self.height / 2.0)
    }

    /// Whether the two rectangles overlap; touching edges do not count.
    pub fn intersects(&self, other: &Bounds) -> bool {
        self.x < other.x + other.width
            && other.x < self.x + self.width
            && self.y < other.y + other.height
            && other.y < self.y + self.height
    }
}

/// A window, as `windows` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Window {
    /// The window's id, for the `window` param of other methods.
    pub id: WindowId,
    /// The window's title.
    pub title: String,
    /// Native UI (`content`) or a web page (`page`).
    pub kind: WindowKind,
    /// The page's address, for a `page` window; `None` for native UI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The whole window on the screen, decorations included.
    pub bounds: Bounds,
    /// The window's content, without decorations.
    pub content_bounds: Bounds,
    /// Whether the app calls this window active.
    pub focused: bool,
    /// Whether the window is shown.
    pub visible: bool,
    /// Fields a newer server sends that this build does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One element of a window, with the fields it has.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    /// The element's id in this window.
    pub id: ElementId,
    /// The element's parent; `None` at the top of the tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<ElementId>,
    /// What the element is.
    pub role: Role,
    /// The app's own lasting name for the element, when it gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<ElementKey>,
    /// The element's name as a person reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The element's value: a field's text, a slider's number as text, a choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The hint an empty text field shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
    /// A longer description (often the tooltip).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Where the element is, relative to the window's content; `None` when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<Bounds>,
    /// The states it is in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub states: Vec<State>,
    /// What `act` can do to it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<Action>,
    /// A range's lowest value (sliders, progress bars, meters, steppers).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "number::write_opt"
    )]
    pub min: Option<f64>,
    /// A range's highest value.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "number::write_opt"
    )]
    pub max: Option<f64>,
    /// A range's current value.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "number::write_opt"
    )]
    pub now: Option<f64>,
    /// A range's step between values.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "number::write_opt"
    )]
    pub step: Option<f64>,
    /// The selected runes `[start, end)` of a text field; equal for a caret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<[u32; 2]>,
    /// Nesting level (a heading's, a tree item's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<i64>,
    /// Place in its set, from 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pos_in_set: Option<i64>,
    /// Number of items in its set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_size: Option<i64>,
    /// A table's number of rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row_count: Option<i64>,
    /// A table's number of columns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub col_count: Option<i64>,
    /// A cell's row, from 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row_index: Option<i64>,
    /// A cell's column, from 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub col_index: Option<i64>,
    /// How many rows a cell spans.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row_span: Option<i64>,
    /// How many columns a cell spans.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub col_span: Option<i64>,
    /// What the element is the current one of (`aria-current`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current: Option<Current>,
    /// What a field's suggestions complete (`aria-autocomplete`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_complete: Option<AutoComplete>,
    /// The app's own word for the role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role_description: Option<String>,
    /// What kind of popup the element opens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_popup: Option<HasPopup>,
    /// Ids of the elements this one controls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub controls: Vec<ElementId>,
    /// Ids of the elements that describe this one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub described_by: Vec<ElementId>,
    /// Ids of the elements that show this one's error.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub error_message: Vec<ElementId>,
    /// Keys that press or focus the element, separated by spaces (`Ctrl+K`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_shortcuts: Option<String>,
    /// Marks a web view shown inside native UI; its page's elements are not in the tree.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub web_view: bool,
    /// uidrive's addition: only some of the element's children are in the
    /// tree (those on screen), because it manages its descendants or has too
    /// many to read (a spreadsheet).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// uidrive's addition: where `label` came from when it is not the
    /// element's own accessible name (a label beside it, text inside it, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_source: Option<NameSource>,
    /// uidrive's addition, with `truncated`: how many children the element reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_count: Option<i64>,
    /// uidrive's addition: the element's class names as its toolkit gives
    /// them: a web page's `class` attribute split at spaces (Firefox,
    /// Chromium), or the toolkit's own class of the widget (Chromium's views).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub classes: Vec<String>,
    /// uidrive's addition: the element's tag name where the toolkit gives
    /// one (`input`, `button`; Firefox's own `toolbarbutton`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// Fields a newer server sends that this build does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

// Role comes from a macro that cannot mark a default variant.
#[allow(clippy::derivable_impls)]
impl Default for Role {
    fn default() -> Role {
        Role::Group
    }
}

impl Node {
    /// Whether the element is in `state`.
    pub fn has_state(&self, state: &State) -> bool {
        self.states.contains(state)
    }

    /// Whether `act` can do `action` to the element.
    pub fn has_action(&self, action: &Action) -> bool {
        self.actions.contains(action)
    }

    /// What a person reads on the element: its label, else its value.
    pub fn text(&self) -> Option<&str> {
        self.label
            .as_deref()
            .filter(|l| !l.is_empty())
            .or(self.value.as_deref())
    }
}

/// The answer to `windows`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct WindowList {
    /// The app's windows.
    pub windows: Vec<Window>,
    /// Fields a newer server sends that this build does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `tree`: the window's elements in tree order, a parent before its children.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Tree {
    /// The window read.
    pub window: WindowId,
    /// The element with the keyboard focus; `None` when none in this window has it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus: Option<ElementId>,
    /// The elements, every parent before its children.
    pub nodes: Vec<Node>,
    /// What the app announced to assistive technology, when the server reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub announcements: Option<Vec<Value>>,
    /// Fields a newer server sends that this build does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Tree {
    /// The element with id `id`, if the tree holds it.
    pub fn node(&self, id: ElementId) -> Option<&Node> {
        self.nodes.iter().find(|n| n.id == id)
    }

    /// The element with the keyboard focus, if the tree holds it.
    pub fn focused(&self) -> Option<&Node> {
        self.focus.and_then(|id| self.node(id))
    }
}

/// The answer to `capture`: a PNG of `width` × `height` device pixels (base64 on the wire).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Capture {
    /// The PNG file's bytes (decoded from base64).
    #[serde(with = "super::base64_bytes")]
    pub png: Vec<u8>,
    /// Width in device pixels.
    pub width: u32,
    /// Height in device pixels.
    pub height: u32,
    /// uidrive's addition: part of the window lies off the screen and is
    /// not in the picture; `width` and `height` are what is.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub clipped: bool,
    /// Fields a newer server sends that this build does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `eval`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalResult {
    /// The script's value; `null` when it has none.
    #[serde(default)]
    pub value: Value,
}

/// The answer to `hello`: who the server is and what it can do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hello {
    /// The protocol version the server speaks ([`super::PROTOCOL_VERSION`] for this build).
    pub protocol: u32,
    /// The server's name and version, as `uidrive 0.1.0 (atspi)`.
    pub server: String,
    /// The methods it answers.
    pub methods: Vec<String>,
    /// The `act` actions it knows.
    pub actions: Vec<String>,
    /// Fields a newer server sends that this build does not know (uidrive's `idleParams`).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Hello {
    /// What a server that answers `unknown_method` to `hello` is taken to be.
    pub fn protocol_1() -> Hello {
        Hello {
            protocol: 1,
            server: "unknown (protocol 1, no hello)".into(),
            methods: super::Method::PROTOCOL_1
                .iter()
                .map(|m| m.as_str().to_string())
                .collect(),
            actions: Action::ALL.iter().map(|a| a.as_str().to_string()).collect(),
            extra: Map::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_and_tag_are_written_only_when_the_toolkit_gives_them() {
        let plain = Node {
            id: ElementId(1),
            role: Role::TextField,
            ..Node::default()
        };
        assert_eq!(
            serde_json::to_value(&plain).unwrap(),
            serde_json::json!({"id": "1", "role": "textField"})
        );
        let web = Node {
            key: Some(ElementKey::from("zip")),
            classes: vec!["field".into(), "narrow".into()],
            tag: Some("input".into()),
            ..plain
        };
        let line = serde_json::json!({
            "id": "1", "role": "textField", "key": "zip",
            "classes": ["field", "narrow"], "tag": "input"
        });
        assert_eq!(serde_json::to_value(&web).unwrap(), line);
        assert_eq!(serde_json::from_value::<Node>(line).unwrap(), web);
    }
}
