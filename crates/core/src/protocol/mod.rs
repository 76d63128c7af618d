//! The automation protocol: newline-delimited JSON over a Unix socket.
//!
//! Types here match `docs/protocol.md` field for field. Answers are read
//! leniently (unknown fields, roles, states and codes are kept); requests are
//! checked before they leave, with errors that name the field.

mod desktop;
mod event;
mod keys;
mod names;
mod params;
mod types;
pub mod wire;

pub use desktop::{AppList, DesktopApp, ManageWindowParams, WindowOp, WindowState};
pub use event::{Event, EventKind, WaitEventParams};
pub use keys::{Key, KeyChord, Modifier, NamedKey};
pub use names::{Action, AutoComplete, Current, HasPopup, NameSource, Role, State, WindowKind};
pub use params::{
    click_count, input_limits, wheel_clicks, ActParams, CaptureParams, CellAtParams,
    ElementAtParams, EvalParams, HelloParams, IdleParams, InputEvent, InputParams, MenuParams,
    MouseButton, NoParams, PointerButton, TreeParams, WindowParams, MAX_TIMEOUT_MS,
};
pub use types::{
    Bounds, Capture, ElementId, ElementKey, EvalResult, Hello, Node, Tree, Window, WindowId,
    WindowList,
};

/// The protocol version this build speaks, as `hello` reports it.
pub const PROTOCOL_VERSION: u32 = 1;

/// The field of `hello`'s answer (uidrive's addition) that lists the params
/// the server's `idle` takes, as `["window", "timeout", "quiet"]`; a client
/// sends `quiet` only to a server that lists it.
pub const IDLE_PARAMS: &str = "idleParams";

/// `hello`'s extra fields for a driver whose `idle` takes `quiet`.
pub fn idle_takes_quiet() -> serde_json::Map<String, serde_json::Value> {
    let mut extra = serde_json::Map::new();
    extra.insert(
        IDLE_PARAMS.into(),
        serde_json::json!(["window", "timeout", "quiet"]),
    );
    extra
}

macro_rules! methods {
    ($($variant:ident => $wire:literal),+ $(,)?) => {
        /// A protocol method.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Method { $(#[doc = concat!("`", $wire, "`.")] $variant),+ }

        impl Method {
            /// Every method this build knows, additions included.
            pub const ALL: &'static [Method] = &[$(Method::$variant),+];

            /// The method's name on the wire.
            pub fn as_str(self) -> &'static str {
                match self { $(Method::$variant => $wire),+ }
            }

            /// The method named `wire`, or `None` for a name this build does not know.
            pub fn parse(wire: &str) -> Option<Method> {
                match wire { $($wire => Some(Method::$variant),)+ _ => None }
            }
        }
    };
}

methods! {
    Hello => "hello",
    Windows => "windows",
    Tree => "tree",
    Act => "act",
    Input => "input",
    Menu => "menu",
    Capture => "capture",
    Eval => "eval",
    Idle => "idle",
    ElementAt => "elementAt",
    CellAt => "cellAt",
    WaitEvent => "waitEvent",
    ManageWindow => "manageWindow",
    Apps => "apps",
    CaptureScreen => "captureScreen",
}

impl Method {
    /// The eight methods of protocol 1, without the `hello` addition.
    pub const PROTOCOL_1: &'static [Method] = &[
        Method::Windows,
        Method::Tree,
        Method::Act,
        Method::Input,
        Method::Menu,
        Method::Capture,
        Method::Eval,
        Method::Idle,
    ];
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Numbers are written as integers when they are whole, as the protocol's examples do.
pub(crate) mod number {
    use serde::Serializer;

    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53

    pub fn write<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
        if value.fract() == 0.0 && value.abs() < EXACT {
            serializer.serialize_i64(*value as i64)
        } else {
            serializer.serialize_f64(*value)
        }
    }

    pub fn write_opt<S: Serializer>(value: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(v) => write(v, serializer),
            None => serializer.serialize_none(),
        }
    }
}

/// Bytes as base64 text, as `capture` sends its PNG.
pub(crate) mod base64_bytes {
    use base64::Engine;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&base64::engine::general_purpose::STANDARD.encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        base64::engine::general_purpose::STANDARD
            .decode(text.as_bytes())
            .map_err(|e| serde::de::Error::custom(format!("png is not base64: {e}")))
    }
}
