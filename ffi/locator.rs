//! `ud_locator`: elements named the way a user names them (role and name,
//! key, text, label, or the string form), found afresh at every use and
//! waited for; and `ud_expect_*`, assertions that wait until they hold.
//!
//! All the logic is core's `Locator` and `expect`; this marshals.

use crate::app::{handle, ud_app, AppState};
use crate::convert::{optional_text, out, owned_json, owned_text, text, zero};
use crate::enums;
use crate::guard;
use crate::handles;
use crate::methods::UD_TIMEOUT_DEFAULT;
use crate::status::ud_status;
use serde::Serialize;
use std::ffi::c_char;
use std::sync::Arc;
use std::time::Duration;
use uidrive_core::locator::{Find, Locator, RoleQuery, TextMatch, WindowRef};
use uidrive_core::protocol::{ElementId, ElementKey};
use uidrive_core::{
    expect, ActionOutcome, App, Error, Expect, ExpectedText, Filter, Result, ScrollDirection,
};
use uidrive_facade::{names, outcome, time};

/// Text matching for locators and `ud_expect_text`/`ud_expect_value`:
/// case-insensitive, anywhere in the text (a part).
pub const UD_MATCH_SUBSTRING: i32 = 0;
/// Text matching: the whole text (whitespace folded), case-sensitive; what a
/// string means to Playwright's `toHaveText` and `toHaveValue`.
pub const UD_MATCH_EXACT: i32 = 1;
/// Text matching: a regular expression (Rust `regex` syntax; `(?i)`
/// ignores case), searched in the text.
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
/// `ud_app_get_by_*`, `ud_app_locator`, `ud_app_window*` and the
/// `ud_locator_*` functions that answer a new locator; freed by
/// `ud_locator_free`.
///
/// A locator holds no element: each action, read or expectation reads the
/// window afresh and waits (up to the app's timeouts) for the element to be
/// there and able to take the action. It may be used from several threads at
/// once, and outlive `ud_app_free`; once its app is closed its calls fail
/// with `UD_ERR_DISCONNECTED`.
///
/// `ud_app_window` and `ud_app_window_titled` answer a locator for a window
/// itself: a starting point for `ud_locator_get_by_*`, not an element, so
/// actions, reads and expectations on it fail with `UD_ERR_INVALID_REQUEST`.
#[allow(non_camel_case_types)]
pub struct ud_locator {
    app: Arc<AppState>,
    root: Root,
}

enum Root {
    Window(WindowRef),
    Elements(Locator),
}

impl ud_locator {
    fn finder(&self) -> &dyn Find {
        match &self.root {
            Root::Window(window) => window,
            Root::Elements(locator) => locator,
        }
    }

    fn elements(&self) -> Result<&Locator> {
        match &self.root {
            Root::Elements(locator) => Ok(locator),
            Root::Window(_) => Err(Error::invalid_request(
                "this locator is a window, not an element",
            )
            .with_suggestion(
                "find an element in it first, with ud_locator_get_by_role or ud_locator_locator",
            )),
        }
    }

    pub(crate) fn run<T>(&self, body: impl FnOnce(&Locator) -> Result<T>) -> Result<T> {
        let locator = self.elements()?;
        // Holding the app open for the call keeps `ud_app_close` waiting until it ends.
        // An element not found names the app's windows, as in every language.
        self.app
            .with(|app| body(locator).map_err(|e| uidrive_facade::explain::name_windows(e, app)))
    }
}

/// # Safety
/// `locator` is NULL or a live locator.
pub(crate) unsafe fn locator_ref<'a>(
    locator: *const ud_locator,
    what: &str,
) -> Result<&'a ud_locator> {
    handles::get(handles::Kind::Locator, locator, what)
}

/// The element locator `locator` holds, or `None` for NULL (no target).
pub(crate) unsafe fn optional_target(
    locator: *const ud_locator,
    what: &str,
) -> Result<Option<Locator>> {
    if locator.is_null() {
        return Ok(None);
    }
    Ok(Some(locator_ref(locator, what)?.elements()?.clone()))
}

pub(crate) fn text_match(value: &str, how: i32) -> Result<TextMatch> {
    match how {
        UD_MATCH_SUBSTRING => Ok(TextMatch::substring(value)),
        UD_MATCH_EXACT => Ok(TextMatch::exact(value)),
        UD_MATCH_REGEX => TextMatch::regex(value),
        other => Err(Error::invalid_request(format!(
            "`matching` is {other}; use UD_MATCH_SUBSTRING, UD_MATCH_EXACT or UD_MATCH_REGEX"
        ))),
    }
}

