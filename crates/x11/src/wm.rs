//! What a window manager asks of a client window, asked by uidrive: to
//! answer a ping (`_NET_WM_PING`), and to close (`WM_DELETE_WINDOW`), each
//! only of a window that lists it in its `WM_PROTOCOLS` (ICCCM 4.1.2.7,
//! EWMH's `_NET_WM_PING`).
//!
//! A ping goes through the app's X event queue behind everything sent to it
//! before (a focus change, keys): its answer proves the app has handled
//! those, which is how launching knows an app takes input.

use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    AtomEnum, ChangeWindowAttributesAux, ClientMessageEvent, ConnectionExt as _, EventMask,
    InputFocus,
};
use x11rb::protocol::Event;
use x11rb::rust_connection::RustConnection;

use uidrive_core::{Error, Result};

use crate::x11::{window_error, x_error, XWindow, X11};

/// How a window answered a ping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ping {
    /// Its app answered after this long.
    Answered(Duration),
    /// The window does not take pings (no `_NET_WM_PING` in its protocols).
    NotTaken,
    /// No answer within the time given: the app is busy or frozen.
    Unanswered,
}

impl X11 {
    /// The protocols the window takes (`WM_PROTOCOLS`), as atom names.
    pub fn protocols(&self, window: u32) -> Result<Vec<String>> {
        let inner = self.lock();
        let conn = &inner.conn;
        let wm_protocols = atom(conn, "WM_PROTOCOLS")?;
        let atoms = protocol_atoms(conn, window, wm_protocols)?;
        let cookies = atoms
            .iter()
            .map(|a| conn.get_atom_name(*a))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| x_error("naming atoms", e))?;
        let mut names = Vec::with_capacity(cookies.len());
        for cookie in cookies {
            let reply = cookie.reply().map_err(|e| x_error("naming atoms", e))?;
            names.push(String::from_utf8_lossy(&reply.name).into_owned());
        }
        Ok(names)
    }

    /// Pings the window as a window manager does and waits up to `timeout`
    /// for its app to answer.
    pub fn ping(&self, window: u32, timeout: Duration) -> Result<Ping> {
        let started = Instant::now();
        let (conn, screen) = self.connect_again()?;
        let root = conn.setup().roots[screen].root;
        let (wm_protocols, net_wm_ping) =
            (atom(&conn, "WM_PROTOCOLS")?, atom(&conn, "_NET_WM_PING")?);
        if !protocol_atoms(&conn, window, wm_protocols)?.contains(&net_wm_ping) {
            return Ok(Ping::NotTaken);
        }
        // The answer is sent to the root window, to whoever listens there:
        // GTK sends it to substructure listeners, Qt to structure ones.
        let mask = EventMask::SUBSTRUCTURE_NOTIFY | EventMask::STRUCTURE_NOTIFY;
        conn.change_window_attributes(root, &ChangeWindowAttributesAux::new().event_mask(mask))
            .map_err(|e| x_error("listening on the root window", e))?
            .check()
            .map_err(|e| x_error("listening on the root window", e))?;
        // Told apart from other pings by a stamp of its own (the app sends it back).
        let stamp = started_stamp();
        let ping =
            ClientMessageEvent::new(32, window, wm_protocols, [net_wm_ping, stamp, window, 0, 0]);
        conn.send_event(false, window, EventMask::NO_EVENT, ping)
            .map_err(|e| x_error("pinging a window", e))?
            .check()
            .map_err(|e| window_error(window, e))?;
        let deadline = started + timeout;
        loop {
            while let Some(event) = conn
                .poll_for_event()
                .map_err(|e| x_error("waiting for a ping's answer", e))?
            {
                if let Event::ClientMessage(e) = event {
                    let data = e.data.as_data32();
                    if e.type_ == wm_protocols
                        && data[0] == net_wm_ping
                        && data[1] == stamp
                        && data[2] == window
                    {
                        return Ok(Ping::Answered(started.elapsed()));
                    }
                }
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(Ping::Unanswered);
            }
            wait_readable(&conn, left);
        }
    }

    /// Asks the window to close as a window manager's close button does
    /// (`WM_DELETE_WINDOW`): the app may save, ask, or refuse. `false` when
    /// the window does not take that protocol.
    pub fn ask_to_close(&self, window: u32) -> Result<bool> {
        let inner = self.lock();
        let conn = &inner.conn;
        let (wm_protocols, wm_delete_window) =
            (atom(conn, "WM_PROTOCOLS")?, atom(conn, "WM_DELETE_WINDOW")?);
        if !protocol_atoms(conn, window, wm_protocols)?.contains(&wm_delete_window) {
            return Ok(false);
        }
        let close = ClientMessageEvent::new(
            32,
            window,
            wm_protocols,
            [wm_delete_window, x11rb::CURRENT_TIME, 0, 0, 0],
        );
        conn.send_event(false, window, EventMask::NO_EVENT, close)
            .map_err(|e| x_error("asking a window to close", e))?
            .check()
            .map_err(|e| window_error(window, e))?;
        Ok(true)
    }
}

