//! The keyboard: real text input into the focused element, at once or key
//! by key (`ud_press_key` presses chords).

use crate::app::handle;
use crate::app::ud_app;
use crate::convert::{text, window};
use crate::guard;
use crate::status::ud_status;
use std::ffi::c_char;
use std::time::Duration;

/// Types `text` into the element that has the focus in `window_id`
/// (`UD_WINDOW_DEFAULT`: the focused window): as one text event when
/// `delay_ms` is 0, else one character at a time `delay_ms` apart (at most
/// 10 000). For typing into a given element, use `ud_locator_type` or
/// `ud_locator_press_sequentially`.
///
/// # Safety
/// `app` is NULL or a live handle; `text` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn ud_keyboard_type(
    app: *const ud_app,
    window_id: u64,
    text: *const c_char,
    delay_ms: u32,
) -> ud_status {
    guard::status(|| {
        let typed = self::text(text, "text")?;
        let delay = (delay_ms > 0).then(|| Duration::from_millis(delay_ms.into()));
        handle(app)?.with(|app| {
            let keyboard = match window(window_id) {
                Some(id) => app.keyboard().in_window(id),
                None => app.keyboard(),
            };
            keyboard.type_text(typed, delay)
        })
    })
}
