//! `uidrive serve`: the protocol on a socket, over a driver of uidrive's own.

use clap::Args;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use uidrive_core::memory::Faults;
use uidrive_core::{serve, Driver, Error, MemoryDriver};
use uidrive_facade::{AttachTarget, HeadlessOptions, LaunchOptions};

/// Serve an app over the automation protocol on a Unix socket.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Where to listen; the socket is made with mode 0600 and removed on exit.
    #[arg(long, value_name = "PATH")]
    pub socket: PathBuf,
    /// Launch this command with accessibility on and serve it (give it last: it takes the rest).
    #[arg(long, value_name = "CMD", num_args = 1.., allow_hyphen_values = true, conflicts_with_all = ["pid", "app", "demo"])]
    pub launch: Vec<String>,
    /// Serve the running app with this process id, over AT-SPI.
    #[arg(long, value_name = "PID", conflicts_with_all = ["app", "demo"])]
    pub pid: Option<u32>,
    /// Serve the running app with this name on the accessibility bus.
    #[arg(long, value_name = "NAME", conflicts_with = "demo")]
    pub app: Option<String>,
    /// Start a private headless desktop for the launched app, on x11 (Xvfb; when no backend is given) or wayland (sway); it ends with the server.
    #[arg(long, value_name = "BACKEND", num_args = 0..=1, default_missing_value = "x11", requires = "launch",
          value_parser = clap::builder::PossibleValuesParser::new(uidrive_facade::Backend::NAMES))]
    pub headless: Option<String>,
    /// With --headless wayland: run Xwayland too, for apps that speak only X11.
    #[arg(long, requires = "headless")]
    pub xwayland: bool,
    /// How long to wait for the app's first window, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = uidrive_core::defaults::LAUNCH.as_millis() as u64)]
    pub launch_timeout_ms: u64,
    /// Serve the built-in in-memory demo UI (a counter), for trying clients out. Not a real app.
    #[arg(long)]
    pub demo: bool,
    /// Demo only: make `idle` take this long, to try out waiting clients.
    #[arg(long, value_name = "MS", requires = "demo")]
    pub demo_idle_delay_ms: Option<u64>,
}

/// Serves until SIGINT or SIGTERM, then removes the socket.
pub fn run(args: ServeArgs) -> Result<(), Error> {
    // Catch the stop signals from the start (handlers, not a blocked mask,
    // which the desktop's and the app's processes would inherit), so that the
    // socket, the app and the desktop are cleaned up however the server is stopped.
    let mut signals = Signals::new([SIGINT, SIGTERM, SIGHUP])
        .map_err(|e| Error::failed(format!("serve: cannot catch signals: {e}")))?;
    // A path no socket can have fails before a desktop or an app is started.
    uidrive_core::check_socket_path(&args.socket)?;
    uidrive_core::check_socket_dir(&args.socket)?;
    // The app, its driver and its desktop are reached as every front end
    // reaches them (the facade), so the choice of driver is made in one place.
    let desktop = match &args.headless {
        Some(backend) => Some(uidrive_facade::headless(&HeadlessOptions {
            backend: Some(uidrive_facade::Backend::parse(backend)?),
            xwayland: args.xwayland,
            ..HeadlessOptions::default()
        })?),
        None => None,
    };
    let env = desktop
        .as_ref()
        .map(|d| d.env().to_vec())
        .unwrap_or_default();
    let timeout = Some(uidrive_facade::time::whole_millis(
        "--launch-timeout-ms",
        args.launch_timeout_ms,
    )?);
    // The launched app lives as long as the server: closing the App ends it.
    let mut launched = None;
    let attach = |target| uidrive_facade::attach(&target, &env, timeout);
    let driver: Arc<dyn Driver> = if !args.launch.is_empty() {
        let options = LaunchOptions {
            env: Vec::new(),
            timeout,
            socket_env: None,
        };
        let app = match &desktop {
            Some(desktop) => desktop.launch(&args.launch, &options)?,
            None => uidrive_facade::launch(&args.launch, &options)?,
        };
        let driver = app.driver().clone();
        launched = Some(app);
        driver
    } else if let Some(pid) = args.pid {
        attach(AttachTarget::Pid(pid))?.driver().clone()
    } else if let Some(name) = &args.app {
        attach(AttachTarget::Name(name.clone()))?.driver().clone()
    } else if args.demo {
        let demo = MemoryDriver::new();
        if let Some(ms) = args.demo_idle_delay_ms {
            demo.set_faults(Faults {
                idle_delay: Duration::from_millis(ms),
                ..Faults::default()
            });
        }
        eprintln!("uidrive serve: serving the in-memory demo UI (not a real app)");
        Arc::new(demo)
    } else {
        return Err(Error::invalid_request(
            "serve: say what to serve: --launch CMD..., --pid PID, --app NAME or --demo",
        )
        .with_suggestion("run `uidrive serve --socket PATH --launch gnome-calculator`"));
    };
    // The desktop's clipboard, notifications and tray, answered beside the
    // app's methods (the command line reaches them through this socket).
    let services = match &desktop {
        Some(desktop) => desktop.services()?,
        None => uidrive_facade::services::Services::session(),
    };
    let driver: Arc<dyn Driver> = Arc::new(uidrive_facade::services::WithServices::new(
        driver, services,
    ));
    let server = serve(driver, &args.socket)?;
    signals.forever().next();
    server.stop();
    if let Some(app) = launched {
        let closed = uidrive_facade::close(&app)?;
        // For `uidrive close`, which reads how it ended from this log.
        eprintln!("UIDRIVE_CLOSED ended_by={}", closed.as_str());
    }
    if let Some(desktop) = desktop {
        desktop.stop();
    }
    Ok(())
}
