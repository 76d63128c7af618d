//! Which display backend drives an app on a Wayland desktop that runs
//! Xwayland too. Its environment names both displays (`WAYLAND_DISPLAY`
//! and Xwayland's `DISPLAY`), and each app picks one: a native Wayland
//! client goes through the Wayland backend, an X client (an X-only app, or
//! a toolkit told `GDK_BACKEND=x11`) through the X11 backend on Xwayland's
//! display, where its windows, XTest and captures are.

use std::sync::Arc;

use uidrive_core::protocol::{Capture, InputEvent};
use uidrive_core::{Error, Result};
use uidrive_wayland::sway;

use crate::bus::env_value;
use crate::discovery::TopLevel;
use crate::display::{DisplayBackend, Placed, WaylandBackend, X11Backend};
use crate::driver::Inner;

/// Whether `env` is that of a sway desktop with Xwayland: both displays,
/// and sway's IPC to tell which one an app's windows are on.
pub(crate) fn both_displays(env: &[(String, String)]) -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY", "SWAYSOCK"]
        .iter()
        .all(|name| env_value(env, name).is_some())
}

/// Whether the toolkit settings in `env` send the app to X.
fn told_x(env: &[(String, String)]) -> bool {
    let starts = |name: &str, with: &str| env_value(env, name).is_some_and(|v| v.starts_with(with));
    starts("GDK_BACKEND", "x11") || starts("QT_QPA_PLATFORM", "xcb")
}

impl Inner {
    /// On a desktop with both displays ([`both_displays`]): whether the app
    /// is an X client. sway knows once the app shows a window (an
    /// `xwayland` view, or a Wayland one), and that answer is kept; before,
    /// the toolkit settings of its environment say.
    pub(crate) fn x_client(&self) -> bool {
        if let Some(known) = self.wlink.x_client.get() {
            return *known;
        }
        let socket = env_value(&self.env, "SWAYSOCK").unwrap_or_default();
        let views = sway::views(std::path::Path::new(&socket)).unwrap_or_default();
        let mine: Vec<&sway::View> = views.iter().filter(|v| v.pid == self.app.pid).collect();
        match mine.first() {
            Some(view) => *self.wlink.x_client.get_or_init(|| view.xwayland),
            None => told_x(&self.env),
        }
    }
}

/// An X client on Xwayland: the X server says where its windows are and
/// takes focus and input (XTest reaches Xwayland's own clients); captures
/// come from the compositor, as rootless Xwayland has no root window to
/// copy the screen from.
struct XClient {
    x11: X11Backend,
    compositor: Arc<WaylandBackend>,
}

impl DisplayBackend for XClient {
    fn name(&self) -> &'static str {
        "X11 (Xwayland)"
    }

    fn place(&self, inner: &Inner, top: &TopLevel) -> Result<Placed> {
        self.x11.place(inner, top)
    }

    fn focus(&self, placed: &Placed) -> Result<()> {
        self.x11.focus(placed)
    }

    fn send_input(&self, placed: &Placed, events: &[InputEvent], hold: bool) -> Result<()> {
        self.x11.send_input(placed, events, hold)
    }

    fn capture(&self, placed: &Placed) -> Result<Capture> {
        // Xwayland's root is the compositor's output at the same place.
        self.compositor.capture(placed)
    }
}

impl Inner {
    /// The backend of an X client on a desktop with both displays.
    pub(crate) fn x_client_backend(&self) -> Result<Arc<dyn DisplayBackend>> {
        let display = env_value(&self.env, "WAYLAND_DISPLAY").unwrap_or_default();
        Ok(Arc::new(XClient {
            x11: X11Backend(self.x11()?),
            compositor: self.wlink.get(&self.env, &display)?,
        }))
    }
}

/// What moving, resizing or minimizing an X client's window answers: sway
/// tiles every window itself (an X client's configure request does not
/// move a tiled window) and has no minimized state; maximize, restore,
/// focus and close go through.
pub(crate) fn placed_by_sway() -> Error {
    Error::unsupported(
        "on the Wayland desktop sway places every window itself, X clients' under Xwayland too: \
         it does not move, resize or minimize them",
    )
    .with_suggestion("run the app on the X11 headless desktop (the default) to move, resize or minimize its window")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_toolkit_settings_say_x_until_sway_shows_a_window() {
        assert!(told_x(&env(&[("GDK_BACKEND", "x11")])));
        assert!(told_x(&env(&[
            ("GDK_BACKEND", "x11,wayland"),
            ("QT_QPA_PLATFORM", "wayland")
        ])));
        assert!(told_x(&env(&[
            ("GDK_BACKEND", "wayland"),
            ("QT_QPA_PLATFORM", "xcb")
        ])));
        assert!(!told_x(&env(&[
            ("GDK_BACKEND", "wayland"),
            ("QT_QPA_PLATFORM", "wayland")
        ])));
        let both = env(&[
            ("DISPLAY", ":5"),
            ("WAYLAND_DISPLAY", "/w"),
            ("SWAYSOCK", "/s"),
        ]);
        assert!(both_displays(&both));
        assert!(!both_displays(&both[1..]));
    }
}
