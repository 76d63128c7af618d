//! Window management through the window manager, as a pager or a taskbar
//! asks it (EWMH client messages to the root window), and the reads that
//! show whether it did: `_NET_WM_STATE`, the geometry, `_NET_ACTIVE_WINDOW`,
//! `_NET_CLIENT_LIST_STACKING`.
//!
//! On uidrive's headless desktop the window manager is the one it started
//! (`headless.rs`); on a person's desktop it is theirs. Every request is
//! followed by reading back its effect until it shows or the time given
//! runs out: a window manager may refuse (a fixed-size window), place a
//! window elsewhere, or an app may say no (a close that asks to save).

use std::time::{Duration, Instant};

use x11rb::protocol::xproto::{
    AtomEnum, ClientMessageEvent, ConfigureWindowAux, ConnectionExt as _, EventMask, MapState,
    StackMode, Window,
};
use x11rb::rust_connection::RustConnection;

use uidrive_core::{Error, ErrorCode, Result};

use crate::x11::{window_error, x_error, Rect, X11};

/// What a window manager says of a window (EWMH `_NET_WM_STATE`, ICCCM
/// `WM_STATE`, `_NET_ACTIVE_WINDOW`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WindowStates {
    /// Iconified: `WM_STATE` Iconic or `_NET_WM_STATE_HIDDEN`.
    pub minimized: bool,
    /// Maximized both ways (`_NET_WM_STATE_MAXIMIZED_VERT` and `_HORZ`).
    pub maximized: bool,
    pub fullscreen: bool,
    /// The active window (`_NET_ACTIVE_WINDOW`), or, with no window
    /// manager, the one holding the keyboard focus.
    pub focused: bool,
    /// Kept above others (`_NET_WM_STATE_ABOVE`).
    pub above: bool,
}

impl WindowStates {
    /// The states that hold, by name.
    pub fn names(&self) -> Vec<&'static str> {
        [
            (self.minimized, "minimized"),
            (self.maximized, "maximized"),
            (self.fullscreen, "fullscreen"),
            (self.focused, "focused"),
            (self.above, "above"),
        ]
        .into_iter()
        .filter(|(on, _)| *on)
        .map(|(_, name)| name)
        .collect()
    }
}

/// What to ask the window manager of a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WmRequest {
    /// The window's content to this place on the root window.
    Move {
        x: i32,
        y: i32,
    },
    /// The window's content to this size.
    Resize {
        width: u32,
        height: u32,
    },
    Minimize,
    Maximize,
    /// Neither minimized, maximized nor fullscreen.
    Restore,
    /// Raised and given the focus.
    Focus,
    /// Asked to close, as the close button of its title bar asks.
    Close,
}

/// A window as the window manager shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WmWindow {
    pub id: u32,
    /// The content, in root coordinates (as [`crate::XWindow::geometry`]).
    pub geometry: Rect,
    /// The frame the window manager draws around it, as (left, right, top,
    /// bottom) (`_NET_FRAME_EXTENTS`; zero without one).
    pub frame: [u32; 4],
    pub states: WindowStates,
    /// Its place in the stacking order, from 0 at the bottom; `None` when
    /// it is not stacked (not managed, or gone from the screen).
    pub z_index: Option<u32>,
    /// Whether it still exists.
    pub exists: bool,
}

struct Atoms {
    supporting: u32,
    net_wm_state: u32,
    hidden: u32,
    max_vert: u32,
    max_horz: u32,
    fullscreen: u32,
    above: u32,
    active: u32,
    stacking: u32,
    client_list: u32,
    moveresize: u32,
    close: u32,
    frame_extents: u32,
    wm_change_state: u32,
    wm_state: u32,
    net_wm_name: u32,
    utf8: u32,
}

