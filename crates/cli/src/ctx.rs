//! What a command runs with: the session's state, the app it drives, and
//! the shared steps of commands (finding a target, settling and diffing).

use crate::daemon;
use crate::output::{nothing_open, CliError};
use crate::session::{SeenWindow, State, Store};
use crate::target::{self, TargetSpec};
use serde_json::{json, Value};
use std::process::Child;
use std::sync::Arc;
use std::time::{Duration, Instant};
use uidrive_core::locator::WindowRef;
use uidrive_core::snapshot::{brief, diff, node_line, Snapshot, View};
use uidrive_core::{App, Error, ErrorCode, Locator, Result, SocketDriver, Timeouts};

/// How long `--settle` waits for the window to settle.
pub const SETTLE_TIMEOUT: Duration = Duration::from_secs(5);

/// The least a command may take beyond its timeout, for the work around
/// what it waits for (the reads before and after it, the action itself):
/// [`grace`] gives the timeout again, and at least this.
pub const MIN_GRACE: Duration = Duration::from_secs(5);

/// What a command may take beyond its `timeout`: as much again (a slow app,
/// as LibreOffice on a busy machine, reads a window in seconds), at least
/// [`MIN_GRACE`]. A command with `--action-timeout 2000` ends within 7 s,
/// one with the default 10 s within 20 s, whatever part (the server, the
/// app, a bus) stops answering.
pub fn grace(timeout: Duration) -> Duration {
    timeout.max(MIN_GRACE)
}

pub struct Ctx {
    pub session: String,
    pub state: State,
    store: Store,
    app: Option<App>,
    /// Daemons this process started and must reap (the MCP server's).
    pub children: Vec<Child>,
    /// Inside a batch: steps don't settle; the batch observes once at the end.
    pub in_batch: bool,
    /// The session ended (`close`): its file goes instead of being saved.
    pub ended: bool,
    /// How long actions wait for their element (`--timeout`), else core's default.
    pub action_timeout: Option<Duration>,
    /// Settled diffs keep every element's line (`--full`), not the brief form.
    pub full_diff: bool,
    /// Serving MCP: hints name tools and arguments, not command lines.
    pub mcp: bool,
    /// The session's file could not be read (only `close` runs then).
    pub damaged: Option<Error>,
    /// When the command's calls must all be answered by ([`Ctx::bound`]).
    deadline: Instant,
    /// The connection the app is driven over, whose calls keep the deadline.
    socket: Option<Arc<SocketDriver>>,
    /// Where commands may write files (anywhere; under MCP, only where allowed).
    pub files: Arc<crate::files::Files>,
}

/// The environment variable that sets every command's action timeout.
pub const ACTION_TIMEOUT_ENV: &str = "UIDRIVE_TIMEOUT_MS";

impl Ctx {
    pub fn new(session: String, store: Store, state: State) -> Ctx {
        Ctx {
            session,
            state,
            store,
            app: None,
            children: Vec::new(),
            in_batch: false,
            ended: false,
            full_diff: false,
            mcp: false,
            damaged: None,
            deadline: Instant::now()
                + Timeouts::default().action
                + grace(Timeouts::default().action),
            socket: None,
            files: Arc::new(crate::files::Files::Anywhere),
            // A bad value is refused where the command line and the MCP
            // server start (`uidrive_facade::time::env_millis`), before this.
            action_timeout: uidrive_facade::time::env_millis(ACTION_TIMEOUT_ENV)
                .ok()
                .flatten(),
        }
    }

    /// Keeps the state for the session's next command (or removes it once ended).
    pub fn save(&self) -> Result<()> {
        // The steps of this command stay in the trace's directory for the next.
        if let (Some(app), Some(_)) = (&self.app, &self.state.trace) {
            app.tracing().checkpoint()?;
        }
        // A session with nothing open keeps nothing (no file, no lock).
        if self.ended || self.state.target.is_none() {
            self.store.delete();
            Ok(())
        } else {
            self.store.save(&self.state)
        }
    }

    /// The file of the session's state; `None` for a session in memory
    /// (an MCP server's own), whose daemons end with the server.
    pub fn state_path(&self) -> Option<&std::path::Path> {
        self.store.state_path()
    }

    /// Starts the session afresh: no app, no refs, no snapshot.
    pub fn forget(&mut self) {
        self.state = State::default();
        self.app = None;
        self.socket = None;
    }

