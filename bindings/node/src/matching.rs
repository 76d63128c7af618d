//! How JavaScript names things to core: text as a string or a RegExp, keys, roles, states.

use crate::error::invalid_argument;
use napi::bindgen_prelude::{Either, Object};
use serde_json::Value;
use uidrive_core::locator::{RoleQuery, TextMatch};
use uidrive_core::protocol::{ElementKey, Role, State};
use uidrive_core::{ExpectedText, Result as CoreResult};

/// A text to match: a string (case-insensitive substring, or exact with `{exact: true}`),
/// or a JavaScript RegExp.
pub type JsText<'a> = Either<String, Object<'a>>;

/// A JavaScript string or RegExp as core's `TextMatch`.
pub fn text_match(what: &str, text: JsText<'_>, exact: Option<bool>) -> CoreResult<TextMatch> {
    match text {
        Either::A(text) if exact == Some(true) => Ok(TextMatch::exact(text)),
        Either::A(text) => Ok(TextMatch::substring(text)),
        Either::B(object) => regex_of(what, &object),
    }
}

/// What an assertion wants: a string (the whole text for `toHaveText` and
/// `toHaveValue`, a part for `toContainText`) or a RegExp (searched);
/// `ignore_case` as Playwright's `ignoreCase`.
pub fn expected_text(
    what: &str,
    text: JsText<'_>,
    exact: Option<bool>,
    ignore_case: Option<bool>,
) -> CoreResult<ExpectedText> {
    if exact == Some(false) {
        return Err(invalid_argument(
            what,
            "{ exact: false } is gone: a string is the whole text, as in Playwright; use toContainText for a part, or a RegExp",
        ));
    }
    let wanted = match text {
        Either::A(text) => ExpectedText::text(text),
        Either::B(object) => ExpectedText::from(regex_of(what, &object)?),
    };
    Ok(wanted.ignore_case(ignore_case.unwrap_or(false)))
}

/// A RegExp's `source` and `flags` in the regex crate's syntax: `i`, `m` and `s`
/// become inline flags; `g`, `y`, `u`, `d` and `v` mean nothing for one match.
fn regex_of(what: &str, object: &Object<'_>) -> CoreResult<TextMatch> {
    let source = object.get::<String>("source").ok().flatten();
    let flags = object.get::<String>("flags").ok().flatten();
    let (Some(source), Some(flags)) = (source, flags) else {
        return Err(invalid_argument(what, "give a string or a RegExp"));
    };
    let inline: String = flags.chars().filter(|f| "ims".contains(*f)).collect();
    let pattern = if inline.is_empty() {
        source
    } else {
        format!("(?{inline}){source}")
    };
    TextMatch::regex(&pattern)
}

/// A key as the app gives it: a string, a whole number or a boolean.
pub fn element_key(key: Value) -> CoreResult<ElementKey> {
    crate::convert::from_json("getByKey: key", key)
}

/// A role name, checked by the facade: an unknown one fails at once.
pub fn role(name: &str) -> CoreResult<Role> {
    uidrive_facade::names::role(name)
}

/// A state name, checked by the facade: an unknown one fails at once.
pub fn state(name: &str) -> CoreResult<State> {
    uidrive_facade::names::state(name)
}

/// `getByRole`'s options beside the name.
#[napi_derive::napi(object)]
pub struct RoleOptions<'a> {
    /// The accessible name: a string or a RegExp.
    pub name: Option<JsText<'a>>,
    /// Match the name whole and case-sensitively.
    pub exact: Option<bool>,
    pub checked: Option<bool>,
    pub disabled: Option<bool>,
    pub expanded: Option<bool>,
    pub selected: Option<bool>,
    pub level: Option<i64>,
    /// Match hidden elements too.
    pub include_hidden: Option<bool>,
}

pub fn role_query(options: Option<RoleOptions<'_>>) -> CoreResult<(RoleQuery, bool)> {
    let Some(o) = options else {
        return Ok((RoleQuery::any(), false));
    };
    let mut query = match o.name {
        Some(name) => RoleQuery::name(text_match("getByRole: name", name, o.exact)?),
        None => RoleQuery::any(),
    };
    query.checked = o.checked;
    query.disabled = o.disabled;
    query.expanded = o.expanded;
    query.selected = o.selected;
    query.level = o.level;
    Ok((query, o.include_hidden.unwrap_or(false)))
}

/// `getByText`, `getByLabel`, `getByPlaceholder` and `window`'s options.
#[napi_derive::napi(object)]
pub struct TextOptions {
    /// Match the whole text, case-sensitively.
    pub exact: Option<bool>,
    /// Match hidden elements too.
    pub include_hidden: Option<bool>,
}

pub fn text_options(options: &Option<TextOptions>) -> (Option<bool>, bool) {
    options.as_ref().map_or((None, false), |o| {
        (o.exact, o.include_hidden.unwrap_or(false))
    })
}
