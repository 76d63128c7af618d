//! Blocking work off the event loop: each call runs on libuv's thread pool and settles a Promise.

use crate::error;
use napi::bindgen_prelude::{AsyncTask, Buffer, ToNapiValue, TypeName};
use napi::{sys, Env, Task, ValueType};
use serde_json::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};
use uidrive_core::{Error as CoreError, Result as CoreResult};

/// What a finished job hands back to JavaScript.
pub enum Out {
    Undefined,
    Json(Value),
    Bytes(Vec<u8>),
    App(crate::app::App),
    Locators(Vec<crate::locator::Locator>),
    Desktop(crate::desktop::Desktop),
    Notification(Box<crate::services::Notification>),
    Notifications(Vec<crate::services::Notification>),
    TrayItems(Vec<crate::services::TrayItem>),
    TrayMenu(Vec<crate::services::TrayMenuItem>),
}

impl TypeName for Out {
    fn type_name() -> &'static str {
        "unknown"
    }

    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

impl ToNapiValue for Out {
    unsafe fn to_napi_value(env: sys::napi_env, out: Out) -> napi::Result<sys::napi_value> {
        match out {
            Out::Undefined => <()>::to_napi_value(env, ()),
            Out::Json(value) => Value::to_napi_value(env, value),
            Out::Bytes(bytes) => Buffer::to_napi_value(env, Buffer::from(bytes)),
            Out::App(app) => crate::app::App::to_napi_value(env, app),
            Out::Locators(all) => Vec::to_napi_value(env, all),
            Out::Desktop(desktop) => crate::desktop::Desktop::to_napi_value(env, desktop),
            Out::Notification(note) => crate::services::Notification::to_napi_value(env, *note),
            Out::Notifications(all) => Vec::to_napi_value(env, all),
            Out::TrayItems(all) => Vec::to_napi_value(env, all),
            Out::TrayMenu(all) => Vec::to_napi_value(env, all),
        }
    }
}

type Work = Box<dyn FnOnce() -> CoreResult<Out> + Send>;

/// One blocking call, run on the thread pool; its error rejects the Promise as a uidrive `Error`.
pub struct Job {
    work: Option<Work>,
}

impl Task for Job {
    type Output = CoreResult<Out>;
    type JsValue = Out;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        let Some(work) = self.work.take() else {
            return Ok(Err(CoreError::failed("this call already ran")));
        };
        // A panic must not take the Node process down with it.
        Ok(
            catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|panic| {
                Err(CoreError::failed(format!(
                    "uidrive panicked: {}",
                    panic_text(panic.as_ref())
                )))
            }),
        )
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Out> {
        output.map_err(|e| error::to_js(&env, &e))
    }
}

fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "no message".to_string()
    }
}

/// A Promise for `work`, run off the event loop.
pub fn run(work: impl FnOnce() -> CoreResult<Out> + Send + 'static) -> AsyncTask<Job> {
    AsyncTask::new(Job {
        work: Some(Box::new(work)),
    })
}

/// A Promise for `work` whose answer is serialised to a plain JavaScript value.
pub fn json<T: serde::Serialize>(
    work: impl FnOnce() -> CoreResult<T> + Send + 'static,
) -> AsyncTask<Job> {
    run(move || {
        let answer = work()?;
        serde_json::to_value(answer)
            .map(Out::Json)
            .map_err(|e| CoreError::failed(format!("could not convert the answer: {e}")))
    })
}

/// A Promise for work that answers nothing.
pub fn unit(work: impl FnOnce() -> CoreResult<()> + Send + 'static) -> AsyncTask<Job> {
    run(move || work().map(|()| Out::Undefined))
}
