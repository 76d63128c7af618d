//! `uidrive.expect(locator)`: core's assertions, each retried until its timeout
//! with the GIL released, failing with `AssertionFailedError`.

use crate::convert::opt_timeout_ms;
use crate::errors::IntoPy;
use crate::locator::PyLocator;
use crate::matching::{check_exact, expected_text};
use pyo3::prelude::*;
use uidrive_core::Expect;

/// Assertions on a locator. ``timeout`` (milliseconds) defaults to the App's expect timeout.
#[pyclass(module = "uidrive._native", name = "Expect", frozen)]
pub struct PyExpect {
    inner: Expect,
}

/// Assertions on ``locator``, as ``expect(locator).to_have_text("42")``
/// (the whole text: ``"4"`` does not pass on ``"42"``).
#[pyfunction]
#[pyo3(signature = (locator, *, timeout=None))]
pub fn expect(
    py: Python<'_>,
    locator: PyRef<'_, PyLocator>,
    timeout: Option<f64>,
) -> PyResult<PyExpect> {
    let inner = uidrive_core::expect(&locator.inner);
    Ok(PyExpect {
        inner: match opt_timeout_ms(py, "timeout", timeout)? {
            Some(limit) => inner.with_timeout(limit),
            None => inner,
        },
    })
}

impl PyExpect {
    /// Runs the assertion without the GIL, with `timeout` (milliseconds) if given.
    fn check<F>(&self, py: Python<'_>, timeout: Option<f64>, assertion: F) -> PyResult<()>
    where
        F: FnOnce(&Expect) -> uidrive_core::Result<()> + Send,
    {
        let expect = match opt_timeout_ms(py, "timeout", timeout)? {
            Some(limit) => self.inner.clone().with_timeout(limit),
            None => self.inner.clone(),
        };
        py.detach(move || assertion(&expect)).or_raise(py)
    }
}

#[pymethods]
impl PyExpect {
    /// The opposite assertions, deprecated: write ``expect(l).not_to_be_checked()``
    /// (Playwright's shape); ``expect(l).not_.to_be_checked()`` keeps working.
    #[getter]
    fn not_(&self) -> PyExpect {
        PyExpect {
            inner: self.inner.clone().not(),
        }
    }

