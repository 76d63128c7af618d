//! `App`: a target to drive — a driver, plus the process uidrive launched, if any.

use crate::driver::Driver;
use crate::error::{Error, ErrorCode, Result};
use crate::locator::TextMatch;
use crate::protocol::{
    ActParams, Capture, CaptureParams, EvalParams, IdleParams, InputEvent, InputParams, MenuParams,
    Tree, TreeParams, Window, WindowId, WindowList,
};
use crate::socket::SocketDriver;
use crate::trace::{TraceOptions, TraceSummary, Tracing};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How often `wait_for_window` lists the windows.
const WINDOW_POLL: Duration = Duration::from_millis(50);

/// How long locators wait by default. Both can be changed per App and per call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// For actions and strict reads: until the element is there and can take the action.
    pub action: Duration,
    /// For `expect` assertions.
    pub expect: Duration,
}

impl Default for Timeouts {
    fn default() -> Timeouts {
        Timeouts {
            action: crate::defaults::ACTION,
            expect: crate::defaults::EXPECT,
        }
    }
}

/// An app under automation. Cheap to share between threads (`Arc<App>`).
///
/// An App is made over a [`Driver`]: [`App::connect`] for an app that
/// speaks the protocol on a socket, [`App::launch_socket`] to start one, or
/// [`App::new`] over any driver, as here with the in-memory demo UI:
///
/// ```
/// use std::sync::Arc;
/// use uidrive_core::{App, MemoryDriver};
///
/// let app = App::new(Arc::new(MemoryDriver::new()));
/// let windows = app.windows()?;
/// assert_eq!(windows.windows.len(), 1);
/// assert_eq!(windows.windows[0].title, "Counter");
///
/// // One read of the focused window's elements, every parent before its children.
/// let tree = app.tree(None)?;
/// let add = tree.nodes.iter().find(|n| n.label.as_deref() == Some("Add")).unwrap();
/// assert_eq!(add.role, uidrive_core::protocol::Role::Button);
///
/// // Locators start at the App: its focused window, else the first.
/// app.get_by_key("add").click()?;
/// assert_eq!(app.get_by_key("count").text()?, "Count: 1");
/// # Ok::<(), uidrive_core::Error>(())
/// ```
pub struct App {
    driver: Arc<dyn Driver>,
    process: Arc<Mutex<Option<Child>>>,
    pid: Option<u32>,
    socket: Option<PathBuf>,
    timeouts: Mutex<Timeouts>,
    /// The refs this App's snapshots hand out, kept so they stay stable across snapshots.
    pub(crate) refs: Mutex<crate::snapshot::RefMap>,
    /// The trace recorder its locators reach through `driver`.
    tracing: Tracing,
}

impl App {
    /// An app reached through `driver`, with no process of uidrive's own.
    pub fn new(driver: Arc<dyn Driver>) -> App {
        let (driver, tracing) = traced(driver);
        App {
            driver,
            tracing,
            process: Arc::default(),
            pid: None,
            socket: None,
            timeouts: Mutex::default(),
            refs: Mutex::default(),
        }
    }

    /// An app that uidrive launched as `process`: closing the App ends it.
    /// It is reaped as soon as it ends (no zombie while nobody asks).
    pub fn with_process(driver: Arc<dyn Driver>, process: Child) -> App {
        let id = process.id();
        let pid = Some(id);
        let process = Arc::new(Mutex::new(Some(process)));
        crate::children::reap_on_exit(id, process.clone());
        // Every call, locators' included, tells an app that exited from one that failed.
        let driver = Arc::new(Watched {
            inner: driver,
            process: process.clone(),
        });
        let (driver, tracing) = traced(driver);
        App {
            driver,
            tracing,
            process,
            pid,
            socket: None,
            timeouts: Mutex::default(),
            refs: Mutex::default(),
        }
    }

    /// Connects to an app that listens on a protocol socket.
    pub fn connect(socket: impl AsRef<Path>) -> Result<App> {
        let driver = SocketDriver::connect(socket.as_ref())?;
        Ok(App::new(Arc::new(driver)))
    }

