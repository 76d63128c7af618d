//! Marshalling between Python values and the protocol's serde types.
//!
//! Results go out as JSON text read by Python's C `json` module, which is
//! faster than building objects one call at a time; params come in the same way.

use crate::errors::{invalid, to_py_err};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::time::Duration;
use uidrive_core::Error;

/// JSON text made from a result, ready for `to_python`. Runs without the GIL.
pub fn to_json_text<T: Serialize>(value: &T) -> uidrive_core::Result<String> {
    serde_json::to_string(value)
        .map_err(|e| Error::failed(format!("could not write the result as JSON: {e}")))
}

/// Python objects (dicts, lists, str, int, float, bool, None) from JSON text.
pub fn to_python<'py>(py: Python<'py>, json_text: &str) -> PyResult<Bound<'py, PyAny>> {
    static LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    LOADS.import(py, "json", "loads")?.call1((json_text,))
}

/// A serde value from a Python object, through JSON; a shape error is `invalid_request`
/// naming `what`.
pub fn from_python<T: DeserializeOwned>(
    py: Python<'_>,
    what: &str,
    value: &Bound<'_, PyAny>,
) -> PyResult<T> {
    static DUMPS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let text: String = DUMPS
        .import(py, "json", "dumps")?
        .call1((value,))
        .map_err(|e| invalid(py, format!("{what} is not JSON-serialisable: {e}")))?
        .extract()?;
    serde_json::from_str(&text).map_err(|e| invalid(py, format!("{what}: {e}")))
}

/// A timeout or delay as Python passes it: milliseconds (an int or a float),
/// as in Playwright for Python, so `timeout=5000` is five seconds. Every
/// function of the extension converts its timeouts here and nowhere else;
/// negative, NaN or over an hour is `invalid_request` naming `what`.
pub fn timeout_ms(py: Python<'_>, what: &str, value: f64) -> PyResult<Duration> {
    uidrive_facade::time::millis(what, value).map_err(|e| to_py_err(py, e))
}

/// An optional timeout in milliseconds (`None`: the default).
pub fn opt_timeout_ms(
    py: Python<'_>,
    what: &str,
    value: Option<f64>,
) -> PyResult<Option<Duration>> {
    value.map(|v| timeout_ms(py, what, v)).transpose()
}

/// A `Duration` as Python reads it back: milliseconds, as `timeout_ms` takes them.
pub fn to_ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
