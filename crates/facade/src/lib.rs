//! The facade between uidrive's front ends (the C ABI, Python, Node, the
//! command line and its MCP server) and core.
//!
//! A front end marshals its language's values in and out and calls this
//! crate for everything that must behave the same in every language:
//!
//! - [`headless`], [`launch`], [`attach`], [`connect`]: reaching an app,
//!   choosing the platform's driver in one place ([`platform`]);
//! - [`close`]: ending what uidrive launched gracefully (TERM, then KILL);
//!   [`process`]: its pid, exit code and, when captured, its output;
//! - [`time`]: turning a language's numbers into timeouts, refusing the
//!   ones that are not (negative, NaN, too large) instead of panicking;
//! - [`desktop_entry`]: apps named by their `.desktop` id;
//! - [`explain`]: a `no_element` that names the app's windows;
//! - [`hints`]: suggestions in each language's own terms;
//! - [`names`]: role and state names, checked at once;
//! - [`reads`]: `is_visible`/`is_hidden` that wait when given a timeout;
//! - [`outcome`]: the one JSON shape of an action's outcome;
//! - [`refs`]: snapshots and the refs they hand out, resolved fail-closed;
//! - [`root`]: the whole desktop as one app (every app's windows);
//! - [`services`]: the desktop's clipboard, notifications and tray;
//! - [`windows`]: the window an action opens, found by its appearance;
//! - [`operations`]: the list of operations every front end offers, which
//!   the parity test holds them to.

#![deny(missing_docs)]

pub mod browser;
pub mod desktop_entry;
pub mod explain;
pub mod hints;
pub mod names;
pub mod operations;
pub mod outcome;
pub mod platform;
pub mod process;
pub mod reads;
pub mod refs;
pub mod root;
pub mod services;
pub mod time;
pub mod windows;

/// Installs uidrive's OCR and template matching (Tesseract, `uidrive-visual`)
/// as core's engine for visual targets. The facade's `connect`, `launch`,
/// `attach` and `headless` do it; a front end that builds its App another
/// way (the CLI's client of its daemon) calls it first.
pub fn install_vision() {
    uidrive_visual::install();
}

pub use platform::{
    attach, close, close_within, connect, headless, launch, AttachTarget, Backend, Closed, Desktop,
    HeadlessOptions, LaunchOptions, CLOSE_GRACE,
};
