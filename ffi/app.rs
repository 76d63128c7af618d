//! `ud_app`: a connection to one app, and the process uidrive launched, if any.

use crate::convert::{out, text, text_list, zero};
use crate::guard;
use crate::status::ud_status;
use std::ffi::c_char;
use std::sync::{Arc, RwLock};
use std::time::Duration;
use uidrive_core::{App, Error, Result};

/// An app uidrive drives. Opaque: made by `ud_connect` or `ud_launch`, freed
/// by `ud_app_free`.
///
/// Thread safety: one handle may be used from several threads at once; calls
/// run side by side (each on its own connection). `ud_app_close` waits for
/// calls in flight to finish. `ud_app_free` must be the last call on the
/// handle, made when no other thread uses it.
#[allow(non_camel_case_types)]
pub struct ud_app {
    state: Arc<AppState>,
}

/// The app behind a handle, shared with the handle's locators so that they
/// fail with `disconnected` once the app is closed, whoever holds them.
pub(crate) struct AppState {
    /// `None` once closed. Calls hold the read side, so `close` waits for them.
    app: RwLock<Option<App>>,
}

impl AppState {
    /// Runs `body` with the open app, or fails with `disconnected` once closed.
    pub(crate) fn with<T>(&self, body: impl FnOnce(&App) -> Result<T>) -> Result<T> {
        let guard = self.app.read().unwrap_or_else(|p| p.into_inner());
        match guard.as_ref() {
            Some(app) => body(app),
            None => Err(
                Error::disconnected("the app handle was closed with ud_app_close")
                    .with_suggestion("connect again with ud_connect or ud_launch"),
            ),
        }
    }

    fn close(&self) -> Result<()> {
        let taken = self.app.write().unwrap_or_else(|p| p.into_inner()).take();
        match taken {
            Some(app) => app.close(),
            None => Ok(()),
        }
    }
}

impl ud_app {
    fn new(app: App) -> ud_app {
        ud_app {
            state: Arc::new(AppState {
                app: RwLock::new(Some(app)),
            }),
        }
    }

    /// Runs `body` with the open app, or fails with `disconnected` once closed.
    pub(crate) fn with<T>(&self, body: impl FnOnce(&App) -> Result<T>) -> Result<T> {
        self.state.with(body)
    }

    pub(crate) fn state(&self) -> &Arc<AppState> {
        &self.state
    }

    fn close(&self) -> Result<()> {
        self.state.close()
    }
}

/// The handle behind a pointer, or `invalid_request` for NULL.
///
/// # Safety
/// `app` is NULL or a live handle from `ud_connect`/`ud_launch`.
pub(crate) unsafe fn handle<'a>(app: *const ud_app) -> Result<&'a ud_app> {
    app.as_ref()
        .ok_or_else(|| Error::invalid_request("`app` is NULL"))
}

/// Connects to an app that already listens on the protocol socket at
/// `socket_path` (a MyGo app, or `uidrive serve --socket PATH`).
///
/// On success `*out_app` is a new handle, owned by the caller and freed with
/// `ud_app_free`. On failure it is NULL.
///
/// # Safety
/// `socket_path` is NULL or a NUL-terminated string; `out_app` is NULL or
/// valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_connect(
    socket_path: *const c_char,
    out_app: *mut *mut ud_app,
) -> ud_status {
    zero(out_app);
    guard::status(|| {
        let out_app = out(out_app, "out_app")?;
        let path = text(socket_path, "socket_path")?;
        if path.is_empty() {
            return Err(Error::invalid_request("`socket_path` is empty"));
        }
        let app = App::connect(path)?;
        *out_app = Box::into_raw(Box::new(ud_app::new(app)));
        Ok(())
    })
}