    /// Launches `argv` with the environment variable `socket_env` naming a fresh
    /// socket path (as MyGo apps take `MYGO_AUTOMATION`), and connects once the
    /// app listens there, within `timeout`.
    pub fn launch_socket(
        argv: &[String],
        env: &[(String, String)],
        socket_env: &str,
        timeout: Duration,
    ) -> Result<App> {
        let (program, args) = argv.split_first().ok_or_else(|| {
            Error::invalid_request("launch: argv is empty; give the program and its arguments")
        })?;
        if socket_env.is_empty() {
            return Err(Error::invalid_request(
                "launch: socket_env is empty; name the variable the app reads, as MYGO_AUTOMATION",
            ));
        }
        let socket = fresh_socket_path();
        let mut command = Command::new(program);
        command
            .args(args)
            .envs(env.iter().cloned())
            .env(socket_env, &socket)
            .stdin(Stdio::null());
        // Tied to this process: a uidrive that is killed takes the app with it.
        let mut child = crate::children::spawn_tied(command).map_err(|e| {
            Error::failed(format!("could not start `{program}`: {e}"))
                .with_suggestion("check that the program exists and is executable")
        })?;
        let deadline = Instant::now() + timeout;
        let driver = loop {
            if let Some(status) = child.try_wait().ok().flatten() {
                return Err(Error::new(
                    ErrorCode::AppExited,
                    format!(
                        "`{program}` exited ({status}) before listening on {}",
                        socket.display()
                    ),
                )
                .exited(&status));
            }
            match SocketDriver::connect(&socket) {
                Ok(driver) => break driver,
                Err(e) if Instant::now() >= deadline => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(Error::timeout(format!(
                        "`{program}` did not listen on {} within {} ms (last: {})",
                        socket.display(),
                        timeout.as_millis(),
                        e.message
                    ))
                    .with_suggestion(format!(
                        "check that the app reads {socket_env} and speaks the automation protocol"
                    )));
                }
                Err(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        };
        let mut app = App::with_process(Arc::new(driver), child);
        app.socket = Some(socket);
        Ok(app)
    }

    /// The driver every call goes through (wrapped to record traces and, for a launched app, to notice that it exited).
    pub fn driver(&self) -> &Arc<dyn Driver> {
        &self.driver
    }

    /// The App's trace recorder (docs/trace.md), shared by its locators.
    pub fn tracing(&self) -> &Tracing {
        &self.tracing
    }

    /// Starts recording every step of this App's locators and assertions.
    pub fn start_tracing(&self, options: TraceOptions) -> Result<()> {
        self.tracing.start(options)
    }

    /// Stops recording; with a path, writes the trace there as a zip.
    pub fn stop_tracing(&self, path: Option<&Path>) -> Result<Option<TraceSummary>> {
        self.tracing.stop(Some(self.driver.as_ref()), path)
    }

    /// The pid of the process uidrive launched, if it launched one.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// The timeouts its locators start with.
    pub fn timeouts(&self) -> Timeouts {
        *self.timeouts.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Changes the timeouts of locators made from now on (a locator keeps the ones it was made with).
    pub fn set_timeouts(&self, timeouts: Timeouts) {
        *self.timeouts.lock().unwrap_or_else(|p| p.into_inner()) = timeouts;
    }

    /// Ends the process uidrive launched (if any) and waits for it. Closing twice does nothing.
    pub fn close(&self) -> Result<()> {
        if let Some(mut child) = self.process_lock().take() {
            if child.try_wait().ok().flatten().is_none() {
                let _ = child.kill();
            }
            child
                .wait()
                .map_err(|e| Error::failed(format!("could not wait for the app to end: {e}")))?;
        }
        if let Some(socket) = &self.socket {
            let _ = std::fs::remove_file(socket);
        }
        Ok(())
    }

    /// The process uidrive launched: `None` when it launched none or
    /// [`App::close`] has reaped it, else whether it still runs.
    pub fn process_running(&self) -> Option<bool> {
        self.process_lock()
            .as_mut()
            .map(|child| matches!(child.try_wait(), Ok(None)))
    }

    /// `app_exited` if the process uidrive launched has ended.
    pub fn check_alive(&self) -> Result<()> {
        if let Some(child) = self.process_lock().as_mut() {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(
                    Error::new(ErrorCode::AppExited, format!("the app exited ({status})"))
                        .exited(&status),
                );
            }
        }
        Ok(())
    }

    fn process_lock(&self) -> MutexGuard<'_, Option<Child>> {
        self.process.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The app's windows (`windows`).
    pub fn windows(&self) -> Result<WindowList> {
        self.driver.windows()
    }

    /// Waits until a window whose title matches shows (one that opens later,
    /// as a dialog an action opens), up to `timeout`; the first such window.
    pub fn wait_for_window(&self, title: &TextMatch, timeout: Duration) -> Result<Window> {
        let deadline = Instant::now() + timeout;
        loop {
            let list = self.windows()?;
            if let Some(found) = list.windows.iter().find(|w| title.matches(&w.title)) {
                return Ok(found.clone());
            }
            if Instant::now() >= deadline {
                let titles: Vec<String> = list
                    .windows
                    .iter()
                    .map(|w| format!("{:?}", w.title))
                    .collect();
                return Err(Error::timeout(format!(
                    "no window titled {title} showed within {} ms; the app's windows: {}",
                    timeout.as_millis(),
                    if titles.is_empty() {
                        "none".into()
                    } else {
                        titles.join(", ")
                    }
                ))
                .with_suggestion(
                    "check the title against the app's windows above, or wait longer",
                ));
            }
            std::thread::sleep(WINDOW_POLL.min(deadline.saturating_duration_since(Instant::now())));
        }
    }

    /// One read of a window's elements (`tree`); `None`: the focused window, else the first.
    pub fn tree(&self, window: Option<WindowId>) -> Result<Tree> {
        self.driver.tree(&TreeParams { window })
    }

    /// Performs one action on one element (`act`).
    pub fn act(&self, params: &ActParams) -> Result<()> {
        self.driver.act(params)
    }

    /// Sends real input events, in order (`input`), releasing what they press when the request ends.
    pub fn input(&self, window: Option<WindowId>, events: Vec<InputEvent>) -> Result<()> {
        self.driver.input(&InputParams {
            window,
            events,
            hold: false,
        })
    }

    /// Chooses a menu item by its labels from the menu bar down (`menu`).
    pub fn menu(&self, window: Option<WindowId>, path: Vec<String>) -> Result<()> {
        self.driver.menu(&MenuParams { window, path })
    }

    /// A picture of a window (`capture`).
    pub fn capture(&self, window: Option<WindowId>) -> Result<Capture> {
        self.driver.capture(&CaptureParams { window })
    }

    /// Runs JavaScript in a window that shows a web page (`eval`); native windows answer `unsupported`.
    pub fn eval(&self, window: Option<WindowId>, script: &str) -> Result<Value> {
        self.driver.eval(&EvalParams {
            window,
            script: script.to_string(),
        })
    }

    /// Waits until the window has settled (`idle`), up to `timeout` (sent in milliseconds); `None`: the driver's own limit (the socket driver's default is 10 s).
    pub fn idle(&self, window: Option<WindowId>, timeout: Option<Duration>) -> Result<()> {
        let timeout = timeout.map(|t| t.as_millis() as u64);
        self.driver.idle(&IdleParams {
            window,
            timeout,
            quiet: None,
        })
    }

    /// Any method by name with JSON params: the generic door, for methods without a typed call.
    pub fn call(&self, method: &str, params: Option<Value>) -> Result<Value> {
        self.driver.call(method, params)
    }
}

impl Drop for App {
    fn drop(&mut self) {
        let _ = self.close();
    }
}

/// The driver wrapped so its locators find the App's trace recorder.
fn traced(inner: Arc<dyn Driver>) -> (Arc<dyn Driver>, Tracing) {
    let tracing = Tracing::default();
    let driver = Arc::new(crate::trace::Traced {
        inner,
        tracing: tracing.clone(),
    });
    (driver, tracing)
}

fn fresh_socket_path() -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    dir.join(format!(
        "uidrive-{}-{}.sock",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ))
}

