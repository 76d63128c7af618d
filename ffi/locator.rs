//! `ud_locator`: elements named the way a user names them (role and name,
//! key, text, label, or the string form), found afresh at every use and
//! waited for; and `ud_expect_*`, assertions that wait until they hold.
//!
//! All the logic is core's `Locator` and `expect`; this marshals.

use crate::app::{handle, ud_app, AppState};
use crate::convert::{optional_text, out, owned_json, owned_text, text, zero};
use crate::guard;
use crate::methods::UD_TIMEOUT_DEFAULT;
use crate::status::ud_status;
use std::ffi::c_char;
use std::sync::Arc;
use std::time::Duration;
use uidrive_core::locator::{Locator, RoleQuery, TextMatch};
use uidrive_core::protocol::{ElementKey, Role};
use uidrive_core::{expect, App, Error, Expect, Result};

/// Text matching for locators: case-insensitive, anywhere in the text.
pub const UD_MATCH_SUBSTRING: i32 = 0;
/// Text matching for locators: the whole text, case-sensitive.
pub const UD_MATCH_EXACT: i32 = 1;
/// Text matching for locators: a regular expression (Rust `regex` syntax;
/// `(?i)` ignores case), searched in the text.
pub const UD_MATCH_REGEX: i32 = 2;

/// `ud_expect_state`: exactly one element matches, and it shows.
pub const UD_EXPECT_VISIBLE: i32 = 0;
/// `ud_expect_state`: no element matches, or none shows.
pub const UD_EXPECT_HIDDEN: i32 = 1;
/// `ud_expect_state`: the element is enabled.
pub const UD_EXPECT_ENABLED: i32 = 2;
/// `ud_expect_state`: the element is disabled.
pub const UD_EXPECT_DISABLED: i32 = 3;
/// `ud_expect_state`: the element is checked.
pub const UD_EXPECT_CHECKED: i32 = 4;
/// `ud_expect_state`: the element has the keyboard focus.
pub const UD_EXPECT_FOCUSED: i32 = 5;
/// `ud_expect_state`: the element takes text (an enabled, writable field).
pub const UD_EXPECT_EDITABLE: i32 = 6;

/// A description of elements in one app's window. Opaque: made by
/// `ud_app_get_by_*`, `ud_app_locator` and the `ud_locator_*` functions that
/// answer a new locator; freed by `ud_locator_free`.
///
/// A locator holds no element: each action, read or expectation reads the
/// window afresh and waits (up to the app's timeouts) for the element to be
/// there and able to take the action. It may be used from several threads at
/// once, and outlive `ud_app_free`; once its app is closed its calls fail
/// with `UD_ERR_DISCONNECTED`.
#[allow(non_camel_case_types)]
pub struct ud_locator {
    app: Arc<AppState>,
    locator: Locator,
}

impl ud_locator {
    fn run<T>(&self, body: impl FnOnce(&Locator) -> Result<T>) -> Result<T> {
        // Holding the app open for the call keeps `ud_app_close` waiting until it ends.
        self.app.with(|_| body(&self.locator))
    }

    fn derive(&self, locator: Locator) -> ud_locator {
        ud_locator {
            app: self.app.clone(),
            locator,
        }
    }
}

/// # Safety
/// `locator` is NULL or a live locator.
unsafe fn locator_ref<'a>(locator: *const ud_locator) -> Result<&'a ud_locator> {
    locator
        .as_ref()
        .ok_or_else(|| Error::invalid_request("`locator` is NULL"))
}

fn text_match(value: &str, how: i32) -> Result<TextMatch> {
    match how {
        UD_MATCH_SUBSTRING => Ok(TextMatch::substring(value)),
        UD_MATCH_EXACT => Ok(TextMatch::exact(value)),
        UD_MATCH_REGEX => TextMatch::regex(value),
        other => Err(Error::invalid_request(format!(
            "`matching` is {other}; use UD_MATCH_SUBSTRING, UD_MATCH_EXACT or UD_MATCH_REGEX"
        ))),
    }
}

fn timeout(timeout_ms: i64) -> Result<Option<Duration>> {
    match timeout_ms {
        UD_TIMEOUT_DEFAULT => Ok(None),
        ms if ms >= 0 => Ok(Some(Duration::from_millis(ms as u64))),
        ms => Err(Error::invalid_request(format!(
            "`timeout_ms` is {ms}; give milliseconds, or UD_TIMEOUT_DEFAULT (-1)"
        ))),
    }
}

