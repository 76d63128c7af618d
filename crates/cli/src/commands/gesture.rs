//! Commands that move, step or show an element: `scroll`, `scroll-into-view`,
//! `hover`, `drag`, `focus`, `expand`, `collapse`, `increment`, `decrement`,
//! `select-text`, `set-value`. Each is one core locator action; the outcome
//! and its line are what every other action prints.

use super::act::{acted, finish};
use super::{SettleOpt, WindowOpt};
use crate::ctx::Ctx;
use crate::output::{CliError, Output};
use crate::registry::{Command, Hints, ACTS, SETS};
use clap::Args;
use schemars::JsonSchema;
use serde::Deserialize;
use uidrive_core::{ActionOutcome, Locator, ScrollDirection};

/// The element, its settle and window options: what every command here
/// takes. Its fields are written out rather than flattened in turn: serde
/// refuses a command's unknown fields only one flattening deep.
#[derive(Debug, Args, Deserialize, JsonSchema)]
pub struct On {
    /// The element: a ref (@e3), key=KEY, id=DIGITS or role=slider name="Volume".
    pub target: String,
    /// Wait for the window to settle, then print what changed since the last snapshot.
    #[arg(long)]
    #[serde(default)]
    pub settle: bool,
    /// With settle: every changed element's line, hidden ones too.
    #[arg(long, requires = "settle")]
    #[serde(default)]
    pub full: bool,
    /// The window, by the id `windows` lists (default: the session's, else the focused one).
    #[arg(short, long, value_name = "ID")]
    #[serde(default)]
    pub window: Option<u64>,
}

impl On {
    /// Runs `action` on the target's locator and prints its outcome as `verb`.
    fn run(
        &self,
        ctx: &mut Ctx,
        verb: &str,
        action: impl FnOnce(&Locator) -> uidrive_core::Result<ActionOutcome>,
    ) -> Result<Output, CliError> {
        let locator = ctx.locator(&self.target, self.window)?;
        let outcome = action(&locator)?;
        let (text, data) = acted(ctx, verb, &outcome)?;
        let settle = SettleOpt {
            settle: self.settle,
            full: self.full,
        };
        finish(ctx, &settle, Some(outcome.window), text, data)
    }
}

fn one_notch() -> u32 {
    uidrive_core::defaults::NOTCHES
}

fn one_step() -> u32 {
    uidrive_core::defaults::STEPS
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scroll {
    #[command(flatten)]
    #[serde(flatten)]
    pub on: On,
    /// up, down, left, right or into-view.
    #[arg(value_parser = ["up", "down", "left", "right", "into-view"])]
    pub direction: String,
    /// Wheel clicks (notches).
    #[arg(default_value_t = one_notch())]
    #[serde(default = "one_notch")]
    pub notches: u32,
}

impl Command for Scroll {
    const NAME: &'static str = "scroll";
    const ABOUT: &'static str = "Turn the wheel over an element (into-view: until it shows)";
    const HINTS: Hints = ACTS;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        if self.direction == "into-view" {
            return ScrollIntoView { on: self.on }.run(ctx);
        }
        let direction: ScrollDirection = self.direction.parse()?;
        let verb = format!("scrolled {} {} over", direction.as_str(), self.notches);
        self.on
            .run(ctx, &verb, |l| l.scroll(direction, self.notches))
    }
}

/// A command that is one locator action with no arguments of its own.
macro_rules! plain {
    ($name:ident, $cli:literal, $about:literal, $hints:expr, $verb:literal, $method:ident, mcp: $mcp:literal) => {
        #[derive(Debug, Args, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            #[command(flatten)]
            #[serde(flatten)]
            pub on: On,
        }

        impl Command for $name {
            const NAME: &'static str = $cli;
            const ABOUT: &'static str = $about;
            const HINTS: Hints = $hints;
            const MCP: bool = $mcp;

            fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
                self.on.run(ctx, $verb, |l| l.$method())
            }
        }
    };
}

plain!(
    ScrollIntoView,
    "scroll-into-view",
    "Scroll the containers around an element until it shows",
    SETS,
    "scrolled into view",
    scroll_into_view,
    mcp: false
);
plain!(
    Hover,
    "hover",
    "Move the pointer over an element's centre",
    SETS,
    "hovered over",
    hover,
    mcp: true
);
plain!(
    Focus,
    "focus",
    "Give an element the keyboard focus",
    SETS,
    "focused",
    focus,
    mcp: false
);
plain!(
    Expand,
    "expand",
    "Expand a tree row, expander or combo box",
    SETS,
    "expanded",
    expand,
    mcp: false
);
plain!(
    Collapse,
    "collapse",
    "Collapse a tree row, expander or combo box",
    SETS,
    "collapsed",
    collapse,
    mcp: false
);

/// `increment` and `decrement`: a slider or spin button stepped N times.
macro_rules! stepper {
    ($name:ident, $cli:literal, $about:literal, $verb:literal, $method:ident) => {
        #[derive(Debug, Args, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            #[command(flatten)]
            #[serde(flatten)]
            pub on: On,
            /// How many steps.
            #[arg(default_value_t = one_step())]
            #[serde(default = "one_step")]
            pub steps: u32,
        }

        impl Command for $name {
            const NAME: &'static str = $cli;
            const ABOUT: &'static str = $about;
            const HINTS: Hints = ACTS;
            // MCP's `set-value` tool takes `steps` instead.
            const MCP: bool = false;

            fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
                let verb = format!("{} {}x", $verb, self.steps);
                self.on.run(ctx, &verb, |l| l.$method(self.steps))
            }
        }
    };
}

