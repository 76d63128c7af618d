//! Versions, and the test-only entry that proves the panic boundary.

use crate::guard;
use std::ffi::c_char;

/// The ABI's version. It grows whenever a function's signature or meaning
/// changes in a way old callers would notice; adding a function keeps it.
/// Compare it with `ud_abi_version()` at start-up.
pub const UD_ABI_VERSION: u32 = 2;

/// The uidrive version, as `"0.1.0"`. A static string: do not free it.
#[no_mangle]
pub extern "C" fn ud_version() -> *const c_char {
    guard::value(c"?".as_ptr(), || {
        concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
    })
}

/// The ABI version of the loaded library: equal to `UD_ABI_VERSION` from the
/// header it was built with.
#[no_mangle]
pub extern "C" fn ud_abi_version() -> u32 {
    UD_ABI_VERSION
}

/// For tests of the panic boundary only, in builds with the `test-panic`
/// feature, and kept out of the public header: sets `*out_value` to 0, then panics
/// inside uidrive on purpose. The panic is trapped: it answers
/// `UD_ERR_FAILED` with a message that says uidrive panicked, and
/// `*out_value` stays 0. (The panic's message is also printed on stderr.)
///
/// # Safety
/// `out_value` is NULL or valid for a write.
#[cfg(any(test, feature = "test-panic"))]
#[no_mangle]
pub unsafe extern "C" fn ud_test_panic(out_value: *mut i32) -> crate::status::ud_status {
    crate::convert::zero(out_value);
    guard::status(|| panic!("ud_test_panic was called: this panic is deliberate"))
}
