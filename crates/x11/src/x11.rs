//! One connection to an X display: top-level windows, their geometry, focus
//! and root-window properties. Input is in `input.rs`, capture in `capture.rs`.

use std::sync::{Mutex, MutexGuard};

use x11rb::connection::{Connection, RequestConnection};
use x11rb::errors::{ConnectionError, ReplyError};
use x11rb::protocol::xproto::{
    AtomEnum, ConfigureWindowAux, ConnectionExt as _, MapState, PropMode, StackMode, Window,
};
use x11rb::protocol::ErrorKind;
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;

use uidrive_core::{Error, ErrorCode, Result};

use crate::keymap::Keyboard;

/// A rectangle in root-window coordinates (pixels).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
}

/// A top-level client window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XWindow {
    /// The X window id.
    pub id: u32,
    /// `_NET_WM_PID`, when the client set it.
    pub pid: Option<u32>,
    /// `_NET_WM_NAME`, else `WM_NAME`; empty when neither is set.
    pub title: String,
    /// The class half of `WM_CLASS` (`Zenity`, `Gtk3-widget-factory`); may be empty.
    pub class: String,
    /// The window's inside (its content) in root coordinates.
    pub geometry: Rect,
    /// Mapped by its client (it may still be hidden by an unmapped ancestor).
    pub mapped: bool,
    /// Mapped, and every ancestor too: the window can be seen and focused.
    pub viewable: bool,
    /// Popups and menus set this; they are not application windows.
    pub override_redirect: bool,
}

pub(crate) struct Atoms {
    pub net_wm_pid: u32,
    pub net_wm_name: u32,
    pub utf8_string: u32,
    pub wm_state: u32,
    pub at_spi_bus: u32,
    pub gtk_frame_extents: u32,
}

/// Everything behind the lock: the connection and the keyboard state that
/// input changes (held keys, remapped keycodes).
pub(crate) struct Inner {
    pub conn: RustConnection,
    pub root: Window,
    pub screen_width: u16,
    pub screen_height: u16,
    pub atoms: Atoms,
    pub keyboard: Keyboard,
}

/// A connection to an X display for input, capture and window lookup.
///
/// `Send + Sync`: calls from several threads take turns on one connection.
pub struct X11 {
    display: String,
    /// The X authority file it connected with, for connections of its own
    /// made later ([`crate::wm`]'s pings); `None`: this process's own.
    xauthority: Option<std::path::PathBuf>,
    inner: Mutex<Inner>,
}

impl X11 {
    /// Connects to `display` (as `:3`) and checks that it has the XTEST
    /// extension, authorized as libxcb would be (this process's `XAUTHORITY`).
    pub fn connect(display: &str) -> Result<X11> {
        X11::connect_as(display, None)
    }

    /// [`X11::connect`] presenting the cookie of the X authority file
    /// `xauthority` (a headless desktop's, from its `XAUTHORITY`), if given.
    pub fn connect_as(display: &str, xauthority: Option<&std::path::Path>) -> Result<X11> {
        let (conn, screen_num) = crate::auth::connect(display, xauthority).map_err(|e| {
            Error::disconnected(format!("cannot connect to the X display {display}: {e}"))
                .with_suggestion(
                    "start a desktop with uidrive_x11::Desktop::start, or check DISPLAY",
                )
                .mentioning(uidrive_core::Term::DesktopStart)
        })?;
        let screen = &conn.setup().roots[screen_num];
        let (root, screen_width, screen_height) =
            (screen.root, screen.width_in_pixels, screen.height_in_pixels);
        let (min_keycode, max_keycode) = (conn.setup().min_keycode, conn.setup().max_keycode);
        let has_xtest = conn
            .extension_information(x11rb::protocol::xtest::X11_EXTENSION_NAME)
            .map_err(|e| x_error("querying the XTEST extension", e))?
            .is_some();
        if !has_xtest {
            return Err(Error::unsupported(format!(
                "the X server of {display} has no XTEST extension, so it cannot take synthetic input"
            ))
            .with_suggestion("run Xvfb or Xorg with +extension XTEST"));
        }
        let atoms = intern_atoms(&conn)?;
        Ok(X11 {
            display: display.to_string(),
            xauthority: xauthority.map(std::path::Path::to_path_buf),
            inner: Mutex::new(Inner {
                conn,
                root,
                screen_width,
                screen_height,
                atoms,
                keyboard: Keyboard::new(min_keycode, max_keycode),
            }),
        })
    }

