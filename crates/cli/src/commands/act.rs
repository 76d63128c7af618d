//! Commands that act: `press`, `fill`, `click`, `type`, `key`, `check`,
//! `select`, `menu`, `eval`. Targets go through core's locators, which wait
//! for the element and check it can take the action.

use super::{SettleOpt, WindowOpt};
use crate::ctx::Ctx;
use crate::output::{CliError, Output};
use crate::registry::{Command, Hints, ACTS, SETS};
use clap::Args;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use uidrive_core::protocol::{KeyChord, MouseButton};
use uidrive_core::{ActionOutcome, Keyboard, Route, TextMatch};

/// Ends an action: settles and diffs when asked (not inside a batch), else
/// says what was done and what the tree showed of it. A window the action
/// closed is said as `- window 2`, and the settle reads the window that has
/// the focus instead.
pub(super) fn finish(
    ctx: &mut Ctx,
    settle: &SettleOpt,
    window: Option<u64>,
    done: String,
    mut data: Value,
) -> Result<Output, CliError> {
    let closed: Vec<u64> = data["closed"]
        .as_array()
        .map(|c| c.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default();
    if !closed.is_empty() && ctx.state.window.is_some_and(|w| closed.contains(&w)) {
        ctx.state.window = None;
    }
    let window = window.filter(|w| !closed.contains(w));
    if settle.settle && !ctx.in_batch {
        ctx.full_diff = settle.full;
        let (diff, observed) = ctx.settle(window)?;
        data["settled"] = observed;
        // The diff shows what a confirmed action changed; said apart only
        // when nothing the tree shows proved it.
        let mut text = if data["effect"] == "unverifiable" {
            effect_line(&data)
        } else {
            String::new()
        };
        text.push_str(&diff);
        // A closed window the session had seen is in the diff's window lines already.
        if !closed
            .iter()
            .all(|w| diff.contains(&format!("- window {w}")))
        {
            text = closed_lines(&closed) + &text;
        }
        return Ok(Output::new(text, data));
    }
    let text = done + "\n" + &effect_line(&data) + &closed_lines(&closed);
    Ok(Output::new(text, data))
}

/// What the tree showed of the action, as one line (`# confirmed: ...`).
fn effect_line(data: &Value) -> String {
    let detail = |key: &str| data[key].as_str().unwrap_or_default().to_string();
    match data["effect"].as_str() {
        Some("confirmed") => format!("# confirmed: {}\n", detail("observed")),
        Some("unverifiable") => format!("# unverifiable: {}\n", detail("checked")),
        _ => String::new(),
    }
}

fn closed_lines(closed: &[u64]) -> String {
    closed.iter().map(|w| format!("- window {w}\n")).collect()
}

/// The outcome in the one JSON shape every front end gives (route, effect,
/// window, element, closed: see `uidrive_facade::outcome`), plus `line`: the
/// element as a snapshot shows it, with its ref.
pub(super) fn acted(
    ctx: &Ctx,
    verb: &str,
    outcome: &ActionOutcome,
) -> Result<(String, Value), CliError> {
    let what = ctx.describe(outcome.window, &outcome.element);
    let mut data = uidrive_facade::outcome::to_json(outcome)?;
    data["line"] = json!(what);
    Ok((format!("{verb} {what}"), data))
}

/// The keyboard of the session's app, typing into `window` (else the
/// session's window, else the focused one).
fn keyboard(ctx: &mut Ctx, window: Option<u64>) -> Result<Keyboard, CliError> {
    let window = ctx.window(window);
    let app = ctx.app()?;
    Ok(Keyboard::new(app.driver().clone(), window, app.timeouts()))
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Press {
    /// The element: a ref (@e3), key=KEY, id=DIGITS or role=button name="Add".
    pub target: String,
    #[command(flatten)]
    #[serde(flatten)]
    pub settle: SettleOpt,
    #[command(flatten)]
    #[serde(flatten)]
    pub on: WindowOpt,
}

impl Command for Press {
    const NAME: &'static str = "press";
    const ABOUT: &'static str = "Press an element by its own action (else a click)";
    const HINTS: Hints = ACTS;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        // Core's press: its own action, else a click; a press that must show
        // and did not is made again as a click, which the effect line says.
        let outcome = ctx.locator(&self.target, self.on.window)?.activate()?;
        let (text, data) = acted(ctx, "pressed", &outcome)?;
        finish(ctx, &self.settle, Some(outcome.window), text, data)
    }
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Fill {
    /// The field: a ref (@e3), key=KEY, id=DIGITS or role=textField name="Name".
    pub target: String,
    /// The text it should hold.
    pub text: String,
    #[command(flatten)]
    #[serde(flatten)]
    pub settle: SettleOpt,
    #[command(flatten)]
    #[serde(flatten)]
    pub on: WindowOpt,
}

impl Command for Fill {
    const NAME: &'static str = "fill";
    const ABOUT: &'static str = "Replace the text of a field";
    const HINTS: Hints = SETS;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        let outcome = ctx
            .locator(&self.target, self.on.window)?
            .fill(&self.text)?;
        let (text, data) = acted(ctx, "filled", &outcome)?;
        finish(ctx, &self.settle, Some(outcome.window), text, data)
    }
}

fn left() -> String {
    uidrive_core::protocol::MouseButton::default()
        .as_str()
        .into()
}

fn one_click() -> u32 {
    uidrive_core::defaults::CLICKS
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Click {
    /// The element to click at its centre with the real pointer.
    pub target: String,
    /// left, right or middle.
    #[arg(long, value_parser = ["left", "right", "middle"], default_value = "left")]
    #[serde(default = "left")]
    pub button: String,
    /// 2: a double click, 3: a triple click.
    #[arg(long, value_name = "N", default_value_t = one_click())]
    #[serde(default = "one_click")]
    pub count: u32,
    #[command(flatten)]
    #[serde(flatten)]
    pub settle: SettleOpt,
    #[command(flatten)]
    #[serde(flatten)]
    pub on: WindowOpt,
}

impl Command for Click {
    const NAME: &'static str = "click";
    const ABOUT: &'static str = "Click an element with the real pointer";
    const HINTS: Hints = ACTS;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        let button: MouseButton = self
            .button
            .parse()
            .map_err(|e: String| CliError::usage(format!("click: {e}")))?;
        let locator = ctx.locator(&self.target, self.on.window)?;
        let outcome = locator.click_with(button, self.count)?;
        let verb = match (&outcome.route, button, self.count) {
            (Route::Semantic(_), _, _) => {
                "pressed (by its own action: a click at its centre would not land on it)"
                    .to_string()
            }
            (_, MouseButton::Left, 1) => "clicked".to_string(),
            (_, MouseButton::Left, 2) => "double-clicked".to_string(),
            (_, MouseButton::Left, n) => format!("clicked {n} times"),
            (_, b, 1) => format!("{}-clicked", b.as_str()),
            (_, b, n) => format!("{}-clicked {n} times", b.as_str()),
        };
        let (text, data) = acted(ctx, &verb, &outcome)?;
        finish(ctx, &self.settle, Some(outcome.window), text, data)
    }
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Type {
    /// The text to type, as real key input.
    pub text: String,
    /// Type into this element (else the focused one).
    #[arg(long, value_name = "TARGET")]
    #[serde(default)]
    pub into: Option<String>,
    #[command(flatten)]
    #[serde(flatten)]
    pub settle: SettleOpt,
    #[command(flatten)]
    #[serde(flatten)]
    pub on: WindowOpt,
}

impl Command for Type {
    const NAME: &'static str = "type";
    const ABOUT: &'static str = "Type text at the focused element's caret";
    const HINTS: Hints = ACTS;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        if self.text.is_empty() {
            return Err(CliError::usage("type: the text is empty"));
        }
        match &self.into {
            Some(target) => {
                let outcome = ctx.locator(target, self.on.window)?.type_text(&self.text)?;
                let (text, data) = acted(ctx, "typed into", &outcome)?;
                finish(ctx, &self.settle, Some(outcome.window), text, data)
            }
            None => {
                // Checked against the focused element: its text must come to hold it.
                let outcome = keyboard(ctx, self.on.window)?.type_text(&self.text, None)?;
                let data = uidrive_facade::outcome::to_json(&outcome)?;
                let text = format!("typed {:?}", self.text);
                finish(ctx, &self.settle, Some(outcome.window), text, data)
            }
        }
    }
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KeyCmd {
    /// Chords in order: Enter, Shift+Tab...
    #[arg(value_name = "CHORD")]
    #[serde(default)]
    pub keys: Vec<String>,
    /// Hold these down first (until --up).
    #[arg(long, value_name = "CHORD")]
    #[serde(default)]
    pub down: Vec<String>,
    /// Release these last.
    #[arg(long, value_name = "CHORD")]
    #[serde(default)]
    pub up: Vec<String>,
    /// Focus this element first.
    #[arg(long, value_name = "TARGET")]
    #[serde(default)]
    pub into: Option<String>,
    #[command(flatten)]
    #[serde(flatten)]
    pub settle: SettleOpt,
    #[command(flatten)]
    #[serde(flatten)]
    pub on: WindowOpt,
}

impl Command for KeyCmd {
    const NAME: &'static str = "key";
    const ABOUT: &'static str = "Press key chords in order (Enter, Shift+Tab)";
    const HINTS: Hints = ACTS;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        for key in self.keys.iter().chain(&self.down).chain(&self.up) {
            key.parse::<KeyChord>()
                .map_err(|e: String| CliError::usage(format!("key: {e}")))?;
        }
        if self.keys.is_empty() && self.down.is_empty() && self.up.is_empty() {
            return Err(CliError::usage(
                "key: give at least one chord, as Enter (or --down/--up CHORD)",
            ));
        }
        if self.keys.is_empty() || !(self.down.is_empty() && self.up.is_empty()) {
            return self.held(ctx);
        }
        let pressed = self.keys.join(" ");
        match &self.into {
            Some(target) => {
                let locator = ctx.locator(target, self.on.window)?;
                let mut last = None;
                for key in &self.keys {
                    last = Some(locator.press(key)?);
                }
                let outcome = last.expect("at least one chord");
                let (text, data) = acted(ctx, &format!("pressed {pressed} on"), &outcome)?;
                finish(ctx, &self.settle, Some(outcome.window), text, data)
            }
            None => {
                let keyboard = keyboard(ctx, self.on.window)?;
                let mut last = None;
                for key in &self.keys {
                    last = Some(keyboard.press(key)?);
                }
                let outcome = last.expect("at least one chord");
                let data = uidrive_facade::outcome::to_json(&outcome)?;
                let text = format!("pressed {pressed}");
                finish(ctx, &self.settle, Some(outcome.window), text, data)
            }
        }
    }
}

impl KeyCmd {
    /// Keys held down, chords pressed while they are, keys released: in
    /// that order, to whatever has the focus (or --into TARGET, focused first).
    fn held(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        if let Some(target) = &self.into {
            ctx.locator(target, self.on.window)?.focus()?;
        }
        let keyboard = keyboard(ctx, self.on.window)?;
        let mut said = Vec::new();
        let mut last = None;
        for key in &self.down {
            last = Some(keyboard.down(key)?);
            said.push(format!("held {key}"));
        }
        for key in &self.keys {
            last = Some(keyboard.press(key)?);
            said.push(format!("pressed {key}"));
        }
        for key in &self.up {
            last = Some(keyboard.up(key)?);
            said.push(format!("released {key}"));
        }
        let outcome = last.expect("at least one key, checked above");
        let data = uidrive_facade::outcome::to_json(&outcome)?;
        finish(
            ctx,
            &self.settle,
            Some(outcome.window),
            said.join(", "),
            data,
        )
    }
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Check {
    /// The check box, switch, toggle or radio button.
    pub target: String,
    /// Uncheck it instead.
    #[arg(long)]
    #[serde(default)]
    pub off: bool,
    #[command(flatten)]
    #[serde(flatten)]
    pub settle: SettleOpt,
    #[command(flatten)]
    #[serde(flatten)]
    pub on: WindowOpt,
}

impl Command for Check {
    const NAME: &'static str = "check";
    const ABOUT: &'static str = "Check a check box, switch or radio (--off: uncheck)";
    const HINTS: Hints = SETS;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        let outcome = ctx
            .locator(&self.target, self.on.window)?
            .set_checked(!self.off)?;
        let verb = if self.off { "unchecked" } else { "checked" };
        let (text, data) = acted(ctx, verb, &outcome)?;
        finish(ctx, &self.settle, Some(outcome.window), text, data)
    }
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Select {
    /// The combo box, list, menu button or tab list.
    pub target: String,
    /// The item's text, exactly.
    pub option: String,
    #[command(flatten)]
    #[serde(flatten)]
    pub settle: SettleOpt,
    #[command(flatten)]
    #[serde(flatten)]
    pub on: WindowOpt,
}

impl Command for Select {
    const NAME: &'static str = "select";
    const ABOUT: &'static str = "Choose an item of a combo box, list or tab list";
    const HINTS: Hints = SETS;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        let outcome = ctx
            .locator(&self.target, self.on.window)?
            .select_option(TextMatch::exact(self.option.clone()))?;
        let (text, data) = acted(ctx, "selected", &outcome)?;
        finish(ctx, &self.settle, Some(outcome.window), text, data)
    }
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Menu {
    /// Labels from the menu bar down: File "Save As…"
    #[arg(required = true, value_name = "LABEL")]
    pub path: Vec<String>,
    #[command(flatten)]
    #[serde(flatten)]
    pub settle: SettleOpt,
    #[command(flatten)]
    #[serde(flatten)]
    pub on: WindowOpt,
}

impl Command for Menu {
    const NAME: &'static str = "menu";
    const ABOUT: &'static str = "Choose a menu bar item by its path";
    const HINTS: Hints = ACTS;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        if self.path.is_empty() {
            return Err(CliError::usage("menu: give the labels, as File Quit"));
        }
        let window = ctx.window(self.on.window);
        let outcome = ctx.app()?.choose_menu(window, &self.path)?;
        let chosen = self.path.join(" > ");
        let mut data = uidrive_facade::outcome::to_json(&outcome)?;
        data["path"] = json!(self.path);
        finish(
            ctx,
            &self.settle,
            Some(outcome.window),
            format!("chose {chosen}"),
            data,
        )
    }
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Eval {
    /// JavaScript.
    pub script: String,
    #[command(flatten)]
    #[serde(flatten)]
    pub on: WindowOpt,
}

impl Command for Eval {
    const NAME: &'static str = "eval";
    const ABOUT: &'static str = "Evaluate JavaScript in a web page's window";
    const HINTS: Hints = ACTS;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        let window = ctx.window(self.on.window);
        let value = ctx.app()?.eval(window, &self.script)?;
        Ok(Output::new(format!("{value}\n"), json!({"value": value})))
    }
}
