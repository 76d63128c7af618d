//! `ud_tracing_*`: recording a trace of an app's steps (docs/trace.md); the
//! recording itself is core's.

use crate::app::{handle, ud_app};
use crate::convert::{owned_json, text, zero};
use crate::guard;
use crate::status::ud_status;
use std::ffi::c_char;
use std::path::Path;
use uidrive_core::trace::TraceOptions;

/// Starts recording every action and expectation of this handle's locators
/// as a step: the call, the rungs it waited on, its route and outcome or
/// error, and before each step the window's snapshot and (with
/// `screenshots`) a capture, skipped when the window did not change.
/// `title` names the trace (NULL for none). Fails with
/// `UD_ERR_INVALID_REQUEST` if a recording is on already.
///
/// # Safety
/// `app` is NULL or a live handle; `title` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn ud_tracing_start(
    app: *const ud_app,
    screenshots: bool,
    snapshots: bool,
    title: *const c_char,
) -> ud_status {
    guard::status(|| {
        let title = match title.is_null() {
            true => None,
            false => Some(text(title, "title")?.to_string()),
        };
        let options = TraceOptions {
            screenshots,
            snapshots,
            title,
        };
        handle(app)?.with(|app| app.start_tracing(options))
    })
}

/// Stops recording. With `path`, writes the trace there as a zip (its
/// directory made if missing), for `uidrive trace show`; with NULL, drops
/// it. Stopping when no recording is on does nothing.
///
/// `*out_json` (when `out_json` is not NULL) is what was written,
/// `{"path", "steps", "pictures", "bytes"}`, or `null` when nothing was;
/// free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `path` is NULL or a NUL-terminated
/// string; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_tracing_stop(
    app: *const ud_app,
    path: *const c_char,
    out_json: *mut *mut c_char,
) -> ud_status {
    zero(out_json);
    guard::status(|| {
        let path = match path.is_null() {
            true => None,
            false => Some(Path::new(text(path, "path")?)),
        };
        let written = handle(app)?.with(|app| app.stop_tracing(path))?;
        if !out_json.is_null() {
            let value = serde_json::to_value(&written).unwrap_or_default();
            *out_json = owned_json(&value);
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::status::UD_OK;
    use std::ffi::{CStr, CString};
    use std::sync::Arc;
    use uidrive_core::{App, MemoryDriver};

    #[test]
    fn a_trace_is_started_stopped_and_written_from_c() {
        let app = crate::app::into_handle(App::new(Arc::new(MemoryDriver::new())));
        let dir = std::env::temp_dir().join(format!("uidrive-ffi-trace-{}", std::process::id()));
        let path = CString::new(dir.join("trace.zip").to_str().unwrap()).unwrap();
        let title = CString::new("from C").unwrap();
        unsafe {
            assert_eq!(ud_tracing_start(app, true, true, title.as_ptr()), UD_OK);
            assert_ne!(ud_tracing_start(app, true, true, std::ptr::null()), UD_OK);
            let mut json: *mut c_char = std::ptr::dangling_mut();
            assert_eq!(ud_tracing_stop(app, path.as_ptr(), &mut json), UD_OK);
            let written = CStr::from_ptr(json).to_str().unwrap().to_string();
            crate::memory::ud_string_free(json);
            assert!(written.contains("\"steps\":0"), "{written}");
            assert!(dir.join("trace.zip").exists());
            // Stopping again: nothing on, nothing written, `null`.
            let mut json: *mut c_char = std::ptr::null_mut();
            assert_eq!(ud_tracing_stop(app, std::ptr::null(), &mut json), UD_OK);
            assert_eq!(CStr::from_ptr(json).to_str().unwrap(), "null");
            crate::memory::ud_string_free(json);
            assert_eq!(
                ud_tracing_stop(app, std::ptr::null(), std::ptr::null_mut()),
                UD_OK
            );
            crate::app::ud_app_free(app);
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}
