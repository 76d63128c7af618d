//! Following an app that uidrive launched when it starts again as a new
//! process.
//!
//! Some apps end the process that first showed a window and start another
//! under the same launcher. LibreOffice does it on its first start with a
//! new profile: it finds no `user/extensions/buildid`, reinstalls the
//! bundled extensions and asks for a restart; `soffice.bin` exits with
//! status 81 (`EXITHELPER_NORMAL_RESTART`) and `oosplash`, which stays,
//! starts a new `soffice.bin`. The first process shows no document window,
//! but on Wayland it shows its own splash screen through GTK (on X11
//! `oosplash` draws the splash itself, which AT-SPI does not see), and a
//! launch that took that splash for the app answered `app_exited` a moment
//! later.
//!
//! So a driver that launched its app follows the launch: once the app has
//! left the bus while the process uidrive launched still runs, the driver
//! waits (for the launch's timeout) for a new app among that process's
//! descendants to show a window, and drives it from then on. When the
//! launched process has ended too, nothing is waited for: `app_exited`.

use crate::discovery;
use crate::driver::{find_shown, run_on, AtspiDriver, Inner};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use uidrive_core::{Error, ErrorCode, Result};

/// The launch a driver follows.
pub(crate) struct Launch {
    /// The process uidrive started.
    root: u32,
    /// How long a new instance may take to show a window (the launch's).
    timeout: Duration,
    /// Held while one call follows, so that two calls do not.
    following: Mutex<()>,
}

impl AtspiDriver {
    /// Follows the launch of process `root` (see the module's doc); a new
    /// instance may take `timeout` to show a window.
    pub(crate) fn following_launch(mut self, root: u32, timeout: Duration) -> AtspiDriver {
        self.launch = Some(Launch {
            root,
            timeout,
            following: Mutex::new(()),
        });
        self
    }

    /// The app to drive for the next call: the current one, or, when its
    /// process has ended, the launch's new instance once it shows a window.
    pub(crate) fn following(&self) -> Result<Arc<Inner>> {
        let inner = self.current();
        if self.launch.is_some() && discovery::process_gone(inner.app.pid) {
            if let Some(now) = self.followed(&inner)? {
                return Ok(now);
            }
        }
        Ok(inner)
    }

    /// After `stale` (the app a call went to) left the bus: the launch's new
    /// instance, now driven, or `None` when there is none to follow (the
    /// driver did not launch the app, the app is still on the bus, or the
    /// process uidrive launched has ended). `app_exited` when the launched
    /// process ends, or no new instance shows a window within the launch's
    /// timeout, while this waits.
    pub(crate) fn followed(&self, stale: &Arc<Inner>) -> Result<Option<Arc<Inner>>> {
        let Some(launch) = &self.launch else {
            return Ok(None);
        };
        let _one = launch.following.lock().unwrap_or_else(|e| e.into_inner());
        let now = self.current();
        if !Arc::ptr_eq(&now, stale) {
            // Another call followed it meanwhile.
            return Ok(Some(now));
        }
        let (root, timeout) = (launch.root, launch.timeout);
        if discovery::process_gone(root) || !self.left_bus(stale) {
            return Ok(None);
        }
        let (name, pid) = (stale.app.name.clone(), stale.app.pid);
        let conn = stale.conn.clone();
        let left = stale.app.bus.clone();
        let what = format!("the app launched as process {root}");
        let found = run_on(
            &self.own_runtime(),
            timeout + Duration::from_secs(5),
            async move {
                let find = move |conn: zbus::Connection| {
                    let left = left.clone();
                    async move {
                        let pids = discovery::pid_and_descendants(root);
                        discovery::find_app_by_pids_except(&conn, &pids, &left).await
                    }
                };
                find_shown(&conn, &what, Some(root), find, || None, timeout).await
            },
        );
        let (app, peers) = found.map_err(|e| match e.code {
            ErrorCode::AppExited => Error::new(
                ErrorCode::AppExited,
                format!("{name} (process {pid}) exited, and so did the process uidrive launched ({root})"),
            )
            .with_suggestion("check the app's output for a crash; launch it again"),
            ErrorCode::Timeout => Error::new(
                ErrorCode::AppExited,
                format!(
                    "{name} (process {pid}) exited; the process uidrive launched ({root}) still runs, but no new instance of the app showed a window within {} ms",
                    timeout.as_millis()
                ),
            )
            .with_suggestion("check the app's output for why it exited; close the session and launch it again"),
            _ => e,
        })?;
        crate::stats::note(|| {
            format!(
                "{name} (process {pid}) left the bus; following the launch's new instance {} (process {})",
                app.name, app.pid
            )
        });
        // Window ids start again at 1, as for the app's first start: a
        // launch's windows are numbered alike whether or not a first
        // process showed one before it restarted (on X11 it shows none).
        let inner = Arc::new(Inner::new(
            stale.conn.clone(),
            app,
            peers,
            stale.activity.clone(),
            stale.env.clone(),
            Default::default(),
        ));
        self.replace(inner.clone());
        Ok(Some(inner))
    }

    /// Whether the app of `inner` has left the accessibility bus: its
    /// process ended, or its bus name has no owner any more (a process that
    /// replaced itself with `exec` registers anew under another name). Its
    /// connections close as it goes, a moment before the bus says so: that
    /// moment is waited for (briefly).
    fn left_bus(&self, inner: &Inner) -> bool {
        let until = std::time::Instant::now() + Duration::from_millis(500);
        loop {
            if discovery::process_gone(inner.app.pid) {
                return true;
            }
            let (conn, bus) = (inner.conn.clone(), inner.app.bus.clone());
            let owner = run_on(&self.own_runtime(), Duration::from_secs(5), async move {
                discovery::pid_of(&conn, &bus).await
            });
            match owner {
                Err(e) if e.code != ErrorCode::Timeout => return true,
                _ if std::time::Instant::now() >= until => return false,
                _ => std::thread::sleep(Duration::from_millis(20)),
            }
        }
    }
}

/// Whether `err` may say that the app left the bus: it exited, or its
/// connection closed (a process that replaced itself with `exec` is still
/// there, but not its registration).
pub(crate) fn may_have_left(err: &Error) -> bool {
    matches!(err.code, ErrorCode::AppExited | ErrorCode::Disconnected)
}

/// The error of a call that worked on `stale`'s elements when it left the
/// bus (`err`), once the driver follows the launch's new instance `now`:
/// what the call worked on is gone (`no_element`), and the app is there.
pub(crate) fn worked_on_gone(stale: &Inner, now: &Inner, err: Error) -> Error {
    Error::no_element(format!(
        "{} (process {}) left the accessibility bus during the call ({}); the app uidrive launched started again as process {}, which uidrive drives from now on: what the call worked on is gone",
        stale.app.name, stale.app.pid, err.message, now.app.pid
    ))
    .with_suggestion("read the window again and act on the new instance's elements")
}
