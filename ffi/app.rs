//! `ud_app`: one app uidrive drives, and the process it launched, if any.
//! Reaching the app (connect, launch, attach) is the facade's; this marshals.

use crate::convert::{out, owned_text, text, text_list, zero};
use crate::guard;
use crate::handles;
use crate::status::ud_status;
use std::ffi::c_char;
use std::sync::{Arc, Mutex, RwLock};
use uidrive_core::{App, Error, Result};
use uidrive_facade::process::Process;
use uidrive_facade::refs::Refs;
use uidrive_facade::{time, AttachTarget, LaunchOptions};

/// An app uidrive drives. Opaque: made by `ud_connect`, `ud_launch`,
/// `ud_launch_app`, `ud_attach_*` or `ud_desktop_launch`, freed by `ud_app_free`.
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
    /// The refs of this app's snapshots.
    refs: Refs,
    /// The process uidrive launched, if any: how it ended, what it wrote.
    process: Option<Arc<Process>>,
    /// Which step of `ud_app_close` ended the app, once closed.
    closed: Mutex<Option<uidrive_facade::Closed>>,
}

impl AppState {
    /// Runs `body` with the open app, or fails with `disconnected` once closed.
    pub(crate) fn with<T>(&self, body: impl FnOnce(&App) -> Result<T>) -> Result<T> {
        let guard = self.app.read().unwrap_or_else(|p| p.into_inner());
        match guard.as_ref() {
            Some(app) => body(app),
            None => Err(
                Error::disconnected("the app handle was closed with ud_app_close").with_suggestion(
                    "reach the app again with ud_connect, ud_launch_app or ud_attach_pid",
                ),
            ),
        }
    }

    /// Ends what was launched gracefully (its windows asked to close, then
    /// TERM, then KILL), keeping which step ended it.
    fn close(&self) -> Result<()> {
        let taken = self.app.write().unwrap_or_else(|p| p.into_inner()).take();
        let closed = match (taken, &self.process) {
            // Keeps how it ended for ud_app_exit_code after the close.
            (Some(app), Some(process)) => process.close(&app)?,
            (Some(app), None) => uidrive_facade::close(&app)?,
            (None, _) => return Ok(()),
        };
        *self.closed.lock().unwrap_or_else(|p| p.into_inner()) = Some(closed);
        Ok(())
    }
}

impl ud_app {
    pub(crate) fn new(app: App) -> ud_app {
        let process = Process::of(&app);
        ud_app::with_process(app, process)
    }

