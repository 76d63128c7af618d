//! The protocol's eight methods, typed, and `ud_call` for any method by name.
//!
//! Each marshals its arguments into core's params and answers JSON text,
//! bytes or nothing. `window` is a window id from `ud_windows`, or
//! `UD_WINDOW_DEFAULT` (0) for the focused window, else the first.

use crate::app::{handle, ud_app};
use crate::convert::{
    optional_json, optional_text, out, owned_bytes, owned_json, text, text_list, window, zero,
};
use crate::enums;
use crate::guard;
use crate::status::ud_status;
use serde::Serialize;
use serde_json::Value;
use std::ffi::c_char;
use uidrive_core::protocol::{
    ActParams, Action, ElementId, ElementKey, EventKind, InputEvent, InputParams, KeyChord,
    MenuParams, PointerButton,
};
use uidrive_core::{App, Error, Result};

/// The focused window, else the first: pass it where a call takes `window`.
pub const UD_WINDOW_DEFAULT: u64 = 0;

/// For `ud_idle` and `ud_expect_*`: the default timeout. Written into the
/// header by cbindgen.toml (with the parentheses a negative macro needs).
pub const UD_TIMEOUT_DEFAULT: i64 = -1;

pub(crate) fn to_json(value: impl Serialize) -> Result<Value> {
    serde_json::to_value(value)
        .map_err(|e| Error::failed(format!("could not write the answer as JSON: {e}")))
}

/// Runs `call` on the app and hands its JSON answer out through `out_json`.
///
/// # Safety
/// As the public functions: `app` NULL or live, `out_json` NULL or writable.
pub(crate) unsafe fn json_answer(
    app: *const ud_app,
    out_json: *mut *mut c_char,
    call: impl FnOnce(&App) -> Result<Value>,
) -> ud_status {
    zero(out_json);
    guard::status(|| {
        let out_json = out(out_json, "out_json")?;
        let value = handle(app)?.with(call)?;
        *out_json = owned_json(&value);
        Ok(())
    })
}

pub(crate) fn element_id(digits: &str) -> Result<ElementId> {
    digits
        .parse()
        .map_err(|e: String| Error::invalid_request(format!("`element_id`: {e}")))
}

/// Lists the app's windows: `*out_json` is the `windows` answer,
/// `{"windows": [{"id", "title", "kind", "bounds", ...}]}`.
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_windows(app: *const ud_app, out_json: *mut *mut c_char) -> ud_status {
    json_answer(app, out_json, |app| to_json(app.windows()?))
}

/// A window's elements: `*out_json` is the `tree` answer,
/// `{"window", "focus"?, "nodes": [...]}`, a parent before its children.
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_tree(
    app: *const ud_app,
    window_id: u64,
    out_json: *mut *mut c_char,
) -> ud_status {
    json_answer(app, out_json, |app| to_json(app.tree(window(window_id))?))
}

/// # Safety
/// `app` is NULL or a live handle.
unsafe fn act(app: *const ud_app, params: ActParams) -> ud_status {
    guard::status(|| {
        params.validate()?;
        handle(app)?.with(|app| app.act(&params))
    })
}

/// Acts on the element whose id (digits, as `tree` gives them) is
/// `element_id`: `action` is a `UD_ACTION_*` value, `text` the text for
/// `UD_ACTION_SET_VALUE` and `UD_ACTION_INSERT_TEXT` (else NULL).
///
/// # Safety
/// `app` is NULL or a live handle; `element_id` and `text` are NULL or
/// NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn ud_act(
    app: *const ud_app,
    window_id: u64,
    element_id: *const c_char,
    action: i32,
    text: *const c_char,
) -> ud_status {
    let params = guard::args(|| {
        let mut params = ActParams::on(
            self::element_id(self::text(element_id, "element_id")?)?,
            enums::action(action)?,
        )
        .in_window(window(window_id));
        params.text = optional_text(text, "text")?.map(str::to_string);
        Ok(params)
    });
    match params {
        Ok(params) => act(app, params),
        Err(status) => status,
    }
}

