//! The buses of a private desktop, whatever shows its windows (an X server
//! or a Wayland compositor): a D-Bus session bus, the accessibility bus
//! (at-spi-bus-launcher) and its registry, each a child process torn down
//! from the registry back to the session bus.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use uidrive_core::{Error, Result};

use crate::dbus;
use crate::process::{Managed, ReadyPipe, INSTALL_HINT};

const A11Y_BUS_NAME: &str = "org.a11y.Bus";
const A11Y_BUS_PATH: &str = "/org/a11y/bus";
const REGISTRY_NAME: &str = "org.a11y.atspi.Registry";

/// A desktop's session bus, accessibility bus and registry.
#[derive(Default)]
pub struct Buses {
    session_bus_address: String,
    a11y_bus_address: String,
    /// Torn down in this order: registry, accessibility bus, session bus.
    registryd: Option<Managed>,
    launcher: Option<Managed>,
    session_bus: Option<Managed>,
}

impl Buses {
    /// Starts the three in `runtime_dir` (where the session bus listens).
    /// `base`: what every program of the desktop gets (its display, its
    /// runtime directory, the toolkits' settings); `removed`: variables the
    /// services must not inherit from this process. On an error, what did
    /// start stays in `self` for [`Buses::stop`] (or the drop) to end.
    pub fn start(
        &mut self,
        runtime_dir: &Path,
        base: &[(String, String)],
        removed: &[&str],
        timeout: Duration,
    ) -> Result<()> {
        self.start_session_bus(runtime_dir, base, removed, timeout)?;
        self.start_a11y_bus(base, removed, timeout)?;
        self.start_registry(base, removed, timeout)
    }

    /// The private session bus, as `unix:path=...`.
    pub fn session_bus_address(&self) -> &str {
        &self.session_bus_address
    }

    /// The accessibility bus address read when it started.
    pub fn a11y_bus_address(&self) -> &str {
        &self.a11y_bus_address
    }

    /// The accessibility bus, asked again of `org.a11y.Bus` on the session bus.
    pub fn ask_a11y_bus_address(&self, timeout: Duration) -> Result<String> {
        let reply = dbus::call(
            &self.session_bus_address,
            A11Y_BUS_NAME,
            A11Y_BUS_PATH,
            "org.a11y.Bus.GetAddress",
            &[],
            timeout,
        )?;
        if reply.is_empty() {
            return Err(Error::failed("org.a11y.Bus answered an empty address")
                .with_suggestion(INSTALL_HINT));
        }
        Ok(reply)
    }

    /// `base` with the buses' addresses (those known so far).
    pub fn env_with(&self, base: Vec<(String, String)>) -> Vec<(String, String)> {
        let mut env = base;
        if !self.session_bus_address.is_empty() {
            env.push((
                "DBUS_SESSION_BUS_ADDRESS".to_string(),
                self.session_bus_address.clone(),
            ));
        }
        if !self.a11y_bus_address.is_empty() {
            // libatspi and Qt connect to this directly, without asking the session bus.
            env.push((
                "AT_SPI_BUS_ADDRESS".to_string(),
                self.a11y_bus_address.clone(),
            ));
        }
        env
    }

    /// The pids of the bus processes running.
    pub fn process_ids(&self) -> Vec<u32> {
        self.managed().map(|m| m.pid()).collect()
    }

    pub(crate) fn managed(&self) -> impl Iterator<Item = &Managed> {
        [&self.registryd, &self.launcher, &self.session_bus]
            .into_iter()
            .flatten()
    }

    /// Ends the registry, the accessibility bus and the session bus, in that order.
    pub fn stop(&mut self) {
        for slot in [
            &mut self.registryd,
            &mut self.launcher,
            &mut self.session_bus,
        ] {
            if let Some(mut process) = slot.take() {
                process.terminate();
            }
        }
    }

    fn command(&self, program: &Path, base: &[(String, String)], removed: &[&str]) -> Command {
        let mut command = Command::new(program);
        for name in removed {
            command.env_remove(name);
        }
        command.envs(self.env_with(base.to_vec()));
        command
    }

    /// A session bus of the standard session configuration (so D-Bus
    /// activation works) listening in the private runtime directory.
    fn start_session_bus(
        &mut self,
        runtime_dir: &Path,
        base: &[(String, String)],
        removed: &[&str],
        timeout: Duration,
    ) -> Result<()> {
        let mut pipe = ReadyPipe::new()?;
        let socket = runtime_dir.join("bus");
        let mut command = self.command(Path::new("dbus-daemon"), base, removed);
        command
            .args(["--session", "--nofork", "--nopidfile"])
            .arg(format!("--address=unix:path={}", socket.display()))
            .arg(format!("--print-address={}", pipe.child_fd()))
            .env_remove("DBUS_SESSION_BUS_ADDRESS");
        pipe.pass_to(&mut command);
        let mut bus = Managed::spawn(
            "dbus-daemon",
            command,
            &runtime_dir.join("dbus-session.log"),
        )?;
        pipe.close_write();
        let line = pipe.read_line(Instant::now() + timeout, "dbus-daemon to print its address");
        let result = match line {
            Ok(Some(address)) if !address.is_empty() => Ok(address),
            Ok(_) => Err(bus.died("its address")),
            Err(e) => Err(Error::timeout(format!(
                "{}; dbus-daemon wrote: {}",
                e.message,
                bus.log_tail()
            ))
            .with_suggestion(INSTALL_HINT)),
        };
        self.session_bus = Some(bus);
        self.session_bus_address = result?;
        Ok(())
    }

