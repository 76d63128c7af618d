//! `open`, `close` and `skills`.

use crate::ctx::Ctx;
use crate::daemon;
use crate::output::{CliError, Output};
use crate::registry::{Command, Hints, ACTS, ENDS, READS};
use crate::session::Target;
use crate::session::TraceSession;
use clap::Args;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Duration;
use uidrive_core::trace::{TraceOptions, TraceSummary, Tracing};
use uidrive_core::SocketDriver;
use uidrive_facade::Closed;

/// The guide built into the binary.
pub const SKILL: &str = include_str!("../../SKILL.md");

fn default_open_timeout() -> u64 {
    uidrive_core::defaults::LAUNCH.as_millis() as u64
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Open {
    /// Connect to this protocol socket.
    #[arg(long, value_name = "PATH")]
    #[serde(default)]
    pub socket: Option<PathBuf>,
    /// Attach to the process with this pid.
    #[arg(long, value_name = "PID")]
    #[serde(default)]
    pub pid: Option<u32>,
    /// Attach to the app with this accessible name.
    #[arg(long, value_name = "NAME")]
    #[serde(default)]
    pub app: Option<String>,
    /// uidrive's demo UI.
    #[arg(long)]
    #[serde(default)]
    pub demo: bool,
    /// Headless: x11 (default) or wayland.
    #[arg(long, value_name = "BACKEND", num_args = 0..=1, default_missing_value = "x11",
          value_parser = clap::builder::PossibleValuesParser::new(uidrive_facade::Backend::NAMES))]
    #[serde(default, deserialize_with = "headless_value")]
    #[schemars(schema_with = "headless_schema")]
    pub headless: Option<String>,
    /// Add Xwayland (wayland).
    #[arg(long)]
    #[serde(default)]
    pub xwayland: bool,
    /// Milliseconds to wait for the app.
    #[arg(long, value_name = "MS", default_value_t = default_open_timeout())]
    #[serde(default = "default_open_timeout")]
    pub timeout: u64,
    /// Launch this command (last: then its own words).
    #[arg(long, value_name = "CMD", num_args = 1.., allow_hyphen_values = true)]
    #[serde(default)]
    pub launch: Vec<String>,
    /// Record a trace zip to FILE at close.
    #[arg(long, value_name = "FILE")]
    #[serde(default)]
    pub trace: Option<PathBuf>,
}

/// `headless` as MCP gives it: `true` (X11's desktop), `false`, or a backend's name.
#[derive(Deserialize)]
#[serde(untagged)]
enum HeadlessValue {
    On(bool),
    Backend(String),
}

fn headless_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": ["boolean", "string"] })
}

fn headless_value<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match HeadlessValue::deserialize(d)? {
        HeadlessValue::On(true) => Some(uidrive_facade::Backend::X11.name().to_string()),
        HeadlessValue::On(false) => None,
        HeadlessValue::Backend(name) => Some(name),
    })
}

impl Open {
    /// The `uidrive serve` arguments for a daemon, or None to connect to a socket.
    fn serve_args(&self) -> Result<Option<(Vec<String>, String)>, CliError> {
        let chosen = [
            self.socket.is_some(),
            !self.launch.is_empty(),
            self.pid.is_some(),
            self.app.is_some(),
            self.demo,
        ]
        .iter()
        .filter(|c| **c)
        .count();
        if chosen != 1 {
            return Err(CliError::usage(
                "open: give exactly one of --socket PATH, --launch CMD..., --pid N, --app NAME, --demo",
            ));
        }
        if self.socket.is_some() {
            return Ok(None);
        }
        if self.headless.is_some() && self.launch.is_empty() {
            return Err(CliError::usage(
                "open: --headless starts a desktop for an app uidrive launches; use it with --launch",
            ));
        }
        let desktop = uidrive_facade::HeadlessOptions {
            backend: self
                .headless
                .as_deref()
                .map(uidrive_facade::Backend::parse)
                .transpose()
                .map_err(|e| CliError::usage(format!("open --headless: {}", e.message)))?,
            xwayland: self.xwayland,
            ..Default::default()
        };
        desktop
            .check()
            .map_err(|e| CliError::usage(format!("open --xwayland: {}", e.message)))?;
        let mut args = Vec::new();
        if let Some(backend) = desktop.backend {
            args.extend(["--headless".to_string(), backend.name().to_string()]);
        }
        if desktop.xwayland {
            args.push("--xwayland".to_string());
        }
        let what = if self.demo {
            args.push("--demo".into());
            "--demo".to_string()
        } else {
            args.extend(["--launch-timeout-ms".to_string(), self.timeout.to_string()]);
            if let Some(pid) = self.pid {
                args.extend(["--pid".to_string(), pid.to_string()]);
                format!("--pid {pid}")
            } else if let Some(app) = &self.app {
                args.extend(["--app".to_string(), app.clone()]);
                format!("--app {app}")
            } else {
                args.push("--launch".into());
                args.extend(self.launch.iter().cloned());
                format!("--launch {}", self.launch.join(" "))
            }
        };
        Ok(Some((args, what)))
    }
}