    #[pyo3(signature = (*, timeout=None))]
    fn to_be_visible(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<()> {
        self.check(py, timeout, |e| e.to_be_visible())
    }

    #[pyo3(signature = (*, timeout=None))]
    fn to_be_hidden(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<()> {
        self.check(py, timeout, |e| e.to_be_hidden())
    }

    #[pyo3(signature = (*, timeout=None))]
    fn to_be_enabled(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<()> {
        self.check(py, timeout, |e| e.to_be_enabled())
    }

    #[pyo3(signature = (*, timeout=None))]
    fn to_be_disabled(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<()> {
        self.check(py, timeout, |e| e.to_be_disabled())
    }

    #[pyo3(signature = (*, timeout=None))]
    fn to_be_checked(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<()> {
        self.check(py, timeout, |e| e.to_be_checked())
    }

    #[pyo3(signature = (*, timeout=None))]
    fn to_be_focused(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<()> {
        self.check(py, timeout, |e| e.to_be_focused())
    }

    #[pyo3(signature = (*, timeout=None))]
    fn to_be_editable(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<()> {
        self.check(py, timeout, |e| e.to_be_editable())
    }

    /// Its text (label, else value) is ``text``: a str must equal the whole
    /// text (whitespace folded, case-sensitive unless ``ignore_case``), as
    /// in Playwright; a ``re.Pattern`` is searched. ``exact=True`` is
    /// accepted (it is what a str means); for a part, ``to_contain_text``.
    #[pyo3(signature = (text, *, exact=None, ignore_case=false, timeout=None))]
    fn to_have_text(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        exact: Option<bool>,
        ignore_case: bool,
        timeout: Option<f64>,
    ) -> PyResult<()> {
        check_exact(py, "to_have_text", exact)?;
        let text = expected_text(py, text, ignore_case)?;
        self.check(py, timeout, move |e| e.to_have_text(text))
    }

    /// Its text (label, else value) holds ``text`` as a part (a
    /// ``re.Pattern`` is searched), case-sensitive unless ``ignore_case``.
    #[pyo3(signature = (text, *, ignore_case=false, timeout=None))]
    fn to_contain_text(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        ignore_case: bool,
        timeout: Option<f64>,
    ) -> PyResult<()> {
        let text = expected_text(py, text, ignore_case)?;
        self.check(py, timeout, move |e| e.to_contain_text(text))
    }

    /// Its value is ``value``, compared as ``to_have_text`` compares: the whole of it.
    #[pyo3(signature = (value, *, exact=None, ignore_case=false, timeout=None))]
    fn to_have_value(
        &self,
        py: Python<'_>,
        value: &Bound<'_, PyAny>,
        exact: Option<bool>,
        ignore_case: bool,
        timeout: Option<f64>,
    ) -> PyResult<()> {
        check_exact(py, "to_have_value", exact)?;
        let value = expected_text(py, value, ignore_case)?;
        self.check(py, timeout, move |e| e.to_have_value(value))
    }

    /// It has ``state``, as the protocol names states (``"checked"``, ``"disabled"``, ...).
    #[pyo3(signature = (state, *, timeout=None))]
    fn to_have_state(&self, py: Python<'_>, state: &str, timeout: Option<f64>) -> PyResult<()> {
        let state = uidrive_facade::names::state(state).or_raise(py)?;
        self.check(py, timeout, move |e| e.to_have_state(state))
    }

    /// Exactly ``count`` elements match.
    #[pyo3(signature = (count, *, timeout=None))]
    fn to_have_count(&self, py: Python<'_>, count: usize, timeout: Option<f64>) -> PyResult<()> {
        self.check(py, timeout, move |e| e.to_have_count(count))
    }
}

/// The negated assertions as Playwright for Python spells them:
/// ``expect(l).not_to_be_visible()`` passes once the element is hidden.
#[pymethods]
impl PyExpect {
    #[pyo3(signature = (*, timeout=None))]
    fn not_to_be_visible(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<()> {
        self.not_().to_be_visible(py, timeout)
    }

    #[pyo3(signature = (*, timeout=None))]
    fn not_to_be_hidden(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<()> {
        self.not_().to_be_hidden(py, timeout)
    }

    #[pyo3(signature = (*, timeout=None))]
    fn not_to_be_enabled(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<()> {
        self.not_().to_be_enabled(py, timeout)
    }

    #[pyo3(signature = (*, timeout=None))]
    fn not_to_be_disabled(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<()> {
        self.not_().to_be_disabled(py, timeout)
    }

    #[pyo3(signature = (*, timeout=None))]
    fn not_to_be_checked(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<()> {
        self.not_().to_be_checked(py, timeout)
    }

    #[pyo3(signature = (*, timeout=None))]
    fn not_to_be_focused(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<()> {
        self.not_().to_be_focused(py, timeout)
    }

    #[pyo3(signature = (*, timeout=None))]
    fn not_to_be_editable(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<()> {
        self.not_().to_be_editable(py, timeout)
    }

    #[pyo3(signature = (text, *, exact=None, ignore_case=false, timeout=None))]
    fn not_to_have_text(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        exact: Option<bool>,
        ignore_case: bool,
        timeout: Option<f64>,
    ) -> PyResult<()> {
        self.not_()
            .to_have_text(py, text, exact, ignore_case, timeout)
    }

    #[pyo3(signature = (text, *, ignore_case=false, timeout=None))]
    fn not_to_contain_text(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        ignore_case: bool,
        timeout: Option<f64>,
    ) -> PyResult<()> {
        self.not_().to_contain_text(py, text, ignore_case, timeout)
    }

    #[pyo3(signature = (value, *, exact=None, ignore_case=false, timeout=None))]
    fn not_to_have_value(
        &self,
        py: Python<'_>,
        value: &Bound<'_, PyAny>,
        exact: Option<bool>,
        ignore_case: bool,
        timeout: Option<f64>,
    ) -> PyResult<()> {
        self.not_()
            .to_have_value(py, value, exact, ignore_case, timeout)
    }

    #[pyo3(signature = (state, *, timeout=None))]
    fn not_to_have_state(&self, py: Python<'_>, state: &str, timeout: Option<f64>) -> PyResult<()> {
        self.not_().to_have_state(py, state, timeout)
    }

    #[pyo3(signature = (count, *, timeout=None))]
    fn not_to_have_count(
        &self,
        py: Python<'_>,
        count: usize,
        timeout: Option<f64>,
    ) -> PyResult<()> {
        self.not_().to_have_count(py, count, timeout)
    }
}
