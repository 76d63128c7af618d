//! `uidrive.Desktop`: a private headless desktop (X display, session bus,
//! accessibility bus) for the apps a test launches.

use crate::errors::IntoPy;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::sync::Mutex;
use uidrive_x11::Desktop;

/// A running private desktop. Give apps its ``env``; ``close()`` (or leaving
/// the ``with`` block) ends every process it started.
#[pyclass(module = "uidrive._native", name = "Desktop", frozen)]
pub struct PyDesktop {
    /// `None` once closed.
    desktop: Mutex<Option<Desktop>>,
    display: String,
    env: Vec<(String, String)>,
}

impl PyDesktop {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Desktop>> {
        self.desktop.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Starts a private headless desktop; use it as a context manager.
#[pyfunction]
pub fn headless(py: Python<'_>) -> PyResult<PyDesktop> {
    let desktop = py.detach(Desktop::start).or_raise(py)?;
    Ok(PyDesktop {
        display: desktop.display().to_string(),
        env: desktop.env(),
        desktop: Mutex::new(Some(desktop)),
    })
}

/// A desktop dropped without `close()` still stops, without holding the GIL while it waits.
impl Drop for PyDesktop {
    fn drop(&mut self) {
        if let Some(desktop) = self.lock().take() {
            Python::attach(|py| py.detach(move || desktop.stop()));
        }
    }
}

#[pymethods]
impl PyDesktop {
    /// The X display, as ``":N"``.
    #[getter]
    fn display(&self) -> &str {
        &self.display
    }

    /// The environment an app needs to show on this desktop, accessibility on.
    #[getter]
    fn env<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (name, value) in &self.env {
            dict.set_item(name, value)?;
        }
        Ok(dict)
    }

    /// Whether ``close()`` has run.
    #[getter]
    fn closed(&self) -> bool {
        self.lock().is_none()
    }

    /// Ends every process of the desktop. Closing twice does nothing.
    fn close(&self, py: Python<'_>) {
        let desktop = self.lock().take();
        if let Some(desktop) = desktop {
            py.detach(move || desktop.stop());
        }
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
        format!("<uidrive.Desktop display={}{state}>", self.display)
    }
}
