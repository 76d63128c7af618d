//! The display an app shows on, behind one trait: where a window is on the
//! screen, giving it the keyboard focus, real input and captures. X11
//! (XTest, XGetImage, the X server's window tree) and Wayland (a wlroots
//! compositor's virtual pointer and keyboard, screencopy, sway's window
//! tree) implement it; the AT-SPI side is the same on both.
//!
//! Which one an app is on follows its environment: `DISPLAY` means X11
//! (an app under Xwayland too), `WAYLAND_DISPLAY` without `DISPLAY` means
//! Wayland: with `SWAYSOCK`, sway's protocols and IPC (uidrive's headless
//! Wayland desktop); without it, a person's session (GNOME, KDE Plasma),
//! reached through the desktop portal ([`PortalBackend`]). On a sway desktop
//! with Xwayland (both displays, and `SWAYSOCK`), whether the app is an X
//! client decides (`xwayland.rs`). Window management goes through sway's
//! IPC (`swaywm.rs`), GTK 4 popovers are placed as sway places them
//! (`swaypopup.rs`). What only X11 offers yet (pings) answers
//! `unsupported` naming the Wayland backend ([`Inner::x11`]).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use uidrive_core::protocol::{Bounds, Capture, InputEvent};
use uidrive_core::{Error, ErrorCode, Result};
use uidrive_wayland::portal::Portal;
use uidrive_wayland::sway::{self, View};
use uidrive_wayland::Wayland;
use uidrive_x11::{XWindow, X11};

use crate::discovery::{Toolkit, TopLevel};
use crate::driver::Inner;

/// Where a window is on the screen.
#[derive(Debug, Clone)]
pub struct Placed {
    /// Where the toolkit's window-relative positions count from.
    pub origin: (f64, f64),
    /// The window as the display shows it (title bar-less content).
    pub bounds: Bounds,
    /// What a capture of the window takes: from `origin`, so its pixels
    /// line up with the elements' bounds.
    pub capture: Bounds,
    /// The display's own title of the window.
    pub title: String,
    which: Which,
}

#[derive(Debug, Clone)]
enum Which {
    X(Box<XWindow>),
    Sway(i64),
    /// A window on a person's session: only its size (AT-SPI's) and
    /// whether it has the keyboard focus are known, not its place.
    Portal {
        size: (i32, i32),
        active: bool,
    },
}

/// A display backend: what uidrive needs of the display an app is on.
pub trait DisplayBackend: Send + Sync {
    /// Its name in messages (`X11`, `Wayland (sway)`).
    fn name(&self) -> &'static str;
    /// Where the window `top` of the app is on the screen.
    fn place(&self, inner: &Inner, top: &TopLevel) -> Result<Placed>;
    /// Gives the window the keyboard focus.
    fn focus(&self, placed: &Placed) -> Result<()>;
    /// Sends real input; event coordinates count from `placed.origin`.
    fn send_input(&self, placed: &Placed, events: &[InputEvent], hold: bool) -> Result<()>;
    /// Captures the window as PNG.
    fn capture(&self, placed: &Placed) -> Result<Capture>;
}

/// The X11 backend: the X server's windows, XTest, XGetImage.
pub struct X11Backend(pub Arc<X11>);