fn atoms(conn: &RustConnection) -> Result<Atoms> {
    let names = [
        "_NET_SUPPORTING_WM_CHECK",
        "_NET_WM_STATE",
        "_NET_WM_STATE_HIDDEN",
        "_NET_WM_STATE_MAXIMIZED_VERT",
        "_NET_WM_STATE_MAXIMIZED_HORZ",
        "_NET_WM_STATE_FULLSCREEN",
        "_NET_WM_STATE_ABOVE",
        "_NET_ACTIVE_WINDOW",
        "_NET_CLIENT_LIST_STACKING",
        "_NET_CLIENT_LIST",
        "_NET_MOVERESIZE_WINDOW",
        "_NET_CLOSE_WINDOW",
        "_NET_FRAME_EXTENTS",
        "WM_CHANGE_STATE",
        "WM_STATE",
        "_NET_WM_NAME",
        "UTF8_STRING",
    ];
    let cookies = names
        .iter()
        .map(|n| conn.intern_atom(false, n.as_bytes()))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| x_error("interning atoms", e))?;
    let mut a = Vec::with_capacity(names.len());
    for cookie in cookies {
        a.push(
            cookie
                .reply()
                .map_err(|e| x_error("interning atoms", e))?
                .atom,
        );
    }
    Ok(Atoms {
        supporting: a[0],
        net_wm_state: a[1],
        hidden: a[2],
        max_vert: a[3],
        max_horz: a[4],
        fullscreen: a[5],
        above: a[6],
        active: a[7],
        stacking: a[8],
        client_list: a[9],
        moveresize: a[10],
        close: a[11],
        frame_extents: a[12],
        wm_change_state: a[13],
        wm_state: a[14],
        net_wm_name: a[15],
        utf8: a[16],
    })
}

/// A window property as 32-bit values; none when the window lacks it.
fn values32(conn: &RustConnection, window: Window, property: u32, type_: u32) -> Result<Vec<u32>> {
    let reply = conn
        .get_property(false, window, property, type_, 0, 4096)
        .map_err(|e| x_error("reading a property", e))?
        .reply()
        .map_err(|e| window_error(window, e))?;
    Ok(reply.value32().map(|v| v.collect()).unwrap_or_default())
}

/// The EWMH window manager's check window, when one runs: the root's
/// `_NET_SUPPORTING_WM_CHECK` names a window whose own property names itself.
fn wm_check_window(conn: &RustConnection, root: Window, a: &Atoms) -> Result<Option<Window>> {
    let Some(&check) = values32(conn, root, a.supporting, AtomEnum::WINDOW.into())?.first() else {
        return Ok(None);
    };
    // A window manager that died leaves the root's property naming a window gone.
    match values32(conn, check, a.supporting, AtomEnum::WINDOW.into()) {
        Ok(own) if own.first() == Some(&check) => Ok(Some(check)),
        Ok(_) => Ok(None),
        Err(e) if e.code == ErrorCode::NoWindow => Ok(None),
        Err(e) => Err(e),
    }
}

impl X11 {
    /// The name of the EWMH window manager that runs on the display (its
    /// check window's `_NET_WM_NAME`, "" when it gives none), or `None`.
    pub fn window_manager(&self) -> Result<Option<String>> {
        let inner = self.lock();
        let conn = &inner.conn;
        let a = atoms(conn)?;
        let Some(check) = wm_check_window(conn, inner.root, &a)? else {
            return Ok(None);
        };
        let reply = conn
            .get_property(false, check, a.net_wm_name, a.utf8, 0, 256)
            .map_err(|e| x_error("reading the window manager's name", e))?
            .reply()
            .map_err(|e| window_error(check, e))?;
        Ok(Some(String::from_utf8_lossy(&reply.value).into_owned()))
    }

