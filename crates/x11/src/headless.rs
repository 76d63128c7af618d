//! A private headless desktop: an Xvfb display with a window manager
//! (openbox), a D-Bus session bus and the accessibility bus with its
//! registry, for one test worker or one CI job.
//!
//! Everything is private to the desktop (its display number, its buses, its
//! `XDG_RUNTIME_DIR`), so several run side by side, and it is its user's
//! alone: the X server takes only clients that show the cookie of the
//! desktop's X authority file (`XAUTHORITY`, in the 0700 runtime directory)
//! and listens on no TCP port; both buses listen in that directory, with
//! D-Bus's default policy of one user per bus. Every helper process is
//! a child of the calling process in a process group of its own; teardown
//! ends each group from the leaves up so every process is reaped, not left a
//! zombie.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use uidrive_core::{Error, Result};

use crate::buses::Buses;
use crate::process::{Managed, ReadyPipe};
use crate::x11::X11;

/// How to start a [`Desktop`]. `Default` is what [`Desktop::start`] uses.
#[derive(Debug, Clone)]
pub struct DesktopOptions {
    /// Screen size in pixels (default 1920 × 1200: room for windows laid out
    /// for a laptop's screen, which a capture would otherwise cut off).
    pub width: u32,
    pub height: u32,
    /// Colour depth (default 24).
    pub depth: u32,
    /// The longest each start-up step may take (default 30 s).
    pub timeout: Duration,
    /// The X server program (default `Xvfb`, looked up on PATH).
    pub xvfb: PathBuf,
    /// The window manager (default `openbox`, looked up on PATH), started
    /// with the desktop; `None` runs none, and uidrive then gives each
    /// window the focus as it is shown.
    pub window_manager: Option<PathBuf>,
}

impl Default for DesktopOptions {
    fn default() -> Self {
        DesktopOptions {
            width: 1920,
            height: 1200,
            depth: 24,
            timeout: uidrive_core::defaults::LAUNCH,
            xvfb: PathBuf::from("Xvfb"),
            window_manager: Some(PathBuf::from("openbox")),
        }
    }
}

/// A running private desktop. Dropping it (or [`Desktop::stop`]) ends every
/// process it started and removes its runtime directory.
pub struct Desktop {
    display: String,
    timeout: Duration,
    /// Torn down in this order: window manager, the buses (registry,
    /// accessibility bus, session bus), X server.
    wm: Option<Managed>,
    buses: Buses,
    xvfb: Option<Managed>,
    runtime_dir: Option<tempfile::TempDir>,
    /// uidrive's own clipboard on the display (ended first: it is a client of the X server).
    clipboard: Option<std::sync::Arc<crate::Clipboard>>,
    /// Locked while the desktop runs, so a later desktop can tell a runtime
    /// directory left by a killed process (unlocked) and remove it.
    _alive: Option<std::fs::File>,
}

impl Desktop {
    /// Starts a desktop with the default options.
    pub fn start() -> Result<Desktop> {
        Desktop::start_with(&DesktopOptions::default())
    }

    pub fn start_with(options: &DesktopOptions) -> Result<Desktop> {
        remove_stale_runtime_dirs();
        let (runtime_dir, alive) = private_runtime_dir()?;
        let mut desktop = Desktop {
            display: String::new(),
            timeout: options.timeout,
            wm: None,
            buses: Buses::default(),
            xvfb: None,
            runtime_dir: Some(runtime_dir),
            clipboard: None,
            _alive: Some(alive),
        };
        // On any error `desktop` drops here and tears down what did start.
        desktop.start_x(options)?;
        // The window manager starts while the buses do, and is waited for last.
        if let Some(program) = &options.window_manager {
            desktop.start_wm(program)?;
            // What the manager may leave untold: where it put each window.
            crate::placement::start(&desktop.display, &desktop.xauthority()).map_err(|e| {
                Error::failed(format!("could not watch the windows of the display: {e}"))
            })?;
        } else {
            // No window manager: focus windows as they are shown, as one would.
            crate::focus::start(&desktop.display, &desktop.xauthority()).map_err(|e| {
                Error::failed(format!("could not watch the windows of the display: {e}"))
            })?;
        }
        let base = desktop.base_env();
        let runtime_dir = desktop.runtime_dir().to_path_buf();
        desktop
            .buses
            .start(&runtime_dir, &base, Desktop::env_removed(), options.timeout)?;
        desktop.publish_a11y_bus()?;
        desktop.clipboard = Some(std::sync::Arc::new(crate::Clipboard::connect(
            &desktop.display,
            Some(&desktop.xauthority()),
        )?));
        desktop.wait_for_wm()?;
        Ok(desktop)
    }

