//! `App`: one app under automation, every call a Promise.

use crate::convert::{from_json, millis_opt, window_id};
use crate::finders::{self, Root, TextKind};
use crate::locator::Locator;
use crate::matching::{JsText, RoleOptions, TextOptions};
use crate::task::{self, Job, Out};
use crate::window::{self, Window, WindowChoice};
use napi::bindgen_prelude::{AsyncTask, ClassInstance};
use napi::Env;
use napi_derive::napi;
use serde_json::{json, Value};
use std::sync::Arc;
use uidrive_core::protocol::{ActParams, EventKind, InputEvent};
use uidrive_core::{App as CoreApp, Timeouts as CoreTimeouts};

/// Which window a call is about; the focused one (else the first) when left out.
#[napi(object)]
pub struct WindowOptions {
    pub window: Option<f64>,
}

#[napi(object)]
pub struct IdleOptions {
    pub window: Option<f64>,
    /// Milliseconds.
    pub timeout: Option<f64>,
}

/// A box in a window's pixels.
#[napi(object)]
pub struct Region {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

#[napi(object)]
pub struct WaitChangedOptions {
    /// Only this part of the window.
    pub region: Option<Region>,
    /// Milliseconds (10 000 by default).
    pub timeout: Option<f64>,
    pub window: Option<f64>,
}

#[napi(object)]
pub struct WaitForWindowOptions {
    /// Milliseconds (10 000 by default).
    pub timeout: Option<f64>,
}

/// Default waits, in milliseconds.
#[napi(object)]
pub struct Timeouts {
    pub action: Option<f64>,
    pub expect: Option<f64>,
}

#[napi(object)]
pub struct SnapshotOptions {
    /// Controls only, one flat list (else every element, indented by depth).
    pub interactive: Option<bool>,
    pub window: Option<f64>,
}

#[napi]
pub struct App {
    pub(crate) inner: Arc<CoreApp>,
    /// The refs of this app's snapshots.
    refs: Arc<uidrive_facade::refs::Refs>,
    /// The process uidrive launched, if it launched one.
    pub(crate) process: Option<Arc<uidrive_facade::process::Process>>,
}

impl App {
    pub fn new(inner: CoreApp) -> App {
        let process = uidrive_facade::process::Process::of(&inner);
        App::with_process(inner, process)
    }

    pub fn with_process(
        inner: CoreApp,
        process: Option<Arc<uidrive_facade::process::Process>>,
    ) -> App {
        App {
            inner: Arc::new(inner),
            refs: Arc::default(),
            process,
        }
    }

    fn root(&self) -> Root<'_> {
        Root::App(&self.inner)
    }

    fn core(&self) -> Arc<CoreApp> {
        self.inner.clone()
    }
}

fn window_of(options: Option<WindowOptions>) -> Option<f64> {
    options.and_then(|o| o.window)
}

#[napi]
impl App {
    /// The pid of the process uidrive launched, if it launched one.
    #[napi(getter)]
    pub fn pid(&self) -> Option<u32> {
        self.inner.pid()
    }

    /// Recording a trace of this app's steps: `tracing.start()`, `tracing.stop({ path })`.
    #[napi(getter)]
    pub fn tracing(&self) -> crate::tracing::Tracing {
        crate::tracing::Tracing {
            app: self.inner.clone(),
        }
    }

    #[napi(ts_return_type = "Promise<Window[]>")]
    pub fn windows(&self) -> AsyncTask<Job> {
        let app = self.core();
        task::json(move || app.windows().map(|list| list.windows))
    }

    #[napi(ts_return_type = "Promise<Tree>")]
    pub fn tree(&self, options: Option<WindowOptions>) -> AsyncTask<Job> {
        let app = self.core();
        let window = window_of(options);
        task::json(move || app.tree(window_id("tree: window", window)?))
    }

    #[napi(ts_return_type = "Promise<Buffer>")]
    pub fn capture(&self, options: Option<WindowOptions>) -> AsyncTask<Job> {
        let app = self.core();
        let window = window_of(options);
        task::run(move || {
            let capture = app.capture(window_id("capture: window", window)?)?;
            Ok(Out::Bytes(capture.png))
        })
    }

    #[napi(ts_return_type = "Promise<void>")]
    pub fn menu(&self, path: Vec<String>, options: Option<WindowOptions>) -> AsyncTask<Job> {
        let app = self.core();
        let window = window_of(options);
        task::unit(move || app.menu(window_id("menu: window", window)?, path))
    }

    #[napi(ts_return_type = "Promise<void>")]
    pub fn input(&self, events: Value, options: Option<WindowOptions>) -> AsyncTask<Job> {
        let app = self.core();
        let window = window_of(options);
        task::unit(move || {
            let events: Vec<InputEvent> = from_json("input: events", events)?;
            app.input(window_id("input: window", window)?, events)
        })
    }

