//! `ud_desktop`: a private headless desktop (an X server, a session bus, the
//! accessibility bus and its registry) for the apps a test launches on it.

use crate::app::{argv_list, env_list, hand_out, ud_app};
use crate::convert::{out, owned_json, text, zero};
use crate::guard;
use crate::handles;
use crate::status::ud_status;
use std::ffi::c_char;
use std::time::Duration;
use uidrive_core::{Error, Result};
use uidrive_facade::{time, AttachTarget, Desktop, HeadlessOptions, LaunchOptions};

/// A private headless desktop. Opaque: made by `ud_desktop_start`, freed by
/// `ud_desktop_free`, which ends every process it started (the apps launched
/// on it included) and removes its runtime folder.
///
/// Thread safety: it may be used from several threads at once;
/// `ud_desktop_free` must be its last use.
#[allow(non_camel_case_types)]
pub struct ud_desktop {
    desktop: Desktop,
}

/// # Safety
/// `desktop` is NULL or a live handle.
pub(crate) unsafe fn desktop_ref<'a>(desktop: *const ud_desktop) -> Result<&'a Desktop> {
    handles::get(handles::Kind::Desktop, desktop, "desktop").map(|d| &d.desktop)
}

/// Starts a private headless desktop of `width` × `height` pixels
/// (0: 1920 × 1200), giving each start-up step up to `timeout_ms`
/// (0: 30 000). Needs Xvfb, dbus-daemon and at-spi2-core installed.
///
/// On success `*out_desktop` is a new handle, owned by the caller and freed
/// with `ud_desktop_free`. On failure it is NULL and whatever started is ended.
///
/// # Safety
/// `out_desktop` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_desktop_start(
    width: u32,
    height: u32,
    timeout_ms: u32,
    out_desktop: *mut *mut ud_desktop,
) -> ud_status {
    ud_desktop_start_with(
        width,
        height,
        timeout_ms,
        crate::enums::UD_BACKEND_X11,
        false,
        out_desktop,
    )
}

/// As `ud_desktop_start`, on the display `backend` names: `UD_BACKEND_X11`
/// (Xvfb and openbox) or `UD_BACKEND_WAYLAND` (sway on wlroots' headless
/// backend, no X server; needs sway installed). Apps launched on a Wayland
/// desktop run as native Wayland clients. `xwayland` (Wayland only) runs
/// Xwayland too, so apps that speak only X11 can show; apps still start as
/// Wayland clients unless told otherwise (`GDK_BACKEND=x11` through
/// `ud_desktop_launch_env`). Another `backend`, or `xwayland` on X11,
/// fails with `UD_ERR_INVALID_REQUEST`.
///
/// # Safety
/// `out_desktop` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_desktop_start_with(
    width: u32,
    height: u32,
    timeout_ms: u32,
    backend: i32,
    xwayland: bool,
    out_desktop: *mut *mut ud_desktop,
) -> ud_status {
    zero(out_desktop);
    guard::status(|| {
        let out_desktop = out(out_desktop, "out_desktop")?;
        let desktop = uidrive_facade::headless(&HeadlessOptions {
            width: Some(width),
            height: Some(height),
            timeout: Some(Duration::from_millis(timeout_ms.into())),
            backend: Some(crate::enums::backend(backend)?),
            xwayland,
        })?;
        *out_desktop = handles::register(handles::Kind::Desktop, ud_desktop { desktop });
        Ok(())
    })
}

/// The environment an app needs to show on this desktop with accessibility
/// on, as a JSON object: `{"DISPLAY": ":99", "DBUS_SESSION_BUS_ADDRESS": ...}`.
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `desktop` is NULL or a live handle; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_desktop_env(
    desktop: *const ud_desktop,
    out_json: *mut *mut c_char,
) -> ud_status {
    zero(out_json);
    guard::status(|| {
        let out_json = out(out_json, "out_json")?;
        *out_json = owned_json(&desktop_ref(desktop)?.env_json());
        Ok(())
    })
}

/// Launches `argv` (a NULL-terminated array; `argv[0]` is the program,
/// looked up in `PATH`) on this desktop with accessibility on, and waits up
/// to `timeout_ms` (0: 30 000) for its first window.
///
/// On success `*out_app` is a new handle, owned by the caller and freed with
/// `ud_app_free`, which ends the app (SIGTERM, then SIGKILL after a grace
/// period). `ud_desktop_free` also ends apps still running. NULL on failure.
///
/// # Safety
/// `desktop` is NULL or a live handle; `argv` is NULL or a NULL-terminated
/// array of NUL-terminated strings; `out_app` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_desktop_launch(
    desktop: *const ud_desktop,
    argv: *const *const c_char,
    timeout_ms: u32,
    out_app: *mut *mut ud_app,
) -> ud_status {
    ud_desktop_launch_env(desktop, argv, std::ptr::null(), timeout_ms, out_app)
}

