//! Traces: every step of a run, recorded with what the window showed, for a
//! person to look at when a test fails (see docs/trace.md).
//!
//! An [`App`](crate::App) owns a [`Tracing`]; its locators reach it through
//! their driver ([`Driver::tracer`]), so a locator made before tracing
//! started records too. A step is one action (`click`, `fill`, ...) or one
//! `expect`: its call, start and duration, the ladder's rungs it waited on,
//! the route taken, the outcome or the error, and a frame of the window
//! before it (snapshot lines and a capture). A step's "after" is the next
//! step's "before" (or the frame `stop` takes), so recording costs one tree
//! read and at most one capture per step; the capture is skipped when the
//! window's snapshot did not change since the last frame.
//!
//! Events go to a staging directory as they happen (`trace.jsonl` and the
//! pictures), so a process that dies mid-run leaves what it saw, and a
//! command line session can carry one trace across its commands
//! ([`Tracing::resume`], [`Tracing::suspend`]). `stop` zips the directory.

mod view;
pub mod zip;

pub use view::{html, text, Trace, TraceOutput, TraceStep};

use crate::driver::Driver;
use crate::error::{Error, Result};
use crate::locator::{ActionOutcome, Locator};
use crate::protocol::{CaptureParams, IdleParams, Node, Tree, TreeParams, WindowId};
use crate::snapshot::{diff, RefMap, Snapshot, View};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::hash_map::DefaultHasher;
use std::fs::{self, File, OpenOptions};
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// The version of the trace format this build writes (docs/trace.md).
pub const VERSION: u32 = 1;

/// How long a frame waits at most for the app to settle before it reads the window.
pub const SETTLE_MS: u64 = 1_000;

/// The file of events inside a trace.
pub const EVENTS: &str = "trace.jsonl";

/// What a trace records besides the steps themselves.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TraceOptions {
    /// A capture of the window before each step (skipped when it did not change).
    pub screenshots: bool,
    /// The window's snapshot lines before each step, and the diff after it.
    pub snapshots: bool,
    /// A name for the trace, as the test's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

impl Default for TraceOptions {
    fn default() -> TraceOptions {
        TraceOptions {
            screenshots: true,
            snapshots: true,
            title: None,
        }
    }
}

/// What a finished trace holds, as `stop` reports it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceSummary {
    /// Where the trace was written.
    pub path: Option<PathBuf>,
    /// The steps recorded.
    pub steps: u64,
    /// The pictures (window captures) in it.
    pub pictures: u64,
    /// The zip's size in bytes.
    pub bytes: u64,
}

/// How much of one stream a trace keeps: its last 64 KiB (the end of an
/// app's output is what tells why it failed).
pub const OUTPUT_KEPT: usize = 64 * 1024;

/// What a launched app wrote on one of its streams, as a trace records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// Who wrote it, as `gnome-calculator (pid 4242)`.
    pub source: String,
    /// `stdout` or `stderr`.
    pub stream: String,
    /// Everything it wrote so far.
    pub text: String,
}

/// Reads an app's output when a trace is written (the process that keeps
/// it, captured at launch, lives outside core).
pub type OutputSource = Arc<dyn Fn() -> Vec<Output> + Send + Sync>;

/// Recording on or off for one App, shared by its locators. Cheap to clone.
#[derive(Clone, Default)]
pub struct Tracing {
    inner: Arc<Mutex<Option<Recorder>>>,
    /// The app's captured output, written into every trace kept.
    output: Arc<Mutex<Option<OutputSource>>>,
}

/// The last frame: what the window showed before the last step.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Frame {
    id: u64,
    window: Option<WindowId>,
    snapshot: Option<Snapshot>,
    picture: Option<String>,
    picture_hash: Option<u64>,
}

/// What a recording knows between steps; written to the staging directory
/// by `suspend`, so another process can `resume` it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct State {
    options: TraceOptions,
    started_ms: u64,
    next_step: u64,
    next_frame: u64,
    pictures: u64,
    last: Option<Frame>,
    /// The step whose "after" is the next frame.
    pending_after: Option<u64>,
    refs: RefMap,
}

struct Open {
    id: u64,
    depth: u32,
    started: Instant,
    /// The last rung written, so a wait that sees the same thing again is one event.
    last_rung: Option<(String, String)>,
    route: Option<String>,
    /// Whether the step's element was recorded.
    targeted: bool,
}

