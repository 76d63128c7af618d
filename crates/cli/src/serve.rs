//! `uidrive serve`: the protocol on a socket, over a driver of uidrive's own.

use clap::Args;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use uidrive_core::memory::Faults;
use uidrive_core::{serve, Driver, Error, MemoryDriver};

/// Serve an app over the automation protocol on a Unix socket.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Where to listen; the socket is made with mode 0600 and removed on exit.
    #[arg(long, value_name = "PATH")]
    pub socket: PathBuf,
    /// Serve the built-in in-memory demo UI (a counter), for trying clients out. Not a real app.
    #[arg(long)]
    pub demo: bool,
    /// Demo only: make `idle` take this long, to try out waiting clients.
    #[arg(long, value_name = "MS", requires = "demo")]
    pub demo_idle_delay_ms: Option<u64>,
}

/// Serves until SIGINT or SIGTERM, then removes the socket.
pub fn run(args: ServeArgs) -> Result<(), Error> {
    let driver: Arc<dyn Driver> = if args.demo {
        let demo = MemoryDriver::new();
        if let Some(ms) = args.demo_idle_delay_ms {
            demo.set_faults(Faults { idle_delay: Duration::from_millis(ms), ..Faults::default() });
        }
        eprintln!("uidrive serve: serving the in-memory demo UI (not a real app)");
        Arc::new(demo)
    } else {
        return Err(Error::invalid_request("serve: say what to serve: --demo (the in-memory demo UI)")
            .with_suggestion("run `uidrive serve --socket PATH --demo`"));
    };
    // Block the signals in every thread, then wait for them here, so that the
    // socket is removed however the server is asked to stop.
    let signals = block_stop_signals();
    let server = serve(driver, &args.socket)?;
    wait_for(&signals);
    server.stop();
    Ok(())
}

fn block_stop_signals() -> libc::sigset_t {
    // SAFETY: plain libc calls on a zeroed, then initialised, signal set.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigaddset(&mut set, libc::SIGHUP);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        set
    }
}

fn wait_for(signals: &libc::sigset_t) {
    let mut signal = 0;
    // SAFETY: `signals` was initialised by block_stop_signals.
    unsafe {
        libc::sigwait(signals, &mut signal);
    }
}
