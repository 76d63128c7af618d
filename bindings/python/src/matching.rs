//! Python's ways of naming text (a str, or a compiled `re` pattern) as core's `TextMatch`.

use crate::errors::{invalid, IntoPy};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyString, PyType};
use uidrive_core::TextMatch;

// Python's `re` flags that have an inline equivalent in the regex crate.
const RE_IGNORECASE: i64 = 2;
const RE_MULTILINE: i64 = 8;
const RE_DOTALL: i64 = 16;

/// A str is a case-insensitive substring (the whole text, case-sensitive, with
/// `exact`); a `re.Pattern` is a regular expression searched in the text.
pub fn text_match(py: Python<'_>, value: &Bound<'_, PyAny>, exact: bool) -> PyResult<TextMatch> {
    if value.is_instance_of::<PyString>() {
        let text: String = value.extract()?;
        return Ok(if exact {
            TextMatch::exact(text)
        } else {
            TextMatch::substring(text)
        });
    }
    static PATTERN: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    if value.is_instance(PATTERN.import(py, "re", "Pattern")?)? {
        let pattern: String = value
            .getattr("pattern")?
            .extract()
            .map_err(|_| invalid(py, "a text pattern must be a str pattern, not bytes"))?;
        let flags: i64 = value.getattr("flags")?.extract()?;
        let mut inline = String::new();
        for (flag, letter) in [(RE_IGNORECASE, 'i'), (RE_MULTILINE, 'm'), (RE_DOTALL, 's')] {
            if flags & flag != 0 {
                inline.push(letter);
            }
        }
        let pattern = if inline.is_empty() {
            pattern
        } else {
            format!("(?{inline}){pattern}")
        };
        return TextMatch::regex(&pattern).or_raise(py);
    }
    Err(invalid(
        py,
        format!(
            "text to match must be a str or a re.Pattern, not {}",
            value.get_type().name()?
        ),
    ))
}

pub fn opt_text_match(
    py: Python<'_>,
    value: Option<&Bound<'_, PyAny>>,
    exact: bool,
) -> PyResult<Option<TextMatch>> {
    value.map(|v| text_match(py, v, exact)).transpose()
}
