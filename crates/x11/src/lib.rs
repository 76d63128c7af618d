//! uidrive's X11 side on Linux.
//!
//! - [`Desktop`] (`headless.rs`): a private headless desktop — an Xvfb
//!   display, a D-Bus session bus, the accessibility bus and its registry —
//!   with [`Desktop::env`] for the apps launched on it. Several run side by
//!   side; dropping one ends all of its processes.
//! - [`X11`] (`x11.rs`): a connection to a display: top-level windows by pid
//!   ([`XWindow`]), geometry ([`Rect`]), focus, the `AT_SPI_BUS` root property.
//! - [`X11::send`] (`input.rs`): the protocol's input events as real XTest
//!   input, any Unicode text included ([`WHEEL_DIPS_PER_CLICK`] for `wheel`).
//! - [`X11::capture_window`] / [`X11::capture_rect`] (`capture.rs`): PNG
//!   captures, and [`encode_png`].
//!
//! - [`X11::ping`] and [`X11::ask_to_close`] (`wm.rs`): what a window
//!   manager asks of a window (`_NET_WM_PING`, `WM_DELETE_WINDOW`).
//! - [`Clipboard`] (`clipboard.rs`): the CLIPBOARD and PRIMARY selections,
//!   read and held by uidrive itself (ICCCM), served to apps by a thread.
//! - [`X11::manage_window`] (`ewmh.rs`): move, resize, minimize, maximize,
//!   restore, focus and close through the window manager (EWMH), each
//!   verified by reading its effect back; states and stacking order.
//! - `focus.rs`: on a display without a window manager, each top-level window gets the
//!   keyboard focus when it is shown, as a window manager would give it.
//! - `placement.rs`: under the window manager, each app is told where its
//!   window was put (the synthetic `ConfigureNotify` ICCCM asks for), which
//!   openbox sometimes leaves out.
//!
//! Linux only.

mod auth;
pub mod buses;
mod capture;
mod clipboard;
mod dbus;
mod ewmh;
mod focus;
mod headless;
mod input;
mod keymap;
mod placement;
pub mod process;
mod wm;
mod x11;

pub use capture::encode_png;
pub use clipboard::{Clipboard, Selection, CLIPBOARD_TIMEOUT};
pub use ewmh::{WindowStates, WmRequest, WmWindow};
pub use headless::{private_runtime_dir, remove_stale_runtime_dirs, Desktop, DesktopOptions};
pub use input::WHEEL_DIPS_PER_CLICK;
pub use keymap::{char_keysym, key_keysym};
pub use wm::Ping;
pub use x11::{Rect, XWindow, X11};