/// What an assertion wants, from a `UD_MATCH_*` value: `UD_MATCH_EXACT`
/// the whole text, `UD_MATCH_SUBSTRING` a part ignoring case, `UD_MATCH_REGEX`
/// a pattern searched.
fn expected_text(value: &str, how: i32) -> Result<ExpectedText> {
    match how {
        UD_MATCH_SUBSTRING => Ok(ExpectedText::part(value).ignore_case(true)),
        UD_MATCH_EXACT => Ok(ExpectedText::text(value)),
        UD_MATCH_REGEX => ExpectedText::regex(value),
        other => Err(Error::invalid_request(format!(
            "`matching` is {other}; use UD_MATCH_SUBSTRING, UD_MATCH_EXACT or UD_MATCH_REGEX"
        ))),
    }
}

fn role_query(name: Option<&str>, matching: i32) -> Result<RoleQuery> {
    Ok(match name {
        Some(name) => RoleQuery::name(text_match(name, matching)?),
        None => RoleQuery::any(),
    })
}

fn timeout(timeout_ms: i64) -> Result<Option<Duration>> {
    time::signed_millis("`timeout_ms`", timeout_ms, UD_TIMEOUT_DEFAULT)
}

fn boxed(app: &Arc<AppState>, root: Root) -> *mut ud_locator {
    handles::register(
        handles::Kind::Locator,
        ud_locator {
            app: app.clone(),
            root,
        },
    )
}

/// Makes a locator from the app and hands it out through `out_locator`.
///
/// # Safety
/// `app` is NULL or a live handle; `out_locator` is NULL or valid for a write.
pub(crate) unsafe fn new_locator(
    app: *const ud_app,
    out_locator: *mut *mut ud_locator,
    make: impl FnOnce(&ud_app, &App) -> Result<Locator>,
) -> ud_status {
    new_root(app, out_locator, |handle, app| {
        make(handle, app).map(Root::Elements)
    })
}

/// # Safety
/// As [`new_locator`].
unsafe fn new_root(
    app: *const ud_app,
    out_locator: *mut *mut ud_locator,
    make: impl FnOnce(&ud_app, &App) -> Result<Root>,
) -> ud_status {
    zero(out_locator);
    guard::status(|| {
        let out_locator = out(out_locator, "out_locator")?;
        let handle = handle(app)?;
        let root = handle.with(|app| make(handle, app))?;
        *out_locator = boxed(handle.state(), root);
        Ok(())
    })
}

/// Makes a locator from another and hands it out through `out_locator`.
///
/// # Safety
/// `locator` is NULL or live; `out_locator` is NULL or valid for a write.
unsafe fn derived(
    locator: *const ud_locator,
    out_locator: *mut *mut ud_locator,
    make: impl FnOnce(&ud_locator) -> Result<Locator>,
) -> ud_status {
    zero(out_locator);
    guard::status(|| {
        let out_locator = out(out_locator, "out_locator")?;
        let from = locator_ref(locator, "locator")?;
        let made = make(from)?;
        *out_locator = boxed(&from.app, Root::Elements(made));
        Ok(())
    })
}

// ---- Starting points on the app ----

/// A locator for elements of `role` (as the protocol names roles:
/// `"button"`, `"textField"`, ...; a name that is no role fails at once with
/// `UD_ERR_INVALID_REQUEST`) whose accessible name matches `name` under
/// `matching` (a `UD_MATCH_*` value); `name` NULL matches any name. Searches
/// the focused window, else the first. For states (checked, expanded, ...)
/// use the string form: `ud_app_locator(app, "role=checkBox[checked]", ...)`.
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
    new_locator(app, out_locator, |_, app| {
        let role = names::role(text(role, "role")?)?;
        Ok(app.get_by_role(role, role_query(optional_text(name, "name")?, matching)?))
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
    new_locator(app, out_locator, |_, app| {
        Ok(app.get_by_key(ElementKey::Str(text(key, "key")?.to_string())))
    })
}

/// A locator for elements showing `text` (their label, else their value)
/// under `matching` (a `UD_MATCH_*` value). Hidden elements are left out;
/// `ud_locator_include_hidden` takes them in.
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
    new_locator(app, out_locator, |_, app| {
        Ok(app.get_by_text(text_match(self::text(text, "text")?, matching)?))
    })
}

/// A locator for the boxes where OCR reads `text` under `matching` (a
/// `UD_MATCH_*` value) on the window's capture: for apps with no
/// accessibility tree (Tk, xterm, canvases). Its elements have bounds and no
/// identity in the app's tree; click, hover, waits and assertions work on them.
///
/// `*out_locator` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `text` is NULL or a NUL-terminated string;
/// `out_locator` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_get_by_ocr(
    app: *const ud_app,
    text: *const c_char,
    matching: i32,
    out_locator: *mut *mut ud_locator,
) -> ud_status {
    new_locator(app, out_locator, |_, app| {
        Ok(app.get_by_ocr(text_match(self::text(text, "text")?, matching)?))
    })
}

