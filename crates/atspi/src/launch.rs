//! Launching an app with accessibility switched on for every toolkit.
//!
//! Most toolkits follow the variables of [`accessibility_env`]. Three need more,
//! found by trying each on Debian 12:
//!
//! - **Qt 6** (6.4) started with `AT_SPI_BUS_ADDRESS` connects to that bus but
//!   never serves its root, so it never registers. On a desktop of uidrive's
//!   own (X11 or Wayland) the app does not get the variable: every toolkit finds the bus
//!   through the session bus (`org.a11y.Bus`) or the display's `AT_SPI_BUS`
//!   property, which the desktop publishes. The driver still uses it.
//! - **Chromium and Electron** keep web content out of the tree unless told
//!   otherwise: they get `--force-renderer-accessibility`.
//! - **LibreOffice** is accessible only through its GTK 3 plugin
//!   (`libreoffice-gtk3`); it gets `SAL_USE_VCLPLUGIN=gtk3`, and when it never
//!   shows a window the error says which package and why.

use crate::driver::{AtspiDriver, LaunchOptions};
use crate::no_tree::NoTreeDriver;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use uidrive_core::Driver;
use uidrive_core::{Error, ErrorCode, Result};

/// The variables that make every toolkit talk to assistive technology:
/// GTK's bridge module, Gecko's and GTK 2's switch, Qt's switch, and the
/// generic one Chromium reads for its own widgets.
pub fn accessibility_env() -> Vec<(String, String)> {
    [
        ("GTK_MODULES", "gail:atk-bridge"),
        ("GNOME_ACCESSIBILITY", "1"),
        ("QT_ACCESSIBILITY", "1"),
        ("QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1"),
        ("ACCESSIBILITY_ENABLED", "1"),
        ("NO_AT_BRIDGE", "0"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// How long an app whose window showed late in the launch's time still gets
/// to take input ([`AtspiDriver::wait_ready`]).
const READY_AT_LEAST: std::time::Duration = std::time::Duration::from_secs(5);

/// What turns Java's ATK bridge on in any JVM the launch starts, whatever
/// starts it (`java -jar`, a launcher script): the bridge's jar on the boot
/// class path, and the AWT property that loads it. Debian ships the bridge
/// (libatk-wrapper-java) off.
const JAVA_BRIDGE_OPTIONS: &str =
    "-Djavax.accessibility.assistive_technologies=org.GNOME.Accessibility.AtkWrapper";

/// `JAVA_TOOL_OPTIONS` with Java's ATK bridge turned on, after `existing`
/// (the caller's own options); `None` when the bridge is not installed
/// (its jar, and its JNI library, which a JVM told to load the bridge
/// without would fail to start).
pub fn java_tool_options(existing: Option<&str>) -> Option<String> {
    let jar = std::path::Path::new(crate::no_tree::JAVA_BRIDGE_JAR);
    let jni = std::fs::read_dir("/usr/lib")
        .ok()?
        .flatten()
        .any(|dir| dir.path().join("jni/libatk-wrapper.so").exists());
    if !jar.exists() || !jni {
        return None;
    }
    let ours = format!("-Xbootclasspath/a:{} {JAVA_BRIDGE_OPTIONS}", jar.display());
    Some(match existing.map(str::trim).filter(|e| !e.is_empty()) {
        Some(existing) if existing.contains(JAVA_BRIDGE_OPTIONS) => existing.to_string(),
        Some(existing) => format!("{existing} {ours}"),
        None => ours,
    })
}

/// The variable that turns Java's ATK bridge on for a launch whose
/// environment is `env` over this process's (see [`java_tool_options`]).
pub fn java_bridge_env(env: &[(String, String)]) -> Option<(String, String)> {
    let existing = crate::bus::env_value(env, "JAVA_TOOL_OPTIONS");
    java_tool_options(existing.as_deref()).map(|v| ("JAVA_TOOL_OPTIONS".to_string(), v))
}

/// The switch that makes Chromium and Electron expose their pages.
const CHROMIUM_FLAG: &str = "--force-renderer-accessibility";
/// The variable that picks LibreOffice's plugin, and the plugin with accessibility.
const LO_PLUGIN_VAR: &str = "SAL_USE_VCLPLUGIN";
const LO_PLUGIN: &str = "gtk3";
const LO_PLUGIN_FILE: &str = "libvclplug_gtk3lo.so";
const LO_PACKAGE: &str = "libreoffice-gtk3";

/// The toolkit families launching treats apart from the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Chromium,
    LibreOffice,
    Other,
}

/// Tells the family from the program's name, and for a renamed Chromium (an
/// Electron app) from the files next to its binary.
fn family(program: &str, binary_dir: Option<&Path>) -> Family {
    let name = Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(program);
    let chromium_names = [
        "chromium",
        "chromium-browser",
        "chrome",
        "google-chrome",
        "google-chrome-stable",
        "electron",
    ];
    let office_names = [
        "soffice",
        "lowriter",
        "localc",
        "loimpress",
        "lodraw",
        "lomath",
        "lobase",
        "loweb",
    ];
    if chromium_names.contains(&name) || name.starts_with("electron") {
        Family::Chromium
    } else if office_names.contains(&name)
        || name.starts_with("soffice.")
        || name.starts_with("libreoffice")
    {
        Family::LibreOffice
    } else if binary_dir.is_some_and(is_chromium_build) {
        Family::Chromium
    } else {
        Family::Other
    }
}

/// Chromium and every Electron app ship their resources and V8 snapshot next to the binary.
fn is_chromium_build(dir: &Path) -> bool {
    dir.join("resources.pak").is_file()
        && (dir.join("v8_context_snapshot.bin").is_file()
            || dir.join("snapshot_blob.bin").is_file())
}

/// The directory of the binary `program` runs, symlinks followed, looked up on `path`.
fn binary_dir(program: &str, path: Option<&str>) -> Option<PathBuf> {
    let found = if program.contains('/') {
        PathBuf::from(program)
    } else {
        std::env::split_paths(path?)
            .map(|dir| dir.join(program))
            .find(|candidate| candidate.is_file())?
    };
    Some(found.canonicalize().ok()?.parent()?.to_path_buf())
}

/// What launching adds to the command line and the environment for `family`,
/// leaving alone what the caller already chose (`is_set` says if a variable is).
fn extras(
    family: Family,
    args: &[String],
    is_set: impl Fn(&str) -> bool,
) -> (Vec<String>, Vec<(String, String)>) {
    match family {
        Family::Chromium if !args.iter().any(|a| a == CHROMIUM_FLAG) => {
            (vec![CHROMIUM_FLAG.to_string()], Vec::new())
        }
        Family::LibreOffice if !is_set(LO_PLUGIN_VAR) => (
            Vec::new(),
            vec![(LO_PLUGIN_VAR.to_string(), LO_PLUGIN.to_string())],
        ),
        _ => (Vec::new(), Vec::new()),
    }
}

/// Whether LibreOffice's GTK 3 plugin is installed next to its program
/// (`binary_dir`) or where Debian and the upstream packages put it.
fn lo_plugin_installed(binary_dir: Option<&Path>) -> bool {
    let mut dirs: Vec<PathBuf> = binary_dir.map(Path::to_path_buf).into_iter().collect();
    dirs.push(PathBuf::from("/usr/lib/libreoffice/program"));
    if let Ok(entries) = std::fs::read_dir("/opt") {
        dirs.extend(entries.flatten().map(|e| e.path().join("program")));
    }
    dirs.iter().any(|dir| dir.join(LO_PLUGIN_FILE).is_file())
}

/// The error for a LibreOffice that showed no window on the bus, given the
/// driver's own error, whether the GTK 3 plugin is there and the plugin the
/// caller chose (`SAL_USE_VCLPLUGIN`), if any.
fn office_error(err: Error, plugin_installed: bool, chosen: Option<&str>) -> Error {
    if err.code == ErrorCode::AppExited {
        return Error::new(
            err.code,
            format!(
                "{}; a LibreOffice that finds another one running with the same profile hands it the document and exits",
                err.message
            ),
        )
        .with_suggestion(
            "close the other LibreOffice, or give this one a profile of its own: -env:UserInstallation=file:///tmp/NAME",
        );
    }
    if !plugin_installed {
        return Error::new(
            err.code,
            format!(
                "{}: LibreOffice talks to assistive technology only through its GTK 3 plugin, and {LO_PACKAGE} is not installed",
                err.message
            ),
        )
        .with_suggestion(format!("install {LO_PACKAGE} (apt-get install {LO_PACKAGE})"));
    }
    match chosen {
        Some(plugin) if plugin != LO_PLUGIN => Error::new(
            err.code,
            format!(
                "{}: LibreOffice talks to assistive technology only through its GTK 3 plugin, and {LO_PLUGIN_VAR} chose `{plugin}`",
                err.message
            ),
        )
        .with_suggestion(format!("unset {LO_PLUGIN_VAR}, or set it to {LO_PLUGIN}")),
        _ => Error::new(
            err.code,
            format!("{} (LibreOffice ran with its GTK 3 plugin)", err.message),
        )
        .with_suggestion(err.suggestion),
    }
}

impl AtspiDriver {
    /// Starts `argv` with accessibility on and `opts.env` over the process env,
    /// and attaches once its first window is on the registry.
    ///
    /// The child is the caller's: kill or wait for it. If the app never shows a
    /// window within `opts.timeout`, it is killed and the error says so; if it
    /// exits first, the error (`app_exited`) comes as soon as it has exited.
    pub fn launch(argv: &[String], opts: &LaunchOptions) -> Result<(AtspiDriver, Child)> {
        AtspiDriver::launch_ready(argv, opts).map(|(driver, child, _)| (driver, child))
    }

    /// [`AtspiDriver::launch`], saying how the app was found ready to take
    /// input and how long that added ([`AtspiDriver::wait_ready`]). An app
    /// that shows a window but has no accessibility tree is ended, and the
    /// error (`unsupported`) says why (see [`launch_any`] to drive it anyway).
    pub fn launch_ready(
        argv: &[String],
        opts: &LaunchOptions,
    ) -> Result<(AtspiDriver, Child, crate::Readiness)> {
        match launch_any(argv, opts)? {
            (Launched::Tree(driver, ready), child) => Ok((driver, child, ready)),
            (Launched::NoTree(driver), mut child) => {
                let _ = child.kill();
                let _ = child.wait();
                Err(driver.why().error())
            }
        }
    }

    /// Attaches to the app just launched as process `pid`: its tree once it
    /// takes input ([`AtspiDriver::wait_ready`]), or, when it shows a window
    /// of a toolkit without accessibility, a driver of what it shows, within
    /// a moment of the window showing ([`crate::no_tree`]). The driver
    /// follows the app to the new process the launch starts if it ends the
    /// one that showed its window (`crate::follow`).
    pub fn attach_launched(pid: u32, opts: &LaunchOptions) -> Result<Launched> {
        let display = crate::bus::env_value(&opts.env, "DISPLAY");
        let xauthority = crate::bus::env_value(&opts.env, "XAUTHORITY");
        let mut probe = crate::no_tree::Probe::new(display.clone(), xauthority.clone(), pid);
        let found = probe.found.clone();
        let started = std::time::Instant::now();
        match AtspiDriver::attach_pid_or(pid, opts, move || probe.give_up()) {
            Ok(driver) => {
                let driver = driver.following_launch(pid, opts.timeout);
                let left = opts.timeout.saturating_sub(started.elapsed());
                let ready = driver.wait_ready(left.max(READY_AT_LEAST))?;
                Ok(Launched::Tree(driver, ready))
            }
            Err(err) => match found.lock().unwrap_or_else(|e| e.into_inner()).take() {
                Some(why) => {
                    let display = display.unwrap_or_default();
                    Ok(Launched::NoTree(Box::new(
                        NoTreeDriver::new(&display, xauthority.as_deref(), pid, why)?
                            .with_compositor(&opts.env)?,
                    )))
                }
                None => Err(err),
            },
        }
    }
}

/// What a launch reached: the app's tree, or an app that shows windows but
/// has none.
pub enum Launched {
    Tree(AtspiDriver, crate::Readiness),
    NoTree(Box<NoTreeDriver>),
}

impl Launched {
    /// The driver, as an App holds it.
    pub fn into_driver(self) -> Arc<dyn Driver> {
        match self {
            Launched::Tree(driver, _) => Arc::new(driver),
            Launched::NoTree(driver) => Arc::new(*driver),
        }
    }
}

/// Starts `argv` with accessibility on (and Java's ATK bridge, where it is
/// installed) and `opts.env` over the process env, and attaches as
/// [`AtspiDriver::attach_launched`] does. The child is the caller's; if
/// attaching fails, it is ended and the error says why.
pub fn launch_any(argv: &[String], opts: &LaunchOptions) -> Result<(Launched, Child)> {
    launch_any_with(argv, opts, |_| {}, |_| {})
}

/// [`launch_any`] with two hooks: `prepare` sees the command before it is
/// spawned (to pipe its output), `spawned` the child at once after (to start
/// reading those pipes before attaching waits for the app).
pub fn launch_any_with(
    argv: &[String],
    opts: &LaunchOptions,
    prepare: impl FnOnce(&mut Command),
    spawned: impl FnOnce(&mut Child),
) -> Result<(Launched, Child)> {
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| Error::invalid_request("launch needs a command line; argv is empty"))?;
    let own_desktop = opts.env.iter().any(|(k, _)| k == "DISPLAY");
    // uidrive's headless Wayland desktop (or any Wayland display without X).
    let own_wayland = !own_desktop && crate::display::on_wayland(&opts.env);
    let dir = binary_dir(program, crate::bus::env_value(&opts.env, "PATH").as_deref());
    let family = family(program, dir.as_deref());
    let (extra_args, extra_env) = extras(family, args, |name| {
        crate::bus::env_value(&opts.env, name).is_some()
    });
    let mut command = Command::new(program);
    command.args(args).args(&extra_args).stdin(Stdio::null());
    // A process group of its own, so that closing the app ends what it
    // started too (LibreOffice's soffice.bin runs under its launcher).
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    if own_desktop {
        // A desktop of its own: keep the app off the user's Wayland session and a11y bus.
        for name in uidrive_x11::Desktop::env_removed() {
            command.env_remove(name);
        }
    }
    if own_wayland {
        // A native Wayland client: no X display to fall back to.
        for name in uidrive_wayland::WaylandDesktop::env_removed() {
            command.env_remove(name);
        }
    }
    // Qt 6.4 given the address never registers (its bridge announces itself
    // before it listens); the desktop publishes the bus anyway: on the X
    // root window, and as org.a11y.Bus on its session bus (Wayland).
    let bus_published = own_desktop || own_wayland;
    if bus_published {
        command.env_remove("AT_SPI_BUS_ADDRESS");
    }
    let passed = opts
        .env
        .iter()
        .filter(|(k, _)| !(bus_published && k == "AT_SPI_BUS_ADDRESS"))
        .cloned();
    for (key, value) in accessibility_env()
        .into_iter()
        .chain(extra_env)
        .chain(passed)
        .chain(java_bridge_env(&opts.env))
    {
        command.env(key, value);
    }
    prepare(&mut command);
    // Tied to this process: a uidrive that is killed takes the app with it.
    let mut child = uidrive_core::children::spawn_tied(command).map_err(|e| {
        Error::failed(format!("could not start `{program}`: {e}"))
            .with_suggestion("check that the program is installed and on PATH")
    })?;
    spawned(&mut child);
    match AtspiDriver::attach_launched(child.id(), opts) {
        Ok(launched) => Ok((launched, child)),
        Err(mut err) => {
            if let Ok(Some(status)) = child.try_wait() {
                err = Error::new(
                    ErrorCode::AppExited,
                    format!("`{program}` exited ({status}) before it showed a window"),
                )
                .with_suggestion("run the command by hand to see why it exits")
                .exited(&status);
            } else {
                let _ = child.kill();
                let _ = child.wait();
            }
            if family == Family::LibreOffice {
                let chosen = crate::bus::env_value(&opts.env, LO_PLUGIN_VAR);
                err = office_error(err, lo_plugin_installed(dir.as_deref()), chosen.as_deref());
            }
            Err(err)
        }
    }
}

/// Launches `argv` as [`launch_any`] does and wraps it in an App that owns
/// the process: one that reads the app's tree, or, for an app that has
/// none, one that drives what it shows ([`NoTreeDriver`]).
pub fn launch_app(argv: &[String], opts: &LaunchOptions) -> Result<uidrive_core::App> {
    let (launched, child) = launch_any(argv, opts)?;
    Ok(uidrive_core::App::with_process(
        launched.into_driver(),
        child,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn families_by_name() {
        assert_eq!(family("chromium", None), Family::Chromium);
        assert_eq!(
            family("/usr/bin/google-chrome-stable", None),
            Family::Chromium
        );
        assert_eq!(family("electron25", None), Family::Chromium);
        assert_eq!(family("localc", None), Family::LibreOffice);
        assert_eq!(
            family("/usr/lib/libreoffice/program/soffice.bin", None),
            Family::LibreOffice
        );
        assert_eq!(family("libreoffice7.6", None), Family::LibreOffice);
        assert_eq!(family("firefox-esr", None), Family::Other);
        assert_eq!(family("kcalc", None), Family::Other);
    }

    #[test]
    fn an_electron_app_is_told_by_its_files() {
        let dir = std::env::temp_dir().join(format!("uidrive-electron-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(family("someapp", Some(&dir)), Family::Other);
        std::fs::write(dir.join("resources.pak"), b"").unwrap();
        std::fs::write(dir.join("v8_context_snapshot.bin"), b"").unwrap();
        assert_eq!(family("someapp", Some(&dir)), Family::Chromium);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn chromium_gets_the_flag_once() {
        let unset = |_: &str| false;
        let (args, env) = extras(Family::Chromium, &strings(&["https://a.example"]), unset);
        assert_eq!(args, strings(&[CHROMIUM_FLAG]));
        assert!(env.is_empty());
        let (args, _) = extras(Family::Chromium, &strings(&[CHROMIUM_FLAG]), unset);
        assert!(args.is_empty());
    }

    #[test]
    fn libreoffice_gets_the_gtk3_plugin_unless_one_is_chosen() {
        let (args, env) = extras(Family::LibreOffice, &[], |_| false);
        assert!(args.is_empty());
        assert_eq!(
            env,
            vec![("SAL_USE_VCLPLUGIN".to_string(), "gtk3".to_string())]
        );
        let (_, env) = extras(Family::LibreOffice, &[], |name| name == "SAL_USE_VCLPLUGIN");
        assert!(env.is_empty());
        assert_eq!(
            extras(Family::Other, &[], |_| false),
            (Vec::new(), Vec::new())
        );
    }

    #[test]
    fn libreoffice_errors_name_the_cause() {
        let timeout = || Error::timeout("soffice showed no window");
        let missing = office_error(timeout(), false, None);
        assert_eq!(missing.code, ErrorCode::Timeout);
        assert!(missing
            .message
            .contains("libreoffice-gtk3 is not installed"));
        assert!(missing
            .suggestion
            .contains("apt-get install libreoffice-gtk3"));
        let other = office_error(timeout(), true, Some("gen"));
        assert!(other.message.contains("SAL_USE_VCLPLUGIN chose `gen`"));
        assert!(other.suggestion.contains("set it to gtk3"));
        assert!(office_error(timeout(), true, None)
            .message
            .contains("GTK 3 plugin"));
        let exited = office_error(
            Error::new(ErrorCode::AppExited, "`localc` exited"),
            true,
            None,
        );
        assert!(exited.suggestion.contains("-env:UserInstallation"));
    }

    #[test]
    fn binary_dir_follows_path_and_links() {
        let dir = binary_dir("sh", Some("/nonexistent:/bin:/usr/bin")).unwrap();
        assert!(dir.join("sh").exists());
        assert_eq!(binary_dir("no-such-program-here", Some("/bin")), None);
    }
}
