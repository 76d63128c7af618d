//! `Locator`: a lazy description of elements; every action and query is a Promise.

use crate::convert::millis;
use crate::finders::{self, Root, TextKind};
use crate::matching::{self, JsText, RoleOptions, TextOptions};
use crate::task::{self, Job, Out};
use napi::bindgen_prelude::{AsyncTask, ClassInstance, Either, Object};
use napi::Env;
use napi_derive::napi;
use serde_json::Value;
use std::sync::Arc;
use uidrive_core::defaults;
use uidrive_core::locator::ActionOutcome;
use uidrive_core::protocol::{click_count, MouseButton};
use uidrive_core::{
    App as CoreApp, Filter, Locator as CoreLocator, Result as CoreResult, ScrollDirection,
};
use uidrive_facade::explain::name_windows;

/// Per-call options of actions and reads.
#[napi(object)]
pub struct ActionOptions {
    /// Milliseconds to wait for the element to be there and ready, over the App's default.
    pub timeout: Option<f64>,
}

/// `click`'s options.
#[napi(object)]
pub struct ClickOptions {
    /// `'left'` (the default), `'right'` or `'middle'`.
    pub button: Option<String>,
    /// Presses in a row, 1 (the default) to 3: 2 is a double click.
    pub click_count: Option<f64>,
    /// Milliseconds to wait for the element, over the App's default.
    pub timeout: Option<f64>,
}

/// `click`'s button and count, checked by core before anything is looked
/// for, in JavaScript's words when they are refused.
fn click_options(button: Option<&str>, count: Option<f64>) -> CoreResult<(MouseButton, u32)> {
    let button = match button {
        None => MouseButton::default(),
        Some(name) => name.parse::<MouseButton>().map_err(|_| {
            crate::error::invalid_argument(
                &format!("click({{ button: {name:?} }})"),
                "the button is 'left', 'right' or 'middle'",
            )
        })?,
    };
    let clicks = match count {
        None => defaults::CLICKS,
        Some(count) => click_count(count).map_err(|why| {
            crate::error::invalid_argument(&format!("click({{ clickCount: {count} }})"), why)
        })?,
    };
    Ok((button, clicks))
}

/// `scroll`'s options.
#[napi(object)]
pub struct ScrollOptions {
    /// Wheel clicks, 1 (the default) to 1000.
    pub notches: Option<f64>,
    /// Milliseconds to wait for the element, over the App's default.
    pub timeout: Option<f64>,
}

/// `increment`'s and `decrement`'s options.
#[napi(object)]
pub struct StepOptions {
    /// Steps, 1 (the default) to 1000.
    pub steps: Option<f64>,
    /// Milliseconds to wait for the element, over the App's default.
    pub timeout: Option<f64>,
}

/// A count or place from a JS number; one that is not a whole number a
/// `u32` holds is refused (the call's own range is core's to check).
fn whole(call: &str, name: &str, value: f64) -> CoreResult<u32> {
    // `as` saturates; the round trip says whether `value` was a whole number in range.
    let whole = value as u32;
    if f64::from(whole) != value {
        return Err(crate::error::invalid_argument(
            &format!("{call}({{ {name}: {value} }})"),
            "it must be a whole number, 0 or more",
        ));
    }
    Ok(whole)
}

/// `pressSequentially`'s options.
#[napi(object)]
pub struct PressSequentiallyOptions {
    /// Milliseconds between keys.
    pub delay: Option<f64>,
    /// Milliseconds to wait for the element, over the App's default.
    pub timeout: Option<f64>,
}

#[napi]
pub struct Locator {
    pub(crate) inner: CoreLocator,
    /// The app it searches, for errors that name the app's windows.
    app: Arc<CoreApp>,
}

impl Locator {
    pub fn new(inner: CoreLocator, app: Arc<CoreApp>) -> Locator {
        Locator { inner, app }
    }

    fn derive(&self, inner: CoreLocator) -> Locator {
        Locator::new(inner, self.app.clone())
    }