    /// The X display, as `:N`.
    pub fn display(&self) -> &str {
        &self.display
    }

    /// The X authority file (in the runtime directory) whose cookie the
    /// display takes: [`Desktop::env`] gives it to apps as `XAUTHORITY`.
    pub fn xauthority(&self) -> PathBuf {
        self.runtime_dir().join("Xauthority")
    }

    /// A connection to the display, with its cookie.
    pub fn x11(&self) -> Result<X11> {
        X11::connect_as(&self.display, Some(&self.xauthority()))
    }

    /// The desktop's clipboard (CLIPBOARD and PRIMARY), which uidrive holds
    /// and serves to the apps on it.
    pub fn clipboard(&self) -> Option<std::sync::Arc<crate::Clipboard>> {
        self.clipboard.clone()
    }

    /// The private session bus, as `unix:path=...`.
    pub fn session_bus_address(&self) -> &str {
        self.buses.session_bus_address()
    }

    /// The accessibility bus, asked again of `org.a11y.Bus` on the session bus.
    pub fn a11y_bus_address(&self) -> Result<String> {
        self.buses.ask_a11y_bus_address(self.timeout)
    }

    /// The desktop's private `XDG_RUNTIME_DIR` (mode 0700).
    pub fn runtime_dir(&self) -> &Path {
        self.runtime_dir
            .as_ref()
            .map(|d| d.path())
            .unwrap_or(Path::new(""))
    }

    /// The pids of the processes the desktop started (each leads its own
    /// process group, which also holds that process's own children).
    pub fn process_ids(&self) -> Vec<u32> {
        self.managed().map(|m| m.pid()).collect()
    }

    /// The environment an app needs to show up on this desktop, with
    /// accessibility switched on for every toolkit.
    pub fn env(&self) -> Vec<(String, String)> {
        self.buses.env_with(self.base_env())
    }