/// A locator for the boxes where the picture in the PNG file `path` shows on
/// the window's capture with a score of at least `threshold` (above 0 and at
/// most 1; 0 for the default, 0.9).
///
/// `*out_locator` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `path` is NULL or a NUL-terminated string;
/// `out_locator` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_get_by_image(
    app: *const ud_app,
    path: *const c_char,
    threshold: f64,
    out_locator: *mut *mut ud_locator,
) -> ud_status {
    new_locator(app, out_locator, |_, app| {
        let threshold = (threshold != 0.0).then_some(threshold);
        Ok(app.get_by_image(text(path, "path")?, threshold))
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
    new_locator(app, out_locator, |_, app| {
        Ok(app.get_by_label(text_match(text(label, "label")?, matching)?))
    })
}

/// A locator for fields whose placeholder matches `text` under `matching`.
///
/// `*out_locator` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `text` is NULL or a NUL-terminated
/// string; `out_locator` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_get_by_placeholder(
    app: *const ud_app,
    text: *const c_char,
    matching: i32,
    out_locator: *mut *mut ud_locator,
) -> ud_status {
    new_locator(app, out_locator, |_, app| {
        Ok(app.get_by_placeholder(text_match(self::text(text, "text")?, matching)?))
    })
}

/// A locator for the element whose id (digits, as `ud_tree` gives them) is
/// `element_id`. Ids last only while the view does: prefer keys and roles.
///
/// `*out_locator` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `element_id` is NULL or a NUL-terminated
/// string; `out_locator` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_get_by_id(
    app: *const ud_app,
    element_id: *const c_char,
    out_locator: *mut *mut ud_locator,
) -> ud_status {
    new_locator(app, out_locator, |_, app| {
        let id: ElementId = crate::methods::element_id(text(element_id, "element_id")?)?;
        Ok(app.get_by_id(id))
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
    new_locator(app, out_locator, |_, app| {
        Ok(app.locator(text(selector, "selector")?))
    })
}

/// A starting point for locators in one window: `window_id` from
/// `ud_windows`, or `UD_WINDOW_DEFAULT` for the focused window, else the
/// first. Find elements in it with `ud_locator_get_by_*` and
/// `ud_locator_locator`; it is no element itself.
///
/// `*out_window` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `app` is NULL or a live handle; `out_window` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_window(
    app: *const ud_app,
    window_id: u64,
    out_window: *mut *mut ud_locator,
) -> ud_status {
    new_root(app, out_window, |_, app| {
        Ok(Root::Window(match window_id {
            0 => app.focused_window(),
            id => app.window(id),
        }))
    })
}

/// As `ud_app_window`, for the one window whose title matches `title` under
/// `matching`, waited for like an element. When no window or several match,
/// the error names the windows there are.
///
/// # Safety
/// `app` is NULL or a live handle; `title` is NULL or a NUL-terminated
/// string; `out_window` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_app_window_titled(
    app: *const ud_app,
    title: *const c_char,
    matching: i32,
    out_window: *mut *mut ud_locator,
) -> ud_status {
    new_root(app, out_window, |_, app| {
        Ok(Root::Window(app.window_titled(text_match(
            text(title, "title")?,
            matching,
        )?)))
    })
}

// ---- Locators inside locators ----

/// Elements of `role` inside this locator's elements (or in this window),
/// as `ud_app_get_by_role`.
///
/// `*out_locator` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `locator` is NULL or a live locator; `role` and `name` are NULL or
/// NUL-terminated strings; `out_locator` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_get_by_role(
    locator: *const ud_locator,
    role: *const c_char,
    name: *const c_char,
    matching: i32,
    out_locator: *mut *mut ud_locator,
) -> ud_status {
    derived(locator, out_locator, |from| {
        let role = names::role(text(role, "role")?)?;
        let query = role_query(optional_text(name, "name")?, matching)?;
        Ok(from.finder().get_by_role(role, query))
    })
}

/// The element with `key` inside this locator's elements (or in this window).
///
/// `*out_locator` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `locator` is NULL or a live locator; `key` is NULL or a NUL-terminated
/// string; `out_locator` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_get_by_key(
    locator: *const ud_locator,
    key: *const c_char,
    out_locator: *mut *mut ud_locator,
) -> ud_status {
    derived(locator, out_locator, |from| {
        Ok(from
            .finder()
            .get_by_key(ElementKey::Str(text(key, "key")?.to_string())))
    })
}

/// Elements showing `text` inside this locator's elements (or in this window).
///
/// `*out_locator` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `locator` is NULL or a live locator; `text` is NULL or a NUL-terminated
/// string; `out_locator` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_get_by_text(
    locator: *const ud_locator,
    text: *const c_char,
    matching: i32,
    out_locator: *mut *mut ud_locator,
) -> ud_status {
    derived(locator, out_locator, |from| {
        Ok(from
            .finder()
            .get_by_text(text_match(self::text(text, "text")?, matching)?))
    })
}

/// Elements labelled `label` inside this locator's elements (or in this window).
///
/// `*out_locator` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `locator` is NULL or a live locator; `label` is NULL or a NUL-terminated
/// string; `out_locator` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_get_by_label(
    locator: *const ud_locator,
    label: *const c_char,
    matching: i32,
    out_locator: *mut *mut ud_locator,
) -> ud_status {
    derived(locator, out_locator, |from| {
        Ok(from
            .finder()
            .get_by_label(text_match(text(label, "label")?, matching)?))
    })
}