    /// The client windows the window manager manages, bottom of the stack
    /// first (`_NET_CLIENT_LIST_STACKING`); with no window manager, the
    /// root's shown children in the X server's stacking order.
    pub fn stacking_order(&self) -> Result<Vec<u32>> {
        let managed = {
            let inner = self.lock();
            let a = atoms(&inner.conn)?;
            match wm_check_window(&inner.conn, inner.root, &a)? {
                Some(_) => Some(values32(
                    &inner.conn,
                    inner.root,
                    a.stacking,
                    AtomEnum::WINDOW.into(),
                )?),
                None => None,
            }
        };
        if let Some(stack) = managed {
            return Ok(stack);
        }
        Ok(self
            .top_level_windows()?
            .into_iter()
            .filter(|w| w.viewable && !w.override_redirect)
            .map(|w| w.id)
            .collect())
    }

    /// How the window manager shows `window` now.
    pub fn wm_window(&self, window: u32) -> Result<WmWindow> {
        match self.read_wm_window(window) {
            // Gone before or while it was read (a window closing as asked).
            Err(e) if e.code == ErrorCode::NoWindow => Ok(WmWindow {
                id: window,
                geometry: Rect {
                    x: 0,
                    y: 0,
                    width: 0,
                    height: 0,
                },
                frame: [0; 4],
                states: WindowStates::default(),
                z_index: None,
                exists: false,
            }),
            read => read,
        }
    }

    fn read_wm_window(&self, window: u32) -> Result<WmWindow> {
        let stack = self.stacking_order()?;
        let inner = self.lock();
        let conn = &inner.conn;
        let a = atoms(conn)?;
        let net_state = values32(conn, window, a.net_wm_state, AtomEnum::ATOM.into())?;
        let wm_state = values32(conn, window, a.wm_state, a.wm_state)?;
        let frame = values32(conn, window, a.frame_extents, AtomEnum::CARDINAL.into())?;
        let has_wm = wm_check_window(conn, inner.root, &a)?.is_some();
        let focused = if has_wm {
            values32(conn, inner.root, a.active, AtomEnum::WINDOW.into())?.first() == Some(&window)
        } else {
            let focus = conn
                .get_input_focus()
                .map_err(|e| x_error("reading the focus", e))?
                .reply()
                .map_err(|e| x_error("reading the focus", e))?
                .focus;
            focus == window
        };
        const ICONIC: u32 = 3;
        let minimized = wm_state.first() == Some(&ICONIC) || net_state.contains(&a.hidden);
        let states = WindowStates {
            minimized,
            maximized: net_state.contains(&a.max_vert) && net_state.contains(&a.max_horz),
            fullscreen: net_state.contains(&a.fullscreen),
            // A window manager may keep a minimized window the active one.
            focused: focused && !minimized,
            above: net_state.contains(&a.above),
        };
        let geometry = crate::x11::geometry(&inner, window)?;
        let z_index = stack.iter().position(|w| *w == window).map(|at| at as u32);
        Ok(WmWindow {
            id: window,
            geometry,
            frame: <[u32; 4]>::try_from(frame).unwrap_or_default(),
            states,
            z_index,
            exists: true,
        })
    }

    /// Asks for `request` and waits up to `timeout` for its effect to show;
    /// the window as it is then. Fails naming what it saw when the effect
    /// does not show (a window manager or an app may refuse).
    pub fn manage_window(
        &self,
        window: u32,
        request: WmRequest,
        timeout: Duration,
    ) -> Result<WmWindow> {
        let before = self.wm_window(window)?;
        if !before.exists {
            return Err(Error::no_window(format!(
                "X window {window:#x} does not exist (any more)"
            ))
            .with_suggestion("list the windows again; this one has closed"));
        }
        let has_wm = self.window_manager()?.is_some();
        let needs_wm = matches!(
            request,
            WmRequest::Minimize | WmRequest::Maximize | WmRequest::Restore
        );
        if needs_wm && !has_wm {
            return Err(Error::unsupported(format!(
                "no window manager runs on {}, so a window cannot be minimized, maximized or restored",
                self.display()
            ))
            .with_suggestion(
                "run a window manager (uidrive's headless desktop starts openbox), or move and resize the window instead",
            ));
        }
        self.send_request(window, request, &before, has_wm)?;
        let deadline = Instant::now() + timeout;
        let mut pause = Duration::from_millis(2);
        loop {
            let now = self.wm_window(window)?;
            if done(request, &now) {
                return Ok(now);
            }
            if Instant::now() >= deadline {
                let limits = self.size_limits(window).unwrap_or_default();
                return Err(not_done(request, &now, timeout, limits));
            }
            std::thread::sleep(pause.min(deadline.saturating_duration_since(Instant::now())));
            pause = (pause * 2).min(Duration::from_millis(50));
        }
    }

