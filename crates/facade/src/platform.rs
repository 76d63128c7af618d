//! Reaching an app: the one place that chooses the driver.
//!
//! A protocol app (a MyGo app, `uidrive serve`) is reached over its socket;
//! any other app through the platform's accessibility API — AT-SPI2 on
//! Linux, through `uidrive_atspi`. A new platform is added here, and every
//! front end gets it.

use crate::time;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use uidrive_core::{App, Error, Result};

/// How long [`close`] gives a launched app at each step: to close when its
/// windows are asked to, then to end on SIGTERM before SIGKILL.
pub const CLOSE_GRACE: Duration = Duration::from_secs(3);

/// How to launch an app.
#[derive(Debug, Clone, Default)]
pub struct LaunchOptions {
    /// Variables over the process's own environment, for the app (and, for
    /// the accessibility driver, where its display and buses are).
    pub env: Vec<(String, String)>,
    /// How long to wait for the app to be ready; [`time::LAUNCH`] if `None`.
    pub timeout: Option<Duration>,
    /// For an app that speaks the protocol: the variable that gets a fresh
    /// socket path (MyGo apps read `MYGO_AUTOMATION`). `None`: the app is
    /// driven through the platform's accessibility API.
    pub socket_env: Option<String>,
}

/// A running app to attach to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttachTarget {
    /// The app's process id.
    Pid(u32),
    /// The app's accessible name (on Linux, its name on the registry).
    Name(String),
}

impl AttachTarget {
    /// The target from the two optional fields front ends take: exactly one.
    pub fn from_parts(pid: Option<u32>, name: Option<String>) -> Result<AttachTarget> {
        match (pid, name) {
            (Some(pid), None) => Ok(AttachTarget::Pid(pid)),
            (None, Some(name)) if !name.is_empty() => Ok(AttachTarget::Name(name)),
            (None, Some(_)) => Err(Error::invalid_request("attach: the name is empty")),
            (Some(_), Some(_)) => Err(Error::invalid_request(
                "attach: give a pid or a name, not both",
            )),
            (None, None) => Err(Error::invalid_request("attach: give a pid or a name")),
        }
    }
}

/// Connects to an app listening on a protocol socket.
pub fn connect(socket: &str) -> Result<App> {
    uidrive_visual::install();
    if socket.is_empty() {
        return Err(Error::invalid_request("connect: the socket path is empty"));
    }
    App::connect(socket)
}

/// Starts `argv` and answers once it is ready: listening on its socket
/// (`socket_env`), or showing its first window with accessibility on.
pub fn launch(argv: &[String], options: &LaunchOptions) -> Result<App> {
    uidrive_visual::install();
    if argv.is_empty() || argv[0].is_empty() {
        return Err(Error::invalid_request(
            "launch: the command line is empty; give at least the program to run",
        ));
    }
    check_env(&options.env)?;
    let timeout = options.timeout.unwrap_or(time::LAUNCH);
    match &options.socket_env {
        Some(variable) => {
            if variable.is_empty() || variable.contains('=') || variable.contains('\0') {
                return Err(Error::invalid_request(format!(
                    "launch: `{variable}` is not an environment variable name; give the one the app reads its socket from, as MYGO_AUTOMATION"
                )));
            }
            App::launch_socket(argv, &options.env, variable, timeout)
        }
        None => uidrive_atspi::launch_app(
            argv,
            &uidrive_atspi::LaunchOptions {
                env: options.env.clone(),
                timeout,
            },
        ),
    }
}

/// Attaches to a running app through the platform's accessibility API.
/// `env` names the desktop to look on (a [`Desktop::env`]); empty: this process's.
pub fn attach(
    target: &AttachTarget,
    env: &[(String, String)],
    timeout: Option<Duration>,
) -> Result<App> {
    check_env(env)?;
    uidrive_visual::install();
    let options = uidrive_atspi::LaunchOptions {
        env: env.to_vec(),
        timeout: timeout.unwrap_or(time::LAUNCH),
    };
    let driver = match target {
        AttachTarget::Pid(pid) => uidrive_atspi::AtspiDriver::attach_pid(*pid, &options)?,
        AttachTarget::Name(name) => uidrive_atspi::AtspiDriver::attach_name(name, &options)?,
    };
    Ok(App::new(Arc::new(driver)))
}