/// Makes a locator from the app and hands it out through `out_locator`.
///
/// # Safety
/// `app` is NULL or a live handle; `out_locator` is NULL or valid for a write.
unsafe fn new_locator(
    app: *const ud_app,
    out_locator: *mut *mut ud_locator,
    make: impl FnOnce(&App) -> Result<Locator>,
) -> ud_status {
    zero(out_locator);
    guard::status(|| {
        let out_locator = out(out_locator, "out_locator")?;
        let app = handle(app)?;
        let locator = app.with(make)?;
        *out_locator = Box::into_raw(Box::new(ud_locator {
            app: app.state().clone(),
            locator,
        }));
        Ok(())
    })
}

/// A locator for elements of `role` (as the protocol names roles:
/// `"button"`, `"textField"`, ...) whose accessible name matches `name`
/// under `matching` (a `UD_MATCH_*` value); `name` NULL matches any name.
/// Searches the focused window, else the first.
///
/// `*out_locator` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `role` and `name` are NULL or
/// NUL-terminated strings; `out_locator` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_get_by_role(
    app: *const ud_app,
    role: *const c_char,
    name: *const c_char,
    matching: i32,
    out_locator: *mut *mut ud_locator,
) -> ud_status {
    new_locator(app, out_locator, |app| {
        let role_name = text(role, "role")?;
        let role = Role::parse(role_name);
        if !role.is_known() {
            return Err(Error::invalid_request(format!(
                "`role` `{role_name}` is not a role; use a protocol role name such as \"button\" or \"textField\""
            )));
        }
        let query = match optional_text(name, "name")? {
            Some(name) => RoleQuery::name(text_match(name, matching)?),
            None => RoleQuery::any(),
        };
        Ok(app.get_by_role(role, query))
    })
}

/// A locator for the element the app gave `key` (its lasting name, the
/// test id), in the focused window, else the first.
///
/// `*out_locator` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `key` is NULL or a NUL-terminated string;
/// `out_locator` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_get_by_key(
    app: *const ud_app,
    key: *const c_char,
    out_locator: *mut *mut ud_locator,
) -> ud_status {
    new_locator(app, out_locator, |app| {
        Ok(app.get_by_key(ElementKey::Str(text(key, "key")?.to_string())))
    })
}

/// A locator for elements showing `text` (their label, else their value)
/// under `matching` (a `UD_MATCH_*` value).
///
/// `*out_locator` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `text` is NULL or a NUL-terminated string;
/// `out_locator` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_get_by_text(
    app: *const ud_app,
    text: *const c_char,
    matching: i32,
    out_locator: *mut *mut ud_locator,
) -> ud_status {
    new_locator(app, out_locator, |app| {
        Ok(app.get_by_text(text_match(self::text(text, "text")?, matching)?))
    })
}

/// A locator for elements whose accessible name (label) matches `label`
/// under `matching`: the field a label names, not the label itself.
///
/// `*out_locator` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `label` is NULL or a NUL-terminated
/// string; `out_locator` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_get_by_label(
    app: *const ud_app,
    label: *const c_char,
    matching: i32,
    out_locator: *mut *mut ud_locator,
) -> ud_status {
    new_locator(app, out_locator, |app| {
        Ok(app.get_by_label(text_match(text(label, "label")?, matching)?))
    })
}

/// A locator from its string form, as `role=button[name="Add"] >> nth=0`
/// (see docs/locators.md). A selector that does not parse makes every use of
/// the locator fail with `UD_ERR_INVALID_REQUEST`.
///
/// `*out_locator` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `selector` is NULL or a NUL-terminated
/// string; `out_locator` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_locator(
    app: *const ud_app,
    selector: *const c_char,
    out_locator: *mut *mut ud_locator,
) -> ud_status {
    new_locator(app, out_locator, |app| {
        Ok(app.locator(text(selector, "selector")?))
    })
}

/// Makes a locator from another and hands it out through `out_locator`.
///
/// # Safety
/// `locator` is NULL or live; `out_locator` is NULL or valid for a write.
unsafe fn derived(
    locator: *const ud_locator,
    out_locator: *mut *mut ud_locator,
    make: impl FnOnce(&Locator) -> Result<Locator>,
) -> ud_status {
    zero(out_locator);
    guard::status(|| {
        let out_locator = out(out_locator, "out_locator")?;
        let from = locator_ref(locator)?;
        let made = from.derive(make(&from.locator)?);
        *out_locator = Box::into_raw(Box::new(made));
        Ok(())
    })
}

/// Elements the string form `selector` finds inside this locator's elements.
///
/// `*out_locator` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `locator` is NULL or a live locator; `selector` is NULL or a
/// NUL-terminated string; `out_locator` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_locator(
    locator: *const ud_locator,
    selector: *const c_char,
    out_locator: *mut *mut ud_locator,
) -> ud_status {
    derived(locator, out_locator, |from| {
        Ok(from.locator(text(selector, "selector")?))
    })
}

/// The `index`th of this locator's matches, from 0, in tree order.
///
/// `*out_locator` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_locator` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_nth(
    locator: *const ud_locator,
    index: u32,
    out_locator: *mut *mut ud_locator,
) -> ud_status {
    derived(locator, out_locator, |from| Ok(from.nth(index as usize)))
}