struct Recorder {
    dir: PathBuf,
    events: File,
    state: State,
    open: Option<Open>,
}

/// An open step, as `begin` hands it out; give it back to `end`.
#[must_use]
pub(crate) struct StepToken {
    tracing: Tracing,
    id: Option<u64>,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or_default()
}

fn io_error(what: &str, path: &Path, e: std::io::Error) -> Error {
    Error::failed(format!("trace: could not {what} {}: {e}", path.display()))
        .with_suggestion("check that the directory exists and is writable")
}

fn staging_dir() -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    std::env::temp_dir().join(format!(
        "uidrive-trace-{}-{}-{}",
        std::process::id(),
        now_ms(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ))
}

fn open_events(dir: &Path) -> Result<File> {
    let path = dir.join(EVENTS);
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| io_error("write", &path, e))
}

impl Tracing {
    fn lock(&self) -> MutexGuard<'_, Option<Recorder>> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Where the app's captured stdout and stderr are read from: a trace
    /// written from now on holds them (the last [`OUTPUT_KEPT`] bytes of
    /// each), so the failure it shows comes with what the app said.
    pub fn set_output(&self, source: OutputSource) {
        *self.output.lock().unwrap_or_else(|p| p.into_inner()) = Some(source);
    }

    /// Whether a recording is on.
    pub fn is_recording(&self) -> bool {
        self.lock().is_some()
    }

    /// Starts recording, in a fresh staging directory under the temp dir.
    /// `invalid_request` if a recording is on already.
    pub fn start(&self, options: TraceOptions) -> Result<()> {
        self.start_in(&staging_dir(), options)
    }

    /// Starts recording into `dir` (made if missing; its old events are dropped).
    pub fn start_in(&self, dir: &Path, options: TraceOptions) -> Result<()> {
        let mut slot = self.lock();
        if slot.is_some() {
            return Err(
                Error::invalid_request("tracing.start: tracing is on already")
                    .with_suggestion("stop the trace first (tracing.stop), then start another"),
            );
        }
        fs::create_dir_all(dir.join("resources")).map_err(|e| io_error("make", dir, e))?;
        let events_path = dir.join(EVENTS);
        let _ = fs::remove_file(&events_path);
        let events = open_events(dir)?;
        let state = State {
            options,
            started_ms: now_ms(),
            next_step: 1,
            next_frame: 1,
            pictures: 0,
            last: None,
            pending_after: None,
            refs: RefMap::new(),
        };
        let mut recorder = Recorder {
            dir: dir.to_path_buf(),
            events,
            state,
            open: None,
        };
        let head = json!({
            "type": "trace",
            "version": VERSION,
            "started": recorder.state.started_ms,
            "title": recorder.state.options.title,
            "screenshots": recorder.state.options.screenshots,
            "snapshots": recorder.state.options.snapshots,
            "uidrive": env!("CARGO_PKG_VERSION"),
        });
        recorder.write(&head)?;
        *slot = Some(recorder);
        Ok(())
    }

    /// Carries on a recording another process `suspend`ed in `dir`.
    pub fn resume(&self, dir: &Path) -> Result<()> {
        let path = dir.join("state.json");
        let text = fs::read_to_string(&path).map_err(|e| io_error("read", &path, e))?;
        let state: State = serde_json::from_str(&text)
            .map_err(|e| Error::failed(format!("trace: {} is damaged: {e}", path.display())))?;
        let events = open_events(dir)?;
        *self.lock() = Some(Recorder {
            dir: dir.to_path_buf(),
            events,
            state,
            open: None,
        });
        Ok(())
    }

    /// Leaves the recording in its directory for a later `resume`, and stops it here.
    pub fn suspend(&self) -> Result<()> {
        self.checkpoint()?;
        self.lock().take();
        Ok(())
    }

    /// Writes what the recording knows to its directory, so another process
    /// can `resume` it, and carries on recording.
    pub fn checkpoint(&self) -> Result<()> {
        let slot = self.lock();
        let Some(recorder) = slot.as_ref() else {
            return Ok(());
        };
        let path = recorder.dir.join("state.json");
        let text = serde_json::to_string(&recorder.state)
            .map_err(|e| Error::failed(format!("trace: could not write its state: {e}")))?;
        fs::write(&path, text).map_err(|e| io_error("write", &path, e))
    }

    /// The staging directory of the recording, while one is on.
    pub fn dir(&self) -> Option<PathBuf> {
        self.lock().as_ref().map(|r| r.dir.clone())
    }

