//! `uidrive.Locator` and `uidrive.Window`: core's locators, with every wait
//! and action run with the GIL released.

use crate::app::PyApp;
use crate::convert::{opt_timeout_ms, to_json_text, to_python};
use crate::errors::{invalid, IntoPy};
use crate::matching::{opt_text_match, text_match};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyList, PyString};
use std::sync::Arc;
use uidrive_core::protocol::{ElementId, ElementKey, MouseButton};
use uidrive_core::{
    ActionOutcome, App, Filter, Find, Locator, RoleQuery, ScrollDirection, WindowRef,
};
use uidrive_facade::explain::name_windows;

/// Where a locator factory starts: an App (its focused window), one window, or a locator.
pub enum Root<'a> {
    App(&'a Arc<App>),
    Window(&'a WindowRef, &'a Arc<App>),
    Locator(&'a Locator, &'a Arc<App>),
}

/// The factories' shared marshalling: one place turns Python arguments into core queries.
impl Root<'_> {
    fn find(&self) -> &dyn Find {
        match self {
            Root::App(app) => app.as_ref(),
            Root::Window(window, _) => *window,
            Root::Locator(locator, _) => *locator,
        }
    }

    fn app(&self) -> &Arc<App> {
        match self {
            Root::App(app) | Root::Window(_, app) | Root::Locator(_, app) => app,
        }
    }

    fn wrap(&self, locator: Locator) -> PyLocator {
        PyLocator::new(locator, self.app().clone())
    }

    #[allow(clippy::too_many_arguments)]
    pub fn get_by_role(
        &self,
        py: Python<'_>,
        role: &str,
        name: Option<&Bound<'_, PyAny>>,
        exact: bool,
        checked: Option<bool>,
        disabled: Option<bool>,
        expanded: Option<bool>,
        selected: Option<bool>,
        level: Option<i64>,
        include_hidden: bool,
    ) -> PyResult<PyLocator> {
        let query = RoleQuery {
            name: opt_text_match(py, name, exact)?,
            checked,
            disabled,
            expanded,
            selected,
            level,
        };
        // An unknown role fails here, at once, as in every front end.
        let role = uidrive_facade::names::role(role).or_raise(py)?;
        let locator = self.find().get_by_role(role, query);
        Ok(self.wrap(locator.include_hidden(include_hidden)))
    }

    pub fn get_by_key(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<PyLocator> {
        let key = element_key(py, key)?;
        Ok(self.wrap(self.find().get_by_key(key)))
    }

    pub fn get_by_text(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        exact: bool,
        include_hidden: bool,
    ) -> PyResult<PyLocator> {
        let text = text_match(py, text, exact)?;
        let locator = self.find().get_by_text(text);
        Ok(self.wrap(locator.include_hidden(include_hidden)))
    }

    pub fn get_by_label(
        &self,
        py: Python<'_>,
        label: &Bound<'_, PyAny>,
        exact: bool,
        include_hidden: bool,
    ) -> PyResult<PyLocator> {
        let label = text_match(py, label, exact)?;
        let locator = self.find().get_by_label(label);
        Ok(self.wrap(locator.include_hidden(include_hidden)))
    }

    pub fn get_by_placeholder(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        exact: bool,
        include_hidden: bool,
    ) -> PyResult<PyLocator> {
        let text = text_match(py, text, exact)?;
        let locator = self.find().get_by_placeholder(text);
        Ok(self.wrap(locator.include_hidden(include_hidden)))
    }

    pub fn get_by_ocr(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        exact: bool,
    ) -> PyResult<PyLocator> {
        let text = text_match(py, text, exact)?;
        Ok(self.wrap(self.find().get_by_ocr(text)))
    }

    pub fn get_by_image(&self, path: std::path::PathBuf, threshold: Option<f64>) -> PyLocator {
        self.wrap(self.find().get_by_image(path, threshold))
    }

    pub fn get_by_id(&self, py: Python<'_>, id: &Bound<'_, PyAny>) -> PyResult<PyLocator> {
        let id = element_id(py, id)?;
        Ok(self.wrap(self.find().get_by_id(id)))
    }

    /// The string form (`role=button[name="Add"] >> nth=0`), or, inside a locator, another locator.
    pub fn locator(&self, py: Python<'_>, selector: &Bound<'_, PyAny>) -> PyResult<PyLocator> {
        if let Ok(inner) = selector.cast::<PyLocator>() {
            return match self {
                Root::Locator(locator, _) => Ok(self.wrap(locator.find(&inner.get().inner))),
                _ => Err(invalid(
                    py,
                    "locator(): pass a selector string here; a Locator can only be searched inside another locator",
                )),
            };
        }
        let selector: String = selector
            .extract()
            .map_err(|_| invalid(py, "locator(): give a selector string or a Locator"))?;
        Ok(self.wrap(self.find().locator(&selector)))
    }
}

