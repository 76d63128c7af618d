//! `Process`: the process uidrive launched (`app.process`): its pid, its
//! exit code once it has ended, and, with `captureOutput: true` at launch,
//! what it wrote on stdout and stderr.

use crate::app::App;
use crate::convert::millis;
use crate::task::{self, Job};
use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;
use std::sync::Arc;
use uidrive_core::App as CoreApp;
use uidrive_facade::process::Process as FacadeProcess;

#[napi]
pub struct Process {
    app: Arc<CoreApp>,
    process: Arc<FacadeProcess>,
}

#[napi]
impl App {
    /// The process uidrive launched, or null for an app it connected or attached to.
    #[napi(getter)]
    pub fn process(&self) -> Option<Process> {
        self.process.clone().map(|process| Process {
            app: self.inner.clone(),
            process,
        })
    }
}

#[napi]
impl Process {
    #[napi(getter)]
    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// The exit code once it has ended (`-N` for signal `N`), else null.
    #[napi(getter)]
    pub fn exit_code(&self) -> Option<i32> {
        self.process.exit_code(&self.app)
    }

    /// Everything it wrote on stdout (so far, while it runs); null unless
    /// launched with `captureOutput: true`.
    #[napi(getter)]
    pub fn stdout(&self) -> Option<String> {
        self.process.stdout(&self.app)
    }

    /// Everything it wrote on stderr; null unless captured.
    #[napi(getter)]
    pub fn stderr(&self) -> Option<String> {
        self.process.stderr(&self.app)
    }

    /// Waits up to `timeout` ms (30 000 by default) for it to end; resolves to its exit code.
    #[napi(ts_return_type = "Promise<number>")]
    pub fn wait(&self, timeout: Option<f64>) -> AsyncTask<Job> {
        let (app, process) = (self.app.clone(), self.process.clone());
        task::json(move || {
            let timeout = millis(
                "process.wait: timeout",
                timeout.unwrap_or(uidrive_core::defaults::PROCESS_WAIT.as_millis() as f64),
            )?;
            process.wait(&app, timeout)
        })
    }
}