/// As `ud_act`, naming the element by its key (the app's own lasting name
/// for it, a string). Keys that are numbers or booleans go through `ud_call`.
///
/// # Safety
/// `app` is NULL or a live handle; `key` and `text` are NULL or
/// NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn ud_act_by_key(
    app: *const ud_app,
    window_id: u64,
    key: *const c_char,
    action: i32,
    text: *const c_char,
) -> ud_status {
    let params = guard::args(|| {
        Ok(ActParams {
            window: window(window_id),
            id: None,
            key: Some(ElementKey::Str(self::text(key, "key")?.to_string())),
            action: enums::action(action)?,
            text: optional_text(text, "text")?.map(str::to_string),
            from: None,
            to: None,
        })
    });
    match params {
        Ok(params) => act(app, params),
        Err(status) => status,
    }
}

/// Selects the runes `[from, to)` of a text element (`act` with `selectText`).
///
/// # Safety
/// `app` is NULL or a live handle; `element_id` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn ud_select_text(
    app: *const ud_app,
    window_id: u64,
    element_id: *const c_char,
    from: u32,
    to: u32,
) -> ud_status {
    let params = guard::args(|| {
        let mut params = ActParams::on(
            self::element_id(text(element_id, "element_id")?)?,
            Action::SelectText,
        )
        .in_window(window(window_id));
        params.from = Some(from);
        params.to = Some(to);
        Ok(params)
    });
    match params {
        Ok(params) => act(app, params),
        Err(status) => status,
    }
}

/// # Safety
/// `app` is NULL or a live handle.
unsafe fn input(app: *const ud_app, window_id: u64, events: Vec<InputEvent>) -> ud_status {
    guard::status(|| {
        let params = InputParams {
            window: window(window_id),
            events,
            hold: false,
        };
        params.validate()?;
        handle(app)?.with(|app| app.input(params.window, params.events))
    })
}

/// Sends real input events to the window: `events_json` is the `input`
/// method's `events` array, as
/// `[{"type":"click","x":10,"y":20},{"type":"text","text":"hi"}]`.
/// Coordinates are DIPs relative to the window's content.
///
/// # Safety
/// `app` is NULL or a live handle; `events_json` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn ud_input(
    app: *const ud_app,
    window_id: u64,
    events_json: *const c_char,
) -> ud_status {
    let events = guard::args(|| {
        let json = text(events_json, "events_json")?;
        serde_json::from_str::<Vec<InputEvent>>(json).map_err(|e| {
            Error::invalid_request(format!("`events_json` is not an events array: {e}"))
        })
    });
    match events {
        Ok(events) => input(app, window_id, events),
        Err(status) => status,
    }
}

/// Clicks at `(x, y)` (DIPs in the window's content) with `button` (a
/// `UD_BUTTON_*` value), `clicks` times (1, 2 or 3).
///
/// # Safety
/// `app` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn ud_click(
    app: *const ud_app,
    window_id: u64,
    x: f64,
    y: f64,
    button: i32,
    clicks: u32,
) -> ud_status {
    let event = guard::args(|| {
        let mut press = PointerButton::at(x, y);
        press.button = Some(enums::button(button)?);
        press.clicks = Some(clicks);
        Ok(InputEvent::Click(press))
    });
    match event {
        Ok(event) => input(app, window_id, vec![event]),
        Err(status) => status,
    }
}

/// Types `text` into the window's focused element, as a keyboard or an
/// input method would.
///
/// # Safety
/// `app` is NULL or a live handle; `text` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn ud_type_text(
    app: *const ud_app,
    window_id: u64,
    text: *const c_char,
) -> ud_status {
    let event = guard::args(|| {
        Ok(InputEvent::Text {
            text: self::text(text, "text")?.to_string(),
        })
    });
    match event {
        Ok(event) => input(app, window_id, vec![event]),
        Err(status) => status,
    }
}

/// Presses and releases a key chord such as `"Enter"` or `"Ctrl+A"`; a key
/// that types (`"a"`) types its character, as a keystroke does.
///
/// # Safety
/// `app` is NULL or a live handle; `chord` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn ud_press_key(
    app: *const ud_app,
    window_id: u64,
    chord: *const c_char,
) -> ud_status {
    let events = guard::args(|| {
        let chord = text(chord, "chord")?;
        let key: KeyChord = chord
            .parse()
            .map_err(|e| Error::invalid_request(format!("`chord`: {e}")))?;
        Ok(InputEvent::keystroke(key))
    });
    match events {
        Ok(events) => input(app, window_id, events),
        Err(status) => status,
    }
}

