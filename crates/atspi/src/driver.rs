//! `AtspiDriver`: the blocking `Driver` over the async AT-SPI work, which runs
//! on runtimes of uidrive's own so callers need none.

use crate::actions;
use crate::bus::{self, env_value};
use crate::discovery::{self, AppRef};
use crate::events::{self, Activity};
use crate::menu;
use crate::tree;
use crate::windows::{self, WindowIds};
use futures_util::future::join_all;
use std::future::Future;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};
use uidrive_core::protocol::{
    ActParams, Bounds, Capture, CaptureParams, CellAtParams, ElementAtParams, ElementId,
    EvalParams, Event, Hello, IdleParams, InputParams, MenuParams, Method, Node, Tree, TreeParams,
    WaitEventParams, Window, WindowKind, WindowList,
};
use uidrive_core::{Driver, Error, ErrorCode, Result};
use zbus::Connection;

/// How the driver finds the desktop, and how long it waits for an app.
#[derive(Debug, Clone)]
pub struct LaunchOptions {
    /// Variables that override the process env, for the launched app and for
    /// finding `DISPLAY` and `DBUS_SESSION_BUS_ADDRESS` (a `Desktop`'s `env()`).
    pub env: Vec<(String, String)>,
    /// How long to wait for the app's first window.
    pub timeout: Duration,
}

impl Default for LaunchOptions {
    fn default() -> LaunchOptions {
        LaunchOptions {
            env: Vec::new(),
            timeout: uidrive_core::defaults::LAUNCH,
        }
    }
}

/// How long `idle` waits when the caller gives no timeout.
const DEFAULT_IDLE_TIMEOUT: Duration = uidrive_core::defaults::IDLE;
/// How long a settle waits for no event once the app has processed what it
/// was sent, after an action of the driver's: long enough for the app's own
/// late work to show (gnome-calculator's answer to `=` comes about 50 ms
/// after the button's activation, over 100 ms on a loaded machine; see
/// docs/protocol.md).
pub const QUIET_AFTER_ACTION: Duration = Duration::from_millis(200);
/// The same when the driver did not act since the last settle: an app that
/// changes more often than this (a label updated every few milliseconds)
/// never settles, even on a loaded machine where its updates come unevenly.
pub const QUIET: Duration = Duration::from_millis(100);
/// The longest quiet period a settle asks for: each event during one doubles
/// the next, up to this.
const QUIET_AT_MOST: Duration = Duration::from_millis(1600);
/// How long a round trip begun at a settle's limit may still take: the
/// settle answers within its limit and this.
const ROUND_TRIP_GRACE: Duration = Duration::from_millis(30);
/// The bound of `idle` with a timeout of zero, which checks once: its own
/// round trips, not a wait.
const CHECK_ONCE_WITHIN: Duration = Duration::from_secs(5);
/// The longest any other driver call may take.
const CALL_LIMIT: Duration = Duration::from_secs(20);

/// State shared by the driver's calls, living on its runtime.
pub(crate) struct Inner {
    pub conn: Connection,
    /// The way reads take: a peer connection to the app where it has one.
    pub link: bus::Link,
    pub app: AppRef,
    /// What the app may be asked and what of its answers may be kept.
    pub profile: crate::profile::Profile,
    /// Each window's scale between the app's pixels and the X server's.
    pub scales: crate::scale::Scales,
    pub ids: WindowIds,
    pub activity: Arc<Activity>,
    pub env: Vec<(String, String)>,
    pub xlink: crate::desktop::XLink,
    /// The Wayland connection, for an app on a Wayland display.
    pub wlink: crate::display::WaylandLink,
    /// The elements of earlier reads, so `act` can read one alone.
    pub known: tree::Known,
    /// What a read keeps for the next (the app's cache answer while it
    /// announces no change, what to ask early).
    pub kept: crate::kept::Kept,
    /// The one limit on a read's calls in flight to the app.
    pub gate: Arc<crate::gate::Gate>,
    /// The connections for calls that run the app's code, where it takes
    /// direct connections (`crate::lanes`).
    pub lanes: Option<Arc<crate::lanes::Lanes>>,
}

/// Drives one app's windows through AT-SPI2.
pub struct AtspiDriver {
    /// The app driven now: replaced when the app uidrive launched starts
    /// again as a new process (`crate::follow`).
    inner: RwLock<Arc<Inner>>,
    runtime: Option<tokio::runtime::Runtime>,
    /// The launch whose next instance the driver follows, for an app it launched.
    pub(crate) launch: Option<crate::follow::Launch>,
}

