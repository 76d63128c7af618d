//! The one thing a window manager does that apps need on a headless desktop:
//! giving the keyboard focus to a window when it is shown.
//!
//! Xvfb runs no window manager, so a window that opens (a dialog, a demo's
//! window) never gets the focus: keys keep going to the first window, and the
//! app's accessibility tree keeps calling that one active. This thread
//! watches the root window and, as a window manager would, focuses each
//! top-level window as it is mapped, and, when the focused window goes, the
//! window shown before it that is still there. Windows that place themselves
//! (menus, tooltips: override-redirect) are left alone.

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    ChangeWindowAttributesAux, ConnectionExt, EventMask, InputFocus, MapState,
};
use x11rb::protocol::Event;
use x11rb::rust_connection::RustConnection;

/// Starts the thread for `display`. It ends by itself when the display goes.
pub fn start(display: &str, xauthority: &std::path::Path) -> std::io::Result<()> {
    let (conn, root) = watch_root(display, xauthority)?;
    std::thread::Builder::new()
        .name("uidrive-focus".into())
        .spawn(move || watch(conn, root))?;
    Ok(())
}

/// A connection of its own to `display` that is told when the root
/// window's children are shown, hidden, moved or gone; and the root.
pub(crate) fn watch_root(
    display: &str,
    xauthority: &std::path::Path,
) -> std::io::Result<(RustConnection, u32)> {
    let (conn, screen) = crate::auth::connect(display, Some(xauthority))
        .map_err(|e| std::io::Error::other(format!("{display}: {e}")))?;
    let root = conn.setup().roots[screen].root;
    conn.change_window_attributes(
        root,
        &ChangeWindowAttributesAux::new().event_mask(EventMask::SUBSTRUCTURE_NOTIFY),
    )
    .map_err(std::io::Error::other)?
    .check()
    .map_err(std::io::Error::other)?;
    Ok((conn, root))
}

fn watch(conn: RustConnection, root: u32) {
    // Top-level windows in the order they were shown, the last on top.
    let mut shown: Vec<u32> = Vec::new();
    let focus = |window: u32| {
        let _ = conn.set_input_focus(InputFocus::PARENT, window, x11rb::CURRENT_TIME);
        let _ = conn.flush();
    };
    while let Ok(event) = conn.wait_for_event() {
        match event {
            Event::MapNotify(e) if e.event == root && !e.override_redirect => {
                shown.retain(|w| *w != e.window);
                shown.push(e.window);
                focus(e.window);
            }
            Event::UnmapNotify(e) if e.event == root => gone(&conn, &mut shown, e.window, &focus),
            Event::DestroyNotify(e) if e.event == root => gone(&conn, &mut shown, e.window, &focus),
            _ => {}
        }
    }
}

fn gone(conn: &RustConnection, shown: &mut Vec<u32>, window: u32, focus: &impl Fn(u32)) {
    let was_top = shown.last() == Some(&window);
    shown.retain(|w| *w != window);
    if !was_top {
        return;
    }
    // The window shown before it, if it is still on screen.
    while let Some(&next) = shown.last() {
        let viewable = conn
            .get_window_attributes(next)
            .ok()
            .and_then(|c| c.reply().ok())
            .is_some_and(|a| a.map_state == MapState::VIEWABLE);
        if viewable {
            focus(next);
            return;
        }
        shown.pop();
    }
}