    /// Stops recording. With a path, takes the frame after the last step and
    /// writes the trace there as a zip; without one, drops it. The staging
    /// directory is removed either way. Stopping when off does nothing.
    /// `driver` reads that frame; without one (the app is gone) there is none.
    pub fn stop(
        &self,
        driver: Option<&dyn Driver>,
        path: Option<&Path>,
    ) -> Result<Option<TraceSummary>> {
        if let (Some(driver), Some(_)) = (driver, path) {
            // The last step's after: the window as it is now.
            let window = self
                .lock()
                .as_ref()
                .and_then(|r| r.state.last.as_ref().and_then(|f| f.window));
            self.frame(driver, || driver.tree(&TreeParams { window }), None);
        }
        // Read before the lock is taken: the source may take a moment.
        let outputs = match path {
            Some(_) if self.is_recording() => self
                .output
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone()
                .map(|source| source())
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        let Some(mut recorder) = self.lock().take() else {
            return Ok(None);
        };
        for output in outputs.iter().filter(|o| !o.text.is_empty()) {
            let _ = recorder.write(&output_event(output));
        }
        let summary = match path {
            Some(path) => Some(recorder.finish(path)?),
            None => None,
        };
        let _ = fs::remove_dir_all(&recorder.dir);
        Ok(summary)
    }

    /// Opens a step, unless one is open (then what happens is part of it).
    pub(crate) fn begin(
        &self,
        driver: &dyn Driver,
        action: &str,
        locator: Option<&Locator>,
        args: Value,
    ) -> StepToken {
        let id = {
            let mut slot = self.lock();
            let Some(recorder) = slot.as_mut() else {
                return StepToken {
                    tracing: self.clone(),
                    id: None,
                };
            };
            if let Some(open) = recorder.open.as_mut() {
                open.depth += 1;
                return StepToken {
                    tracing: self.clone(),
                    id: None,
                };
            }
            let id = recorder.state.next_step;
            recorder.state.next_step += 1;
            recorder.open = Some(Open {
                id,
                depth: 0,
                started: Instant::now(),
                last_rung: None,
                route: None,
                targeted: false,
            });
            let event = json!({
                "type": "step",
                "step": id,
                "action": action,
                "locator": locator.map(|l| l.description()),
                "args": args,
                "start": now_ms().saturating_sub(recorder.state.started_ms),
            });
            let _ = recorder.write(&event);
            id
        };
        // The before: one read of the window the locator names, and a capture if it changed.
        match locator {
            Some(locator) => self.frame(driver, || locator.read().map(|r| r.tree), Some(id)),
            None => self.frame(
                driver,
                || driver.tree(&TreeParams { window: None }),
                Some(id),
            ),
        }
        // The step's own time starts once its frame is taken.
        if let Some(open) = self.lock().as_mut().and_then(|r| r.open.as_mut()) {
            open.started = Instant::now();
        }
        StepToken {
            tracing: self.clone(),
            id: Some(id),
        }
    }

    /// A frame: the window's tree now (`read`), its snapshot lines, and a
    /// capture unless its snapshot is the last frame's. It is the "after"
    /// of the step that ended last and the "before" of `step`.
    fn frame(&self, driver: &dyn Driver, read: impl FnOnce() -> Result<Tree>, step: Option<u64>) {
        let (options, last) = {
            let slot = self.lock();
            let Some(recorder) = slot.as_ref() else {
                return;
            };
            (recorder.state.options.clone(), recorder.state.last.clone())
        };
        // What the last step did shows once the app has processed it: an
        // app takes a press as done and redraws a moment later.
        let settling = Instant::now();
        let window = last.as_ref().and_then(|l| l.window);
        let settled = driver.idle(&IdleParams::within(window, SETTLE_MS));
        let settle_ms = settling.elapsed().as_millis() as u64;
        let tree = read();
        let mut slot = self.lock();
        let Some(recorder) = slot.as_mut() else {
            return;
        };
        let id = recorder.state.next_frame;
        recorder.state.next_frame += 1;
        let mut event = json!({"type": "frame", "frame": id, "step": step, "settle": settle_ms});
        if let Err(e) = &settled {
            event["settleError"] = error_json(e);
        }
        let mut frame = Frame {
            id,
            ..Frame::default()
        };
        match &tree {
            Ok(tree) => {
                frame.window = Some(tree.window);
                event["window"] = json!(tree.window);
                if let Some(bounds) = tree.nodes.first().and_then(|n| n.bounds) {
                    event["windowBounds"] = json!(bounds);
                }
                let snapshot = Snapshot::take(tree, &mut recorder.state.refs);
                if options.snapshots {
                    event["lines"] = json!(View::full().lines(&snapshot).unwrap_or_default());
                }
                frame.snapshot = Some(snapshot);
            }
            Err(e) => event["error"] = error_json(e),
        }
        let unchanged = last.as_ref().is_some_and(|last| {
            last.snapshot.is_some()
                && last.snapshot == frame.snapshot
                && last.window == frame.window
        });
        if options.screenshots {
            if unchanged {
                frame.picture = last.as_ref().and_then(|l| l.picture.clone());
                frame.picture_hash = last.as_ref().and_then(|l| l.picture_hash);
                event["pictureReused"] = json!(true);
            } else if tree.is_ok() {
                // The capture is made without the lock: it may take a while.
                drop(slot);
                let capture = driver.capture(&CaptureParams {
                    window: frame.window,
                });
                slot = self.lock();
                let Some(again) = slot.as_mut() else {
                    return;
                };
                match capture {
                    Ok(capture) => {
                        let mut hasher = DefaultHasher::new();
                        capture.png.hash(&mut hasher);
                        let hash = hasher.finish();
                        let same = last.as_ref().filter(|l| l.picture_hash == Some(hash));
                        if let Some(same) = same {
                            frame.picture = same.picture.clone();
                            event["pictureReused"] = json!(true);
                        } else {
                            let name = format!("resources/frame-{id}.png");
                            if fs::write(again.dir.join(&name), &capture.png).is_ok() {
                                again.state.pictures += 1;
                                frame.picture = Some(name);
                            }
                        }
                        frame.picture_hash = Some(hash);
                        event["pictureSize"] = json!([capture.width, capture.height]);
                    }
                    Err(e) => event["captureError"] = error_json(&e),
                }
            }
            event["picture"] = json!(frame.picture);
        }
        let Some(recorder) = slot.as_mut() else {
            return;
        };
        let _ = recorder.write(&event);
        if let Some(done) = recorder.state.pending_after.take() {
            let mut after = json!({"type": "after", "step": done, "frame": id});
            if options.snapshots {
                if let (Some(old), Some(new)) = (
                    last.as_ref().and_then(|l| l.snapshot.as_ref()),
                    frame.snapshot.as_ref(),
                ) {
                    if old.window == new.window {
                        after["diff"] = json!(diff(old, new, 1).render());
                    } else {
                        after["diff"] = json!(format!(
                            "# now window {} (before: window {})\n",
                            new.window, old.window
                        ));
                    }
                }
            }
            let _ = recorder.write(&after);
        }
        recorder.state.last = Some(frame);
    }

    /// What the ladder saw on one read while the step waited.
    pub(crate) fn rung(&self, rung: &str, node: Option<&Node>, seen: String) {
        let mut slot = self.lock();
        let Some(recorder) = slot.as_mut() else {
            return;
        };
        let Some(open) = recorder.open.as_mut() else {
            return;
        };
        let key = (rung.to_string(), seen.clone());
        if open.last_rung.as_ref() == Some(&key) {
            return;
        }
        open.last_rung = Some(key);
        let event = json!({
            "type": "rung",
            "step": open.id,
            "rung": rung,
            "holds": false,
            "at": open.started.elapsed().as_millis() as u64,
            "seen": seen,
            "bounds": node.and_then(|n| n.bounds),
        });
        let _ = recorder.write(&event);
    }

    /// The element the ladder found ready, and the rungs it climbed.
    pub(crate) fn ready(&self, rungs: &[&str], window: WindowId, node: &Node) {
        let mut slot = self.lock();
        let Some(recorder) = slot.as_mut() else {
            return;
        };
        let Some(open) = recorder.open.as_mut() else {
            return;
        };
        // An assertion finds its element at every poll: the first is kept.
        if open.targeted {
            return;
        }
        open.targeted = true;
        let event = json!({
            "type": "target",
            "step": open.id,
            "at": open.started.elapsed().as_millis() as u64,
            "rungs": rungs,
            "window": window,
            "element": crate::locator::describe_node(node),
            "bounds": node.bounds,
        });
        let _ = recorder.write(&event);
    }

    /// Ends a step with what it came to.
    pub(crate) fn end(&self, token: StepToken, outcome: std::result::Result<Value, &Error>) {
        let mut slot = self.lock();
        let Some(recorder) = slot.as_mut() else {
            return;
        };
        let Some(id) = token.id else {
            if let Some(open) = recorder.open.as_mut() {
                open.depth = open.depth.saturating_sub(1);
            }
            return;
        };
        let Some(open) = recorder.open.take() else {
            return;
        };
        let mut event = json!({
            "type": "end",
            "step": id,
            "duration": open.started.elapsed().as_millis() as u64,
        });
        match outcome {
            Ok(value) => {
                event["ok"] = json!(true);
                if let Some(route) = value.get("route") {
                    event["route"] = route.clone();
                }
                if !value.is_null() {
                    event["outcome"] = value;
                }
            }
            Err(e) => {
                event["ok"] = json!(false);
                event["error"] = error_json(e);
            }
        }
        if let Some(route) = open.route {
            event["route"] = json!(route);
        }
        let _ = recorder.write(&event);
        recorder.state.pending_after = Some(id);
    }
}

/// The `output` event of one stream: its last [`OUTPUT_KEPT`] bytes (cut at
/// a line's start when one is near), and how many were left out before them.
fn output_event(output: &Output) -> Value {
    let text = &output.text;
    let mut start = text.len().saturating_sub(OUTPUT_KEPT);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    if start > 0 {
        if let Some(newline) = text[start..].find('\n').filter(|n| *n < 1024) {
            start += newline + 1;
        }
    }
    json!({
        "type": "output",
        "source": output.source,
        "stream": output.stream,
        "text": &text[start..],
        "bytes": text.len(),
        "omitted": start,
    })
}

fn error_json(e: &Error) -> Value {
    json!({"code": e.code.as_str(), "message": e.message, "suggestion": e.suggestion})
}

impl Recorder {
    fn write(&mut self, event: &Value) -> Result<()> {
        let mut line = event.to_string();
        line.push('\n');
        self.events
            .write_all(line.as_bytes())
            .map_err(|e| io_error("write", &self.dir.join(EVENTS), e))
    }