impl Command for Open {
    const NAME: &'static str = "open";
    const ABOUT: &'static str = "Open an app: launch, or attach to a pid, name or socket";
    const HINTS: Hints = ACTS;
    const IN_BATCH: bool = false;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        // Wrong arguments change nothing: the session keeps what it had open.
        let plan = self.serve_args()?;
        let timeout = uidrive_facade::time::whole_millis("open --timeout", self.timeout)
            .map_err(|e| CliError::usage(e.message))?;
        // Connecting and starting are bounded by --timeout (and the desktop's start).
        ctx.bound(timeout + Duration::from_secs(30));
        let opened = self.open(plan, ctx);
        if opened.is_err() {
            // A failed open leaves nothing behind: no daemon, no session file
            // (the daemon's log stays, for the error's explanation).
            if let Some(pid) = ctx.state.target.take().and_then(|t| t.daemon) {
                // The open's own error says what went wrong; this is cleanup.
                let _ = daemon::stop(pid, daemon::STOP_GRACE);
            }
            for child in &mut ctx.children {
                let _ = child.wait();
            }
            ctx.children.clear();
            ctx.forget();
            ctx.ended = true;
        }
        opened
    }
}

impl Open {
    fn open(self, plan: Option<(Vec<String>, String)>, ctx: &mut Ctx) -> Result<Output, CliError> {
        // A session drives one app: let go of the one it had.
        if let Some(old) = ctx.state.target.take() {
            if let Some(pid) = old.daemon {
                daemon::stop(pid, daemon::STOP_GRACE)?;
            }
        }
        ctx.forget();
        ctx.ended = false;
        let timeout = Duration::from_millis(self.timeout);
        let target = match plan {
            None => {
                let socket = self.socket.clone().expect("checked in serve_args");
                SocketDriver::connect(&socket)?;
                Target {
                    what: format!("--socket {}", socket.display()),
                    socket,
                    daemon: None,
                    log: None,
                }
            }
            Some((args, what)) => {
                let _progress = crate::output::Progress::start(format!("starting {what}"));
                // A headless desktop takes its own time to start before the app does.
                // An MCP server's own session (in memory) ends with the
                // server, and so does its daemon, even if the server is killed.
                let tied = ctx.state_path().is_none();
                let started =
                    daemon::start(&ctx.session, &args, timeout + Duration::from_secs(30), tied)?;
                let pid = started.child.id();
                ctx.children.push(started.child);
                Target {
                    socket: started.socket,
                    what,
                    daemon: Some(pid),
                    log: Some(started.log),
                }
            }
        };
        ctx.state.target = Some(target.clone());
        ctx.disconnect();
        // The app is up: what follows keeps to a command's usual time.
        ctx.bound(ctx.action_budget());
        let windows = ctx.app()?.windows()?;
        ctx.note_windows();
        let mut text = format!("opened {} in session `{}`\n", target.what, ctx.session);
        if let Some(file) = &self.trace {
            let trace = start_trace(ctx, file, &target.what)?;
            text.push_str(&format!(
                "tracing to {} (written at close)\n",
                trace.display()
            ));
        }
        for w in &windows.windows {
            text.push_str(&crate::commands::observe::window_line(w));
            text.push('\n');
        }
        // An app with no accessibility tree says so at once (and why).
        let notice = windows.extra.get("notice").and_then(|n| n.as_str());
        if let Some(notice) = notice {
            text.push_str(&format!("notice: {notice}\n"));
        }
        text.push_str(match (notice.is_some(), ctx.mcp) {
            (true, true) => "next: visual targets (`ocr=\"TEXT\"`, `ocr~=\"part\"`, `image=PATH`) with click, wait, find; `wait --changed`; the `screenshot` tool\n",
            (true, false) => "next: visual targets (`click 'ocr=\"TEXT\"'`, `wait 'ocr~=\"part\"'`, `image=PATH`), `wait --changed`, `snapshot --ocr`, `uidrive screenshot FILE`\n",
            (false, true) => "next: the `snapshot` tool with interactive: true\n",
            (false, false) => "next: `uidrive snapshot -i`\n",
        });
        Ok(Output::new(
            text,
            json!({"session": ctx.session, "target": target.what, "daemon": target.daemon, "windows": windows.windows, "notice": notice, "tree": notice.is_none(), "visual_targets": notice.map(|_| ["ocr=\"TEXT\"", "ocr~=\"part\"", "ocr=/regex/", "image=PATH threshold=0.9"])}),
        ))
    }
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Close {}

impl Command for Close {
    const NAME: &'static str = "close";
    const ABOUT: &'static str = "End the session and stop the app it launched";
    const HINTS: Hints = ENDS;
    const IN_BATCH: bool = false;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        let written = finish_trace(ctx);
        let target = ctx.state.target.take();
        let mut ended_by = None;
        // Every daemon serving this session: the one its file names, and
        // any other marked with it (its file damaged, emptied or replaced).
        let named = target.as_ref().and_then(|t| t.daemon);
        let others: Vec<u32> = ctx
            .state_path()
            .map(daemon::serving)
            .unwrap_or_default()
            .into_iter()
            .filter(|pid| Some(*pid) != named)
            .collect();
        let mut text = String::new();
        if let Some(e) = ctx.damaged.take() {
            text.push_str(&format!("{}; removed it\n", e.message));
        }
        let stopped = match named {
            Some(pid) => match daemon::stop(pid, daemon::STOP_GRACE) {
                Ok(stopped) => Some((pid, stopped)),
                Err(e) => {
                    // Nothing is claimed, and the session keeps pointing at it.
                    ctx.state.target = target;
                    return Err(e.into());
                }
            },
            None => None,
        };
        for &pid in &others {
            if let daemon::Stopped::Ended { processes } = daemon::stop(pid, daemon::STOP_GRACE)? {
                text.push_str(&format!(
                    "stopped the uidrive serve this session started (pid {pid}, and the {} processes under it; none still runs)\n",
                    processes.saturating_sub(1)
                ));
            }
        }
        if ctx.state_path().is_some() {
            // The daemons' output, kept for an open that failed, goes with the session.
            if let Ok(files) = crate::session::Files::of(&ctx.session) {
                let _ = std::fs::remove_file(files.log);
            }
        }
        for child in &mut ctx.children {
            let _ = child.wait();
        }
        ctx.children.clear();
        ctx.forget();
        ctx.ended = true;
        let session = &ctx.session;
        text.push_str(&match (target, stopped) {
            (Some(target), Some((pid, stopped))) => {
                // The daemon writes which step of closing ended the app.
                ended_by = target.log.as_deref().and_then(closed_step);
                if let Some(log) = &target.log {
                    let _ = std::fs::remove_file(log);
                }
                let how = ended_by
                    .map(|closed| format!(", {}", closed.describe()))
                    .unwrap_or_default();
                match stopped {
                    daemon::Stopped::Ended { processes } => format!(
                        "closed session `{session}` and stopped {} (uidrive serve, pid {pid}, and the {} processes under it; none still runs{how})",
                        target.what,
                        processes.saturating_sub(1)
                    ),
                    daemon::Stopped::NotRunning => format!(
                        "closed session `{session}`; {} had already ended (its uidrive serve, pid {pid}, is gone)",
                        target.what
                    ),
                }
            }
            (Some(target), None) => format!(
                "closed session `{session}`; {} keeps running",
                target.what
            ),
            (None, _) if !others.is_empty() => format!("closed session `{session}`"),
            (None, _) => format!("session `{session}` had nothing open"),
        });
        let trace = match written? {
            Some(summary) => {
                let path = summary.path.clone().unwrap_or_default();
                text.push_str(&format!(
                    "\nwrote the trace {} ({} steps, {} pictures, {} bytes); view it with `uidrive trace show {}`",
                    path.display(),
                    summary.steps,
                    summary.pictures,
                    summary.bytes,
                    path.display()
                ));
                json!(summary)
            }
            None => serde_json::Value::Null,
        };
        Ok(Output::new(
            text,
            json!({"session": ctx.session, "trace": trace, "ended_by": ended_by.map(Closed::as_str)}),
        ))
    }
}