    /// Starts at-spi-bus-launcher ourselves (rather than through D-Bus
    /// activation, which would make it an orphan nobody reaps), with
    /// accessibility on, and reads the accessibility bus address.
    fn start_a11y_bus(
        &mut self,
        base: &[(String, String)],
        removed: &[&str],
        timeout: Duration,
    ) -> Result<()> {
        let program = service_program("services", A11Y_BUS_NAME, LAUNCHER_PATHS);
        let mut command = self.command(&program, base, removed);
        command.args(["--launch-immediately", "--a11y=1", "--screen-reader=1"]);
        let log = log_dir(base).join("at-spi-bus-launcher.log");
        // SIGTERM when this process ends: the launcher then ends the bus it
        // started, which SIGKILL would leave running.
        self.launcher = Some(Managed::spawn_ending_on(
            "at-spi-bus-launcher",
            command,
            &log,
            uidrive_core::children::SIGTERM,
        )?);
        let launcher = self.launcher.as_mut().expect("just set");
        dbus::wait_for_name(
            &self.session_bus_address,
            A11Y_BUS_NAME,
            Instant::now() + timeout,
            || match launcher.exited() {
                Some(_) => Err(launcher.died("org.a11y.Bus on the session bus")),
                None => Ok(()),
            },
        )
        .map_err(|e| e.with_suggestion(INSTALL_HINT))?;
        for property in ["IsEnabled", "ScreenReaderEnabled"] {
            dbus::set_bool_property(
                &self.session_bus_address,
                A11Y_BUS_NAME,
                A11Y_BUS_PATH,
                "org.a11y.Status",
                property,
                true,
                timeout,
            )?;
        }
        self.a11y_bus_address = self.ask_a11y_bus_address(timeout)?;
        Ok(())
    }

    /// Starts at-spi2-registryd on the accessibility bus and waits for its name.
    fn start_registry(
        &mut self,
        base: &[(String, String)],
        removed: &[&str],
        timeout: Duration,
    ) -> Result<()> {
        let program = service_program("accessibility-services", REGISTRY_NAME, REGISTRYD_PATHS);
        let command = self.command(&program, base, removed);
        let log = log_dir(base).join("at-spi2-registryd.log");
        self.registryd = Some(Managed::spawn("at-spi2-registryd", command, &log)?);
        let registryd = self.registryd.as_mut().expect("just set");
        dbus::wait_for_name(
            &self.a11y_bus_address,
            REGISTRY_NAME,
            Instant::now() + timeout,
            || match registryd.exited() {
                Some(_) => Err(registryd.died("org.a11y.atspi.Registry on the accessibility bus")),
                None => Ok(()),
            },
        )
        .map_err(|e| e.with_suggestion(INSTALL_HINT))
    }
}

impl Drop for Buses {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Where the services' logs go: the desktop's runtime directory.
fn log_dir(base: &[(String, String)]) -> PathBuf {
    base.iter()
        .find(|(k, _)| k == "XDG_RUNTIME_DIR")
        .map(|(_, v)| PathBuf::from(v))
        .unwrap_or_else(std::env::temp_dir)
}

const LAUNCHER_PATHS: &[&str] = &[
    "/usr/libexec/at-spi-bus-launcher",
    "/usr/lib/at-spi2-core/at-spi-bus-launcher",
    "/usr/lib/at-spi2/at-spi-bus-launcher",
    "/usr/lib/at-spi-bus-launcher",
];

const REGISTRYD_PATHS: &[&str] = &[
    "/usr/libexec/at-spi2-registryd",
    "/usr/lib/at-spi2-core/at-spi2-registryd",
    "/usr/lib/at-spi2/at-spi2-registryd",
    "/usr/lib/at-spi2-registryd",
];

/// The program a D-Bus service file names (`dbus-1/<kind>/<name>.service`,
/// `Exec=` without its arguments), else the first known path that exists.
fn service_program(kind: &str, name: &str, known: &[&str]) -> PathBuf {
    let data_dirs = std::env::var("XDG_DATA_DIRS")
        .ok()
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| "/usr/local/share:/usr/share".to_string());
    for dir in data_dirs.split(':') {
        let file = Path::new(dir).join(format!("dbus-1/{kind}/{name}.service"));
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let exec = text
            .lines()
            .find_map(|line| line.trim().strip_prefix("Exec="))
            .and_then(|cmd| cmd.split_whitespace().next());
        if let Some(program) = exec {
            if Path::new(program).is_file() {
                return PathBuf::from(program);
            }
        }
    }
    known
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from(known[0]))
}