    #[napi(ts_return_type = "Promise<void>")]
    pub fn idle(&self, options: Option<IdleOptions>) -> AsyncTask<Job> {
        let app = self.core();
        let (window, timeout) = options.map_or((None, None), |o| (o.window, o.timeout));
        task::unit(move || {
            app.idle(
                window_id("idle: window", window)?,
                millis_opt("idle: timeout", timeout)?,
            )
        })
    }

    /// Waits until the window's pixels (in `region`, when given) change and
    /// then settle (two captures alike); resolves to the region watched.
    #[napi(ts_return_type = "Promise<Region>")]
    pub fn wait_changed(&self, options: Option<WaitChangedOptions>) -> AsyncTask<Job> {
        let app = self.core();
        let (region, timeout, window) =
            options.map_or((None, None, None), |o| (o.region, o.timeout, o.window));
        task::json(move || {
            let timeout = millis_opt("waitChanged: timeout", timeout)?
                .unwrap_or(uidrive_core::defaults::IDLE);
            let root = match window_id("waitChanged: window", window)? {
                Some(id) => app.window(id),
                None => app.focused_window(),
            };
            let region =
                region.map(|r| uidrive_core::protocol::Bounds::new(r.x, r.y, r.width, r.height));
            root.wait_changed(region, timeout)
        })
    }

    /// Waits until a window whose title matches shows (a dialog an action
    /// opens); resolves to it as `windows()` lists it.
    #[napi(ts_return_type = "Promise<WindowInfo>")]
    pub fn wait_for_window(
        &self,
        #[napi(ts_arg_type = "TextMatch")] title: JsText<'_>,
        options: Option<WaitForWindowOptions>,
    ) -> AsyncTask<Job> {
        let app = self.core();
        let title = crate::matching::text_match("waitForWindow: title", title, None);
        let timeout = options.and_then(|o| o.timeout);
        task::json(move || {
            let timeout = millis_opt("waitForWindow: timeout", timeout)?
                .unwrap_or(uidrive_core::defaults::IDLE);
            app.wait_for_window(&title?, timeout)
        })
    }

    /// Waits for an accessibility event the app sends (of `target`'s one
    /// element, if given): the first since uidrive's last action that no
    /// earlier wait returned, else the next to come. `timeout` in
    /// milliseconds (10 000 by default) rejects with `timeout`.
    #[napi(ts_return_type = "Promise<AccessibilityEvent>")]
    pub fn wait_for_event(
        &self,
        #[napi(ts_arg_type = "EventKind")] kind: String,
        #[napi(ts_arg_type = "Locator | null")] target: Option<ClassInstance<'_, Locator>>,
        options: Option<WaitForWindowOptions>,
    ) -> AsyncTask<Job> {
        let app = self.core();
        let target = target.map(|t| t.inner.clone());
        let timeout = options.and_then(|o| o.timeout);
        task::json(move || {
            let kind: EventKind = kind.parse()?;
            let timeout = millis_opt("waitForEvent: timeout", timeout)?;
            app.wait_for_event(kind, target.as_ref(), timeout)
        })
    }

    #[napi(ts_return_type = "Promise<unknown>")]
    pub fn eval(&self, script: String, options: Option<WindowOptions>) -> AsyncTask<Job> {
        let app = self.core();
        let window = window_of(options);
        task::json(move || app.eval(window_id("eval: window", window)?, &script))
    }