    pub(crate) fn with_process(app: App, process: Option<Arc<Process>>) -> ud_app {
        ud_app {
            state: Arc::new(AppState {
                process,
                app: RwLock::new(Some(app)),
                refs: Refs::new(),
                closed: Mutex::new(None),
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
/// `app` is NULL or a live handle.
pub(crate) unsafe fn handle<'a>(app: *const ud_app) -> Result<&'a ud_app> {
    handles::get(handles::Kind::App, app, "app")
}

/// Hands a new app out through `out_app`.
///
/// # Safety
/// `out_app` is NULL or valid for a write.
pub(crate) unsafe fn hand_out(
    out_app: *mut *mut ud_app,
    make: impl FnOnce() -> Result<App>,
) -> ud_status {
    zero(out_app);
    guard::status(|| {
        let out_app = out(out_app, "out_app")?;
        let app = make()?;
        *out_app = handles::register(handles::Kind::App, ud_app::new(app));
        Ok(())
    })
}

/// Hands out an app made with its process (a launch with captured output).
///
/// # Safety
/// `out_app` is NULL or valid for a write.
pub(crate) unsafe fn hand_out_with_process(
    out_app: *mut *mut ud_app,
    make: impl FnOnce() -> Result<(App, Arc<Process>)>,
) -> ud_status {
    zero(out_app);
    guard::status(|| {
        let out_app = out(out_app, "out_app")?;
        let (app, process) = make()?;
        *out_app = handles::register(handles::Kind::App, ud_app::with_process(app, Some(process)));
        Ok(())
    })
}

/// `NAME=VALUE` entries from a NULL-terminated array; NULL is none.
///
/// # Safety
/// `env` is NULL or a NULL-terminated array of NUL-terminated strings.
pub(crate) unsafe fn env_list(env: *const *const c_char) -> Result<Vec<(String, String)>> {
    if env.is_null() {
        return Ok(Vec::new());
    }
    let entries = text_list(env, "env")?;
    entries
        .iter()
        .enumerate()
        .map(|(at, entry)| {
            uidrive_facade::platform::env_entries(std::slice::from_ref(entry))
                .map(|mut one| one.remove(0))
                .map_err(|_| {
                    Error::invalid_request(format!(
                        "`env[{at}]` is `{entry}`; write each entry as NAME=VALUE"
                    ))
                })
        })
        .collect()
}

/// # Safety
/// `argv` is NULL or a NULL-terminated array of NUL-terminated strings.
pub(crate) unsafe fn argv_list(argv: *const *const c_char) -> Result<Vec<String>> {
    let argv = text_list(argv, "argv")?;
    if argv.is_empty() {
        return Err(Error::invalid_request(
            "`argv` is empty; give at least the program to run",
        ));
    }
    Ok(argv)
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
    hand_out(out_app, || {
        let path = text(socket_path, "socket_path")?;
        if path.is_empty() {
            return Err(Error::invalid_request("`socket_path` is empty"));
        }
        uidrive_facade::connect(path)
    })
}

/// Launches an app that speaks the protocol and connects to it: runs `argv`
/// (a NULL-terminated array; `argv[0]` is the program, looked up in `PATH`)
/// with the environment variable `socket_env` set to a fresh socket path,
/// plus the `NAME=VALUE` entries of `env` (a NULL-terminated array, or NULL
/// for none), then waits up to `timeout_ms` milliseconds (0: 30 000) for the
/// app to listen there. MyGo apps take their socket from `MYGO_AUTOMATION`.
///
/// For any other app, use `ud_launch_app` or `ud_desktop_launch`.
///
/// On success `*out_app` is a new handle, owned by the caller and freed with
/// `ud_app_free`, which ends the process (SIGTERM, then SIGKILL after a grace
/// period). On failure it is NULL and the process, if it started, is ended.
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
    hand_out(out_app, || {
        let argv = argv_list(argv)?;
        let env = env_list(env)?;
        let socket_env = text(socket_env, "socket_env")?;
        if socket_env.is_empty() || socket_env.contains('=') {
            return Err(Error::invalid_request(format!(
                "`socket_env` is `{socket_env}`; give an environment variable name, as MYGO_AUTOMATION"
            )));
        }
        uidrive_facade::launch(
            &argv,
            &LaunchOptions {
                env,
                timeout: Some(time::millis_or("`timeout_ms`", timeout_ms, time::LAUNCH)?),
                socket_env: Some(socket_env.to_string()),
            },
        )
    })
}

/// Launches any app with accessibility on and waits up to `timeout_ms`
/// (0: 30 000) for its first window: `argv` as for `ud_launch`, `env` extra
/// `NAME=VALUE` entries (NULL for none). The app shows on the desktop this
/// process's `DISPLAY` names; for a private desktop, use `ud_desktop_launch`.
///
/// On success `*out_app` is a new handle, owned by the caller and freed with
/// `ud_app_free`, which ends the process (SIGTERM, then SIGKILL after a grace
/// period). On failure it is NULL and the process, if it started, is ended.
///
/// # Safety
/// As `ud_launch`.
#[no_mangle]
pub unsafe extern "C" fn ud_launch_app(
    argv: *const *const c_char,
    env: *const *const c_char,
    timeout_ms: u32,
    out_app: *mut *mut ud_app,
) -> ud_status {
    hand_out(out_app, || {
        let argv = argv_list(argv)?;
        let env = env_list(env)?;
        uidrive_facade::launch(
            &argv,
            &LaunchOptions {
                env,
                timeout: Some(time::millis_or("`timeout_ms`", timeout_ms, time::LAUNCH)?),
                socket_env: None,
            },
        )
    })
}

/// Attaches to the running app whose process id is `pid`, through the
/// accessibility bus of the desktop `env` names (NULL-terminated
/// `NAME=VALUE` entries, as a desktop's; NULL: this process's own), waiting
/// up to `timeout_ms` (0: 30 000) for it to show there.
///
/// On success `*out_app` is a new handle, freed with `ud_app_free`; freeing
/// it does not end the app (uidrive did not start it).
///
/// # Safety
/// `env` is NULL or a NULL-terminated array of NUL-terminated strings;
/// `out_app` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_attach_pid(
    pid: u32,
    env: *const *const c_char,
    timeout_ms: u32,
    out_app: *mut *mut ud_app,
) -> ud_status {
    hand_out(out_app, || {
        let env = env_list(env)?;
        if pid == 0 {
            return Err(Error::invalid_request(
                "`pid` is 0; give the app's process id",
            ));
        }
        uidrive_facade::attach(
            &AttachTarget::Pid(pid),
            &env,
            Some(time::millis_or("`timeout_ms`", timeout_ms, time::LAUNCH)?),
        )
    })
}

/// As `ud_attach_pid`, naming the app by its accessible name (its name on
/// the accessibility registry, as `"gnome-calculator"`).
///
/// # Safety
/// `name` is NULL or a NUL-terminated string; otherwise as `ud_attach_pid`.
#[no_mangle]
pub unsafe extern "C" fn ud_attach_name(
    name: *const c_char,
    env: *const *const c_char,
    timeout_ms: u32,
    out_app: *mut *mut ud_app,
) -> ud_status {
    hand_out(out_app, || {
        let name = text(name, "name")?.to_string();
        let env = env_list(env)?;
        let target = AttachTarget::from_parts(None, Some(name))?;
        uidrive_facade::attach(
            &target,
            &env,
            Some(time::millis_or("`timeout_ms`", timeout_ms, time::LAUNCH)?),
        )
    })
}

/// The process id of the app uidrive launched, in `*out_pid`; 0 for an app
/// reached with `ud_connect` or `ud_attach_*`, or once closed.
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

/// How the process uidrive launched ended: `*out_exited` is true once it
/// has, and `*out_code` its exit code (`-N` for signal `N`), else false and
/// 0. Still answers after `ud_app_close`. `UD_ERR_INVALID_REQUEST` for an
/// app uidrive did not launch (`ud_connect`, `ud_attach_*`).
///
/// # Safety
/// `app` is NULL or a live handle; the out-params are NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_exit_code(
    app: *const ud_app,
    out_exited: *mut bool,
    out_code: *mut i32,
) -> ud_status {
    zero(out_exited);
    zero(out_code);
    guard::status(|| {
        let out_exited = out(out_exited, "out_exited")?;
        let out_code = out(out_code, "out_code")?;
        let handle = handle(app)?;
        let process = launched(handle)?;
        let code = handle
            .with(|app| Ok(process.exit_code(app)))
            .unwrap_or_else(|_| process.last_exit());
        if let Some(code) = code {
            *out_exited = true;
            *out_code = code;
        }
        Ok(())
    })
}

/// Waits up to `timeout_ms` (0: 30 000) for the process uidrive launched to
/// end; its exit code in `*out_code` (`-N` for signal `N`). `UD_ERR_TIMEOUT`
/// if it still runs.
///
/// # Safety
/// `app` is NULL or a live handle; `out_code` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_wait(
    app: *const ud_app,
    timeout_ms: u32,
    out_code: *mut i32,
) -> ud_status {
    zero(out_code);
    guard::status(|| {
        let out_code = out(out_code, "out_code")?;
        let handle = handle(app)?;
        let process = launched(handle)?;
        if let Some(code) = process.last_exit() {
            *out_code = code;
            return Ok(());
        }
        let timeout = time::millis_or("`timeout_ms`", timeout_ms, time::LAUNCH)?;
        *out_code = handle.with(|app| process.wait(app, timeout))?;
        Ok(())
    })
}

/// What the process uidrive launched wrote on stdout (`err` false) or
/// stderr (`err` true): everything once it has ended, what it wrote so far
/// while it runs. Only for an app launched with `ud_desktop_launch_captured`
/// or `ud_launch_app_captured`: else `*out_text` is NULL and the call fails
/// with `UD_ERR_INVALID_REQUEST`.
///
/// `*out_text` is owned by the caller: free it with `ud_string_free`.
///
/// # Safety
/// `app` is NULL or a live handle; `out_text` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_output(
    app: *const ud_app,
    err: bool,
    out_text: *mut *mut c_char,
) -> ud_status {
    zero(out_text);
    guard::status(|| {
        let out_text = out(out_text, "out_text")?;
        let handle = handle(app)?;
        let process = launched(handle)?;
        // Looking at the app first notices an exit, so that all output is read.
        let _ = handle.with(|app| Ok(process.exit_code(app)));
        let text = process.output(err).ok_or_else(|| {
            Error::invalid_request("the app's output was not captured").with_suggestion(
                "launch it with ud_desktop_launch_captured or ud_launch_app_captured",
            )
        })?;
        *out_text = owned_text(&text);
        Ok(())
    })
}

