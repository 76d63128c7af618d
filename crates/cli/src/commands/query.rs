//! Commands that answer a question about an element, the way a test's
//! `expect` reads it: `get` (a field, bare), `is` (true or false), `find`
//! (every match, as snapshot lines with refs) and `verify` (an assertion:
//! satisfied, unsatisfied or unknown).

use super::WindowOpt;
use crate::ctx::Ctx;
use crate::output::{CliError, Output};
use crate::registry::{Command, Hints, READS};
use clap::Args;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use uidrive_core::snapshot::Snapshot;
use uidrive_core::{expect, ErrorCode, ExpectedText};

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Get {
    /// text, value, name, role, states, bounds, visible, enabled, checked, focused, expanded or editable.
    #[arg(value_parser = ["text", "value", "name", "role", "states", "bounds", "visible", "hidden", "enabled", "checked", "focused", "expanded", "editable"])]
    pub field: String,
    /// The element: a ref (@e3), key=KEY or a selector.
    pub target: String,
    #[command(flatten)]
    #[serde(flatten)]
    pub on: WindowOpt,
}

impl Command for Get {
    const NAME: &'static str = "get";
    const ABOUT: &'static str = "Print an element's field, bare (states: true or false)";
    const HINTS: Hints = READS;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        if IS_STATES.contains(&self.field.as_str()) {
            let is = Is {
                state: self.field,
                target: self.target,
                on: self.on,
            };
            return is.run(ctx);
        }
        let locator = ctx.locator(&self.target, self.on.window)?;
        let value: Value = match self.field.as_str() {
            "text" => json!(locator.text()?),
            "value" => json!(locator.value()?),
            "states" => json!(locator.states()?),
            "bounds" => json!(locator.bounds()?),
            "name" => json!(locator.node()?.label),
            "role" => json!(locator.node()?.role),
            other => {
                return Err(CliError::usage(format!(
                    "get: {other:?} is not a field; use text, value, name, role, states or bounds"
                )))
            }
        };
        let text = match &value {
            Value::Null => String::new(),
            Value::String(s) => s.clone(),
            Value::Array(items) => items
                .iter()
                .map(|i| {
                    i.as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| i.to_string())
                })
                .collect::<Vec<_>>()
                .join(" "),
            Value::Object(b) => format!("{} {} {} {}", b["x"], b["y"], b["width"], b["height"]),
            other => other.to_string(),
        };
        Ok(Output::new(
            text + "\n",
            json!({ self.field.as_str(): value }),
        ))
    }
}

/// The states `is` answers (and `get` answers as `is` does).
const IS_STATES: [&str; 7] = [
    "visible", "hidden", "enabled", "checked", "focused", "expanded", "editable",
];

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Is {
    /// The state asked: visible, hidden, enabled, checked, focused, expanded or editable.
    #[arg(value_parser = IS_STATES)]
    pub state: String,
    /// The element: a ref (@e3), key=KEY or a selector.
    pub target: String,
    #[command(flatten)]
    #[serde(flatten)]
    pub on: WindowOpt,
}

impl Command for Is {
    const NAME: &'static str = "is";
    const ABOUT: &'static str =
        "Print true or false: visible|hidden|enabled|checked|focused|expanded|editable TARGET";
    const HINTS: Hints = READS;
    // MCP's `get` answers these.
    const MCP: bool = false;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        let locator = ctx.locator(&self.target, self.on.window)?;
        let answer = match self.state.as_str() {
            "visible" => locator.is_visible()?,
            "hidden" => locator.is_hidden()?,
            "enabled" => locator.is_enabled()?,
            "checked" => locator.is_checked()?,
            "focused" => locator.is_focused()?,
            "expanded" => locator.is_expanded()?,
            "editable" => locator.is_editable()?,
            other => {
                return Err(CliError::usage(format!(
                    "is: {other:?} is not a state asked; use visible, hidden, enabled, checked, focused, expanded or editable"
                )))
            }
        };
        Ok(Output::new(
            format!("{answer}\n"),
            json!({ self.state.as_str(): answer }),
        ))
    }
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindCmd {
    /// As role=button name="Add", key=KEY, text="Save".
    pub selector: String,
    #[command(flatten)]
    #[serde(flatten)]
    pub on: WindowOpt,
}