    /// A copy of the core locator for a job, with the call's own timeout applied there.
    fn for_call(&self, what: &'static str, options: Option<ActionOptions>) -> Call {
        Call {
            locator: self.inner.clone(),
            what,
            timeout: options.and_then(|o| o.timeout),
        }
    }

    fn action(
        &self,
        what: &'static str,
        options: Option<ActionOptions>,
        act: impl FnOnce(&CoreLocator) -> CoreResult<ActionOutcome> + Send + 'static,
    ) -> AsyncTask<Job> {
        let call = self.for_call(what, options);
        let app = self.app.clone();
        task::run(move || {
            let outcome = act(&call.locator()?).map_err(|e| name_windows(e, &app))?;
            Ok(Out::Json(outcome_json(&outcome)?))
        })
    }

    fn query<T: serde::Serialize>(
        &self,
        what: &'static str,
        options: Option<ActionOptions>,
        read: impl FnOnce(&CoreLocator) -> CoreResult<T> + Send + 'static,
    ) -> AsyncTask<Job> {
        let call = self.for_call(what, options);
        let app = self.app.clone();
        task::json(move || read(&call.locator()?).map_err(|e| name_windows(e, &app)))
    }
}

struct Call {
    locator: CoreLocator,
    what: &'static str,
    timeout: Option<f64>,
}

impl Call {
    fn locator(self) -> CoreResult<CoreLocator> {
        match self.timeout {
            Some(ms) => Ok(self
                .locator
                .with_timeout(millis(&format!("{}: timeout", self.what), ms)?)),
            None => Ok(self.locator),
        }
    }
}

/// What an action did, in the facade's one shape: `{route, window, element}`;
/// `route` is `semantic:<action>`, `input` or `not_needed`.
fn outcome_json(outcome: &ActionOutcome) -> CoreResult<Value> {
    uidrive_facade::outcome::to_json(outcome)
}

/// `filter`'s options.
fn filter_of(options: &Object<'_>) -> napi::Result<CoreResult<Filter>> {
    let text = |name: &str| -> napi::Result<CoreResult<Option<uidrive_core::TextMatch>>> {
        Ok(match options.get::<JsText<'_>>(name)? {
            Some(text) => matching::text_match(&format!("filter: {name}"), text, None).map(Some),
            None => Ok(None),
        })
    };
    let has_text = text("hasText")?;
    let has_not_text = text("hasNotText")?;
    let has = options
        .get::<ClassInstance<Locator>>("has")?
        .map(|l| l.inner.clone());
    let has_not = options
        .get::<ClassInstance<Locator>>("hasNot")?
        .map(|l| l.inner.clone());
    Ok((|| {
        Ok(Filter {
            has_text: has_text?,
            has_not_text: has_not_text?,
            has,
            has_not,
        })
    })())
}

#[napi]
impl Locator {
    // Finding inside this locator's elements.

    #[napi]
    pub fn get_by_role(
        &self,
        env: Env,
        role: String,
        options: Option<RoleOptions<'_>>,
    ) -> napi::Result<Locator> {
        finders::by_role(&env, Root::Within(&self.inner, &self.app), role, options)
    }

    #[napi(ts_args_type = "key: string | number | boolean")]
    pub fn get_by_key(&self, env: Env, key: Value) -> napi::Result<Locator> {
        finders::by_key(&env, Root::Within(&self.inner, &self.app), key)
    }

    #[napi]
    pub fn get_by_text(
        &self,
        env: Env,
        text: JsText<'_>,
        options: Option<TextOptions>,
    ) -> napi::Result<Locator> {
        finders::by_text(
            &env,
            Root::Within(&self.inner, &self.app),
            TextKind::Text,
            text,
            options,
        )
    }

    #[napi]
    pub fn get_by_label(
        &self,
        env: Env,
        text: JsText<'_>,
        options: Option<TextOptions>,
    ) -> napi::Result<Locator> {
        finders::by_text(
            &env,
            Root::Within(&self.inner, &self.app),
            TextKind::Label,
            text,
            options,
        )
    }