/// A driver for an app uidrive launched: a failure after the process ended
/// is reported as `app_exited`, with the exit status, not as a broken socket.
struct Watched {
    inner: Arc<dyn Driver>,
    process: Arc<Mutex<Option<Child>>>,
}

impl Watched {
    fn explain(&self, err: Error) -> Error {
        if !matches!(
            err.code,
            ErrorCode::Disconnected | ErrorCode::Timeout | ErrorCode::Failed | ErrorCode::NoWindow
        ) {
            return err;
        }
        let mut process = self.process.lock().unwrap_or_else(|p| p.into_inner());
        match process.as_mut().map(|child| child.try_wait()) {
            Some(Ok(Some(status))) => Error::new(
                ErrorCode::AppExited,
                format!("the app exited ({status}) while: {}", err.message),
            )
            .exited(&status),
            _ => err,
        }
    }
}

impl Driver for Watched {
    fn hello(&self) -> Result<crate::protocol::Hello> {
        self.inner.hello().map_err(|e| self.explain(e))
    }
    fn windows(&self) -> Result<WindowList> {
        self.inner.windows().map_err(|e| self.explain(e))
    }
    fn tree(&self, params: &TreeParams) -> Result<Tree> {
        self.inner.tree(params).map_err(|e| self.explain(e))
    }
    fn act(&self, params: &ActParams) -> Result<()> {
        self.inner.act(params).map_err(|e| self.explain(e))
    }
    fn input(&self, params: &InputParams) -> Result<()> {
        self.inner.input(params).map_err(|e| self.explain(e))
    }
    fn menu(&self, params: &MenuParams) -> Result<()> {
        self.inner.menu(params).map_err(|e| self.explain(e))
    }
    fn capture(&self, params: &CaptureParams) -> Result<Capture> {
        self.inner.capture(params).map_err(|e| self.explain(e))
    }
    fn eval(&self, params: &EvalParams) -> Result<Value> {
        self.inner.eval(params).map_err(|e| self.explain(e))
    }
    fn idle(&self, params: &IdleParams) -> Result<()> {
        self.inner.idle(params).map_err(|e| self.explain(e))
    }
    fn element_at(
        &self,
        params: &crate::protocol::ElementAtParams,
    ) -> Result<Option<crate::protocol::ElementId>> {
        self.inner.element_at(params).map_err(|e| self.explain(e))
    }
    fn cell_at(
        &self,
        params: &crate::protocol::CellAtParams,
    ) -> Result<Vec<crate::protocol::Node>> {
        self.inner.cell_at(params).map_err(|e| self.explain(e))
    }
    fn wait_event(
        &self,
        params: &crate::protocol::WaitEventParams,
    ) -> Result<crate::protocol::Event> {
        self.inner.wait_event(params).map_err(|e| self.explain(e))
    }
    fn manage_window(
        &self,
        params: &crate::protocol::ManageWindowParams,
    ) -> Result<crate::protocol::WindowState> {
        self.inner
            .manage_window(params)
            .map_err(|e| self.explain(e))
    }
    fn apps(&self) -> Result<crate::protocol::AppList> {
        self.inner.apps().map_err(|e| self.explain(e))
    }
    fn capture_screen(&self) -> Result<Capture> {
        self.inner.capture_screen().map_err(|e| self.explain(e))
    }
    fn tree_for(
        &self,
        params: &TreeParams,
        wanted: &dyn Fn(&Tree) -> Vec<crate::protocol::ElementId>,
    ) -> Result<Tree> {
        self.inner
            .tree_for(params, wanted)
            .map_err(|e| self.explain(e))
    }
    fn call(&self, method: &str, params: Option<Value>) -> Result<Value> {
        self.inner.call(method, params).map_err(|e| self.explain(e))
    }
}