/// Which step of closing ended the app, as the daemon's log says.
fn closed_step(log: &Path) -> Option<Closed> {
    let text = std::fs::read_to_string(log).ok()?;
    text.lines()
        .rev()
        .find_map(|line| line.strip_prefix("UIDRIVE_CLOSED ended_by="))
        .and_then(|step| Closed::named(step.trim()))
}

/// Starts the session's trace, staged beside the session's other files
/// until `close` writes it to `file`.
fn start_trace(ctx: &mut Ctx, file: &Path, what: &str) -> Result<PathBuf, CliError> {
    ctx.files.check(file, "open: trace")?;
    let file = match ctx.files.anywhere() {
        true => std::path::absolute(file)
            .map_err(|e| CliError::usage(format!("open: --trace {}: {e}", file.display())))?,
        false => file.to_path_buf(),
    };
    let dir = std::env::temp_dir().join(format!(
        "uidrive-trace-{}-{}",
        ctx.session,
        std::process::id()
    ));
    let options = TraceOptions {
        title: Some(format!("uidrive session `{}`: {what}", ctx.session)),
        ..TraceOptions::default()
    };
    ctx.app()?.tracing().start_in(&dir, options)?;
    ctx.state.trace = Some(TraceSession {
        file: file.clone(),
        dir,
    });
    Ok(file)
}