    /// What every program of the desktop gets before the buses' addresses:
    /// the display, the runtime directory, the toolkits' settings.
    fn base_env(&self) -> Vec<(String, String)> {
        let mut env = vec![
            ("DISPLAY".to_string(), self.display.clone()),
            (
                "XAUTHORITY".to_string(),
                self.xauthority().display().to_string(),
            ),
            (
                "XDG_RUNTIME_DIR".to_string(),
                self.runtime_dir().display().to_string(),
            ),
        ];
        env.extend(
            Desktop::toolkit_env()
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string())),
        );
        env
    }

    /// The part of [`Desktop::env`] that is the same on every desktop:
    /// accessibility on in every toolkit, apps kept off daemons that would
    /// outlive it, GTK 4 drawing with cairo. For a harness that starts its
    /// own display and buses and should launch apps as this desktop does.
    pub fn toolkit_env() -> &'static [(&'static str, &'static str)] {
        TOOLKIT_ENV
    }

    /// Variables to remove from an app's environment (they would send it to
    /// the user's own Wayland session instead of this desktop).
    pub fn env_removed() -> &'static [&'static str] {
        &["WAYLAND_DISPLAY", "WAYLAND_SOCKET", "AT_SPI_BUS"]
    }

    /// A command for `program` with [`Desktop::env`] applied.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        for name in Desktop::env_removed() {
            command.env_remove(name);
        }
        command.envs(self.env());
        command
    }

    /// Ends every process of the desktop and removes its runtime directory.
    pub fn stop(mut self) {
        self.teardown();
    }

    fn managed(&self) -> impl Iterator<Item = &Managed> {
        self.wm
            .iter()
            .chain(self.buses.managed())
            .chain(self.xvfb.iter())
    }

    fn teardown(&mut self) {
        self.clipboard.take();
        if let Some(mut wm) = self.wm.take() {
            wm.terminate();
        }
        self.buses.stop();
        if let Some(mut xvfb) = self.xvfb.take() {
            xvfb.terminate();
        }
        if let Some(dir) = self.runtime_dir.take() {
            let _ = dir.close();
        }
    }

    fn log(&self, name: &str) -> PathBuf {
        self.runtime_dir().join(format!("{name}.log"))
    }

    /// Xvfb picks a free display number itself (`-displayfd`) and writes it
    /// once it accepts connections, so parallel desktops never race for one.
    /// It takes only clients with the cookie of [`Desktop::xauthority`]
    /// (`-auth`), written before it starts for any display number, then
    /// again for the number it picked.
    fn start_x(&mut self, options: &DesktopOptions) -> Result<()> {
        let name = options.xvfb.display().to_string();
        let cookie = crate::auth::new_cookie()
            .map_err(|e| Error::failed(format!("cannot make an X authority cookie: {e}")))?;
        let xauthority = self.xauthority();
        let write_cookie = |number: &str| {
            crate::auth::write_file(&xauthority, number, &cookie).map_err(|e| {
                Error::failed(format!(
                    "cannot write the X authority file {}: {e}",
                    xauthority.display()
                ))
            })
        };
        write_cookie("")?;
        let mut pipe = ReadyPipe::new()?;
        let mut command = Command::new(&options.xvfb);
        command
            .arg("-auth")
            .arg(&xauthority)
            .arg("-displayfd")
            .arg(pipe.child_fd().to_string())
            .args(["-screen", "0"])
            .arg(format!(
                "{}x{}x{}",
                options.width, options.height, options.depth
            ))
            // -noreset: keep the root window's properties when the last client leaves.
            .args(["-nolisten", "tcp", "-noreset", "+extension", "XTEST"])
            // A normal screen: at Xvfb's own 100 dpi, KDE Frameworks apps
            // scale themselves by 100/96 and answer unscaled bounds.
            .args(["-dpi", "96"])
            .env("XDG_RUNTIME_DIR", self.runtime_dir());
        pipe.pass_to(&mut command);
        let log = self.log("xvfb");
        let xvfb = self.xvfb.insert(Managed::spawn(&name, command, &log)?);
        pipe.close_write();
        let line = match pipe.read_line(
            Instant::now() + self.timeout,
            &format!("{name} to open a display"),
        ) {
            Ok(Some(line)) => line,
            Ok(None) => return Err(xvfb.died("its display number")),
            Err(e) => {
                let message = format!("{}; {name} wrote: {}", e.message, xvfb.log_tail());
                return Err(Error::new(e.code, message).with_suggestion(
                    "check that Xvfb runs (scripts/install-deps.sh installs xvfb), \
                     or give a longer timeout",
                ));
            }
        };
        let number: u32 = line.parse().map_err(|_| {
            Error::failed(format!(
                "{name} announced {line:?} instead of a display number"
            ))
        })?;
        self.display = format!(":{number}");
        write_cookie(&number.to_string())?;
        Ok(())
    }

    /// Starts the window manager on the display. Openbox gets uidrive's
    /// configuration ([`OPENBOX_RC`]), not the system's or the user's:
    /// `XDG_CONFIG_HOME` and `XDG_CACHE_HOME` point into the runtime directory.
    fn start_wm(&mut self, program: &Path) -> Result<()> {
        let name = program.display().to_string();
        let mut command = Command::new(program);
        if program.file_name().is_some_and(|n| n == "openbox") {
            // No session manager to talk to; no autostart programs.
            command.arg("--sm-disable");
            // uidrive's own configuration, not the system's (see OPENBOX_RC).
            let config = self.runtime_dir().join("openbox-rc.xml");
            std::fs::write(&config, OPENBOX_RC).map_err(|e| {
                Error::failed(format!(
                    "could not write the window manager's configuration {}: {e}",
                    config.display()
                ))
            })?;
            command.arg("--config-file").arg(&config);
        }
        command
            .env("DISPLAY", &self.display)
            .env("XAUTHORITY", self.xauthority())
            .env("XDG_RUNTIME_DIR", self.runtime_dir())
            .env("XDG_CONFIG_HOME", self.runtime_dir().join("config"))
            .env("XDG_CACHE_HOME", self.runtime_dir().join("cache"))
            .env("XDG_DATA_HOME", self.runtime_dir().join("data"))
            // Its own D-Bus is none of the desktop's concern.
            .env_remove("DBUS_SESSION_BUS_ADDRESS");
        for removed in Desktop::env_removed() {
            command.env_remove(removed);
        }
        let log = self.log("wm");
        self.wm = Some(Managed::spawn(&name, command, &log).map_err(|e| {
            e.with_suggestion(
                "install openbox (scripts/install-deps.sh does), or start the desktop without a window manager (window_manager: None)",
            )
        })?);
        Ok(())
    }

    /// Waits until the window manager says it manages the screen
    /// (`_NET_SUPPORTING_WM_CHECK` on the root names its check window):
    /// only then are windows framed, focused and stacked by it.
    fn wait_for_wm(&mut self) -> Result<()> {
        if self.wm.is_none() {
            return Ok(());
        }
        let x = X11::connect_as(&self.display, Some(&self.xauthority()))?;
        let timeout = self.timeout;
        let wm = self.wm.as_mut().expect("checked above");
        let deadline = Instant::now() + timeout;
        loop {
            if x.window_manager()?.is_some() {
                return Ok(());
            }
            if wm.exited().is_some() {
                return Err(wm.died("the window manager to manage the screen"));
            }
            if Instant::now() >= deadline {
                return Err(Error::timeout(format!(
                    "{} did not manage the screen within {} ms; it wrote: {}",
                    wm.name(),
                    timeout.as_millis(),
                    wm.log_tail()
                ))
                .with_suggestion("check that it runs under Xvfb, or give a longer timeout"));
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Writes the accessibility bus address on the root window (`AT_SPI_BUS`),
    /// where libatspi looks before it asks the session bus.
    fn publish_a11y_bus(&mut self) -> Result<()> {
        let x = self.x11()?;
        x.set_at_spi_bus(self.buses.a11y_bus_address())
    }
}

impl Drop for Desktop {
    fn drop(&mut self) {
        self.teardown();
    }
}

impl std::fmt::Debug for Desktop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Desktop")
            .field("display", &self.display)
            .field("session_bus_address", &self.buses.session_bus_address())
            .field("a11y_bus_address", &self.buses.a11y_bus_address())
            .field("runtime_dir", &self.runtime_dir())
            .field(
                "processes",
                &self
                    .managed()
                    .map(|m| (m.name(), m.pid()))
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// Switches accessibility on in every toolkit, and keeps apps on this desktop's
/// own services rather than ones that would outlive it.
const TOOLKIT_ENV: &[(&str, &str)] = &[
    // GTK 2/3: load the AT-SPI bridge (GTK 3 loads it anyway unless NO_AT_BRIDGE=1).
    ("GTK_MODULES", "gail:atk-bridge"),
    ("NO_AT_BRIDGE", "0"),
    ("GNOME_ACCESSIBILITY", "1"),
    // GTK 4 talks AT-SPI itself; make sure no other backend is chosen.
    ("GTK_A11Y", "atspi"),
    // Qt 5/6.
    ("QT_ACCESSIBILITY", "1"),
    ("QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1"),
    ("QT_QPA_PLATFORM", "xcb"),
    // Chromium and Electron.
    ("ACCESSIBILITY_ENABLED", "1"),
    // Always the X display, never a Wayland one.
    ("GDK_BACKEND", "x11"),
    ("XDG_SESSION_TYPE", "x11"),
    // Type keys straight into widgets, without an input method daemon.
    ("GTK_IM_MODULE", "gtk-im-context-simple"),
    // No dconf, portal or gvfs daemons started on the private bus.
    ("GSETTINGS_BACKEND", "memory"),
    ("GTK_USE_PORTAL", "0"),
    ("GIO_USE_VFS", "local"),
    // GTK 4 draws with cairo: software OpenGL costs much CPU on a CI machine.
    ("GSK_RENDERER", "cairo"),
];

const RUNTIME_PREFIX: &str = "uidrive-desktop-";
/// The file in a runtime directory its desktop holds locked while it runs.
const ALIVE: &str = ".alive";

/// A fresh temporary directory only this user can enter, and its lock,
/// taken before the lock file gets its name (so no sweeper sees it unlocked).
pub fn private_runtime_dir() -> Result<(tempfile::TempDir, std::fs::File)> {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::Builder::new()
        .prefix(RUNTIME_PREFIX)
        .tempdir()
        .map_err(|e| Error::failed(format!("cannot create a runtime directory: {e}")))?;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))
        .map_err(|e| Error::failed(format!("cannot make the runtime directory private: {e}")))?;
    let staged = dir.path().join(".alive.new");
    let alive = std::fs::File::create(&staged)
        .and_then(|file| {
            lock(&file, false)?;
            std::fs::rename(&staged, dir.path().join(ALIVE))?;
            Ok(file)
        })
        .map_err(|e| Error::failed(format!("cannot lock the runtime directory: {e}")))?;
    Ok((dir, alive))
}

/// `flock` on `file`, exclusive; `try_only`: fail at once if it is held.
fn lock(file: &std::fs::File, try_only: bool) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let flags = libc::LOCK_EX | if try_only { libc::LOCK_NB } else { 0 };
    // SAFETY: flock on a descriptor we own.
    if unsafe { libc::flock(file.as_raw_fd(), flags) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Removes the runtime directories of this user's desktops whose process
/// was killed (nothing holds their lock): their processes ended with it
/// (they are tied to it), but the directory, its logs and sockets stayed.
pub fn remove_stale_runtime_dirs() {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let dir = entry.path();
        let ours = name.to_string_lossy().starts_with(RUNTIME_PREFIX)
            && std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir() && m.uid() == me);
        if !ours {
            continue;
        }
        let stale =
            std::fs::File::open(dir.join(ALIVE)).is_ok_and(|file| lock(&file, true).is_ok());
        if stale {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

/// Openbox's configuration on the headless desktop, in place of Debian's
/// (`/etc/xdg/openbox/rc.xml`): new windows take the focus and the focus never
/// follows the pointer. No mouse binding: Debian's click-to-focus binding (a
/// synchronous grab on the client, then a replay) left a GTK 3 entry deaf to
/// the click and keys that followed a combo box's popup; the frame's own
/// bindings stay (they grab nothing on the app's window): the title bar
/// focuses, raises and moves, its buttons close, maximize and minimize, the
/// edges resize. Windows have title
/// bars and borders, as on a person's desktop (uidrive counts the frame,
/// `_NET_FRAME_EXTENTS`, wherever a toolkit answers positions with it). The
/// only key binding is Alt+F4 (close), so every other key reaches the app.
const OPENBOX_RC: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<openbox_config xmlns="http://openbox.org/3.4/rc">
  <focus>
    <focusNew>yes</focusNew>
    <followMouse>no</followMouse>
    <underMouse>no</underMouse>
    <focusLast>yes</focusLast>
    <raiseOnFocus>no</raiseOnFocus>
  </focus>
  <placement><policy>Smart</policy></placement>
  <desktops><number>1</number></desktops>
  <keyboard>
    <keybind key="A-F4"><action name="Close"/></keybind>
  </keyboard>
  <mouse>
    <context name="Titlebar">
      <mousebind button="Left" action="Press"><action name="Focus"/><action name="Raise"/></mousebind>
      <mousebind button="Left" action="Drag"><action name="Move"/></mousebind>
      <mousebind button="Left" action="DoubleClick"><action name="ToggleMaximize"/></mousebind>
    </context>
    <context name="Top Bottom Left Right TLCorner TRCorner BLCorner BRCorner">
      <mousebind button="Left" action="Press"><action name="Focus"/><action name="Raise"/></mousebind>
      <mousebind button="Left" action="Drag"><action name="Resize"/></mousebind>
    </context>
    <context name="Close">
      <mousebind button="Left" action="Click"><action name="Close"/></mousebind>
    </context>
    <context name="Maximize">
      <mousebind button="Left" action="Click"><action name="ToggleMaximize"/></mousebind>
    </context>
    <context name="Iconify">
      <mousebind button="Left" action="Click"><action name="Iconify"/></mousebind>
    </context>
  </mouse>
  <menu></menu>
  <applications></applications>
</openbox_config>
"#;