impl DisplayBackend for X11Backend {
    fn name(&self) -> &'static str {
        "X11"
    }

    fn place(&self, inner: &Inner, top: &TopLevel) -> Result<Placed> {
        let window = crate::desktop::x_window_for(&self.0, inner.app.pid, top)?;
        let (dx, dy) =
            crate::desktop::content_inset(&self.0, &inner.app, top, &window, inner.scale_of(top));
        let g = window.geometry;
        let bounds = Bounds::new(
            f64::from(g.x),
            f64::from(g.y),
            f64::from(g.width),
            f64::from(g.height),
        );
        Ok(Placed {
            origin: (f64::from(g.x + dx), f64::from(g.y + dy)),
            bounds,
            capture: crate::desktop::content_bounds(inner, top, &window),
            title: window.title.clone(),
            which: Which::X(Box::new(window)),
        })
    }

    fn focus(&self, placed: &Placed) -> Result<()> {
        match &placed.which {
            Which::X(window) => self.0.focus(window.id),
            Which::Sway(_) | Which::Portal { .. } => Ok(()),
        }
    }

    fn send_input(&self, placed: &Placed, events: &[InputEvent], hold: bool) -> Result<()> {
        self.0.send_input(placed.origin, events, hold)
    }

    fn capture(&self, placed: &Placed) -> Result<Capture> {
        let Which::X(window) = &placed.which else {
            return Err(Error::failed("a window placed by another display"));
        };
        let c = placed.capture;
        if c.x == f64::from(window.geometry.x) && c.y == f64::from(window.geometry.y) {
            return self.0.capture_window(window.id);
        }
        self.0.capture_rect(uidrive_x11::Rect {
            x: c.x as i32,
            y: c.y as i32,
            width: c.width as u32,
            height: c.height as u32,
        })
    }
}

/// The Wayland backend: a wlroots compositor's virtual input and
/// screencopy, and sway's IPC for where windows are.
pub struct WaylandBackend {
    wayland: Wayland,
    swaysock: Option<PathBuf>,
}

impl WaylandBackend {
    fn swaysock(&self) -> Result<&std::path::Path> {
        self.swaysock.as_deref().ok_or_else(|| {
            Error::unsupported(
                "the Wayland backend knows where windows are only from sway's IPC, and there is no SWAYSOCK",
            )
            .with_suggestion(
                "run the app on uidrive's headless Wayland desktop (or on sway, passing its SWAYSOCK)",
            )
        })
    }
}

/// The view of sway showing the window `top` of process `pid`: the one with
/// its title, else the focused one, else its only one.
pub(crate) fn view_for(views: Vec<View>, pid: u32, top: &TopLevel) -> Result<View> {
    let mut mine: Vec<View> = views.into_iter().filter(|v| v.pid == pid).collect();
    if let Some(at) = mine.iter().position(|v| v.title == top.title) {
        return Ok(mine.swap_remove(at));
    }
    if mine.len() == 1 {
        return Ok(mine.remove(0));
    }
    if let Some(at) = mine.iter().position(|v| v.focused) {
        return Ok(mine.swap_remove(at));
    }
    Err(Error::no_window(format!(
        "the window \"{}\" of process {pid} is not shown by the Wayland compositor ({} windows of it are)",
        top.title,
        mine.len()
    ))
    .with_suggestion("wait for the window to be shown (idle), or check that the app runs on this WAYLAND_DISPLAY"))
}

/// Where the window's surface starts on the output: what toolkits other
/// than GTK 4 count their positions from. sway 1.7 records where a window's
/// content sits inside its surface only when the content's size changes, so
/// a client that later draws shadows around content of the same size
/// (Chromium, a GTK 3 dialog) is listed with its content at the surface's
/// corner, and its elements came out 10 pixels right of and below where
/// they show. Then the toolkit's own size of its window, larger than its
/// content by the shadows, says where the surface starts (shadows as wide
/// on both sides, as these toolkits draw them).
fn surface_origin(view: &View, top: &TopLevel) -> (i32, i32) {
    let (cx, cy, cw, ch) = view.content;
    if view.surface != (cx, cy) {
        return view.surface;
    }
    let (_, _, width, height) = top.extents;
    let inset = |whole: i32, content: u32| ((whole - content as i32) / 2).max(0);
    (cx - inset(width, cw), cy - inset(height, ch))
}

