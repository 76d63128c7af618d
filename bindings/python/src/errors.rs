//! uidrive errors as Python exceptions: the classes live in `uidrive._errors`,
//! one per code, so Python code and type stubs see them as ordinary classes.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use uidrive_core::{Error, ErrorCode};

/// Turns a uidrive error into the exception of its code.
pub fn to_py_err(py: Python<'_>, error: Error) -> PyErr {
    // Suggestions in Python's terms (uidrive.headless(), not uidrive_x11::Desktop).
    let error = uidrive_facade::hints::localize(error, uidrive_facade::hints::Lang::Python);
    static FROM_NATIVE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let built = FROM_NATIVE
        .import(py, "uidrive._errors", "_from_native")
        .and_then(|from_native| {
            from_native.call1((error.code.as_str(), &error.message, &error.suggestion))
        });
    match built {
        Ok(exception) => PyErr::from_value(exception),
        // Only when the pure-Python half of the package is missing.
        Err(_) => PyRuntimeError::new_err(error.to_string()),
    }
}

/// `?`-friendly conversion of core results, needing the interpreter to build the exception.
pub trait IntoPy<T> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPy<T> for uidrive_core::Result<T> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py_err(py, e))
    }
}

/// An `invalid_request` error raised from what Python passed in.
pub fn invalid(py: Python<'_>, message: impl Into<String>) -> PyErr {
    to_py_err(py, Error::new(ErrorCode::InvalidRequest, message))
}
