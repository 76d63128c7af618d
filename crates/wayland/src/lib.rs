//! uidrive's Wayland side on Linux.
//!
//! - [`WaylandDesktop`] (`headless.rs`): a private headless Wayland desktop —
//!   sway on wlroots' headless backend, a D-Bus session bus, the
//!   accessibility bus and its registry — with [`WaylandDesktop::env`] for
//!   the apps launched on it (`WAYLAND_DISPLAY`; `DISPLAY` only with
//!   Xwayland, asked for with [`WaylandOptions::xwayland`], `xwayland.rs`).
//! - [`Wayland`] (`client.rs`): a connection to the compositor: real input
//!   through its virtual pointer and keyboard (any Unicode text, with a
//!   keymap uidrive writes, `keymap.rs`), and captures through screencopy.
//! - [`portal::Portal`]: a person's Wayland session (GNOME, KDE Plasma):
//!   real input and captures through the desktop portal (RemoteDesktop and
//!   ScreenCast over PipeWire), with the person's consent, asked once.
//! - [`sway`]: where each window is on the output and which process shows
//!   it (sway's IPC), and commands such as focusing or moving a window.
//! - [`WlClipboard`]: the compositor's clipboard (wlr-data-control, through
//!   `wl-copy` and `wl-paste`).
//!
//! Linux only.

mod client;
mod clipboard;
mod headless;
mod keymap;
pub mod portal;
pub mod sway;
mod xwayland;

pub use client::{Wayland, WHEEL_DIPS_PER_CLICK};
pub use clipboard::WlClipboard;
pub use headless::{socket_listener, WaylandDesktop, WaylandOptions};