    #[napi]
    pub fn get_by_placeholder(
        &self,
        env: Env,
        text: JsText<'_>,
        options: Option<TextOptions>,
    ) -> napi::Result<Locator> {
        finders::by_text(
            &env,
            Root::Within(&self.inner, &self.app),
            TextKind::Placeholder,
            text,
            options,
        )
    }

    #[napi]
    pub fn get_by_id(&self, env: Env, id: String) -> napi::Result<Locator> {
        finders::by_id(&env, Root::Within(&self.inner, &self.app), id)
    }

    /// Elements a selector string, or another Locator, finds inside this one's elements.
    #[napi]
    pub fn locator(&self, selector: Either<String, &Locator>) -> Locator {
        match selector {
            Either::A(selector) => {
                finders::by_selector(Root::Within(&self.inner, &self.app), &selector)
            }
            Either::B(inner) => self.derive(self.inner.find(&inner.inner)),
        }
    }

    // Refining.

    #[napi]
    pub fn nth(&self, index: u32) -> Locator {
        self.derive(self.inner.nth(index as usize))
    }

    /// The cell at `row` and `column` (both from 1, as a cell's `rowIndex`
    /// and `colIndex`) of the tables this locator finds; a table too big to
    /// read whole is asked for that one cell. 0 fails at the locator's first
    /// use (`invalid_request`); a number that is no row or column at all
    /// (negative, fractional, past 2^32 - 1) throws here.
    #[napi]
    pub fn cell(&self, env: Env, row: f64, column: f64) -> napi::Result<Locator> {
        let place = |n: f64| {
            // `as` saturates; the round trip says whether `n` was a u32.
            let whole = n as u32;
            (f64::from(whole) == n).then_some(whole).ok_or_else(|| {
                crate::error::invalid_argument(
                    &format!("cell({row}, {column})"),
                    format!(
                        "rows and columns are whole numbers counted from 1 (up to {}); give the first cell as cell(1, 1)",
                        u32::MAX
                    ),
                )
            })
        };
        let row_at = crate::error::sync(&env, place(row))?;
        let column_at = crate::error::sync(&env, place(column))?;
        Ok(self.derive(self.inner.cell(row_at, column_at)))
    }

    #[napi]
    pub fn first(&self) -> Locator {
        self.derive(self.inner.first())
    }

    #[napi]
    pub fn last(&self) -> Locator {
        self.derive(self.inner.last())
    }

