//! Window management through the window manager (`ud_window_*`), the
//! desktop's apps and its whole screen, and the window an action opens.
//! `window_id` is a window id from `ud_windows`, or `UD_WINDOW_DEFAULT` (0)
//! for the focused window, else the first. Each operation waits (up to the
//! app's action timeout) for its effect to read back and answers the window's
//! state as JSON: `{"id", "bounds", "states", "zIndex", "effect", "closed"?}`.

use crate::app::{handle, ud_app};
use crate::convert::{optional_text, out, owned_bytes, zero};
use crate::guard;
use crate::methods::{json_answer, to_json, UD_TIMEOUT_DEFAULT};
use crate::status::ud_status;
use std::ffi::c_char;
use uidrive_core::protocol::WindowId;
use uidrive_core::{App, Error, Result, WindowRef};

fn window_ref(app: &App, window_id: u64) -> WindowRef {
    match crate::convert::window(window_id) {
        Some(id) => app.window(id),
        None => app.focused_window(),
    }
}

/// Moves the window's content to `x`, `y` on the screen through the window
/// manager: `*out_json` is its state once its place reads back so;
/// `UD_ERR_FAILED`, naming where it is, when it does not.
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_window_move(
    app: *const ud_app,
    window_id: u64,
    x: i32,
    y: i32,
    out_json: *mut *mut c_char,
) -> ud_status {
    json_answer(app, out_json, |app| {
        to_json(window_ref(app, window_id).move_to(x, y)?)
    })
}

/// Resizes the window's content to `width` x `height` (confirmed as
/// `ud_window_move` is; an app's own smallest size is named when refused).
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_window_resize(
    app: *const ud_app,
    window_id: u64,
    width: u32,
    height: u32,
    out_json: *mut *mut c_char,
) -> ud_status {
    json_answer(app, out_json, |app| {
        to_json(window_ref(app, window_id).resize(width, height)?)
    })
}

/// Minimizes the window (confirmed by its state).
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_window_minimize(
    app: *const ud_app,
    window_id: u64,
    out_json: *mut *mut c_char,
) -> ud_status {
    json_answer(app, out_json, |app| {
        to_json(window_ref(app, window_id).minimize()?)
    })
}

/// Maximizes the window (confirmed by its state).
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_window_maximize(
    app: *const ud_app,
    window_id: u64,
    out_json: *mut *mut c_char,
) -> ud_status {
    json_answer(app, out_json, |app| {
        to_json(window_ref(app, window_id).maximize()?)
    })
}

/// Shows the window neither minimized, maximized nor fullscreen.
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_window_restore(
    app: *const ud_app,
    window_id: u64,
    out_json: *mut *mut c_char,
) -> ud_status {
    json_answer(app, out_json, |app| {
        to_json(window_ref(app, window_id).restore()?)
    })
}

/// Raises the window and gives it the focus (confirmed by the active window).
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_window_focus(
    app: *const ud_app,
    window_id: u64,
    out_json: *mut *mut c_char,
) -> ud_status {
    json_answer(app, out_json, |app| {
        to_json(window_ref(app, window_id).focus()?)
    })
}

/// Asks the window to close as its close button does, and waits for it to
/// go (`"closed": true`); `UD_ERR_FAILED` when the app keeps it (it may ask
/// first: save changes?).
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_window_close(
    app: *const ud_app,
    window_id: u64,
    out_json: *mut *mut c_char,
) -> ud_status {
    json_answer(app, out_json, |app| {
        to_json(window_ref(app, window_id).close()?)
    })
}

/// The window's content on the screen: `{"x", "y", "width", "height"}`.
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_window_bounds(
    app: *const ud_app,
    window_id: u64,
    out_json: *mut *mut c_char,
) -> ud_status {
    json_answer(app, out_json, |app| {
        to_json(window_ref(app, window_id).bounds()?)
    })
}

/// Which of `minimized`, `maximized`, `fullscreen`, `focused`, `above`
/// hold, as a JSON array of strings.
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_window_states(
    app: *const ud_app,
    window_id: u64,
    out_json: *mut *mut c_char,
) -> ud_status {
    json_answer(app, out_json, |app| {
        to_json(window_ref(app, window_id).states()?)
    })
}