/// Generates the locator factories for a class whose `root()` gives a [`Root`].
macro_rules! locator_factories {
    ($class:ty) => {
        #[pymethods]
        impl $class {
            /// Elements of ``role`` whose accessible name matches ``name``.
            #[pyo3(signature = (role, *, name=None, exact=false, checked=None, disabled=None, expanded=None, selected=None, level=None, include_hidden=false))]
            #[allow(clippy::too_many_arguments)]
            fn get_by_role(
                &self,
                py: Python<'_>,
                role: &str,
                name: Option<&Bound<'_, PyAny>>,
                exact: bool,
                checked: Option<bool>,
                disabled: Option<bool>,
                expanded: Option<bool>,
                selected: Option<bool>,
                level: Option<i64>,
                include_hidden: bool,
            ) -> PyResult<$crate::locator::PyLocator> {
                self.root().get_by_role(
                    py, role, name, exact, checked, disabled, expanded, selected, level,
                    include_hidden,
                )
            }

            /// The element the app gave ``key`` (its test id).
            fn get_by_key(
                &self,
                py: Python<'_>,
                key: &Bound<'_, PyAny>,
            ) -> PyResult<$crate::locator::PyLocator> {
                self.root().get_by_key(py, key)
            }

            /// Elements showing ``text`` (label, else value); hidden ones too with ``include_hidden``.
            #[pyo3(signature = (text, *, exact=false, include_hidden=false))]
            fn get_by_text(
                &self,
                py: Python<'_>,
                text: &Bound<'_, PyAny>,
                exact: bool,
                include_hidden: bool,
            ) -> PyResult<$crate::locator::PyLocator> {
                self.root().get_by_text(py, text, exact, include_hidden)
            }

            /// Elements (fields, controls) whose accessible name matches ``label``.
            #[pyo3(signature = (label, *, exact=false, include_hidden=false))]
            fn get_by_label(
                &self,
                py: Python<'_>,
                label: &Bound<'_, PyAny>,
                exact: bool,
                include_hidden: bool,
            ) -> PyResult<$crate::locator::PyLocator> {
                self.root().get_by_label(py, label, exact, include_hidden)
            }

            /// Fields whose placeholder matches ``text``.
            #[pyo3(signature = (text, *, exact=false, include_hidden=false))]
            fn get_by_placeholder(
                &self,
                py: Python<'_>,
                text: &Bound<'_, PyAny>,
                exact: bool,
                include_hidden: bool,
            ) -> PyResult<$crate::locator::PyLocator> {
                self.root().get_by_placeholder(py, text, exact, include_hidden)
            }

            /// Boxes where OCR reads ``text`` on the window's capture (apps with no
            /// accessibility tree); a visual target starts a locator.
            #[pyo3(signature = (text, *, exact=false))]
            fn get_by_ocr(
                &self,
                py: Python<'_>,
                text: &Bound<'_, PyAny>,
                exact: bool,
            ) -> PyResult<$crate::locator::PyLocator> {
                self.root().get_by_ocr(py, text, exact)
            }

            /// Boxes where the picture in the PNG file ``path`` shows on the window's
            /// capture with a score of at least ``threshold`` (0 to 1; 0.9 by default).
            #[pyo3(signature = (path, *, threshold=None))]
            fn get_by_image(
                &self,
                path: std::path::PathBuf,
                threshold: Option<f64>,
            ) -> $crate::locator::PyLocator {
                self.root().get_by_image(path, threshold)
            }

            /// The element with this id (ids last only while the view does: prefer keys).
            fn get_by_id(
                &self,
                py: Python<'_>,
                id: &Bound<'_, PyAny>,
            ) -> PyResult<$crate::locator::PyLocator> {
                self.root().get_by_id(py, id)
            }

            /// A locator from its string form, as ``'role=button[name="Add"] >> nth=0'``.
            fn locator(
                &self,
                py: Python<'_>,
                selector: &Bound<'_, PyAny>,
            ) -> PyResult<$crate::locator::PyLocator> {
                self.root().locator(py, selector)
            }
        }
    };
}

