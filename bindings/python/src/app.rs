//! `uidrive.App`: the protocol's methods on one app, with the GIL released while they run.

use crate::convert::{from_python, opt_timeout_ms, to_json_text, to_ms, to_python};
use crate::errors::{invalid, IntoPy};
use crate::locator::{element_id, element_key, PyLocator, PyWindow};
use crate::matching::text_match;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::sync::Arc;
use uidrive_core::protocol::{ActParams, Action, EventKind, InputEvent, WindowId};
use uidrive_core::snapshot::Snapshot;
use uidrive_core::{App, Timeouts};
use uidrive_facade::process::Process;
use uidrive_facade::refs::Refs;

/// An app under automation: reached over a protocol socket or the platform's
/// accessibility API. Close it (or use ``with``) to end a process uidrive launched.
#[pyclass(module = "uidrive._native", name = "App", frozen)]
pub struct PyApp {
    pub inner: Arc<App>,
    /// The refs of this app's snapshots.
    refs: Arc<Refs>,
    /// The process uidrive launched, if it launched one.
    pub(crate) process: Option<Arc<Process>>,
}

impl PyApp {
    pub fn new(app: App) -> PyApp {
        let process = Process::of(&app);
        PyApp::with_process(app, process)
    }

    pub fn with_process(app: App, process: Option<Arc<Process>>) -> PyApp {
        PyApp {
            inner: Arc::new(app),
            refs: Arc::default(),
            process,
        }
    }

    /// Runs `call` on the app without the GIL; its result comes back as Python objects via JSON.
    fn json_call<'py, T, F>(&self, py: Python<'py>, call: F) -> PyResult<Bound<'py, PyAny>>
    where
        T: serde::Serialize,
        F: FnOnce(&App) -> uidrive_core::Result<T> + Send,
    {
        let app = self.inner.clone();
        let text = py
            .detach(move || call(&app).and_then(|value| to_json_text(&value)))
            .or_raise(py)?;
        to_python(py, &text)
    }

    /// Runs `call` on the app without the GIL, for calls that answer nothing.
    fn unit_call<F>(&self, py: Python<'_>, call: F) -> PyResult<()>
    where
        F: FnOnce(&App) -> uidrive_core::Result<()> + Send,
    {
        let app = self.inner.clone();
        py.detach(move || call(&app)).or_raise(py)
    }
}

#[pymethods]
impl PyApp {
    /// The pid of the process uidrive launched, if it launched one.
    #[getter]
    fn pid(&self) -> Option<u32> {
        self.inner.pid()
    }

    /// Recording a trace of this app's steps: ``tracing.start()``, ``tracing.stop(path=...)``.
    #[getter]
    fn tracing(&self) -> crate::tracing::PyTracing {
        crate::tracing::PyTracing {
            app: self.inner.clone(),
        }
    }

