//! The free functions for what uidrive hands out.

use crate::convert::free_bytes;
use crate::guard;
use std::ffi::{c_char, CString};

/// Frees a string uidrive handed out (a JSON answer, ...). NULL does nothing.
///
/// # Safety
/// `text` is NULL or a string from uidrive that was not freed yet.
#[no_mangle]
pub unsafe extern "C" fn ud_string_free(text: *mut c_char) {
    guard::value((), || {
        if !text.is_null() {
            drop(CString::from_raw(text));
        }
    })
}

/// Frees a byte buffer uidrive handed out (a capture's PNG). NULL does nothing.
///
/// # Safety
/// `data` is NULL or a buffer from uidrive that was not freed yet.
#[no_mangle]
pub unsafe extern "C" fn ud_bytes_free(data: *mut u8) {
    guard::value((), || free_bytes(data))
}
