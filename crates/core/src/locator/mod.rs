//! Locators: elements named the way a user names them, found again in a fresh
//! tree at every use, waited for until they can take the action, and never
//! guessed at when more than one matches.
//!
//! - `matching`: text matching and the selectors, applied to one tree read.
//! - `selector_text`: the `role=button[name="Add"] >> nth=1` string form.
//! - `resolve`: reading the window and the wait between reads.
//! - `cells`: a big table's cells asked for by place, added to a read.
//! - `ladder`: the actionability checks run before every action.
//! - `actions`, `queries`: what a locator does and reads.
//! - `effect`: what an action came to, and the element it was made on, followed.
//! - `observe`: looking for an action's effect once it was made.

mod actions;
mod cells;
mod effect;
mod ladder;
mod manage;
mod matching;
mod observe;
pub(crate) mod picture;
mod queries;
mod resolve;
mod retarget;
mod selector_text;
mod visual;

pub use actions::{ScrollDirection, MOST_STEPS};
pub use effect::{ActionOutcome, Effect, Route};
pub use matching::{fold_whitespace, is_shown, RoleQuery, TextMatch};
pub use resolve::describe_node;
pub use retarget::Purpose;

pub(crate) use effect::{change, window_change};
pub(crate) use ladder::takes_text;
pub(crate) use queries::{is_editable, value_of};
pub(crate) use resolve::{ambiguous as ambiguous_error, human, worth_retrying, Poller, Read};
pub(crate) use selector_text::parse as parse_selector;

use crate::app::{App, Timeouts};
use crate::driver::Driver;
use crate::error::{Error, Result};
use crate::protocol::{Bounds, ElementId, ElementKey, Role, WindowId};
use matching::{describe_steps, Selector, Step};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// Which window a locator searches.
#[derive(Debug, Clone)]
pub(crate) enum WindowChoice {
    /// The focused window, else the first: the protocol's default.
    Default,
    Id(WindowId),
    /// The one window whose title matches, waited for like an element.
    Titled(TextMatch),
}

impl fmt::Display for WindowChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WindowChoice::Default => f.write_str("the focused window"),
            WindowChoice::Id(id) => write!(f, "window {id}"),
            WindowChoice::Titled(title) => write!(f, "the window titled {title}"),
        }
    }
}

/// Where locators start: one window of an app (or its focused window).
/// Made by [`App::window`], [`App::window_titled`] and [`App::focused_window`].
#[derive(Clone)]
pub struct WindowRef {
    driver: Arc<dyn Driver>,
    timeouts: Timeouts,
    window: WindowChoice,
}

impl WindowRef {
    /// A root over any driver, for front ends that hold a driver rather than an App.
    /// `window` of `None` is the focused window, else the first.
    pub fn new(driver: Arc<dyn Driver>, window: Option<WindowId>, timeouts: Timeouts) -> WindowRef {
        let window = window.map_or(WindowChoice::Default, WindowChoice::Id);
        WindowRef {
            driver,
            timeouts,
            window,
        }
    }

    fn start(&self, step: Step) -> Locator {
        self.start_with(vec![step])
    }

    fn start_with(&self, steps: Vec<Step>) -> Locator {
        Locator {
            driver: self.driver.clone(),
            timeouts: self.timeouts,
            window: self.window.clone(),
            steps,
            include_hidden: false,
            timeout: None,
            invalid: None,
        }
    }

    /// Elements of `role` whose accessible name matches, as `get_by_role(Role::Button, "Add")`;
    /// give [`RoleQuery::any()`] for any name, or a [`RoleQuery`] for states too.
    pub fn get_by_role(&self, role: Role, query: impl Into<RoleQuery>) -> Locator {
        self.start(Step::Find(Selector::Role(role, query.into())))
    }

    /// The element the app gave `key` (the protocol's `key`: the test id).
    pub fn get_by_key(&self, key: impl Into<ElementKey>) -> Locator {
        self.start(Step::Find(Selector::Key(key.into())))
    }

