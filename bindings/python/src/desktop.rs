//! `uidrive.Desktop`: a private headless desktop (X display, session bus,
//! accessibility bus) for the apps a test launches.

use crate::app::PyApp;
use crate::convert::opt_timeout_ms;
use crate::errors::IntoPy;
use crate::launch::{attach_target, env_pairs};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::sync::Arc;
use uidrive_facade::{Backend, Desktop, HeadlessOptions, LaunchOptions};

/// A running private desktop. Launch apps on it with ``launch()``, or give
/// them its ``env``; ``close()`` (or leaving the ``with`` block) ends every
/// process it started, the apps launched on it included.
#[pyclass(module = "uidrive._native", name = "Desktop", frozen)]
pub struct PyDesktop {
    pub(crate) desktop: Arc<Desktop>,
}

/// Starts a private headless desktop; use it as a context manager.
#[pyfunction]
#[pyo3(signature = (*, width=None, height=None, timeout=None, backend=None, xwayland=false))]
pub fn headless(
    py: Python<'_>,
    width: Option<u32>,
    height: Option<u32>,
    timeout: Option<f64>,
    backend: Option<&str>,
    xwayland: bool,
) -> PyResult<PyDesktop> {
    let options = HeadlessOptions {
        width,
        height,
        timeout: opt_timeout_ms(py, "timeout", timeout)?,
        backend: backend.map(Backend::parse).transpose().or_raise(py)?,
        xwayland,
    };
    let desktop = py
        .detach(move || uidrive_facade::headless(&options))
        .or_raise(py)?;
    Ok(PyDesktop {
        desktop: Arc::new(desktop),
    })
}

/// A desktop dropped without `close()` still stops, without holding the GIL while it waits.
impl Drop for PyDesktop {
    fn drop(&mut self) {
        if !self.desktop.is_stopped() {
            let desktop = self.desktop.clone();
            Python::attach(|py| py.detach(move || desktop.stop()));
        }
    }
}

#[pymethods]
impl PyDesktop {
    /// The X display, as ``":N"``; on the Wayland backend, the compositor's socket as an absolute
    /// path (``env``'s ``XDG_RUNTIME_DIR`` joined with its ``WAYLAND_DISPLAY``, a name).
    #[getter]
    fn display(&self) -> &str {
        self.desktop.display()
    }

    /// The environment an app needs to show on this desktop, accessibility on.
    #[getter]
    fn env<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (name, value) in self.desktop.env() {
            dict.set_item(name, value)?;
        }
        Ok(dict)
    }

    /// Whether ``close()`` has run.
    #[getter]
    fn closed(&self) -> bool {
        self.desktop.is_stopped()
    }

    /// ``uidrive.launch`` on this desktop: its environment, then ``env`` on top.
    #[pyo3(signature = (argv, *, env=None, timeout=None, socket_env=None, capture_output=false))]
    fn launch(
        &self,
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
        let desktop = self.desktop.clone();
        if capture_output {
            let (app, process) = py
                .detach(move || desktop.launch_captured(&argv, &options))
                .or_raise(py)?;
            return Ok(PyApp::with_process(app, Some(process)));
        }
        let app = py
            .detach(move || desktop.launch(&argv, &options))
            .or_raise(py)?;
        Ok(PyApp::new(app))
    }

    /// ``uidrive.attach`` on this desktop: by ``pid`` or accessible ``name``.
    #[pyo3(signature = (*, pid=None, name=None, timeout=None))]
    fn attach(
        &self,
        py: Python<'_>,
        pid: Option<u32>,
        name: Option<String>,
        timeout: Option<f64>,
    ) -> PyResult<PyApp> {
        let timeout = opt_timeout_ms(py, "timeout", timeout)?;
        let target = attach_target(py, pid, name)?;
        let desktop = self.desktop.clone();
        let app = py
            .detach(move || desktop.attach(&target, &[], timeout))
            .or_raise(py)?;
        Ok(PyApp::new(app))
    }

    /// Ends every process of the desktop, the apps launched on it first.
    /// Closing twice does nothing.
    fn close(&self, py: Python<'_>) {
        let desktop = self.desktop.clone();
        py.detach(move || desktop.stop());
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, PyTuple>) -> bool {
        self.close(py);
        false
    }

    fn __repr__(&self) -> String {
        let state = if self.closed() { " closed" } else { "" };
        format!(
            "<uidrive.Desktop display={}{state}>",
            self.desktop.display()
        )
    }
}