/// One window of an app, as a starting point for locators. Found again at every use.
#[pyclass(module = "uidrive._native", name = "Window", frozen)]
pub struct PyWindow {
    pub inner: WindowRef,
    pub app: Arc<App>,
}

impl PyWindow {
    fn root(&self) -> Root<'_> {
        Root::Window(&self.inner, &self.app)
    }
}

locator_factories!(PyWindow);

/// A description of elements, resolved against a fresh tree at every use.
#[pyclass(module = "uidrive._native", name = "Locator", frozen)]
pub struct PyLocator {
    pub inner: Locator,
    /// The app it searches, for errors that name the app's windows.
    app: Arc<App>,
}

impl PyLocator {
    pub fn new(inner: Locator, app: Arc<App>) -> PyLocator {
        PyLocator { inner, app }
    }

    fn derive(&self, inner: Locator) -> PyLocator {
        PyLocator::new(inner, self.app.clone())
    }

    fn root(&self) -> Root<'_> {
        Root::Locator(&self.inner, &self.app)
    }

    /// This locator, with `timeout` (milliseconds) for its waits if given.
    fn timed(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<Locator> {
        Ok(match opt_timeout_ms(py, "timeout", timeout)? {
            Some(limit) => self.inner.with_timeout(limit),
            None => self.inner.clone(),
        })
    }

    /// Runs an action without the GIL and describes what it did.
    fn act<'py, F>(
        &self,
        py: Python<'py>,
        timeout: Option<f64>,
        action: F,
    ) -> PyResult<Bound<'py, PyAny>>
    where
        F: FnOnce(&Locator) -> uidrive_core::Result<ActionOutcome> + Send,
    {
        let locator = self.timed(py, timeout)?;
        let app = self.app.clone();
        let text = py
            .detach(move || {
                let outcome = action(&locator).map_err(|e| name_windows(e, &app))?;
                to_json_text(&uidrive_facade::outcome::to_json(&outcome)?)
            })
            .or_raise(py)?;
        to_python(py, &text)
    }

    /// Runs a read without the GIL; its answer as Python objects via JSON.
    fn read<'py, T, F>(
        &self,
        py: Python<'py>,
        timeout: Option<f64>,
        read: F,
    ) -> PyResult<Bound<'py, PyAny>>
    where
        T: serde::Serialize,
        F: FnOnce(&Locator) -> uidrive_core::Result<T> + Send,
    {
        let locator = self.timed(py, timeout)?;
        let app = self.app.clone();
        let text = py
            .detach(move || {
                read(&locator)
                    .map_err(|e| name_windows(e, &app))
                    .and_then(|value| to_json_text(&value))
            })
            .or_raise(py)?;
        to_python(py, &text)
    }

    /// Runs a yes/no read without the GIL.
    fn ask<F>(&self, py: Python<'_>, timeout: Option<f64>, read: F) -> PyResult<bool>
    where
        F: FnOnce(&Locator) -> uidrive_core::Result<bool> + Send,
    {
        let locator = self.timed(py, timeout)?;
        let app = self.app.clone();
        py.detach(move || read(&locator).map_err(|e| name_windows(e, &app)))
            .or_raise(py)
    }
}

locator_factories!(PyLocator);

/// Actions: each waits until the element can take it (one match, visible,
/// enabled, stable, editable for text), then acts, and answers
/// ``{"route", "window", "element"}``: the route says whether the element's own
/// action (``"semantic:press"``) or real input (``"input"``) was used.
/// Reads resolve strictly, like actions. ``timeout`` is in milliseconds.
#[pymethods]
impl PyLocator {
    // Refining.

    /// The ``index``th match, from 0, in tree order.
    fn nth(&self, index: usize) -> PyLocator {
        self.derive(self.inner.nth(index))
    }