/// The same locator, whose actions and strict reads wait up to `timeout_ms`.
///
/// `*out_locator` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_locator` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_with_timeout(
    locator: *const ud_locator,
    timeout_ms: u32,
    out_locator: *mut *mut ud_locator,
) -> ud_status {
    derived(locator, out_locator, |from| {
        Ok(from.with_timeout(Duration::from_millis(timeout_ms.into())))
    })
}

/// Frees a locator. NULL does nothing. Other locators and the app are not affected.
///
/// # Safety
/// `locator` is NULL or a live locator that is not used again.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_free(locator: *mut ud_locator) {
    guard::value((), || {
        if !locator.is_null() {
            drop(Box::from_raw(locator));
        }
    })
}

/// Runs an action; its outcome goes to `out_outcome_json` when that is not NULL.
///
/// # Safety
/// `locator` is NULL or live; `out_outcome_json` is NULL or valid for a write.
unsafe fn action<T: serde::Serialize>(
    locator: *const ud_locator,
    out_outcome_json: *mut *mut c_char,
    act: impl FnOnce(&Locator) -> Result<T>,
) -> ud_status {
    zero(out_outcome_json);
    guard::status(|| {
        let outcome = locator_ref(locator)?.run(act)?;
        if !out_outcome_json.is_null() {
            let json = serde_json::to_value(&outcome)
                .map_err(|e| Error::failed(format!("could not write the outcome: {e}")))?;
            *out_outcome_json = owned_json(&json);
        }
        Ok(())
    })
}

/// Clicks the one element the locator finds, once it is visible, enabled
/// and still: its `press` action when it has one, else a real click.
///
/// `out_outcome_json` may be NULL; else `*out_outcome_json` says how the
/// action went, as `{"route":"semantic","action":"press","window":1,"element":{...}}`,
/// owned by the caller and freed with `ud_string_free` (NULL on failure).
///
/// # Safety
/// `locator` is NULL or a live locator; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_click(
    locator: *const ud_locator,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    action(locator, out_outcome_json, Locator::click)
}

/// Replaces the text of the one field the locator finds with `text`.
/// `out_outcome_json` as for `ud_locator_click`.
///
/// # Safety
/// `locator` is NULL or a live locator; `text` is NULL or a NUL-terminated
/// string; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_fill(
    locator: *const ud_locator,
    text: *const c_char,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    zero(out_outcome_json);
    match guard::args(|| Ok(self::text(text, "text")?.to_string())) {
        Ok(text) => action(locator, out_outcome_json, |l| l.fill(&text)),
        Err(status) => status,
    }
}

/// Focuses the one element the locator finds and presses a key chord such
/// as `"Enter"` or `"Ctrl+A"`. `out_outcome_json` as for `ud_locator_click`.
///
/// # Safety
/// `locator` is NULL or a live locator; `chord` is NULL or a NUL-terminated
/// string; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_press(
    locator: *const ud_locator,
    chord: *const c_char,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    zero(out_outcome_json);
    match guard::args(|| Ok(text(chord, "chord")?.to_string())) {
        Ok(chord) => action(locator, out_outcome_json, |l| l.press(&chord)),
        Err(status) => status,
    }
}

/// Checks (`checked` true) or unchecks the one check box, switch or radio
/// the locator finds, and verifies that it took. `out_outcome_json` as for
/// `ud_locator_click`.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_set_checked(
    locator: *const ud_locator,
    checked: bool,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    action(locator, out_outcome_json, |l| l.set_checked(checked))
}

/// How many elements the locator finds now (no waiting), in `*out_count`.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_count` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_count(
    locator: *const ud_locator,
    out_count: *mut usize,
) -> ud_status {
    zero(out_count);
    guard::status(|| {
        let out_count = out(out_count, "out_count")?;
        *out_count = locator_ref(locator)?.run(Locator::count)?;
        Ok(())
    })
}

/// The text the one element the locator finds shows (its label, else its
/// value), once it is there.
///
/// `*out_text` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_text` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_text(
    locator: *const ud_locator,
    out_text: *mut *mut c_char,
) -> ud_status {
    zero(out_text);
    guard::status(|| {
        let out_text = out(out_text, "out_text")?;
        let text = locator_ref(locator)?.run(Locator::text)?;
        *out_text = owned_text(&text);
        Ok(())
    })
}

/// The one element the locator finds, as the tree's node JSON.
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_node(
    locator: *const ud_locator,
    out_json: *mut *mut c_char,
) -> ud_status {
    zero(out_json);
    guard::status(|| {
        let out_json = out(out_json, "out_json")?;
        let node = locator_ref(locator)?.run(Locator::node)?;
        let json = serde_json::to_value(&node)
            .map_err(|e| Error::failed(format!("could not write the node: {e}")))?;
        *out_json = owned_json(&json);
        Ok(())
    })
}