impl DisplayBackend for WaylandBackend {
    fn name(&self) -> &'static str {
        "Wayland (sway)"
    }

    fn place(&self, inner: &Inner, top: &TopLevel) -> Result<Placed> {
        let view = view_for(sway::views(self.swaysock()?)?, inner.app.pid, top)?;
        let (cx, cy, cw, ch) = view.content;
        // GTK 4 counts from its window's content; other toolkits from
        // their surface (where client-side shadows start).
        let origin = match inner.app.toolkit {
            Toolkit::Gtk4 => (cx, cy),
            _ => surface_origin(&view, top),
        };
        let bounds = Bounds::new(f64::from(cx), f64::from(cy), f64::from(cw), f64::from(ch));
        let (right, bottom) = (cx + cw as i32, cy + ch as i32);
        Ok(Placed {
            origin: (f64::from(origin.0), f64::from(origin.1)),
            bounds,
            capture: Bounds::new(
                f64::from(origin.0),
                f64::from(origin.1),
                f64::from(right - origin.0),
                f64::from(bottom - origin.1),
            ),
            title: view.title.clone(),
            which: Which::Sway(view.id),
        })
    }

    fn focus(&self, placed: &Placed) -> Result<()> {
        match placed.which {
            Which::Sway(id) => sway::command(self.swaysock()?, &format!("[con_id={id}] focus")),
            Which::X(_) | Which::Portal { .. } => Ok(()),
        }
    }

    fn send_input(&self, placed: &Placed, events: &[InputEvent], hold: bool) -> Result<()> {
        self.wayland.send_input(placed.origin, events, hold)
    }

    fn capture(&self, placed: &Placed) -> Result<Capture> {
        let c = placed.capture;
        self.wayland
            .capture_rect(c.x as i32, c.y as i32, c.width as u32, c.height as u32)
    }
}

/// A person's Wayland session (GNOME, KDE Plasma): input and captures go
/// through the desktop portal, asked for on first use and kept for the
/// process's life. A Wayland client cannot learn where a window is (the
/// portal does not say, and GNOME Shell's window list is not for clients),
/// so positions are known only when the window fills the shared screen
/// (fullscreen) or the person shared the window itself; elsewhere pointer
/// input and captures answer `unsupported` saying so. Keys need no place:
/// they go to the window with the keyboard focus, which must be the app's.
pub struct PortalBackend(Arc<Portal>);

impl PortalBackend {
    /// Fails unless the window's place on the shared screen is known.
    fn check_placed(&self, placed: &Placed) -> Result<()> {
        let Which::Portal { size, .. } = placed.which else {
            return Err(Error::failed("a window placed by another display"));
        };
        let stream = self.0.stream()?;
        if stream.is_window() || size == (stream.width as i32, stream.height as i32) {
            return Ok(());
        }
        Err(Error::unsupported(format!(
            "on a person's Wayland session uidrive cannot tell where the window \"{}\" ({}x{}) is on the shared screen ({}x{}): the portal and the compositor do not tell clients where windows are, so pointer input at its elements and its capture have no place to go",
            placed.title, size.0, size.1, stream.width, stream.height
        ))
        .with_suggestion("make the window fill the screen (fullscreen, e.g. the F11 key: keys need no place), or share the app's window rather than the screen in the portal's dialog; reading, semantic actions (act) and keys work anywhere"))
    }
}

impl DisplayBackend for PortalBackend {
    fn name(&self) -> &'static str {
        "Wayland (desktop portal)"
    }

    fn place(&self, _inner: &Inner, top: &TopLevel) -> Result<Placed> {
        // Only what AT-SPI knows: nothing here asks the person anything.
        let (_, _, w, h) = top.extents;
        let whole = Bounds::new(0.0, 0.0, f64::from(w), f64::from(h));
        Ok(Placed {
            origin: (0.0, 0.0),
            bounds: whole,
            capture: whole,
            title: top.title.clone(),
            which: Which::Portal {
                size: (w, h),
                active: top.states.has(crate::states::st::ACTIVE),
            },
        })
    }

    fn focus(&self, _placed: &Placed) -> Result<()> {
        // No client may move the focus on a person's session; send_input checks it.
        Ok(())
    }

    fn send_input(&self, placed: &Placed, events: &[InputEvent], hold: bool) -> Result<()> {
        let pointer = events.iter().any(|e| {
            !matches!(
                e,
                InputEvent::Key { .. }
                    | InputEvent::KeyDown { .. }
                    | InputEvent::KeyUp { .. }
                    | InputEvent::Text { .. }
            )
        });
        let Which::Portal { active, .. } = placed.which else {
            return Err(Error::failed("a window placed by another display"));
        };
        if !pointer && !active {
            return Err(Error::new(
                ErrorCode::NotActionable,
                format!(
                    "the window \"{}\" does not have the keyboard focus, and on a person's Wayland session keys go to the window that has it",
                    placed.title
                ),
            )
            .with_suggestion("give the window the focus first (click it, or switch to it), then send the keys"));
        }
        if events.is_empty() {
            // Only the focus was asked for (before typing): checked above.
            return Ok(());
        }
        if pointer {
            self.check_placed(placed)?;
        }
        self.0.send_input(placed.origin, events, hold)
    }

    fn capture(&self, placed: &Placed) -> Result<Capture> {
        self.check_placed(placed)?;
        let c = placed.capture;
        self.0
            .capture_rect(c.x as i32, c.y as i32, c.width as u32, c.height as u32)
    }
}

