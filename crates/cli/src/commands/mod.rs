//! The agent commands, by what they do. Each is a struct of its arguments
//! (clap on the command line, serde for MCP) and a `run`.

pub mod act;
pub mod batch;
pub mod desktop;
pub mod desktop_services;
pub mod gesture;
pub mod lifecycle;
pub mod observe;
pub mod query;
pub mod terms;

use clap::Args;
use schemars::JsonSchema;
use serde::Deserialize;

// `--window N`: which window; else the session's, else the focused one.
#[derive(Debug, Clone, Default, Args, Deserialize, JsonSchema)]
pub struct WindowOpt {
    /// The window, by the id `windows` lists (default: the session's, else the focused one).
    #[arg(short, long, value_name = "ID", global = false)]
    #[serde(default)]
    pub window: Option<u64>,
}

// `--settle`: after the action, wait for the window to settle and print what changed.
#[derive(Debug, Clone, Default, Args, Deserialize, JsonSchema)]
pub struct SettleOpt {
    /// Wait for the window to settle, then print what changed since the last snapshot (+ came or changed to, - went or changed from, = context).
    #[arg(long)]
    #[serde(default)]
    pub settle: bool,
    /// With settle: every changed element's line, hidden ones too (else a container that came or went is one line with a count).
    #[arg(long, requires = "settle")]
    #[serde(default)]
    pub full: bool,
}