/// Writes the session's trace, if it records one: with the window as it is
/// now when the app is still there, else with what the steps saw.
fn finish_trace(ctx: &mut Ctx) -> Result<Option<TraceSummary>, CliError> {
    let Some(trace) = ctx.state.trace.take() else {
        return Ok(None);
    };
    let restored = trace.clone();
    ctx.state.trace = Some(restored);
    // Where files may go only where allowed (MCP), the zip is made in the
    // trace's own directory, then written out under those rules.
    let files = ctx.files.clone();
    let zip = match files.anywhere() {
        true => trace.file.clone(),
        false => trace.dir.join("trace.zip"),
    };
    let written = match ctx.app() {
        Ok(app) => app.stop_tracing(Some(&zip)),
        Err(_) => {
            let tracing = Tracing::default();
            tracing
                .resume(&trace.dir)
                .and_then(|()| tracing.stop(None, Some(&zip)))
        }
    };
    ctx.state.trace = None;
    let mut written = written?;
    if !files.anywhere() {
        let bytes = std::fs::read(&zip)
            .map_err(|e| uidrive_core::Error::failed(format!("could not read the trace: {e}")))?;
        let _ = std::fs::remove_dir_all(&trace.dir);
        let path = files.write(&trace.file, &bytes, "close: trace")?;
        if let Some(summary) = written.as_mut() {
            summary.path = Some(path);
        }
    }
    Ok(written)
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Skills {}

impl Command for Skills {
    const NAME: &'static str = "skills";
    const ABOUT: &'static str =
        "Print the guide for agents: commands, refs, selectors, settling, diffs, errors";
    const HINTS: Hints = READS;
    const MCP: bool = false;
    const IN_BATCH: bool = false;

    fn run(self, _ctx: &mut Ctx) -> Result<Output, CliError> {
        Ok(Output::new(SKILL, json!({"guide": SKILL})))
    }
}

#[cfg(test)]
mod tests {
    use super::Open;

    /// MCP's `headless` is `true` (X11's desktop, as before), `false` or a backend's name.
    #[test]
    fn mcp_gives_headless_as_a_flag_or_a_backend() {
        let open = |headless: serde_json::Value| -> Open {
            serde_json::from_value(
                serde_json::json!({"launch": ["mousepad"], "headless": headless}),
            )
            .unwrap()
        };
        assert_eq!(open(true.into()).headless.as_deref(), Some("x11"));
        assert_eq!(open(false.into()).headless, None);
        assert_eq!(open("wayland".into()).headless.as_deref(), Some("wayland"));
        let args = open("wayland".into()).serve_args().unwrap().unwrap().0;
        assert_eq!(args[..2], ["--headless", "wayland"]);
        let bad = open("mir".into()).serve_args().unwrap_err();
        assert!(
            bad.error.message.contains("wayland"),
            "{}",
            bad.error.message
        );
    }
}