fn check_env(env: &[(String, String)]) -> Result<()> {
    for (name, value) in env {
        if name.is_empty() || name.contains('=') || name.contains('\0') || value.contains('\0') {
            return Err(Error::invalid_request(format!(
                "the environment entry `{name}={value}` is not NAME=VALUE"
            )));
        }
    }
    Ok(())
}

/// Reads `NAME=VALUE` entries (as C and the command line write them).
pub fn env_entries<S: AsRef<str>>(entries: &[S]) -> Result<Vec<(String, String)>> {
    entries
        .iter()
        .map(|entry| {
            let entry = entry.as_ref();
            match entry.split_once('=') {
                Some((name, value)) if !name.is_empty() => {
                    Ok((name.to_string(), value.to_string()))
                }
                _ => Err(Error::invalid_request(format!(
                    "the environment entry `{entry}` is not NAME=VALUE"
                ))),
            }
        })
        .collect()
}

/// `base`, then `over` on top (a later value of a name wins).
pub fn merge_env(base: &[(String, String)], over: &[(String, String)]) -> Vec<(String, String)> {
    let mut merged: Vec<(String, String)> = Vec::with_capacity(base.len() + over.len());
    for (name, value) in base.iter().chain(over) {
        match merged.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value.clone(),
            None => merged.push((name.clone(), value.clone())),
        }
    }
    merged
}

/// Which step of closing ended a launched app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closed {
    /// It ended when its windows were asked to close, as a window
    /// manager's close button asks (`WM_DELETE_WINDOW`): it could save,
    /// tidy up and quit as it does for a person.
    Windows,
    /// It ended on SIGTERM, after its windows were asked and the grace
    /// period passed (or it had no window that takes the request).
    Terminated,
    /// It ignored both and was killed (SIGKILL).
    Killed,
    /// It had already exited.
    Exited,
    /// uidrive did not launch it: it was only let go of, and keeps running.
    Detached,
}

impl Closed {
    /// The name front ends give it: `windows`, `terminated`, `killed`,
    /// `exited` or `detached`.
    pub fn as_str(self) -> &'static str {
        match self {
            Closed::Windows => "windows",
            Closed::Terminated => "terminated",
            Closed::Killed => "killed",
            Closed::Exited => "exited",
            Closed::Detached => "detached",
        }
    }

    /// The step named `name` ([`Closed::as_str`]).
    pub fn named(name: &str) -> Option<Closed> {
        [
            Closed::Windows,
            Closed::Terminated,
            Closed::Killed,
            Closed::Exited,
            Closed::Detached,
        ]
        .into_iter()
        .find(|c| c.as_str() == name)
    }

    /// Its number at the C ABI (`UD_CLOSED_*`; 0 is "not closed yet").
    pub fn code(self) -> i32 {
        match self {
            Closed::Windows => 1,
            Closed::Terminated => 2,
            Closed::Killed => 3,
            Closed::Exited => 4,
            Closed::Detached => 5,
        }
    }

    /// What happened, for people: `closed when its windows were asked to`.
    pub fn describe(self) -> &'static str {
        match self {
            Closed::Windows => "it closed when its windows were asked to close",
            Closed::Terminated => {
                "it did not close when its windows were asked to, and ended on SIGTERM"
            }
            Closed::Killed => "it ignored the close request and SIGTERM, and was killed",
            Closed::Exited => "it had already exited",
            Closed::Detached => "uidrive did not launch it: it keeps running",
        }
    }
}

