//! Commands that only read: `windows`, `snapshot`, `wait`, `screenshot`.

use super::WindowOpt;
use crate::ctx::Ctx;
use crate::output::{CliError, Output, Progress};
use crate::registry::{Command, Hints, READS};
use crate::target::{self, TargetSpec};
use clap::Args;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use std::path::PathBuf;
use uidrive_core::protocol::{Event, EventKind, Window};
use uidrive_core::snapshot::{Snapshot, View};
use uidrive_core::{expect, ErrorCode, ExpectedText, WindowRef};

pub fn window_line(w: &Window) -> String {
    let mut line = format!("window {} {:?} {}", w.id, w.title, w.kind);
    if w.focused {
        line.push_str(" focused");
    }
    if !w.visible {
        line.push_str(" hidden");
    }
    line.push_str(&format!(" {}x{}", w.bounds.width, w.bounds.height));
    // What the window manager says of it (uidrive's additions to `windows`).
    if let Some(states) = w.extra.get("states").and_then(|s| s.as_array()) {
        let states: Vec<&str> = states.iter().filter_map(|s| s.as_str()).collect();
        if !states.is_empty() {
            line.push_str(&format!(" [{}]", states.join(", ")));
        }
    }
    if let Some(z) = w.extra.get("zIndex").and_then(|z| z.as_u64()) {
        line.push_str(&format!(" zIndex {z}"));
    }
    line
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Windows {}

impl Command for Windows {
    const NAME: &'static str = "windows";
    const ABOUT: &'static str = "List the app's windows (use an id with --window)";
    const HINTS: Hints = READS;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        let list = ctx.app()?.windows()?;
        // What `wait --new-window` compares with.
        ctx.state.windows = Some(
            list.windows
                .iter()
                .map(|w| crate::session::SeenWindow {
                    id: w.id,
                    title: w.title.clone(),
                    focused: w.focused,
                })
                .collect(),
        );
        let text: String = list.windows.iter().map(|w| window_line(w) + "\n").collect();
        Ok(Output::new(
            if text.is_empty() {
                "no windows\n".into()
            } else {
                text
            },
            json!({"windows": list.windows}),
        ))
    }
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SnapshotCmd {
    /// Only shown controls, one flat list.
    #[arg(short, long)]
    #[serde(default)]
    pub interactive: bool,
    /// At most this deep (0: the top ones).
    #[arg(short, long, value_name = "N")]
    #[serde(default)]
    pub depth: Option<u32>,
    /// Only this element and its insides.
    #[arg(long, value_name = "TARGET")]
    #[serde(default)]
    pub root: Option<String>,
    /// OCR'd text lines with boxes (no tree).
    #[arg(long, conflicts_with_all = ["interactive", "depth", "root"])]
    #[serde(default)]
    pub ocr: bool,
    #[command(flatten)]
    #[serde(flatten)]
    pub on: WindowOpt,
}

impl Command for SnapshotCmd {
    const NAME: &'static str = "snapshot";
    const ABOUT: &'static str = "The window's elements, with refs (@e1) to act on";
    const HINTS: Hints = READS;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        if self.on.window.is_some() {
            ctx.state.window = self.on.window;
        }
        if self.ocr {
            let window = ctx.window(None);
            let app = ctx.app()?;
            let (window, lines) = uidrive_core::visual::read_window_text(&**app.driver(), window)?;
            let mut text = String::new();
            let notice = app.windows().ok().and_then(|list| {
                list.extra
                    .get("notice")
                    .and_then(|n| n.as_str())
                    .map(str::to_string)
            });
            if let Some(notice) = &notice {
                text.push_str(&format!("notice: {notice}\n"));
            }
            let mut shown = Vec::new();
            for line in lines.iter() {
                let b = line.bounds();
                text.push_str(&format!(
                    "[ocr] {:?} ({}, {}) {}x{}\n",
                    line.text(),
                    b.x,
                    b.y,
                    b.width,
                    b.height
                ));
                shown.push(json!({"text": line.text(), "bounds": b}));
            }
            if shown.is_empty() {
                text.push_str(&format!("OCR read no text in window {window}\n"));
            }
            return Ok(Output::new(
                text,
                json!({"window": window, "ocr": shown, "tree": notice.is_none(), "notice": notice}),
            ));
        }
        // A selector root is found as any target is (one element, waited
        // for), then shown by the ref the snapshot gives it.
        let found_root = match self.root.as_deref().map(target::parse).transpose()? {
            Some(TargetSpec::Selector(_)) => {
                let given = self.root.as_deref().unwrap_or_default();
                Some(ctx.locator(given, None)?.node()?.id)
            }
            _ => None,
        };
        let window = ctx.window(None);
        let tree = ctx.app()?.tree(window)?;
        let snapshot = Snapshot::take(&tree, &mut ctx.state.refs);
        let root = match self.root.as_deref().map(target::parse).transpose()? {
            None => None,
            Some(TargetSpec::Ref(r)) => Some(r),
            Some(TargetSpec::Selector(_)) => {
                let id = found_root.expect("found above");
                let found = ctx.state.refs.ref_of(snapshot.window, id);
                Some(found.ok_or_else(|| {
                    CliError::from(uidrive_core::Error::new(
                        uidrive_core::ErrorCode::StaleRef,
                        format!(
                            "{} went before the snapshot read it",
                            self.root.as_deref().unwrap_or_default()
                        ),
                    ))
                })?)
            }
        };
        let base = if self.interactive {
            View::interactive()
        } else {
            View::full()
        };
        let view = View {
            max_depth: self.depth,
            root,
            ..base
        };
        let picked = view.pick(&snapshot)?;
        let mut text = snapshot.render(&view)?;
        if text.is_empty() {
            text = format!(
                "no {}elements in window {}\n",
                if self.interactive { "interactive " } else { "" },
                snapshot.window
            );
        }
        let elements: Vec<_> = picked.iter().map(|p| &snapshot.elements[p.index]).collect();
        let data = json!({"window": snapshot.window, "elements": elements});
        ctx.state.last = Some(snapshot);
        ctx.note_windows();
        Ok(Output::new(text, data))
    }
}

