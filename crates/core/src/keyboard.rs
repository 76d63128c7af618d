//! The keyboard, as a person types: real key and text input into whatever
//! element has the focus (Playwright's `page.keyboard`).

use crate::app::App;
use crate::driver::Driver;
use crate::error::{Error, Result};
use crate::protocol::{InputEvent, InputParams, KeyChord, WindowId};
use std::sync::Arc;
use std::time::Duration;

/// The longest pause between two typed characters: a delay is for apps
/// that drop keys typed too fast, not for waiting on something.
pub const MAX_KEY_DELAY: Duration = Duration::from_secs(10);

/// Real keyboard input into a window's focused element (the focused window when none is named).
#[derive(Clone)]
pub struct Keyboard {
    driver: Arc<dyn Driver>,
    window: Option<WindowId>,
}

impl App {
    /// The keyboard, typing into the focused window.
    pub fn keyboard(&self) -> Keyboard {
        Keyboard {
            driver: self.driver().clone(),
            window: None,
        }
    }
}

impl Keyboard {
    /// The same keyboard, typing into `window`.
    pub fn in_window(mut self, window: WindowId) -> Keyboard {
        self.window = Some(window);
        self
    }

    /// Types `text` into the focused element: one text event when `delay` is
    /// none, else one character at a time with `delay` between them.
    pub fn type_text(&self, text: &str, delay: Option<Duration>) -> Result<()> {
        let delay = checked_delay("type", delay)?;
        if delay.is_zero() {
            return self.send(vec![InputEvent::Text { text: text.into() }]);
        }
        for (at, c) in text.chars().enumerate() {
            if at > 0 {
                std::thread::sleep(delay);
            }
            self.send(vec![InputEvent::Text { text: c.into() }])?;
        }
        Ok(())
    }

    /// Presses a key chord such as `Enter`, `Ctrl+A` or `CmdOrCtrl+Shift+Z`;
    /// a key that types (`a`, `Shift+a`) types its character, as a
    /// keystroke does ([`InputEvent::keystroke`]).
    pub fn press(&self, chord: &str) -> Result<()> {
        let key: KeyChord = chord
            .parse()
            .map_err(|e: String| Error::invalid_request(format!("press: {e}")))?;
        self.send(InputEvent::keystroke(key))
    }

    fn send(&self, events: Vec<InputEvent>) -> Result<()> {
        self.driver.input(&InputParams {
            window: self.window,
            events,
            hold: false,
        })
    }
}

/// A per-character delay, refused past [`MAX_KEY_DELAY`].
pub(crate) fn checked_delay(what: &str, delay: Option<Duration>) -> Result<Duration> {
    let delay = delay.unwrap_or_default();
    if delay > MAX_KEY_DELAY {
        return Err(Error::invalid_request(format!(
            "{what}: a delay of {} ms between keys is more than the {} ms allowed",
            delay.as_millis(),
            MAX_KEY_DELAY.as_millis()
        ))
        .with_suggestion("use a delay of a few milliseconds, or none"));
    }
    Ok(delay)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemoryDriver;
    use crate::protocol::{Role, TreeParams};

    fn field_value(driver: &MemoryDriver) -> String {
        let tree = driver.tree(&TreeParams::default()).unwrap();
        let focus = tree.focus.expect("a focused element");
        let node = tree.nodes.iter().find(|n| n.id == focus).unwrap();
        node.value.clone().unwrap_or_default()
    }

    #[test]
    fn the_keyboard_types_into_the_focused_field() {
        let driver = Arc::new(MemoryDriver::new());
        let app = App::new(driver.clone());
        app.get_by_role(Role::TextField, crate::RoleQuery::any())
            .first()
            .focus()
            .unwrap();
        let before = field_value(&driver);
        app.keyboard().type_text("ab", None).unwrap();
        app.keyboard()
            .type_text("cd", Some(Duration::from_millis(1)))
            .unwrap();
        assert_eq!(field_value(&driver), format!("{before}abcd"));
        let err = app
            .keyboard()
            .type_text("x", Some(Duration::from_secs(60)))
            .unwrap_err();
        assert_eq!(err.code, crate::ErrorCode::InvalidRequest, "{err}");
        let err = app.keyboard().press("Ctrl+Nope").unwrap_err();
        assert_eq!(err.code, crate::ErrorCode::InvalidRequest, "{err}");
    }
}