/// The app's peer connections, as [`bus::open_peers`] answers them.
pub(crate) type Peers = Option<(String, Connection, Option<Connection>)>;

impl AtspiDriver {
    /// Connects to the session bus of `opts.env` (else the process env) and
    /// waits until `find` names the app, for at most `opts.timeout`; or, when
    /// `watched` names a process, until that process ends (`app_exited`);
    /// or until `give_up` answers an error (an app that will never join the
    /// bus, `crate::no_tree`).
    pub(crate) fn connect_and_find<F, Fut>(
        opts: &LaunchOptions,
        what: String,
        watched: Option<u32>,
        find: F,
        give_up: impl FnMut() -> Option<Error> + Send + 'static,
    ) -> Result<AtspiDriver>
    where
        F: Fn(Connection) -> Fut + Send + 'static,
        Fut: Future<Output = Result<Option<AppRef>>> + Send,
    {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("uidrive-atspi")
            .enable_all()
            .build()
            .map_err(|e| Error::failed(format!("could not start the driver's runtime: {e}")))?;
        let session = env_value(&opts.env, "DBUS_SESSION_BUS_ADDRESS").ok_or_else(|| {
            Error::disconnected("no DBUS_SESSION_BUS_ADDRESS: there is no D-Bus session to find apps on")
                .with_suggestion("run inside a desktop session, or start one with uidrive_x11::Desktop and pass its env()")
                .mentioning(uidrive_core::Term::StartDesktop)
        })?;
        let a11y_address = env_value(&opts.env, "AT_SPI_BUS_ADDRESS");
        let timeout = opts.timeout;
        let activity = Arc::new(Activity::default());
        let listening = activity.clone();
        let own = runtime.handle();
        let started = run_on(own, timeout + Duration::from_secs(5), async move {
            let conn = bus::connect_a11y(&session, a11y_address.as_deref()).await?;
            events::listen(&conn, listening).await.map_err(|e| {
                Error::failed(format!("could not listen to accessibility events: {e}"))
            })?;
            let (app, peers) = find_shown(&conn, &what, watched, find, give_up, timeout).await?;
            Ok((conn, app, peers))
        })?;
        let (conn, app, peers) = started;
        let inner = Inner::new(
            conn,
            app,
            peers,
            activity,
            opts.env.clone(),
            WindowIds::default(),
        );
        Ok(AtspiDriver {
            inner: RwLock::new(Arc::new(inner)),
            runtime: Some(runtime),
            launch: None,
        })
    }

    /// Attaches to the app of process `pid` (or one it started), waiting for its first window.
    pub fn attach_pid(pid: u32, opts: &LaunchOptions) -> Result<AtspiDriver> {
        AtspiDriver::attach_pid_or(pid, opts, || None)
    }

    /// [`AtspiDriver::attach_pid`], ending the wait when `give_up` answers an error.
    pub(crate) fn attach_pid_or(
        pid: u32,
        opts: &LaunchOptions,
        give_up: impl FnMut() -> Option<Error> + Send + 'static,
    ) -> Result<AtspiDriver> {
        AtspiDriver::connect_and_find(
            opts,
            format!("the app of process {pid}"),
            Some(pid),
            move |conn| async move {
                let pids = discovery::pid_and_descendants(pid);
                discovery::find_app_by_pids(&conn, &pids).await
            },
            give_up,
        )
    }

    /// Attaches to the app whose accessible name is `name` (as `gnome-calculator`).
    pub fn attach_name(name: &str, opts: &LaunchOptions) -> Result<AtspiDriver> {
        let wanted = name.to_string();
        AtspiDriver::connect_and_find(
            opts,
            format!("an app named `{name}`"),
            None,
            move |conn| {
                let wanted = wanted.clone();
                async move { discovery::find_app_by_name(&conn, &wanted).await }
            },
            || None,
        )
    }

    /// The process of the app this driver drives.
    pub fn pid(&self) -> u32 {
        self.current().app.pid
    }

    /// How many reads took the app's cache answer kept from an earlier read
    /// instead of asking it again (GTK's apps while they announce no change).
    #[doc(hidden)]
    pub fn reads_from_kept_cache(&self) -> u64 {
        self.current().kept.reads_served()
    }

    /// How many boxes whole reads took from the boxes the read before kept
    /// (GTK 3 while it announces no change).
    #[doc(hidden)]
    pub fn boxes_from_kept_reads(&self) -> u64 {
        self.current().kept.boxes_served()
    }

