//! `uidrive webdriver`: the W3C WebDriver endpoint (crates/webdriver), until a stop signal.

use clap::Args;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use uidrive_core::Error;

/// Serve a W3C WebDriver endpoint (Appium's conventions) for Selenium and Appium clients.
#[derive(Debug, Args)]
pub struct WebdriverArgs {
    /// The port to listen on (0: any free port, printed at start).
    #[arg(long, default_value_t = 4723)]
    pub port: u16,
    /// The address to listen on; the default takes connections from this machine only.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
}

/// Serves until SIGINT, SIGTERM or SIGHUP, then ends every session (their apps and desktops).
pub fn run(args: WebdriverArgs) -> Result<(), Error> {
    let mut signals = Signals::new([SIGINT, SIGTERM, SIGHUP])
        .map_err(|e| Error::failed(format!("webdriver: cannot catch signals: {e}")))?;
    let server = uidrive_webdriver::start(&args.host, args.port)?;
    // One line a script can wait for and read the port from.
    println!("uidrive webdriver listening on http://{}", server.addr());
    signals.forever().next();
    server.stop();
    Ok(())
}
