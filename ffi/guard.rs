//! The panic boundary: every `extern "C"` function runs its body through here.

use crate::last_error::record;
use crate::status::{ud_status, UD_OK};
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use uidrive_core::{Error, Result};

/// Runs a fallible body: `UD_OK` on success; on an error or a panic, records
/// the last error and answers its status code.
pub(crate) fn status(body: impl FnOnce() -> Result<()>) -> ud_status {
    // AssertUnwindSafe: after a panic nothing the body touched is used again
    // except handles, whose state is guarded by their own locks.
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => UD_OK,
        Ok(Err(error)) => record(&error),
        Err(payload) => record(&panic_error(payload.as_ref())),
    }
}

/// Runs an infallible body (getters, free functions); a panic gives `fallback`.
pub(crate) fn value<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|payload| {
        record(&panic_error(payload.as_ref()));
        fallback
    })
}

/// Reads a call's arguments inside the panic boundary. On failure the error
/// is recorded and its status handed back, for the caller to return.
pub(crate) fn args<T>(read: impl FnOnce() -> Result<T>) -> std::result::Result<T, ud_status> {
    let mut made = None;
    let status = status(|| {
        made = Some(read()?);
        Ok(())
    });
    made.ok_or(status)
}

fn panic_error(payload: &(dyn Any + Send)) -> Error {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with no message".to_string());
    Error::failed(format!("uidrive panicked inside the C ABI: {what}"))
        .with_suggestion("this is a bug in uidrive; please report it with the message")
}
