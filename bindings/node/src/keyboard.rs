//! `Keyboard`: real key and text input into the focused element (`app.keyboard`).

use crate::app::App;
use crate::convert::{millis_opt, window_id};
use crate::task::{self, Job};
use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;
use std::sync::Arc;
use uidrive_core::App as CoreApp;

/// `keyboard.type`'s options.
#[napi(object)]
pub struct KeyboardTypeOptions {
    /// Milliseconds between characters (none: the whole text at once).
    pub delay: Option<f64>,
    /// The window to type into (the focused one when left out).
    pub window: Option<f64>,
}

/// `keyboard.press`'s options.
#[napi(object)]
pub struct KeyboardPressOptions {
    pub window: Option<f64>,
}

#[napi]
pub struct Keyboard {
    app: Arc<CoreApp>,
}

#[napi]
impl App {
    /// The app's keyboard: types into whatever element has the focus.
    #[napi(getter)]
    pub fn keyboard(&self) -> Keyboard {
        Keyboard {
            app: self.inner.clone(),
        }
    }
}

fn keyboard_of(app: &CoreApp, window: Option<u64>) -> uidrive_core::Keyboard {
    let keyboard = app.keyboard();
    match window {
        Some(window) => keyboard.in_window(window),
        None => keyboard,
    }
}

#[napi]
impl Keyboard {
    /// Types `text` into the focused element: at once, or one character at a
    /// time `delay` ms apart; the outcome says whether the focused element
    /// reads it (`confirmed`), or shows no text to tell (`unverifiable`).
    #[napi(js_name = "type", ts_return_type = "Promise<ActionOutcome>")]
    pub fn type_text(&self, text: String, options: Option<KeyboardTypeOptions>) -> AsyncTask<Job> {
        let app = self.app.clone();
        let (delay, window) = options.map_or((None, None), |o| (o.delay, o.window));
        task::json(move || {
            let delay = millis_opt("keyboard.type: delay", delay)?;
            let window = window_id("keyboard.type: window", window)?;
            keyboard_of(&app, window).type_text(&text, delay)
        })
    }

    /// Presses a key chord such as `Enter`, `Ctrl+A` or `CmdOrCtrl+Shift+Z`;
    /// the outcome is `confirmed` when the focus moved, the focused element
    /// changed or a window opened or closed, else `unverifiable`.
    #[napi(ts_return_type = "Promise<ActionOutcome>")]
    pub fn press(&self, chord: String, options: Option<KeyboardPressOptions>) -> AsyncTask<Job> {
        let app = self.app.clone();
        let window = options.and_then(|o| o.window);
        task::json(move || {
            let window = window_id("keyboard.press: window", window)?;
            keyboard_of(&app, window).press(&chord)
        })
    }

    /// Presses `chord`'s keys (`Shift`, `Ctrl+Shift`) and leaves them down
    /// for the clicks and keys that follow, until `up` releases them or the
    /// app closes; the outcome is `unverifiable` (a held key shows nothing by itself).
    #[napi(ts_return_type = "Promise<ActionOutcome>")]
    pub fn down(&self, chord: String, options: Option<KeyboardPressOptions>) -> AsyncTask<Job> {
        let app = self.app.clone();
        let window = options.and_then(|o| o.window);
        task::json(move || {
            let window = window_id("keyboard.down: window", window)?;
            keyboard_of(&app, window).down(&chord)
        })
    }

    /// Releases keys `down` holds; the outcome is `unverifiable`.
    #[napi(ts_return_type = "Promise<ActionOutcome>")]
    pub fn up(&self, chord: String, options: Option<KeyboardPressOptions>) -> AsyncTask<Job> {
        let app = self.app.clone();
        let window = options.and_then(|o| o.window);
        task::json(move || {
            let window = window_id("keyboard.up: window", window)?;
            keyboard_of(&app, window).up(&chord)
        })
    }
}