    /// The cell at ``row`` and ``column`` (both from 1, as a cell's
    /// ``rowIndex`` and ``colIndex``) of the tables this locator finds. A table
    /// too big to read whole (its node is ``truncated``) is asked for the cell
    /// through the app's own lookup, so a cell scrolled out of view is found
    /// too. 0 fails at the locator's first use with ``InvalidRequestError``; a
    /// number that is no row or column at all (negative, or past 2**32 - 1)
    /// fails here, at once.
    fn cell(&self, py: Python<'_>, row: i64, column: i64) -> PyResult<PyLocator> {
        let place = |n: i64| {
            u32::try_from(n).map_err(|_| {
                invalid(
                    py,
                    format!(
                        "cell({row}, {column}): rows and columns count from 1 (up to {}); give the first cell as cell(1, 1)",
                        u32::MAX
                    ),
                )
            })
        };
        Ok(self.derive(self.inner.cell(place(row)?, place(column)?)))
    }

    /// The first match (a property, as in Playwright: ``locator.first``).
    #[getter]
    fn first(&self) -> PyLocator {
        self.derive(self.inner.first())
    }

    /// The last match (a property, as in Playwright: ``locator.last``).
    #[getter]
    fn last(&self) -> PyLocator {
        self.derive(self.inner.last())
    }

    /// Keeps the matches that show ``has_text`` (or not ``has_not_text``), or that
    /// hold an element ``has`` finds (or none ``has_not`` finds).
    #[pyo3(signature = (*, has_text=None, has_not_text=None, has=None, has_not=None, exact=false))]
    fn filter(
        &self,
        py: Python<'_>,
        has_text: Option<&Bound<'_, PyAny>>,
        has_not_text: Option<&Bound<'_, PyAny>>,
        has: Option<PyRef<'_, PyLocator>>,
        has_not: Option<PyRef<'_, PyLocator>>,
        exact: bool,
    ) -> PyResult<PyLocator> {
        let filter = Filter {
            has_text: opt_text_match(py, has_text, exact)?,
            has_not_text: opt_text_match(py, has_not_text, exact)?,
            has: has.map(|l| l.inner.clone()),
            has_not: has_not.map(|l| l.inner.clone()),
        };
        Ok(self.derive(self.inner.filter(filter)))
    }

    /// Whether hidden elements (no area, or offscreen) are matched too.
    #[pyo3(signature = (include=true))]
    fn include_hidden(&self, include: bool) -> PyLocator {
        self.derive(self.inner.include_hidden(include))
    }

    /// This locator with its own action timeout, in milliseconds.
    fn with_timeout(&self, py: Python<'_>, timeout: f64) -> PyResult<PyLocator> {
        Ok(self.derive(self.timed(py, Some(timeout))?))
    }

    // Queries.

    /// How many elements match now (no waiting, not strict).
    fn count(&self, py: Python<'_>) -> PyResult<usize> {
        let locator = self.inner.clone();
        py.detach(move || locator.count()).or_raise(py)
    }

