//! uidrive for Node: a Promise-based API over the core. Marshalling only; the
//! logic is in `uidrive_facade` (reaching apps, timeouts, names, outcomes,
//! refs) and core.

mod app;
mod convert;
mod desktop;
mod error;
mod expect;
mod finders;
mod keyboard;
mod locator;
mod matching;
mod process;
mod services;
mod task;
mod tracing;
mod window;
mod windows;

use crate::convert::{env_pairs, millis};
use crate::task::{Job, Out};
use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;
use std::collections::HashMap;
use std::time::Duration;
use uidrive_core::{Error as CoreError, Result as CoreResult};

pub use app::App;
pub use desktop::Desktop;
pub use expect::{expect, Expect};
pub use keyboard::Keyboard;
pub use locator::Locator;
pub use process::Process;
pub use services::{Clipboard, Notification, TrayItem, TrayMenuItem};
pub use tracing::Tracing;
pub use window::Window;

/// How long `launch` waits for the app by default.
const LAUNCH_TIMEOUT: Duration = uidrive_core::defaults::LAUNCH;

#[napi(object)]
#[derive(Default)]
pub struct LaunchOptions {
    /// Extra environment variables for the app (and, for the Linux driver,
    /// where to find its display and bus: a Desktop's `env`).
    pub env: Option<HashMap<String, String>>,
    /// Milliseconds to wait for the app to be ready.
    pub timeout: Option<f64>,
    /// Launch an app that speaks the protocol: this variable gets a fresh socket path.
    pub socket_env: Option<String>,
    /// Keep what the app writes on stdout and stderr, for `app.process`.
    pub capture_output: Option<bool>,
}

/// Which running app `attach` drives: `{pid}` or `{name}`.
#[napi(object)]
pub struct AttachTarget {
    pub pid: Option<u32>,
    pub name: Option<String>,
}

/// The version of this module.
#[napi]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// The `uidrive` command line, run in this module: the package's `uidrive`
/// bin calls it, so the command comes with the module and needs no second
/// binary. Blocks until the command ends (a command line owns its process)
/// and answers its exit status. `selfCommand` starts `uidrive` again (for the
/// session daemon `open` leaves running).
#[napi]
pub fn cli_main(argv: Vec<String>, self_command: Vec<String>) -> u32 {
    let argv = argv.into_iter().map(std::ffi::OsString::from).collect();
    let again = self_command
        .into_iter()
        .map(std::ffi::OsString::from)
        .collect();
    u32::from(uidrive_cli::run_embedded(argv, again))
}

/// Connects to an app (or `uidrive serve`) listening on a protocol socket.
#[napi(ts_return_type = "Promise<App>")]
pub fn connect(socket_path: String) -> AsyncTask<Job> {
    task::run(move || uidrive_facade::connect(&socket_path).map(|app| Out::App(App::new(app))))
}

/// The facade's launch options from JavaScript's.
pub(crate) fn launch_options(
    what: &str,
    options: LaunchOptions,
) -> CoreResult<uidrive_facade::LaunchOptions> {
    Ok(uidrive_facade::LaunchOptions {
        env: env_pairs(options.env),
        timeout: Some(match options.timeout {
            Some(ms) => millis(&format!("{what}: timeout"), ms)?,
            None => LAUNCH_TIMEOUT,
        }),
        socket_env: options.socket_env,
    })
}

/// `{pid}` or `{name}`, exactly one.
pub(crate) fn attach_target(target: AttachTarget) -> CoreResult<uidrive_facade::AttachTarget> {
    uidrive_facade::AttachTarget::from_parts(target.pid, target.name)
        .map_err(|_| CoreError::invalid_request("attach: give {pid} or {name}, one of them"))
}

/// Launches `argv` and resolves once the app is ready: with accessibility on
/// and its first window shown, or, with `socketEnv`, as an app that speaks
/// the protocol on the socket that variable names. The facade chooses the driver.
#[napi(ts_return_type = "Promise<App>")]
pub fn launch(argv: Vec<String>, options: Option<LaunchOptions>) -> AsyncTask<Job> {
    let options = options.unwrap_or_default();
    let capture = options.capture_output.unwrap_or(false);
    task::run(move || {
        let options = launch_options("launch", options)?;
        if capture {
            let (app, process) = uidrive_facade::process::launch_captured(&argv, &options)?;
            return Ok(Out::App(App::with_process(app, Some(process))));
        }
        let app = uidrive_facade::launch(&argv, &options)?;
        Ok(Out::App(App::new(app)))
    })
}

/// Attaches to a running app by `{pid}` or by accessible `{name}`.
#[napi(
    ts_args_type = "target: { pid: number } | { name: string }, options?: AttachOptions",
    ts_return_type = "Promise<App>"
)]
pub fn attach(target: AttachTarget, options: Option<LaunchOptions>) -> AsyncTask<Job> {
    let options = options.unwrap_or_default();
    task::run(move || {
        let target = attach_target(target)?;
        let options = launch_options("attach", options)?;
        let app = uidrive_facade::attach(&target, &options.env, options.timeout)?;
        Ok(Out::App(App::new(app)))
    })
}

pub use desktop::headless;
