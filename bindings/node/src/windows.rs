//! Window management on `Window` (move, resize, minimize, maximize,
//! restore, focus, close, bounds, states), the desktop's apps and screen on
//! `App`, and the wait for a new window under `App.waitForWindow(action)`:
//! marshalling only; core and the facade decide.

use crate::app::App;
use crate::convert::{millis_opt, window_id};
use crate::locator::Locator;
use crate::task::{self, Job, Out};
use crate::window::Window;
use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;

#[napi(object)]
pub struct NewWindowOptions {
    /// Milliseconds (10 000 by default).
    pub timeout: Option<f64>,
}

#[napi]
impl Window {
    /// Moves the window's content to `x`, `y` on the screen through the
    /// window manager; its state once its place reads back so.
    #[napi(js_name = "move", ts_return_type = "Promise<WindowState>")]
    pub fn move_to(&self, x: i32, y: i32) -> AsyncTask<Job> {
        let window = self.inner.clone();
        task::json(move || window.move_to(x, y))
    }

    #[napi(ts_return_type = "Promise<WindowState>")]
    pub fn resize(&self, width: u32, height: u32) -> AsyncTask<Job> {
        let window = self.inner.clone();
        task::json(move || window.resize(width, height))
    }

    #[napi(ts_return_type = "Promise<WindowState>")]
    pub fn minimize(&self) -> AsyncTask<Job> {
        let window = self.inner.clone();
        task::json(move || window.minimize())
    }

    #[napi(ts_return_type = "Promise<WindowState>")]
    pub fn maximize(&self) -> AsyncTask<Job> {
        let window = self.inner.clone();
        task::json(move || window.maximize())
    }

    #[napi(ts_return_type = "Promise<WindowState>")]
    pub fn restore(&self) -> AsyncTask<Job> {
        let window = self.inner.clone();
        task::json(move || window.restore())
    }

    #[napi(ts_return_type = "Promise<WindowState>")]
    pub fn focus(&self) -> AsyncTask<Job> {
        let window = self.inner.clone();
        task::json(move || window.focus())
    }

    #[napi(ts_return_type = "Promise<WindowState>")]
    pub fn close(&self) -> AsyncTask<Job> {
        let window = self.inner.clone();
        task::json(move || window.close())
    }

    #[napi(ts_return_type = "Promise<Bounds>")]
    pub fn bounds(&self) -> AsyncTask<Job> {
        let window = self.inner.clone();
        task::json(move || window.bounds())
    }

    #[napi(ts_return_type = "Promise<string[]>")]
    pub fn states(&self) -> AsyncTask<Job> {
        let window = self.inner.clone();
        task::json(move || window.states())
    }
}

#[napi]
impl App {
    /// Every app on the desktop's accessibility bus.
    #[napi(ts_return_type = "Promise<DesktopApp[]>")]
    pub fn apps(&self) -> AsyncTask<Job> {
        let app = self.inner.clone();
        task::json(move || app.apps().map(|list| list.apps))
    }

    /// The whole screen as a PNG.
    #[napi(ts_return_type = "Promise<Buffer>")]
    pub fn capture_screen(&self) -> AsyncTask<Job> {
        let app = self.inner.clone();
        task::run(move || Ok(Out::Bytes(app.capture_screen()?.png)))
    }

    /// Waits for a window whose id is not in `before` (ids from
    /// `windows()`): the one an action opened, whatever its title.
    #[napi(ts_return_type = "Promise<WindowInfo>")]
    pub fn wait_for_new_window(
        &self,
        before: Vec<f64>,
        options: Option<NewWindowOptions>,
    ) -> AsyncTask<Job> {
        let app = self.inner.clone();
        let timeout = options.and_then(|o| o.timeout);
        task::json(move || {
            let before = before
                .into_iter()
                .map(|id| {
                    window_id("waitForNewWindow: before", Some(id)).map(Option::unwrap_or_default)
                })
                .collect::<uidrive_core::Result<Vec<_>>>()?;
            let timeout = millis_opt("waitForNewWindow: timeout", timeout)?
                .unwrap_or(uidrive_core::defaults::IDLE);
            uidrive_facade::windows::wait_for_new_window(&app, &before, timeout)
        })
    }
}

#[napi(object)]
pub struct ScreenshotOptions {
    /// Where to write the PNG too.
    pub path: Option<String>,
    /// Milliseconds to wait for the element, over the App's default.
    pub timeout: Option<f64>,
}

#[napi]
impl Locator {
    /// A PNG of the one element, its box cut from a capture of its window
    /// (written to `path` too when given).
    #[napi(ts_return_type = "Promise<Buffer>")]
    pub fn screenshot(&self, options: Option<ScreenshotOptions>) -> AsyncTask<Job> {
        let locator = self.inner.clone();
        let (path, timeout) = options.map(|o| (o.path, o.timeout)).unwrap_or_default();
        task::run(move || {
            let locator = match millis_opt("screenshot: timeout", timeout)? {
                Some(limit) => locator.with_timeout(limit),
                None => locator,
            };
            let capture = locator.screenshot()?;
            if let Some(path) = path {
                std::fs::write(&path, &capture.png).map_err(|e| {
                    uidrive_core::Error::failed(format!("could not write {path}: {e}"))
                })?;
            }
            Ok(Out::Bytes(capture.png))
        })
    }
}
