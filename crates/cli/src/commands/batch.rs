//! `batch`: several steps in one call, stopping at the first failure, and one
//! observation at the end.

use crate::ctx::Ctx;
use crate::output::{error_json, CliError, Output};
use crate::registry::{self, Command, Hints, ACTS};
use crate::target::{join_selector_words, shell_words};
use clap::Args;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Map, Value};

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Batch {
    /// Steps, each one command line without `uidrive`, as: 'fill @e3 Ada' 'press @e2'. Every step is checked before the first runs.
    #[arg(required = true, value_name = "STEP")]
    #[serde(skip)]
    pub steps: Vec<String>,
    /// Tool calls ({"tool": "press", "target": "@e3"}), checked first.
    #[arg(skip)]
    #[serde(rename = "steps")]
    #[schemars(with = "Vec<Call>")]
    pub calls: Vec<Given>,
    /// Don't observe at the end.
    #[arg(long)]
    #[serde(default)]
    pub no_observe: bool,
    /// Print every changed element's line, hidden ones too (else a container that came or went is one line with a count).
    #[arg(long)]
    #[serde(default)]
    pub full: bool,
}

/// A step as MCP gives it: a tool call, or (as the command line does) a line.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Given {
    Call(Call),
    Line(String),
}

/// One step given as a tool call (MCP): the tool's name and its arguments.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Call {
    pub tool: String,
    #[serde(flatten)]
    pub args: Map<String, Value>,
}

/// A step ready to run: its command and its arguments, as parsed.
enum Step {
    Line(&'static registry::Entry, clap::ArgMatches),
    Call(&'static registry::Entry, Value),
}

impl Command for Batch {
    const NAME: &'static str = "batch";
    const ABOUT: &'static str = "Run steps until one fails; print what changed";
    const HINTS: Hints = ACTS;
    const IN_BATCH: bool = false;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        // Parse every step first, so that a typo runs nothing.
        let given: Vec<Given> = self
            .steps
            .iter()
            .cloned()
            .map(Given::Line)
            .chain(self.calls.iter().cloned())
            .collect();
        let mut parsed = Vec::with_capacity(given.len());
        let mut labels: Vec<String> = Vec::with_capacity(given.len());
        for (at, step) in given.into_iter().enumerate() {
            match step {
                Given::Line(step) => {
                    let words = join_selector_words(shell_words(&step)?);
                    let Some(name) = words.first() else {
                        return Err(CliError::usage(format!("batch: step {} is empty", at + 1)));
                    };
                    let entry =
                        registry::find_cli(name)
                            .filter(|e| e.in_batch)
                            .ok_or_else(|| {
                                CliError::usage(format!(
                            "batch: step {} (`{step}`): `{name}` is not a command a batch can run",
                            at + 1
                        ))
                            })?;
                    let matches = (entry.cli)()
                        .no_binary_name(false)
                        .try_get_matches_from(&words)
                        .map_err(|e| {
                            CliError::usage(format!(
                                "batch: step {} (`{step}`): {}",
                                at + 1,
                                first_line(&e.to_string())
                            ))
                        })?;
                    parsed.push(Step::Line(entry, matches));
                    labels.push(step);
                }
                Given::Call(call) => {
                    let args = Value::Object(call.args);
                    let label = format!("{} {args}", call.tool);
                    let entry = registry::find_mcp(&call.tool)
                        .filter(|e| e.in_batch)
                        .ok_or_else(|| {
                            CliError::usage(format!(
                                "batch: step {} (`{label}`): `{}` is not a tool a batch can run",
                                at + 1,
                                call.tool
                            ))
                        })?;
                    (entry.check_json)(&args).map_err(|e| {
                        CliError::usage(format!(
                            "batch: step {} (`{label}`): {}",
                            at + 1,
                            e.error.message
                        ))
                    })?;
                    parsed.push(Step::Call(entry, args));
                    labels.push(label);
                }
            }
        }
        if parsed.is_empty() {
            return Err(CliError::usage("batch: give at least one step"));
        }

        let was_in_batch = std::mem::replace(&mut ctx.in_batch, true);
        let mut text = String::new();
        let mut steps = Vec::new();
        let mut failure = None;
        for (at, parsed) in parsed.into_iter().enumerate() {
            let step = &labels[at];
            let ran = match parsed {
                Step::Line(entry, matches) => (entry.run_cli)(&matches, ctx),
                Step::Call(entry, args) => (entry.run_json)(args, ctx),
            };
            match ran {
                Ok(out) => {
                    text.push_str(&format!("ok {}: {}\n", at + 1, out.text.trim_end()));
                    steps.push(json!({"step": step, "ok": true, "data": out.data}));
                }
                Err(e) => {
                    text.push_str(&format!(
                        "failed {}: {step}: {}: {}\n",
                        at + 1,
                        e.error.code,
                        e.error.message
                    ));
                    steps.push(json!({"step": step, "ok": false, "error": error_json(&e.error)}));
                    failure = Some((at, e));
                    break;
                }
            }
        }
        ctx.in_batch = was_in_batch;
        let skipped = labels.len() - steps.len();
        if skipped > 0 {
            text.push_str(&format!("skipped {skipped} step(s) after the failure\n"));
        }

        let mut data = json!({"steps": steps});
        if !self.no_observe {
            ctx.full_diff = self.full;
            match ctx.settle(None) {
                Ok((diff, observed)) => {
                    text.push_str(&diff);
                    data["settled"] = observed;
                }
                Err(e) if failure.is_some() => {
                    text.push_str(&format!("# could not observe: {}\n", e.error));
                }
                Err(e) => return Err(e),
            }
        }
        match failure {
            None => Ok(Output::new(text, data)),
            Some((at, mut e)) => {
                e.error.message =
                    format!("step {} (`{}`): {}", at + 1, labels[at], e.error.message);
                e.usage = false;
                e.data = Some(data);
                e.text = text;
                Err(e)
            }
        }
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or(text)
}