    /// What the other side is and what it supports (``hello``).
    fn hello<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.json_call(py, |app| app.driver().hello())
    }

    /// One window as a starting point for locators: by ``title`` (matched as
    /// locators match text, and waited for), by ``id``, or the focused one.
    #[pyo3(signature = (title=None, *, id=None, exact=false))]
    fn window(
        &self,
        py: Python<'_>,
        title: Option<&Bound<'_, PyAny>>,
        id: Option<WindowId>,
        exact: bool,
    ) -> PyResult<PyWindow> {
        let inner = match (title, id) {
            (Some(_), Some(_)) => return Err(invalid(py, "window(): give title or id, not both")),
            (Some(title), None) => self.inner.window_titled(text_match(py, title, exact)?),
            (None, Some(id)) => self.inner.window(id),
            (None, None) => self.inner.focused_window(),
        };
        Ok(PyWindow {
            inner,
            app: self.inner.clone(),
        })
    }

    /// A window's elements a line each with short refs (``@e3``) that last
    /// between snapshots; ``interactive`` keeps only the controls.
    #[pyo3(signature = (*, interactive=false, window=None))]
    fn snapshot(
        &self,
        py: Python<'_>,
        interactive: bool,
        window: Option<WindowId>,
    ) -> PyResult<PySnapshot> {
        let app = self.inner.clone();
        let refs = self.refs.clone();
        let (snapshot, text) = py
            .detach(move || {
                let snapshot = refs.snapshot(&app, window)?;
                let text = uidrive_facade::refs::render(&snapshot, interactive)?;
                Ok((snapshot, text))
            })
            .or_raise(py)?;
        Ok(PySnapshot { snapshot, text })
    }

    /// A locator for the element a snapshot's ref (``"@e3"``) names, checked
    /// now: ``StaleRefError`` at once when the element is gone.
    fn get_by_ref(&self, py: Python<'_>, r: &str) -> PyResult<PyLocator> {
        let app = self.inner.clone();
        let refs = self.refs.clone();
        let r = r.to_string();
        let locator = py.detach(move || refs.get_by_ref(&app, &r)).or_raise(py)?;
        Ok(PyLocator::new(locator, self.inner.clone()))
    }

    /// The open windows, as dicts with the protocol's fields.
    fn windows<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.json_call(py, |app| app.windows().map(|list| list.windows))
    }

    /// Every element of a window (the focused one, else the first), a parent before its children.
    #[pyo3(signature = (*, window=None))]
    fn tree<'py>(&self, py: Python<'py>, window: Option<WindowId>) -> PyResult<Bound<'py, PyAny>> {
        self.json_call(py, move |app| app.tree(window))
    }

    /// One protocol action on the element with ``id`` or ``key``.
    #[pyo3(signature = (action, *, id=None, key=None, text=None, from_=None, to=None, window=None))]
    #[allow(clippy::too_many_arguments)]
    fn act(
        &self,
        py: Python<'_>,
        action: &str,
        id: Option<&Bound<'_, PyAny>>,
        key: Option<&Bound<'_, PyAny>>,
        text: Option<String>,
        from_: Option<u32>,
        to: Option<u32>,
        window: Option<WindowId>,
    ) -> PyResult<()> {
        let params = ActParams {
            window,
            id: id.map(|id| element_id(py, id)).transpose()?,
            key: key.map(|key| element_key(py, key)).transpose()?,
            action: Action::parse(action),
            text,
            from: from_,
            to,
        };
        params.validate().or_raise(py)?;
        self.unit_call(py, move |app| app.act(&params))
    }

    /// Real pointer, wheel, key and text events, as the protocol writes them
    /// (``{"type": "click", "x": 10, "y": 20}``).
    #[pyo3(signature = (events, *, window=None))]
    fn input(
        &self,
        py: Python<'_>,
        events: &Bound<'_, PyAny>,
        window: Option<WindowId>,
    ) -> PyResult<()> {
        let events: Vec<InputEvent> = from_python(py, "input events", events)?;
        self.unit_call(py, move |app| app.input(window, events))
    }

    /// Chooses a menu-bar item by the labels along its path, as ``["File", "Quit"]``.
    #[pyo3(signature = (path, *, window=None))]
    fn menu(&self, py: Python<'_>, path: Vec<String>, window: Option<WindowId>) -> PyResult<()> {
        self.unit_call(py, move |app| app.menu(window, path))
    }

    /// The window as PNG bytes.
    #[pyo3(signature = (*, window=None))]
    fn capture<'py>(
        &self,
        py: Python<'py>,
        window: Option<WindowId>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let app = self.inner.clone();
        let capture = py.detach(move || app.capture(window)).or_raise(py)?;
        Ok(PyBytes::new(py, &capture.png))
    }

    /// Evaluates a script in a window showing a web page; its value.
    #[pyo3(signature = (script, *, window=None))]
    fn eval<'py>(
        &self,
        py: Python<'py>,
        script: String,
        window: Option<WindowId>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.json_call(py, move |app| app.eval(window, &script))
    }

    /// Waits until the window has settled; ``timeout`` in milliseconds raises ``TimeoutError`` after it.
    #[pyo3(signature = (*, timeout=None, window=None))]
    fn idle(&self, py: Python<'_>, timeout: Option<f64>, window: Option<WindowId>) -> PyResult<()> {
        let timeout = opt_timeout_ms(py, "idle timeout", timeout)?;
        self.unit_call(py, move |app| app.idle(window, timeout))
    }

    /// Waits until the window's pixels (in ``region``, ``(x, y, width, height)``
    /// in its pixels, when given) change and then settle: two captures alike.
    /// The region watched; ``timeout`` in seconds (10 by default) raises ``TimeoutError``.
    #[pyo3(signature = (*, region=None, timeout=None, window=None))]
    fn wait_changed<'py>(
        &self,
        py: Python<'py>,
        region: Option<(f64, f64, f64, f64)>,
        timeout: Option<f64>,
        window: Option<WindowId>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let timeout = opt_timeout_ms(py, "wait_changed timeout", timeout)?
            .unwrap_or(uidrive_core::defaults::IDLE);
        let region = region.map(|(x, y, w, h)| uidrive_core::protocol::Bounds::new(x, y, w, h));
        self.json_call(py, move |app| {
            let root = match window {
                Some(id) => app.window(id),
                None => app.focused_window(),
            };
            root.wait_changed(region, timeout)
        })
    }

    /// Waits until a window whose title matches shows (a dialog an action
    /// opens); that window as ``windows()`` lists it. ``timeout`` in milliseconds
    /// (10 000 by default) raises ``TimeoutError`` naming the windows there are.
    #[pyo3(signature = (title, *, timeout=None))]
    fn wait_for_window<'py>(
        &self,
        py: Python<'py>,
        title: &Bound<'py, PyAny>,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let title = text_match(py, title, false)?;
        let timeout = opt_timeout_ms(py, "wait_for_window timeout", timeout)?
            .unwrap_or(uidrive_core::defaults::IDLE);
        self.json_call(py, move |app| app.wait_for_window(&title, timeout))
    }

    /// Waits for an accessibility event the app sends: ``kind`` is
    /// ``"focus"``, ``"value"``, ``"name"``, ``"states"``, ``"children"`` or
    /// ``"window"``; with ``target`` (a Locator), only its one element's.
    /// The first since uidrive's last action that no earlier wait returned,
    /// else the next to come: a dict with ``kind``, ``detail``, ``element``,
    /// ``window``, ``node`` and the new ``value`` where there is one.
    /// ``timeout`` in seconds (10 by default) raises ``TimeoutError``.
    #[pyo3(signature = (kind, target=None, *, timeout=None))]
    fn wait_for_event<'py>(
        &self,
        py: Python<'py>,
        kind: &str,
        target: Option<PyRef<'py, PyLocator>>,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let kind: EventKind = kind.parse().or_raise(py)?;
        let target = target.map(|t| t.inner.clone());
        let timeout = opt_timeout_ms(py, "wait_for_event timeout", timeout)?;
        self.json_call(py, move |app| {
            app.wait_for_event(kind, target.as_ref(), timeout)
        })
    }

    /// Any protocol method by name with params as a dict; the answer as Python objects.
    #[pyo3(signature = (method, params=None))]
    fn call<'py>(
        &self,
        py: Python<'py>,
        method: String,
        params: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let params = params
            .map(|p| from_python::<serde_json::Value>(py, "params", p))
            .transpose()?;
        self.json_call(py, move |app| app.call(&method, params))
    }

    /// The default timeouts, in milliseconds: ``{"action": ..., "expect": ...}``.
    #[getter]
    fn timeouts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let timeouts = self.inner.timeouts();
        let dict = PyDict::new(py);
        dict.set_item("action", to_ms(timeouts.action))?;
        dict.set_item("expect", to_ms(timeouts.expect))?;
        Ok(dict)
    }

    /// Changes the default timeouts (milliseconds) for actions and for ``expect``.
    #[pyo3(signature = (*, action=None, expect=None))]
    fn set_timeouts(
        &self,
        py: Python<'_>,
        action: Option<f64>,
        expect: Option<f64>,
    ) -> PyResult<()> {
        let current = self.inner.timeouts();
        self.inner.set_timeouts(Timeouts {
            action: opt_timeout_ms(py, "action timeout", action)?.unwrap_or(current.action),
            expect: opt_timeout_ms(py, "expect timeout", expect)?.unwrap_or(current.expect),
        });
        Ok(())
    }

    /// Ends the process uidrive launched, if any, a step at a time while it
    /// runs: its windows are asked to close (as a window manager's close
    /// button asks), then SIGTERM, then SIGKILL, each after a grace period.
    /// Returns which step ended it: ``"windows"``, ``"terminated"``,
    /// ``"killed"``, ``"exited"`` (it had already) or ``"detached"`` (uidrive
    /// did not launch it). Closing twice does nothing (and returns ``"exited"``).
    fn close(&self, py: Python<'_>) -> PyResult<&'static str> {
        let closed = match self.process.clone() {
            // Keeps how it ended for ``app.process.returncode``.
            Some(process) => {
                let app = self.inner.clone();
                py.detach(move || process.close(&app)).or_raise(py)?
            }
            None => {
                let app = self.inner.clone();
                py.detach(move || uidrive_facade::close(&app))
                    .or_raise(py)?
            }
        };
        Ok(closed.as_str())
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }

    fn __repr__(&self) -> String {
        match self.inner.pid() {
            Some(pid) => format!("<uidrive.App pid={pid}>"),
            None => "<uidrive.App>".to_string(),
        }
    }
}

