//! `Desktop`: a private headless desktop (Xvfb, a session bus, the accessibility bus).

use crate::task::{self, Job, Out};
use crate::LaunchOptions;
use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use uidrive_x11::Desktop as CoreDesktop;

#[napi(object)]
pub struct HeadlessOptions {
    /// Screen size in pixels (1280 × 1024 by default).
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// Milliseconds each start-up step may take (30 s by default).
    pub timeout: Option<f64>,
}

#[napi]
pub struct Desktop {
    inner: Arc<Mutex<Option<CoreDesktop>>>,
    env: Vec<(String, String)>,
    display: String,
}

impl Desktop {
    pub fn new(desktop: CoreDesktop) -> Desktop {
        Desktop {
            env: desktop.env(),
            display: desktop.display().to_string(),
            inner: Arc::new(Mutex::new(Some(desktop))),
        }
    }

    /// The desktop's environment, then the caller's on top.
    fn env_with(&self, options: Option<LaunchOptions>) -> LaunchOptions {
        let mut options = options.unwrap_or_default();
        let mut env: HashMap<String, String> = self.env.iter().cloned().collect();
        env.extend(options.env.take().unwrap_or_default());
        options.env = Some(env);
        options
    }
}

#[napi]
impl Desktop {
    /// The X display, as `:N`.
    #[napi(getter)]
    pub fn display(&self) -> String {
        self.display.clone()
    }

    /// What an app needs to show up on this desktop, with accessibility on.
    #[napi(getter, ts_return_type = "Record<string, string>")]
    pub fn env(&self) -> HashMap<String, String> {
        self.env.iter().cloned().collect()
    }

    /// `launch` on this desktop: its environment, then `options.env`.
    #[napi(ts_return_type = "Promise<App>")]
    pub fn launch(&self, argv: Vec<String>, options: Option<LaunchOptions>) -> AsyncTask<Job> {
        crate::launch(argv, Some(self.env_with(options)))
    }

    /// `attach` on this desktop.
    #[napi(
        ts_args_type = "target: { pid: number } | { name: string }, options?: AttachOptions",
        ts_return_type = "Promise<App>"
    )]
    pub fn attach(
        &self,
        target: crate::AttachTarget,
        options: Option<LaunchOptions>,
    ) -> AsyncTask<Job> {
        crate::attach(target, Some(self.env_with(options)))
    }

    /// Ends every process of the desktop. Closing twice does nothing.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn close(&self) -> AsyncTask<Job> {
        let inner = self.inner.clone();
        task::unit(move || {
            let desktop = inner.lock().unwrap_or_else(|p| p.into_inner()).take();
            if let Some(desktop) = desktop {
                desktop.stop();
            }
            Ok(())
        })
    }
}

/// Starts a private headless desktop.
#[napi(ts_return_type = "Promise<Desktop>")]
pub fn headless(options: Option<HeadlessOptions>) -> AsyncTask<Job> {
    task::run(move || {
        let mut start = uidrive_x11::DesktopOptions::default();
        if let Some(o) = options {
            start.width = o.width.unwrap_or(start.width);
            start.height = o.height.unwrap_or(start.height);
            if let Some(ms) = o.timeout {
                start.timeout = crate::convert::millis("headless: timeout", ms)?;
            }
        }
        CoreDesktop::start_with(&start).map(|d| Out::Desktop(Desktop::new(d)))
    })
}
