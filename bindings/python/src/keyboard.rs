//! `uidrive.Keyboard`: real key and text input into the focused element
//! (``app.keyboard``), as Playwright's ``page.keyboard``.

use crate::app::PyApp;
use crate::convert::{opt_timeout_ms, to_json_text, to_python};
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

    /// Runs keyboard input without the GIL; its outcome as a dict.
    fn input<'py>(
        py: Python<'py>,
        input: impl FnOnce() -> uidrive_core::Result<uidrive_core::ActionOutcome> + Send,
    ) -> PyResult<Bound<'py, PyAny>> {
        let text = py
            .detach(move || to_json_text(&uidrive_facade::outcome::to_json(&input()?)?))
            .or_raise(py)?;
        to_python(py, &text)
    }
}

#[pymethods]
impl PyKeyboard {
    /// Types ``text`` into the focused element: at once, or one character at
    /// a time ``delay`` milliseconds apart. Answers the outcome: ``"confirmed"``
    /// once the focused element reads the text, ``"unverifiable"`` when
    /// nothing focused shows text; a ``FailedError`` saying what it reads
    /// when the text did not land.
    #[pyo3(signature = (text, *, delay=None, window=None))]
    fn r#type<'py>(
        &self,
        py: Python<'py>,
        text: String,
        delay: Option<f64>,
        window: Option<WindowId>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let delay = opt_timeout_ms(py, "delay", delay)?;
        let keyboard = self.keyboard(window);
        PyKeyboard::input(py, move || keyboard.type_text(&text, delay))
    }

    /// Presses a key chord such as ``"Enter"``, ``"Ctrl+A"`` or
    /// ``"CmdOrCtrl+Shift+Z"``. Answers the outcome: ``"confirmed"`` when
    /// the focus moved, the focused element changed or a window opened or
    /// closed, else ``"unverifiable"``.
    #[pyo3(signature = (chord, *, window=None))]
    fn press<'py>(
        &self,
        py: Python<'py>,
        chord: String,
        window: Option<WindowId>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let keyboard = self.keyboard(window);
        PyKeyboard::input(py, move || keyboard.press(&chord))
    }

    /// Presses ``chord``'s keys and leaves them down, as a person holds
    /// Shift (``"Shift"``, ``"Ctrl+Shift"``): the clicks and keys that follow
    /// come with them held, until ``up`` releases them or the app closes.
    /// Answers the outcome, ``"unverifiable"``: a held key shows nothing by
    /// itself.
    #[pyo3(signature = (chord, *, window=None))]
    fn down<'py>(
        &self,
        py: Python<'py>,
        chord: String,
        window: Option<WindowId>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let keyboard = self.keyboard(window);
        PyKeyboard::input(py, move || keyboard.down(&chord))
    }

    /// Releases keys ``down`` holds. Answers the outcome, ``"unverifiable"``.
    #[pyo3(signature = (chord, *, window=None))]
    fn up<'py>(
        &self,
        py: Python<'py>,
        chord: String,
        window: Option<WindowId>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let keyboard = self.keyboard(window);
        PyKeyboard::input(py, move || keyboard.up(&chord))
    }

    fn __repr__(&self) -> String {
        "<uidrive.Keyboard>".to_string()
    }
}
