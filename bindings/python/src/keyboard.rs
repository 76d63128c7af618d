//! `uidrive.Keyboard`: real key and text input into the focused element
//! (``app.keyboard``), as Playwright's ``page.keyboard``.

use crate::app::PyApp;
use crate::convert::opt_seconds;
use crate::errors::IntoPy;
use pyo3::prelude::*;
use std::sync::Arc;
use uidrive_core::protocol::WindowId;
use uidrive_core::App;

/// The keyboard of an app: types into whatever element has the focus in
/// the focused window, or in ``window``.
#[pyclass(module = "uidrive._native", name = "Keyboard", frozen)]
pub struct PyKeyboard {
    app: Arc<App>,
}

#[pymethods]
impl PyApp {
    /// The app's keyboard.
    #[getter]
    fn keyboard(&self) -> PyKeyboard {
        PyKeyboard {
            app: self.inner.clone(),
        }
    }
}

impl PyKeyboard {
    fn keyboard(&self, window: Option<WindowId>) -> uidrive_core::Keyboard {
        let keyboard = self.app.keyboard();
        match window {
            Some(window) => keyboard.in_window(window),
            None => keyboard,
        }
    }
}

#[pymethods]
impl PyKeyboard {
    /// Types ``text`` into the focused element: at once, or one character at
    /// a time ``delay`` seconds apart.
    #[pyo3(signature = (text, *, delay=None, window=None))]
    fn r#type(
        &self,
        py: Python<'_>,
        text: String,
        delay: Option<f64>,
        window: Option<WindowId>,
    ) -> PyResult<()> {
        let delay = opt_seconds(py, "delay", delay)?;
        let keyboard = self.keyboard(window);
        py.detach(move || keyboard.type_text(&text, delay))
            .or_raise(py)
    }

    /// Presses a key chord such as ``"Enter"``, ``"Ctrl+A"`` or ``"CmdOrCtrl+Shift+Z"``.
    #[pyo3(signature = (chord, *, window=None))]
    fn press(&self, py: Python<'_>, chord: String, window: Option<WindowId>) -> PyResult<()> {
        let keyboard = self.keyboard(window);
        py.detach(move || keyboard.press(&chord)).or_raise(py)
    }

    fn __repr__(&self) -> String {
        "<uidrive.Keyboard>".to_string()
    }
}