    /// Elements showing `text`: their label, else their value. Fields and
    /// containers (named by something beside them) are skipped, and of an
    /// element and one inside it that both match, the inner one is kept.
    pub fn get_by_text(&self, text: impl Into<TextMatch>) -> Locator {
        self.start(Step::Find(Selector::Text(text.into())))
    }

    /// Elements whose accessible name (label) matches; plain text elements are skipped,
    /// so the field a label names is found, not the label.
    pub fn get_by_label(&self, label: impl Into<TextMatch>) -> Locator {
        self.start(Step::Find(Selector::Label(label.into())))
    }

    /// Fields whose placeholder matches.
    pub fn get_by_placeholder(&self, text: impl Into<TextMatch>) -> Locator {
        self.start(Step::Find(Selector::Placeholder(text.into())))
    }

    /// The element with this id (ids last only while the view does: prefer keys).
    pub fn get_by_id(&self, id: ElementId) -> Locator {
        self.start(Step::Find(Selector::Id(id)))
    }

    /// Boxes where OCR reads `text` on the window's capture: a run of words
    /// on one line (exact, a part ignoring case, or a regex). For apps with
    /// no accessibility tree; see docs/locators.md.
    pub fn get_by_ocr(&self, text: impl Into<TextMatch>) -> Locator {
        self.start(Step::Find(Selector::Visual(
            crate::visual::VisualQuery::Ocr(text.into()),
        )))
    }

    /// Boxes where the picture in the PNG file `path` shows on the window's
    /// capture with a score of at least `threshold` (0 to 1; `None`: 0.9).
    pub fn get_by_image(
        &self,
        path: impl Into<std::path::PathBuf>,
        threshold: Option<f64>,
    ) -> Locator {
        match crate::visual::VisualQuery::image(path, threshold) {
            Ok(query) => self.start(Step::Find(Selector::Visual(query))),
            Err(e) => {
                let mut locator = self.start_with(Vec::new());
                locator.invalid = Some(e);
                locator
            }
        }
    }

    /// Waits until the window's pixels (in `region`, when given) change and
    /// then settle (two captures alike), up to `timeout`: the visual idle.
    /// Answers the area watched.
    pub fn wait_changed(&self, region: Option<Bounds>, timeout: Duration) -> Result<Bounds> {
        let window = match &self.window {
            WindowChoice::Default => None,
            WindowChoice::Id(id) => Some(*id),
            WindowChoice::Titled(_) => self.start_with(Vec::new()).window_param()?,
        };
        crate::visual::wait_changed(&*self.driver, window, region, timeout)
    }

    /// A locator from its string form, as `role=button[name="Add"] >> nth=0`
    /// (see docs/locators.md). A string that does not parse fails at first use
    /// with `invalid_request`.
    pub fn locator(&self, selector: &str) -> Locator {
        match selector_text::parse(selector) {
            Ok(steps) => self.start_with(steps),
            Err(e) => {
                let mut locator = self.start_with(Vec::new());
                locator.invalid = Some(e);
                locator
            }
        }
    }
}

impl fmt::Debug for WindowRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "WindowRef({})", self.window)
    }
}

/// Locator factories on an App search its focused window, else the first.
impl App {
    /// A root for one window by its id, as `windows` lists it.
    pub fn window(&self, id: WindowId) -> WindowRef {
        WindowRef {
            driver: self.driver().clone(),
            timeouts: self.timeouts(),
            window: WindowChoice::Id(id),
        }
    }

    /// A root for the one window whose title matches; it is looked up at every
    /// use and waited for, so a dialog that opens later is found.
    pub fn window_titled(&self, title: impl Into<TextMatch>) -> WindowRef {
        WindowRef {
            driver: self.driver().clone(),
            timeouts: self.timeouts(),
            window: WindowChoice::Titled(title.into()),
        }
    }

    /// A root for whichever window is focused (else the first) at each use.
    pub fn focused_window(&self) -> WindowRef {
        WindowRef::new(self.driver().clone(), None, self.timeouts())
    }