    /// How many elements a locator's read filled in from answers asked
    /// beside its structure (the elements the read before filled in).
    #[doc(hidden)]
    pub fn fills_from_early_answers(&self) -> u64 {
        self.current().kept.fields_served()
    }

    /// The limit on a read's calls in flight to the app (its profile's),
    /// and the most that were in flight at once so far.
    #[doc(hidden)]
    pub fn calls_in_flight(&self) -> (usize, usize) {
        let gate = self.current().gate.clone();
        (gate.limit(), gate.most_in_flight())
    }

    /// How many connections for calls that run the app's code are open,
    /// and how many of them wait on a handler that may still run
    /// (`crate::lanes`); none where the app takes no direct connections.
    #[doc(hidden)]
    pub fn action_lanes(&self) -> Result<(usize, usize)> {
        self.run(CALL_LIMIT, |inner| async move {
            Ok(match &inner.lanes {
                Some(lanes) => lanes.counts().await,
                None => (0, 0),
            })
        })
    }

    /// The app's accessible name, as the registry lists it.
    pub fn app_name(&self) -> String {
        self.current().app.name.clone()
    }

    /// The state of the app driven now.
    pub(crate) fn current(&self) -> Arc<Inner> {
        self.inner.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Drives `inner` from now on: the launch's new instance of the app.
    pub(crate) fn replace(&self, inner: Arc<Inner>) {
        *self.inner.write().unwrap_or_else(|e| e.into_inner()) = inner;
    }

    /// The driver's own runtime, which reads its bus connection.
    pub(crate) fn own_runtime(&self) -> tokio::runtime::Handle {
        let runtime = self.runtime.as_ref();
        runtime
            .expect("the runtime lives as long as the driver")
            .handle()
            .clone()
    }

    /// Runs `work` and waits for it, for at most `limit`: on the runtime
    /// that reads the app's peer connections where it has them
    /// ([`crate::peer_pool::runtime`]), else on the driver's own, which reads
    /// its bus connection. When the app left the bus and the app uidrive
    /// launched started again meanwhile, the driver follows the new instance
    /// ([`crate::follow`]): before the work, and after work the app's exit
    /// failed, so that the next call reaches the new instance (this one
    /// fails: what it acted on is gone; see [`AtspiDriver::read`]).
    fn run<T, F, Fut>(&self, limit: Duration, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(Arc<Inner>) -> Fut,
        Fut: Future<Output = Result<T>> + Send + 'static,
    {
        let inner = self.following()?;
        match self.run_with(&inner, limit, work) {
            Err(e) if crate::follow::may_have_left(&e) => match self.followed(&inner)? {
                Some(now) => Err(crate::follow::worked_on_gone(&inner, &now, e)),
                None => Err(e),
            },
            other => other,
        }
    }

    /// [`AtspiDriver::run`] for work that only reads: when the app's exit
    /// failed it and the driver follows the launch's new instance, the work
    /// runs again on that instance.
    fn read<T, F, Fut>(&self, limit: Duration, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: Fn(Arc<Inner>) -> Fut,
        Fut: Future<Output = Result<T>> + Send + 'static,
    {
        let inner = self.following()?;
        match self.run_with(&inner, limit, &work) {
            Err(e) if crate::follow::may_have_left(&e) => match self.followed(&inner)? {
                Some(now) => self.run_with(&now, limit, &work),
                None => Err(e),
            },
            other => other,
        }
    }

    /// Runs `work` on `inner` as [`AtspiDriver::run`] says, explaining its error.
    fn run_with<T, F, Fut>(&self, inner: &Arc<Inner>, limit: Duration, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(Arc<Inner>) -> Fut,
        Fut: Future<Output = Result<T>> + Send + 'static,
    {
        let runtime = match inner.link.peer {
            Some(_) => crate::peer_pool::runtime().unwrap_or_else(|| self.own_runtime()),
            None => self.own_runtime(),
        };
        let result = run_on(&runtime, limit, work(inner.clone()));
        match result {
            Err(e) => Err(explain_by(inner, e)),
            other => other,
        }
    }

    /// An app that is gone explains a timeout, a failure, a closed connection
    /// or a window or element that went better than the call did. A process
    /// that is stopped or busy is not gone (its call is a `timeout`); one that
    /// died and was not reaped yet (a zombie) is.
    pub(crate) fn explain(&self, err: Error) -> Error {
        explain_by(&self.current(), err)
    }
}

/// [`AtspiDriver::explain`], for the app of `inner`.
fn explain_by(inner: &Inner, err: Error) -> Error {
    let explained = matches!(
        err.code,
        ErrorCode::Timeout
            | ErrorCode::Failed
            | ErrorCode::Disconnected
            | ErrorCode::NoWindow
            | ErrorCode::NoElement
    );
    if !explained || !gone_by(inner.app.pid, &err) {
        err
    } else {
        Error::new(
            ErrorCode::AppExited,
            format!(
                "{} (process {}) exited: {}",
                inner.app.name, inner.app.pid, err.message
            ),
        )
    }
}

/// Whether the app's process `pid` is gone. A connection closes as a killed
/// process exits, a moment before the process shows as dead: after a
/// closed connection, that moment is waited for (briefly).
fn gone_by(pid: u32, err: &Error) -> bool {
    let wait = if err.code == ErrorCode::Disconnected {
        Duration::from_millis(500)
    } else {
        Duration::ZERO
    };
    let until = std::time::Instant::now() + wait;
    loop {
        if discovery::process_gone(pid) {
            return true;
        }
        if std::time::Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

impl Drop for AtspiDriver {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// Runs `work` on `runtime` from any thread (even one inside another runtime), for at most `limit`.
pub(crate) fn run_on<T, Fut>(
    runtime: &tokio::runtime::Handle,
    limit: Duration,
    work: Fut,
) -> Result<T>
where
    T: Send + 'static,
    Fut: Future<Output = Result<T>> + Send + 'static,
{
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    // The thread polls while the app's answers come (crate::awake).
    let _polling = crate::awake::while_waiting(runtime);
    let task = runtime.spawn(async move {
        let outcome = tokio::time::timeout(limit, work).await;
        let _ = tx.send(outcome);
    });
    match rx.recv_timeout(limit + Duration::from_secs(1)) {
        Ok(Ok(result)) => result,
        // The task ended without a word: it panicked, which is this
        // driver's fault, not the app's.
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(Error::failed(
            "uidrive's AT-SPI driver failed inside while handling the call (a bug: it panicked; its message is on stderr)",
        )
        .with_suggestion("report it with that message; the call can be retried")),
        Ok(Err(_)) | Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            task.abort();
            Err(Error::timeout(format!(
                "the app did not finish the call within {} ms",
                limit.as_millis()
            )))
        }
    }
}

/// Waits until `find` names an app that shows a window, for at most
/// `timeout`; or, when `watched` names a process, until that process ends
/// (`app_exited`); or until `give_up` answers an error. Answers the app and
/// its peer connections.
pub(crate) async fn find_shown<F, Fut>(
    conn: &Connection,
    what: &str,
    watched: Option<u32>,
    find: F,
    mut give_up: impl FnMut() -> Option<Error>,
    timeout: Duration,
) -> Result<(AppRef, Peers)>
where
    F: Fn(Connection) -> Fut,
    Fut: Future<Output = Result<Option<AppRef>>>,
{
    let deadline = tokio::time::Instant::now() + timeout;
    let mut last_error = None;
    loop {
        match find(conn.clone()).await {
            Ok(Some(app)) => {
                // The app counts as up once it shows a window, a splash
                // screen aside: what it shows while it starts (LibreOffice's
                // first process shows only that, then starts another).
                let direct = bus::Link::over_bus(conn.clone());
                match discovery::top_levels(&direct, &app).await {
                    Ok(tops) => {
                        let splashes =
                            join_all(tops.iter().map(|t| discovery::is_splash(&direct, &app, t)))
                                .await;
                        if splashes.contains(&false) {
                            if crate::profile::Profile::of(&app).boxes_kept {
                                events::listen_to_boxes(conn, &app.bus).await;
                            }
                            let peers = bus::open_peers(conn, &app.bus).await;
                            return Ok((app, peers));
                        }
                    }
                    Err(e) => last_error = Some(e),
                }
            }
            Ok(None) => {}
            Err(e) => last_error = Some(e),
        }
        // An app that ended shows no window however long we wait.
        if let Some(pid) = watched.filter(|pid| discovery::process_gone(*pid)) {
            return Err(Error::new(
                ErrorCode::AppExited,
                format!("{what} ended (process {pid}) before it showed a window"),
            )
            .with_suggestion("run the command by hand to see why it exits"));
        }
        if let Some(err) = give_up() {
            return Err(err);
        }
        if tokio::time::Instant::now() >= deadline {
            let detail = last_error
                .map(|e| format!(" (last error: {e})"))
                .unwrap_or_default();
            return Err(Error::timeout(format!(
                "{what} showed no window on the accessibility bus within {} ms{detail}",
                timeout.as_millis()
            ))
            .with_suggestion("check that the app started (its output), and that it runs on this desktop's DISPLAY and D-Bus session"));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

impl Inner {
    /// The state for driving `app`, found over `conn`.
    pub(crate) fn new(
        conn: Connection,
        app: AppRef,
        peers: Peers,
        activity: Arc<Activity>,
        env: Vec<(String, String)>,
        ids: WindowIds,
    ) -> Inner {
        let lanes = peers
            .as_ref()
            .map(|(address, _, _)| crate::lanes::for_app(address));
        let (peer, fields) = peers.map(|(_, walk, fields)| (walk, fields)).unzip();
        let profile = crate::profile::Profile::of(&app);
        Inner {
            link: bus::Link {
                bus: conn.clone(),
                peer: peer.map(|p| (app.bus.clone(), p)),
                fields: fields.flatten(),
            },
            conn,
            gate: crate::gate::of_app(app.pid, &app.bus, profile.in_flight),
            profile,
            scales: Default::default(),
            app,
            ids,
            activity,
            env,
            xlink: Default::default(),
            wlink: Default::default(),
            known: Default::default(),
            kept: Default::default(),
            lanes,
        }
    }
}

impl Inner {
    /// Where the window's content is on screen, and the window as the protocol lists it.
    pub fn window_entry(&self, id: u64, top: &discovery::TopLevel) -> Window {
        if self.on_wayland() {
            return self.wayland_window_entry(id, top);
        }
        let shown_as = self.x_window(top);
        let (x, y, w, h) = match &shown_as {
            Some(w) => (
                w.geometry.x,
                w.geometry.y,
                w.geometry.width as i32,
                w.geometry.height as i32,
            ),
            None => top.extents,
        };
        let content = Bounds::new(f64::from(x), f64::from(y), f64::from(w), f64::from(h));
        // `bounds` is the whole window as a person sees it, frame included.
        let bounds = match (&shown_as, self.x11()) {
            (Some(w), Ok(x11)) => crate::desktop::framed(&x11, w.id, content),
            _ => content,
        };
        // GTK 3 leaves a window's accessible name empty when a header bar shows the title.
        let title = match (&shown_as, top.title.is_empty()) {
            (Some(w), true) => w.title.clone(),
            _ => top.title.clone(),
        };
        Window {
            id,
            title,
            kind: WindowKind::Content,
            url: None,
            bounds,
            content_bounds: shown_as
                .as_ref()
                .map(|w| crate::desktop::content_bounds(self, top, w))
                .unwrap_or(content),
            focused: top.states.has(crate::states::st::ACTIVE),
            visible: top.states.is_shown(self.app.toolkit.sets_showing()),
            extra: Default::default(),
        }
    }

    /// [`Inner::window_entry`] on Wayland: where the compositor shows the
    /// window, else (no compositor to ask) what AT-SPI reports.
    fn wayland_window_entry(&self, id: u64, top: &discovery::TopLevel) -> Window {
        let placed = self.display().and_then(|d| d.place(self, top)).ok();
        let (x, y, w, h) = top.extents;
        let reported = Bounds::new(f64::from(x), f64::from(y), f64::from(w), f64::from(h));
        let title = match (&placed, top.title.is_empty()) {
            (Some(p), true) => p.title.clone(),
            _ => top.title.clone(),
        };
        Window {
            id,
            title,
            kind: WindowKind::Content,
            url: None,
            bounds: placed.as_ref().map(|p| p.bounds).unwrap_or(reported),
            content_bounds: placed.as_ref().map(|p| p.capture).unwrap_or(reported),
            focused: top.states.has(crate::states::st::ACTIVE),
            visible: top.states.is_shown(self.app.toolkit.sets_showing()),
            extra: Default::default(),
        }
    }

    /// The window on screen: the X window's place when the display is reachable
    /// (GTK 4 reports its window at 0,0), else what AT-SPI reports.
    pub fn x_window(&self, top: &discovery::TopLevel) -> Option<uidrive_x11::XWindow> {
        let x11 = self.x11().ok()?;
        crate::desktop::x_window_for(&x11, self.app.pid, top).ok()
    }

    /// Whether the app sent no event since `before` (a count of
    /// [`Activity::events_seen`]), proven by a round trip to `obj` over the
    /// bus, where the app's events come ([`Activity::quiet_after`]).
    pub async fn quiet_since(&self, obj: &bus::ObjRef, before: u64) -> Result<bool> {
        let (conn, obj) = (self.conn.clone(), obj.clone());
        let round_trip = async move {
            let role = bus::call::<u32, _>(
                &conn,
                &obj.0,
                obj.1.as_str(),
                bus::IFACE_ACCESSIBLE,
                "GetRole",
                &(),
            );
            role.await.map(drop)
        };
        self.activity
            .quiet_after(&self.app.bus, before, round_trip)
            .await
    }

    /// Waits until the app has processed what it was sent and gone quiet,
    /// with no quiet period: the driver's own waits between reads, which
    /// read again anyway ([`Inner::settle`] with a quiet period of zero).
    pub async fn idle(&self, wanted: Option<u64>, limit: Duration) -> Result<()> {
        self.settle(wanted, limit, Some(Duration::ZERO)).await
    }

    /// Waits until the app has processed what it was sent and gone quiet:
    /// any action still awaited shows its first event (or its latency runs
    /// out), then a round trip to the app sees no new event arrive (the app
    /// answers a call only after the work queued before it), then no event
    /// comes for `quiet` (none: [`QUIET_AFTER_ACTION`] after an action of
    /// this driver's that no settle has seen out yet, else [`QUIET`]). An
    /// event during the quiet period starts it all again, with a quiet
    /// period twice as long (up to [`QUIET_AT_MOST`]).
    ///
    /// Every wait ends by `limit` (a round trip begun at it gets
    /// [`ROUND_TRIP_GRACE`]): an app that sent events since the last quiet
    /// period began is `timeout` then, and so is an app that does not answer
    /// the round trip in time; an app that sent no event at all since the
    /// settle began is settled, though `limit` is shorter than the quiet
    /// period. A `limit` of zero checks once: one round trip, no waiting.
    pub async fn settle(
        &self,
        wanted: Option<u64>,
        limit: Duration,
        quiet: Option<Duration>,
    ) -> Result<()> {
        let started = Instant::now();
        let once = limit.is_zero();
        // Checking once still makes its round trips, however short the limit.
        let deadline = started + limit.max(CHECK_ONCE_WITHIN * u32::from(once));
        let by_deadline = |what: &'static str| {
            let name = self.app.name.clone();
            move |_| {
                Error::timeout(format!(
                    "{name} did not answer {what} within {} ms",
                    limit.as_millis()
                ))
                .with_suggestion(
                    "the app may be busy or frozen: give a longer timeout, or check that it runs",
                )
            }
        };
        let resolve = windows::resolve(&self.link, &self.app, &self.ids, wanted);
        let (_, top) = tokio::time::timeout_at(deadline.into(), resolve)
            .await
            .map_err(by_deadline("the read of its window"))??;
        let bus_name = self.app.bus.clone();
        let first = self.activity.events_seen(&bus_name);
        let after_action = self.activity.unsettled(&bus_name);
        let mut quiet = quiet.unwrap_or(if after_action {
            QUIET_AFTER_ACTION
        } else {
            QUIET
        });
        let kept_changing = || {
            Error::timeout(format!(
                "{} kept changing for {} ms (it sent accessibility events all along)",
                self.app.name,
                limit.as_millis()
            ))
            .with_suggestion("give a longer timeout; an animation that never stops never settles")
        };
        loop {
            // An action still awaited is waited for, up to the limit; then
            // the round trip tells whether the app is quiet all the same.
            if let Some(until) = self.activity.awaiting_until(&bus_name) {
                if !once && Instant::now() < deadline {
                    self.activity.next_event_or(until.min(deadline)).await;
                    continue;
                }
            }
            let before = self.activity.events_seen(&bus_name);
            let round_trip = self.quiet_since(&top.obj, before);
            // A round trip begun at the limit gets a moment to be answered.
            let answer_by = deadline.max(Instant::now() + ROUND_TRIP_GRACE);
            let processed = tokio::time::timeout_at(answer_by.into(), round_trip)
                .await
                .map_err(by_deadline("a call"))??;
            if !processed {
                if once || Instant::now() >= deadline {
                    return Err(if once {
                        Error::timeout(format!(
                            "{} sent accessibility events while it was checked once (timeout 0): it is changing",
                            self.app.name
                        ))
                        .with_suggestion("give a timeout to wait for it to settle")
                    } else {
                        kept_changing()
                    });
                }
                continue;
            }
            if once || quiet.is_zero() {
                return Ok(());
            }
            let whole = Instant::now() + quiet;
            let until = whole.min(deadline);
            let mut stayed_quiet = self.activity.quiet_until(&bus_name, before, until).await;
            if stayed_quiet {
                // A round trip again: an app the machine did not run during
                // the quiet period sends what it had queued before answering.
                let round_trip = self.quiet_since(&top.obj, before);
                let answer_by = deadline.max(Instant::now() + ROUND_TRIP_GRACE);
                stayed_quiet = tokio::time::timeout_at(answer_by.into(), round_trip)
                    .await
                    .map_err(by_deadline("a call"))??;
            }
            if stayed_quiet && until == whole {
                self.activity.settled(&bus_name, Instant::now());
                return Ok(());
            }
            // Cut short by the limit: settled only if the app sent nothing
            // at all since the settle began (the limit is shorter than the
            // quiet period, the app is still).
            if stayed_quiet && self.activity.events_seen(&bus_name) == first {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(kept_changing());
            }
            // Interrupted: an app that goes on changing must stay quiet
            // longer to count as settled, so one starved by a busy machine
            // for a moment is not taken for one that has settled.
            if !stayed_quiet {
                quiet = (quiet * 2).min(QUIET_AT_MOST);
            }
        }
    }
}

impl Driver for AtspiDriver {
    fn hello(&self) -> Result<Hello> {
        Ok(Hello {
            protocol: uidrive_core::protocol::PROTOCOL_VERSION,
            server: format!("uidrive {} (atspi)", env!("CARGO_PKG_VERSION")),
            methods: Method::ALL.iter().map(|m| m.as_str().to_string()).collect(),
            actions: uidrive_core::protocol::Action::ALL
                .iter()
                .map(|a| a.as_str().to_string())
                .collect(),
            extra: uidrive_core::protocol::idle_takes_quiet(),
        })
    }

    fn windows(&self) -> Result<WindowList> {
        self.read(CALL_LIMIT, |inner| async move {
            let list = windows::list(&inner.link, &inner.app, &inner.ids).await?;
            let mut windows: Vec<_> = list
                .iter()
                .map(|(id, top)| inner.window_entry(*id, top))
                .collect();
            crate::manage::add_states(&inner, &list, &mut windows);
            Ok(WindowList {
                windows,
                extra: Default::default(),
            })
        })
    }

    fn tree(&self, params: &TreeParams) -> Result<Tree> {
        let wanted = params.window;
        self.read(
            CALL_LIMIT,
            move |inner| async move { inner.tree(wanted).await },
        )
    }

    fn act(&self, params: &ActParams) -> Result<()> {
        params.validate()?;
        let params = params.clone();
        self.run(CALL_LIMIT, move |inner| async move {
            inner.activity.mark_action(&inner.app.bus);
            actions::act(&inner, &params).await
        })
    }

    fn input(&self, params: &InputParams) -> Result<()> {
        params.validate()?;
        let inner = self.following()?;
        inner.activity.mark_action(&inner.app.bus);
        crate::desktop::input(self, params)
    }

    fn manage_window(
        &self,
        params: &uidrive_core::protocol::ManageWindowParams,
    ) -> Result<uidrive_core::protocol::WindowState> {
        crate::manage::manage_window(self, params)
    }

    fn apps(&self) -> Result<uidrive_core::protocol::AppList> {
        crate::manage::apps(self)
    }

    fn capture_screen(&self) -> Result<Capture> {
        crate::manage::capture_screen(self)
    }

    fn menu(&self, params: &MenuParams) -> Result<()> {
        params.validate()?;
        let params = params.clone();
        self.run(CALL_LIMIT, move |inner| async move {
            inner.activity.mark_action(&inner.app.bus);
            menu::choose(&inner, &params).await
        })
    }

    fn capture(&self, params: &CaptureParams) -> Result<Capture> {
        crate::desktop::capture(self, params)
    }

    fn eval(&self, _params: &EvalParams) -> Result<serde_json::Value> {
        Err(
            Error::unsupported("eval runs scripts in web pages; AT-SPI windows show native UI")
                .with_suggestion("read the window with `tree` and act on its elements instead"),
        )
    }

    fn element_at(&self, params: &ElementAtParams) -> Result<Option<ElementId>> {
        let (wanted, x, y) = (params.window, params.x, params.y);
        self.read(CALL_LIMIT, move |inner| async move {
            let (_, top) = windows::resolve(&inner.link, &inner.app, &inner.ids, wanted).await?;
            // The point in the app's own pixels ([`crate::scale`]).
            let scale = inner.scale_of(&top);
            let (x, y) = ((x / scale).round() as i32, (y / scale).round() as i32);
            crate::desktop::element_at(&inner, &top, x, y).await
        })
    }

    fn cell_at(&self, params: &CellAtParams) -> Result<Vec<Node>> {
        params.validate()?;
        self.read(CALL_LIMIT, move |inner| {
            let params = params.clone();
            async move { inner.cell_at(&params).await }
        })
    }

    fn tree_for(
        &self,
        params: &TreeParams,
        wanted: &dyn Fn(&Tree) -> Vec<ElementId>,
    ) -> Result<Tree> {
        let window = params.window;
        let lean = self.read(CALL_LIMIT, move |inner| async move {
            inner.lean_tree(window).await
        })?;
        let Some((tree, lean)) = lean else {
            return self.tree(params);
        };
        let wanted = wanted(&tree);
        self.run(CALL_LIMIT, move |inner| async move {
            inner.fill_tree(lean, wanted).await
        })
    }

    fn wait_event(&self, params: &WaitEventParams) -> Result<Event> {
        params.validate()?;
        let limit = params
            .timeout
            .map(Duration::from_millis)
            .unwrap_or(uidrive_core::defaults::EVENT);
        let (kind, element) = (params.kind, params.element);
        let until = Instant::now() + limit;
        // The wait keeps its own limit; the call's bound is only a backstop.
        let seen = self.run(limit + Duration::from_secs(1), move |inner| async move {
            Ok(inner
                .activity
                .wait_event(&inner.app.bus, kind, element, until)
                .await)
        })?;
        let Some(seen) = seen else {
            let on = element.map_or(String::new(), |id| format!(" on element {id}"));
            return Err(Error::timeout(format!(
                "no {kind} event{on} came from {} within {} ms",
                self.app_name(),
                limit.as_millis()
            ))
            .with_suggestion(
                "act first (an event from before uidrive's last action is not answered), or wait longer",
            ));
        };
        let id = crate::ids::element_id(&seen.bus, &seen.path);
        let inner = self.current();
        let window = inner
            .known
            .window_of(id)
            .map(|window| inner.ids.id_for(&window));
        Ok(Event {
            kind: Some(kind),
            detail: seen.detail,
            element: Some(id),
            window,
            node: None,
            value: seen.on.map(|on| on.to_string()),
        })
    }

    fn idle(&self, params: &IdleParams) -> Result<()> {
        let limit = params
            .timeout
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_IDLE_TIMEOUT);
        let quiet = params.quiet.map(Duration::from_millis);
        let wanted = params.window;
        // The settle keeps its own limit; the call's bound is only a backstop.
        let backstop = limit.max(CHECK_ONCE_WITHIN) + Duration::from_secs(1);
        self.read(backstop, move |inner| async move {
            inner.settle(wanted, limit, quiet).await
        })
    }
}

impl AtspiDriver {
    /// The app's own answer time for calls the driver made while recording
    /// ([`crate::record_calls`], [`crate::take_recorded_calls`]): the same
    /// calls asked again all at once, each over the connection it went over,
    /// with nothing to wait for between them.
    /// Returns how many were answered and the time to the last answer. For
    /// the benchmark.
    pub fn app_answer_time(&self, calls: &crate::RecordedCalls) -> Result<(usize, Duration)> {
        let calls = calls.clone();
        self.run(CALL_LIMIT, move |_| async move {
            Ok(crate::stats::replay(&calls).await)
        })
    }

    /// Runs async work that reads for the desktop glue (input, capture):
    /// again on the launch's new instance when the app's exit failed it.
    pub(crate) fn run_work<T, F, Fut>(&self, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: Fn(Arc<Inner>) -> Fut,
        Fut: Future<Output = Result<T>> + Send + 'static,
    {
        self.read(CALL_LIMIT, work)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_that_panics_fails_at_once_and_is_not_called_a_timeout() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let limit = Duration::from_secs(600);
        let err = run_on::<(), _>(runtime.handle(), limit, async { panic!("a bug") }).unwrap_err();
        assert_eq!(err.code, ErrorCode::Failed, "{err}");
        assert!(err.message.contains("panicked"), "{err}");
        let answered = run_on(runtime.handle(), limit, async { Ok(7) });
        assert_eq!(answered.unwrap(), 7, "the runtime still works");
    }
}