/// Launches an app and connects to it: runs `argv` (a NULL-terminated array;
/// `argv[0]` is the program, looked up in `PATH`) with the environment
/// variable `socket_env` set to a fresh socket path, plus the `NAME=VALUE`
/// entries of `env` (a NULL-terminated array, or NULL for none), then waits
/// up to `timeout_ms` milliseconds (0: 10 000) for the app to listen there.
///
/// MyGo apps take their socket from `MYGO_AUTOMATION`. Closing or freeing
/// the handle ends the process.
///
/// On success `*out_app` is a new handle, owned by the caller and freed with
/// `ud_app_free`. On failure it is NULL and the process, if it started, is ended.
///
/// # Safety
/// `argv` and `env` are NULL or NULL-terminated arrays of NUL-terminated
/// strings; `socket_env` is NULL or a NUL-terminated string; `out_app` is NULL
/// or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_launch(
    argv: *const *const c_char,
    env: *const *const c_char,
    socket_env: *const c_char,
    timeout_ms: u32,
    out_app: *mut *mut ud_app,
) -> ud_status {
    zero(out_app);
    guard::status(|| {
        let out_app = out(out_app, "out_app")?;
        let argv = text_list(argv, "argv")?;
        if argv.is_empty() {
            return Err(Error::invalid_request(
                "`argv` is empty; give at least the program to run",
            ));
        }
        let env = if env.is_null() {
            Vec::new()
        } else {
            text_list(env, "env")?
                .iter()
                .enumerate()
                .map(|(at, entry)| env_pair(at, entry))
                .collect::<Result<Vec<_>>>()?
        };
        let socket_env = text(socket_env, "socket_env")?;
        if socket_env.is_empty() || socket_env.contains('=') {
            return Err(Error::invalid_request(format!(
                "`socket_env` is `{socket_env}`; give an environment variable name, as MYGO_AUTOMATION"
            )));
        }
        let timeout = Duration::from_millis(if timeout_ms == 0 {
            10_000
        } else {
            timeout_ms.into()
        });
        let app = App::launch_socket(&argv, &env, socket_env, timeout)?;
        *out_app = Box::into_raw(Box::new(ud_app::new(app)));
        Ok(())
    })
}

fn env_pair(at: usize, entry: &str) -> Result<(String, String)> {
    match entry.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.to_string(), value.to_string())),
        _ => Err(Error::invalid_request(format!(
            "`env[{at}]` is `{entry}`; write each entry as NAME=VALUE"
        ))),
    }
}

/// The process id of the app uidrive launched, in `*out_pid`; 0 for an app
/// reached with `ud_connect`, or once closed.
///
/// # Safety
/// `app` is NULL or a live handle; `out_pid` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_pid(app: *const ud_app, out_pid: *mut u32) -> ud_status {
    zero(out_pid);
    guard::status(|| {
        let out_pid = out(out_pid, "out_pid")?;
        let app = handle(app)?;
        *out_pid = app.with(|app| Ok(app.pid().unwrap_or(0))).unwrap_or(0);
        Ok(())
    })
}

/// Sets how long locators made from this handle wait from now on:
/// `action_ms` for their actions and strict reads (10 000 at first),
/// `expect_ms` for `ud_expect_*` (5 000 at first). 0 keeps a value as it is.
/// Locators made before the call keep the timeouts they were made with.
///
/// # Safety
/// `app` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn ud_app_set_timeouts(
    app: *const ud_app,
    action_ms: u32,
    expect_ms: u32,
) -> ud_status {
    guard::status(|| {
        handle(app)?.with(|app| {
            let mut timeouts = app.timeouts();
            if action_ms > 0 {
                timeouts.action = Duration::from_millis(action_ms.into());
            }
            if expect_ms > 0 {
                timeouts.expect = Duration::from_millis(expect_ms.into());
            }
            app.set_timeouts(timeouts);
            Ok(())
        })
    })
}

/// Closes the connection and ends the process uidrive launched, if any. Waits
/// for calls in flight on other threads. Later calls on the handle fail with
/// `UD_ERR_DISCONNECTED`; closing twice is fine. The handle itself stays
/// allocated until `ud_app_free`.
///
/// # Safety
/// `app` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn ud_app_close(app: *const ud_app) -> ud_status {
    guard::status(|| handle(app)?.close())
}

/// Closes the app (as `ud_app_close`, ignoring its errors) and frees the
/// handle. NULL does nothing. No other thread may use the handle during or
/// after this call.
///
/// # Safety
/// `app` is NULL or a live handle that is not used again.
#[no_mangle]
pub unsafe extern "C" fn ud_app_free(app: *mut ud_app) {
    guard::value((), || {
        if !app.is_null() {
            let app = Box::from_raw(app);
            let _ = app.close();
        }
    })
}

/// For tests in this crate: a handle around an app made in Rust.
#[cfg(test)]
pub(crate) fn into_handle(app: App) -> *mut ud_app {
    Box::into_raw(Box::new(ud_app::new(app)))
}