fn launched(handle: &ud_app) -> Result<&Arc<Process>> {
    handle.state.process.as_ref().ok_or_else(|| {
        Error::invalid_request(
            "uidrive did not launch this app, so it knows nothing of its process",
        )
        .with_suggestion("launch it with ud_desktop_launch or ud_launch_app")
    })
}

/// As `ud_launch_app`, keeping what the app writes on stdout and stderr for
/// `ud_app_output` (browsers and office apps lose the extra switches
/// `ud_launch_app` gives them).
///
/// # Safety
/// As `ud_launch_app`.
#[no_mangle]
pub unsafe extern "C" fn ud_launch_app_captured(
    argv: *const *const c_char,
    env: *const *const c_char,
    timeout_ms: u32,
    out_app: *mut *mut ud_app,
) -> ud_status {
    hand_out_with_process(out_app, || {
        let argv = argv_list(argv)?;
        let env = env_list(env)?;
        uidrive_facade::process::launch_captured(
            &argv,
            &LaunchOptions {
                env,
                timeout: Some(time::millis_or("`timeout_ms`", timeout_ms, time::LAUNCH)?),
                socket_env: None,
            },
        )
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
            timeouts.action = time::millis_or("`action_ms`", action_ms, timeouts.action)?;
            timeouts.expect = time::millis_or("`expect_ms`", expect_ms, timeouts.expect)?;
            app.set_timeouts(timeouts);
            Ok(())
        })
    })
}