fn default_wait_timeout() -> u64 {
    uidrive_core::defaults::IDLE.as_millis() as u64
}

/// `wait --event`'s kinds, as core names them.
fn event_kinds() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(EventKind::ALL.map(EventKind::as_str))
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Wait {
    /// Wait for this element (a ref, key=..., role=button name="Add") to show (with --text or --contains: to read so); none: wait for the window to settle.
    #[serde(default)]
    pub target: Option<String>,
    /// Its text (label, else value) is this, whole; /pattern/ is a regex.
    #[arg(long, value_name = "TEXT", conflicts_with = "contains")]
    #[serde(default)]
    pub text: Option<String>,
    /// Its text holds this, as a part.
    #[arg(long, value_name = "TEXT")]
    #[serde(default)]
    pub contains: Option<String>,
    /// Wait for it to go instead.
    #[arg(long)]
    #[serde(default)]
    pub gone: bool,
    /// A window whose title holds this.
    #[arg(long = "window-titled", value_name = "TITLE", conflicts_with_all = ["target", "text", "contains", "gone"])]
    #[serde(default)]
    pub window_titled: Option<String>,
    /// An event the app sends (of the target).
    #[arg(long, value_name = "KIND", value_parser = event_kinds(), conflicts_with_all = ["text", "contains", "gone", "window_titled"])]
    #[serde(default)]
    pub event: Option<String>,
    /// Until the pixels change, then settle; X,Y,W,H: a region.
    #[arg(long, value_name = "REGION", num_args = 0..=1, default_missing_value = "window", conflicts_with_all = ["target", "text", "contains", "gone", "window_titled", "event"])]
    #[serde(default)]
    pub changed: Option<String>,
    #[arg(long = "new-window", help = "A window not listed at the last windows or snapshot (one an action opened)", conflicts_with_all = ["target", "text", "contains", "gone", "window_titled", "event", "changed"])]
    #[serde(default)]
    pub new_window: bool,
    /// Milliseconds.
    #[arg(long, value_name = "MS", default_value_t = default_wait_timeout())]
    #[serde(default = "default_wait_timeout")]
    pub timeout: u64,
    #[command(flatten)]
    #[serde(flatten)]
    pub on: WindowOpt,
    /// A notification holding this (summary or body).
    #[arg(long, value_name = "TEXT", conflicts_with_all = ["target", "text", "contains", "gone", "window_titled", "event", "changed"])]
    #[serde(default)]
    pub notification: Option<String>,
}

/// `X,Y,W,H` (window coordinates) as a region; `window` (or nothing) for the whole window.
fn region(text: &str) -> Result<Option<uidrive_core::protocol::Bounds>, CliError> {
    let text = text.trim();
    if text.is_empty() || text == "window" {
        return Ok(None);
    }
    let numbers: Vec<f64> = text
        .split(',')
        .map(|n| n.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| CliError::usage(format!("wait --changed {text}: a region is X,Y,W,H in the window's pixels, as 10,20,200,40")))?;
    match numbers[..] {
        [x, y, w, h] if w > 0.0 && h > 0.0 => {
            Ok(Some(uidrive_core::protocol::Bounds::new(x, y, w, h)))
        }
        _ => Err(CliError::usage(format!(
            "wait --changed {text}: a region is X,Y,W,H with a width and height above 0"
        ))),
    }
}

