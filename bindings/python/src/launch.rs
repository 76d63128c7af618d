//! The module's entry points: launch, connect and attach give an `App`.

use crate::app::PyApp;
use crate::convert::seconds;
use crate::errors::{invalid, IntoPy};
use pyo3::prelude::*;
use std::path::PathBuf;
use uidrive_core::App;

/// Connects to an app listening on a protocol socket (a MyGo app, or ``uidrive serve``).
#[pyfunction]
pub fn connect(py: Python<'_>, socket_path: PathBuf) -> PyResult<PyApp> {
    let app = py.detach(move || App::connect(&socket_path)).or_raise(py)?;
    Ok(PyApp::new(app))
}

/// Launches ``argv`` and returns the App once its first window shows.
#[pyfunction]
#[pyo3(signature = (argv, *, env=None, timeout=30.0, socket_env=None))]
pub fn launch(
    py: Python<'_>,
    argv: Vec<String>,
    env: Option<&Bound<'_, PyAny>>,
    timeout: f64,
    socket_env: Option<String>,
) -> PyResult<PyApp> {
    let timeout = seconds(py, "timeout", timeout)?;
    let env = env.map(env_pairs).transpose()?.unwrap_or_default();
    let app = match socket_env {
        Some(socket_env) => py
            .detach(move || App::launch_socket(&argv, &env, &socket_env, timeout))
            .or_raise(py)?,
        None => crate::platform::launch(py, argv, env, timeout)?,
    };
    Ok(PyApp::new(app))
}

/// Attaches to a running app by ``pid`` or by its accessible ``name``.
#[pyfunction]
#[pyo3(signature = (*, pid=None, name=None, env=None, timeout=30.0))]
pub fn attach(
    py: Python<'_>,
    pid: Option<u32>,
    name: Option<String>,
    env: Option<&Bound<'_, PyAny>>,
    timeout: f64,
) -> PyResult<PyApp> {
    let timeout = seconds(py, "timeout", timeout)?;
    let env = env.map(env_pairs).transpose()?.unwrap_or_default();
    let target = match (pid, name) {
        (Some(pid), None) => crate::platform::Target::Pid(pid),
        (None, Some(name)) => crate::platform::Target::Name(name),
        _ => return Err(invalid(py, "attach: give pid= or name=, exactly one")),
    };
    let app = crate::platform::attach(py, target, env, timeout)?;
    Ok(PyApp::new(app))
}

/// Environment variables from any mapping of str to str (a dict, ``os.environ``, ``desktop.env``).
fn env_pairs(env: &Bound<'_, PyAny>) -> PyResult<Vec<(String, String)>> {
    env.call_method0("items")?
        .try_iter()?
        .map(|item| item?.extract::<(String, String)>())
        .collect()
}
