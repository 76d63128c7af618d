//! Python's ways of naming text (a str, or a compiled `re` pattern) as core's `TextMatch`.

use crate::errors::{invalid, IntoPy};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyString, PyType};
use uidrive_core::{ExpectedText, TextMatch};

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

/// What an assertion wants: a str (the whole text for ``to_have_text`` and
/// ``to_have_value``, a part for ``to_contain_text``) or a ``re.Pattern``
/// (searched); ``ignore_case`` as Playwright's ``ignoreCase``.
pub fn expected_text(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    ignore_case: bool,
) -> PyResult<ExpectedText> {
    let wanted = if value.is_instance_of::<PyString>() {
        ExpectedText::text(value.extract::<String>()?)
    } else {
        match text_match(py, value, false)? {
            TextMatch::Regex(re) => ExpectedText::from(re),
            other => ExpectedText::from(other),
        }
    };
    Ok(wanted.ignore_case(ignore_case))
}

/// ``exact=`` of ``to_have_text`` and ``to_have_value``, kept for tests
/// written before a string meant the whole text: ``True`` is what a string
/// means now; ``False`` is refused, naming ``to_contain_text``.
pub fn check_exact(py: Python<'_>, what: &str, exact: Option<bool>) -> PyResult<()> {
    match exact {
        Some(false) => Err(invalid(
            py,
            format!(
                "{what}: exact=False is gone: a str is the whole text, as in Playwright; use to_contain_text for a part, or a re.Pattern"
            ),
        )),
        _ => Ok(()),
    }
}

pub fn opt_text_match(
    py: Python<'_>,
    value: Option<&Bound<'_, PyAny>>,
    exact: bool,
) -> PyResult<Option<TextMatch>> {
    value.map(|v| text_match(py, v, exact)).transpose()
}
