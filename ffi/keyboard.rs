//! The keyboard: real text input and key chords into the focused element,
//! each answered with what the tree showed of it (`ud_press_key` is the raw
//! input call, which answers nothing more than that it was sent).

use crate::app::handle;
use crate::app::ud_app;
use crate::convert::{owned_json, text, window, zero};
use crate::guard;
use crate::status::ud_status;
use std::ffi::c_char;
use std::time::Duration;
use uidrive_core::{ActionOutcome, App, Keyboard, Result};
use uidrive_facade::outcome;

/// Runs keyboard input; its outcome goes to `out_outcome_json` when that is not NULL.
///
/// # Safety
/// `app` is NULL or a live handle; `out_outcome_json` is NULL or valid for a write.
unsafe fn keyboard_input(
    app: *const ud_app,
    window_id: u64,
    out_outcome_json: *mut *mut c_char,
    input: impl FnOnce(&Keyboard) -> Result<ActionOutcome>,
) -> ud_status {
    zero(out_outcome_json);
    guard::status(|| {
        let done = handle(app)?.with(|app: &App| {
            let keyboard = match window(window_id) {
                Some(id) => app.keyboard().in_window(id),
                None => app.keyboard(),
            };
            input(&keyboard)
        })?;
        if !out_outcome_json.is_null() {
            *out_outcome_json = owned_json(&outcome::to_json(&done)?);
        }
        Ok(())
    })
}

/// Types `text` into the element that has the focus in `window_id`
/// (`UD_WINDOW_DEFAULT`: the focused window): as one text event when
/// `delay_ms` is 0, else one character at a time `delay_ms` apart (at most
/// 10 000). Then waits until the focused element reads the text: the
/// outcome is `"effect":"confirmed"`; `UD_ERR_FAILED`, saying what it reads,
/// when it does not; `"effect":"unverifiable"` when nothing focused shows
/// text. `out_outcome_json` as for `ud_locator_click` (may be NULL). For
/// typing into a given element, use `ud_locator_type` or
/// `ud_locator_press_sequentially`.
///
/// # Safety
/// `app` is NULL or a live handle; `text` is NULL or a NUL-terminated string;
/// `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_keyboard_type(
    app: *const ud_app,
    window_id: u64,
    text: *const c_char,
    delay_ms: u32,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    zero(out_outcome_json);
    let typed = match guard::args(|| Ok(self::text(text, "text")?.to_string())) {
        Ok(typed) => typed,
        Err(status) => return status,
    };
    let delay = (delay_ms > 0).then(|| Duration::from_millis(delay_ms.into()));
    keyboard_input(app, window_id, out_outcome_json, |keyboard| {
        keyboard.type_text(&typed, delay)
    })
}

/// Presses a key chord such as `"Enter"` or `"Ctrl+A"` into the focused
/// element of `window_id`. The outcome is `"effect":"confirmed"` when the
/// focus moved, the focused element changed or a window opened or closed,
/// else `"effect":"unverifiable"` (what a chord does is the app's).
/// `out_outcome_json` as for `ud_locator_click` (may be NULL).
///
/// # Safety
/// `app` is NULL or a live handle; `chord` is NULL or a NUL-terminated
/// string; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_keyboard_press(
    app: *const ud_app,
    window_id: u64,
    chord: *const c_char,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    zero(out_outcome_json);
    let chord = match guard::args(|| Ok(text(chord, "chord")?.to_string())) {
        Ok(chord) => chord,
        Err(status) => return status,
    };
    keyboard_input(app, window_id, out_outcome_json, |keyboard| {
        keyboard.press(&chord)
    })
}

/// Presses `chord`'s keys in `window_id` and leaves them down, as a person
/// holds Shift: `"Shift"` alone, or a chord such as `"Ctrl+Shift"`. The
/// inputs that follow, through any function, come with them held, until
/// `ud_keyboard_up` releases them or the app is freed (`ud_app_free`; an
/// app reached over a socket: when its connection closes). The outcome is `"effect":"unverifiable"`: a held key
/// shows nothing until the next input. `out_outcome_json` as for
/// `ud_locator_click` (may be NULL).
///
/// # Safety
/// `app` is NULL or a live handle; `chord` is NULL or a NUL-terminated
/// string; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_keyboard_down(
    app: *const ud_app,
    window_id: u64,
    chord: *const c_char,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    chord_input(app, window_id, chord, out_outcome_json, Keyboard::down)
}

/// Releases keys `ud_keyboard_down` holds (`"Shift"`); releasing a key that
/// is not down sends nothing. The outcome is `"effect":"unverifiable"`.
/// `out_outcome_json` as for `ud_locator_click` (may be NULL).
///
/// # Safety
/// `app` is NULL or a live handle; `chord` is NULL or a NUL-terminated
/// string; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_keyboard_up(
    app: *const ud_app,
    window_id: u64,
    chord: *const c_char,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    chord_input(app, window_id, chord, out_outcome_json, Keyboard::up)
}

/// Keyboard input of one chord read from C.
///
/// # Safety
/// As [`keyboard_input`]; `chord` is NULL or a NUL-terminated string.
unsafe fn chord_input(
    app: *const ud_app,
    window_id: u64,
    chord: *const c_char,
    out_outcome_json: *mut *mut c_char,
    input: fn(&Keyboard, &str) -> Result<ActionOutcome>,
) -> ud_status {
    zero(out_outcome_json);
    let chord = match guard::args(|| Ok(text(chord, "chord")?.to_string())) {
        Ok(chord) => chord,
        Err(status) => return status,
    };
    keyboard_input(app, window_id, out_outcome_json, |keyboard| {
        input(keyboard, &chord)
    })
}