/// Chooses a menu-bar item by the labels along its path: `path` is a
/// NULL-terminated array, as `{"File", "Quit", NULL}`.
///
/// # Safety
/// `app` is NULL or a live handle; `path` is NULL or a NULL-terminated array
/// of NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn ud_menu(
    app: *const ud_app,
    window_id: u64,
    path: *const *const c_char,
) -> ud_status {
    guard::status(|| {
        let params = MenuParams {
            window: window(window_id),
            path: text_list(path, "path")?,
        };
        params.validate()?;
        handle(app)?.with(|app| app.menu(params.window, params.path))
    })
}

/// Captures the window as a PNG: `*out_png` holds `*out_len` bytes of a
/// `*out_width` x `*out_height` image (device pixels).
///
/// `*out_png` is owned by the caller: free it with `ud_bytes_free`. All four
/// out-params are zero/NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; each out-param is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_capture(
    app: *const ud_app,
    window_id: u64,
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
        let capture = handle(app)?.with(|app| app.capture(window(window_id)))?;
        *out_png = owned_bytes(&capture.png);
        *out_len = capture.png.len();
        *out_width = capture.width;
        *out_height = capture.height;
        Ok(())
    })
}

/// Evaluates `script` in a window showing a web page: `*out_json` is the
/// script's value as JSON text (`"42"`, `"\"text\""`, `"null"`).
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `script` is NULL or a NUL-terminated
/// string; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_eval(
    app: *const ud_app,
    window_id: u64,
    script: *const c_char,
    out_json: *mut *mut c_char,
) -> ud_status {
    zero(out_json);
    let script = guard::args(|| Ok(text(script, "script")?.to_string()));
    match script {
        Ok(script) => json_answer(app, out_json, |app| app.eval(window(window_id), &script)),
        Err(status) => status,
    }
}

/// Waits until the window has settled (no pending redraw or layout), or fails
/// with `UD_ERR_TIMEOUT`: `timeout_ms` is the longest wait in milliseconds,
/// or `UD_TIMEOUT_DEFAULT` (-1) for the server's own.
///
/// # Safety
/// `app` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn ud_idle(app: *const ud_app, window_id: u64, timeout_ms: i64) -> ud_status {
    guard::status(|| {
        let timeout =
            uidrive_facade::time::signed_millis("`timeout_ms`", timeout_ms, UD_TIMEOUT_DEFAULT)?;
        handle(app)?.with(|app| app.idle(window(window_id), timeout))
    })
}

/// Waits until the pixels of window `window_id` (0: the focused window) change
/// and then settle (two captures alike), up to `timeout_ms` (`UD_TIMEOUT_DEFAULT`,
/// -1: 10 000). `region_json` is NULL for the whole window, or a box in its
/// pixels as JSON, `{"x":0,"y":0,"width":100,"height":40}`. `*out_json` is the
/// region watched. `UD_ERR_TIMEOUT` when the pixels did not change, or did not settle.
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `region_json` is NULL or a NUL-terminated
/// string; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_wait_changed(
    app: *const ud_app,
    window_id: u64,
    region_json: *const c_char,
    timeout_ms: i64,
    out_json: *mut *mut c_char,
) -> ud_status {
    zero(out_json);
    let args = guard::args(|| {
        let region: Option<uidrive_core::protocol::Bounds> = if region_json.is_null() {
            None
        } else {
            let given = text(region_json, "region_json")?;
            Some(serde_json::from_str(given).map_err(|e| {
                uidrive_core::Error::invalid_request(format!(
                    "`region_json` is not a box {{\"x\",\"y\",\"width\",\"height\"}}: {e}"
                ))
            })?)
        };
        let timeout =
            uidrive_facade::time::signed_millis("`timeout_ms`", timeout_ms, UD_TIMEOUT_DEFAULT)?;
        Ok((region, timeout.unwrap_or(uidrive_core::defaults::IDLE)))
    });
    let (region, timeout) = match args {
        Ok(args) => args,
        Err(status) => return status,
    };
    json_answer(app, out_json, move |app| {
        let root = if window_id == 0 {
            app.focused_window()
        } else {
            app.window(window_id)
        };
        to_json(root.wait_changed(region, timeout)?)
    })
}