impl X11 {
    /// The shown top-level windows (not menus or tooltips) of any process
    /// in `pids`: by `_NET_WM_PID`, else by the process of the X client that
    /// made the window (the X-Resource extension), which finds the windows
    /// of apps that set no pid (Tk).
    pub fn shown_windows_of(&self, pids: &[u32]) -> Result<Vec<XWindow>> {
        let mut shown: Vec<XWindow> = self
            .top_level_windows()?
            .into_iter()
            .filter(|w| w.viewable && !w.override_redirect)
            .collect();
        for window in shown.iter_mut().filter(|w| w.pid.is_none()) {
            window.pid = self.client_pid(window.id).unwrap_or(None);
        }
        shown.retain(|w| w.pid.is_some_and(|pid| pids.contains(&pid)));
        Ok(shown)
    }

    /// The process of the X client that made `window`, as the X server
    /// knows it (a local client only); `None` where the server cannot tell.
    pub fn client_pid(&self, window: u32) -> Result<Option<u32>> {
        use x11rb::protocol::res::{ClientIdMask, ClientIdSpec, ConnectionExt as _};
        let inner = self.lock();
        let spec = ClientIdSpec {
            client: window,
            mask: ClientIdMask::LOCAL_CLIENT_PID,
        };
        let Ok(cookie) = inner.conn.res_query_client_ids(&[spec]) else {
            return Ok(None);
        };
        Ok(cookie.reply().ok().and_then(|reply| {
            reply
                .ids
                .iter()
                .find(|id| id.spec.mask == ClientIdMask::LOCAL_CLIENT_PID)
                .and_then(|id| id.value.first().copied())
        }))
    }

    /// Whether `window` is `ancestor` or lies inside it (an app may give
    /// the focus to a child of its top-level window).
    pub fn is_inside(&self, window: u32, ancestor: u32) -> Result<bool> {
        let inner = self.lock();
        let mut at = window;
        for _ in 0..64 {
            if at == ancestor {
                return Ok(true);
            }
            if at == inner.root || at <= 1 {
                return Ok(false);
            }
            at = inner
                .conn
                .query_tree(at)
                .map_err(|e| x_error("reading a window's parent", e))?
                .reply()
                .map_err(|e| window_error(at, e))?
                .parent;
        }
        Ok(false)
    }
}

