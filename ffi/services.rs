//! The desktop's services from C: the clipboard (`ud_clipboard_*`), the
//! notifications apps show on uidrive's headless desktop
//! (`ud_desktop_notifications`, `ud_notification_*`,
//! `ud_desktop_wait_for_notification`) and its tray (`ud_desktop_tray`,
//! `ud_tray_*`). The operations are the facade's; this marshals.

use crate::convert::{optional_text, out, owned_bytes, owned_json, owned_text, text, zero};
use crate::desktop::{desktop_ref, ud_desktop};
use crate::guard;
use crate::status::ud_status;
use serde_json::json;
use std::ffi::c_char;
use std::time::Duration;

/// The text on the desktop's clipboard (`primary`: the primary selection),
/// asked of the app holding it. `*out_text` is NULL (and the call succeeds)
/// when the clipboard is empty or holds no text.
///
/// `*out_text` is owned by the caller: free it with `ud_string_free`.
///
/// # Safety
/// `desktop` is NULL or a live handle; `out_text` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_clipboard_get(
    desktop: *const ud_desktop,
    primary: bool,
    out_text: *mut *mut c_char,
) -> ud_status {
    zero(out_text);
    guard::status(|| {
        let out_text = out(out_text, "out_text")?;
        if let Some(found) = desktop_ref(desktop)?.services()?.clipboard_get(primary)? {
            *out_text = owned_text(&found);
        }
        Ok(())
    })
}

/// Puts `text` on the desktop's clipboard (`primary`: the primary
/// selection): uidrive holds it and serves it to the apps that paste.
///
/// # Safety
/// `desktop` is NULL or a live handle; `text` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn ud_clipboard_set(
    desktop: *const ud_desktop,
    text: *const c_char,
    primary: bool,
) -> ud_status {
    guard::status(|| {
        let value = crate::convert::text(text, "text")?;
        desktop_ref(desktop)?
            .services()?
            .clipboard_set(value, primary)
    })
}

/// Empties the desktop's clipboard (`primary`: the primary selection), whoever holds it.
///
/// # Safety
/// `desktop` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn ud_clipboard_clear(
    desktop: *const ud_desktop,
    primary: bool,
) -> ud_status {
    guard::status(|| desktop_ref(desktop)?.services()?.clipboard_clear(primary))
}

/// The image on the clipboard as PNG, when the app holding it offers
/// `image/png`: `*out_png` holds `*out_len` bytes; NULL and 0 (and the call
/// succeeds) when it offers none.
///
/// `*out_png` is owned by the caller: free it with `ud_bytes_free`.
///
/// # Safety
/// `desktop` is NULL or a live handle; each out-param is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_clipboard_get_image(
    desktop: *const ud_desktop,
    primary: bool,
    out_png: *mut *mut u8,
    out_len: *mut usize,
) -> ud_status {
    zero(out_png);
    zero(out_len);
    guard::status(|| {
        let out_png = out(out_png, "out_png")?;
        let out_len = out(out_len, "out_len")?;
        if let Some(png) = desktop_ref(desktop)?
            .services()?
            .clipboard_get_image(primary)?
        {
            *out_png = owned_bytes(&png);
            *out_len = png.len();
        }
        Ok(())
    })
}

/// The notifications apps show on uidrive's headless desktop now, as a JSON
/// array: `[{"id": 1, "app_name": "notify-send", "summary": ..., "body": ...,
/// "actions": [{"id": "open", "label": "Open"}], "urgency": "normal",
/// "time": <ms since the epoch>, ...}]`.
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `desktop` is NULL or a live handle; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_desktop_notifications(
    desktop: *const ud_desktop,
    out_json: *mut *mut c_char,
) -> ud_status {
    zero(out_json);
    guard::status(|| {
        let out_json = out(out_json, "out_json")?;
        let list = desktop_ref(desktop)?.services()?.notifications()?;
        *out_json = owned_json(&json!(list));
        Ok(())
    })
}

/// Dismisses notification `id`, as a person closing it (its app is told).
///
/// # Safety
/// `desktop` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn ud_notification_dismiss(desktop: *const ud_desktop, id: u32) -> ud_status {
    guard::status(|| desktop_ref(desktop)?.services()?.notification_dismiss(id))
}

/// Invokes action `action` of notification `id`, as a click on its button:
/// its app gets `ActionInvoked`, then the notification closes.
///
/// # Safety
/// `desktop` is NULL or a live handle; `action` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn ud_notification_invoke(
    desktop: *const ud_desktop,
    id: u32,
    action: *const c_char,
) -> ud_status {
    guard::status(|| {
        let action = text(action, "action")?;
        desktop_ref(desktop)?
            .services()?
            .notification_invoke(id, action)
    })
}

/// Waits up to `timeout_ms` (0: 10 000) for a notification whose summary,
/// body and app name hold `summary`, `body` and `app` (each NULL: any);
/// `*out_json` is that notification, as `ud_desktop_notifications` gives each.
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `desktop` is NULL or a live handle; `summary`, `body` and `app` are NULL
/// or NUL-terminated strings; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_desktop_wait_for_notification(
    desktop: *const ud_desktop,
    summary: *const c_char,
    body: *const c_char,
    app: *const c_char,
    timeout_ms: u32,
    out_json: *mut *mut c_char,
) -> ud_status {
    zero(out_json);
    guard::status(|| {
        let out_json = out(out_json, "out_json")?;
        let summary = optional_text(summary, "summary")?;
        let body = optional_text(body, "body")?;
        let app = optional_text(app, "app")?;
        let timeout = (timeout_ms > 0).then(|| Duration::from_millis(timeout_ms.into()));
        let found = desktop_ref(desktop)?
            .services()?
            .wait_for_notification(summary, body, app, timeout)?;
        *out_json = owned_json(&json!(found));
        Ok(())
    })
}