/// Waits until a window whose title matches `title` under `matching` shows
/// (a dialog an action opens), up to `timeout_ms` (`UD_TIMEOUT_DEFAULT`, -1:
/// 10 000): `*out_json` is that window as `windows` lists it. `UD_ERR_TIMEOUT`,
/// naming the windows there are, when none shows.
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `title` is NULL or a NUL-terminated
/// string; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_wait_for_window(
    app: *const ud_app,
    title: *const c_char,
    matching: i32,
    timeout_ms: i64,
    out_json: *mut *mut c_char,
) -> ud_status {
    zero(out_json);
    let args = guard::args(|| {
        let title = crate::locator::text_match(text(title, "title")?, matching)?;
        let timeout =
            uidrive_facade::time::signed_millis("`timeout_ms`", timeout_ms, UD_TIMEOUT_DEFAULT)?;
        Ok((title, timeout.unwrap_or(uidrive_core::defaults::IDLE)))
    });
    let (title, timeout) = match args {
        Ok(args) => args,
        Err(status) => return status,
    };
    json_answer(app, out_json, move |app| {
        to_json(app.wait_for_window(&title, timeout)?)
    })
}

/// Waits for an accessibility event the app sends: `kind` is `"focus"`,
/// `"value"`, `"name"`, `"states"`, `"children"` or `"window"`; with
/// `target` (a locator, or NULL for any element), only its one element's.
/// The first since uidrive's last action that no earlier wait answered,
/// else the next to come, up to `timeout_ms` (`UD_TIMEOUT_DEFAULT`, -1:
/// 10 000): `*out_json` is the event (`kind`, `detail`, `element`, `window`,
/// `node`, and the new `value` where it has one). `UD_ERR_TIMEOUT` when
/// none comes; `UD_ERR_UNSUPPORTED` where the app's driver sees no events.
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `kind` is NULL or a NUL-terminated
/// string; `target` is NULL or a live locator; `out_json` is NULL or valid
/// for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_wait_for_event(
    app: *const ud_app,
    kind: *const c_char,
    target: *const crate::locator::ud_locator,
    timeout_ms: i64,
    out_json: *mut *mut c_char,
) -> ud_status {
    zero(out_json);
    let args = guard::args(|| {
        let kind: EventKind = text(kind, "kind")?.parse()?;
        let target = crate::locator::optional_target(target, "target")?;
        let timeout =
            uidrive_facade::time::signed_millis("`timeout_ms`", timeout_ms, UD_TIMEOUT_DEFAULT)?;
        Ok((kind, target, timeout))
    });
    let (kind, target, timeout) = match args {
        Ok(args) => args,
        Err(status) => return status,
    };
    json_answer(app, out_json, move |app| {
        to_json(app.wait_for_event(kind, target.as_ref(), timeout)?)
    })
}

/// Calls any protocol method by name, with its params as JSON text (an
/// object, or NULL for none): `*out_json` is the result as JSON text. Reaches
/// every method the app answers, including ones without a typed function
/// (`hello`, and methods newer than this build).
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `method` and `params_json` are NULL or
/// NUL-terminated strings; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_call(
    app: *const ud_app,
    method: *const c_char,
    params_json: *const c_char,
    out_json: *mut *mut c_char,
) -> ud_status {
    zero(out_json);
    let request = guard::args(|| {
        let method = text(method, "method")?.to_string();
        let params = optional_json(params_json, "params_json")?;
        if let Some(params) = &params {
            if !params.is_object() {
                return Err(Error::invalid_request(
                    "`params_json` must be a JSON object, or NULL for no params",
                ));
            }
        }
        Ok((method, params))
    });
    match request {
        Ok((method, params)) => json_answer(app, out_json, |app| app.call(&method, params)),
        Err(status) => status,
    }
}