    fn send_request(
        &self,
        window: u32,
        request: WmRequest,
        before: &WmWindow,
        has_wm: bool,
    ) -> Result<()> {
        if request == WmRequest::Focus {
            return self.focus(window);
        }
        if request == WmRequest::Close {
            return self.request_close(window, has_wm);
        }
        let inner = self.lock();
        let conn = &inner.conn;
        let a = atoms(conn)?;
        let root = inner.root;
        // Source 2: a pager or taskbar asks, which window managers obey
        // without the checks they make of apps' own requests.
        const SOURCE_PAGER: u32 = 2;
        const REMOVE: u32 = 0;
        const ADD: u32 = 1;
        let send = |type_: u32, data: [u32; 5]| -> Result<()> {
            let event = ClientMessageEvent::new(32, window, type_, data);
            conn.send_event(
                false,
                root,
                EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY,
                event,
            )
            .map_err(|e| x_error("asking the window manager", e))?;
            Ok(())
        };
        let unmaximize = |send: &dyn Fn(u32, [u32; 5]) -> Result<()>| {
            send(
                a.net_wm_state,
                [REMOVE, a.max_vert, a.max_horz, SOURCE_PAGER, 0],
            )?;
            send(a.net_wm_state, [REMOVE, a.fullscreen, 0, SOURCE_PAGER, 0])
        };
        match request {
            WmRequest::Move { .. } | WmRequest::Resize { .. } if !has_wm => {
                let aux = match request {
                    WmRequest::Move { x, y } => ConfigureWindowAux::new().x(x).y(y),
                    WmRequest::Resize { width, height } => {
                        ConfigureWindowAux::new().width(width).height(height)
                    }
                    _ => unreachable!("matched above"),
                };
                conn.configure_window(window, &aux)
                    .map_err(|e| x_error("moving a window", e))?;
            }
            WmRequest::Move { .. } | WmRequest::Resize { .. } => {
                // A maximized window keeps its place: it is restored first.
                if before.states.maximized || before.states.fullscreen {
                    unmaximize(&send)?;
                }
                // StaticGravity (10): x and y are where the content goes,
                // not the frame around it; bits 8-11 say which of x, y,
                // width, height are given.
                const STATIC_GRAVITY: u32 = 10;
                let (flags, data) = match request {
                    WmRequest::Move { x, y } => (
                        STATIC_GRAVITY | 1 << 8 | 1 << 9 | (SOURCE_PAGER << 12),
                        [x as u32, y as u32, 0, 0],
                    ),
                    WmRequest::Resize { width, height } => (
                        STATIC_GRAVITY | 1 << 10 | 1 << 11 | (SOURCE_PAGER << 12),
                        [0, 0, width, height],
                    ),
                    _ => unreachable!("matched above"),
                };
                send(a.moveresize, [flags, data[0], data[1], data[2], data[3]])?;
            }
            WmRequest::Minimize => {
                // ICCCM 4.1.4: IconicState (3), asked of the root.
                send(a.wm_change_state, [3, 0, 0, 0, 0])?;
            }
            WmRequest::Maximize => {
                send(
                    a.net_wm_state,
                    [ADD, a.max_vert, a.max_horz, SOURCE_PAGER, 0],
                )?;
            }
            WmRequest::Restore => {
                unmaximize(&send)?;
                if before.states.minimized {
                    // Activating a minimized window shows it again.
                    send(a.active, [SOURCE_PAGER, x11rb::CURRENT_TIME, 0, 0, 0])?;
                }
            }
            WmRequest::Focus | WmRequest::Close => unreachable!("handled above"),
        }
        crate::x11::sync(conn)
    }

