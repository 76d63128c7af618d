//! The platform's own driver (AT-SPI2 on Linux), for apps that don't speak the protocol.

use crate::errors::IntoPy;
use pyo3::prelude::*;
use std::sync::Arc;
use std::time::Duration;
use uidrive_atspi::{launch_app, AtspiDriver, LaunchOptions};
use uidrive_core::App;

pub enum Target {
    Pid(u32),
    Name(String),
}

/// Starts `argv` with accessibility on and waits for its first window.
pub fn launch(
    py: Python<'_>,
    argv: Vec<String>,
    env: Vec<(String, String)>,
    timeout: Duration,
) -> PyResult<App> {
    let options = LaunchOptions { env, timeout };
    py.detach(move || launch_app(&argv, &options)).or_raise(py)
}

/// Attaches to a running app on the accessibility bus named by `env` (or this process's).
pub fn attach(
    py: Python<'_>,
    target: Target,
    env: Vec<(String, String)>,
    timeout: Duration,
) -> PyResult<App> {
    let options = LaunchOptions { env, timeout };
    let driver = py
        .detach(move || match target {
            Target::Pid(pid) => AtspiDriver::attach_pid(pid, &options),
            Target::Name(name) => AtspiDriver::attach_name(&name, &options),
        })
        .or_raise(py)?;
    Ok(App::new(Arc::new(driver)))
}