/// Ends the app uidrive launched as a person's desktop would, one step at
/// a time while it still runs: its windows are asked to close
/// (`WM_DELETE_WINDOW`), then after [`CLOSE_GRACE`] it gets SIGTERM (so it
/// can end what it started itself, as `uidrive serve` ends its desktop),
/// then after another SIGKILL; it is reaped either way. Answers which step
/// ended it. An app uidrive did not launch is only disconnected. Closing
/// twice is fine.
pub fn close(app: &App) -> Result<Closed> {
    close_within(app, CLOSE_GRACE)
}

/// [`close`] with another grace period for each step.
pub fn close_within(app: &App, grace: Duration) -> Result<Closed> {
    let Some(pid) = app.pid() else {
        app.close()?;
        return Ok(Closed::Detached);
    };
    let closed = match app.process_running() {
        Some(true) => end(pid, grace, || app.process_running() == Some(true)),
        Some(false) => Closed::Exited,
        // Closed (reaped) before: nothing is signalled, its pid may be another's now.
        None => {
            app.close()?;
            return Ok(Closed::Exited);
        }
    };
    // What it started and left behind (LibreOffice's soffice.bin under
    // its launcher), while its group keeps the id.
    signal(pid, libc::SIGKILL);
    // Reaps the process (SIGKILL first if it is still there).
    app.close()?;
    Ok(closed)
}

/// The close sequence for the launched process `pid`, which runs while
/// `alive` says so: windows, SIGTERM, SIGKILL, each given `grace`.
pub(crate) fn end(pid: u32, grace: Duration, alive: impl Fn() -> bool) -> Closed {
    let gone_within = |grace: Duration| {
        let deadline = Instant::now() + grace;
        while alive() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        !alive()
    };
    if ask_windows_to_close(pid) > 0 && gone_within(grace) {
        return Closed::Windows;
    }
    terminate(pid);
    if gone_within(grace) {
        return Closed::Terminated;
    }
    signal(pid, libc::SIGKILL);
    Closed::Killed
}

/// Asks every shown window of the launched process and what it started to
/// close, on the display the process runs on; how many took the request.
fn ask_windows_to_close(pid: u32) -> usize {
    // On sway, the compositor asks: xdg_toplevel's close, or
    // WM_DELETE_WINDOW for an X client's window under Xwayland. (Where sway
    // shows none of them, as for an app on Xvfb started from a sway
    // session, the X display asks.)
    if let Some(socket) = env_of(pid, "SWAYSOCK") {
        let socket = std::path::Path::new(&socket);
        let asked = group_and_descendants(pid)
            .into_iter()
            .filter(|p| uidrive_wayland::sway::command(socket, &format!("[pid={p}] kill")).is_ok())
            .count();
        if asked > 0 {
            return asked;
        }
    }
    let Some(display) = env_of(pid, "DISPLAY") else {
        return 0;
    };
    // A headless desktop's display takes the cookie its apps are given.
    let xauthority = env_of(pid, "XAUTHORITY");
    let xauthority = xauthority.as_deref().map(std::path::Path::new);
    let Ok(x11) = uidrive_x11::X11::connect_as(&display, xauthority) else {
        return 0;
    };
    x11.ask_windows_to_close(&group_and_descendants(pid))
        .unwrap_or(0)
}

/// A variable of a process's environment (`DISPLAY`, `XAUTHORITY`).
fn env_of(pid: u32, name: &str) -> Option<String> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    let prefix = format!("{name}=");
    environ
        .split(|b| *b == 0)
        .find_map(|entry| entry.strip_prefix(prefix.as_bytes()))
        .map(|value| String::from_utf8_lossy(value).into_owned())
        .filter(|value| !value.is_empty())
}