    fn request_close(&self, window: u32, has_wm: bool) -> Result<()> {
        if has_wm {
            let inner = self.lock();
            let conn = &inner.conn;
            let a = atoms(conn)?;
            const SOURCE_PAGER: u32 = 2;
            let event = ClientMessageEvent::new(
                32,
                window,
                a.close,
                [x11rb::CURRENT_TIME, SOURCE_PAGER, 0, 0, 0],
            );
            conn.send_event(
                false,
                inner.root,
                EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY,
                event,
            )
            .map_err(|e| x_error("asking the window manager to close a window", e))?;
            return crate::x11::sync(conn);
        }
        if !self.ask_to_close(window)? {
            return Err(Error::unsupported(format!(
                "X window {window:#x} takes no close request (no WM_DELETE_WINDOW) and no window manager runs"
            ))
            .with_suggestion("close the app instead (close)"));
        }
        Ok(())
    }

    /// Activates `window` through the window manager (`_NET_ACTIVE_WINDOW`,
    /// as a taskbar does: it is shown, raised and focused) and waits up to
    /// `within` for it to be the active window. `false` when no window
    /// manager runs or it did not.
    pub(crate) fn activate(&self, window: u32, within: Duration) -> Result<bool> {
        {
            let inner = self.lock();
            let conn = &inner.conn;
            let a = atoms(conn)?;
            if wm_check_window(conn, inner.root, &a)?.is_none() {
                return Ok(false);
            }
            let event =
                ClientMessageEvent::new(32, window, a.active, [2, x11rb::CURRENT_TIME, 0, 0, 0]);
            conn.send_event(
                false,
                inner.root,
                EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY,
                event,
            )
            .map_err(|e| x_error("activating a window", e))?;
            // A raise the window manager is asked for too (ICCCM 4.1.5).
            conn.configure_window(
                window,
                &ConfigureWindowAux::new().stack_mode(StackMode::ABOVE),
            )
            .map_err(|e| x_error("raising a window", e))?;
            crate::x11::sync(conn)?;
        }
        let deadline = Instant::now() + within;
        loop {
            let now = self.wm_window(window)?;
            let shown = self
                .lock()
                .conn
                .get_window_attributes(window)
                .map_err(|e| x_error("reading a window", e))?
                .reply()
                .map_err(|e| window_error(window, e))?
                .map_state
                == MapState::VIEWABLE;
            if now.states.focused && shown {
                return Ok(true);
            }
            if Instant::now() >= deadline {
                return Ok(false);
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// The frame the window manager draws around `window`, as (left,
    /// right, top, bottom) (`_NET_FRAME_EXTENTS`); zero without one.
    pub fn wm_frame_extents(&self, window: u32) -> Result<[u32; 4]> {
        let inner = self.lock();
        let a = atoms(&inner.conn)?;
        let frame = values32(
            &inner.conn,
            window,
            a.frame_extents,
            AtomEnum::CARDINAL.into(),
        )?;
        Ok(<[u32; 4]>::try_from(frame).unwrap_or_default())
    }

    /// Whether the client list of the window manager holds `window`.
    pub fn is_managed(&self, window: u32) -> Result<bool> {
        let inner = self.lock();
        let a = atoms(&inner.conn)?;
        Ok(values32(
            &inner.conn,
            inner.root,
            a.client_list,
            AtomEnum::WINDOW.into(),
        )?
        .contains(&window))
    }
}

/// Whether the effect of `request` shows in `now`.
fn done(request: WmRequest, now: &WmWindow) -> bool {
    let s = &now.states;
    match request {
        WmRequest::Move { x, y } => now.geometry.x == x && now.geometry.y == y,
        WmRequest::Resize { width, height } => {
            now.geometry.width == width && now.geometry.height == height
        }
        WmRequest::Minimize => s.minimized,
        WmRequest::Maximize => s.maximized && !s.minimized,
        WmRequest::Restore => !s.minimized && !s.maximized && !s.fullscreen,
        WmRequest::Focus => s.focused && !s.minimized,
        // Gone, or withdrawn (no longer stacked): hidden by its app for good.
        WmRequest::Close => !now.exists || now.z_index.is_none(),
    }
}

/// The smallest and largest size the window's `WM_NORMAL_HINTS` allow.
#[derive(Debug, Clone, Copy, Default)]
struct SizeLimits {
    min: Option<(u32, u32)>,
    max: Option<(u32, u32)>,
}

impl X11 {
    fn size_limits(&self, window: u32) -> Result<SizeLimits> {
        let inner = self.lock();
        let hints = values32(
            &inner.conn,
            window,
            AtomEnum::WM_NORMAL_HINTS.into(),
            AtomEnum::WM_SIZE_HINTS.into(),
        )?;
        // ICCCM 4.1.2.3: flags, 4 obsolete fields, min, max, ...
        const P_MIN_SIZE: u32 = 16;
        const P_MAX_SIZE: u32 = 32;
        let flags = hints.first().copied().unwrap_or(0);
        let pair = |at: usize| Some((*hints.get(at)?, *hints.get(at + 1)?));
        Ok(SizeLimits {
            min: pair(5).filter(|_| flags & P_MIN_SIZE != 0),
            max: pair(7).filter(|_| flags & P_MAX_SIZE != 0),
        })
    }
}

/// The error for an effect that did not show, naming what did.
fn not_done(request: WmRequest, now: &WmWindow, timeout: Duration, limits: SizeLimits) -> Error {
    let g = now.geometry;
    let seen = format!(
        "it is at {},{} size {}x{}, states [{}]",
        g.x,
        g.y,
        g.width,
        g.height,
        now.states.names().join(", ")
    );
    let ms = timeout.as_millis();
    let mut seen = seen;
    if let WmRequest::Resize { .. } = request {
        if let Some((w, h)) = limits.min {
            seen.push_str(&format!("; the app's smallest size is {w}x{h}"));
        }
        if let Some((w, h)) = limits.max {
            seen.push_str(&format!("; its largest {w}x{h}"));
        }
    }
    let (what, suggestion) = match request {
        WmRequest::Move { x, y } => (
            format!("move to {x},{y}"),
            "the window manager may keep windows on screen or the window may be maximized; read its bounds and try a place inside the screen",
        ),
        WmRequest::Resize { width, height } => (
            format!("resize to {width}x{height}"),
            "the app may limit its size (a minimum, a fixed size or size steps); read its bounds for the size it took",
        ),
        WmRequest::Minimize => (
            "minimize".to_string(),
            "the window may not allow minimizing (a dialog of another window)",
        ),
        WmRequest::Maximize => (
            "maximize".to_string(),
            "the window may not be resizable (a fixed-size dialog)",
        ),
        WmRequest::Restore => (
            "restore".to_string(),
            "try again, or focus the window",
        ),
        WmRequest::Focus => (
            "focus".to_string(),
            "a modal dialog of the app may hold the focus; focus that dialog instead",
        ),
        WmRequest::Close => (
            "close".to_string(),
            "the app may have asked something first (save changes?): look for a new dialog with `windows`, or close the app",
        ),
    };
    Error::new(
        ErrorCode::Failed,
        format!("the window did not {what} within {ms} ms: {seen}"),
    )
    .with_suggestion(suggestion)
}
