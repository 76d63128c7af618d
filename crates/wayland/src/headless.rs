//! A private headless Wayland desktop: sway on wlroots' headless backend
//! with the pixman (CPU) renderer, no input device and no X server, with
//! the same D-Bus session bus, accessibility bus and registry as the X11
//! desktop ([`uidrive_x11::buses::Buses`]).
//!
//! sway refuses to run as root (it checks it cannot get root back), so a
//! desktop started by root runs sway as `nobody` in a directory of its own
//! that only `nobody` (and root) may enter; everything else, and the apps,
//! run as the caller. Apps reach sway as in a person's session: by a name
//! in their `XDG_RUNTIME_DIR` (the desktop's private one), there a link to
//! sway's socket when sway runs in its own directory. Sandboxes that let in
//! only `$XDG_RUNTIME_DIR/$WAYLAND_DISPLAY` (WebKit's web process under
//! bubblewrap) then reach it too.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use uidrive_core::{Error, Result};
use uidrive_x11::buses::Buses;
use uidrive_x11::process::Managed;

/// The user sway runs as when the caller is root.
const NOBODY: u32 = 65534;

/// How to start a [`WaylandDesktop`].
#[derive(Debug, Clone)]
pub struct WaylandOptions {
    /// The output's size in pixels (default 1920 × 1200, as on X11).
    pub width: u32,
    pub height: u32,
    /// The longest each start-up step may take.
    pub timeout: Duration,
    /// The compositor program (default `sway`, looked up on PATH).
    pub sway: PathBuf,
    /// Run Xwayland too, so X-only apps can show; apps still start as
    /// native Wayland clients unless told otherwise (`GDK_BACKEND=x11`).
    pub xwayland: bool,
}

impl Default for WaylandOptions {
    fn default() -> Self {
        WaylandOptions {
            width: 1920,
            height: 1200,
            timeout: uidrive_core::defaults::LAUNCH,
            sway: PathBuf::from("sway"),
            xwayland: false,
        }
    }
}

/// A running headless Wayland desktop; dropping it ends every process it
/// started and removes its directories.
pub struct WaylandDesktop {
    /// What `WAYLAND_DISPLAY` says: a name in the runtime directory.
    wayland_display: String,
    swaysock: PathBuf,
    /// Xwayland's display (`:N`) and pid, when it runs.
    x_display: Option<String>,
    xwayland: Option<u32>,
    /// With Xwayland: a virtual pointer and keyboard held for the desktop's
    /// life, so the seat never loses them (why: `xwayland.rs`).
    devices: Option<Box<crate::Wayland>>,
    width: u32,
    height: u32,
    /// Torn down in this order: the buses, then sway.
    buses: Buses,
    sway: Option<Managed>,
    /// sway's own directory when it runs as another user (removed last).
    sway_dir: Option<tempfile::TempDir>,
    runtime_dir: Option<tempfile::TempDir>,
    _alive: Option<std::fs::File>,
}

/// What apps on the Wayland desktop get on top of the toolkits' common
/// settings: every toolkit on Wayland, none on X.
const WAYLAND_TOOLKIT_ENV: &[(&str, &str)] = &[
    ("GDK_BACKEND", "wayland"),
    ("QT_QPA_PLATFORM", "wayland"),
    ("XDG_SESSION_TYPE", "wayland"),
    ("MOZ_ENABLE_WAYLAND", "1"),
    // sway draws no decorations here (border none); Qt draws none either.
    ("QT_WAYLAND_DISABLE_WINDOWDECORATION", "1"),
];

impl WaylandDesktop {
    pub fn start() -> Result<WaylandDesktop> {
        WaylandDesktop::start_with(&WaylandOptions::default())
    }

