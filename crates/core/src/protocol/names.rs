//! The protocol's closed vocabularies: roles, states, actions and friends.
//!
//! Each is a string on the wire. A name a newer server sends that this build
//! does not know is kept as `Other(name)` and written back unchanged.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

macro_rules! open_names {
    ($(#[$meta:meta])* $name:ident { $($variant:ident => $wire:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $(#[doc = concat!("`", $wire, "` on the wire.")] $variant,)+
            /// A name this build does not know, kept as sent.
            Other(String),
        }

        impl $name {
            /// Every name this build knows.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The name as it is on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    $($name::$variant => $wire,)+
                    $name::Other(name) => name,
                }
            }

            /// The known name for `wire`, or `Other` for a name this build does not know.
            pub fn parse(wire: &str) -> $name {
                match wire {
                    $($wire => $name::$variant,)+
                    other => $name::Other(other.to_string()),
                }
            }

            /// Whether this build knows the name.
            pub fn is_known(&self) -> bool {
                !matches!(self, $name::Other(_))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let wire = String::deserialize(deserializer)?;
                Ok($name::parse(&wire))
            }
        }
    };
}

open_names! {
    /// What an element is, as assistive technology names it.
    Role {
        Group => "group", Text => "text", Button => "button", Link => "link",
        CheckBox => "checkBox", Radio => "radio", Switch => "switch", Slider => "slider",
        Progress => "progress", TextField => "textField", Image => "image", List => "list",
        Scroll => "scroll", Dialog => "dialog", Popup => "popup", Tooltip => "tooltip",
        PopUpButton => "popUpButton", TabList => "tabList", Tab => "tab", Splitter => "splitter",
        Status => "status", Table => "table", Row => "row", Cell => "cell",
        ColumnHeader => "columnHeader", Tree => "tree", TreeItem => "treeItem",
        ListItem => "listItem", MenuButton => "menuButton", Toolbar => "toolbar",
        RadioGroup => "radioGroup", ToggleButton => "toggleButton", ComboBox => "comboBox",
        Disclosure => "disclosure", Meter => "meter", Stepper => "stepper",
        ColorWell => "colorWell", AlertDialog => "alertDialog", Menu => "menu",
        MenuBar => "menuBar", MenuItem => "menuItem", MenuItemCheckBox => "menuItemCheckBox",
        MenuItemRadio => "menuItemRadio", Heading => "heading", Region => "region",
        Log => "log", Timer => "timer", Alert => "alert", Separator => "separator",
        RowHeader => "rowHeader", Search => "search", Article => "article",
        Navigation => "navigation", Grid => "grid", TreeGrid => "treeGrid",
        Deletion => "deletion", Insertion => "insertion", TabPanel => "tabPanel",
        Main => "main", Banner => "banner", ContentInfo => "contentInfo",
        Complementary => "complementary",
    }
}

open_names! {
    /// A state an element is in.
    State {
        Focusable => "focusable", Disabled => "disabled", Checked => "checked",
        Mixed => "mixed", Selected => "selected", Expanded => "expanded",
        Multiline => "multiline", Password => "password", ReadOnly => "readOnly",
        Selectable => "selectable", Offscreen => "offscreen",
        Multiselectable => "multiselectable", Segment => "segment", Search => "search",
        Invalid => "invalid", SortAscending => "sortAscending",
        SortDescending => "sortDescending", Expandable => "expandable",
        Vertical => "vertical", Busy => "busy", SortOther => "sortOther",
        Horizontal => "horizontal",
    }
}

open_names! {
    /// What `act` can do to an element.
    Action {
        Press => "press", Focus => "focus", Increment => "increment",
        Decrement => "decrement", SetValue => "setValue", InsertText => "insertText",
        SelectText => "selectText", ScrollIntoView => "scrollIntoView",
        Expand => "expand", Collapse => "collapse",
    }
}

open_names! {
    /// Whether a window shows native UI or a web page.
    WindowKind { Content => "content", Page => "page" }
}

open_names! {
    /// What kind of popup an element opens (`aria-haspopup`).
    HasPopup {
        Menu => "menu", Listbox => "listbox", Tree => "tree", Grid => "grid", Dialog => "dialog",
    }
}

open_names! {
    /// uidrive's addition: where an element's label came from when it is not
    /// the element's own accessible name (see `naming`).
    NameSource {
        LabelledBy => "labelledBy", Content => "content", Placeholder => "placeholder",
        Description => "description", Icon => "icon",
    }
}

open_names! {
    /// What a field's suggestions complete (`aria-autocomplete`).
    AutoComplete { Inline => "inline", List => "list", Both => "both" }
}

/// What an element is the current one of (`aria-current`): `true` or a kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Current {
    /// `current: true`: the current one, of no kind in particular.
    True,
    /// The kind it is the current one of: `page`, `step`, `location`, `date` or `time`.
    Kind(String),
}

impl Serialize for Current {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Current::True => serializer.serialize_bool(true),
            Current::Kind(kind) => serializer.serialize_str(kind),
        }
    }
}

impl<'de> Deserialize<'de> for Current {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Wire {
            Flag(bool),
            Kind(String),
        }
        match Wire::deserialize(deserializer)? {
            Wire::Flag(true) => Ok(Current::True),
            Wire::Flag(false) => Err(serde::de::Error::custom(
                "`current` is `true` or a kind such as \"page\"; leave it out when false",
            )),
            Wire::Kind(kind) => Ok(Current::Kind(kind)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_names_round_trip_and_unknown_are_kept() {
        for role in Role::ALL {
            assert_eq!(&Role::parse(role.as_str()), role);
        }
        assert_eq!(Role::ALL.len(), 62);
        assert_eq!(State::ALL.len(), 22);
        let json = serde_json::to_string(&Role::parse("hologram")).unwrap();
        assert_eq!(json, "\"hologram\"");
        let back: State = serde_json::from_str("\"glowing\"").unwrap();
        assert_eq!(back, State::Other("glowing".into()));
        assert!(!back.is_known());
    }
}
