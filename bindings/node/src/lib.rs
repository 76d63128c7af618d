//! uidrive for Node: a Promise-based API over the core. Marshalling only; the logic is in core.

mod app;
mod convert;
mod desktop;
mod error;
mod expect;
mod finders;
mod locator;
mod matching;
mod task;
mod window;

use crate::convert::{env_pairs, millis};
use crate::task::{Job, Out};
use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use uidrive_atspi::AtspiDriver;
use uidrive_core::{App as CoreApp, Error as CoreError, Result as CoreResult};

pub use app::App;
pub use desktop::Desktop;
pub use expect::{expect, Expect};
pub use locator::Locator;
pub use window::Window;

/// How long `launch` waits for the app by default.
const LAUNCH_TIMEOUT: Duration = Duration::from_secs(30);

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

/// Connects to an app (or `uidrive serve`) listening on a protocol socket.
#[napi(ts_return_type = "Promise<App>")]
pub fn connect(socket_path: String) -> AsyncTask<Job> {
    task::run(move || CoreApp::connect(&socket_path).map(|app| Out::App(App::new(app))))
}

fn driver_options(
    what: &str,
    env: Option<HashMap<String, String>>,
    timeout: Option<f64>,
) -> CoreResult<uidrive_atspi::LaunchOptions> {
    let mut options = uidrive_atspi::LaunchOptions {
        env: env_pairs(env),
        ..Default::default()
    };
    if let Some(ms) = timeout {
        options.timeout = millis(&format!("{what}: timeout"), ms)?;
    }
    Ok(options)
}

/// Launches `argv` and resolves once the app is ready: through the Linux
/// driver (accessibility on, first window shown), or, with `socketEnv`, as an
/// app that speaks the protocol on the socket that variable names.
#[napi(ts_return_type = "Promise<App>")]
pub fn launch(argv: Vec<String>, options: Option<LaunchOptions>) -> AsyncTask<Job> {
    let options = options.unwrap_or_default();
    task::run(move || {
        let app = match options.socket_env {
            Some(socket_env) => {
                let timeout = match options.timeout {
                    Some(ms) => millis("launch: timeout", ms)?,
                    None => LAUNCH_TIMEOUT,
                };
                CoreApp::launch_socket(&argv, &env_pairs(options.env), &socket_env, timeout)?
            }
            None => uidrive_atspi::launch_app(
                &argv,
                &driver_options("launch", options.env, options.timeout)?,
            )?,
        };
        Ok(Out::App(App::new(app)))
    })
}

/// Attaches to a running app by `{pid}` or by accessible `{name}` through the Linux driver.
#[napi(
    ts_args_type = "target: { pid: number } | { name: string }, options?: AttachOptions",
    ts_return_type = "Promise<App>"
)]
pub fn attach(target: AttachTarget, options: Option<LaunchOptions>) -> AsyncTask<Job> {
    let options = options.unwrap_or_default();
    task::run(move || {
        let opts = driver_options("attach", options.env, options.timeout)?;
        let driver = match (target.pid, target.name) {
            (Some(pid), None) => AtspiDriver::attach_pid(pid, &opts)?,
            (None, Some(name)) => AtspiDriver::attach_name(&name, &opts)?,
            _ => {
                return Err(CoreError::invalid_request(
                    "attach: give {pid} or {name}, one of them",
                ))
            }
        };
        Ok(Out::App(App::new(CoreApp::new(Arc::new(driver)))))
    })
}

pub use desktop::headless;
