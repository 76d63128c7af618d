//! Reads whose answer front ends may wait for.

use std::time::{Duration, Instant};
use uidrive_core::{Locator, Result};

const PACE: Duration = Duration::from_millis(50);

/// Whether the one element shows: at once with no `within`, else as soon as
/// it does, or `false` once `within` has passed.
pub fn is_visible(locator: &Locator, within: Option<Duration>) -> Result<bool> {
    poll(within, || locator.is_visible())
}

/// Whether no element shows: at once with no `within`, else as soon as none
/// does, or `false` once `within` has passed.
pub fn is_hidden(locator: &Locator, within: Option<Duration>) -> Result<bool> {
    poll(within, || locator.is_hidden())
}

fn poll(within: Option<Duration>, mut read: impl FnMut() -> Result<bool>) -> Result<bool> {
    let deadline = within.map(|w| Instant::now() + w);
    loop {
        let answer = read()?;
        match deadline {
            Some(deadline) if !answer && Instant::now() < deadline => {
                std::thread::sleep(PACE.min(deadline.saturating_duration_since(Instant::now())));
            }
            _ => return Ok(answer),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn waits_only_when_asked() {
        let calls = Cell::new(0);
        let start = Instant::now();
        assert!(!poll(None, || {
            calls.set(calls.get() + 1);
            Ok(false)
        })
        .unwrap());
        assert_eq!(calls.get(), 1);
        assert!(!poll(Some(Duration::from_millis(120)), || Ok(false)).unwrap());
        assert!(start.elapsed() >= Duration::from_millis(120));
        let calls = Cell::new(0);
        assert!(poll(Some(Duration::from_secs(5)), || {
            calls.set(calls.get() + 1);
            Ok(calls.get() == 3)
        })
        .unwrap());
    }
}