    /// Elements of `role` whose name matches, in the focused window (see [`WindowRef::get_by_role`]).
    pub fn get_by_role(&self, role: Role, query: impl Into<RoleQuery>) -> Locator {
        self.focused_window().get_by_role(role, query)
    }

    /// The element the app gave `key`, in the focused window (see [`WindowRef::get_by_key`]).
    pub fn get_by_key(&self, key: impl Into<ElementKey>) -> Locator {
        self.focused_window().get_by_key(key)
    }

    /// Elements showing `text`, in the focused window (see [`WindowRef::get_by_text`]).
    pub fn get_by_text(&self, text: impl Into<TextMatch>) -> Locator {
        self.focused_window().get_by_text(text)
    }

    /// Elements whose label matches, in the focused window (see [`WindowRef::get_by_label`]).
    pub fn get_by_label(&self, label: impl Into<TextMatch>) -> Locator {
        self.focused_window().get_by_label(label)
    }

    /// Fields whose placeholder matches, in the focused window.
    pub fn get_by_placeholder(&self, text: impl Into<TextMatch>) -> Locator {
        self.focused_window().get_by_placeholder(text)
    }

    /// The element with this id, in the focused window (prefer keys: ids last only while the view does).
    pub fn get_by_id(&self, id: ElementId) -> Locator {
        self.focused_window().get_by_id(id)
    }

    /// Boxes where OCR reads `text`, in the focused window (see [`WindowRef::get_by_ocr`]).
    pub fn get_by_ocr(&self, text: impl Into<TextMatch>) -> Locator {
        self.focused_window().get_by_ocr(text)
    }

    /// Boxes where a picture shows, in the focused window (see [`WindowRef::get_by_image`]).
    pub fn get_by_image(
        &self,
        path: impl Into<std::path::PathBuf>,
        threshold: Option<f64>,
    ) -> Locator {
        self.focused_window().get_by_image(path, threshold)
    }

    /// Waits for the focused window's pixels to change and settle (see [`WindowRef::wait_changed`]).
    pub fn wait_changed(&self, region: Option<Bounds>, timeout: Duration) -> Result<Bounds> {
        self.focused_window().wait_changed(region, timeout)
    }

    /// A locator from its string form, in the focused window (see [`WindowRef::locator`]).
    pub fn locator(&self, selector: &str) -> Locator {
        self.focused_window().locator(selector)
    }
}

/// What [`Locator::filter`] keeps: elements that show a text (in themselves or
/// inside), or that hold an element another locator finds.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Keep elements that show this text, themselves or inside.
    pub has_text: Option<TextMatch>,
    /// Keep elements that do not show this text, themselves or inside.
    pub has_not_text: Option<TextMatch>,
    /// Searched inside each element; its window is ignored.
    pub has: Option<Locator>,
    /// Keep elements that hold nothing this locator finds; its window is ignored.
    pub has_not: Option<Locator>,
}

impl Filter {
    /// A filter that keeps every element.
    pub fn new() -> Filter {
        Filter::default()
    }

    /// Also keep only elements showing `text`.
    pub fn has_text(mut self, text: impl Into<TextMatch>) -> Filter {
        self.has_text = Some(text.into());
        self
    }

    /// Also keep only elements not showing `text`.
    pub fn has_not_text(mut self, text: impl Into<TextMatch>) -> Filter {
        self.has_not_text = Some(text.into());
        self
    }

    /// Also keep only elements holding an element `inner` finds.
    pub fn has(mut self, inner: &Locator) -> Filter {
        self.has = Some(inner.clone());
        self
    }

    /// Also keep only elements holding nothing `inner` finds.
    pub fn has_not(mut self, inner: &Locator) -> Filter {
        self.has_not = Some(inner.clone());
        self
    }
}