/// `pid`, the members of the process group it leads (a launched app leads
/// one) and every process below any of them.
fn group_and_descendants(pid: u32) -> Vec<u32> {
    let stats: Vec<(u32, u32, u32)> = std::fs::read_dir("/proc")
        .map(|dir| {
            dir.flatten()
                .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
                .filter_map(|p| {
                    let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?;
                    let mut fields = stat.rsplit_once(')')?.1.split_whitespace().skip(1);
                    let ppid = fields.next()?.parse().ok()?;
                    let pgrp = fields.next()?.parse().ok()?;
                    Some((p, ppid, pgrp))
                })
                .collect()
        })
        .unwrap_or_default();
    let mut found: Vec<u32> = vec![pid];
    found.extend(
        stats
            .iter()
            .filter(|s| s.2 == pid && s.0 != pid)
            .map(|s| s.0),
    );
    let mut at = 0;
    while at < found.len() {
        let parent = found[at];
        for (child, ppid, _) in &stats {
            if *ppid == parent && !found.contains(child) {
                found.push(*child);
            }
        }
        at += 1;
    }
    found
}

fn terminate(pid: u32) {
    signal(pid, libc::SIGTERM);
}

/// Sends `sig` to a process uidrive launched and to its process group: a
/// native app is launched as the leader of a group of its own, so what it
/// starts gets the signal too. (A process that is not a group leader has no
/// group of its id, so the group's signal reaches nothing.)
fn signal(pid: u32, sig: libc::c_int) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        if pid > 0 {
            // SAFETY: kill(2) with a positive pid of a child we have not
            // reaped, and its negation for the group that child leads.
            unsafe {
                libc::kill(-pid, sig);
                libc::kill(pid, sig);
            }
        }
    }
}

/// How to start a private headless desktop. `None` keeps a default
/// (1920 × 1200, 30 s for each start-up step).
#[derive(Debug, Clone, Copy, Default)]
pub struct HeadlessOptions {
    /// The screen's width in pixels.
    pub width: Option<u32>,
    /// The screen's height in pixels.
    pub height: Option<u32>,
    /// How long each start-up step may take.
    pub timeout: Option<Duration>,
    /// What shows the windows: X11 (Xvfb and openbox, the default) or
    /// Wayland (sway, headless).
    pub backend: Option<Backend>,
    /// On the Wayland backend: run Xwayland too, so apps that speak only
    /// X11 can show (their `DISPLAY` is Xwayland's). Apps still start as
    /// native Wayland clients unless their toolkit is told otherwise
    /// (`GDK_BACKEND=x11`, `QT_QPA_PLATFORM=xcb`).
    pub xwayland: bool,
}

/// The display a headless desktop runs its apps on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Backend {
    /// An X server (Xvfb) with a window manager (openbox).
    #[default]
    X11,
    /// A Wayland compositor (sway on wlroots' headless backend), no X server.
    Wayland,
}

impl Backend {
    /// Every backend's name, as [`Backend::parse`] takes them.
    pub const NAMES: [&'static str; 2] = ["x11", "wayland"];

    /// `"x11"` or `"wayland"`, as every front end spells it.
    pub fn parse(name: &str) -> Result<Backend> {
        match name {
            "x11" => Ok(Backend::X11),
            "wayland" => Ok(Backend::Wayland),
            other => Err(Error::invalid_request(format!(
                "backend: {other:?} is no display backend; there are \"x11\" and \"wayland\""
            ))
            .with_suggestion("pass backend=\"x11\" (the default) or backend=\"wayland\"")),
        }
    }

    /// Its name, as [`Backend::parse`] takes it.
    pub fn name(self) -> &'static str {
        match self {
            Backend::X11 => "x11",
            Backend::Wayland => "wayland",
        }
    }
}

/// The desktop that runs: an X one or a Wayland one.
enum Started {
    X11(uidrive_x11::Desktop),
    Wayland(uidrive_wayland::WaylandDesktop),
}

impl Started {
    fn runtime_dir(&self) -> &std::path::Path {
        match self {
            Started::X11(d) => d.runtime_dir(),
            Started::Wayland(d) => d.runtime_dir(),
        }
    }

    fn stop(self) {
        match self {
            Started::X11(d) => d.stop(),
            Started::Wayland(d) => d.stop(),
        }
    }
}