impl X11 {
    /// Gives the window the keyboard focus as a window manager does, by
    /// the input model its `WM_HINTS` and `WM_PROTOCOLS` declare (ICCCM
    /// 4.1.7): a window that takes input gets `SetInputFocus`, and
    /// `WM_TAKE_FOCUS` too if it lists it; one that says it takes no input
    /// but lists `WM_TAKE_FOCUS` (Java's AWT: "globally active") is only
    /// offered the focus, and moves it itself to the window inside that
    /// takes keys (its focus proxy), which is waited for. A bare
    /// `SetInputFocus` on such a frame left the first key a Swing dialog got
    /// lost. A focus already inside the window is left where it is.
    pub fn give_focus(&self, window: u32) -> Result<()> {
        let inner = self.lock();
        let conn = &inner.conn;
        let (wm_protocols, wm_take_focus) =
            (atom(conn, "WM_PROTOCOLS")?, atom(conn, "WM_TAKE_FOCUS")?);
        let takes_focus = protocol_atoms(conn, window, wm_protocols)?.contains(&wm_take_focus);
        let takes_input = takes_input(conn, window)?;
        drop(inner);
        let focused = self.focused_window()?;
        let has_it = if takes_input || !takes_focus {
            self.is_inside(focused, window)?
        } else {
            // On the frame itself (as a bare SetInputFocus leaves it) keys go nowhere.
            focused != window && self.is_inside(focused, window)?
        };
        if has_it {
            return Ok(());
        }
        let inner = self.lock();
        let conn = &inner.conn;
        if takes_input || !takes_focus {
            conn.set_input_focus(InputFocus::PARENT, window, x11rb::CURRENT_TIME)
                .map_err(|e| x_error("focusing a window", e))?;
        }
        if takes_focus {
            let offer = ClientMessageEvent::new(
                32,
                window,
                wm_protocols,
                [wm_take_focus, x11rb::CURRENT_TIME, 0, 0, 0],
            );
            conn.send_event(false, window, EventMask::NO_EVENT, offer)
                .map_err(|e| x_error("offering a window the focus", e))?;
        }
        crate::x11::sync(conn)?;
        drop(inner);
        if takes_input || !takes_focus {
            return Ok(());
        }
        // The app moves the focus itself: until it has, keys go nowhere.
        let deadline = Instant::now() + TAKES_FOCUS_WITHIN;
        while Instant::now() < deadline {
            let focused = self.focused_window()?;
            if focused != window && self.is_inside(focused, window)? {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        Err(Error::timeout(format!(
            "X window {window:#x} was offered the focus and did not take it within {} ms",
            TAKES_FOCUS_WITHIN.as_millis()
        ))
        .with_suggestion("the app may be busy; try again once it answers"))
    }
}

/// How long a window that moves the focus itself gets to do so.
const TAKES_FOCUS_WITHIN: Duration = Duration::from_secs(2);

/// Whether the window's `WM_HINTS` say it takes input (the default when it
/// has no hints, or no input hint).
fn takes_input(conn: &RustConnection, window: u32) -> Result<bool> {
    const INPUT_HINT: u32 = 1;
    let reply = conn
        .get_property(false, window, AtomEnum::WM_HINTS, AtomEnum::WM_HINTS, 0, 2)
        .map_err(|e| x_error("reading a window's hints", e))?
        .reply()
        .map_err(|e| window_error(window, e))?;
    let hints: Vec<u32> = reply.value32().map(|v| v.collect()).unwrap_or_default();
    Ok(match hints.as_slice() {
        [flags, input, ..] if flags & INPUT_HINT != 0 => *input != 0,
        _ => true,
    })
}

impl X11 {
    /// Asks every shown window of `pids` to close ([`X11::ask_to_close`]);
    /// how many take the request.
    pub fn ask_windows_to_close(&self, pids: &[u32]) -> Result<usize> {
        let windows = self.shown_windows_of(pids)?;
        Ok(windows
            .iter()
            .filter(|w| self.ask_to_close(w.id).unwrap_or(false))
            .count())
    }
}

fn atom(conn: &RustConnection, name: &str) -> Result<u32> {
    Ok(conn
        .intern_atom(false, name.as_bytes())
        .map_err(|e| x_error("interning an atom", e))?
        .reply()
        .map_err(|e| x_error("interning an atom", e))?
        .atom)
}

/// The atoms of the window's `WM_PROTOCOLS`; none when it has no such property.
fn protocol_atoms(conn: &RustConnection, window: u32, wm_protocols: u32) -> Result<Vec<u32>> {
    let reply = conn
        .get_property(false, window, wm_protocols, AtomEnum::ATOM, 0, 64)
        .map_err(|e| x_error("reading a window's protocols", e))?
        .reply()
        .map_err(|e| window_error(window, e))?;
    Ok(reply.value32().map(|v| v.collect()).unwrap_or_default())
}

/// A number for this ping, from the clock (apps echo it unchanged).
fn started_stamp() -> u32 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    (now.as_micros() as u32).max(1)
}

/// Waits until the connection's socket has something to read, or `left` passes.
fn wait_readable(conn: &RustConnection, left: Duration) {
    let mut poll = libc::pollfd {
        fd: conn.stream().as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = left.as_millis().clamp(1, 100) as i32;
    // SAFETY: one valid pollfd for the connection's own socket.
    unsafe { libc::poll(&mut poll, 1, ms) };
}