    pub fn start_with(options: &WaylandOptions) -> Result<WaylandDesktop> {
        uidrive_x11::remove_stale_runtime_dirs();
        let (runtime_dir, alive) = uidrive_x11::private_runtime_dir()?;
        let mut desktop = WaylandDesktop {
            wayland_display: String::new(),
            swaysock: PathBuf::new(),
            x_display: None,
            xwayland: None,
            devices: None,
            width: options.width,
            height: options.height,
            buses: Buses::default(),
            sway: None,
            sway_dir: None,
            runtime_dir: Some(runtime_dir),
            _alive: Some(alive),
        };
        // On an error `desktop` drops here and ends what did start.
        desktop.start_sway(options)?;
        let base = desktop.base_env();
        let runtime_dir = desktop.runtime_dir().to_path_buf();
        desktop.buses.start(
            &runtime_dir,
            &base,
            WaylandDesktop::env_removed(),
            options.timeout,
        )?;
        if let Some(display) = &desktop.x_display {
            crate::xwayland::publish_a11y_bus(display, desktop.buses.a11y_bus_address())?;
            desktop.devices = Some(Box::new(desktop.connect()?));
        }
        desktop.wait_for_output(options)?;
        Ok(desktop)
    }

    /// What `WAYLAND_DISPLAY` says: the compositor's socket by its name in
    /// [`WaylandDesktop::runtime_dir`], as `wayland-1`.
    pub fn wayland_display(&self) -> &str {
        &self.wayland_display
    }

    /// The compositor's socket as apps reach it, an absolute path in
    /// [`WaylandDesktop::runtime_dir`] (a link to sway's socket when sway
    /// runs as another user).
    pub fn wayland_socket(&self) -> PathBuf {
        self.runtime_dir().join(&self.wayland_display)
    }

    /// sway's IPC socket (what `SWAYSOCK` says).
    pub fn swaysock(&self) -> &Path {
        &self.swaysock
    }

    /// Xwayland's display (`:N`), when the desktop runs it.
    pub fn x_display(&self) -> Option<&str> {
        self.x_display.as_deref()
    }

    /// The output's size.
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    pub fn session_bus_address(&self) -> &str {
        self.buses.session_bus_address()
    }

    pub fn a11y_bus_address(&self) -> &str {
        self.buses.a11y_bus_address()
    }

    /// The desktop's private `XDG_RUNTIME_DIR` (mode 0700).
    pub fn runtime_dir(&self) -> &Path {
        self.runtime_dir
            .as_ref()
            .map(|d| d.path())
            .unwrap_or(Path::new(""))
    }

    /// The pids of the processes the desktop started.
    pub fn process_ids(&self) -> Vec<u32> {
        let mut pids = self.buses.process_ids();
        pids.extend(self.sway.iter().map(|m| m.pid()));
        pids.extend(self.xwayland);
        pids
    }

    /// What an app needs to show on this desktop as a native Wayland
    /// client, with accessibility on: `WAYLAND_DISPLAY`, and `DISPLAY` only
    /// when Xwayland runs (the toolkits still pick Wayland, as told).
    pub fn env(&self) -> Vec<(String, String)> {
        self.buses.env_with(self.base_env())
    }