/// The tray's items on uidrive's headless desktop, as a JSON array:
/// `[{"id": ..., "service": "busname/path", "title": ..., "tooltip": ...,
/// "status": "Active", "has_menu": true, ...}]`.
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `desktop` is NULL or a live handle; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_desktop_tray(
    desktop: *const ud_desktop,
    out_json: *mut *mut c_char,
) -> ud_status {
    zero(out_json);
    guard::status(|| {
        let out_json = out(out_json, "out_json")?;
        let items = desktop_ref(desktop)?.services()?.tray()?;
        *out_json = owned_json(&json!(items));
        Ok(())
    })
}

/// Activates tray item `item` (its id, service or title), as a click on its icon.
///
/// # Safety
/// `desktop` is NULL or a live handle; `item` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn ud_tray_activate(
    desktop: *const ud_desktop,
    item: *const c_char,
) -> ud_status {
    guard::status(|| {
        let item = text(item, "item")?;
        desktop_ref(desktop)?.services()?.tray_activate(item)?;
        Ok(())
    })
}

/// Tray item `item`'s menu, every entry at every depth, as a JSON array:
/// `[{"id": 1, "label": "Open", "enabled": true, "separator": false,
/// "path": [], ...}]`.
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `desktop` is NULL or a live handle; `item` is NULL or a NUL-terminated
/// string; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_tray_menu(
    desktop: *const ud_desktop,
    item: *const c_char,
    out_json: *mut *mut c_char,
) -> ud_status {
    zero(out_json);
    guard::status(|| {
        let out_json = out(out_json, "out_json")?;
        let item = text(item, "item")?;
        let entries = desktop_ref(desktop)?.services()?.tray_menu(item)?;
        *out_json = owned_json(&json!(entries));
        Ok(())
    })
}

/// Clicks entry `entry` (its id, as digits, or its label) of tray item
/// `item`'s menu; the app gets the menu's `clicked` event.
///
/// # Safety
/// `desktop` is NULL or a live handle; `item` and `entry` are NULL or
/// NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn ud_tray_click(
    desktop: *const ud_desktop,
    item: *const c_char,
    entry: *const c_char,
) -> ud_status {
    guard::status(|| {
        let item = text(item, "item")?;
        let entry = text(entry, "entry")?;
        desktop_ref(desktop)?.services()?.tray_click(item, entry)?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::status::UD_ERR_INVALID_REQUEST;
    use std::ptr;

    fn stale<T>() -> *mut T {
        std::ptr::NonNull::dangling().as_ptr()
    }

    /// Every out-param is zeroed first, and a NULL desktop, string or
    /// out-param is refused with `invalid_request`, never dereferenced.
    #[test]
    fn null_arguments_are_refused_and_out_params_zeroed() {
        let text = c"x";
        unsafe {
            let mut out: *mut c_char = stale();
            assert_eq!(
                ud_clipboard_get(ptr::null(), false, &mut out),
                UD_ERR_INVALID_REQUEST
            );
            assert!(out.is_null());
            let (mut png, mut len): (*mut u8, usize) = (stale(), 7);
            assert_eq!(
                ud_clipboard_get_image(ptr::null(), false, &mut png, &mut len),
                UD_ERR_INVALID_REQUEST
            );
            assert!(png.is_null() && len == 0);
            assert_eq!(
                ud_clipboard_set(ptr::null(), text.as_ptr(), false),
                UD_ERR_INVALID_REQUEST
            );
            assert_eq!(
                ud_clipboard_clear(ptr::null(), true),
                UD_ERR_INVALID_REQUEST
            );
            out = stale();
            assert_eq!(
                ud_desktop_notifications(ptr::null(), &mut out),
                UD_ERR_INVALID_REQUEST
            );
            assert!(out.is_null());
            assert_eq!(
                ud_notification_dismiss(ptr::null(), 1),
                UD_ERR_INVALID_REQUEST
            );
            assert_eq!(
                ud_notification_invoke(ptr::null(), 1, text.as_ptr()),
                UD_ERR_INVALID_REQUEST
            );
            out = stale();
            assert_eq!(
                ud_desktop_wait_for_notification(
                    ptr::null(),
                    ptr::null(),
                    ptr::null(),
                    ptr::null(),
                    1,
                    &mut out
                ),
                UD_ERR_INVALID_REQUEST
            );
            assert!(out.is_null());
            out = stale();
            assert_eq!(
                ud_desktop_tray(ptr::null(), &mut out),
                UD_ERR_INVALID_REQUEST
            );
            assert!(out.is_null());
            assert_eq!(
                ud_tray_activate(ptr::null(), text.as_ptr()),
                UD_ERR_INVALID_REQUEST
            );
            out = stale();
            assert_eq!(
                ud_tray_menu(ptr::null(), text.as_ptr(), &mut out),
                UD_ERR_INVALID_REQUEST
            );
            assert!(out.is_null());
            assert_eq!(
                ud_tray_click(ptr::null(), text.as_ptr(), ptr::null()),
                UD_ERR_INVALID_REQUEST
            );
            // A NULL out-param, with a NULL desktop too: refused, nothing written.
            assert_eq!(
                ud_desktop_tray(ptr::null(), ptr::null_mut()),
                UD_ERR_INVALID_REQUEST
            );
        }
    }
}