/// A private headless desktop (an X server, a session bus, the
/// accessibility bus and registry) for the apps a test launches on it.
/// [`Desktop::stop`] (or dropping it) ends what it started — the apps
/// launched through it included — and removes its runtime directory.
pub struct Desktop {
    inner: Mutex<Option<Started>>,
    display: String,
    backend: Backend,
    env: Vec<(String, String)>,
    /// Apps launched through [`Desktop::launch`]: (pid, start time), so a
    /// pid the system gave to another process since is never signalled.
    launched: Mutex<Vec<(u32, u64)>>,
    /// Its clipboard, notification server and tray watcher (ended before it).
    services: Mutex<Option<crate::services::Services>>,
    /// How many private homes were made (each launched app gets the next).
    homes: std::sync::atomic::AtomicUsize,
}

/// The variables of a home; a caller who gives any of them chooses the
/// app's home and configuration itself, and gets no private one.
const HOME_VARS: &[&str] = &[
    "HOME",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
];

impl HeadlessOptions {
    /// Whether the options go together (checked by [`headless`]; a front
    /// end that starts the desktop later, as the command line's daemon
    /// does, checks at once).
    pub fn check(&self) -> Result<()> {
        if self.xwayland && self.backend != Some(Backend::Wayland) {
            return Err(Error::invalid_request(
                "Xwayland runs on the Wayland desktop only; the X11 desktop is an X server already",
            )
            .with_suggestion(
                "ask for the \"wayland\" backend with xwayland, or leave xwayland out",
            ));
        }
        Ok(())
    }
}

/// Starts a private headless desktop.
pub fn headless(options: &HeadlessOptions) -> Result<Desktop> {
    options.check()?;
    uidrive_visual::install();
    let mut start = uidrive_x11::DesktopOptions::default();
    if let Some(width) = options.width.filter(|w| *w > 0) {
        start.width = width;
    }
    if let Some(height) = options.height.filter(|h| *h > 0) {
        start.height = height;
    }
    if let Some(timeout) = options.timeout.filter(|t| !t.is_zero()) {
        start.timeout = timeout;
    }
    if options.backend == Some(Backend::Wayland) {
        return headless_wayland(&start, options.xwayland);
    }
    let desktop = uidrive_x11::Desktop::start_with(&start)?;
    let bus = uidrive_atspi::DesktopServices::start(desktop.session_bus_address(), start.timeout)?;
    let services = crate::services::Services::headless(desktop.clipboard(), Arc::new(bus));
    Ok(Desktop {
        display: desktop.display().to_string(),
        backend: Backend::X11,
        env: desktop.env(),
        inner: Mutex::new(Some(Started::X11(desktop))),
        launched: Mutex::default(),
        services: Mutex::new(Some(services)),
        homes: std::sync::atomic::AtomicUsize::new(0),
    })
}

/// [`headless`] on Wayland: sway (with Xwayland when asked), its buses,
/// its clipboard (wlr-data-control), and the notification server and tray
/// watcher on its session bus.
fn headless_wayland(start: &uidrive_x11::DesktopOptions, xwayland: bool) -> Result<Desktop> {
    let desktop = uidrive_wayland::WaylandDesktop::start_with(&uidrive_wayland::WaylandOptions {
        width: start.width,
        height: start.height,
        timeout: start.timeout,
        xwayland,
        ..Default::default()
    })?;
    let bus = uidrive_atspi::DesktopServices::start(desktop.session_bus_address(), start.timeout)?;
    let clipboard = uidrive_wayland::WlClipboard::new(
        PathBuf::from(desktop.wayland_display()),
        desktop.runtime_dir().to_path_buf(),
    );
    let services = crate::services::Services::headless_wayland(clipboard, Arc::new(bus));
    Ok(Desktop {
        display: desktop.wayland_socket().display().to_string(),
        backend: Backend::Wayland,
        env: desktop.env(),
        inner: Mutex::new(Some(Started::Wayland(desktop))),
        launched: Mutex::default(),
        services: Mutex::new(Some(services)),
        homes: std::sync::atomic::AtomicUsize::new(0),
    })
}