    /// Variables to remove from an app's environment: any X display, and
    /// the caller's own Wayland session and accessibility bus.
    pub fn env_removed() -> &'static [&'static str] {
        &[
            "DISPLAY",
            "XAUTHORITY",
            "WAYLAND_SOCKET",
            "AT_SPI_BUS",
            "DBUS_SESSION_BUS_ADDRESS",
        ]
    }

    /// A command for `program` with [`WaylandDesktop::env`] applied.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        for name in WaylandDesktop::env_removed() {
            command.env_remove(name);
        }
        command.envs(self.env());
        command
    }

    /// A connection for input and capture on this desktop.
    pub fn connect(&self) -> Result<crate::Wayland> {
        crate::Wayland::connect(&self.wayland_display, Some(self.runtime_dir()))
    }

    pub fn stop(mut self) {
        self.teardown();
    }

    fn teardown(&mut self) {
        self.devices.take();
        self.buses.stop();
        if let Some(mut sway) = self.sway.take() {
            sway.terminate();
        }
        if let Some(pid) = self.xwayland.take() {
            crate::xwayland::end(pid);
        }
        if let Some(dir) = self.sway_dir.take() {
            let _ = dir.close();
        }
        if let Some(dir) = self.runtime_dir.take() {
            let _ = dir.close();
        }
    }

    fn base_env(&self) -> Vec<(String, String)> {
        let mut env = vec![
            ("WAYLAND_DISPLAY".to_string(), self.wayland_display.clone()),
            ("SWAYSOCK".to_string(), self.swaysock.display().to_string()),
            (
                "XDG_RUNTIME_DIR".to_string(),
                self.runtime_dir().display().to_string(),
            ),
        ];
        env.extend(
            self.x_display
                .iter()
                .map(|d| ("DISPLAY".to_string(), d.clone())),
        );
        let overridden = |k: &str| WAYLAND_TOOLKIT_ENV.iter().any(|(w, _)| *w == k);
        env.extend(
            uidrive_x11::Desktop::toolkit_env()
                .iter()
                .filter(|(k, _)| !overridden(k))
                .chain(WAYLAND_TOOLKIT_ENV)
                .map(|(k, v)| (k.to_string(), v.to_string())),
        );
        env
    }

    /// Starts sway on the headless backend and waits for its Wayland and
    /// IPC sockets.
    fn start_sway(&mut self, options: &WaylandOptions) -> Result<()> {
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let dir = if root {
            let dir = tempfile::Builder::new()
                .prefix("uidrive-sway-")
                .tempdir()
                .map_err(|e| Error::failed(format!("cannot create sway's directory: {e}")))?;
            let path = dir.path().to_path_buf();
            self.sway_dir = Some(dir);
            chown(&path, NOBODY)?;
            path
        } else {
            self.runtime_dir().to_path_buf()
        };
        let config = dir.join("sway-config");
        let xwayland = match options.xwayland {
            true => {
                crate::xwayland::socket_dir()?;
                crate::xwayland::config(&dir, root)
            }
            false => "xwayland disable\n".to_string(),
        };
        let text = sway_config(options.width, options.height) + &xwayland;
        std::fs::write(&config, text)
            .and_then(|()| {
                if root { chown(&config, NOBODY) } else { Ok(()) }
                    .map_err(|e| std::io::Error::other(e.message))
            })
            .map_err(|e| Error::failed(format!("cannot write sway's configuration: {e}")))?;
        let name = options.sway.display().to_string();
        let mut command = Command::new(&options.sway);
        command
            .arg("--config")
            .arg(&config)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &dir)
            .env("XDG_RUNTIME_DIR", &dir)
            .env("XDG_CONFIG_HOME", dir.join("config"))
            .env("WLR_BACKENDS", "headless")
            .env("WLR_LIBINPUT_NO_DEVICES", "1")
            .env("WLR_RENDERER", "pixman");
        if root {
            use std::os::unix::process::CommandExt;
            // Before anything else in the child: the parent-death signal
            // set after it must survive the change of user.
            // SAFETY: only async-signal-safe calls between fork and exec.
            unsafe {
                command.pre_exec(|| {
                    if libc::setgroups(0, std::ptr::null()) != 0
                        || libc::setgid(NOBODY) != 0
                        || libc::setuid(NOBODY) != 0
                    {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let apps_dir = self.runtime_dir().to_path_buf();
        let log = apps_dir.join("sway.log");
        let sway = self.sway.insert(
            Managed::spawn(&name, command, &log)
                .map_err(|e| e.with_suggestion("install sway (scripts/install-deps.sh does)"))?,
        );
        let deadline = Instant::now() + options.timeout;
        loop {
            let found = std::fs::read_dir(&dir).ok().map(|entries| {
                let names: Vec<String> = entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect();
                let wayland = names
                    .iter()
                    .find(|n| n.starts_with("wayland-") && !n.ends_with(".lock"))
                    .cloned();
                let ipc = names
                    .iter()
                    .find(|n| n.starts_with("sway-ipc.") && n.ends_with(".sock"))
                    .cloned();
                (wayland, ipc)
            });
            if let Some((Some(wayland), Some(ipc))) = found {
                self.swaysock = dir.join(ipc);
                if crate::sway::command(&self.swaysock, "nop").is_ok() {
                    if root {
                        link_socket(&dir.join(&wayland), &apps_dir.join(&wayland))?;
                    }
                    self.wayland_display = wayland;
                    if options.xwayland {
                        let display =
                            crate::xwayland::wait_for_display(&dir, sway, options.timeout)?;
                        self.xwayland = crate::xwayland::pid(&display);
                        self.x_display = Some(display);
                    }
                    return Ok(());
                }
            }
            if sway.exited().is_some() {
                return Err(sway.died("its Wayland socket"));
            }
            if Instant::now() >= deadline {
                return Err(Error::timeout(format!(
                    "{name} opened no Wayland socket within {} ms; it wrote: {}",
                    options.timeout.as_millis(),
                    sway.log_tail()
                ))
                .with_suggestion("check that sway runs headless here, or give a longer timeout"));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Waits for the output to have the size asked for.
    fn wait_for_output(&mut self, options: &WaylandOptions) -> Result<()> {
        let deadline = Instant::now() + options.timeout;
        loop {
            let size = self.connect()?.output_size();
            if size == (options.width, options.height) {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(Error::timeout(format!(
                    "sway's output is {}x{}, not the {}x{} asked for",
                    size.0, size.1, options.width, options.height
                )));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for WaylandDesktop {
    fn drop(&mut self) {
        self.teardown();
    }
}

impl std::fmt::Debug for WaylandDesktop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WaylandDesktop")
            .field("wayland_display", &self.wayland_display)
            .field("runtime_dir", &self.runtime_dir())
            .field("swaysock", &self.swaysock)
            .field("session_bus_address", &self.buses.session_bus_address())
            .field("processes", &self.process_ids())
            .finish()
    }
}

/// The pid of the process listening on the Unix socket at `path` (links
/// followed), as the kernel gives it to a client that connects: tells
/// whose socket a `WAYLAND_DISPLAY` names.
pub fn socket_listener(path: &Path) -> Result<u32> {
    use std::os::fd::AsRawFd;
    let stream = std::os::unix::net::UnixStream::connect(path).map_err(|e| {
        Error::failed(format!("cannot connect to {}: {e}", path.display()))
            .with_suggestion("check that the socket exists and its server runs")
    })?;
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: a connected socket we own, and a buffer of the length given.
    let done = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    if done != 0 || cred.pid <= 0 {
        return Err(Error::failed(format!(
            "the kernel did not say who listens on {}: {}",
            path.display(),
            std::io::Error::last_os_error()
        )));
    }
    Ok(cred.pid as u32)
}

/// Puts a link to sway's socket in the apps' runtime directory, under the
/// same name (the runtime directory, with the link, goes with the desktop).
fn link_socket(socket: &Path, link: &Path) -> Result<()> {
    std::os::unix::fs::symlink(socket, link).map_err(|e| {
        Error::failed(format!(
            "cannot link sway's socket {} into the apps' runtime directory as {}: {e}",
            socket.display(),
            link.display()
        ))
        .with_suggestion("check that the desktop's runtime directory is writable")
    })
}

fn chown(path: &Path, uid: u32) -> Result<()> {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|_| Error::failed("a path with a NUL byte"))?;
    // SAFETY: a valid C string.
    if unsafe { libc::chown(c.as_ptr(), uid, uid) } != 0 {
        return Err(Error::failed(format!(
            "cannot give {} to uid {uid}: {}",
            path.display(),
            std::io::Error::last_os_error()
        )));
    }
    Ok(())
}

/// sway's configuration: one output of the size asked for, no borders, no
/// bar, focus only where uidrive or a new window puts it (whether
/// Xwayland runs comes after).
fn sway_config(width: u32, height: u32) -> String {
    format!(
        "output HEADLESS-1 mode {width}x{height} position 0 0 scale 1\n\
         default_border none\n\
         default_floating_border none\n\
         focus_follows_mouse no\n\
         focus_on_window_activation focus\n"
    )
}
