//! The window an action opens, found by its appearance (a window id that
//! was not there before), whatever its title: Python's
//! `with app.expect_window() as info`, Node's `app.waitForWindow(action)`,
//! the command line's `wait --window`.

use std::time::{Duration, Instant};

use uidrive_core::protocol::{Window, WindowId};
use uidrive_core::{App, Error, Result};

/// How often the windows are listed while a new one is waited for.
const NEW_WINDOW_POLL: Duration = Duration::from_millis(50);

/// The ids of the app's windows now: what [`wait_for_new_window`] compares with.
pub fn window_ids(app: &App) -> Result<Vec<WindowId>> {
    Ok(app.windows()?.windows.iter().map(|w| w.id).collect())
}

/// Waits up to `timeout` for a window whose id is not in `before` (the
/// window an action opened, whatever its title) and answers it.
pub fn wait_for_new_window(app: &App, before: &[WindowId], timeout: Duration) -> Result<Window> {
    let deadline = Instant::now() + timeout;
    loop {
        let list = app.windows()?;
        if let Some(new) = list.windows.iter().find(|w| !before.contains(&w.id)) {
            return Ok(new.clone());
        }
        if Instant::now() >= deadline {
            let listed: Vec<String> = list
                .windows
                .iter()
                .map(|w| format!("{} {:?}", w.id, w.title))
                .collect();
            return Err(Error::timeout(format!(
                "no new window opened within {} ms; the app's windows: {}",
                timeout.as_millis(),
                if listed.is_empty() {
                    "none".to_string()
                } else {
                    listed.join(", ")
                }
            ))
            .with_suggestion(
                "check that the action opens a window (it may reuse one already open), or wait longer",
            ));
        }
        std::thread::sleep(NEW_WINDOW_POLL.min(deadline.saturating_duration_since(Instant::now())));
    }
}

/// Runs `action` and answers the window it opened, waiting up to `timeout`.
pub fn expect_window<T>(
    app: &App,
    timeout: Duration,
    action: impl FnOnce() -> Result<T>,
) -> Result<Window> {
    let before = window_ids(app)?;
    action()?;
    wait_for_new_window(app, &before, timeout)
}