    /// A locator for each element matching now, in tree order.
    fn all<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let locator = self.inner.clone();
        let all = py.detach(move || locator.all()).or_raise(py)?;
        PyList::new(py, all.into_iter().map(|l| self.derive(l)))
    }

    /// Every protocol field of the one matching element, as a dict.
    #[pyo3(signature = (*, timeout=None))]
    fn node<'py>(&self, py: Python<'py>, timeout: Option<f64>) -> PyResult<Bound<'py, PyAny>> {
        self.read(py, timeout, |l| l.node())
    }

    /// Its text: the label, else the value.
    #[pyo3(signature = (*, timeout=None))]
    fn text<'py>(&self, py: Python<'py>, timeout: Option<f64>) -> PyResult<Bound<'py, PyAny>> {
        self.read(py, timeout, |l| l.text())
    }

    /// Its value (a field's text, a slider's number as text), or None.
    #[pyo3(signature = (*, timeout=None))]
    fn value<'py>(&self, py: Python<'py>, timeout: Option<f64>) -> PyResult<Bound<'py, PyAny>> {
        self.read(py, timeout, |l| l.value())
    }

    /// Its states, as the protocol names them.
    #[pyo3(signature = (*, timeout=None))]
    fn states<'py>(&self, py: Python<'py>, timeout: Option<f64>) -> PyResult<Bound<'py, PyAny>> {
        self.read(py, timeout, |l| l.states())
    }

    /// Its bounds relative to the window content, or None.
    #[pyo3(signature = (*, timeout=None))]
    fn bounds<'py>(&self, py: Python<'py>, timeout: Option<f64>) -> PyResult<Bound<'py, PyAny>> {
        self.read(py, timeout, |l| l.bounds())
    }

    /// Whether the one element shows: now, or with ``timeout`` (milliseconds), as
    /// soon as it does (``False`` once the timeout has passed).
    #[pyo3(signature = (*, timeout=None))]
    fn is_visible(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<bool> {
        let within = opt_timeout_ms(py, "timeout", timeout)?;
        let locator = self.inner.clone();
        py.detach(move || uidrive_facade::reads::is_visible(&locator, within))
            .or_raise(py)
    }

    /// Whether no element shows: now, or with ``timeout`` (milliseconds), as soon
    /// as none does (``False`` once the timeout has passed).
    #[pyo3(signature = (*, timeout=None))]
    fn is_hidden(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<bool> {
        let within = opt_timeout_ms(py, "timeout", timeout)?;
        let locator = self.inner.clone();
        py.detach(move || uidrive_facade::reads::is_hidden(&locator, within))
            .or_raise(py)
    }

    #[pyo3(signature = (*, timeout=None))]
    fn is_enabled(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<bool> {
        self.ask(py, timeout, |l| l.is_enabled())
    }

    #[pyo3(signature = (*, timeout=None))]
    fn is_checked(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<bool> {
        self.ask(py, timeout, |l| l.is_checked())
    }

    #[pyo3(signature = (*, timeout=None))]
    fn is_focused(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<bool> {
        self.ask(py, timeout, |l| l.is_focused())
    }

    #[pyo3(signature = (*, timeout=None))]
    fn is_expanded(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<bool> {
        self.ask(py, timeout, |l| l.is_expanded())
    }

    #[pyo3(signature = (*, timeout=None))]
    fn is_editable(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<bool> {
        self.ask(py, timeout, |l| l.is_editable())
    }

    // Actions.

    /// Clicks it as a person does: a real click at its centre where the
    /// app's hit test says the point lands on it, else its own press action
    /// (the outcome's ``route`` says which). With a ``button`` other than
    /// ``"left"`` or a ``click_count`` other than 1, always real clicks of that
    /// button, ``click_count`` times in a row (2: a double click), never the
    /// element's own action: ``button="right"`` opens a context menu.
    #[pyo3(signature = (*, button=None, click_count=None, timeout=None))]
    fn click<'py>(
        &self,
        py: Python<'py>,
        button: Option<&str>,
        click_count: Option<i64>,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (button, clicks) = click_options(py, button, click_count)?;
        self.act(py, timeout, move |l| l.click_with(button, clicks))
    }

    /// Presses it as assistive technology does: its own press action, else a click.
    #[pyo3(signature = (*, timeout=None))]
    fn activate<'py>(&self, py: Python<'py>, timeout: Option<f64>) -> PyResult<Bound<'py, PyAny>> {
        self.act(py, timeout, |l| l.activate())
    }

    /// Types ``text`` as real keys one at a time, ``delay`` milliseconds apart,
    /// then reads it back.
    #[pyo3(signature = (text, *, delay=None, timeout=None))]
    fn press_sequentially<'py>(
        &self,
        py: Python<'py>,
        text: String,
        delay: Option<f64>,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let delay = opt_timeout_ms(py, "delay", delay)?;
        self.act(py, timeout, move |l| l.press_sequentially(&text, delay))
    }

    /// A real double click at its centre (``click(click_count=2)``).
    #[pyo3(signature = (*, timeout=None))]
    fn dblclick<'py>(&self, py: Python<'py>, timeout: Option<f64>) -> PyResult<Bound<'py, PyAny>> {
        self.act(py, timeout, |l| l.dblclick())
    }

    /// Replaces its text with ``text``.
    #[pyo3(signature = (text, *, timeout=None))]
    fn fill<'py>(
        &self,
        py: Python<'py>,
        text: String,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.act(py, timeout, move |l| l.fill(&text))
    }

    /// Types ``text`` at the caret.
    #[pyo3(signature = (text, *, timeout=None))]
    fn r#type<'py>(
        &self,
        py: Python<'py>,
        text: String,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.act(py, timeout, move |l| l.type_text(&text))
    }

    /// Presses a key or chord (``"Enter"``, ``"Ctrl+A"``) with the element focused.
    #[pyo3(signature = (key, *, timeout=None))]
    fn press<'py>(
        &self,
        py: Python<'py>,
        key: String,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.act(py, timeout, move |l| l.press(&key))
    }

    /// Checks it if it is not checked, and verifies it is after.
    #[pyo3(signature = (*, timeout=None))]
    fn check<'py>(&self, py: Python<'py>, timeout: Option<f64>) -> PyResult<Bound<'py, PyAny>> {
        self.act(py, timeout, |l| l.check())
    }

    #[pyo3(signature = (*, timeout=None))]
    fn uncheck<'py>(&self, py: Python<'py>, timeout: Option<f64>) -> PyResult<Bound<'py, PyAny>> {
        self.act(py, timeout, |l| l.uncheck())
    }

    #[pyo3(signature = (checked, *, timeout=None))]
    fn set_checked<'py>(
        &self,
        py: Python<'py>,
        checked: bool,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.act(py, timeout, move |l| l.set_checked(checked))
    }

    /// Chooses the option whose text matches ``option`` in a combo box or list.
    #[pyo3(signature = (option, *, exact=false, timeout=None))]
    fn select_option<'py>(
        &self,
        py: Python<'py>,
        option: &Bound<'py, PyAny>,
        exact: bool,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let option = text_match(py, option, exact)?;
        self.act(py, timeout, move |l| l.select_option(option))
    }

    #[pyo3(signature = (*, timeout=None))]
    fn hover<'py>(&self, py: Python<'py>, timeout: Option<f64>) -> PyResult<Bound<'py, PyAny>> {
        self.act(py, timeout, |l| l.hover())
    }

    #[pyo3(signature = (*, timeout=None))]
    fn focus<'py>(&self, py: Python<'py>, timeout: Option<f64>) -> PyResult<Bound<'py, PyAny>> {
        self.act(py, timeout, |l| l.focus())
    }

    #[pyo3(signature = (*, timeout=None))]
    fn scroll_into_view<'py>(
        &self,
        py: Python<'py>,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.act(py, timeout, |l| l.scroll_into_view())
    }

    /// Sets a slider's or spinner's number.
    #[pyo3(signature = (value, *, timeout=None))]
    fn set_value<'py>(
        &self,
        py: Python<'py>,
        value: f64,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.act(py, timeout, move |l| l.set_value(value))
    }

    /// Turns the real mouse wheel ``notches`` clicks over its centre, towards
    /// ``direction`` (``"up"``, ``"down"``, ``"left"`` or ``"right"``).
    #[pyo3(signature = (direction, notches=None, *, timeout=None))]
    fn scroll<'py>(
        &self,
        py: Python<'py>,
        direction: &str,
        notches: Option<i64>,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let direction = direction.parse::<ScrollDirection>().or_raise(py)?;
        let notches = match notches {
            Some(n) => whole(py, "scroll(notches", n)?,
            None => uidrive_core::defaults::NOTCHES,
        };
        self.act(py, timeout, move |l| l.scroll(direction, notches))
    }

    /// Expands a tree row, an expander or a combo box, and waits until it reads expanded.
    #[pyo3(signature = (*, timeout=None))]
    fn expand<'py>(&self, py: Python<'py>, timeout: Option<f64>) -> PyResult<Bound<'py, PyAny>> {
        self.act(py, timeout, |l| l.expand())
    }

    /// Collapses what ``expand`` expands, and waits until it no longer reads expanded.
    #[pyo3(signature = (*, timeout=None))]
    fn collapse<'py>(&self, py: Python<'py>, timeout: Option<f64>) -> PyResult<Bound<'py, PyAny>> {
        self.act(py, timeout, |l| l.collapse())
    }

    /// Steps a slider or spin button up ``steps`` times, and waits until its number grew.
    #[pyo3(signature = (steps=None, *, timeout=None))]
    fn increment<'py>(
        &self,
        py: Python<'py>,
        steps: Option<i64>,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let steps = match steps {
            Some(n) => whole(py, "increment(steps", n)?,
            None => uidrive_core::defaults::STEPS,
        };
        self.act(py, timeout, move |l| l.increment(steps))
    }

    /// Steps a slider or spin button down ``steps`` times, and waits until its number fell.
    #[pyo3(signature = (steps=None, *, timeout=None))]
    fn decrement<'py>(
        &self,
        py: Python<'py>,
        steps: Option<i64>,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let steps = match steps {
            Some(n) => whole(py, "decrement(steps", n)?,
            None => uidrive_core::defaults::STEPS,
        };
        self.act(py, timeout, move |l| l.decrement(steps))
    }

    /// Selects the characters ``from_`` to ``to`` (``to`` excluded, counted
    /// from 0) of its text, and waits until its selection reads so.
    #[pyo3(signature = (from_, to, *, timeout=None))]
    fn select_text<'py>(
        &self,
        py: Python<'py>,
        from_: i64,
        to: i64,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let from = whole(py, "select_text(from_", from_)?;
        let to = whole(py, "select_text(to", to)?;
        self.act(py, timeout, move |l| l.select_text(from, to))
    }

    /// Drags it onto the element ``target`` finds.
    #[pyo3(signature = (target, *, timeout=None))]
    fn drag_to<'py>(
        &self,
        py: Python<'py>,
        target: PyRef<'py, PyLocator>,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let target = target.inner.clone();
        self.act(py, timeout, move |l| l.drag_to(&target))
    }

    /// What the locator says, as its errors show it.
    #[getter]
    fn description(&self) -> String {
        self.inner.description()
    }

    fn __repr__(&self) -> String {
        format!("<uidrive.Locator {}>", self.inner.description())
    }
}