    /// The display this connection is to.
    pub fn display(&self) -> &str {
        &self.display
    }

    /// The X authority file this connection presented, if not this process's own.
    pub fn xauthority(&self) -> Option<&std::path::Path> {
        self.xauthority.as_deref()
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves nothing half-written that matters.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The screen's size in pixels.
    pub fn screen_size(&self) -> (u32, u32) {
        let inner = self.lock();
        (inner.screen_width as u32, inner.screen_height as u32)
    }

    /// Every top-level client window, bottom of the stack first. Without a window
    /// manager these are the root's children; under a reparenting one, the
    /// client windows inside its frames.
    pub fn top_level_windows(&self) -> Result<Vec<XWindow>> {
        let inner = self.lock();
        let conn = &inner.conn;
        let children = conn
            .query_tree(inner.root)
            .map_err(|e| x_error("listing windows", e))?
            .reply()
            .map_err(|e| x_error("listing windows", e))?
            .children;
        let clients = client_windows(&inner, &children)?;
        let mut windows = Vec::with_capacity(clients.len());
        for window in describe_all(&inner, &clients)? {
            match window {
                Ok(window) => windows.push(window),
                // The window went away while we looked at it.
                Err(e) if e.code == ErrorCode::NoWindow => {}
                Err(e) => return Err(e),
            }
        }
        Ok(windows)
    }

    /// The top-level windows whose `_NET_WM_PID` is `pid` (mapped or not; see
    /// [`XWindow::viewable`]).
    pub fn find_windows_by_pid(&self, pid: u32) -> Result<Vec<XWindow>> {
        Ok(self
            .top_level_windows()?
            .into_iter()
            .filter(|w| w.pid == Some(pid))
            .collect())
    }

    /// The shown override-redirect windows of `pid` (menus, popovers,
    /// tooltips: a toolkit places these itself, outside its windows),
    /// bottom of the stack first, without their title and class (left
    /// empty). Every request of a step is sent before its answers are read:
    /// two round trips when the app shows none, three when it does.
    pub fn popups_of(&self, pid: u32) -> Result<Vec<XWindow>> {
        let inner = self.lock();
        let conn = &inner.conn;
        fn failed(e: impl Into<XFailure>) -> Error {
            x_error("listing popup windows", e)
        }
        let children = conn
            .query_tree(inner.root)
            .map_err(failed)?
            .reply()
            .map_err(failed)?
            .children;
        let cookies = children
            .iter()
            .map(|&w| conn.get_window_attributes(w).map(|c| (w, c)))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(failed)?;
        let mut shown = Vec::new();
        for (window, cookie) in cookies {
            match cookie.reply() {
                Ok(a) if a.override_redirect && a.map_state == MapState::VIEWABLE => {
                    shown.push(window)
                }
                Ok(_) => {}
                Err(e) if is_bad_window(&e) => {}
                Err(e) => return Err(failed(e)),
            }
        }
        let mut asked = Vec::with_capacity(shown.len());
        for window in shown {
            let pid = conn
                .get_property(
                    false,
                    window,
                    inner.atoms.net_wm_pid,
                    AtomEnum::CARDINAL,
                    0,
                    1,
                )
                .map_err(failed)?;
            let size = conn.get_geometry(window).map_err(failed)?;
            let origin = conn
                .translate_coordinates(window, inner.root, 0, 0)
                .map_err(failed)?;
            asked.push((window, pid, size, origin));
        }
        let mut popups = Vec::new();
        for (id, pid_cookie, size, origin) in asked {
            let (pid_reply, size, origin) = (pid_cookie.reply(), size.reply(), origin.reply());
            // A window that went while it was asked about is not shown.
            let (pid_reply, size, origin) = match (pid_reply, size, origin) {
                (Ok(p), Ok(s), Ok(o)) => (p, s, o),
                (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) if is_bad_window(&e) => continue,
                (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return Err(failed(e)),
            };
            let owner = pid_reply.value32().and_then(|mut v| v.next());
            if owner != Some(pid) {
                continue;
            }
            popups.push(XWindow {
                id,
                pid: owner,
                title: String::new(),
                class: String::new(),
                geometry: rect_of(&size, &origin),
                mapped: true,
                viewable: true,
                override_redirect: true,
            });
        }
        Ok(popups)
    }

    /// `_GTK_FRAME_EXTENTS` of a window, as (left, right, top, bottom): the
    /// part of a GTK window with client-side decorations that its shadow
    /// takes, outside what it shows as the window. `None` when not set.
    pub fn frame_extents(&self, window: u32) -> Result<Option<[u32; 4]>> {
        let inner = self.lock();
        let reply = inner
            .conn
            .get_property(
                false,
                window,
                inner.atoms.gtk_frame_extents,
                AtomEnum::CARDINAL,
                0,
                4,
            )
            .map_err(|e| x_error("reading _GTK_FRAME_EXTENTS", e))?
            .reply()
            .map_err(|e| window_error(window, e))?;
        let values: Vec<u32> = reply.value32().map(|v| v.collect()).unwrap_or_default();
        Ok(<[u32; 4]>::try_from(values).ok())
    }

    /// Reads one window's details.
    pub fn window(&self, window: u32) -> Result<XWindow> {
        describe(&self.lock(), window)
    }

    /// The window's inside in root coordinates.
    pub fn window_geometry(&self, window: u32) -> Result<Rect> {
        geometry(&self.lock(), window)
    }

    /// Raises the window and gives it the keyboard focus: through the window
    /// manager when one runs, else itself (nothing else will).
    pub fn focus(&self, window: u32) -> Result<()> {
        let inner = self.lock();
        let conn = &inner.conn;
        let attrs = conn
            .get_window_attributes(window)
            .map_err(|e| x_error("reading a window", e))?
            .reply()
            .map_err(|e| window_error(window, e))?;
        if attrs.map_state != MapState::VIEWABLE {
            return Err(Error::new(
                ErrorCode::NotActionable,
                format!("X window {window:#x} is not shown, so it cannot take the focus"),
            )
            .with_suggestion("wait for the window to be shown before sending it keys"));
        }
        drop(inner);
        // Under a window manager, it is asked (as a taskbar asks): it
        // raises the frame and keeps its own idea of the active window.
        if self.activate(window, ACTIVATED_WITHIN)? {
            return self.give_focus(window);
        }
        let inner = self.lock();
        let conn = &inner.conn;
        conn.configure_window(
            window,
            &ConfigureWindowAux::new().stack_mode(StackMode::ABOVE),
        )
        .map_err(|e| x_error("raising a window", e))?;
        sync(conn)?;
        drop(inner);
        // As a window manager gives it, by the window's input model (wm.rs).
        self.give_focus(window)
    }

    /// The window that has the keyboard focus (0 for none, 1 for pointer-root).
    pub fn focused_window(&self) -> Result<u32> {
        let inner = self.lock();
        let reply = inner
            .conn
            .get_input_focus()
            .map_err(|e| x_error("reading the focus", e))?
            .reply()
            .map_err(|e| x_error("reading the focus", e))?;
        Ok(reply.focus)
    }

    /// Where the pointer is, in root coordinates.
    pub fn pointer_position(&self) -> Result<(i32, i32)> {
        let inner = self.lock();
        let reply = inner
            .conn
            .query_pointer(inner.root)
            .map_err(|e| x_error("reading the pointer", e))?
            .reply()
            .map_err(|e| x_error("reading the pointer", e))?;
        Ok((reply.root_x as i32, reply.root_y as i32))
    }

    /// The `AT_SPI_BUS` property of the root window: the accessibility bus
    /// address, when the desktop published it.
    pub fn at_spi_bus(&self) -> Result<Option<String>> {
        let inner = self.lock();
        let text = read_text(
            &inner,
            inner.root,
            inner.atoms.at_spi_bus,
            AtomEnum::STRING.into(),
        )?;
        Ok(text.filter(|t| !t.is_empty()))
    }

    /// Sets `AT_SPI_BUS` on the root window.
    pub fn set_at_spi_bus(&self, address: &str) -> Result<()> {
        let inner = self.lock();
        inner
            .conn
            .change_property8(
                PropMode::REPLACE,
                inner.root,
                inner.atoms.at_spi_bus,
                AtomEnum::STRING,
                address.as_bytes(),
            )
            .map_err(|e| x_error("setting AT_SPI_BUS", e))?;
        sync(&inner.conn)
    }
}

/// How long a window manager gets to make a window active.
const ACTIVATED_WITHIN: std::time::Duration = std::time::Duration::from_secs(1);

impl std::fmt::Debug for X11 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("X11")
            .field("display", &self.display)
            .finish()
    }
}