/// A description of elements in a window: which window, then a chain of
/// steps. Cheap to clone; it holds no element, and every query or action
/// reads the window afresh.
///
/// Actions and strict reads wait (up to the action timeout) until exactly one
/// element matches and can take the action, and fail with `ambiguous` when
/// more than one does:
///
/// ```
/// use std::sync::Arc;
/// use uidrive_core::protocol::Role;
/// use uidrive_core::{App, ErrorCode, MemoryDriver, RoleQuery, Route};
///
/// let app = App::new(Arc::new(MemoryDriver::new()));
///
/// // By role and accessible name, as a person names it.
/// let add = app.get_by_role(Role::Button, "Add");
/// let outcome = add.click()?;
/// assert!(matches!(outcome.route, Route::Semantic(_)));
/// assert_eq!(app.get_by_key("count").text()?, "Count: 1");
///
/// // Text fields by their label; `fill` waits until the field reads the text.
/// let name = app.get_by_label("Name");
/// name.fill("Grace")?;
/// assert_eq!(name.value()?.as_deref(), Some("Grace"));
///
/// // Inside another locator's elements, and chosen among several matches.
/// let items = app.get_by_key("fruits").get_by_role(Role::ListItem, RoleQuery::any());
/// assert_eq!(items.count()?, 3);
/// assert_eq!(items.first().text()?, "Apple");
/// assert_eq!(items.nth(2).text()?, "Cherry");
/// let err = items.text().unwrap_err();
/// assert_eq!(err.code, ErrorCode::Ambiguous);
///
/// // The string form, as the command line takes it.
/// assert_eq!(app.locator(r#"role=listItem[name="Banana"]"#).count()?, 1);
/// # Ok::<(), uidrive_core::Error>(())
/// ```
#[derive(Clone)]
pub struct Locator {
    pub(crate) driver: Arc<dyn Driver>,
    pub(crate) timeouts: Timeouts,
    pub(crate) window: WindowChoice,
    pub(crate) steps: Vec<Step>,
    pub(crate) include_hidden: bool,
    /// This locator's own action timeout, over the App's.
    pub(crate) timeout: Option<Duration>,
    /// A selector string that did not parse: reported at first use.
    pub(crate) invalid: Option<Error>,
}

impl Locator {
    fn then(&self, step: Step) -> Locator {
        let mut next = self.clone();
        next.steps.push(step);
        next
    }

    /// Elements of `role` inside this locator's elements.
    pub fn get_by_role(&self, role: Role, query: impl Into<RoleQuery>) -> Locator {
        self.then(Step::Find(Selector::Role(role, query.into())))
    }

    /// The element inside this locator's elements that the app gave `key`.
    pub fn get_by_key(&self, key: impl Into<ElementKey>) -> Locator {
        self.then(Step::Find(Selector::Key(key.into())))
    }

    /// Elements showing `text` inside this locator's elements.
    pub fn get_by_text(&self, text: impl Into<TextMatch>) -> Locator {
        self.then(Step::Find(Selector::Text(text.into())))
    }

    /// Elements whose label matches, inside this locator's elements.
    pub fn get_by_label(&self, label: impl Into<TextMatch>) -> Locator {
        self.then(Step::Find(Selector::Label(label.into())))
    }

    /// Fields whose placeholder matches, inside this locator's elements.
    pub fn get_by_placeholder(&self, text: impl Into<TextMatch>) -> Locator {
        self.then(Step::Find(Selector::Placeholder(text.into())))
    }

    /// A visual target searches the whole window's capture, so it cannot
    /// come after other steps: the locator fails with `invalid_request` at
    /// first use. (Here so every root offers the same factories.)
    pub fn get_by_ocr(&self, text: impl Into<TextMatch>) -> Locator {
        self.then(Step::Find(Selector::Visual(
            crate::visual::VisualQuery::Ocr(text.into()),
        )))
    }

    /// As [`Locator::get_by_ocr`]: a visual target starts a locator.
    pub fn get_by_image(
        &self,
        path: impl Into<std::path::PathBuf>,
        threshold: Option<f64>,
    ) -> Locator {
        match crate::visual::VisualQuery::image(path, threshold) {
            Ok(query) => self.then(Step::Find(Selector::Visual(query))),
            Err(e) => {
                let mut next = self.clone();
                next.invalid = Some(e);
                next
            }
        }
    }

    /// The element with this id, inside this locator's elements.
    pub fn get_by_id(&self, id: ElementId) -> Locator {
        self.then(Step::Find(Selector::Id(id)))
    }