impl Desktop {
    fn lock(&self) -> MutexGuard<'_, Option<Started>> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The display: the X display as `:N`, or on the Wayland backend the
    /// compositor's socket as an absolute path (the environment's
    /// `XDG_RUNTIME_DIR` joined with its `WAYLAND_DISPLAY`).
    pub fn display(&self) -> &str {
        &self.display
    }

    /// What shows the desktop's windows.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// What an app needs to show on this desktop, with accessibility on.
    pub fn env(&self) -> &[(String, String)] {
        &self.env
    }

    /// The desktop's environment as a JSON object.
    pub fn env_json(&self) -> serde_json::Value {
        serde_json::Value::Object(
            self.env
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
                .collect(),
        )
    }

    /// Whether [`Desktop::stop`] has run.
    pub fn is_stopped(&self) -> bool {
        self.lock().is_none()
    }

    fn check_running(&self) -> Result<()> {
        if self.is_stopped() {
            return Err(Error::disconnected("the desktop was stopped")
                .with_suggestion("start another headless desktop"));
        }
        Ok(())
    }

    /// The desktop's clipboard, notifications and tray.
    pub fn services(&self) -> Result<crate::services::Services> {
        self.check_running()?;
        self.services
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .ok_or_else(|| {
                Error::disconnected("the desktop was stopped")
                    .with_suggestion("start another headless desktop")
            })
    }

    /// A directory of its own for one app, inside the desktop's private
    /// runtime directory (gone with the desktop); None once it is stopped.
    fn app_area(&self) -> Result<Option<PathBuf>> {
        let Some(runtime) = self.lock().as_ref().map(|d| d.runtime_dir().to_path_buf()) else {
            return Ok(None);
        };
        let n = self
            .homes
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let area = runtime.join("homes").join(n.to_string());
        std::fs::create_dir_all(&area).map_err(|e| {
            Error::failed(format!(
                "could not make the app's home {}: {e}",
                area.display()
            ))
        })?;
        Ok(Some(area))
    }