impl Drop for X11 {
    fn drop(&mut self) {
        // Let go of held keys and buttons and give the borrowed keycodes
        // back; errors here have nobody to go to.
        let _ = self.release_held();
        let mut inner = self.lock();
        let _ = crate::input::restore_keymap(&mut inner);
    }
}

fn intern_atoms(conn: &RustConnection) -> Result<Atoms> {
    let names = [
        "_NET_WM_PID",
        "_NET_WM_NAME",
        "UTF8_STRING",
        "WM_STATE",
        "AT_SPI_BUS",
        "_GTK_FRAME_EXTENTS",
    ];
    let cookies = names
        .iter()
        .map(|n| conn.intern_atom(false, n.as_bytes()))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| x_error("interning atoms", e))?;
    let mut atoms = Vec::with_capacity(names.len());
    for cookie in cookies {
        atoms.push(
            cookie
                .reply()
                .map_err(|e| x_error("interning atoms", e))?
                .atom,
        );
    }
    Ok(Atoms {
        net_wm_pid: atoms[0],
        net_wm_name: atoms[1],
        utf8_string: atoms[2],
        wm_state: atoms[3],
        at_spi_bus: atoms[4],
        gtk_frame_extents: atoms[5],
    })
}

/// The client window of each child of the root, in the root's order: itself
/// when it has `WM_STATE` or `_NET_WM_PID`; else a child that has
/// `WM_STATE` (a window manager's frame); else itself. A child gone
/// meanwhile is left out. Each step sends its requests for every window
/// before it reads an answer: a round trip per step, not per window (the
/// X server may be slow to answer while an app draws).
fn client_windows(inner: &Inner, frames: &[Window]) -> Result<Vec<Window>> {
    let asked = frames
        .iter()
        .map(|&frame| {
            Ok((
                frame,
                ask_has(inner, frame, inner.atoms.wm_state)?,
                ask_has(inner, frame, inner.atoms.net_wm_pid)?,
            ))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut clients = Vec::with_capacity(frames.len());
    for (frame, wm_state, pid) in asked {
        if has(wm_state)? || has(pid)? {
            clients.push(frame);
        } else if let Some(client) = client_below(inner, frame)? {
            clients.push(client);
        }
    }
    Ok(clients)
}

type HasCookie<'c> =
    x11rb::cookie::Cookie<'c, RustConnection, x11rb::protocol::xproto::GetPropertyReply>;

/// Asks whether `window` has the property `atom` ([`has`] reads the answer).
fn ask_has(inner: &Inner, window: Window, atom: u32) -> Result<HasCookie<'_>> {
    inner
        .conn
        .get_property(false, window, atom, AtomEnum::ANY, 0, 0)
        .map_err(|e| x_error("reading a property", e))
}

/// Whether the window had the property; a window gone has none.
fn has(cookie: HasCookie<'_>) -> Result<bool> {
    match cookie.reply() {
        Ok(reply) => Ok(reply.type_ != x11rb::NONE),
        Err(e) if is_bad_window(&e) => Ok(false),
        Err(e) => Err(x_error("reading a property", e)),
    }
}

/// The child of `frame` that has `WM_STATE`, else `frame`; `None` when
/// `frame` is gone.
fn client_below(inner: &Inner, frame: Window) -> Result<Option<Window>> {
    let children = match inner
        .conn
        .query_tree(frame)
        .map_err(|e| x_error("listing windows", e))?
        .reply()
    {
        Ok(reply) => reply.children,
        Err(e) if is_bad_window(&e) => return Ok(None),
        Err(e) => return Err(x_error("listing windows", e)),
    };
    let asked = children
        .iter()
        .map(|&child| Ok((child, ask_has(inner, child, inner.atoms.wm_state)?)))
        .collect::<Result<Vec<_>>>()?;
    for (child, wm_state) in asked {
        if has(wm_state)? {
            return Ok(Some(child));
        }
    }
    Ok(Some(frame))
}

fn describe(inner: &Inner, id: Window) -> Result<XWindow> {
    describe_all(inner, &[id])?.remove(0)
}

/// Each window's details, or why it could not be read (`no_window` for one
/// gone meanwhile). Every request for every window is sent before any
/// answer is read: one round trip for them all.
fn describe_all(inner: &Inner, ids: &[Window]) -> Result<Vec<Result<XWindow>>> {
    let conn = &inner.conn;
    let ask_text = |id: Window, property: u32, type_: u32| {
        conn.get_property(false, id, property, type_, 0, 1 << 16)
            .map_err(|e| x_error("reading a property", e))
    };
    let asked = ids
        .iter()
        .map(|&id| {
            Ok((
                id,
                conn.get_window_attributes(id)
                    .map_err(|e| x_error("reading a window", e))?,
                conn.get_property(false, id, inner.atoms.net_wm_pid, AtomEnum::CARDINAL, 0, 1)
                    .map_err(|e| x_error("reading _NET_WM_PID", e))?,
                ask_text(id, inner.atoms.net_wm_name, inner.atoms.utf8_string)?,
                ask_text(id, AtomEnum::WM_NAME.into(), AtomEnum::ANY.into())?,
                ask_text(id, AtomEnum::WM_CLASS.into(), AtomEnum::STRING.into())?,
                conn.get_geometry(id)
                    .map_err(|e| x_error("reading a window's geometry", e))?,
                conn.translate_coordinates(id, inner.root, 0, 0)
                    .map_err(|e| x_error("reading a window's position", e))?,
            ))
        })
        .collect::<Result<Vec<_>>>()?;
    // Every answer is read, even after one failed, so none is left behind.
    Ok(asked
        .into_iter()
        .map(|(id, attrs, pid, net_name, name, class, size, origin)| {
            let failed = |e| window_error(id, e);
            let (attrs, pid, net_name, name, class, size, origin) = (
                attrs.reply(),
                pid.reply(),
                net_name.reply(),
                name.reply(),
                class.reply(),
                size.reply(),
                origin.reply(),
            );
            let attrs = attrs.map_err(failed)?;
            let pid = pid.map_err(failed)?.value32().and_then(|mut v| v.next());
            let title = match text(net_name.map_err(failed)?) {
                Some(title) => title,
                None => text(name.map_err(failed)?).unwrap_or_default(),
            };
            let class = text(class.map_err(failed)?)
                .and_then(|c| c.split('\0').nth(1).map(str::to_string))
                .unwrap_or_default();
            let (size, origin) = (size.map_err(failed)?, origin.map_err(failed)?);
            Ok(XWindow {
                id,
                pid,
                title,
                class,
                geometry: rect_of(&size, &origin),
                mapped: attrs.map_state != MapState::UNMAPPED,
                viewable: attrs.map_state == MapState::VIEWABLE,
                override_redirect: attrs.override_redirect,
            })
        })
        .collect())
}

pub(crate) fn geometry(inner: &Inner, window: Window) -> Result<Rect> {
    let conn = &inner.conn;
    let size = conn
        .get_geometry(window)
        .map_err(|e| x_error("reading a window's geometry", e))?;
    let origin = conn
        .translate_coordinates(window, inner.root, 0, 0)
        .map_err(|e| x_error("reading a window's position", e))?;
    let size = size.reply().map_err(|e| window_error(window, e))?;
    let origin = origin.reply().map_err(|e| window_error(window, e))?;
    Ok(rect_of(&size, &origin))
}

/// A window's inside in root coordinates, from its `GetGeometry` answer and
/// its origin translated to the root.
fn rect_of(
    size: &x11rb::protocol::xproto::GetGeometryReply,
    origin: &x11rb::protocol::xproto::TranslateCoordinatesReply,
) -> Rect {
    Rect {
        x: origin.dst_x as i32,
        y: origin.dst_y as i32,
        width: size.width as u32,
        height: size.height as u32,
    }
}

/// A text property of `window` ([`text`]).
fn read_text(inner: &Inner, window: Window, property: u32, type_: u32) -> Result<Option<String>> {
    let reply = inner
        .conn
        .get_property(false, window, property, type_, 0, 1 << 16)
        .map_err(|e| x_error("reading a property", e))?
        .reply()
        .map_err(|e| window_error(window, e))?;
    Ok(text(reply))
}

/// A text property's answer as UTF-8 (Latin-1 `STRING`s are close enough
/// for titles); `None` when the window does not have it.
fn text(reply: x11rb::protocol::xproto::GetPropertyReply) -> Option<String> {
    if reply.type_ == x11rb::NONE || reply.format != 8 {
        return None;
    }
    Some(String::from_utf8_lossy(&reply.value).into_owned())
}

/// One round trip: when it returns, the server has handled every request before it.
pub(crate) fn sync(conn: &RustConnection) -> Result<()> {
    conn.get_input_focus()
        .map_err(|e| x_error("syncing with the X server", e))?
        .reply()
        .map_err(|e| x_error("syncing with the X server", e))?;
    Ok(())
}

fn is_bad_window(e: &ReplyError) -> bool {
    matches!(e, ReplyError::X11Error(x) if matches!(x.error_kind, ErrorKind::Window | ErrorKind::Drawable | ErrorKind::Match))
}

/// A failed request about `window`: `no_window` when it does not exist.
pub(crate) fn window_error(window: Window, e: ReplyError) -> Error {
    if is_bad_window(&e) {
        Error::no_window(format!("X window {window:#x} does not exist (any more)"))
            .with_suggestion("list the windows again; this one has closed")
    } else {
        x_error("a window request", e)
    }
}

/// Any other X failure: a lost connection is `disconnected`, the rest `failed`.
pub(crate) fn x_error(what: &str, e: impl Into<XFailure>) -> Error {
    match e.into() {
        XFailure::Connection(e) => {
            Error::disconnected(format!("{what}: the X connection failed: {e}"))
                .with_suggestion("check that the X server (Xvfb) is still running")
        }
        XFailure::Other(message) => Error::failed(format!("{what}: {message}")),
    }
}

pub(crate) enum XFailure {
    Connection(ConnectionError),
    Other(String),
}

impl From<ConnectionError> for XFailure {
    fn from(e: ConnectionError) -> Self {
        XFailure::Connection(e)
    }
}

impl From<ReplyError> for XFailure {
    fn from(e: ReplyError) -> Self {
        match e {
            ReplyError::ConnectionError(e) => XFailure::Connection(e),
            ReplyError::X11Error(x) => XFailure::Other(format!("X error {:?}", x.error_kind)),
        }
    }
}

impl From<x11rb::errors::ReplyOrIdError> for XFailure {
    fn from(e: x11rb::errors::ReplyOrIdError) -> Self {
        match e {
            x11rb::errors::ReplyOrIdError::ConnectionError(e) => XFailure::Connection(e),
            other => XFailure::Other(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_handles_can_be_shared_between_threads() {
        fn shared<T: Send + Sync>() {}
        shared::<X11>();
        shared::<crate::Desktop>();
    }
}
