//! The module's entry points: launch, connect and attach give an `App`.
//! Which driver serves the app is the facade's choice, as in every language.

use crate::app::PyApp;
use crate::convert::opt_timeout_ms;
use crate::errors::{invalid, IntoPy};
use pyo3::prelude::*;
use std::path::PathBuf;
use uidrive_facade::{AttachTarget, LaunchOptions};

/// Connects to an app listening on a protocol socket (a MyGo app, or ``uidrive serve``).
#[pyfunction]
pub fn connect(py: Python<'_>, socket_path: PathBuf) -> PyResult<PyApp> {
    let path = socket_path
        .to_str()
        .ok_or_else(|| invalid(py, "connect(): the socket path is not valid UTF-8"))?
        .to_string();
    let app = py
        .detach(move || uidrive_facade::connect(&path))
        .or_raise(py)?;
    Ok(PyApp::new(app))
}

/// Launches ``argv`` and returns the App once it is ready: with accessibility
/// on and its first window shown, or, with ``socket_env``, listening on the
/// socket that variable names.
#[pyfunction]
#[pyo3(signature = (argv, *, env=None, timeout=None, socket_env=None, capture_output=false))]
pub fn launch(
    py: Python<'_>,
    argv: Vec<String>,
    env: Option<&Bound<'_, PyAny>>,
    timeout: Option<f64>,
    socket_env: Option<String>,
    capture_output: bool,
) -> PyResult<PyApp> {
    let options = LaunchOptions {
        env: env.map(env_pairs).transpose()?.unwrap_or_default(),
        // None: the facade's default, uidrive_core::defaults::LAUNCH.
        timeout: opt_timeout_ms(py, "timeout", timeout)?,
        socket_env,
    };
    if capture_output {
        let (app, process) = py
            .detach(move || uidrive_facade::process::launch_captured(&argv, &options))
            .or_raise(py)?;
        return Ok(PyApp::with_process(app, Some(process)));
    }
    let app = py
        .detach(move || uidrive_facade::launch(&argv, &options))
        .or_raise(py)?;
    Ok(PyApp::new(app))
}

/// The target of ``attach``: exactly one of ``pid`` and ``name``.
pub fn attach_target(
    py: Python<'_>,
    pid: Option<u32>,
    name: Option<String>,
) -> PyResult<AttachTarget> {
    AttachTarget::from_parts(pid, name)
        .map_err(|_| invalid(py, "attach(): give pid= or name=, exactly one"))
}

/// Attaches to a running app by ``pid`` or by its accessible ``name``.
#[pyfunction]
#[pyo3(signature = (*, pid=None, name=None, env=None, timeout=None))]
pub fn attach(
    py: Python<'_>,
    pid: Option<u32>,
    name: Option<String>,
    env: Option<&Bound<'_, PyAny>>,
    timeout: Option<f64>,
) -> PyResult<PyApp> {
    let timeout = opt_timeout_ms(py, "timeout", timeout)?;
    let env = env.map(env_pairs).transpose()?.unwrap_or_default();
    let target = attach_target(py, pid, name)?;
    let app = py
        .detach(move || uidrive_facade::attach(&target, &env, timeout))
        .or_raise(py)?;
    Ok(PyApp::new(app))
}

/// Environment variables from any mapping of str to str (a dict, ``os.environ``, ``desktop.env``).
pub fn env_pairs(env: &Bound<'_, PyAny>) -> PyResult<Vec<(String, String)>> {
    env.call_method0("items")?
        .try_iter()?
        .map(|item| item?.extract::<(String, String)>())
        .collect()
}