impl Command for FindCmd {
    const NAME: &'static str = "find";
    const ABOUT: &'static str = "List what a selector matches, as snapshot lines with refs";
    const HINTS: Hints = READS;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        let locator = ctx.locator(&self.selector, self.on.window)?;
        let (tree, nodes) = locator.matching()?;
        let Some(tree) = tree else {
            return Ok(Output::new(
                "no window to look in\n",
                json!({"count": 0, "elements": []}),
            ));
        };
        // Refs for the matches, as a snapshot hands them out (a visual
        // target's boxes are no elements of the tree: they get none).
        if !uidrive_core::visual::is_visual_tree(&tree) {
            Snapshot::take(&tree, &mut ctx.state.refs);
        }
        let lines: Vec<String> = nodes.iter().map(|n| ctx.describe(tree.window, n)).collect();
        let text = match lines.len() {
            0 => format!("no element matches {}\n", self.selector),
            _ => lines.iter().map(|l| format!("{l}\n")).collect(),
        };
        let refs: Vec<Value> = nodes
            .iter()
            .map(|n| json!({"ref": ctx.state.refs.ref_of(tree.window, n.id).map(|r| r.to_string()), "line": ctx.describe(tree.window, n)}))
            .collect();
        Ok(Output::new(
            text,
            json!({"window": tree.window, "count": nodes.len(), "elements": refs}),
        ))
    }
}

fn default_verify_timeout() -> u64 {
    uidrive_core::defaults::VERIFY.as_millis() as u64
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Verify {
    /// The element: a ref (@e3), key=KEY or a selector.
    pub target: String,
    /// Its text is this, whole; /pattern/ is a regex.
    #[arg(long, value_name = "TEXT", group = "claim")]
    #[serde(default)]
    pub text: Option<String>,
    /// Its text holds this, as a part.
    #[arg(long, value_name = "TEXT", group = "claim")]
    #[serde(default)]
    pub contains: Option<String>,
    /// Its value is this, whole.
    #[arg(long, value_name = "VALUE", group = "claim")]
    #[serde(default)]
    pub value: Option<String>,
    /// It has this state (checked, expanded...).
    #[arg(long, value_name = "STATE", group = "claim")]
    #[serde(default)]
    pub state: Option<String>,
    /// It matches this many.
    #[arg(long, value_name = "N", group = "claim")]
    #[serde(default)]
    pub count: Option<usize>,
    /// It is not shown.
    #[arg(long, group = "claim")]
    #[serde(default)]
    pub gone: bool,
    /// Milliseconds it may take.
    #[arg(long, value_name = "MS", default_value_t = default_verify_timeout())]
    #[serde(default = "default_verify_timeout")]
    pub timeout: u64,
    #[command(flatten)]
    #[serde(flatten)]
    pub on: WindowOpt,
}

impl Command for Verify {
    const NAME: &'static str = "verify";
    const ABOUT: &'static str = "Check a claim: satisfied, unsatisfied or unknown";
    const HINTS: Hints = READS;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        let timeout = uidrive_facade::time::whole_millis("verify --timeout", self.timeout)
            .map_err(|e| CliError::usage(e.message))?;
        ctx.bound(timeout);
        let locator = ctx.locator(&self.target, self.on.window)?;
        let check = expect(&locator).with_timeout(timeout);
        let (claim, result) = if let Some(text) = &self.text {
            (
                format!("reads {text:?}"),
                check.to_have_text(ExpectedText::parse(text)?),
            )
        } else if let Some(text) = &self.contains {
            (
                format!("holds {text:?}"),
                check.to_contain_text(ExpectedText::parse(text)?),
            )
        } else if let Some(value) = &self.value {
            (
                format!("has the value {value:?}"),
                check.to_have_value(ExpectedText::parse(value)?),
            )
        } else if let Some(state) = &self.state {
            let state = uidrive_facade::names::state(state)?;
            (format!("is {state}"), check.to_have_state(state))
        } else if let Some(count) = self.count {
            (format!("matches {count}"), check.to_have_count(count))
        } else if self.gone {
            ("is gone".to_string(), check.to_be_hidden())
        } else {
            ("shows".to_string(), check.to_be_visible())
        };
        let target = &self.target;
        match result {
            Ok(()) => Ok(Output::new(
                "satisfied\n",
                json!({"verdict": "satisfied", "claim": claim}),
            )),
            Err(e) => {
                let verdict = if e.code == ErrorCode::AssertionFailed {
                    "unsatisfied"
                } else {
                    "unknown"
                };
                let mut failure = CliError::from(e.clone());
                // What was read follows on the error line, in the caller's terms.
                failure.text = format!("{verdict}: {target} {claim}\n");
                failure.data = Some(json!({"verdict": verdict, "claim": claim}));
                Err(failure)
            }
        }
    }
}