impl PyApp {
    fn root(&self) -> Root<'_> {
        Root::App(&self.inner)
    }
}

locator_factories!(PyApp);

/// An element id from a Python int or a string of digits.
pub fn element_id(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<ElementId> {
    if value.is_instance_of::<PyBool>() {
        return Err(invalid(
            py,
            "an element id is an int or a string of digits, not a bool",
        ));
    }
    if value.is_instance_of::<PyInt>() {
        return Ok(ElementId(value.extract()?));
    }
    let digits: String = value
        .extract()
        .map_err(|_| invalid(py, "an element id is an int or a string of digits"))?;
    digits.parse().map_err(|e: String| invalid(py, e))
}

/// An element key from a Python str, int or bool.
pub fn element_key(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<ElementKey> {
    if value.is_instance_of::<PyBool>() {
        Ok(ElementKey::Bool(value.extract()?))
    } else if value.is_instance_of::<PyInt>() {
        Ok(ElementKey::Int(value.extract()?))
    } else if value.is_instance_of::<PyString>() {
        Ok(ElementKey::Str(value.extract()?))
    } else {
        Err(invalid(py, "a key is a str, an int or a bool"))
    }
}

/// A count or place from a Python int; one no `u32` holds is refused as
/// core refuses one out of its range (`call` is the call up to the `=`).
fn whole(py: Python<'_>, call: &str, value: i64) -> PyResult<u32> {
    u32::try_from(value)
        .map_err(|_| invalid(py, format!("{call}={value}): it is negative or too big")))
}

/// `click`'s button and count, checked by core before anything is looked
/// for, in Python's words when they are refused.
/// Left out, each is core's default.
fn click_options(
    py: Python<'_>,
    button: Option<&str>,
    click_count: Option<i64>,
) -> PyResult<(MouseButton, u32)> {
    let button = match button {
        None => MouseButton::default(),
        Some(name) => name.parse::<MouseButton>().map_err(|_| {
            invalid(
                py,
                format!("click(button={name:?}): the button is \"left\", \"right\" or \"middle\""),
            )
        })?,
    };
    let clicks = match click_count {
        None => uidrive_core::defaults::CLICKS,
        Some(count) => uidrive_core::protocol::click_count(count as f64)
            .map_err(|why| invalid(py, format!("click(click_count={count}): {why}")))?,
    };
    Ok((button, clicks))
}
