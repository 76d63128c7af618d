//! Window management on `Window` (move, resize, minimize, maximize,
//! restore, focus, close, bounds, states), the desktop's apps and screen on
//! `App`, and `App.expect_window()`: marshalling only; core and the facade decide.

use crate::app::PyApp;
use crate::convert::{opt_timeout_ms, to_json_text, to_python};
use crate::errors::{invalid, IntoPy};
use crate::locator::{PyLocator, PyWindow};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use uidrive_core::protocol::WindowId;
use uidrive_core::{App, WindowRef};

impl PyWindow {
    fn state_call<'py, T, F>(&self, py: Python<'py>, call: F) -> PyResult<Bound<'py, PyAny>>
    where
        T: serde::Serialize,
        F: FnOnce(&WindowRef) -> uidrive_core::Result<T> + Send,
    {
        let window = self.inner.clone();
        let text = py
            .detach(move || call(&window).and_then(|value| to_json_text(&value)))
            .or_raise(py)?;
        to_python(py, &text)
    }
}

#[pymethods]
impl PyWindow {
    /// Moves the window's content to ``x``, ``y`` on the screen through the
    /// window manager; the window's state once its place reads back so.
    fn r#move<'py>(&self, py: Python<'py>, x: i32, y: i32) -> PyResult<Bound<'py, PyAny>> {
        self.state_call(py, move |w| w.move_to(x, y))
    }

    /// Resizes the window's content to ``width`` × ``height`` (confirmed).
    fn resize<'py>(&self, py: Python<'py>, width: u32, height: u32) -> PyResult<Bound<'py, PyAny>> {
        self.state_call(py, move |w| w.resize(width, height))
    }

    /// Minimizes the window (confirmed by its state).
    fn minimize<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.state_call(py, |w| w.minimize())
    }

    /// Maximizes the window (confirmed by its state).
    fn maximize<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.state_call(py, |w| w.maximize())
    }

    /// Shows the window neither minimized, maximized nor fullscreen.
    fn restore<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.state_call(py, |w| w.restore())
    }

    /// Raises the window and gives it the focus (confirmed by the active window).
    fn focus<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.state_call(py, |w| w.focus())
    }

    /// Asks the window to close as its close button does, and waits for it to go.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.state_call(py, |w| w.close())
    }

    /// The window's content on the screen: ``{"x", "y", "width", "height"}``.
    fn bounds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.state_call(py, |w| w.bounds())
    }

    /// Which of ``minimized``, ``maximized``, ``fullscreen``, ``focused``, ``above`` hold.
    fn states(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let window = self.inner.clone();
        py.detach(move || window.states()).or_raise(py)
    }
}

#[pymethods]
impl PyApp {
    /// Every app on the desktop's accessibility bus: dicts of ``name``,
    /// ``pid``, ``toolkit`` and ``windows`` (their titles).
    fn apps<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let app = self.inner.clone();
        let text = py
            .detach(move || app.apps().and_then(|list| to_json_text(&list.apps)))
            .or_raise(py)?;
        to_python(py, &text)
    }

    /// The whole screen as PNG bytes.
    fn capture_screen<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let app = self.inner.clone();
        let capture = py.detach(move || app.capture_screen()).or_raise(py)?;
        Ok(PyBytes::new(py, &capture.png))
    }

    /// The window an action opens, found by its appearance (a new window
    /// id), whatever its title: ``with app.expect_window() as info: ...``,
    /// then ``info.value`` (a dict as ``windows()`` lists it). ``timeout`` in
    /// milliseconds (10 000 by default).
    #[pyo3(signature = (*, timeout=None))]
    fn expect_window(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<PyExpectWindow> {
        let timeout = opt_timeout_ms(py, "expect_window timeout", timeout)?
            .unwrap_or(uidrive_core::defaults::IDLE);
        Ok(PyExpectWindow {
            app: self.inner.clone(),
            timeout,
            before: Mutex::new(None),
            value: Mutex::new(None),
        })
    }
}

/// What ``App.expect_window()`` gives: a context manager whose ``value``
/// is the window the block opened.
#[pyclass(module = "uidrive._native", name = "ExpectedWindow", frozen)]
pub struct PyExpectWindow {
    app: Arc<App>,
    timeout: Duration,
    before: Mutex<Option<Vec<WindowId>>>,
    value: Mutex<Option<String>>,
}

#[pymethods]
impl PyExpectWindow {
    fn __enter__(slf: Py<Self>, py: Python<'_>) -> PyResult<Py<Self>> {
        let app = slf.get().app.clone();
        let ids = py
            .detach(move || uidrive_facade::windows::window_ids(&app))
            .or_raise(py)?;
        *slf.get().before.lock().unwrap_or_else(|p| p.into_inner()) = Some(ids);
        Ok(slf)
    }

    /// Waits for the new window unless the block raised (that error goes on).
    #[pyo3(signature = (*exc))]
    fn __exit__(&self, py: Python<'_>, exc: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        let raised = exc.get_item(0).is_ok_and(|kind| !kind.is_none());
        if raised {
            return Ok(false);
        }
        let before = self
            .before
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .unwrap_or_default();
        let (app, timeout) = (self.app.clone(), self.timeout);
        let text = py
            .detach(move || {
                uidrive_facade::windows::wait_for_new_window(&app, &before, timeout)
                    .and_then(|w| to_json_text(&w))
            })
            .or_raise(py)?;
        *self.value.lock().unwrap_or_else(|p| p.into_inner()) = Some(text);
        Ok(false)
    }

    /// The window the block opened, once the ``with`` block has ended.
    #[getter]
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = self.value.lock().unwrap_or_else(|p| p.into_inner()).clone();
        match text {
            Some(text) => to_python(py, &text),
            None => Err(invalid(
                py,
                "expect_window: the value is there once the `with` block has ended",
            )),
        }
    }
}

#[pymethods]
impl PyLocator {
    /// A PNG of the one element, its box cut from a capture of its window;
    /// written to ``path`` too when given. ``timeout`` in milliseconds.
    #[pyo3(signature = (path=None, *, timeout=None))]
    fn screenshot<'py>(
        &self,
        py: Python<'py>,
        path: Option<std::path::PathBuf>,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let locator = match opt_timeout_ms(py, "timeout", timeout)? {
            Some(limit) => self.inner.with_timeout(limit),
            None => self.inner.clone(),
        };
        let capture = py.detach(move || locator.screenshot()).or_raise(py)?;
        if let Some(path) = path {
            std::fs::write(&path, &capture.png).map_err(|e| {
                pyo3::exceptions::PyOSError::new_err(format!(
                    "could not write {}: {e}",
                    path.display()
                ))
            })?;
        }
        Ok(PyBytes::new(py, &capture.png))
    }
}