/// The handle's timeouts in milliseconds: `*out_action_ms` for actions and
/// strict reads, `*out_expect_ms` for expectations.
///
/// # Safety
/// `app` is NULL or a live handle; the out-params are NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_timeouts(
    app: *const ud_app,
    out_action_ms: *mut u32,
    out_expect_ms: *mut u32,
) -> ud_status {
    zero(out_action_ms);
    zero(out_expect_ms);
    guard::status(|| {
        let out_action = out(out_action_ms, "out_action_ms")?;
        let out_expect = out(out_expect_ms, "out_expect_ms")?;
        let timeouts = handle(app)?.with(|app| Ok(app.timeouts()))?;
        let ms = |d: std::time::Duration| u32::try_from(d.as_millis()).unwrap_or(u32::MAX);
        *out_action = ms(timeouts.action);
        *out_expect = ms(timeouts.expect);
        Ok(())
    })
}

/// A snapshot of the focused window (else the first) as text: a line per
/// element with a short ref (`@e3`) that `ud_app_get_by_ref` turns into a
/// locator. With `interactive`, only the controls, in one flat list. An
/// element keeps its ref across this handle's snapshots while it stays in
/// its window.
///
/// `*out_text` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `out_text` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_snapshot(
    app: *const ud_app,
    interactive: bool,
    out_text: *mut *mut c_char,
) -> ud_status {
    ud_app_snapshot_window(app, 0, interactive, out_text)
}

