//! uidrive's desktop additions to the protocol: managing a window as a
//! window manager does (`manageWindow`), the apps on the desktop (`apps`)
//! and a capture of the whole screen (`captureScreen`).

use super::params::field_error;
use super::types::{Bounds, WindowId};
use crate::error::Result;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What `manageWindow` does to the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WindowOp {
    /// Nothing: reads the window's bounds, states and place in the stack.
    Read,
    /// The window's content to `x`, `y` on the screen.
    Move,
    /// The window's content to `width` × `height`.
    Resize,
    /// Minimized (iconified).
    Minimize,
    /// Maximized both ways.
    Maximize,
    /// Neither minimized, maximized nor fullscreen.
    Restore,
    /// Raised and given the focus.
    Focus,
    /// Asked to close, as the close button of its title bar asks.
    Close,
}

impl WindowOp {
    /// The op's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            WindowOp::Read => "read",
            WindowOp::Move => "move",
            WindowOp::Resize => "resize",
            WindowOp::Minimize => "minimize",
            WindowOp::Maximize => "maximize",
            WindowOp::Restore => "restore",
            WindowOp::Focus => "focus",
            WindowOp::Close => "close",
        }
    }
}

/// Params of `manageWindow` (uidrive's addition).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManageWindowParams {
    /// The window, or the focused one (else the first) when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowId>,
    /// What to do.
    pub op: WindowOp,
    /// `move`: where the window's content goes, in screen pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// `move`: see `x`.
    pub y: Option<i32>,
    /// `resize`: the content's new size, in screen pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// `resize`: see `width`.
    pub height: Option<u32>,
    /// How long the effect may take to show, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
}

impl ManageWindowParams {
    /// `op` alone on `window`.
    pub fn new(window: Option<WindowId>, op: WindowOp) -> ManageWindowParams {
        ManageWindowParams {
            window,
            op,
            x: None,
            y: None,
            width: None,
            height: None,
            timeout: None,
        }
    }

    /// Checks that `move` has its place and `resize` its size (`invalid_request`).
    pub fn validate(&self) -> Result<()> {
        match self.op {
            WindowOp::Move if self.x.is_none() || self.y.is_none() => {
                Err(field_error("manageWindow.x", "a move needs both x and y"))
            }
            WindowOp::Resize => match (self.width, self.height) {
                (Some(w), Some(h)) if w > 0 && h > 0 && w <= 32_767 && h <= 32_767 => Ok(()),
                _ => Err(field_error(
                    "manageWindow.width",
                    "a resize needs a width and a height from 1 to 32767 pixels",
                )),
            },
            WindowOp::Move
                if !(-32_768..=32_767).contains(&self.x.unwrap_or(0))
                    || !(-32_768..=32_767).contains(&self.y.unwrap_or(0)) =>
            {
                Err(field_error(
                    "manageWindow.x",
                    "a place from -32768 to 32767 pixels",
                ))
            }
            _ => Ok(()),
        }
    }
}

/// The answer to `manageWindow`: the window as the window manager shows it
/// once the effect showed (it fails when the effect does not show).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WindowState {
    /// The window's id, as `windows` lists it.
    pub id: WindowId,
    /// The window's content on the screen (what `move` places and `resize`
    /// sizes), as `windows` gives its `contentBounds`; the whole window,
    /// the window manager's frame included, is in `extra` as `frame`.
    pub bounds: Bounds,
    /// Which of `minimized`, `maximized`, `fullscreen`, `focused`, `above` hold.
    pub states: Vec<String>,
    /// Its place in the stacking order, from 0 at the bottom (front =
    /// highest); `None` when not stacked (closed, or not managed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub z_index: Option<u32>,
    /// `confirmed`: the effect was read back; `read` for `op: read`.
    pub effect: String,
    /// The window is gone (after `close`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub closed: bool,
    /// Fields a newer server sends that this build does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One app on the desktop's accessibility bus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DesktopApp {
    /// Its accessible name (as `gtk3-widget-factory`).
    pub name: String,
    /// Its process.
    pub pid: u32,
    /// The toolkit's own name (`gtk`, `Qt`, `Gecko`...).
    pub toolkit: String,
    /// Its windows' titles.
    pub windows: Vec<String>,
    /// Fields a newer server sends that this build does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `apps`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AppList {
    /// The apps, in the registry's order.
    pub apps: Vec<DesktopApp>,
    /// Fields a newer server sends that this build does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_needs_its_place_and_a_resize_its_size() {
        let mut p = ManageWindowParams::new(None, WindowOp::Move);
        assert!(p.validate().is_err());
        p.x = Some(10);
        p.y = Some(-5);
        assert!(p.validate().is_ok());
        let mut r = ManageWindowParams::new(Some(1), WindowOp::Resize);
        r.width = Some(900);
        assert!(r.validate().is_err());
        r.height = Some(0);
        assert!(r.validate().is_err());
        r.height = Some(700);
        assert!(r.validate().is_ok());
        let wire = serde_json::to_value(&r).unwrap();
        assert_eq!(
            wire,
            serde_json::json!({"window": 1, "op": "resize", "width": 900, "height": 700})
        );
        assert!(ManageWindowParams::new(None, WindowOp::Close)
            .validate()
            .is_ok());
    }
}