    /// Elements the string form finds inside this locator's elements.
    pub fn locator(&self, selector: &str) -> Locator {
        match selector_text::parse(selector) {
            Ok(steps) => {
                let mut next = self.clone();
                next.steps.extend(steps);
                next
            }
            Err(e) => {
                let mut next = self.clone();
                next.invalid = Some(e);
                next
            }
        }
    }

    /// Elements `inner` finds inside this locator's elements (`inner`'s window is ignored).
    pub fn find(&self, inner: &Locator) -> Locator {
        let mut next = self.clone();
        next.steps.extend(inner.steps.iter().cloned());
        next.invalid = next.invalid.or_else(|| inner.invalid.clone());
        next
    }

    /// The cell at `row` and `column` (both from 1) of the tables this
    /// locator finds. A table too big to read whole (its read is marked
    /// `truncated`) is asked for the cell through the toolkit's own lookup,
    /// so a cell scrolled out of view is found too.
    pub fn cell(&self, row: u32, column: u32) -> Locator {
        let mut next = self.then(Step::Cell { row, column });
        if row == 0 || column == 0 {
            next.invalid = next.invalid.or_else(|| {
                Some(
                    Error::invalid_request(format!(
                        "cell({row}, {column}): rows and columns count from 1"
                    ))
                    .with_suggestion("give the first cell as cell(1, 1)"),
                )
            });
        }
        next
    }

    /// The `index`th match, from 0, in tree order.
    pub fn nth(&self, index: usize) -> Locator {
        self.then(Step::Nth(index))
    }

    /// The first match in tree order.
    pub fn first(&self) -> Locator {
        self.then(Step::First)
    }

    /// The last match in tree order.
    pub fn last(&self) -> Locator {
        self.then(Step::Last)
    }

    /// Keeps the matches that pass `filter`.
    pub fn filter(&self, filter: Filter) -> Locator {
        let mut next = self.then(Step::Filter(matching::Filter {
            has_text: filter.has_text,
            has_not_text: filter.has_not_text,
            has: filter.has.as_ref().map(|l| l.steps.clone()),
            has_not: filter.has_not.as_ref().map(|l| l.steps.clone()),
        }));
        let inner_invalid = [filter.has, filter.has_not]
            .into_iter()
            .flatten()
            .find_map(|l| l.invalid);
        next.invalid = next.invalid.or(inner_invalid);
        next
    }

    /// Keeps the matches that show `text`, themselves or inside.
    pub fn filter_has_text(&self, text: impl Into<TextMatch>) -> Locator {
        self.filter(Filter::new().has_text(text))
    }

    /// Keeps the matches holding an element `inner` finds.
    pub fn filter_has(&self, inner: &Locator) -> Locator {
        self.filter(Filter::new().has(inner))
    }

    /// Whether hidden elements (no area, or offscreen) are matched too; they are left out by default.
    pub fn include_hidden(&self, include: bool) -> Locator {
        let mut next = self.clone();
        next.include_hidden = include;
        next
    }

    /// This locator's actions and strict reads wait up to `timeout` instead of the App's default.
    pub fn with_timeout(&self, timeout: Duration) -> Locator {
        let mut next = self.clone();
        next.timeout = Some(timeout);
        next
    }

    /// How long actions and strict reads wait.
    pub fn action_timeout(&self) -> Duration {
        self.timeout.unwrap_or(self.timeouts.action)
    }

    /// How long `expect` waits unless told otherwise.
    pub fn expect_timeout(&self) -> Duration {
        self.timeouts.expect
    }

    /// The locator as an error's [`Subject`](crate::Subject): its
    /// description, and the window and element it names by id, if it does.
    pub fn subject(&self) -> crate::Subject {
        let window = match &self.window {
            WindowChoice::Id(id) => Some(*id),
            _ => None,
        };
        let id = match self.steps.as_slice() {
            [Step::Find(Selector::Id(id))] => Some(*id),
            _ => None,
        };
        crate::Subject::new(self.description(), window, id)
    }

