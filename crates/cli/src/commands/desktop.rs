//! The desktop around the app: `window` (move, resize, minimize, maximize,
//! restore, focus, close, bounds, states, through the window manager) and
//! `apps` (every app on the accessibility bus).

use super::WindowOpt;
use crate::ctx::Ctx;
use crate::output::{CliError, Output};
use crate::registry::{Command, Hints, ACTS, READS};
use clap::Args;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use uidrive_core::protocol::{ManageWindowParams, WindowOp, WindowState};
use uidrive_core::WindowRef;

/// What `window` does; `apps` is the `apps` command, for MCP's short list of tools.
const WINDOW_ACTIONS: [&str; 10] = [
    "move", "resize", "minimize", "maximize", "restore", "focus", "close", "bounds", "states",
    "apps",
];

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WindowCmd {
    // What to do (the command's description lists each).
    #[arg(value_parser = WINDOW_ACTIONS, help = "move X Y, resize W H, minimize, maximize, restore, focus, close, bounds, states (apps: the apps command)")]
    pub action: String,
    // move: X; resize: the width (help on the command line only: MCP's list stays short).
    #[arg(
        allow_negative_numbers = true,
        value_name = "X|WIDTH",
        help = "move: X; resize: the width"
    )]
    #[serde(default)]
    pub first: Option<i64>,
    #[arg(
        allow_negative_numbers = true,
        value_name = "Y|HEIGHT",
        help = "move: Y; resize: the height"
    )]
    #[serde(default)]
    pub second: Option<i64>,
    #[command(flatten)]
    #[serde(flatten)]
    pub on: WindowOpt,
}

/// `window 3 "Title" at 10,20 900x700 [maximized, focused] z 2`
fn state_line(s: &WindowState) -> String {
    let b = &s.bounds;
    let mut line = format!(
        "window {} at {},{} {}x{} [{}]",
        s.id,
        b.x,
        b.y,
        b.width,
        b.height,
        s.states.join(", ")
    );
    if let Some(z) = s.z_index {
        line.push_str(&format!(" zIndex {z}"));
    }
    line
}

impl Command for WindowCmd {
    const NAME: &'static str = "window";
    const ABOUT: &'static str =
        "Window: move X Y, resize W H (first, second), minimize, maximize, restore, focus, close, bounds, states; apps";
    const HINTS: Hints = ACTS;
    const MCP_DESKTOP: bool = true;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        if self.action == "apps" {
            return Apps {}.run(ctx);
        }
        let numbers = |what: &str| -> Result<(i64, i64), CliError> {
            match (self.first, self.second) {
                (Some(a), Some(b)) => Ok((a, b)),
                _ => Err(CliError::usage(format!(
                    "window {}: give {what}",
                    self.action
                ))),
            }
        };
        let op = match self.action.as_str() {
            "move" => WindowOp::Move,
            "resize" => WindowOp::Resize,
            "minimize" => WindowOp::Minimize,
            "maximize" => WindowOp::Maximize,
            "restore" => WindowOp::Restore,
            "focus" => WindowOp::Focus,
            "close" => WindowOp::Close,
            "bounds" | "states" => WindowOp::Read,
            other => {
                return Err(CliError::usage(format!(
                    "window: no action `{other}` (one of {})",
                    WINDOW_ACTIONS.join(", ")
                )))
            }
        };
        let mut params = ManageWindowParams::new(None, op);
        match op {
            WindowOp::Move => {
                let (x, y) = numbers("X Y")?;
                let fit = |v: i64| {
                    i32::try_from(v)
                        .map_err(|_| CliError::usage(format!("window move: {v} is off any screen")))
                };
                params.x = Some(fit(x)?);
                params.y = Some(fit(y)?);
            }
            WindowOp::Resize => {
                let (w, h) = numbers("WIDTH HEIGHT")?;
                let fit = |v: i64| {
                    u32::try_from(v).map_err(|_| {
                        CliError::usage(format!("window resize: {v} is no size in pixels"))
                    })
                };
                params.width = Some(fit(w)?);
                params.height = Some(fit(h)?);
            }
            _ if self.first.is_some() || self.second.is_some() => {
                return Err(CliError::usage(format!(
                    "window {} takes no numbers",
                    self.action
                )))
            }
            _ => {}
        }
        let window = ctx.window(self.on.window);
        let app = ctx.app()?;
        let root = WindowRef::new(app.driver().clone(), window, app.timeouts());
        let state = root.manage(params)?;
        let text = match (self.action.as_str(), state.closed) {
            (_, true) => format!("window {} closed\n", state.id),
            ("bounds", _) => {
                let b = &state.bounds;
                format!("{} {} {} {}\n", b.x, b.y, b.width, b.height)
            }
            ("states", _) if state.states.is_empty() => "normal\n".to_string(),
            ("states", _) => format!("{}\n", state.states.join(" ")),
            _ => format!("{} confirmed: {}\n", self.action, state_line(&state)),
        };
        ctx.note_windows();
        Ok(Output::new(text, json!({ "window": state })))
    }
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Apps {}

impl Command for Apps {
    const NAME: &'static str = "apps";
    const ABOUT: &'static str = "List the desktop's apps: name, pid, toolkit, windows";
    const HINTS: Hints = READS;
    /// MCP's short list has it as the `window` tool's `apps`.
    const MCP: bool = false;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        let list = ctx.app()?.apps()?;
        let mut text = String::new();
        for app in &list.apps {
            let windows: Vec<String> = app.windows.iter().map(|t| format!("{t:?}")).collect();
            text.push_str(&format!(
                "{} pid {} {} windows [{}]\n",
                app.name,
                app.pid,
                app.toolkit,
                windows.join(", ")
            ));
        }
        if text.is_empty() {
            text = "no apps\n".into();
        }
        Ok(Output::new(text, json!({ "apps": list.apps })))
    }
}
