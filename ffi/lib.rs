//! The C ABI of uidrive (`libuidrive`). Filled in by the C ABI work; see `include/uidrive.h`.

/// The uidrive version as a static NUL-terminated string.
#[no_mangle]
pub extern "C" fn ud_version() -> *const std::ffi::c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}
