//! A window managed as a person manages it through the window manager:
//! moved, resized, minimized, maximized, restored, focused, closed, each
//! confirmed by reading its effect back (`manageWindow`); and the window an
//! action opens, found by its appearance.

use super::resolve::list_or_none;
use super::{WindowChoice, WindowRef};
use crate::app::App;
use crate::error::{Error, ErrorCode, Result};
use crate::protocol::{
    AppList, Bounds, Capture, ManageWindowParams, Window, WindowId, WindowOp, WindowState,
};

impl WindowRef {
    /// The window's id as `manageWindow` takes it: `None` for the focused
    /// window (else the first); a titled window must be exactly one.
    fn manage_target(&self) -> Result<Option<WindowId>> {
        match &self.window {
            WindowChoice::Default => Ok(None),
            WindowChoice::Id(id) => Ok(Some(*id)),
            WindowChoice::Titled(title) => {
                let list = self.driver.windows()?;
                let found: Vec<&Window> = list
                    .windows
                    .iter()
                    .filter(|w| title.matches(&w.title))
                    .collect();
                match found.as_slice() {
                    [one] => Ok(Some(one.id)),
                    [] => Err(Error::no_window(format!(
                        "no window is titled {title}; the windows are {}",
                        list_or_none(list.windows.iter().map(|w| format!("{:?}", w.title)))
                    ))
                    .with_suggestion("list the windows (`windows`) and use one's id")),
                    many => Err(Error::new(
                        ErrorCode::Ambiguous,
                        format!("{} windows are titled {title}", many.len()),
                    )
                    .with_suggestion("use the window's id, or an exact title")),
                }
            }
        }
    }

    /// Runs `op` on the window and waits (up to the action timeout) for its
    /// effect to show; the window as it is then.
    pub fn manage(&self, mut params: ManageWindowParams) -> Result<WindowState> {
        params.window = self.manage_target()?;
        if params.timeout.is_none() {
            params.timeout = Some(self.timeouts.action.as_millis() as u64);
        }
        params.validate()?;
        self.driver.manage_window(&params)
    }

    fn op(&self, op: WindowOp) -> Result<WindowState> {
        self.manage(ManageWindowParams::new(None, op))
    }

    /// Moves the window's content to `x`, `y` on the screen.
    pub fn move_to(&self, x: i32, y: i32) -> Result<WindowState> {
        self.manage(ManageWindowParams {
            x: Some(x),
            y: Some(y),
            ..ManageWindowParams::new(None, WindowOp::Move)
        })
    }

    /// Resizes the window's content to `width` × `height`.
    pub fn resize(&self, width: u32, height: u32) -> Result<WindowState> {
        self.manage(ManageWindowParams {
            width: Some(width),
            height: Some(height),
            ..ManageWindowParams::new(None, WindowOp::Resize)
        })
    }

    /// Minimizes (iconifies) the window.
    pub fn minimize(&self) -> Result<WindowState> {
        self.op(WindowOp::Minimize)
    }

    /// Maximizes the window.
    pub fn maximize(&self) -> Result<WindowState> {
        self.op(WindowOp::Maximize)
    }

    /// Shows the window again, neither minimized, maximized nor fullscreen.
    pub fn restore(&self) -> Result<WindowState> {
        self.op(WindowOp::Restore)
    }

    /// Raises the window and gives it the focus.
    pub fn focus(&self) -> Result<WindowState> {
        self.op(WindowOp::Focus)
    }

    /// Asks the window to close, as its title bar's close button does, and
    /// waits for it to go (an app that asks first, "save changes?", keeps it).
    pub fn close(&self) -> Result<WindowState> {
        self.op(WindowOp::Close)
    }

    /// The window's content on the screen.
    pub fn bounds(&self) -> Result<Bounds> {
        Ok(self.op(WindowOp::Read)?.bounds)
    }

    /// Which of `minimized`, `maximized`, `fullscreen`, `focused`, `above` hold.
    pub fn states(&self) -> Result<Vec<String>> {
        Ok(self.op(WindowOp::Read)?.states)
    }
}

impl App {
    /// Every app on the desktop's accessibility bus.
    pub fn apps(&self) -> Result<AppList> {
        self.driver().apps()
    }

    /// The whole screen as a PNG.
    pub fn capture_screen(&self) -> Result<Capture> {
        self.driver().capture_screen()
    }
}
