//! `app.tracing`: recording a trace of an app's steps (docs/trace.md); the
//! recording itself is core's.

use crate::convert::{to_json_text, to_python};
use crate::errors::IntoPy;
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;
use uidrive_core::trace::TraceOptions;
use uidrive_core::App;

/// Records every action and ``expect`` of an app's locators as a step, with
/// the window's snapshot and a capture before and after each, into a zip that
/// ``uidrive trace show`` turns into text or an HTML page.
#[pyclass(module = "uidrive._native", name = "Tracing", frozen)]
pub struct PyTracing {
    pub app: Arc<App>,
}

#[pymethods]
impl PyTracing {
    /// Starts recording. ``InvalidRequestError`` if a recording is on already.
    #[pyo3(signature = (*, screenshots=true, snapshots=true, title=None))]
    fn start(
        &self,
        py: Python<'_>,
        screenshots: bool,
        snapshots: bool,
        title: Option<String>,
    ) -> PyResult<()> {
        let app = self.app.clone();
        let options = TraceOptions {
            screenshots,
            snapshots,
            title,
        };
        py.detach(move || app.start_tracing(options)).or_raise(py)
    }

    /// Stops recording. With ``path``, writes the trace there (a zip, its
    /// directory made if missing) and answers what it holds
    /// (``{"path", "steps", "pictures", "bytes"}``); without, drops it and
    /// answers ``None``, as when no recording was on.
    #[pyo3(signature = (*, path=None))]
    fn stop<'py>(&self, py: Python<'py>, path: Option<PathBuf>) -> PyResult<Bound<'py, PyAny>> {
        let app = self.app.clone();
        let text = py
            .detach(move || {
                app.stop_tracing(path.as_deref())
                    .and_then(|summary| to_json_text(&summary))
            })
            .or_raise(py)?;
        to_python(py, &text)
    }

    /// Whether a recording is on.
    #[getter]
    fn is_recording(&self) -> bool {
        self.app.tracing().is_recording()
    }

    fn __repr__(&self) -> String {
        let state = if self.app.tracing().is_recording() {
            "on"
        } else {
            "off"
        };
        format!("<uidrive.Tracing {state}>")
    }
}