    /// The protocol's `act`, element by id or key: the low-level door under locators.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn act(&self, params: Value) -> AsyncTask<Job> {
        let app = self.core();
        task::unit(move || {
            let params: ActParams = from_json("act", params)?;
            params.validate()?;
            app.act(&params)
        })
    }

    /// Any protocol method by name with JSON params.
    #[napi(ts_return_type = "Promise<unknown>")]
    pub fn call(&self, method: String, params: Option<Value>) -> AsyncTask<Job> {
        let app = self.core();
        task::json(move || app.call(&method, params))
    }

    /// The default waits, in milliseconds.
    #[napi(ts_return_type = "{ action: number; expect: number }")]
    pub fn timeouts(&self) -> Timeouts {
        let t = self.inner.timeouts();
        Timeouts {
            action: Some(t.action.as_secs_f64() * 1000.0),
            expect: Some(t.expect.as_secs_f64() * 1000.0),
        }
    }

    /// Changes the default waits; a field left out keeps its value.
    #[napi]
    pub fn set_timeouts(&self, env: Env, timeouts: Timeouts) -> napi::Result<()> {
        let current = self.inner.timeouts();
        let next = (|| {
            Ok(CoreTimeouts {
                action: millis_opt("setTimeouts: action", timeouts.action)?
                    .unwrap_or(current.action),
                expect: millis_opt("setTimeouts: expect", timeouts.expect)?
                    .unwrap_or(current.expect),
            })
        })();
        self.inner.set_timeouts(crate::error::sync(&env, next)?);
        Ok(())
    }

    /// The window's elements a line each with short refs (`@e3`), as agents read them;
    /// resolves to `{window, elements, text}`.
    #[napi(ts_return_type = "Promise<Snapshot>")]
    pub fn snapshot(&self, options: Option<SnapshotOptions>) -> AsyncTask<Job> {
        let app = self.core();
        let refs = self.refs.clone();
        let (interactive, window) = options.map_or((false, None), |o| {
            (o.interactive.unwrap_or(false), o.window)
        });
        task::run(move || {
            let snapshot = refs.snapshot(&app, window_id("snapshot: window", window)?)?;
            let text = uidrive_facade::refs::render(&snapshot, interactive)?;
            let mut answer = crate::convert::to_json(&snapshot)?;
            answer["text"] = json!(text);
            Ok(Out::Json(answer))
        })
    }

    /// A Locator for the element a snapshot ref (`@e3`) names, in its window.
    /// Checked now: a ref whose element is gone throws `stale_ref` at once.
    #[napi]
    pub fn get_by_ref(&self, env: Env, r: String) -> napi::Result<Locator> {
        let locator = crate::error::sync(&env, self.refs.get_by_ref(&self.inner, &r))?;
        Ok(Locator::new(locator, self.inner.clone()))
    }

    /// A window to search in: by `title` (a string or RegExp, waited for at each use),
    /// by `id`, or the focused one when neither is given.
    #[napi(ts_args_type = "options?: { title?: string | RegExp; exact?: boolean; id?: number }")]
    pub fn window(
        &self,
        env: Env,
        options: Option<napi::bindgen_prelude::Object<'_>>,
    ) -> napi::Result<Window> {
        let choice = crate::error::sync(&env, window::choice(options.as_ref())?)?;
        Ok(Window::new(
            match choice {
                WindowChoice::Focused => self.inner.focused_window(),
                WindowChoice::Id(id) => self.inner.window(id),
                WindowChoice::Titled(title) => self.inner.window_titled(title),
            },
            self.inner.clone(),
        ))
    }

    #[napi]
    pub fn get_by_role(
        &self,
        env: Env,
        role: String,
        options: Option<RoleOptions<'_>>,
    ) -> napi::Result<Locator> {
        finders::by_role(&env, self.root(), role, options)
    }

    #[napi(ts_args_type = "key: string | number | boolean")]
    pub fn get_by_key(&self, env: Env, key: Value) -> napi::Result<Locator> {
        finders::by_key(&env, self.root(), key)
    }

    #[napi]
    pub fn get_by_text(
        &self,
        env: Env,
        text: JsText<'_>,
        options: Option<TextOptions>,
    ) -> napi::Result<Locator> {
        finders::by_text(&env, self.root(), TextKind::Text, text, options)
    }

    #[napi]
    pub fn get_by_label(
        &self,
        env: Env,
        text: JsText<'_>,
        options: Option<TextOptions>,
    ) -> napi::Result<Locator> {
        finders::by_text(&env, self.root(), TextKind::Label, text, options)
    }

    #[napi]
    pub fn get_by_placeholder(
        &self,
        env: Env,
        text: JsText<'_>,
        options: Option<TextOptions>,
    ) -> napi::Result<Locator> {
        finders::by_text(&env, self.root(), TextKind::Placeholder, text, options)
    }

    /// Boxes where OCR reads `text` on the window's capture (apps with no tree).
    #[napi]
    pub fn get_by_ocr(
        &self,
        env: Env,
        text: JsText<'_>,
        options: Option<finders::OcrOptions>,
    ) -> napi::Result<Locator> {
        finders::by_ocr(&env, self.root(), text, options)
    }

    /// Boxes where the PNG file's picture shows on the window's capture.
    #[napi]
    pub fn get_by_image(&self, path: String, options: Option<finders::ImageOptions>) -> Locator {
        finders::by_image(self.root(), path, options)
    }

    #[napi]
    pub fn get_by_id(&self, env: Env, id: String) -> napi::Result<Locator> {
        finders::by_id(&env, self.root(), id)
    }

    /// A Locator from its string form, as `role=button[name="Add"] >> nth=0`.
    #[napi]
    pub fn locator(&self, selector: String) -> Locator {
        finders::by_selector(self.root(), &selector)
    }

    /// Ends the process uidrive launched, if any, a step at a time while it
    /// runs: its windows are asked to close (as a window manager's close
    /// button asks), then SIGTERM, then SIGKILL, each after a grace period.
    /// Resolves to which step ended it: `"windows"`, `"terminated"`,
    /// `"killed"`, `"exited"` (it had already) or `"detached"` (uidrive did
    /// not launch it). Closing twice does nothing.
    #[napi(ts_return_type = "Promise<ClosedBy>")]
    pub fn close(&self) -> AsyncTask<Job> {
        let app = self.core();
        let process = self.process.clone();
        task::json(move || {
            let closed = match process {
                // Keeps how it ended for `app.process.exitCode`.
                Some(process) => process.close(&app)?,
                None => uidrive_facade::close(&app)?,
            };
            Ok(closed.as_str())
        })
    }
}
