//! `expect`: assertions on a locator, retried on fresh reads until they hold
//! or their timeout passes (the App's expect timeout, 5 s by default).
//!
//! Text is compared as Playwright compares it: both sides are folded
//! (trimmed, every run of whitespace made one space); a string given to
//! `to_have_text` or `to_have_value` must equal the whole text,
//! case-sensitively; `to_contain_text` looks for it as a part; a regular
//! expression is searched. [`ExpectedText::ignore_case`] ignores case.
//!
//! ```
//! # use uidrive_core::{App, MemoryDriver, expect::expect};
//! # use std::sync::Arc;
//! let app = App::new(Arc::new(MemoryDriver::new()));
//! app.get_by_key("add").click()?;
//! expect(&app.get_by_key("count")).to_have_text("Count: 1")?;
//! expect(&app.get_by_key("count")).to_contain_text("1")?;
//! expect(&app.get_by_key("add")).not().to_be_disabled()?;
//! # Ok::<(), uidrive_core::Error>(())
//! ```

use crate::error::{Error, ErrorCode, Result};
use crate::locator::{fold_whitespace, is_shown, Locator, TextMatch};
use crate::protocol::{Node, State, Tree};
use std::fmt;
use std::time::Duration;

/// The text an assertion wants: a string, or a regular expression.
#[derive(Debug, Clone)]
pub struct ExpectedText {
    wanted: Wanted,
    ignore_case: bool,
}

#[derive(Debug, Clone)]
enum Wanted {
    Text(String),
    /// A part, whichever assertion compares it.
    Part(String),
    Pattern(regex::Regex),
}

impl ExpectedText {
    /// A string: the whole text for `to_have_text`, a part for `to_contain_text`.
    pub fn text(text: impl Into<String>) -> ExpectedText {
        ExpectedText {
            wanted: Wanted::Text(text.into()),
            ignore_case: false,
        }
    }

    /// A string that is looked for as a part of the text, whichever
    /// assertion compares it (`to_have_value` too): the C ABI's
    /// `UD_MATCH_SUBSTRING`.
    pub fn part(text: impl Into<String>) -> ExpectedText {
        ExpectedText {
            wanted: Wanted::Part(text.into()),
            ignore_case: false,
        }
    }

    /// A regular expression, searched in the folded text (`regex` crate syntax).
    pub fn regex(pattern: &str) -> Result<ExpectedText> {
        let re = regex::Regex::new(pattern).map_err(|e| {
            Error::invalid_request(format!("`{pattern}` is not a regular expression: {e}"))
        })?;
        Ok(ExpectedText::from(re))
    }

    /// The same, ignoring case (Playwright's `ignoreCase`).
    pub fn ignore_case(mut self, ignore: bool) -> ExpectedText {
        self.ignore_case = ignore;
        if let Wanted::Pattern(re) = &self.wanted {
            let built = regex::RegexBuilder::new(re.as_str())
                .case_insensitive(ignore)
                .build();
            if let Ok(re) = built {
                self.wanted = Wanted::Pattern(re);
            }
        }
        self
    }

    /// The text form the command line and MCP take: `/pattern/flags` (flags
    /// among `imsux`) is a regular expression, anything else a string.
    pub fn parse(text: &str) -> Result<ExpectedText> {
        if let Some((pattern, flags)) = text
            .strip_prefix('/')
            .and_then(|inner| inner.rsplit_once('/'))
            .filter(|(_, flags)| flags.chars().all(|f| "imsux".contains(f)))
        {
            if !pattern.is_empty() {
                let pattern = if flags.is_empty() {
                    pattern.to_string()
                } else {
                    format!("(?{flags}){pattern}")
                };
                return ExpectedText::regex(&pattern);
            }
        }
        Ok(ExpectedText::text(text))
    }

    /// A locator's text match that finds the elements whose text this is
    /// (`whole`), or holds, as the assertions compare.
    pub fn to_text_match(&self, whole: bool) -> TextMatch {
        let case = if self.ignore_case { "(?i)" } else { "" };
        match &self.wanted {
            Wanted::Text(text) if whole && !self.ignore_case => TextMatch::exact(text.clone()),
            Wanted::Text(text) if whole => {
                let folded = regex::escape(&fold_whitespace(text));
                TextMatch::regex(&format!("{case}^{folded}$")).expect("an escaped text is a regex")
            }
            Wanted::Text(text) | Wanted::Part(text) => {
                let folded = regex::escape(&fold_whitespace(text));
                TextMatch::regex(&format!("{case}{folded}")).expect("an escaped text is a regex")
            }
            Wanted::Pattern(re) => TextMatch::Regex(re.clone()),
        }
    }