    /// The zip of the staging directory: the events first, then the pictures.
    fn finish(&self, path: &Path) -> Result<TraceSummary> {
        let events_path = self.dir.join(EVENTS);
        let events = fs::read(&events_path).map_err(|e| io_error("read", &events_path, e))?;
        let mut entries = vec![(EVENTS.to_string(), events)];
        let resources = self.dir.join("resources");
        let mut names: Vec<String> = fs::read_dir(&resources)
            .map_err(|e| io_error("read", &resources, e))?
            .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
            .collect();
        names.sort_by_key(|n| {
            n.trim_start_matches("frame-")
                .trim_end_matches(".png")
                .parse::<u64>()
                .unwrap_or(u64::MAX)
        });
        for name in names {
            let file = resources.join(&name);
            let bytes = fs::read(&file).map_err(|e| io_error("read", &file, e))?;
            entries.push((format!("resources/{name}"), bytes));
        }
        let zip = zip::write(&entries)?;
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent).map_err(|e| io_error("make", parent, e))?;
        }
        fs::write(path, &zip).map_err(|e| io_error("write", path, e))?;
        Ok(TraceSummary {
            path: Some(path.to_path_buf()),
            steps: self.state.next_step - 1,
            pictures: self.state.pictures,
            bytes: zip.len() as u64,
        })
    }
}

