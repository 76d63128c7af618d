//! Status codes: the integers that `ud_*` functions return.
//!
//! `UD_OK` is 0; each error code is its position in `ErrorCode::ALL` plus
//! one, so the numbers only grow as core learns new codes.

use crate::guard;
use std::ffi::{c_char, CString};
use std::sync::OnceLock;
use uidrive_core::ErrorCode;

/// What a fallible `ud_*` function returns: `UD_OK` or a `UD_ERR_*` code.
#[allow(non_camel_case_types)]
pub type ud_status = i32;

/// Success.
pub const UD_OK: ud_status = 0;
/// A line that is not JSON reached the other side (`parse_error`).
pub const UD_ERR_PARSE_ERROR: ud_status = 1;
/// A parameter is missing, NULL, not UTF-8, out of range, or not valid JSON (`invalid_request`).
pub const UD_ERR_INVALID_REQUEST: ud_status = 2;
/// The app does not know the method (`unknown_method`).
pub const UD_ERR_UNKNOWN_METHOD: ud_status = 3;
/// No window has the id, or the app has none (`no_window`).
pub const UD_ERR_NO_WINDOW: ud_status = 4;
/// No element has the id or the key (`no_element`).
pub const UD_ERR_NO_ELEMENT: ud_status = 5;
/// The window or element cannot do it (`unsupported`).
pub const UD_ERR_UNSUPPORTED: ud_status = 6;
/// A wait ran out of time (`timeout`).
pub const UD_ERR_TIMEOUT: ud_status = 7;
/// The app could not do it, or uidrive hit an internal error (`failed`).
pub const UD_ERR_FAILED: ud_status = 8;
/// The connection to the app could not be made, or it closed (`disconnected`).
pub const UD_ERR_DISCONNECTED: ud_status = 9;
/// The other side broke the protocol (`protocol_error`).
pub const UD_ERR_PROTOCOL_ERROR: ud_status = 10;
/// A locator matched more than one element (`ambiguous`).
pub const UD_ERR_AMBIGUOUS: ud_status = 11;
/// The element cannot take the action now (`not_actionable`).
pub const UD_ERR_NOT_ACTIONABLE: ud_status = 12;
/// A snapshot ref whose element is gone (`stale_ref`).
pub const UD_ERR_STALE_REF: ud_status = 13;
/// The app uidrive launched exited (`app_exited`).
pub const UD_ERR_APP_EXITED: ud_status = 14;
/// An expectation did not hold before its timeout (`assertion_failed`).
pub const UD_ERR_ASSERTION_FAILED: ud_status = 15;
/// A code this build does not know, sent by a newer server: read its name
/// with `ud_last_error_code_name()`.
pub const UD_ERR_OTHER: ud_status = 100;

/// Core's codes in a static, so their names live for `'static`.
static KNOWN: [ErrorCode; ErrorCode::ALL.len()] = ErrorCode::ALL;

/// The status code of an error code.
pub(crate) fn status_of(code: &ErrorCode) -> ud_status {
    match ErrorCode::ALL.iter().position(|known| known == code) {
        // ALL has 15 entries, so the cast cannot truncate.
        Some(at) => at as ud_status + 1,
        None => UD_ERR_OTHER,
    }
}

/// The code's name (`"no_window"`), or `None` for a number that is no status.
pub(crate) fn name_of(status: ud_status) -> Option<&'static str> {
    match status {
        UD_OK => Some("ok"),
        UD_ERR_OTHER => Some("other"),
        n if n >= 1 => KNOWN.get(n as usize - 1).map(ErrorCode::as_str),
        _ => None,
    }
}

/// The name of a status code, as the protocol spells it: `"ok"` for
/// `UD_OK`, `"no_window"` for `UD_ERR_NO_WINDOW`, `"other"` for `UD_ERR_OTHER`,
/// and `"unknown"` for a number that is no status. A static string: do not free it.
#[no_mangle]
pub extern "C" fn ud_status_name(status: ud_status) -> *const c_char {
    guard::value(c"unknown".as_ptr(), || match name_of(status) {
        Some(name) => static_c_name(name),
        None => c"unknown".as_ptr(),
    })
}

/// NUL-terminated copies of the names, made once and kept for the process's life.
fn static_c_name(name: &'static str) -> *const c_char {
    static NAMES: OnceLock<Vec<(&'static str, CString)>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        ["ok", "other"]
            .into_iter()
            .chain(KNOWN.iter().map(ErrorCode::as_str))
            .map(|name| (name, CString::new(name).expect("names have no NUL")))
            .collect()
    });
    names
        .iter()
        .find(|(known, _)| *known == name)
        .map_or(c"unknown".as_ptr(), |(_, c_name)| c_name.as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header's numbers must follow core's order; a new code in core must get a constant here.
    #[test]
    fn status_numbers_follow_core_order() {
        let constants = [
            (UD_ERR_PARSE_ERROR, "parse_error"),
            (UD_ERR_INVALID_REQUEST, "invalid_request"),
            (UD_ERR_UNKNOWN_METHOD, "unknown_method"),
            (UD_ERR_NO_WINDOW, "no_window"),
            (UD_ERR_NO_ELEMENT, "no_element"),
            (UD_ERR_UNSUPPORTED, "unsupported"),
            (UD_ERR_TIMEOUT, "timeout"),
            (UD_ERR_FAILED, "failed"),
            (UD_ERR_DISCONNECTED, "disconnected"),
            (UD_ERR_PROTOCOL_ERROR, "protocol_error"),
            (UD_ERR_AMBIGUOUS, "ambiguous"),
            (UD_ERR_NOT_ACTIONABLE, "not_actionable"),
            (UD_ERR_STALE_REF, "stale_ref"),
            (UD_ERR_APP_EXITED, "app_exited"),
            (UD_ERR_ASSERTION_FAILED, "assertion_failed"),
        ];
        assert_eq!(constants.len(), ErrorCode::ALL.len());
        for (code, (status, name)) in ErrorCode::ALL.iter().zip(constants) {
            assert_eq!(status_of(code), status, "{code}");
            assert_eq!(code.as_str(), name);
            assert_eq!(name_of(status), Some(name));
        }
        assert_eq!(
            status_of(&ErrorCode::Other("new_code".into())),
            UD_ERR_OTHER
        );
        assert_eq!(name_of(UD_OK), Some("ok"));
        assert_eq!(name_of(-1), None);
        assert_eq!(name_of(16), None);
        let name = |status| {
            unsafe { std::ffi::CStr::from_ptr(ud_status_name(status)) }
                .to_str()
                .unwrap()
        };
        assert_eq!(name(UD_ERR_STALE_REF), "stale_ref");
        assert_eq!(name(UD_OK), "ok");
        assert_eq!(name(UD_ERR_OTHER), "other");
        assert_eq!(name(-7), "unknown");
        assert_eq!(name(16), "unknown");
    }
}