/// As `ud_desktop_launch`, with extra `NAME=VALUE` entries in `env` (a
/// NULL-terminated array, or NULL for none) over the desktop's environment.
///
/// # Safety
/// As `ud_desktop_launch`; `env` is NULL or a NULL-terminated array of
/// NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn ud_desktop_launch_env(
    desktop: *const ud_desktop,
    argv: *const *const c_char,
    env: *const *const c_char,
    timeout_ms: u32,
    out_app: *mut *mut ud_app,
) -> ud_status {
    hand_out(out_app, || {
        let desktop = desktop_ref(desktop)?;
        let argv = argv_list(argv)?;
        let env = env_list(env)?;
        desktop.launch(
            &argv,
            &LaunchOptions {
                env,
                timeout: Some(time::millis_or("`timeout_ms`", timeout_ms, time::LAUNCH)?),
                socket_env: None,
            },
        )
    })
}

/// As `ud_desktop_launch`, keeping what the app writes on stdout and stderr
/// for `ud_app_output` — a dialog that answers on stdout (zenity) can be
/// tested without spawning it yourself.
///
/// # Safety
/// As `ud_desktop_launch`.
#[no_mangle]
pub unsafe extern "C" fn ud_desktop_launch_captured(
    desktop: *const ud_desktop,
    argv: *const *const c_char,
    timeout_ms: u32,
    out_app: *mut *mut ud_app,
) -> ud_status {
    crate::app::hand_out_with_process(out_app, || {
        let desktop = desktop_ref(desktop)?;
        let argv = argv_list(argv)?;
        desktop.launch_captured(
            &argv,
            &LaunchOptions {
                env: Vec::new(),
                timeout: Some(time::millis_or("`timeout_ms`", timeout_ms, time::LAUNCH)?),
                socket_env: None,
            },
        )
    })
}

/// Attaches to the app with process id `pid` running on this desktop,
/// waiting up to `timeout_ms` (0: 30 000) for it to show on its
/// accessibility bus. Freeing the handle does not end the app.
///
/// # Safety
/// `desktop` is NULL or a live handle; `out_app` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_desktop_attach_pid(
    desktop: *const ud_desktop,
    pid: u32,
    timeout_ms: u32,
    out_app: *mut *mut ud_app,
) -> ud_status {
    hand_out(out_app, || {
        let desktop = desktop_ref(desktop)?;
        if pid == 0 {
            return Err(Error::invalid_request(
                "`pid` is 0; give the app's process id",
            ));
        }
        desktop.attach(
            &AttachTarget::Pid(pid),
            &[],
            Some(time::millis_or("`timeout_ms`", timeout_ms, time::LAUNCH)?),
        )
    })
}

/// As `ud_desktop_attach_pid`, naming the app by its accessible name.
///
/// # Safety
/// `desktop` is NULL or a live handle; `name` is NULL or a NUL-terminated
/// string; `out_app` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_desktop_attach_name(
    desktop: *const ud_desktop,
    name: *const c_char,
    timeout_ms: u32,
    out_app: *mut *mut ud_app,
) -> ud_status {
    hand_out(out_app, || {
        let desktop = desktop_ref(desktop)?;
        let target = AttachTarget::from_parts(None, Some(text(name, "name")?.to_string()))?;
        desktop.attach(
            &target,
            &[],
            Some(time::millis_or("`timeout_ms`", timeout_ms, time::LAUNCH)?),
        )
    })
}

/// Ends every process the desktop started — apps launched on it that are
/// still running first (SIGTERM, then SIGKILL after a grace period), then
/// the registry, the buses and the X server — removes its runtime folder and
/// frees the handle. NULL does nothing. Free the desktop's apps first
/// (`ud_app_free`) so that their handles close cleanly.
///
/// # Safety
/// `desktop` is NULL or a live handle that is not used again.
#[no_mangle]
pub unsafe extern "C" fn ud_desktop_free(desktop: *mut ud_desktop) {
    guard::value((), || {
        // A desktop freed before (or never made) is refused, not freed again.
        match handles::take(handles::Kind::Desktop, desktop, "desktop") {
            Ok(Some(desktop)) => desktop.desktop.stop(),
            Ok(None) => {}
            Err(e) => {
                crate::last_error::record(&e);
            }
        }
    })
}

const _: fn() = || {
    fn shareable<T: Send + Sync>() {}
    shareable::<ud_desktop>();
};