/// What one window showed: ``text`` (a line per element, with refs) and
/// ``elements`` (the same as dicts: ref, id, role, label, value, key, states, depth, ...).
#[pyclass(module = "uidrive._native", name = "Snapshot", frozen)]
pub struct PySnapshot {
    snapshot: Snapshot,
    text: String,
}

#[pymethods]
impl PySnapshot {
    #[getter]
    fn text(&self) -> &str {
        &self.text
    }

    #[getter]
    fn window(&self) -> WindowId {
        self.snapshot.window
    }

    #[getter]
    fn elements<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = to_json_text(&self.snapshot.elements).or_raise(py)?;
        to_python(py, &text)
    }

    /// Mapping access, as Node's snapshot object gives: ``snap["text"]``,
    /// ``snap["window"]``, ``snap["elements"]``.
    fn __getitem__<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        match key {
            "text" => Ok(pyo3::types::PyString::new(py, &self.text).into_any()),
            "window" => Ok(self.snapshot.window.into_pyobject(py)?.into_any()),
            "elements" => self.elements(py),
            other => Err(pyo3::exceptions::PyKeyError::new_err(other.to_string())),
        }
    }

    fn __contains__(&self, key: &str) -> bool {
        matches!(key, "text" | "window" | "elements")
    }

    fn keys(&self) -> Vec<&'static str> {
        vec!["window", "elements", "text"]
    }

    fn __str__(&self) -> &str {
        &self.text
    }

    fn __repr__(&self) -> String {
        format!(
            "<uidrive.Snapshot window={} elements={}>",
            self.snapshot.window,
            self.snapshot.elements.len()
        )
    }
}
