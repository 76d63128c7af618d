//! `app.tracing`: recording a trace of an app's steps (docs/trace.md); the
//! recording itself is core's.

use crate::task::{self, Job};
use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;
use std::path::PathBuf;
use std::sync::Arc;
use uidrive_core::trace::TraceOptions;
use uidrive_core::App as CoreApp;

#[napi(object)]
pub struct TracingStartOptions {
    /// A capture of the window before each step (default true).
    pub screenshots: Option<bool>,
    /// The window's snapshot before each step and the diff after (default true).
    pub snapshots: Option<bool>,
    /// A name for the trace, as the test's.
    pub title: Option<String>,
}

#[napi(object)]
pub struct TracingStopOptions {
    /// Where to write the trace (a zip); without, it is dropped.
    pub path: Option<String>,
}

/// Records every action and `expect` of an app's locators as a step, with
/// the window's snapshot and a capture before and after each.
#[napi]
pub struct Tracing {
    pub(crate) app: Arc<CoreApp>,
}

#[napi]
impl Tracing {
    /// Starts recording; rejects with `invalid_request` if a recording is on already.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn start(&self, options: Option<TracingStartOptions>) -> AsyncTask<Job> {
        let app = self.app.clone();
        let options = options.map_or_else(TraceOptions::default, |o| TraceOptions {
            screenshots: o.screenshots.unwrap_or(true),
            snapshots: o.snapshots.unwrap_or(true),
            title: o.title,
        });
        task::unit(move || app.start_tracing(options))
    }

    /// Stops recording; with `path`, writes the trace there and resolves to
    /// `{path, steps, pictures, bytes}`, else drops it and resolves to null.
    #[napi(ts_return_type = "Promise<TraceSummary | null>")]
    pub fn stop(&self, options: Option<TracingStopOptions>) -> AsyncTask<Job> {
        let app = self.app.clone();
        let path = options.and_then(|o| o.path).map(PathBuf::from);
        task::json(move || app.stop_tracing(path.as_deref()))
    }

    /// Whether a recording is on.
    #[napi(getter)]
    pub fn is_recording(&self) -> bool {
        self.app.tracing().is_recording()
    }
}
