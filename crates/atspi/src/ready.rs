//! Ready before launching returns: the app's window is shown on the X
//! display, has the keyboard focus, the app has handled input sent after
//! that focus, and its accessibility events have settled, so the first key
//! a test sends is not lost.
//!
//! An app registers its window on the accessibility bus a moment before it
//! takes input: LibreOffice Calc launched and sent `=6*7` and Enter at once
//! left A1 empty in 3 runs of 4 (`tests/ready.rs`). A ping (`_NET_WM_PING`,
//! as a window manager asks) reaches the app through its X event queue
//! behind the focus change, so its answer says the app has handled that.
//! Calc answered pings while it was still putting its sheet into the
//! window, and moved the focus there after: keys sent on the ping's answer
//! were still lost in 1 run of 4, once after a focus event of another
//! element. So launching then waits until the app settles (`idle`: a round
//! trip to it over the bus with no accessibility event arriving meanwhile),
//! for at most [`SETTLE_AT_MOST`]: 6 runs of 6 kept their keys. A window
//! that takes no pings (Tk, Java's AWT, xterm) is only waited to settle.

use crate::driver::{AtspiDriver, Inner};
use crate::windows;
use std::time::{Duration, Instant};
use uidrive_core::protocol::IdleParams;
use uidrive_core::{Driver, Error, ErrorCode, Result};
use uidrive_x11::{Ping, XWindow, X11};

/// The longest launching waits for the app to settle once it answered the
/// ping: an app that animates for ever is ready anyway.
const SETTLE_AT_MOST: Duration = Duration::from_secs(10);

/// How the app was found ready, and how long that took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Readiness {
    /// Whether the app answered a ping: `None` when there is no X display
    /// to ask on, or the window takes no pings.
    pub pinged: Option<bool>,
    /// Whether the app settled within [`SETTLE_AT_MOST`].
    pub settled: bool,
    /// The time added to the launch.
    pub waited: Duration,
}

impl Readiness {
    /// What proved it, for messages: `ping, settled`, `ping`, `settled` or `nothing`.
    pub fn proof(&self) -> &'static str {
        match (self.pinged == Some(true), self.settled) {
            (true, true) => "ping, settled",
            (true, false) => "ping",
            (false, true) => "settled",
            (false, false) => "nothing",
        }
    }
}

impl AtspiDriver {
    /// Waits, for at most `limit`, until the app's first shown window is on
    /// the X display, has the keyboard focus (given to it if it lacks it),
    /// the app has answered a ping sent after that, and it has settled (see
    /// the module's doc). Called by launching; `timeout` when the app
    /// answers no ping.
    pub fn wait_ready(&self, limit: Duration) -> Result<Readiness> {
        let started = Instant::now();
        let deadline = started + limit;
        let pinged = match self.run_work(|inner| async move { inner.x11() }) {
            Ok(x11) => self.ping(&x11, deadline, limit)?,
            Err(_) => None,
        };
        let left = deadline.saturating_duration_since(Instant::now());
        let settled = self
            .idle(&IdleParams::within(
                None,
                left.min(SETTLE_AT_MOST).as_millis() as u64,
            ))
            .is_ok();
        let ready = Readiness {
            pinged,
            settled,
            waited: started.elapsed(),
        };
        crate::stats::note(|| format!("ready by {} in {:?}", ready.proof(), ready.waited));
        Ok(ready)
    }

    /// Focuses the app's first shown window and pings it: whether it
    /// answered (`None`: it takes no pings), or `timeout`.
    fn ping(&self, x11: &X11, deadline: Instant, limit: Duration) -> Result<Option<bool>> {
        let shown = self.shown_window(x11, deadline)?;
        if !within(x11, x11.focused_window()?, shown.id) {
            x11.focus(shown.id)?;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        match x11.ping(shown.id, left)? {
            Ping::Answered(_) => Ok(Some(true)),
            Ping::NotTaken => Ok(None),
            Ping::Unanswered => Err(Error::timeout(format!(
                "{} showed its window but handled no input within {} ms (it answered no ping)",
                self.app_name(),
                limit.as_millis()
            ))
            .with_suggestion(
                "the app may still be starting or be frozen; give it a longer timeout",
            )),
        }
    }

    /// The app's first shown window on the X display, once it is viewable.
    fn shown_window(&self, x11: &X11, deadline: Instant) -> Result<XWindow> {
        loop {
            let resolved = self.run_work(|inner: std::sync::Arc<Inner>| async move {
                windows::resolve(&inner.link, &inner.app, &inner.ids, None).await
            });
            let top = match resolved {
                Ok((_, top)) => top,
                // Between two windows (Audacity's splash gone, its main
                // window not listed yet), the app has none for a moment.
                Err(e) if e.code == ErrorCode::NoWindow && Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10));
                    continue;
                }
                Err(e) => return Err(e),
            };
            match crate::desktop::x_window_for(x11, self.pid(), &top) {
                Ok(shown) => return Ok(shown),
                Err(e) if Instant::now() >= deadline => return Err(e),
                Err(_) => std::thread::sleep(Duration::from_millis(10)),
            }
        }
    }
}

/// Whether the focus `focused` is `window` or inside it.
fn within(x11: &X11, focused: u32, window: u32) -> bool {
    focused == window || x11.is_inside(focused, window).unwrap_or(false)
}
