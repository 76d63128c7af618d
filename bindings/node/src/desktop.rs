//! `Desktop`: a private headless desktop (Xvfb, a session bus, the accessibility bus).

use crate::task::{self, Job, Out};
use crate::LaunchOptions;
use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;
use std::collections::HashMap;
use std::sync::Arc;
use uidrive_facade::{Desktop as FacadeDesktop, HeadlessOptions as FacadeOptions};

#[napi(object)]
pub struct HeadlessOptions {
    /// Screen size in pixels (1920 × 1200 by default).
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// Milliseconds each start-up step may take (30 s by default).
    pub timeout: Option<f64>,
    /// `"x11"` (Xvfb, the default) or `"wayland"` (sway, headless, no X server).
    pub backend: Option<String>,
    /// On the Wayland backend: run Xwayland too, for apps that speak only X11.
    pub xwayland: Option<bool>,
}

#[napi]
pub struct Desktop {
    pub(crate) inner: Arc<FacadeDesktop>,
}

#[napi]
impl Desktop {
    /// The X display, as `:N`; on the Wayland backend, the compositor's socket as an absolute path
    /// (`env`'s `XDG_RUNTIME_DIR` joined with its `WAYLAND_DISPLAY`, a name).
    #[napi(getter)]
    pub fn display(&self) -> String {
        self.inner.display().to_string()
    }

    /// What an app needs to show up on this desktop, with accessibility on.
    #[napi(getter, ts_return_type = "Record<string, string>")]
    pub fn env(&self) -> HashMap<String, String> {
        self.inner.env().iter().cloned().collect()
    }

    /// `launch` on this desktop: its environment, then `options.env`.
    #[napi(ts_return_type = "Promise<App>")]
    pub fn launch(&self, argv: Vec<String>, options: Option<LaunchOptions>) -> AsyncTask<Job> {
        let desktop = self.inner.clone();
        let options = options.unwrap_or_default();
        let capture = options.capture_output.unwrap_or(false);
        task::run(move || {
            let options = crate::launch_options("launch", options)?;
            if capture {
                let (app, process) = desktop.launch_captured(&argv, &options)?;
                return Ok(Out::App(crate::App::with_process(app, Some(process))));
            }
            let app = desktop.launch(&argv, &options)?;
            Ok(Out::App(crate::App::new(app)))
        })
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
        let desktop = self.inner.clone();
        let options = options.unwrap_or_default();
        task::run(move || {
            let target = crate::attach_target(target)?;
            let options = crate::launch_options("attach", options)?;
            let app = desktop.attach(&target, &options.env, options.timeout)?;
            Ok(Out::App(crate::App::new(app)))
        })
    }

    /// Ends every process of the desktop, the apps launched on it first.
    /// Closing twice does nothing.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn close(&self) -> AsyncTask<Job> {
        let desktop = self.inner.clone();
        task::unit(move || {
            desktop.stop();
            Ok(())
        })
    }
}

/// Starts a private headless desktop.
#[napi(ts_return_type = "Promise<Desktop>")]
pub fn headless(options: Option<HeadlessOptions>) -> AsyncTask<Job> {
    task::run(move || {
        let mut start = FacadeOptions::default();
        if let Some(o) = options {
            start.width = o.width;
            start.height = o.height;
            start.timeout = crate::convert::millis_opt("headless: timeout", o.timeout)?;
            start.backend = o
                .backend
                .as_deref()
                .map(uidrive_facade::Backend::parse)
                .transpose()?;
            start.xwayland = o.xwayland.unwrap_or(false);
        }
        let desktop = uidrive_facade::headless(&start)?;
        Ok(Out::Desktop(Desktop {
            inner: Arc::new(desktop),
        }))
    })
}