    /// A home of its own for one app, in its area: `HOME` and the XDG
    /// config, cache, data and state directories, so the app reads and
    /// writes none of the user's files and no other app's. None when the
    /// caller's `env` names any of them.
    fn private_home(home: &Path, asked: &[(String, String)]) -> Result<Vec<(String, String)>> {
        if asked.iter().any(|(k, _)| HOME_VARS.contains(&k.as_str())) {
            return Ok(Vec::new());
        }
        let dirs = [
            ("HOME", home.to_path_buf()),
            ("XDG_CONFIG_HOME", home.join(".config")),
            ("XDG_CACHE_HOME", home.join(".cache")),
            ("XDG_DATA_HOME", home.join(".local/share")),
            ("XDG_STATE_HOME", home.join(".local/state")),
        ];
        for (_, dir) in &dirs {
            std::fs::create_dir_all(dir).map_err(|e| {
                Error::failed(format!(
                    "could not make the app's home {}: {e}",
                    dir.display()
                ))
            })?;
        }
        Ok(dirs
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.display().to_string()))
            .collect())
    }

    /// What an app launched here is started with: `argv` with a browser's
    /// fresh profile in the app's area ([`crate::browser::prepare`]), and the
    /// desktop's environment, a private home ([`Desktop::private_home`]),
    /// then the caller's `env` on top.
    fn prepare(
        &self,
        argv: &[String],
        options: &LaunchOptions,
    ) -> Result<(Vec<String>, LaunchOptions)> {
        let Some(area) = self.app_area()? else {
            return Ok((
                argv.to_vec(),
                LaunchOptions {
                    env: merge_env(&self.env, &options.env),
                    ..options.clone()
                },
            ));
        };
        let home = Desktop::private_home(&area, &options.env)?;
        let argv = match &options.socket_env {
            Some(_) => argv.to_vec(),
            None => crate::browser::prepare(argv, &area.join("browser-profile"))?,
        };
        let env = merge_env(&merge_env(&self.env, &home), &options.env);
        Ok((
            argv,
            LaunchOptions {
                env,
                ..options.clone()
            },
        ))
    }

    /// [`launch`] on this desktop, as [`Desktop::prepare`] makes the command
    /// and its environment.
    pub fn launch(&self, argv: &[String], options: &LaunchOptions) -> Result<App> {
        self.check_running()?;
        let (argv, options) = self.prepare(argv, options)?;
        let app = launch(&argv, &options)?;
        if let Some(pid) = app.pid() {
            self.remember(pid);
        }
        Ok(app)
    }

    /// [`Desktop::launch`] with stdout and stderr captured (see
    /// [`crate::process::launch_captured`]).
    pub fn launch_captured(
        &self,
        argv: &[String],
        options: &LaunchOptions,
    ) -> Result<(App, Arc<crate::process::Process>)> {
        self.check_running()?;
        let (argv, options) = self.prepare(argv, options)?;
        let (app, process) = crate::process::launch_captured(&argv, &options)?;
        self.remember(process.pid());
        Ok((app, process))
    }

    fn remember(&self, pid: u32) {
        if let Some(started) = start_time(pid) {
            self.launched
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push((pid, started));
        }
    }

    /// [`attach`] on this desktop.
    pub fn attach(
        &self,
        target: &AttachTarget,
        env: &[(String, String)],
        timeout: Option<Duration>,
    ) -> Result<App> {
        self.check_running()?;
        attach(target, &merge_env(&self.env, env), timeout)
    }

    /// The whole desktop as one app: every window of every app on it
    /// ([`crate::root`]).
    pub fn root(&self) -> Result<App> {
        self.check_running()?;
        crate::root::root(&self.env)
    }

    /// Ends every process of the desktop, the apps launched through it
    /// first, and removes its runtime directory. Stopping twice does nothing.
    pub fn stop(&self) {
        let Some(desktop) = self.lock().take() else {
            return;
        };
        let launched =
            std::mem::take(&mut *self.launched.lock().unwrap_or_else(|p| p.into_inner()));
        end_leftovers(&launched);
        self.services
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        desktop.stop();
    }
}

impl Drop for Desktop {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A process's start time (field 22 of `/proc/PID/stat`), which tells it
/// from a later process given the same pid.
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: skip past its last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Still the same, unreaped, process?
fn same_process(pid: u32, started: u64) -> bool {
    start_time(pid) == Some(started)
        && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| {
                s.rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            })
            .unwrap_or(true)
}

