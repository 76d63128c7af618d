//! Tells each app where the window manager put its window.
//!
//! A reparenting window manager frames a window and then moves the frame;
//! the app's window does not move inside its frame, so X tells the app
//! nothing, and ICCCM (4.1.5) asks the manager to send a synthetic
//! `ConfigureNotify` with the window's place on the root. Openbox skips it
//! when it resizes the window as it frames it, and an app that asked X where
//! it is before the frame moved keeps that answer: Qt then believed its New
//! Form dialog at (0, 0), opened its combo box's popup there, and reported
//! every element at that place to assistive technology.
//!
//! This thread watches the frames on the root window of uidrive's headless
//! desktop and, each time one is shown or moves, sends the window inside
//! the notice the manager owed. A correct app already knows what it says.

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    AtomEnum, ConfigureNotifyEvent, ConnectionExt, EventMask, CONFIGURE_NOTIFY_EVENT,
};
use x11rb::protocol::Event;
use x11rb::rust_connection::RustConnection;

/// How deep under a frame the app's window may be (openbox puts it in the
/// frame itself; other managers nest it one window further).
const FRAME_DEPTH: usize = 3;

/// Starts the thread for `display`. It ends by itself when the display goes.
pub fn start(display: &str, xauthority: &std::path::Path) -> std::io::Result<()> {
    let (conn, root) = crate::focus::watch_root(display, xauthority)?;
    let wm_state = conn
        .intern_atom(false, b"WM_STATE")
        .map_err(std::io::Error::other)?
        .reply()
        .map_err(std::io::Error::other)?
        .atom;
    std::thread::Builder::new()
        .name("uidrive-placement".into())
        .spawn(move || watch(conn, root, wm_state))?;
    Ok(())
}

fn watch(conn: RustConnection, root: u32, wm_state: u32) {
    while let Ok(event) = conn.wait_for_event() {
        let frame = match event {
            Event::MapNotify(e) if e.event == root && !e.override_redirect => e.window,
            Event::ConfigureNotify(e) if e.event == root && !e.override_redirect => e.window,
            _ => continue,
        };
        // A window may go at any time: every failure just skips this frame.
        if let Some(app_window) = app_window(&conn, frame, wm_state, FRAME_DEPTH) {
            let _ = tell_place(&conn, root, app_window);
        }
    }
}

/// The app's window in `frame`: the first window, `frame` itself included,
/// that carries `WM_STATE` (which the manager sets on the windows it manages).
fn app_window(conn: &RustConnection, frame: u32, wm_state: u32, depth: usize) -> Option<u32> {
    let state = conn
        .get_property(false, frame, wm_state, AtomEnum::ANY, 0, 0)
        .ok()?
        .reply()
        .ok()?;
    if state.type_ != u32::from(AtomEnum::NONE) {
        return Some(frame);
    }
    if depth == 0 {
        return None;
    }
    let children = conn.query_tree(frame).ok()?.reply().ok()?.children;
    children
        .into_iter()
        .find_map(|child| app_window(conn, child, wm_state, depth - 1))
}

/// Sends `window` a synthetic `ConfigureNotify` with its place on the root.
fn tell_place(conn: &RustConnection, root: u32, window: u32) -> Option<()> {
    let geometry = conn.get_geometry(window).ok()?.reply().ok()?;
    let on_root = conn
        .translate_coordinates(window, root, 0, 0)
        .ok()?
        .reply()
        .ok()?;
    let notice = ConfigureNotifyEvent {
        response_type: CONFIGURE_NOTIFY_EVENT,
        sequence: 0,
        event: window,
        window,
        above_sibling: x11rb::NONE,
        // The outer corner, border included, as ICCCM 4.1.5 asks.
        x: on_root.dst_x - geometry.border_width as i16,
        y: on_root.dst_y - geometry.border_width as i16,
        width: geometry.width,
        height: geometry.height,
        border_width: geometry.border_width,
        override_redirect: false,
    };
    conn.send_event(false, window, EventMask::STRUCTURE_NOTIFY, notice)
        .ok()?;
    conn.flush().ok()
}