impl StepToken {
    pub(crate) fn end(self, outcome: std::result::Result<Value, &Error>) {
        let tracing = self.tracing.clone();
        tracing.end(self, outcome);
    }
}

/// Hooks the locator and `expect` code calls at a step's boundaries. Each
/// does nothing (and costs a lock at most) while tracing is off.
impl Locator {
    /// Opens a step for an action or assertion on this locator.
    pub(crate) fn trace_begin(&self, action: &str, args: Value) -> Option<StepToken> {
        let tracing = self.driver.tracer()?;
        if !tracing.is_recording() {
            return None;
        }
        Some(tracing.begin(self.driver.as_ref(), action, Some(self), args))
    }

    /// One rung the ladder waits on (`found` for the match itself).
    pub(crate) fn trace_rung(
        &self,
        rung: &str,
        node: Option<&Node>,
        seen: impl FnOnce() -> String,
    ) {
        if let Some(tracing) = self.driver.tracer().filter(Tracing::is_recording) {
            tracing.rung(rung, node, seen());
        }
    }

    /// The element found ready, and the rungs it passed.
    pub(crate) fn trace_ready(&self, rungs: &[&str], window: WindowId, node: &Node) {
        if let Some(tracing) = self.driver.tracer().filter(Tracing::is_recording) {
            tracing.ready(rungs, window, node);
        }
    }
}