stepper!(
    Increment,
    "increment",
    "Step a slider or spin button up [STEPS] times",
    "incremented",
    increment
);
stepper!(
    Decrement,
    "decrement",
    "Step a slider or spin button down [STEPS] times",
    "decremented",
    decrement
);

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetValue {
    #[command(flatten)]
    #[serde(flatten)]
    pub on: On,
    /// The number a slider or spin button should read.
    #[arg(allow_negative_numbers = true)]
    pub value: f64,
}

impl Command for SetValue {
    const NAME: &'static str = "set-value";
    const ABOUT: &'static str = "Set a slider's or spin button's number";
    const HINTS: Hints = SETS;
    // MCP's `set-value` tool also steps.
    const MCP: bool = false;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        let verb = format!("set to {}", self.value);
        self.on.run(ctx, &verb, |l| l.set_value(self.value))
    }
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SelectText {
    #[command(flatten)]
    #[serde(flatten)]
    pub on: On,
    /// The first character (0-based).
    pub from: u32,
    /// The character after the last.
    pub to: u32,
}

impl Command for SelectText {
    const NAME: &'static str = "select-text";
    const ABOUT: &'static str = "Select characters FROM to TO of an element's text";
    const HINTS: Hints = SETS;
    // MCP's `focus` tool selects too.
    const MCP: bool = false;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        let verb = format!("selected characters {} to {} of", self.from, self.to);
        self.on
            .run(ctx, &verb, |l| l.select_text(self.from, self.to))
    }
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Drag {
    /// The element to drag.
    pub source: String,
    /// Where to drop it (its centre).
    #[arg(value_name = "TARGET")]
    pub onto: String,
    #[command(flatten)]
    #[serde(flatten)]
    pub settle: SettleOpt,
    #[command(flatten)]
    #[serde(flatten)]
    pub on: WindowOpt,
}

impl Command for Drag {
    const NAME: &'static str = "drag";
    const ABOUT: &'static str = "Drag an element onto another with the real pointer";
    const HINTS: Hints = ACTS;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        let source = ctx.locator(&self.source, self.on.window)?;
        let onto = ctx.locator(&self.onto, self.on.window)?;
        let outcome = source.drag_to(&onto)?;
        let (text, data) = acted(ctx, &format!("dragged onto {}:", self.onto), &outcome)?;
        finish(ctx, &self.settle, Some(outcome.window), text, data)
    }
}

/// MCP's `expand` tool: `expand` and `collapse` in one, to keep the tool list short.
#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpandTool {
    #[command(flatten)]
    #[serde(flatten)]
    pub on: On,
    /// Collapse it instead.
    #[arg(long)]
    #[serde(default)]
    pub collapse: bool,
}

impl Command for ExpandTool {
    const NAME: &'static str = "expand";
    const ABOUT: &'static str = "Expand (or collapse) a row, expander or combo box";
    const HINTS: Hints = SETS;
    const CLI: bool = false;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        if self.collapse {
            Collapse { on: self.on }.run(ctx)
        } else {
            Expand { on: self.on }.run(ctx)
        }
    }
}

/// MCP's `set-value` tool: a number to set, or steps up (down when negative).
#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetValueTool {
    #[command(flatten)]
    #[serde(flatten)]
    pub on: On,
    /// The number it should read.
    #[arg(long)]
    #[serde(default)]
    pub value: Option<f64>,
    /// Or steps up (negative: down).
    #[arg(long, allow_negative_numbers = true)]
    #[serde(default)]
    pub steps: Option<i64>,
}

impl Command for SetValueTool {
    const NAME: &'static str = "set-value";
    const ABOUT: &'static str = "Set a slider's or spin button's number, or step it";
    const HINTS: Hints = ACTS;
    const CLI: bool = false;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        let steps = |n: i64| {
            u32::try_from(n.unsigned_abs())
                .map_err(|_| CliError::usage(format!("set-value: {n} steps is too many")))
        };
        match (self.value, self.steps) {
            (Some(value), None) => SetValue { on: self.on, value }.run(ctx),
            (None, Some(n)) if n < 0 => Decrement {
                on: self.on,
                steps: steps(n)?,
            }
            .run(ctx),
            (None, Some(n)) => Increment {
                on: self.on,
                steps: steps(n)?,
            }
            .run(ctx),
            _ => Err(CliError::usage(
                "set-value: give value or steps, one of them",
            )),
        }
    }
}

/// MCP's `focus` tool: the focus, and a part of the text selected when
/// `from` and `to` are given (`focus` and `select-text` in one).
#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FocusTool {
    #[command(flatten)]
    #[serde(flatten)]
    pub on: On,
    /// Select from this character (0-based)...
    #[arg(long)]
    #[serde(default)]
    pub from: Option<u32>,
    /// ...to the one before this.
    #[arg(long)]
    #[serde(default)]
    pub to: Option<u32>,
}

impl Command for FocusTool {
    const NAME: &'static str = "focus";
    const ABOUT: &'static str = "Focus an element (from, to: select text)";
    const HINTS: Hints = SETS;
    const CLI: bool = false;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        match (self.from, self.to) {
            (None, None) => Focus { on: self.on }.run(ctx),
            (Some(from), Some(to)) => SelectText {
                on: self.on,
                from,
                to,
            }
            .run(ctx),
            _ => Err(CliError::usage("focus: give both from and to, or neither")),
        }
    }
}