/// Every app on the desktop's accessibility bus: `*out_json` is
/// `{"apps": [{"name", "pid", "toolkit", "windows": [titles]}]}`.
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_apps(app: *const ud_app, out_json: *mut *mut c_char) -> ud_status {
    json_answer(app, out_json, |app| to_json(app.apps()?))
}

/// Captures the whole screen as a PNG: `*out_png` holds `*out_len` bytes
/// of a `*out_width` x `*out_height` image.
///
/// `*out_png` is owned by the caller: free it with `ud_bytes_free`. All four
/// out-params are zero/NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; each out-param is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_capture_screen(
    app: *const ud_app,
    out_png: *mut *mut u8,
    out_len: *mut usize,
    out_width: *mut u32,
    out_height: *mut u32,
) -> ud_status {
    zero(out_png);
    zero(out_len);
    zero(out_width);
    zero(out_height);
    guard::status(|| {
        let out_png = out(out_png, "out_png")?;
        let out_len = out(out_len, "out_len")?;
        let out_width = out(out_width, "out_width")?;
        let out_height = out(out_height, "out_height")?;
        let capture = handle(app)?.with(|app| app.capture_screen())?;
        *out_png = owned_bytes(&capture.png);
        *out_len = capture.png.len();
        *out_width = capture.width;
        *out_height = capture.height;
        Ok(())
    })
}

/// The ids of the app's windows now, as a JSON array: pass it to
/// `ud_app_wait_for_new_window` after the action that opens a window.
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_window_ids(
    app: *const ud_app,
    out_json: *mut *mut c_char,
) -> ud_status {
    json_answer(app, out_json, |app| {
        to_json(uidrive_facade::windows::window_ids(app)?)
    })
}

/// Waits up to `timeout_ms` (`UD_TIMEOUT_DEFAULT`, -1: 10 000) for a window
/// whose id is not in `before_json` (what `ud_app_window_ids` gave before
/// the action): `*out_json` is that window as `ud_windows` lists it, found
/// by its appearance whatever its title. `UD_ERR_TIMEOUT` when none opens.
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `before_json` is NULL or a NUL-terminated
/// string; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_wait_for_new_window(
    app: *const ud_app,
    before_json: *const c_char,
    timeout_ms: i64,
    out_json: *mut *mut c_char,
) -> ud_status {
    zero(out_json);
    let args = guard::args(|| {
        let before: Vec<WindowId> = match optional_text(before_json, "before_json")? {
            None => Vec::new(),
            Some(text) => serde_json::from_str(text).map_err(|e| {
                Error::invalid_request(format!(
                    "`before_json`: not a JSON array of window ids ({e})"
                ))
            })?,
        };
        let timeout =
            uidrive_facade::time::signed_millis("`timeout_ms`", timeout_ms, UD_TIMEOUT_DEFAULT)?;
        Ok((before, timeout.unwrap_or(uidrive_core::defaults::IDLE)))
    });
    let (before, timeout) = match args {
        Ok(args) => args,
        Err(status) => return status,
    };
    json_answer(app, out_json, move |app| -> Result<serde_json::Value> {
        to_json(uidrive_facade::windows::wait_for_new_window(
            app, &before, timeout,
        )?)
    })
}

/// A PNG of the one element the locator finds: its box cut from a capture
/// of its window (waited for as a read is): `*out_png` holds `*out_len`
/// bytes of a `*out_width` x `*out_height` image. `UD_ERR_NOT_ACTIONABLE`
/// when it has no box on the screen.
///
/// `*out_png` is owned by the caller: free it with `ud_bytes_free`. All four
/// out-params are zero/NULL on failure.
///
/// # Safety
/// `locator` is NULL or a live locator; each out-param is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_screenshot(
    locator: *const crate::locator::ud_locator,
    out_png: *mut *mut u8,
    out_len: *mut usize,
    out_width: *mut u32,
    out_height: *mut u32,
) -> ud_status {
    zero(out_png);
    zero(out_len);
    zero(out_width);
    zero(out_height);
    guard::status(|| {
        let out_png = out(out_png, "out_png")?;
        let out_len = out(out_len, "out_len")?;
        let out_width = out(out_width, "out_width")?;
        let out_height = out(out_height, "out_height")?;
        let capture = crate::locator::locator_ref(locator, "locator")?.run(|l| l.screenshot())?;
        *out_png = owned_bytes(&capture.png);
        *out_len = capture.png.len();
        *out_width = capture.width;
        *out_height = capture.height;
        Ok(())
    })
}