/// Fields with a matching placeholder inside this locator's elements (or in this window).
///
/// `*out_locator` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `locator` is NULL or a live locator; `text` is NULL or a NUL-terminated
/// string; `out_locator` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_get_by_placeholder(
    locator: *const ud_locator,
    text: *const c_char,
    matching: i32,
    out_locator: *mut *mut ud_locator,
) -> ud_status {
    derived(locator, out_locator, |from| {
        Ok(from
            .finder()
            .get_by_placeholder(text_match(self::text(text, "text")?, matching)?))
    })
}

/// The element with id `element_id` inside this locator's elements (or in this window).
///
/// `*out_locator` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `locator` is NULL or a live locator; `element_id` is NULL or a
/// NUL-terminated string; `out_locator` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_get_by_id(
    locator: *const ud_locator,
    element_id: *const c_char,
    out_locator: *mut *mut ud_locator,
) -> ud_status {
    derived(locator, out_locator, |from| {
        let id = crate::methods::element_id(text(element_id, "element_id")?)?;
        Ok(from.finder().get_by_id(id))
    })
}

/// Elements the string form `selector` finds inside this locator's elements
/// (or in this window).
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
        Ok(from.finder().locator(text(selector, "selector")?))
    })
}

/// Elements `inner` finds inside this locator's elements (`inner`'s own
/// window is ignored).
///
/// `*out_locator` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `locator` and `inner` are NULL or live locators; `out_locator` is NULL or
/// valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_find(
    locator: *const ud_locator,
    inner: *const ud_locator,
    out_locator: *mut *mut ud_locator,
) -> ud_status {
    derived(locator, out_locator, |from| {
        let inner = locator_ref(inner, "inner")?.elements()?;
        Ok(from.elements()?.find(inner))
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
    derived(locator, out_locator, |from| {
        Ok(from.elements()?.nth(index as usize))
    })
}

/// The cell at `row` and `column` (both from 1, as a cell's `rowIndex` and
/// `colIndex`) of the tables this locator finds. A table too big to read
/// whole (its node is `truncated`) is asked for that one cell through the
/// app's own lookup (the protocol's `cellAt`), so a cell scrolled out of view
/// is found too. A row or column of 0 makes every use of the locator fail with
/// `UD_ERR_INVALID_REQUEST`.
///
/// `*out_locator` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_locator` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_cell(
    locator: *const ud_locator,
    row: u32,
    column: u32,
    out_locator: *mut *mut ud_locator,
) -> ud_status {
    derived(locator, out_locator, |from| {
        Ok(from.elements()?.cell(row, column))
    })
}

/// The first of this locator's matches, in tree order.
///
/// `*out_locator` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_locator` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_first(
    locator: *const ud_locator,
    out_locator: *mut *mut ud_locator,
) -> ud_status {
    derived(locator, out_locator, |from| Ok(from.elements()?.first()))
}

/// The last of this locator's matches, in tree order.
///
/// `*out_locator` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_locator` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_last(
    locator: *const ud_locator,
    out_locator: *mut *mut ud_locator,
) -> ud_status {
    derived(locator, out_locator, |from| Ok(from.elements()?.last()))
}

/// Keeps the matches that pass every condition given (NULL: not checked):
/// showing `has_text`, themselves or inside; not showing `has_not_text`;
/// holding an element `has` finds; holding none `has_not` finds. Texts are
/// matched under `matching`.
///
/// `*out_locator` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `locator`, `has` and `has_not` are NULL or live locators; the texts are
/// NULL or NUL-terminated strings; `out_locator` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_filter(
    locator: *const ud_locator,
    has_text: *const c_char,
    has_not_text: *const c_char,
    has: *const ud_locator,
    has_not: *const ud_locator,
    matching: i32,
    out_locator: *mut *mut ud_locator,
) -> ud_status {
    derived(locator, out_locator, |from| {
        let mut filter = Filter::new();
        if let Some(t) = optional_text(has_text, "has_text")? {
            filter = filter.has_text(text_match(t, matching)?);
        }
        if let Some(t) = optional_text(has_not_text, "has_not_text")? {
            filter = filter.has_not_text(text_match(t, matching)?);
        }
        // NULL: not checked; else a live locator, checked as every handle is.
        if !has.is_null() {
            filter = filter.has(locator_ref(has, "has")?.elements()?);
        }
        if !has_not.is_null() {
            filter = filter.has_not(locator_ref(has_not, "has_not")?.elements()?);
        }
        Ok(from.elements()?.filter(filter))
    })
}

/// The same locator, matching hidden elements too (`include` true) or not.
///
/// `*out_locator` is owned by the caller: free it with `ud_locator_free`. NULL on failure.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_locator` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_include_hidden(
    locator: *const ud_locator,
    include: bool,
    out_locator: *mut *mut ud_locator,
) -> ud_status {
    derived(locator, out_locator, |from| {
        Ok(from.elements()?.include_hidden(include))
    })
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
        Ok(from
            .elements()?
            .with_timeout(Duration::from_millis(timeout_ms.into())))
    })
}