    /// Whether `shown` is the wanted text (`whole`), or holds it.
    pub fn matches(&self, shown: &str, whole: bool) -> bool {
        let shown = fold_whitespace(shown);
        match &self.wanted {
            Wanted::Text(text) | Wanted::Part(text) => {
                let whole = whole && matches!(self.wanted, Wanted::Text(_));
                let text = fold_whitespace(text);
                let (shown, text) = if self.ignore_case {
                    (shown.to_lowercase(), text.to_lowercase())
                } else {
                    (shown, text)
                };
                if whole {
                    shown == text
                } else {
                    shown.contains(&text)
                }
            }
            Wanted::Pattern(re) => re.is_match(&shown),
        }
    }
}

impl From<&str> for ExpectedText {
    fn from(text: &str) -> ExpectedText {
        ExpectedText::text(text)
    }
}

impl From<String> for ExpectedText {
    fn from(text: String) -> ExpectedText {
        ExpectedText::text(text)
    }
}

impl From<&String> for ExpectedText {
    fn from(text: &String) -> ExpectedText {
        ExpectedText::text(text.clone())
    }
}

impl From<regex::Regex> for ExpectedText {
    fn from(re: regex::Regex) -> ExpectedText {
        ExpectedText {
            wanted: Wanted::Pattern(re),
            ignore_case: false,
        }
    }
}

/// A locator's `TextMatch` as an assertion reads it: a regex is searched;
/// an exact text or a substring is a string, compared as strings are
/// (whole for `to_have_text`, a part for `to_contain_text`), with its case.
impl From<TextMatch> for ExpectedText {
    fn from(text: TextMatch) -> ExpectedText {
        match text {
            TextMatch::Exact(text) | TextMatch::Substring(text) => ExpectedText::text(text),
            TextMatch::Regex(re) => ExpectedText::from(re),
        }
    }
}

impl fmt::Display for ExpectedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.wanted {
            Wanted::Text(text) => write!(f, "{text:?}")?,
            Wanted::Part(text) => write!(f, "containing {text:?}")?,
            Wanted::Pattern(re) => write!(f, "/{}/", re.as_str())?,
        }
        if self.ignore_case {
            f.write_str(" ignoring case")?;
        }
        Ok(())
    }
}

/// Assertions on `locator`.
pub fn expect(locator: &Locator) -> Expect {
    Expect {
        locator: locator.clone(),
        negated: false,
        timeout: None,
    }
}

/// Assertions on one locator: each reads the window until it holds, and fails
/// with `assertion_failed`, saying what was expected and what was last seen.
#[derive(Debug, Clone)]
pub struct Expect {
    locator: Locator,
    negated: bool,
    timeout: Option<Duration>,
}

/// What one read showed, for one assertion.
struct Observation {
    /// Whether the condition held; `None` when there was no element to judge,
    /// which passes neither the assertion nor its negation.
    holds: Option<bool>,
    observed: String,
}

impl Observation {
    fn missing(observed: impl Into<String>) -> Observation {
        Observation {
            holds: None,
            observed: observed.into(),
        }
    }
}

impl Expect {
    /// The opposite assertion: `expect(&l).not().to_be_checked()`.
    #[allow(clippy::should_implement_trait)] // named as in Playwright and the bindings
    pub fn not(self) -> Expect {
        Expect {
            negated: !self.negated,
            ..self
        }
    }

    /// Waits up to `timeout` instead of the App's expect timeout.
    pub fn with_timeout(self, timeout: Duration) -> Expect {
        Expect {
            timeout: Some(timeout),
            ..self
        }
    }

    /// Exactly one element matches and it shows (has an area and is not offscreen).
    pub fn to_be_visible(&self) -> Result<()> {
        self.visibility("to be visible", true)
    }

    /// No element matches, or the one that does is not shown.
    pub fn to_be_hidden(&self) -> Result<()> {
        self.visibility("to be hidden", false)
    }

    pub fn to_be_enabled(&self) -> Result<()> {
        self.on_element("to be enabled", |_, node| {
            let enabled = !node.has_state(&State::Disabled);
            (enabled, if enabled { "enabled" } else { "disabled" }.into())
        })
    }

    pub fn to_be_disabled(&self) -> Result<()> {
        self.on_element("to be disabled", |_, node| {
            let disabled = node.has_state(&State::Disabled);
            (
                disabled,
                if disabled { "disabled" } else { "enabled" }.into(),
            )
        })
    }