/// Whether the one element the locator finds shows now, in `*out_visible`
/// (false when none matches).
///
/// # Safety
/// `locator` is NULL or a live locator; `out_visible` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_is_visible(
    locator: *const ud_locator,
    out_visible: *mut bool,
) -> ud_status {
    zero(out_visible);
    guard::status(|| {
        let out_visible = out(out_visible, "out_visible")?;
        *out_visible = locator_ref(locator)?.run(Locator::is_visible)?;
        Ok(())
    })
}

/// Runs an assertion with the timeout asked for.
///
/// # Safety
/// `locator` is NULL or a live locator.
unsafe fn assertion(
    locator: *const ud_locator,
    timeout_ms: i64,
    negate: bool,
    check: impl FnOnce(&Expect) -> Result<()>,
) -> ud_status {
    guard::status(|| {
        let timeout = timeout(timeout_ms)?;
        locator_ref(locator)?.run(|locator| {
            let mut assertion = expect(locator);
            if negate {
                assertion = assertion.not();
            }
            if let Some(timeout) = timeout {
                assertion = assertion.with_timeout(timeout);
            }
            check(&assertion)
        })
    })
}

/// Waits until the element is in `state` (a `UD_EXPECT_*` value), or, with
/// `negate`, until it is not; fails with `UD_ERR_ASSERTION_FAILED`, saying
/// what it last saw, after `timeout_ms` (`UD_TIMEOUT_DEFAULT`: the app's
/// expect timeout).
///
/// # Safety
/// `locator` is NULL or a live locator.
#[no_mangle]
pub unsafe extern "C" fn ud_expect_state(
    locator: *const ud_locator,
    state: i32,
    negate: bool,
    timeout_ms: i64,
) -> ud_status {
    let check: fn(&Expect) -> Result<()> = match state {
        UD_EXPECT_VISIBLE => Expect::to_be_visible,
        UD_EXPECT_HIDDEN => Expect::to_be_hidden,
        UD_EXPECT_ENABLED => Expect::to_be_enabled,
        UD_EXPECT_DISABLED => Expect::to_be_disabled,
        UD_EXPECT_CHECKED => Expect::to_be_checked,
        UD_EXPECT_FOCUSED => Expect::to_be_focused,
        UD_EXPECT_EDITABLE => Expect::to_be_editable,
        other => {
            return guard::status(|| {
                Err(Error::invalid_request(format!(
                    "`state` is {other}; use a UD_EXPECT_* value from {UD_EXPECT_VISIBLE} to {UD_EXPECT_EDITABLE}"
                )))
            })
        }
    };
    assertion(locator, timeout_ms, negate, check)
}

/// Waits until the one element shows text matching `text` under `matching` (a
/// `UD_MATCH_*` value), or, with `negate`, until it does not. Timeout and
/// failure as for `ud_expect_state`.
///
/// # Safety
/// `locator` is NULL or a live locator; `text` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn ud_expect_text(
    locator: *const ud_locator,
    text: *const c_char,
    matching: i32,
    negate: bool,
    timeout_ms: i64,
) -> ud_status {
    match guard::args(|| text_match(self::text(text, "text")?, matching)) {
        Ok(pattern) => assertion(locator, timeout_ms, negate, |e| e.to_have_text(pattern)),
        Err(status) => status,
    }
}

/// Waits until the one element's value matches `value` under `matching`, or,
/// with `negate`, until it does not. Timeout and failure as for `ud_expect_state`.
///
/// # Safety
/// `locator` is NULL or a live locator; `value` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn ud_expect_value(
    locator: *const ud_locator,
    value: *const c_char,
    matching: i32,
    negate: bool,
    timeout_ms: i64,
) -> ud_status {
    match guard::args(|| text_match(text(value, "value")?, matching)) {
        Ok(pattern) => assertion(locator, timeout_ms, negate, |e| e.to_have_value(pattern)),
        Err(status) => status,
    }
}

/// Waits until the locator finds exactly `count` elements, or, with
/// `negate`, any other number. Timeout and failure as for `ud_expect_state`.
///
/// # Safety
/// `locator` is NULL or a live locator.
#[no_mangle]
pub unsafe extern "C" fn ud_expect_count(
    locator: *const ud_locator,
    count: usize,
    negate: bool,
    timeout_ms: i64,
) -> ud_status {
    assertion(locator, timeout_ms, negate, |e| e.to_have_count(count))
}

// Handles are shared between threads: make the compiler check they may be.
const _: fn() = || {
    fn shareable<T: Send + Sync>() {}
    shareable::<ud_locator>();
    shareable::<ud_app>();
};