/// Apps launched on a desktop that their App did not end (not closed yet,
/// or leaked): TERM, a grace period, then KILL.
fn end_leftovers(launched: &[(u32, u64)]) {
    let alive: Vec<&(u32, u64)> = launched
        .iter()
        .filter(|(p, s)| same_process(*p, *s))
        .collect();
    if alive.is_empty() {
        return;
    }
    for (pid, _) in &alive {
        terminate(*pid);
    }
    let deadline = Instant::now() + CLOSE_GRACE;
    while Instant::now() < deadline && alive.iter().any(|(p, s)| same_process(*p, *s)) {
        std::thread::sleep(Duration::from_millis(20));
    }
    for (pid, started) in alive {
        // Checked to be the process we started.
        if same_process(*pid, *started) {
            signal(*pid, libc::SIGKILL);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attach_targets_and_env() {
        assert_eq!(
            AttachTarget::from_parts(Some(3), None).unwrap(),
            AttachTarget::Pid(3)
        );
        assert!(AttachTarget::from_parts(Some(3), Some("x".into())).is_err());
        assert!(AttachTarget::from_parts(None, None).is_err());
        let env = env_entries(&["A=1", "B=x=y"]).unwrap();
        assert_eq!(env[1], ("B".into(), "x=y".into()));
        assert!(env_entries(&["=1"]).is_err());
        assert!(env_entries(&["A"]).is_err());
        let merged = merge_env(&env, &[("A".into(), "2".into())]);
        assert_eq!(merged[0], ("A".into(), "2".into()));
        assert_eq!(merged.len(), 2);
    }

    #[test]
    fn launch_refuses_bad_input_at_once() {
        assert!(launch(&[], &LaunchOptions::default()).is_err());
        let bad = LaunchOptions {
            socket_env: Some("A=B".into()),
            ..Default::default()
        };
        assert!(launch(&["true".to_string()], &bad).is_err());
    }

    /// A launched process that ends on SIGTERM ends at once; one that ignores
    /// it is killed after the grace period. Either way it is reaped.
    #[test]
    fn close_terminates_then_kills() {
        use std::process::Command;
        use uidrive_core::MemoryDriver;
        let launch = |script: &str| {
            let child = Command::new("sh").args(["-c", script]).spawn().expect("sh");
            let pid = child.id();
            (App::with_process(Arc::new(MemoryDriver::new()), child), pid)
        };
        let gone = |pid: u32| std::fs::read_to_string(format!("/proc/{pid}/stat")).is_err();

        let (polite, pid) = launch("exec sleep 30");
        let started = Instant::now();
        // No window to ask: SIGTERM ends it.
        let closed = close_within(&polite, Duration::from_secs(5)).unwrap();
        assert_eq!(closed, Closed::Terminated);
        assert!(started.elapsed() < Duration::from_secs(4), "ended on TERM");
        assert!(gone(pid), "reaped");

        let (stubborn, pid) = launch("trap '' TERM; while :; do sleep 0.05; done");
        std::thread::sleep(Duration::from_millis(200)); // let the shell set its trap
        let started = Instant::now();
        let closed = close_within(&stubborn, Duration::from_millis(300)).unwrap();
        assert_eq!(closed, Closed::Killed);
        assert!(
            started.elapsed() >= Duration::from_millis(300),
            "given its grace"
        );
        assert!(gone(pid), "killed and reaped");
        let again = close_within(&stubborn, Duration::from_millis(300)).unwrap();
        assert_eq!(again, Closed::Exited);
    }

    /// What a launched app started (as LibreOffice's launcher starts
    /// soffice.bin) ends with it: the app leads a process group of its own.
    #[test]
    fn close_ends_what_the_app_started() {
        use std::os::unix::process::CommandExt;
        use std::process::Command;
        use uidrive_core::MemoryDriver;
        let file = std::env::temp_dir().join(format!("uidrive-group-{}", std::process::id()));
        let script = format!("sleep 600 & echo $! > {}; wait", file.display());
        let child = Command::new("sh")
            .args(["-c", &script])
            .process_group(0)
            .spawn()
            .expect("sh");
        let app = App::with_process(Arc::new(MemoryDriver::new()), child);
        let started_child = loop {
            if let Some(pid) = std::fs::read_to_string(&file)
                .ok()
                .and_then(|s| s.trim().parse::<u32>().ok())
            {
                break pid;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        close_within(&app, Duration::from_secs(5)).unwrap();
        // Gone, or a zombie no one reaped yet (PID 1 of a container may not);
        // a child killed an instant ago may still be running its way out.
        let state_now = || {
            std::fs::read_to_string(format!("/proc/{started_child}/stat"))
                .ok()
                .and_then(|stat| stat.rsplit(')').next().map(|rest| rest.trim().to_string()))
        };
        let mut state = state_now();
        for _ in 0..100 {
            if state.as_deref().is_none_or(|s| s.starts_with('Z')) {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
            state = state_now();
        }
        assert!(
            state.as_deref().is_none_or(|s| s.starts_with('Z')),
            "the app's own child {started_child} still runs: {state:?}"
        );
        let _ = std::fs::remove_file(&file);
    }

    #[test]
    fn start_time_reads_this_process() {
        let me = std::process::id();
        let started = start_time(me).expect("our own stat");
        assert!(same_process(me, started));
        assert!(!same_process(me, started + 1));
    }
}