    #[napi(
        ts_args_type = "options: { hasText?: string | RegExp; hasNotText?: string | RegExp; has?: Locator; hasNot?: Locator }"
    )]
    pub fn filter(&self, env: Env, options: Object<'_>) -> napi::Result<Locator> {
        let filter = crate::error::sync(&env, filter_of(&options)?)?;
        Ok(self.derive(self.inner.filter(filter)))
    }

    /// Whether hidden elements match too (they are left out by default).
    #[napi]
    pub fn include_hidden(&self, include: Option<bool>) -> Locator {
        self.derive(self.inner.include_hidden(include.unwrap_or(true)))
    }

    /// This locator with its own default wait for actions and reads, in milliseconds.
    #[napi]
    pub fn with_timeout(&self, env: Env, timeout: f64) -> napi::Result<Locator> {
        let timeout = crate::error::sync(&env, millis("withTimeout", timeout))?;
        Ok(self.derive(self.inner.with_timeout(timeout)))
    }

    /// What the locator says, as error messages show it.
    #[napi(getter)]
    pub fn description(&self) -> String {
        self.inner.description()
    }

    #[napi(js_name = "toString")]
    pub fn to_js_string(&self) -> String {
        self.inner.description()
    }

    // Actions: each waits for one ready element, then acts.

    /// A real click where the app's hit test says it lands on the element,
    /// else its own press action (the outcome's `route` says which). Another
    /// `button`, or a `clickCount` of 2 or 3: always real clicks of that
    /// button in a row, never the element's own action (`'right'` opens a
    /// context menu). A button or count it cannot send rejects with
    /// `invalid_request` before anything is looked for.
    #[napi(ts_return_type = "Promise<ActionOutcome>")]
    pub fn click(&self, options: Option<ClickOptions>) -> AsyncTask<Job> {
        let (button, count, timeout) =
            options.map_or((None, None, None), |o| (o.button, o.click_count, o.timeout));
        self.action("click", Some(ActionOptions { timeout }), move |l| {
            let (button, clicks) = click_options(button.as_deref(), count)?;
            l.click_with(button, clicks)
        })
    }

    /// Presses it as assistive technology does: its own press action, else a click.
    #[napi(ts_return_type = "Promise<ActionOutcome>")]
    pub fn activate(&self, options: Option<ActionOptions>) -> AsyncTask<Job> {
        self.action("activate", options, |l| l.activate())
    }

    /// Types `text` as real keys one at a time, `delay` ms apart, then reads it back.
    #[napi(ts_return_type = "Promise<ActionOutcome>")]
    pub fn press_sequentially(
        &self,
        text: String,
        options: Option<PressSequentiallyOptions>,
    ) -> AsyncTask<Job> {
        let (delay, timeout) = options.map_or((None, None), |o| (o.delay, o.timeout));
        self.action(
            "pressSequentially",
            Some(ActionOptions { timeout }),
            move |l| {
                let delay = crate::convert::millis_opt("pressSequentially: delay", delay)?;
                l.press_sequentially(&text, delay)
            },
        )
    }

    #[napi(ts_return_type = "Promise<ActionOutcome>")]
    pub fn dblclick(&self, options: Option<ActionOptions>) -> AsyncTask<Job> {
        self.action("dblclick", options, |l| l.dblclick())
    }

    /// Replaces the element's text.
    #[napi(ts_return_type = "Promise<ActionOutcome>")]
    pub fn fill(&self, text: String, options: Option<ActionOptions>) -> AsyncTask<Job> {
        self.action("fill", options, move |l| l.fill(&text))
    }

    /// Inserts text at the caret.
    #[napi(js_name = "type", ts_return_type = "Promise<ActionOutcome>")]
    pub fn type_text(&self, text: String, options: Option<ActionOptions>) -> AsyncTask<Job> {
        self.action("type", options, move |l| l.type_text(&text))
    }

    /// Presses a key chord, as `Enter` or `Ctrl+A`, with the element focused.
    #[napi(ts_return_type = "Promise<ActionOutcome>")]
    pub fn press(&self, key: String, options: Option<ActionOptions>) -> AsyncTask<Job> {
        self.action("press", options, move |l| l.press(&key))
    }

    #[napi(ts_return_type = "Promise<ActionOutcome>")]
    pub fn check(&self, options: Option<ActionOptions>) -> AsyncTask<Job> {
        self.action("check", options, |l| l.check())
    }

    #[napi(ts_return_type = "Promise<ActionOutcome>")]
    pub fn uncheck(&self, options: Option<ActionOptions>) -> AsyncTask<Job> {
        self.action("uncheck", options, |l| l.uncheck())
    }

    #[napi(ts_return_type = "Promise<ActionOutcome>")]
    pub fn set_checked(&self, checked: bool, options: Option<ActionOptions>) -> AsyncTask<Job> {
        self.action("setChecked", options, move |l| l.set_checked(checked))
    }

    /// Chooses the option whose text matches, in a combo box or a list.
    #[napi(ts_return_type = "Promise<ActionOutcome>")]
    pub fn select_option(
        &self,
        env: Env,
        option: JsText<'_>,
        options: Option<ActionOptions>,
    ) -> napi::Result<AsyncTask<Job>> {
        let option = crate::error::sync(&env, matching::text_match("selectOption", option, None))?;
        Ok(self.action("selectOption", options, move |l| l.select_option(option)))
    }

    #[napi(ts_return_type = "Promise<ActionOutcome>")]
    pub fn hover(&self, options: Option<ActionOptions>) -> AsyncTask<Job> {
        self.action("hover", options, |l| l.hover())
    }

    #[napi(ts_return_type = "Promise<ActionOutcome>")]
    pub fn focus(&self, options: Option<ActionOptions>) -> AsyncTask<Job> {
        self.action("focus", options, |l| l.focus())
    }

    #[napi(ts_return_type = "Promise<ActionOutcome>")]
    pub fn scroll_into_view(&self, options: Option<ActionOptions>) -> AsyncTask<Job> {
        self.action("scrollIntoView", options, |l| l.scroll_into_view())
    }

    /// Sets a slider's or a spinner's number.
    #[napi(ts_return_type = "Promise<ActionOutcome>")]
    pub fn set_value(&self, value: f64, options: Option<ActionOptions>) -> AsyncTask<Job> {
        self.action("setValue", options, move |l| l.set_value(value))
    }

    /// Turns the real mouse wheel `notches` clicks (default 1) over its
    /// centre, towards `direction`: `'up'`, `'down'`, `'left'` or `'right'`.
    #[napi(ts_return_type = "Promise<ActionOutcome>")]
    pub fn scroll(&self, direction: String, options: Option<ScrollOptions>) -> AsyncTask<Job> {
        let (notches, timeout) = options.map_or((None, None), |o| (o.notches, o.timeout));
        self.action("scroll", Some(ActionOptions { timeout }), move |l| {
            let direction = direction.parse::<ScrollDirection>()?;
            l.scroll(
                direction,
                whole(
                    "scroll",
                    "notches",
                    notches.unwrap_or(f64::from(defaults::NOTCHES)),
                )?,
            )
        })
    }

    /// Expands a tree row, an expander or a combo box; waits until it reads `expanded`.
    #[napi(ts_return_type = "Promise<ActionOutcome>")]
    pub fn expand(&self, options: Option<ActionOptions>) -> AsyncTask<Job> {
        self.action("expand", options, |l| l.expand())
    }

    /// Collapses what `expand` expands; waits until it no longer reads `expanded`.
    #[napi(ts_return_type = "Promise<ActionOutcome>")]
    pub fn collapse(&self, options: Option<ActionOptions>) -> AsyncTask<Job> {
        self.action("collapse", options, |l| l.collapse())
    }

    /// Steps a slider or spin button up `steps` times (default 1); waits until its number grew.
    #[napi(ts_return_type = "Promise<ActionOutcome>")]
    pub fn increment(&self, options: Option<StepOptions>) -> AsyncTask<Job> {
        let (steps, timeout) = options.map_or((None, None), |o| (o.steps, o.timeout));
        self.action("increment", Some(ActionOptions { timeout }), move |l| {
            l.increment(whole(
                "increment",
                "steps",
                steps.unwrap_or(f64::from(defaults::STEPS)),
            )?)
        })
    }

    /// Steps a slider or spin button down `steps` times (default 1); waits until its number fell.
    #[napi(ts_return_type = "Promise<ActionOutcome>")]
    pub fn decrement(&self, options: Option<StepOptions>) -> AsyncTask<Job> {
        let (steps, timeout) = options.map_or((None, None), |o| (o.steps, o.timeout));
        self.action("decrement", Some(ActionOptions { timeout }), move |l| {
            l.decrement(whole(
                "decrement",
                "steps",
                steps.unwrap_or(f64::from(defaults::STEPS)),
            )?)
        })
    }

    /// Selects the characters `from` to `to` (`to` excluded, counted from 0)
    /// of its text; waits until its selection reads so.
    #[napi(ts_return_type = "Promise<ActionOutcome>")]
    pub fn select_text(
        &self,
        from: f64,
        to: f64,
        options: Option<ActionOptions>,
    ) -> AsyncTask<Job> {
        self.action("selectText", options, move |l| {
            l.select_text(
                whole("selectText", "from", from)?,
                whole("selectText", "to", to)?,
            )
        })
    }

    #[napi(ts_return_type = "Promise<ActionOutcome>")]
    pub fn drag_to(&self, target: &Locator, options: Option<ActionOptions>) -> AsyncTask<Job> {
        let target = target.inner.clone();
        self.action("dragTo", options, move |l| l.drag_to(&target))
    }

    // Queries.

    /// How many elements match now (not strict, no wait).
    #[napi(ts_return_type = "Promise<number>")]
    pub fn count(&self) -> AsyncTask<Job> {
        self.query("count", None, |l| l.count())
    }

    /// A Locator for each element that matches now.
    #[napi(ts_return_type = "Promise<Locator[]>")]
    pub fn all(&self) -> AsyncTask<Job> {
        let locator = self.inner.clone();
        let app = self.app.clone();
        task::run(move || {
            let all = locator.all()?;
            Ok(Out::Locators(
                all.into_iter()
                    .map(|l| Locator::new(l, app.clone()))
                    .collect(),
            ))
        })
    }

    /// Every protocol field of the one matching element.
    #[napi(ts_return_type = "Promise<Node>")]
    pub fn node(&self, options: Option<ActionOptions>) -> AsyncTask<Job> {
        self.query("node", options, |l| l.node())
    }

    /// What a person reads on it: its label, else its value.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn text(&self, options: Option<ActionOptions>) -> AsyncTask<Job> {
        self.query("text", options, |l| l.text())
    }

    #[napi(ts_return_type = "Promise<string | null>")]
    pub fn value(&self, options: Option<ActionOptions>) -> AsyncTask<Job> {
        self.query("value", options, |l| l.value())
    }

    #[napi(ts_return_type = "Promise<string[]>")]
    pub fn states(&self, options: Option<ActionOptions>) -> AsyncTask<Job> {
        self.query("states", options, |l| l.states())
    }

    #[napi(ts_return_type = "Promise<Bounds | null>")]
    pub fn bounds(&self, options: Option<ActionOptions>) -> AsyncTask<Job> {
        self.query("bounds", options, |l| l.bounds())
    }

    /// Whether the one element shows: now, or with `timeout` (ms), as soon as
    /// it does (`false` once the timeout has passed).
    #[napi(ts_return_type = "Promise<boolean>")]
    pub fn is_visible(&self, options: Option<ActionOptions>) -> AsyncTask<Job> {
        let locator = self.inner.clone();
        let timeout = options.and_then(|o| o.timeout);
        task::json(move || {
            let within = crate::convert::millis_opt("isVisible: timeout", timeout)?;
            uidrive_facade::reads::is_visible(&locator, within)
        })
    }

    /// Whether no element shows: now, or with `timeout` (ms), as soon as none
    /// does (`false` once the timeout has passed).
    #[napi(ts_return_type = "Promise<boolean>")]
    pub fn is_hidden(&self, options: Option<ActionOptions>) -> AsyncTask<Job> {
        let locator = self.inner.clone();
        let timeout = options.and_then(|o| o.timeout);
        task::json(move || {
            let within = crate::convert::millis_opt("isHidden: timeout", timeout)?;
            uidrive_facade::reads::is_hidden(&locator, within)
        })
    }

    #[napi(ts_return_type = "Promise<boolean>")]
    pub fn is_enabled(&self, options: Option<ActionOptions>) -> AsyncTask<Job> {
        self.query("isEnabled", options, |l| l.is_enabled())
    }

    #[napi(ts_return_type = "Promise<boolean>")]
    pub fn is_checked(&self, options: Option<ActionOptions>) -> AsyncTask<Job> {
        self.query("isChecked", options, |l| l.is_checked())
    }

    #[napi(ts_return_type = "Promise<boolean>")]
    pub fn is_focused(&self, options: Option<ActionOptions>) -> AsyncTask<Job> {
        self.query("isFocused", options, |l| l.is_focused())
    }

    #[napi(ts_return_type = "Promise<boolean>")]
    pub fn is_expanded(&self, options: Option<ActionOptions>) -> AsyncTask<Job> {
        self.query("isExpanded", options, |l| l.is_expanded())
    }

    #[napi(ts_return_type = "Promise<boolean>")]
    pub fn is_editable(&self, options: Option<ActionOptions>) -> AsyncTask<Job> {
        self.query("isEditable", options, |l| l.is_editable())
    }
}
