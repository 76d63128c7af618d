//! Marshalling across the boundary: C strings, lists and JSON in; owned C
//! strings and byte buffers out. Every refusal is an `invalid_request` that
//! names the parameter.

use crate::last_error::c_text;
use serde_json::Value;
use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::ffi::{c_char, CStr};
use uidrive_core::{Error, Result};

/// The longest NULL-terminated list uidrive reads, so a list missing its
/// terminator fails instead of running through memory for ever.
const MAX_LIST: usize = 4096;

/// Borrows a NUL-terminated UTF-8 string.
///
/// # Safety
/// `ptr` is NULL or points to a NUL-terminated string that outlives the call.
pub(crate) unsafe fn text<'a>(ptr: *const c_char, what: &str) -> Result<&'a str> {
    if ptr.is_null() {
        return Err(Error::invalid_request(format!("`{what}` is NULL")));
    }
    CStr::from_ptr(ptr)
        .to_str()
        .map_err(|e| Error::invalid_request(format!("`{what}` is not valid UTF-8: {e}")))
}

/// Like [`text`], with NULL meaning "not given".
///
/// # Safety
/// As [`text`].
pub(crate) unsafe fn optional_text<'a>(ptr: *const c_char, what: &str) -> Result<Option<&'a str>> {
    if ptr.is_null() {
        Ok(None)
    } else {
        text(ptr, what).map(Some)
    }
}

/// Reads a NULL-terminated array of strings.
///
/// # Safety
/// `list` is NULL or points to an array of string pointers ending in NULL.
pub(crate) unsafe fn text_list(list: *const *const c_char, what: &str) -> Result<Vec<String>> {
    if list.is_null() {
        return Err(Error::invalid_request(format!("`{what}` is NULL")));
    }
    let mut items = Vec::new();
    for at in 0..MAX_LIST {
        let item = *list.add(at);
        if item.is_null() {
            return Ok(items);
        }
        items.push(text(item, &format!("{what}[{at}]"))?.to_string());
    }
    Err(Error::invalid_request(format!(
        "`{what}` has no NULL after {MAX_LIST} entries; end the array with NULL"
    )))
}

/// Parses a JSON text; NULL means "no params".
///
/// # Safety
/// As [`text`].
pub(crate) unsafe fn optional_json(ptr: *const c_char, what: &str) -> Result<Option<Value>> {
    let Some(json) = optional_text(ptr, what)? else {
        return Ok(None);
    };
    serde_json::from_str(json)
        .map(Some)
        .map_err(|e| Error::invalid_request(format!("`{what}` is not valid JSON: {e}")))
}

/// The window a typed call names: `UD_WINDOW_DEFAULT` (0) means the focused
/// window, else the first.
pub(crate) fn window(window: u64) -> Option<u64> {
    (window != 0).then_some(window)
}

/// Sets `*out` to NULL, when `out` is not NULL.
///
/// # Safety
/// `out` is NULL or valid for a write.
pub(crate) unsafe fn zero<T: Zeroed>(out: *mut T) {
    if !out.is_null() {
        out.write(T::ZERO);
    }
}

/// Out-param types and their zero.
pub(crate) trait Zeroed {
    const ZERO: Self;
}
impl<T> Zeroed for *mut T {
    const ZERO: Self = std::ptr::null_mut();
}
impl Zeroed for u32 {
    const ZERO: Self = 0;
}
impl Zeroed for usize {
    const ZERO: Self = 0;
}
impl Zeroed for i32 {
    const ZERO: Self = 0;
}
impl Zeroed for bool {
    const ZERO: Self = false;
}

/// The out-param as a reference, or `invalid_request` for NULL.
///
/// # Safety
/// `out` is NULL or valid for a write.
pub(crate) unsafe fn out<'a, T>(out: *mut T, what: &str) -> Result<&'a mut T> {
    out.as_mut()
        .ok_or_else(|| Error::invalid_request(format!("`{what}` (an out-param) is NULL")))
}

/// A Rust string as an owned C string, freed by `ud_string_free`.
pub(crate) fn owned_text(text: &str) -> *mut c_char {
    c_text(text).into_raw()
}

/// A JSON value as an owned C string, freed by `ud_string_free`.
pub(crate) fn owned_json(value: &Value) -> *mut c_char {
    // serde_json escapes NUL inside strings, so the text has none.
    owned_text(&value.to_string())
}

/// Room before each byte buffer for its length, keeping 16-byte alignment.
const BYTES_HEADER: usize = 16;

fn bytes_layout(len: usize) -> Layout {
    Layout::from_size_align(BYTES_HEADER + len, BYTES_HEADER).expect("a buffer's size fits")
}

/// Copies bytes into a buffer freed by `ud_bytes_free` (which needs no length:
/// the length is kept just before the bytes).
pub(crate) fn owned_bytes(bytes: &[u8]) -> *mut u8 {
    let layout = bytes_layout(bytes.len());
    // SAFETY: the layout is never zero-sized (it has the header); the writes
    // stay inside it.
    unsafe {
        let base = alloc(layout);
        if base.is_null() {
            handle_alloc_error(layout);
        }
        base.cast::<usize>().write(bytes.len());
        let data = base.add(BYTES_HEADER);
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), data, bytes.len());
        data
    }
}

/// Frees a buffer made by [`owned_bytes`].
///
/// # Safety
/// `data` is NULL or came from [`owned_bytes`] and was not freed yet.
pub(crate) unsafe fn free_bytes(data: *mut u8) {
    if data.is_null() {
        return;
    }
    let base = data.sub(BYTES_HEADER);
    let len = base.cast::<usize>().read();
    dealloc(base, bytes_layout(len));
}