/// What the locator says, as its error messages show it:
/// `get_by_role("button", name="7")`.
///
/// `*out_text` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_text` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_description(
    locator: *const ud_locator,
    out_text: *mut *mut c_char,
) -> ud_status {
    zero(out_text);
    guard::status(|| {
        let out_text = out(out_text, "out_text")?;
        let locator = locator_ref(locator, "locator")?;
        let description = match &locator.root {
            Root::Elements(l) => l.description(),
            Root::Window(_) => "a window".to_string(),
        };
        *out_text = owned_text(&description);
        Ok(())
    })
}

/// Frees a locator. NULL does nothing. Other locators and the app are not affected.
///
/// # Safety
/// `locator` is NULL or a live locator that is not used again.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_free(locator: *mut ud_locator) {
    guard::value((), || {
        // A locator freed before (or never made) is refused, not freed again.
        if let Err(e) = handles::take(handles::Kind::Locator, locator, "locator") {
            crate::last_error::record(&e);
        }
    })
}

// ---- Actions ----

/// Runs an action; its outcome goes to `out_outcome_json` when that is not NULL.
///
/// # Safety
/// `locator` is NULL or live; `out_outcome_json` is NULL or valid for a write.
unsafe fn action(
    locator: *const ud_locator,
    out_outcome_json: *mut *mut c_char,
    act: impl FnOnce(&Locator) -> Result<ActionOutcome>,
) -> ud_status {
    zero(out_outcome_json);
    guard::status(|| {
        let done = locator_ref(locator, "locator")?.run(act)?;
        if !out_outcome_json.is_null() {
            *out_outcome_json = owned_json(&outcome::to_json(&done)?);
        }
        Ok(())
    })
}

/// An action that takes text: reads it inside the trap first.
///
/// # Safety
/// As [`action`]; `value` is NULL or a NUL-terminated string.
unsafe fn text_action(
    locator: *const ud_locator,
    value: *const c_char,
    what: &str,
    out_outcome_json: *mut *mut c_char,
    act: impl FnOnce(&Locator, &str) -> Result<ActionOutcome>,
) -> ud_status {
    zero(out_outcome_json);
    match guard::args(|| Ok(text(value, what)?.to_string())) {
        Ok(value) => action(locator, out_outcome_json, |l| act(l, &value)),
        Err(status) => status,
    }
}

/// Clicks the one element the locator finds, once it is visible, enabled
/// and still, as a person does: a real click at its centre when the point
/// hits it (apps reached over a protocol socket, which cannot tell, get its
/// own `press` action). `ud_locator_activate` uses the press action first.
///
/// `out_outcome_json` may be NULL; else `*out_outcome_json` says how the
/// action went and what the tree showed of it, as
/// `{"route":"semantic:press","effect":"confirmed","observed":"...","window":1,"element":{...}}`
/// (`route` is `semantic:<action>`, `input` or `not_needed`; `effect` is
/// `confirmed`, with `observed`, or `unverifiable`, with `checked`: what was
/// looked at; `closed` lists the windows the action closed, when it closed
/// any; the same shape in every language), owned by the caller and freed
/// with `ud_string_free` (NULL on failure).
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

/// Presses the one element the locator finds as assistive technology does:
/// its own press action when it offers one, else a click at its centre.
/// `out_outcome_json` as for `ud_locator_click`.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_activate(
    locator: *const ud_locator,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    action(locator, out_outcome_json, Locator::activate)
}

/// Double-clicks the one element with the real pointer.
/// `out_outcome_json` as for `ud_locator_click`.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_dblclick(
    locator: *const ud_locator,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    action(locator, out_outcome_json, Locator::dblclick)
}

/// Clicks the one element the locator finds with the real pointer, once it
/// is visible, enabled and still: `button` (a `UD_BUTTON_*` value) pressed
/// `clicks` times in a row (1, 2 or 3; 2 is a double click) at its centre.
/// Never the element's own action: `UD_BUTTON_RIGHT` opens a context menu.
/// A button or count out of range is `UD_ERR_INVALID_REQUEST` before anything
/// is looked for. `out_outcome_json` as for `ud_locator_click` (its `route`
/// is `input`).
///
/// # Safety
/// `locator` is NULL or a live locator; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_click_button(
    locator: *const ud_locator,
    button: i32,
    clicks: u32,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    zero(out_outcome_json);
    let press = guard::args(|| {
        let button = enums::button(button)?;
        uidrive_core::protocol::click_count(f64::from(clicks))
            .map_err(|why| Error::invalid_request(format!("`clicks` is {clicks}; {why}")))?;
        Ok(button)
    });
    match press {
        Ok(button) => action(locator, out_outcome_json, |l| {
            l.click_button(button, clicks)
        }),
        Err(status) => status,
    }
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
    text_action(locator, text, "text", out_outcome_json, |l, t| l.fill(t))
}

