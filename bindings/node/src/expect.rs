//! `expect(locator)`: assertions retried on fresh reads until they hold or time out.

use crate::convert::millis;
use crate::locator::Locator;
use crate::matching::{self, JsText};
use crate::task::{self, Job};
use napi::bindgen_prelude::AsyncTask;
use napi::Env;
use napi_derive::napi;
use uidrive_core::{Expect as CoreExpect, ExpectedText, Result as CoreResult};

/// Per-assertion options.
#[napi(object)]
pub struct ExpectOptions {
    /// Milliseconds to keep trying, over the App's expect timeout (5 s by default).
    pub timeout: Option<f64>,
}

/// `toHaveText`, `toContainText` and `toHaveValue`'s options.
#[napi(object)]
pub struct ExpectTextOptions {
    /// Ignore case (Playwright's `ignoreCase`).
    pub ignore_case: Option<bool>,
    /// Kept for tests written before a string meant the whole text: `true`
    /// is what a string means; `false` is refused, naming `toContainText`.
    pub exact: Option<bool>,
    pub timeout: Option<f64>,
}

/// Assertions on a locator. Made by `expect(locator)`.
#[napi]
pub struct Expect {
    inner: CoreExpect,
}

/// Assertions on `locator`; `options.timeout` applies to each of them.
#[napi]
pub fn expect(env: Env, locator: &Locator, options: Option<ExpectOptions>) -> napi::Result<Expect> {
    let inner = uidrive_core::expect(&locator.inner);
    let inner = match options.and_then(|o| o.timeout) {
        Some(ms) => inner.with_timeout(crate::error::sync(&env, millis("expect: timeout", ms))?),
        None => inner,
    };
    Ok(Expect { inner })
}

impl Expect {
    /// An assertion on a text: the wanted text is read (and a bad option
    /// thrown) at once, the assertion runs off the event loop.
    fn text_check(
        &self,
        env: &Env,
        what: &'static str,
        text: JsText<'_>,
        options: Option<ExpectTextOptions>,
        assertion: fn(&CoreExpect, ExpectedText) -> CoreResult<()>,
    ) -> napi::Result<AsyncTask<Job>> {
        let (exact, ignore_case, timeout) = text_options(options);
        // `exact` speaks of a whole text; to a part it means nothing.
        let exact = exact.filter(|_| what != "toContainText");
        let wanted = matching::expected_text(what, text, exact, ignore_case);
        let wanted = crate::error::sync(env, wanted)?;
        Ok(self.check(what, timeout, move |e| assertion(e, wanted)))
    }

    fn check(
        &self,
        what: &'static str,
        timeout: Option<f64>,
        assertion: impl FnOnce(&CoreExpect) -> CoreResult<()> + Send + 'static,
    ) -> AsyncTask<Job> {
        let expect = self.inner.clone();
        task::unit(move || {
            let expect = match timeout {
                Some(ms) => expect.with_timeout(millis(&format!("{what}: timeout"), ms)?),
                None => expect,
            };
            assertion(&expect)
        })
    }
}

#[napi]
impl Expect {
    /// The opposite assertions: `expect(l).not.toBeChecked()`.
    #[napi(getter, js_name = "not")]
    pub fn negated(&self) -> Expect {
        Expect {
            inner: self.inner.clone().not(),
        }
    }

    #[napi(ts_return_type = "Promise<void>")]
    pub fn to_be_visible(&self, options: Option<ExpectOptions>) -> AsyncTask<Job> {
        self.check("toBeVisible", timeout_of(options), |e| e.to_be_visible())
    }

    #[napi(ts_return_type = "Promise<void>")]
    pub fn to_be_hidden(&self, options: Option<ExpectOptions>) -> AsyncTask<Job> {
        self.check("toBeHidden", timeout_of(options), |e| e.to_be_hidden())
    }

    #[napi(ts_return_type = "Promise<void>")]
    pub fn to_be_enabled(&self, options: Option<ExpectOptions>) -> AsyncTask<Job> {
        self.check("toBeEnabled", timeout_of(options), |e| e.to_be_enabled())
    }

    #[napi(ts_return_type = "Promise<void>")]
    pub fn to_be_disabled(&self, options: Option<ExpectOptions>) -> AsyncTask<Job> {
        self.check("toBeDisabled", timeout_of(options), |e| e.to_be_disabled())
    }

    #[napi(ts_return_type = "Promise<void>")]
    pub fn to_be_checked(&self, options: Option<ExpectOptions>) -> AsyncTask<Job> {
        self.check("toBeChecked", timeout_of(options), |e| e.to_be_checked())
    }

    #[napi(ts_return_type = "Promise<void>")]
    pub fn to_be_focused(&self, options: Option<ExpectOptions>) -> AsyncTask<Job> {
        self.check("toBeFocused", timeout_of(options), |e| e.to_be_focused())
    }

    #[napi(ts_return_type = "Promise<void>")]
    pub fn to_be_editable(&self, options: Option<ExpectOptions>) -> AsyncTask<Job> {
        self.check("toBeEditable", timeout_of(options), |e| e.to_be_editable())
    }

    /// The element's text (label, else value) is `text`: a string equals the
    /// whole text (whitespace folded, case-sensitive unless `ignoreCase`), as
    /// in Playwright; a RegExp is searched. For a part, `toContainText`.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn to_have_text(
        &self,
        env: Env,
        text: JsText<'_>,
        options: Option<ExpectTextOptions>,
    ) -> napi::Result<AsyncTask<Job>> {
        self.text_check(&env, "toHaveText", text, options, |e, t| e.to_have_text(t))
    }

    /// The element's text holds `text` as a part (a RegExp is searched),
    /// case-sensitive unless `ignoreCase`.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn to_contain_text(
        &self,
        env: Env,
        text: JsText<'_>,
        options: Option<ExpectTextOptions>,
    ) -> napi::Result<AsyncTask<Job>> {
        self.text_check(&env, "toContainText", text, options, |e, t| {
            e.to_contain_text(t)
        })
    }

    /// The element's value is `value`, compared as `toHaveText` compares: the whole of it.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn to_have_value(
        &self,
        env: Env,
        value: JsText<'_>,
        options: Option<ExpectTextOptions>,
    ) -> napi::Result<AsyncTask<Job>> {
        self.text_check(&env, "toHaveValue", value, options, |e, t| {
            e.to_have_value(t)
        })
    }

    /// The element has a protocol state, as `checked` or `expanded`.
    /// An unknown state name throws at once.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn to_have_state(
        &self,
        env: Env,
        state: String,
        options: Option<ExpectOptions>,
    ) -> napi::Result<AsyncTask<Job>> {
        let state = crate::error::sync(&env, matching::state(&state))?;
        Ok(self.check("toHaveState", timeout_of(options), move |e| {
            e.to_have_state(state)
        }))
    }

    /// Exactly `count` elements match.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn to_have_count(&self, count: u32, options: Option<ExpectOptions>) -> AsyncTask<Job> {
        self.check("toHaveCount", timeout_of(options), move |e| {
            e.to_have_count(count as usize)
        })
    }
}

fn text_options(options: Option<ExpectTextOptions>) -> (Option<bool>, Option<bool>, Option<f64>) {
    options.map_or((None, None, None), |o| (o.exact, o.ignore_case, o.timeout))
}

fn timeout_of(options: Option<ExpectOptions>) -> Option<f64> {
    options.and_then(|o| o.timeout)
}