impl Command for Wait {
    const NAME: &'static str = "wait";
    const ABOUT: &'static str =
        "Wait until something shows, goes or changes, or the window settles";
    const HINTS: Hints = READS;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        let timeout = uidrive_facade::time::whole_millis("wait --timeout", self.timeout)
            .map_err(|e| CliError::usage(e.message))?;
        ctx.bound(timeout);
        if let Some(text) = &self.notification {
            return super::desktop_services::wait_for_notification(ctx, text, timeout);
        }
        if let Some(kind) = &self.event {
            return wait_for_event(ctx, kind, self.target.as_deref(), self.on.window, timeout);
        }
        if self.new_window {
            let before: Vec<u64> = match &ctx.state.windows {
                Some(seen) => seen.iter().map(|w| w.id).collect(),
                None => {
                    return Err(CliError::usage(
                        "wait --new-window: no windows were listed yet in this session; run `windows` (or snapshot) before the action that opens one",
                    ))
                }
            };
            let _progress = Progress::start("waiting for a new window".into());
            let app = ctx.app()?;
            let shown = uidrive_facade::windows::wait_for_new_window(app, &before, timeout)?;
            ctx.note_windows();
            return Ok(Output::new(
                format!("{}\n", window_line(&shown)),
                json!({"window": shown}),
            ));
        }
        if let Some(title) = &self.window_titled {
            let title = ExpectedText::parse(title)?.to_text_match(false);
            let _progress = Progress::start(format!("waiting for a window titled {title}"));
            let shown = ctx.app()?.wait_for_window(&title, timeout)?;
            ctx.note_windows();
            return Ok(Output::new(
                format!("{}\n", window_line(&shown)),
                json!({"window": shown}),
            ));
        }
        let window = ctx.window(self.on.window);
        if let Some(changed) = &self.changed {
            let area = region(changed)?;
            let _progress =
                Progress::start("waiting for the window's pixels to change and settle".into());
            let app = ctx.app()?;
            let root = WindowRef::new(app.driver().clone(), window, app.timeouts());
            let watched = root.wait_changed(area, timeout)?;
            return Ok(Output::new(
                format!(
                    "changed and settled ({}, {}) {}x{}\n",
                    watched.x, watched.y, watched.width, watched.height
                ),
                json!({"changed": true, "region": watched}),
            ));
        }
        // The text, whole (--text) or a part (--contains), as `expect` compares.
        let wanted = match (&self.text, &self.contains) {
            (Some(_), Some(_)) => {
                return Err(CliError::usage("wait: give --text or --contains, not both"))
            }
            (Some(text), None) => Some((ExpectedText::parse(text)?, true, text.clone())),
            (None, Some(text)) => Some((ExpectedText::parse(text)?, false, text.clone())),
            (None, None) => None,
        };
        let (locator, what) = match (&self.target, &wanted) {
            (None, None) => {
                let _progress = Progress::start("waiting for the window to settle".into());
                ctx.app()?.idle(window, Some(timeout))?;
                return Ok(Output::new("settled\n", json!({"settled": true})));
            }
            (Some(target), _) => {
                let located = match ctx.locator(target, self.on.window) {
                    // A gone element is what --gone waits for.
                    Err(e) if self.gone && e.error.code == ErrorCode::StaleRef => {
                        return Ok(Output::new(
                            format!("{target} is gone\n"),
                            json!({"gone": true}),
                        ));
                    }
                    other => other?,
                };
                (located, target.clone())
            }
            (None, Some((text, whole, given))) => {
                let app = ctx.app()?;
                let root = WindowRef::new(app.driver().clone(), window, app.timeouts());
                let how = if *whole { "text" } else { "text containing" };
                (
                    root.get_by_text(text.to_text_match(*whole)),
                    format!("{how} {given:?}"),
                )
            }
        };
        let _progress = Progress::start(format!("waiting for {what}"));
        let check = expect(&locator).with_timeout(timeout);
        // For a wait, running out of time is a timeout, not a failed assertion.
        let timed_out = |e: uidrive_core::Error| {
            if e.code == ErrorCode::AssertionFailed {
                uidrive_core::Error::timeout(e.message).with_suggestion(
                    "check the snapshot for what the window shows, or wait longer with --timeout",
                )
            } else {
                e
            }
        };
        // A target with a text: wait for the target to read it.
        if let (Some(target), Some((text, whole, given))) = (&self.target, wanted) {
            let reads = if whole { "reads" } else { "holds" };
            let check = if self.gone { check.not() } else { check };
            if whole {
                check.to_have_text(text).map_err(timed_out)?;
            } else {
                check.to_contain_text(text).map_err(timed_out)?;
            }
            let not = if self.gone { "no longer " } else { "" };
            return Ok(Output::new(
                format!("{target} {not}{reads} {given:?}\n"),
                json!({"reads": !self.gone, "text": given}),
            ));
        }
        if self.gone {
            check.to_be_hidden().map_err(timed_out)?;
            Ok(Output::new(
                format!("{what} is gone\n"),
                json!({"gone": true}),
            ))
        } else {
            check.to_be_visible().map_err(timed_out)?;
            let node = locator.first().node()?;
            let window = ctx
                .app()?
                .tree(window)
                .map(|t| t.window)
                .unwrap_or_default();
            let shown = ctx.describe(window, &node);
            Ok(Output::new(
                format!("{shown} shows\n"),
                json!({"shown": true}),
            ))
        }
    }
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Screenshot {
    // On the command line `screenshot FILE` or `screenshot TARGET FILE`: one
    // word is the file (run() sorts them out).
    #[arg(
        required = true,
        value_name = "TARGET",
        help = "An element to capture alone (then FILE follows); alone: the file"
    )]
    #[serde(default)]
    pub target: Option<String>,
    /// The PNG path (MCP: in allowed dirs; none: the image back).
    #[arg(value_name = "FILE")]
    #[serde(default)]
    pub file: Option<PathBuf>,
    #[arg(
        long,
        conflicts_with = "window",
        help = "The whole screen instead of the window"
    )]
    #[serde(default)]
    pub desktop: bool,
    #[command(flatten)]
    #[serde(flatten)]
    pub on: WindowOpt,
}