/// Types `text` into the one field the locator finds, after what it holds.
/// `out_outcome_json` as for `ud_locator_click`.
///
/// # Safety
/// `locator` is NULL or a live locator; `text` is NULL or a NUL-terminated
/// string; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_type(
    locator: *const ud_locator,
    text: *const c_char,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    text_action(locator, text, "text", out_outcome_json, |l, t| {
        l.type_text(t)
    })
}

/// Focuses the one field the locator finds and types `text` as real keys,
/// one at a time, `delay_ms` apart (0: no pause), then waits until it reads
/// the text back. `out_outcome_json` as for `ud_locator_click`.
///
/// # Safety
/// `locator` is NULL or a live locator; `text` is NULL or a NUL-terminated
/// string; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_press_sequentially(
    locator: *const ud_locator,
    text: *const c_char,
    delay_ms: u32,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    let delay = (delay_ms > 0).then(|| Duration::from_millis(delay_ms.into()));
    text_action(locator, text, "text", out_outcome_json, |l, t| {
        l.press_sequentially(t, delay)
    })
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
    text_action(locator, chord, "chord", out_outcome_json, |l, c| l.press(c))
}

/// Checks the one check box, switch or radio the locator finds, and
/// verifies that it took. `out_outcome_json` as for `ud_locator_click`.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_check(
    locator: *const ud_locator,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    action(locator, out_outcome_json, Locator::check)
}

/// Unchecks the one check box or switch the locator finds, and verifies
/// that it took. `out_outcome_json` as for `ud_locator_click`.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_uncheck(
    locator: *const ud_locator,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    action(locator, out_outcome_json, Locator::uncheck)
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

/// Chooses the option matching `option` under `matching` in the one combo
/// box or list the locator finds, and verifies that it took.
/// `out_outcome_json` as for `ud_locator_click` (its element is the option).
///
/// # Safety
/// `locator` is NULL or a live locator; `option` is NULL or a
/// NUL-terminated string; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_select_option(
    locator: *const ud_locator,
    option: *const c_char,
    matching: i32,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    zero(out_outcome_json);
    match guard::args(|| text_match(text(option, "option")?, matching)) {
        Ok(option) => action(locator, out_outcome_json, |l| l.select_option(option)),
        Err(status) => status,
    }
}

/// Moves the real pointer over the one element the locator finds.
/// `out_outcome_json` as for `ud_locator_click`.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_hover(
    locator: *const ud_locator,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    action(locator, out_outcome_json, Locator::hover)
}

/// Gives the one element the locator finds the keyboard focus.
/// `out_outcome_json` as for `ud_locator_click`.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_focus(
    locator: *const ud_locator,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    action(locator, out_outcome_json, Locator::focus)
}

/// Scrolls the one element the locator finds into view.
/// `out_outcome_json` as for `ud_locator_click`.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_scroll_into_view(
    locator: *const ud_locator,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    action(locator, out_outcome_json, Locator::scroll_into_view)
}

/// Sets the number of the one slider, spin button or meter the locator
/// finds to `value`, and verifies that it took. `out_outcome_json` as for
/// `ud_locator_click`.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_set_value(
    locator: *const ud_locator,
    value: f64,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    action(locator, out_outcome_json, |l| l.set_value(value))
}

/// Turns the real mouse wheel `notches` clicks over the centre of the one
/// element the locator finds, towards `direction`: `"up"`, `"down"`,
/// `"left"` or `"right"`. The outcome is `"effect":"confirmed"` when the
/// tree showed it (elements came, went, moved or changed, or the focus
/// moved), else `"effect":"unverifiable"`. A direction other than those four
/// and `notches` 0 or over 1 000 are `UD_ERR_INVALID_REQUEST` before anything
/// is looked for. `out_outcome_json` as for `ud_locator_click` (its `route`
/// is `input`).
///
/// # Safety
/// `locator` is NULL or a live locator; `direction` is NULL or a
/// NUL-terminated string; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_scroll(
    locator: *const ud_locator,
    direction: *const c_char,
    notches: u32,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    zero(out_outcome_json);
    match guard::args(|| text(direction, "direction")?.parse::<ScrollDirection>()) {
        Ok(direction) => action(locator, out_outcome_json, |l| l.scroll(direction, notches)),
        Err(status) => status,
    }
}

/// Expands the one tree row, expander or combo box the locator finds (its
/// own `expand` action; a row that offers none, as GTK 4's: Shift+Right with
/// the focus on it) and waits until it reads `expanded`;
/// `"route":"not_needed"` when it was expanded already. `out_outcome_json`
/// as for `ud_locator_click`.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_expand(
    locator: *const ud_locator,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    action(locator, out_outcome_json, Locator::expand)
}

