//! The last error, kept per thread, as `errno` is.
//!
//! A failing call replaces it; a successful call leaves it alone. The strings
//! handed out point into this thread's record, so they stay valid until the
//! next failing call on the same thread.

use crate::status::{status_of, ud_status, UD_OK};
use std::cell::RefCell;
use std::ffi::{c_char, CString};
use uidrive_core::Error;
use uidrive_facade::hints::{localize, Lang};

struct LastError {
    status: ud_status,
    code_name: CString,
    message: CString,
    suggestion: CString,
}

thread_local! {
    static LAST: RefCell<Option<LastError>> = const { RefCell::new(None) };
}

/// Records `error` as this thread's last error and answers its status code.
pub(crate) fn record(error: &Error) -> ud_status {
    // Suggestions in C's terms (ud_desktop_start, not uidrive_x11::Desktop).
    let error = &localize(error.clone(), Lang::C);
    let status = status_of(&error.code);
    let last = LastError {
        status,
        code_name: c_text(error.code.as_str()),
        message: c_text(&error.message),
        suggestion: c_text(&error.suggestion),
    };
    // `try_with` fails only while the thread is being torn down; the status still gets back.
    let _ = LAST.try_with(|cell| *cell.borrow_mut() = Some(last));
    status
}

/// Text as a C string; a NUL inside (which C cannot hold) is shown as `\0`.
pub(crate) fn c_text(text: &str) -> CString {
    CString::new(text.replace('\0', "\\0")).expect("NULs were replaced")
}

fn with_last<T>(read: impl FnOnce(&LastError) -> T, none: T) -> T {
    LAST.try_with(|cell| cell.borrow().as_ref().map(read))
        .ok()
        .flatten()
        .unwrap_or(none)
}

/// The code of this thread's last failing call, or `UD_OK` when no call on
/// this thread has failed yet.
#[no_mangle]
pub extern "C" fn ud_last_error_code() -> ud_status {
    with_last(|last| last.status, UD_OK)
}

/// The name of this thread's last error code, as the protocol spells it
/// (`"no_window"`), also for a code this build does not know (`UD_ERR_OTHER`).
///
/// Owned by uidrive: valid until the next failing call on this thread; do not
/// free it. `""` when no call on this thread has failed yet. Never NULL.
#[no_mangle]
pub extern "C" fn ud_last_error_code_name() -> *const c_char {
    with_last(|last| last.code_name.as_ptr(), c"".as_ptr())
}

/// What went wrong in this thread's last failing call.
///
/// Owned by uidrive: valid until the next failing call on this thread; do not
/// free it. `""` when no call on this thread has failed yet. Never NULL.
#[no_mangle]
pub extern "C" fn ud_last_error_message() -> *const c_char {
    with_last(|last| last.message.as_ptr(), c"".as_ptr())
}

/// What the caller can do about this thread's last error.
///
/// Owned by uidrive: valid until the next failing call on this thread; do not
/// free it. `""` when no call on this thread has failed yet. Never NULL.
#[no_mangle]
pub extern "C" fn ud_last_error_suggestion() -> *const c_char {
    with_last(|last| last.suggestion.as_ptr(), c"".as_ptr())
}