    /// Drops the connection, as when the target changes.
    pub fn disconnect(&mut self) {
        self.app = None;
        self.socket = None;
    }

    /// How long the command waits for its element: `--action-timeout`, else core's default.
    pub fn action_budget(&self) -> Duration {
        self.action_timeout
            .unwrap_or_else(|| Timeouts::default().action)
    }

    /// Bounds what the command does from now on to `budget` (and
    /// its [`grace`]): every call to the app fails with `timeout` once
    /// that time is up, however the server or the app hangs.
    pub fn bound(&mut self, budget: Duration) {
        self.deadline = Instant::now() + budget + grace(budget);
        if let Some(socket) = &self.socket {
            socket.set_deadline(Some(self.deadline));
        }
    }

    /// The app, connected on first use.
    pub fn app(&mut self) -> Result<&App> {
        if self.app.is_none() {
            let Some(target) = &self.state.target else {
                return Err(nothing_open(&self.session));
            };
            let driver = SocketDriver::connect(&target.socket).map_err(|e| {
                let mut message = format!("cannot reach the app of session `{}`: {}", self.session, e.message);
                if let Some(pid) = target.daemon {
                    if !daemon::alive(pid) {
                        message = format!(
                            "the app of session `{}` is gone (its uidrive serve, pid {pid}, exited)",
                            self.session
                        );
                    }
                }
                Error::new(ErrorCode::Disconnected, message)
                    .with_suggestion("run `uidrive close`, then `uidrive open ...` again")
            })?;
            driver.set_deadline(Some(self.deadline));
            let driver = Arc::new(driver);
            self.socket = Some(driver.clone());
            let app = App::new(driver);
            if let Some(action) = self.action_timeout {
                app.set_timeouts(Timeouts {
                    action,
                    ..app.timeouts()
                });
            }
            // A session's trace carries on from its last command.
            if let Some(trace) = &self.state.trace {
                if !app.tracing().is_recording() {
                    app.tracing().resume(&trace.dir)?;
                }
            }
            self.app = Some(app);
        }
        Ok(self.app.as_ref().expect("connected above"))
    }

    /// The window a command uses: the one it names, else the session's,
    /// else the focused one. A session's window that has closed since (a
    /// dialog answered) is let go of: the command follows the focus back
    /// to the window that took it.
    pub fn window(&mut self, named: Option<u64>) -> Option<u64> {
        if named.is_some() {
            return named;
        }
        let kept = self.state.window?;
        let open = self.app().ok().map(|app| app.windows());
        match open {
            Some(Ok(list)) if !list.windows.iter().any(|w| w.id == kept) => {
                self.state.window = None;
                None
            }
            _ => Some(kept),
        }
    }

    /// A locator for a target: a ref (checked against the window's tree now,
    /// so a gone element is refused as `stale_ref` at once), or a selector.
    pub fn locator(
        &mut self,
        target: &str,
        window: Option<u64>,
    ) -> std::result::Result<Locator, CliError> {
        let spec = target::parse(target)?;
        let window = self.window(window);
        let app = self.app()?;
        let driver = app.driver().clone();
        let timeouts = app.timeouts();
        match spec {
            // Checked against a fresh read of its window, so a gone element
            // is `stale_ref` at once: the facade's rule, as in every language.
            TargetSpec::Ref(r) => Ok(uidrive_facade::refs::resolve(
                &mut self.state.refs,
                driver,
                timeouts,
                r,
            )?),
            TargetSpec::Selector(selector) => {
                Ok(WindowRef::new(driver, window, timeouts).locator(&selector))
            }
        }
    }

    /// The line of an element acted on, with its ref if it has one.
    pub fn describe(&self, window: u64, node: &uidrive_core::protocol::Node) -> String {
        // A visual target's box is no element of the tree: it gets no ref.
        let found = (!uidrive_core::visual::is_visual(node))
            .then(|| self.state.refs.ref_of(window, node.id))
            .flatten();
        node_line(found, node)
    }

    /// The app's windows now, as the session remembers them.
    pub fn seen_windows(&mut self) -> Result<Vec<SeenWindow>> {
        Ok(self
            .app()?
            .windows()?
            .windows
            .into_iter()
            .map(|w| SeenWindow {
                id: w.id,
                title: w.title,
                focused: w.focused,
            })
            .collect())
    }

    /// Remembers the windows as they are now (after an observation).
    pub fn note_windows(&mut self) {
        if let Ok(now) = self.seen_windows() {
            self.state.windows = Some(now);
        }
    }