impl Command for Screenshot {
    const NAME: &'static str = "screenshot";
    const ABOUT: &'static str = "Capture the window (or one element) as a PNG";
    const HINTS: Hints = READS;

    fn run(mut self, ctx: &mut Ctx) -> Result<Output, CliError> {
        if !ctx.mcp && self.file.is_none() {
            // `screenshot FILE`: the one word is the file.
            self.file = self.target.take().map(PathBuf::from);
        }
        let capture = if let Some(target) = &self.target {
            if self.desktop {
                return Err(CliError::usage(
                    "screenshot: an element or --desktop, not both",
                ));
            }
            ctx.locator(target, self.on.window)?.screenshot()?
        } else if self.desktop {
            ctx.app()?.capture_screen()?
        } else {
            let window = ctx.window(self.on.window);
            ctx.app()?.capture(window)?
        };
        let mut size = format!("{}x{}", capture.width, capture.height);
        if capture.clipped {
            size.push_str(", clipped: part of the window is off the screen and not in the picture");
        }
        match self.file {
            Some(file) => {
                let file = ctx.files.write(&file, &capture.png, "screenshot")?;
                Ok(Output::new(
                    format!("wrote {} ({size})\n", file.display()),
                    json!({"file": file, "width": capture.width, "height": capture.height, "clipped": capture.clipped}),
                ))
            }
            None => {
                let mut out = Output::new(
                    format!("captured {size}\n"),
                    json!({"width": capture.width, "height": capture.height, "clipped": capture.clipped}),
                );
                out.image = Some(capture.png);
                Ok(out)
            }
        }
    }
}

/// `wait --event KIND [TARGET]`: the event, with its element by ref where
/// the session has one, and the new value it announced.
fn wait_for_event(
    ctx: &mut Ctx,
    kind: &str,
    target: Option<&str>,
    window: Option<u64>,
    timeout: std::time::Duration,
) -> Result<Output, CliError> {
    let kind: EventKind = kind.parse()?;
    let locator = target.map(|t| ctx.locator(t, window)).transpose()?;
    let on = target.map_or(String::new(), |t| format!(" on {t}"));
    let _progress = Progress::start(format!("waiting for a {kind} event{on}"));
    let event = ctx
        .app()?
        .wait_for_event(kind, locator.as_ref(), Some(timeout))?;
    Ok(Output::new(
        format!("{}\n", event_line(ctx, &event)),
        json!({"event": event}),
    ))
}

fn event_line(ctx: &Ctx, event: &Event) -> String {
    let kind = event.kind.map_or("event", EventKind::as_str);
    let mut line = format!("{kind} ({})", event.detail);
    let named = match (event.element, event.window) {
        (Some(id), Some(w)) => ctx.state.refs.ref_of(w, id).map(|r| r.to_string()),
        (Some(id), None) => ctx.state.refs.ref_of_id(id).map(|r| r.to_string()),
        _ => None,
    };
    if let Some(r) = named {
        line.push_str(&format!(" on {r}"));
    }
    if let Some(node) = &event.node {
        line.push_str(&format!(" [{}]", node.role.as_str()));
        if let Some(name) = node.label.as_deref().filter(|n| !n.is_empty()) {
            line.push_str(&format!(" {name:?}"));
        }
    }
    if let Some(value) = &event.value {
        line.push_str(&format!(": {value:?}"));
    }
    line
}