/// Collapses what `ud_locator_expand` expands (a row with no action for it:
/// Shift+Left) and waits until it no longer reads `expanded`.
/// `out_outcome_json` as for `ud_locator_click`.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_collapse(
    locator: *const ud_locator,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    action(locator, out_outcome_json, Locator::collapse)
}

/// Steps the one slider or spin button the locator finds up `steps` times
/// (1 to 1 000) by its own `increment` action and waits until its number
/// grew; at its maximum already, `"route":"not_needed"` and nothing is sent.
/// `steps` out of range is `UD_ERR_INVALID_REQUEST` before anything is looked
/// for. `out_outcome_json` as for `ud_locator_click`.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_increment(
    locator: *const ud_locator,
    steps: u32,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    action(locator, out_outcome_json, |l| l.increment(steps))
}

/// Steps it down, as `ud_locator_increment` steps it up (at its minimum:
/// `"route":"not_needed"`).
///
/// # Safety
/// `locator` is NULL or a live locator; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_decrement(
    locator: *const ud_locator,
    steps: u32,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    action(locator, out_outcome_json, |l| l.decrement(steps))
}

/// Selects the characters `from` (inclusive) to `to` (exclusive), counted
/// in Unicode scalar values from 0, of the text of the one element the
/// locator finds, and waits until its selection reads so (`from` equal to
/// `to`: the caret there). `from` after `to` is `UD_ERR_INVALID_REQUEST`
/// before anything is looked for. `out_outcome_json` as for
/// `ud_locator_click`.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_outcome_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_select_text(
    locator: *const ud_locator,
    from: u32,
    to: u32,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    action(locator, out_outcome_json, |l| l.select_text(from, to))
}

/// Drags the one element the locator finds onto the one `target` finds,
/// with the real pointer. `out_outcome_json` as for `ud_locator_click`.
///
/// # Safety
/// `locator` and `target` are NULL or live locators; `out_outcome_json` is
/// NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_drag_to(
    locator: *const ud_locator,
    target: *const ud_locator,
    out_outcome_json: *mut *mut c_char,
) -> ud_status {
    zero(out_outcome_json);
    match guard::args(|| Ok(locator_ref(target, "target")?.elements()?.clone())) {
        Ok(target) => action(locator, out_outcome_json, |l| l.drag_to(&target)),
        Err(status) => status,
    }
}

// ---- Reads ----

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
        *out_count = locator_ref(locator, "locator")?.run(Locator::count)?;
        Ok(())
    })
}

/// Reads a value and hands it out as JSON.
///
/// # Safety
/// `locator` is NULL or live; `out_json` is NULL or valid for a write.
unsafe fn json_read<T: Serialize>(
    locator: *const ud_locator,
    out_json: *mut *mut c_char,
    read: impl FnOnce(&Locator) -> Result<T>,
) -> ud_status {
    zero(out_json);
    guard::status(|| {
        let out_json = out(out_json, "out_json")?;
        let value = locator_ref(locator, "locator")?.run(read)?;
        let json = serde_json::to_value(&value)
            .map_err(|e| Error::failed(format!("could not write the answer as JSON: {e}")))?;
        *out_json = owned_json(&json);
        Ok(())
    })
}

/// Reads a yes-or-no.
///
/// # Safety
/// `locator` is NULL or live; `out_value` is NULL or valid for a write.
unsafe fn flag_read(
    locator: *const ud_locator,
    out_value: *mut bool,
    what: &str,
    read: impl FnOnce(&Locator) -> Result<bool>,
) -> ud_status {
    zero(out_value);
    guard::status(|| {
        let out_value = out(out_value, what)?;
        *out_value = locator_ref(locator, "locator")?.run(read)?;
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
        let text = locator_ref(locator, "locator")?.run(Locator::text)?;
        *out_text = owned_text(&text);
        Ok(())
    })
}

/// The value of the one element the locator finds (a field's text, a
/// slider's number), once it is there; `*out_has_value` says whether it has
/// one (else `*out_text` is NULL).
///
/// `*out_text` is owned by the caller: free it with `ud_string_free`.
///
/// # Safety
/// `locator` is NULL or a live locator; the out-params are NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_value(
    locator: *const ud_locator,
    out_has_value: *mut bool,
    out_text: *mut *mut c_char,
) -> ud_status {
    zero(out_has_value);
    zero(out_text);
    guard::status(|| {
        let out_has = out(out_has_value, "out_has_value")?;
        let out_text = out(out_text, "out_text")?;
        if let Some(value) = locator_ref(locator, "locator")?.run(Locator::value)? {
            *out_has = true;
            *out_text = owned_text(&value);
        }
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
    json_read(locator, out_json, Locator::node)
}

/// The states of the one element the locator finds, as a JSON array of the
/// protocol's names: `["enabled","focusable","checked"]`.
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_states(
    locator: *const ud_locator,
    out_json: *mut *mut c_char,
) -> ud_status {
    json_read(locator, out_json, Locator::states)
}

/// The bounds of the one element the locator finds on screen, as JSON
/// `{"x","y","width","height"}`, or `null` when it has none.
///
/// `*out_json` is owned by the caller: free it with `ud_string_free`. NULL on failure.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_json` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_bounds(
    locator: *const ud_locator,
    out_json: *mut *mut c_char,
) -> ud_status {
    json_read(locator, out_json, Locator::bounds)
}

/// Whether the one element the locator finds shows now, in `*out_visible`
/// (false when none matches). Does not wait.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_visible` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_is_visible(
    locator: *const ud_locator,
    out_visible: *mut bool,
) -> ud_status {
    flag_read(locator, out_visible, "out_visible", Locator::is_visible)
}