    pub fn to_be_checked(&self) -> Result<()> {
        self.on_element("to be checked", |_, node| {
            let seen = if node.has_state(&State::Checked) {
                "checked"
            } else if node.has_state(&State::Mixed) {
                "mixed"
            } else {
                "unchecked"
            };
            (seen == "checked", seen.into())
        })
    }

    pub fn to_be_focused(&self) -> Result<()> {
        self.on_element("to be focused", |tree, node| {
            let focused = tree.focus == Some(node.id);
            let seen = match tree.focused() {
                _ if focused => "focused".to_string(),
                Some(other) => format!("not focused; the focus is on {}", describe(other)),
                None => "not focused; nothing has the focus".to_string(),
            };
            (focused, seen)
        })
    }

    /// It takes text (a text field, or setValue/insertText) and is not read-only.
    pub fn to_be_editable(&self) -> Result<()> {
        self.on_element("to be editable", |_, node| {
            let editable = crate::locator::is_editable(node);
            (
                editable,
                if editable { "editable" } else { "not editable" }.into(),
            )
        })
    }

    /// Its text (label, else value) is `text`: a string equals the whole
    /// (folded) text, case-sensitively; a regex is searched.
    pub fn to_have_text(&self, text: impl Into<ExpectedText>) -> Result<()> {
        let text = text.into();
        self.on_element(&format!("to have text {text}"), move |_, node| {
            let shown = node.text().unwrap_or_default();
            (text.matches(shown, true), format!("text {shown:?}"))
        })
    }

    /// Its text (label, else value) holds `text` as a part; a regex is searched.
    pub fn to_contain_text(&self, text: impl Into<ExpectedText>) -> Result<()> {
        let text = text.into();
        self.on_element(&format!("to contain text {text}"), move |_, node| {
            let shown = node.text().unwrap_or_default();
            (text.matches(shown, false), format!("text {shown:?}"))
        })
    }

    /// Its value (a field's text, or a slider's number) is `value`, compared
    /// as `to_have_text` compares: the whole of it.
    pub fn to_have_value(&self, value: impl Into<ExpectedText>) -> Result<()> {
        let value = value.into();
        self.on_element(&format!("to have value {value}"), move |_, node| {
            match crate::locator::value_of(node) {
                Some(shown) => (value.matches(&shown, true), format!("value {shown:?}")),
                None => (false, "no value".into()),
            }
        })
    }

    pub fn to_have_state(&self, state: State) -> Result<()> {
        self.on_element(&format!("to have state {state}"), move |_, node| {
            let states: Vec<_> = node.states.iter().map(|s| s.as_str()).collect();
            (
                node.has_state(&state),
                format!("states [{}]", states.join(", ")),
            )
        })
    }

    /// Exactly `count` elements match (not strict: any number may match while waiting).
    pub fn to_have_count(&self, count: usize) -> Result<()> {
        self.assert(&format!("to have count {count}"), |read| {
            let seen = read.map_or(0, |r| r.matches.len());
            Ok(Observation {
                holds: Some(seen == count),
                observed: format!("{seen} element{}", if seen == 1 { "" } else { "s" }),
            })
        })
    }

    fn visibility(&self, expected: &str, visible: bool) -> Result<()> {
        self.assert(expected, |read| {
            let Some(read) = read else {
                return Ok(Observation {
                    holds: Some(!visible),
                    observed: "no such window".into(),
                });
            };
            match read.matches.as_slice() {
                [] => {
                    let hidden = self.locator.hidden_matches(&read.tree);
                    let observed = match hidden.first() {
                        Some(node) => format!("no visible match; hidden: {}", describe(node)),
                        None => "no element matches".into(),
                    };
                    Ok(Observation {
                        holds: Some(!visible),
                        observed,
                    })
                }
                [at] => {
                    let node = read.node(*at);
                    let shown = is_shown(node);
                    let word = if shown { "visible" } else { "hidden" };
                    Ok(Observation {
                        holds: Some(shown == visible),
                        observed: format!("{word}: {}", describe(node)),
                    })
                }
                _ => Err(crate::locator::ambiguous_error(
                    &self.locator,
                    read,
                    "expect",
                )),
            }
        })
    }