/// Ends the step an action opened, with its outcome.
pub(crate) fn end_action(token: Option<StepToken>, result: &Result<ActionOutcome>) {
    if let Some(token) = token {
        match result {
            Ok(done) => token.end(Ok(serde_json::to_value(done).unwrap_or(Value::Null))),
            Err(e) => token.end(Err(e)),
        }
    }
}

/// Ends the step an assertion opened.
pub(crate) fn end_check(token: Option<StepToken>, result: &Result<()>) {
    if let Some(token) = token {
        match result {
            Ok(()) => token.end(Ok(Value::Null)),
            Err(e) => token.end(Err(e)),
        }
    }
}

/// The driver an App hands its locators: the app's own, which also tells
/// them where the App's [`Tracing`] is.
pub(crate) struct Traced {
    pub inner: Arc<dyn Driver>,
    pub tracing: Tracing,
}

impl Driver for Traced {
    fn hello(&self) -> Result<crate::protocol::Hello> {
        self.inner.hello()
    }
    fn windows(&self) -> Result<crate::protocol::WindowList> {
        self.inner.windows()
    }
    fn tree(&self, params: &TreeParams) -> Result<Tree> {
        self.inner.tree(params)
    }
    fn act(&self, params: &crate::protocol::ActParams) -> Result<()> {
        self.inner.act(params)
    }
    fn input(&self, params: &crate::protocol::InputParams) -> Result<()> {
        self.inner.input(params)
    }
    fn menu(&self, params: &crate::protocol::MenuParams) -> Result<()> {
        self.inner.menu(params)
    }
    fn capture(&self, params: &CaptureParams) -> Result<crate::protocol::Capture> {
        self.inner.capture(params)
    }
    fn eval(&self, params: &crate::protocol::EvalParams) -> Result<Value> {
        self.inner.eval(params)
    }
    fn idle(&self, params: &crate::protocol::IdleParams) -> Result<()> {
        self.inner.idle(params)
    }
    fn element_at(
        &self,
        params: &crate::protocol::ElementAtParams,
    ) -> Result<Option<crate::protocol::ElementId>> {
        self.inner.element_at(params)
    }
    fn cell_at(
        &self,
        params: &crate::protocol::CellAtParams,
    ) -> Result<Vec<crate::protocol::Node>> {
        self.inner.cell_at(params)
    }
    fn wait_event(
        &self,
        params: &crate::protocol::WaitEventParams,
    ) -> Result<crate::protocol::Event> {
        self.inner.wait_event(params)
    }
    fn manage_window(
        &self,
        params: &crate::protocol::ManageWindowParams,
    ) -> Result<crate::protocol::WindowState> {
        self.inner.manage_window(params)
    }
    fn apps(&self) -> Result<crate::protocol::AppList> {
        self.inner.apps()
    }
    fn capture_screen(&self) -> Result<crate::protocol::Capture> {
        self.inner.capture_screen()
    }
    fn tree_for(
        &self,
        params: &TreeParams,
        wanted: &dyn Fn(&Tree) -> Vec<crate::protocol::ElementId>,
    ) -> Result<Tree> {
        self.inner.tree_for(params, wanted)
    }
    fn call(&self, method: &str, params: Option<Value>) -> Result<Value> {
        self.inner.call(method, params)
    }
    fn tracer(&self) -> Option<Tracing> {
        Some(self.tracing.clone())
    }
}

#[cfg(test)]
mod tests;

thread_local! {
    /// The arguments of the action about to open a step on this thread.
    static ARGS: std::cell::RefCell<Value> = const { std::cell::RefCell::new(Value::Null) };
}

/// Notes the arguments of an action (its text, key, option), for the step it opens next.
pub(crate) fn note_args(driver: &dyn Driver, args: impl FnOnce() -> Value) {
    if driver.tracer().is_some_and(|t| t.is_recording()) {
        ARGS.with(|a| *a.borrow_mut() = args());
    }
}

impl Locator {
    /// The arguments noted for the step about to open (taken, so they are used once).
    pub(crate) fn trace_args(&self) -> Value {
        ARGS.with(|a| a.take())
    }
}
