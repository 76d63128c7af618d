//! `uidrive.Process`: the process uidrive launched (``app.process``): its
//! pid, its return code once it has ended, and, with ``capture_output=True``
//! at launch, what it wrote on stdout and stderr.

use crate::app::PyApp;
use crate::convert::opt_timeout_ms;
use crate::errors::IntoPy;
use pyo3::prelude::*;
use std::sync::Arc;
use uidrive_core::App;
use uidrive_facade::process::Process;

#[pyclass(module = "uidrive._native", name = "Process", frozen)]
pub struct PyProcess {
    app: Arc<App>,
    process: Arc<Process>,
}

#[pymethods]
impl PyApp {
    /// The process uidrive launched, or ``None`` for an app it connected or attached to.
    #[getter]
    fn process(&self) -> Option<PyProcess> {
        self.process.clone().map(|process| PyProcess {
            app: self.inner.clone(),
            process,
        })
    }
}

#[pymethods]
impl PyProcess {
    #[getter]
    fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// The exit code once it has ended (``-N`` for signal ``N``), else ``None``.
    #[getter]
    fn returncode(&self) -> Option<i32> {
        self.process.exit_code(&self.app)
    }

    /// Everything it wrote on stdout (so far, while it runs); ``None`` unless
    /// launched with ``capture_output=True``.
    #[getter]
    fn stdout(&self, py: Python<'_>) -> Option<String> {
        let (app, process) = (self.app.clone(), self.process.clone());
        py.detach(move || process.stdout(&app))
    }

    /// Everything it wrote on stderr; ``None`` unless captured.
    #[getter]
    fn stderr(&self, py: Python<'_>) -> Option<String> {
        let (app, process) = (self.app.clone(), self.process.clone());
        py.detach(move || process.stderr(&app))
    }

    /// Waits up to ``timeout`` milliseconds for it to end; its return code
    /// (``TimeoutError`` if it still runs).
    #[pyo3(signature = (timeout=None))]
    fn wait(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<i32> {
        let timeout =
            opt_timeout_ms(py, "timeout", timeout)?.unwrap_or(uidrive_core::defaults::PROCESS_WAIT);
        let (app, process) = (self.app.clone(), self.process.clone());
        py.detach(move || process.wait(&app, timeout)).or_raise(py)
    }

    fn __repr__(&self) -> String {
        match self.process.exit_code(&self.app) {
            Some(code) => format!(
                "<uidrive.Process pid={} returncode={code}>",
                self.process.pid()
            ),
            None => format!("<uidrive.Process pid={}>", self.process.pid()),
        }
    }
}