    /// An assertion on the one element: waits for it, and fails at once with
    /// `ambiguous` when more than one matches.
    fn on_element(
        &self,
        expected: &str,
        check: impl Fn(&Tree, &Node) -> (bool, String),
    ) -> Result<()> {
        self.assert(expected, |read| {
            let Some(read) = read else {
                return Ok(Observation::missing("no such window"));
            };
            match read.matches.as_slice() {
                [] => Ok(Observation::missing("no element matches")),
                [at] => {
                    let node = read.node(*at);
                    self.locator.trace_ready(&["found"], read.tree.window, node);
                    let (holds, seen) = check(&read.tree, node);
                    Ok(Observation {
                        holds: Some(holds),
                        observed: format!("{seen} ({})", describe(node)),
                    })
                }
                _ => Err(crate::locator::ambiguous_error(
                    &self.locator,
                    read,
                    "expect",
                )),
            }
        })
    }

    /// Reads until `observe` says the (possibly negated) condition holds.
    fn assert(
        &self,
        expected: &str,
        observe: impl Fn(Option<&crate::locator::Read>) -> Result<Observation>,
    ) -> Result<()> {
        let not = if self.negated { "not " } else { "" };
        let args = serde_json::json!({ "expected": format!("{not}{expected}") });
        let step = self.locator.trace_begin("expect", args);
        let result = self.retry(expected, observe);
        crate::trace::end_check(step, &result);
        result
    }

    /// `assert` without its trace step.
    fn retry(
        &self,
        expected: &str,
        observe: impl Fn(Option<&crate::locator::Read>) -> Result<Observation>,
    ) -> Result<()> {
        self.locator.check_valid()?;
        let timeout = self.timeout.unwrap_or(self.locator.expect_timeout());
        let mut poller = self.locator.poller(timeout);
        loop {
            // Every assertion judges the matches alone (and the focus).
            let seen = match self.locator.read_matches() {
                Ok(read) => {
                    poller.watch(read.window());
                    observe(Some(&read))?
                }
                Err(e) if e.code == ErrorCode::NoWindow => observe(None)?,
                Err(e) if crate::locator::worth_retrying(&e) => Observation::missing(e.message),
                Err(e) => return Err(e),
            };
            if seen.holds.is_some_and(|holds| holds != self.negated) {
                return Ok(());
            }
            if poller.expired() {
                let not = if self.negated { "not " } else { "" };
                return Err(Error::new(
                    ErrorCode::AssertionFailed,
                    format!(
                        "expected {} {not}{expected}, last observed {} (waited {})",
                        self.locator,
                        seen.observed,
                        crate::locator::human(timeout)
                    ),
                ));
            }
            poller.wait()?;
        }
    }
}

fn describe(node: &Node) -> String {
    crate::locator::describe_node(node)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_is_the_whole_text_and_a_part_is_contained() {
        let four = ExpectedText::from("4");
        assert!(!four.matches("144", true), "a string is the whole text");
        assert!(four.matches(" 4 ", true), "after folding whitespace");
        assert!(four.matches("144", false), "contained as a part");
        let count = ExpectedText::from("Count: 1");
        assert!(count.matches("Count:\n  1", true));
        assert!(!count.matches("count: 1", true), "case counts");
        assert!(count.clone().ignore_case(true).matches("count: 1", true));
        assert!(!ExpectedText::from("ount").matches("Count: 1", true));
        let re = ExpectedText::regex(r"\d+").unwrap();
        assert!(re.matches("Count: 12", true), "a regex is searched");
        let re = ExpectedText::regex("^count").unwrap().ignore_case(true);
        assert!(re.matches("Count: 12", true));
        let exact = ExpectedText::from(TextMatch::exact("Add"));
        assert!(exact.matches("Add", true) && !exact.matches("Add more", true));
        assert_eq!(
            ExpectedText::from("a").ignore_case(true).to_string(),
            "\"a\" ignoring case"
        );
        let parsed = ExpectedText::parse("/^count: \\d$/i").unwrap();
        assert!(parsed.matches("Count: 1", true));
        assert!(
            ExpectedText::parse("/a/b").unwrap().matches("/a/b", true),
            "not a regex"
        );
        for (text, whole) in [("Count: 1", true), ("Count", false)] {
            let found = ExpectedText::from(text).to_text_match(whole);
            assert!(
                found.matches("Count:  1") && !found.matches("count: 1"),
                "{found}"
            );
        }
        let part = ExpectedText::part("race").ignore_case(true);
        assert!(
            part.matches("Grace", true),
            "a part even where the whole is asked"
        );
        assert_eq!(part.to_string(), "containing \"race\" ignoring case");
    }
}