    /// Waits for `window` to settle, takes a snapshot and answers what changed
    /// since the last one (the whole controls view when there is none to
    /// compare). Windows that opened, closed or took the focus since the last
    /// observation come first, as `+ window 2 "Clipboard" focused`; a window
    /// that took the focus becomes the session's window, and is the one read.
    pub fn settle(
        &mut self,
        window: Option<u64>,
    ) -> std::result::Result<(String, Value), CliError> {
        let mut window = self.window(window);
        let mut text = String::new();
        let mut closed = None;
        self.bound(SETTLE_TIMEOUT);
        let app = self.app()?;
        let mut idle = app.idle(window, Some(SETTLE_TIMEOUT));
        // The action may have closed its window (a dialog's OK): then show
        // the window that has the focus now. A window being taken down may
        // answer for an element of it that went, as much as for itself.
        if let (Some(gone), Err(e)) = (window, &idle) {
            let went = matches!(e.code, ErrorCode::NoWindow | ErrorCode::NoElement)
                && app
                    .windows()
                    .is_ok_and(|list| !list.windows.iter().any(|w| w.id == gone));
            if went {
                closed = Some(gone);
                window = None;
                idle = app.idle(None, Some(SETTLE_TIMEOUT));
            }
        }
        if closed.is_some() && self.state.window == closed {
            self.state.window = None;
        }
        let mut windows = Vec::new();
        let before = self.state.windows.clone();
        if let (Some(before), Ok(now)) = (before, self.seen_windows()) {
            let (lines, focus_moved_to) = window_changes(&before, &now);
            for line in &lines {
                windows.push(json!(line));
                text.push_str(line);
                text.push('\n');
            }
            if let Some(focused) = focus_moved_to {
                self.state.window = Some(focused);
                window = Some(focused);
            }
            self.state.windows = Some(now);
        } else {
            if let Some(gone) = closed {
                text.push_str(&format!("- window {gone}\n"));
            }
            self.note_windows();
        }
        let app = self.app()?;
        let tree = app.tree(window)?;
        if let Err(e) = idle {
            if e.code != ErrorCode::Timeout {
                return Err(e.into());
            }
            text.push_str(&format!(
                "# the window did not settle within {} s; this is how it is now\n",
                SETTLE_TIMEOUT.as_secs()
            ));
        }
        let now = Snapshot::take(&tree, &mut self.state.refs);
        let mut data = match self
            .state
            .last
            .as_ref()
            .filter(|old| old.window == now.window)
        {
            Some(old) => {
                let changes = if self.full_diff {
                    diff(old, &now, 1)
                } else {
                    brief(old, &now, 1)
                };
                text.push_str(&changes.render());
                json!({"window": now.window, "diff": changes})
            }
            None => {
                text.push_str(&format!(
                    "# window {} (no earlier snapshot of it to compare): its controls\n",
                    now.window
                ));
                text.push_str(&now.render(&View::interactive())?);
                json!({"window": now.window, "snapshot": View::interactive().lines(&now)?})
            }
        };
        if !windows.is_empty() {
            data["windows"] = Value::Array(windows);
        }
        self.state.last = Some(now);
        Ok((text, data))
    }
}

/// The lines that say which windows opened (`+`), closed (`-`) or took the
/// focus (`*`) between two looks, and the window that took the focus, if
/// the focus moved.
pub fn window_changes(before: &[SeenWindow], now: &[SeenWindow]) -> (Vec<String>, Option<u64>) {
    let mut lines = Vec::new();
    let line = |sign: char, w: &SeenWindow, focused: bool| {
        format!(
            "{sign} window {} {:?}{}",
            w.id,
            w.title,
            if focused { " focused" } else { "" }
        )
    };
    for w in now {
        match before.iter().find(|b| b.id == w.id) {
            None => lines.push(line('+', w, w.focused)),
            Some(b) if w.focused && !b.focused => lines.push(line('*', w, true)),
            Some(_) => {}
        }
    }
    for b in before {
        if !now.iter().any(|w| w.id == b.id) {
            lines.push(line('-', b, false));
        }
    }
    let was = before.iter().find(|w| w.focused).map(|w| w.id);
    let focus = now.iter().find(|w| w.focused).map(|w| w.id);
    let moved = match focus {
        Some(id) if Some(id) != was => Some(id),
        _ => None,
    };
    (lines, moved)
}