/// The Wayland connection, opened on first use from the driver's environment.
#[derive(Default)]
pub struct WaylandLink {
    backend: Mutex<Option<Arc<WaylandBackend>>>,
    /// With Xwayland beside: whether the app is an X client (`xwayland.rs`).
    pub(crate) x_client: std::sync::OnceLock<bool>,
}

impl WaylandLink {
    pub(crate) fn get(
        &self,
        env: &[(String, String)],
        display: &str,
    ) -> Result<Arc<WaylandBackend>> {
        let mut slot = self.backend.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(backend) = slot.as_ref() {
            return Ok(backend.clone());
        }
        let runtime_dir = crate::bus::env_value(env, "XDG_RUNTIME_DIR").map(PathBuf::from);
        let wayland = Wayland::connect(display, runtime_dir.as_deref())?;
        let backend = Arc::new(WaylandBackend {
            wayland,
            swaysock: crate::bus::env_value(env, "SWAYSOCK").map(PathBuf::from),
        });
        *slot = Some(backend.clone());
        Ok(backend)
    }
}

/// Whether an app with this environment shows on a Wayland display (and no X one).
pub fn on_wayland(env: &[(String, String)]) -> bool {
    crate::bus::env_value(env, "DISPLAY").is_none()
        && crate::bus::env_value(env, "WAYLAND_DISPLAY").is_some()
}

impl Inner {
    /// The display backend of the app's display.
    pub fn display(&self) -> Result<Arc<dyn DisplayBackend>> {
        if on_wayland(&self.env) && crate::bus::env_value(&self.env, "SWAYSOCK").is_none() {
            let bus = crate::bus::env_value(&self.env, "DBUS_SESSION_BUS_ADDRESS").ok_or_else(|| {
                Error::unsupported("the app runs on Wayland without sway and no DBUS_SESSION_BUS_ADDRESS says where the desktop portal is")
                    .with_suggestion("run uidrive in the person's session, with its DBUS_SESSION_BUS_ADDRESS")
            })?;
            return Ok(Arc::new(PortalBackend(Portal::for_bus(&bus)?)));
        }
        if self.on_wayland() {
            let display = crate::bus::env_value(&self.env, "WAYLAND_DISPLAY").unwrap_or_default();
            let backend: Arc<dyn DisplayBackend> = self.wlink.get(&self.env, &display)?;
            return Ok(backend);
        }
        if crate::xwayland::both_displays(&self.env) {
            return self.x_client_backend();
        }
        Ok(Arc::new(X11Backend(self.x11()?)))
    }

    /// Whether the app is on the Wayland backend: on a Wayland display
    /// alone, or a Wayland client where Xwayland runs too (`xwayland.rs`).
    pub fn on_wayland(&self) -> bool {
        on_wayland(&self.env) || (crate::xwayland::both_displays(&self.env) && !self.x_client())
    }
}

/// What an operation only the X11 backend offers answers on Wayland.
pub fn x11_only() -> Error {
    Error::unsupported(
        "the Wayland backends (sway, the desktop portal) do not offer this yet: pings and a capture \
         of the whole screen go through X11 only",
    )
    .with_suggestion("run the app on the X11 headless desktop (the default) for this operation")
}