    /// What the locator says, as its error messages show it.
    pub fn description(&self) -> String {
        let steps = describe_steps(&self.steps);
        let hidden = if self.include_hidden {
            ".include_hidden(true)"
        } else {
            ""
        };
        match &self.window {
            WindowChoice::Default => format!("{steps}{hidden}"),
            WindowChoice::Id(id) => format!("window({id}).{steps}{hidden}"),
            WindowChoice::Titled(title) => format!("window_titled({title}).{steps}{hidden}"),
        }
    }

    pub(crate) fn check_valid(&self) -> Result<()> {
        match &self.invalid {
            Some(e) => Err(e.clone()),
            None if self.steps.is_empty() => Err(Error::invalid_request(
                "the locator is empty; start it with get_by_role, get_by_key, get_by_text, ...",
            )),
            None if self.steps[1..]
                .iter()
                .any(|s| matches!(s, Step::Find(Selector::Visual(_)))) =>
            {
                Err(Error::invalid_request(format!(
                    "{self}: a visual target (ocr=, image=) searches the whole window's capture, so it starts a locator"
                ))
                .with_suggestion("start with the visual target, then narrow with nth, first or last"))
            }
            None => Ok(()),
        }
    }
}

impl fmt::Display for Locator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.description())
    }
}

impl fmt::Debug for Locator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Locator({})", self.description())
    }
}

/// Where locators start: an [`App`] (its focused window), a [`WindowRef`], or a
/// [`Locator`] (searching inside its elements). Front ends that may hold any of
/// the three call this trait rather than matching on which one they hold.
pub trait Find {
    /// Elements of `role` matching `query`.
    fn get_by_role(&self, role: Role, query: RoleQuery) -> Locator;
    /// The element the app gave `key`.
    fn get_by_key(&self, key: ElementKey) -> Locator;
    /// Elements showing `text`.
    fn get_by_text(&self, text: TextMatch) -> Locator;
    /// Elements whose label matches.
    fn get_by_label(&self, label: TextMatch) -> Locator;
    /// Fields whose placeholder matches.
    fn get_by_placeholder(&self, text: TextMatch) -> Locator;
    /// Boxes where OCR reads `text` on the window's capture.
    fn get_by_ocr(&self, text: TextMatch) -> Locator;
    /// Boxes where the PNG file's picture shows on the window's capture.
    fn get_by_image(&self, path: std::path::PathBuf, threshold: Option<f64>) -> Locator;
    /// The element with this id.
    fn get_by_id(&self, id: ElementId) -> Locator;
    /// A locator from its string form.
    fn locator(&self, selector: &str) -> Locator;
}

/// Each type's own methods, which take `impl Into<...>`, behind the trait.
macro_rules! find_through_own_methods {
    ($($ty:ty),+) => {$(
        impl Find for $ty {
            fn get_by_role(&self, role: Role, query: RoleQuery) -> Locator {
                <$ty>::get_by_role(self, role, query)
            }
            fn get_by_key(&self, key: ElementKey) -> Locator {
                <$ty>::get_by_key(self, key)
            }
            fn get_by_text(&self, text: TextMatch) -> Locator {
                <$ty>::get_by_text(self, text)
            }
            fn get_by_label(&self, label: TextMatch) -> Locator {
                <$ty>::get_by_label(self, label)
            }
            fn get_by_placeholder(&self, text: TextMatch) -> Locator {
                <$ty>::get_by_placeholder(self, text)
            }
            fn get_by_ocr(&self, text: TextMatch) -> Locator {
                <$ty>::get_by_ocr(self, text)
            }
            fn get_by_image(&self, path: std::path::PathBuf, threshold: Option<f64>) -> Locator {
                <$ty>::get_by_image(self, path, threshold)
            }
            fn get_by_id(&self, id: ElementId) -> Locator {
                <$ty>::get_by_id(self, id)
            }
            fn locator(&self, selector: &str) -> Locator {
                <$ty>::locator(self, selector)
            }
        }
    )+};
}

find_through_own_methods!(App, WindowRef, Locator);