/// As `ud_app_snapshot`, of the window `window_id` (`UD_WINDOW_DEFAULT`: the
/// focused one, else the first).
///
/// # Safety
/// `app` is NULL or a live handle; `out_text` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_snapshot_window(
    app: *const ud_app,
    window_id: u64,
    interactive: bool,
    out_text: *mut *mut c_char,
) -> ud_status {
    zero(out_text);
    guard::status(|| {
        let out_text = out(out_text, "out_text")?;
        let handle = handle(app)?;
        let rendered = handle.with(|app| {
            let snapshot = handle
                .state
                .refs
                .snapshot(app, crate::convert::window(window_id))?;
            uidrive_facade::refs::render(&snapshot, interactive)
        })?;
        *out_text = owned_text(&rendered);
        Ok(())
    })
}

/// Resolves the ref `@eN` (or `eN`) of this handle's last snapshots, at
/// once: a ref whose element is gone, or whose id now belongs to another
/// kind of element, fails with `UD_ERR_STALE_REF` without waiting; a ref
/// that is no ref fails with `UD_ERR_INVALID_REQUEST`.
///
/// On success `*out_locator` is a locator for that element, owned by the
/// caller and freed with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `r` is NULL or a NUL-terminated string;
/// `out_locator` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_get_by_ref(
    app: *const ud_app,
    r: *const c_char,
    out_locator: *mut *mut crate::locator::ud_locator,
) -> ud_status {
    crate::locator::new_locator(app, out_locator, |handle, app| {
        let r = text(r, "ref")?;
        handle.state.refs.get_by_ref(app, r)
    })
}

/// Closes the connection and ends the process uidrive launched, if any, a
/// step at a time while it runs: its windows are asked to close (as a
/// window manager's close button asks), then after a grace period (3 s)
/// SIGTERM, then after another SIGKILL. `ud_app_closed_by` says which step
/// ended it.
/// Waits for calls in flight on other threads. Later calls on the handle
/// fail with `UD_ERR_DISCONNECTED`; closing twice is fine. The handle itself
/// stays allocated until `ud_app_free`.
///
/// # Safety
/// `app` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn ud_app_close(app: *const ud_app) -> ud_status {
    guard::status(|| handle(app)?.close())
}

/// Which step of `ud_app_close` ended the app: `UD_CLOSED_WINDOWS` (it
/// closed when its windows were asked to, as a window manager's close
/// button asks), `UD_CLOSED_TERMINATED` (SIGTERM, after a grace period),
/// `UD_CLOSED_KILLED` (SIGKILL, after another), `UD_CLOSED_EXITED` (it had
/// already exited) or `UD_CLOSED_DETACHED` (uidrive did not launch it);
/// `UD_CLOSED_NOT_YET` before the handle is closed.
///
/// # Safety
/// `app` is NULL or a live handle; `out_step` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_closed_by(app: *const ud_app, out_step: *mut i32) -> ud_status {
    zero(out_step);
    guard::status(|| {
        let out_step = out(out_step, "out_step")?;
        let handle = handle(app)?;
        let closed = *handle
            .state
            .closed
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        *out_step = closed.map_or(crate::enums::UD_CLOSED_NOT_YET, |c| c.code());
        Ok(())
    })
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
        // A handle freed before (or never made) is refused, not freed again.
        match handles::take(handles::Kind::App, app, "app") {
            Ok(Some(app)) => {
                let _ = app.close();
            }
            Ok(None) => {}
            Err(e) => {
                crate::last_error::record(&e);
            }
        }
    })
}

/// For tests in this crate: a handle around an app made in Rust.
#[cfg(test)]
pub(crate) fn into_handle(app: App) -> *mut ud_app {
    handles::register(handles::Kind::App, ud_app::new(app))
}