/// Whether no element the locator finds shows now, in `*out_hidden`. Does not wait.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_hidden` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_is_hidden(
    locator: *const ud_locator,
    out_hidden: *mut bool,
) -> ud_status {
    flag_read(locator, out_hidden, "out_hidden", Locator::is_hidden)
}

/// Whether the one element the locator finds is enabled, once it is there.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_enabled` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_is_enabled(
    locator: *const ud_locator,
    out_enabled: *mut bool,
) -> ud_status {
    flag_read(locator, out_enabled, "out_enabled", Locator::is_enabled)
}

/// Whether the one element the locator finds is checked, once it is there.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_checked` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_is_checked(
    locator: *const ud_locator,
    out_checked: *mut bool,
) -> ud_status {
    flag_read(locator, out_checked, "out_checked", Locator::is_checked)
}

/// Whether the one element the locator finds has the keyboard focus, once it is there.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_focused` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_is_focused(
    locator: *const ud_locator,
    out_focused: *mut bool,
) -> ud_status {
    flag_read(locator, out_focused, "out_focused", Locator::is_focused)
}

/// Whether the one element the locator finds reads expanded (a GTK 4 tree
/// row: the expander inside it does), once it is there.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_expanded` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_is_expanded(
    locator: *const ud_locator,
    out_expanded: *mut bool,
) -> ud_status {
    flag_read(locator, out_expanded, "out_expanded", Locator::is_expanded)
}

/// Whether the one element the locator finds takes text and is not
/// read-only, once it is there.
///
/// # Safety
/// `locator` is NULL or a live locator; `out_editable` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ud_locator_is_editable(
    locator: *const ud_locator,
    out_editable: *mut bool,
) -> ud_status {
    flag_read(locator, out_editable, "out_editable", Locator::is_editable)
}

// ---- Expectations ----

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
        locator_ref(locator, "locator")?.run(|locator| {
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

/// Waits until the one element has the state named `state` (as the
/// protocol names states: `"checked"`, `"expanded"`, `"selected"`, ...; a
/// name that is no state fails at once with `UD_ERR_INVALID_REQUEST`), or,
/// with `negate`, until it has not. Timeout and failure as for `ud_expect_state`.
///
/// # Safety
/// `locator` is NULL or a live locator; `state` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn ud_expect_has_state(
    locator: *const ud_locator,
    state: *const c_char,
    negate: bool,
    timeout_ms: i64,
) -> ud_status {
    match guard::args(|| names::state(text(state, "state")?)) {
        Ok(state) => assertion(locator, timeout_ms, negate, |e| e.to_have_state(state)),
        Err(status) => status,
    }
}

/// Waits until the one element shows text matching `text` under `matching` (a
/// `UD_MATCH_*` value: `UD_MATCH_EXACT` is Playwright's `toHaveText` with a
/// string, the whole text; `UD_MATCH_SUBSTRING` a part, ignoring case;
/// `UD_MATCH_REGEX` a pattern searched), or, with `negate`, until it does
/// not. Timeout and failure as for `ud_expect_state`.
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
    match guard::args(|| expected_text(self::text(text, "text")?, matching)) {
        Ok(wanted) => assertion(locator, timeout_ms, negate, |e| e.to_have_text(wanted)),
        Err(status) => status,
    }
}

/// Waits until the one element's text holds `text` as a part,
/// case-sensitively (Playwright's `toContainText`), or, with `negate`,
/// until it does not. Timeout and failure as for `ud_expect_state`.
///
/// # Safety
/// `locator` is NULL or a live locator; `text` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn ud_expect_contains_text(
    locator: *const ud_locator,
    text: *const c_char,
    negate: bool,
    timeout_ms: i64,
) -> ud_status {
    match guard::args(|| Ok(ExpectedText::text(self::text(text, "text")?))) {
        Ok(wanted) => assertion(locator, timeout_ms, negate, |e| e.to_contain_text(wanted)),
        Err(status) => status,
    }
}

/// Waits until the one element's value matches `value` under `matching`
/// (as for `ud_expect_text`: `UD_MATCH_EXACT` the whole value), or, with
/// `negate`, until it does not. Timeout and failure as for `ud_expect_state`.
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
    match guard::args(|| expected_text(text(value, "value")?, matching)) {
        Ok(wanted) => assertion(locator, timeout_ms, negate, |e| e.to_have_value(wanted)),
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
