//! One WebDriver session: an app uidrive launched (on a private desktop of
//! its own, or on the current display), the refs its element ids are, and
//! the session's window, implicit wait and input state.
//!
//! Every command is one call of the facade or core; what it maps to is in
//! docs/webdriver.md.

use base64::Engine;
use serde_json::{json, Map, Value};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};
use uidrive_core::protocol::{InputEvent, ManageWindowParams, WindowId, WindowOp, WindowState};
use uidrive_core::{
    expect, App, Error, ErrorCode, ExpectedText, Locator, RoleQuery, TextMatch, WindowRef,
};
use uidrive_facade::refs::Refs;
use uidrive_facade::{Desktop, HeadlessOptions, LaunchOptions};

use crate::actions::{self, InputState, Piece, ELEMENT_KEY};
use crate::source;
use crate::wire::{string_arg, WdError, WdResult};

/// A session's app and what WebDriver keeps beside it.
pub struct Session {
    app: App,
    /// `appium:app: Root`: the app is the whole desktop.
    whole_desktop: bool,
    /// Apps started with `uidrive: launch`, closed with the session.
    launched: Mutex<Vec<App>>,
    desktop: Option<Desktop>,
    refs: Refs,
    caps: Value,
    state: Mutex<State>,
}

struct State {
    window: Option<WindowId>,
    implicit: Duration,
    page_load: Duration,
    script: Duration,
    input: InputState,
}

/// Where a find starts: the session's window, or an element.
enum Scope {
    Window(WindowRef),
    Element(Locator),
}

macro_rules! by {
    ($scope:expr, $method:ident($($arg:expr),*)) => {
        match $scope {
            Scope::Window(w) => w.$method($($arg),*),
            Scope::Element(e) => e.$method($($arg),*),
        }
    };
}

fn session_not_created(message: impl Into<String>) -> WdError {
    WdError::new(500, "session not created", message)
}

fn not_created(e: Error) -> WdError {
    let mut e = WdError::from(e);
    e.status = 500;
    e.error = "session not created";
    e
}

/// The capabilities a new-session body asks for: `alwaysMatch` with the
/// first `firstMatch` entry that uidrive can serve.
pub fn capabilities(body: &Value) -> Result<Map<String, Value>, WdError> {
    let caps = body.get("capabilities");
    let always = match caps.and_then(|c| c.get("alwaysMatch")) {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(o)) => o.clone(),
        Some(_) => return Err(WdError::invalid_argument("alwaysMatch must be an object")),
    };
    let firsts: Vec<Map<String, Value>> = match caps.and_then(|c| c.get("firstMatch")) {
        None | Some(Value::Null) => vec![Map::new()],
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .map(|i| {
                i.as_object()
                    .cloned()
                    .ok_or_else(|| WdError::invalid_argument("firstMatch holds objects"))
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(WdError::invalid_argument(
                "firstMatch must be a non-empty array",
            ))
        }
    };
    let mut why = String::new();
    for first in firsts {
        let mut merged = always.clone();
        for (k, v) in first {
            if merged.contains_key(&k) {
                return Err(WdError::invalid_argument(format!(
                    "`{k}` is in both alwaysMatch and firstMatch"
                )));
            }
            merged.insert(k, v);
        }
        match matches(&merged) {
            Ok(()) => return Ok(merged),
            Err(e) => why = e,
        }
    }
    Err(session_not_created(why))
}

fn matches(caps: &Map<String, Value>) -> Result<(), String> {
    if let Some(platform) = caps.get("platformName").and_then(Value::as_str) {
        if !platform.eq_ignore_ascii_case("linux") {
            return Err(format!(
                "platformName `{platform}`: uidrive webdriver serves linux"
            ));
        }
    }
    if let Some(name) = caps.get("appium:automationName").and_then(Value::as_str) {
        if !name.eq_ignore_ascii_case("uidrive") {
            return Err(format!(
                "appium:automationName `{name}`: this endpoint is uidrive"
            ));
        }
    }
    if let Some(browser) = caps.get("browserName").and_then(Value::as_str) {
        if !browser.is_empty() {
            return Err(format!(
                "browserName `{browser}`: uidrive drives apps; give appium:app instead"
            ));
        }
    }
    Ok(())
}

fn millis(value: &Value, what: &str) -> Result<Duration, WdError> {
    value
        .as_f64()
        .ok_or_else(|| {
            WdError::invalid_argument(format!(
                "the {what} timeout must be a number of milliseconds"
            ))
        })
        .and_then(|ms| uidrive_facade::time::millis(what, ms).map_err(WdError::from))
}

fn words(value: &Value, what: &str) -> Result<Vec<String>, WdError> {
    match value {
        Value::Null => Ok(Vec::new()),
        Value::String(s) => Ok(s.split_whitespace().map(String::from).collect()),
        Value::Array(items) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(String::from)
                    .ok_or_else(|| session_not_created(format!("{what} holds strings")))
            })
            .collect(),
        _ => Err(session_not_created(format!(
            "{what} is a string or an array of strings"
        ))),
    }
}

impl Session {
    /// Launches the app the capabilities name, on a private desktop unless
    /// `appium:headless` is false.
    pub fn create(caps: Map<String, Value>) -> Result<Session, WdError> {
        let app = caps.get("appium:app").and_then(Value::as_str).ok_or_else(|| {
            session_not_created(
                "appium:app is missing: give a command line (gnome-calculator), a .desktop id or Root",
            )
        })?;
        let whole_desktop = app == "Root";
        let mut argv = if whole_desktop {
            Vec::new()
        } else if uidrive_facade::desktop_entry::is_desktop_id(app) {
            uidrive_facade::desktop_entry::argv(app).map_err(not_created)?
        } else {
            app.split_whitespace().map(String::from).collect()
        };
        argv.extend(words(
            caps.get("appium:appArguments").unwrap_or(&Value::Null),
            "appium:appArguments",
        )?);
        if whole_desktop && !argv.is_empty() {
            return Err(session_not_created(
                "appium:appArguments with appium:app Root: the whole desktop launches nothing; start apps with `uidrive: launch`",
            ));
        }
        let headless = match caps.get("appium:headless") {
            None | Some(Value::Null) => true,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(session_not_created("appium:headless is true or false")),
        };
        let mut state = State {
            window: None,
            implicit: Duration::ZERO,
            page_load: Duration::from_secs(300),
            script: Duration::from_secs(30),
            input: InputState::default(),
        };
        if let Some(t) = caps.get("timeouts") {
            set_timeouts(&mut state, t)?;
        }
        let options = LaunchOptions {
            timeout: Some(uidrive_facade::time::LAUNCH),
            ..LaunchOptions::default()
        };
        let (desktop, app_handle) = match (headless, whole_desktop) {
            (true, _) => {
                let desktop =
                    uidrive_facade::headless(&HeadlessOptions::default()).map_err(not_created)?;
                let app = if whole_desktop {
                    desktop.root()
                } else {
                    desktop.launch(&argv, &options)
                };
                (Some(desktop), app.map_err(not_created)?)
            }
            (false, true) => (None, uidrive_facade::root::root(&[]).map_err(not_created)?),
            (false, false) => (
                None,
                uidrive_facade::launch(&argv, &options).map_err(not_created)?,
            ),
        };
        let mut answer = caps.clone();
        answer.insert("platformName".into(), json!("linux"));
        answer.insert("appium:automationName".into(), json!("uidrive"));
        answer.insert("appium:headless".into(), json!(headless));
        if let Some(d) = &desktop {
            answer.insert("uidrive:display".into(), json!(d.display()));
        }
        if let Some(pid) = app_handle.pid() {
            answer.insert("uidrive:pid".into(), json!(pid));
        }
        Ok(Session {
            app: app_handle,
            whole_desktop,
            launched: Mutex::default(),
            desktop,
            refs: Refs::new(),
            caps: Value::Object(answer),
            state: Mutex::new(state),
        })
    }

    /// The capabilities the session was made with.
    pub fn capabilities(&self) -> &Value {
        &self.caps
    }

    /// Ends the app and its desktop.
    pub fn close(&self) -> Result<(), Error> {
        let launched =
            std::mem::take(&mut *self.launched.lock().unwrap_or_else(|p| p.into_inner()));
        for app in launched {
            let _ = uidrive_facade::close(&app);
        }
        let closed = uidrive_facade::close(&self.app);
        if let Some(desktop) = &self.desktop {
            desktop.stop();
        }
        closed.map(|_| ())
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn root(&self) -> WindowRef {
        WindowRef::new(
            self.app.driver().clone(),
            self.state().window,
            self.app.timeouts(),
        )
    }

    /// The session's window: the one switched to, else the focused one, else the first.
    fn window(&self) -> Result<WindowId, WdError> {
        if let Some(w) = self.state().window {
            return Ok(w);
        }
        let list = self.app.windows()?;
        list.windows
            .iter()
            .find(|w| w.focused)
            .or(list.windows.first())
            .map(|w| w.id)
            .ok_or_else(|| WdError::new(404, "no such window", "the app shows no window"))
    }

    fn element(&self, id: &str) -> Result<Locator, WdError> {
        self.refs.get_by_ref(&self.app, id).map_err(|e| {
            // In WebDriver's terms: elements are found, not snapshot.
            if e.code == ErrorCode::StaleRef {
                e.with_suggestion("find the element again")
            } else {
                e
            }
            .into()
        })
    }

    // ---- timeouts

    /// GET timeouts.
    pub fn timeouts(&self) -> WdResult {
        let s = self.state();
        Ok(json!({
            "implicit": s.implicit.as_millis() as u64,
            "pageLoad": s.page_load.as_millis() as u64,
            "script": s.script.as_millis() as u64,
        }))
    }

    /// POST timeouts.
    pub fn set_timeouts(&self, body: &Value) -> WdResult {
        set_timeouts(&mut self.state(), body)?;
        Ok(Value::Null)
    }

    // ---- finding

    /// Find element(s), from the session's window or from an element.
    pub fn find(&self, from: Option<&str>, body: &Value, many: bool) -> WdResult {
        let using = string_arg(body, "using")?;
        let value = string_arg(body, "value")?;
        if from.is_none() && self.whole_desktop && self.state().window.is_none() {
            return self.find_desktop(using, value, many);
        }
        let scope = match from {
            Some(id) => Scope::Element(self.element(id)?),
            None => Scope::Window(self.root()),
        };
        if using == "xpath" {
            return self.find_xpath(from, value, many);
        }
        let locator = match (using, css(using, value)) {
            (_, Some((using, value))) => locate(scope, using, &value)?,
            ("css selector", None) => {
                return Err(WdError::new(
                    400,
                    "invalid selector",
                    format!("the CSS selector `{value}`: uidrive takes `[name=\"..\"]`, `[id=\"..\"]`, `.role` and `role` only; use xpath or -uidrive selector"),
                ))
            }
            _ => locate(scope, using, value)?,
        };
        self.find_locator(&locator, many)
    }

    /// Find in a Root session before it switched to a window: every
    /// window of every app, in the desktop's order, for as long as the
    /// implicit wait.
    fn find_desktop(&self, using: &str, value: &str, many: bool) -> WdResult {
        let deadline = Instant::now() + self.state().implicit;
        let (using, value) = match css(using, value) {
            Some((u, v)) => (u, v),
            None if using == "css selector" => {
                return Err(WdError::new(
                    400,
                    "invalid selector",
                    format!("the CSS selector `{value}`: uidrive takes `[name=\"..\"]`, `[id=\"..\"]`, `.role` and `role` only; use xpath or -uidrive selector"),
                ))
            }
            None => (using, value.to_string()),
        };
        loop {
            let list = self.app.windows()?;
            let mut found = Vec::new();
            for w in &list.windows {
                let nodes = if using == "xpath" {
                    // A window that closed meanwhile has nothing to find.
                    let Ok(tree) = self.app.tree(Some(w.id)) else {
                        continue;
                    };
                    let xml = source::xml(Some(w), &tree);
                    source::xpath(&xml, &value, None)?
                        .iter()
                        .filter_map(|id| tree.node(*id).cloned())
                        .collect::<Vec<_>>()
                } else {
                    let window =
                        WindowRef::new(self.app.driver().clone(), Some(w.id), self.app.timeouts());
                    let locator = locate(Scope::Window(window), using, &value)?;
                    match locator.matching() {
                        Ok((Some(_), nodes)) => nodes,
                        _ => continue,
                    }
                };
                let take = if many { nodes.len() } else { 1 };
                found.extend(
                    self.refs
                        .refs_of(w.id, &nodes[..take.min(nodes.len())])
                        .iter()
                        .map(|r| element_json(r)),
                );
                if !many && !found.is_empty() {
                    break;
                }
            }
            if many && !found.is_empty() {
                return Ok(Value::Array(found));
            }
            if let Some(first) = found.into_iter().next() {
                return Ok(first);
            }
            if Instant::now() >= deadline {
                if many {
                    return Ok(json!([]));
                }
                let titles: Vec<String> = list
                    .windows
                    .iter()
                    .map(|w| format!("{:?}", w.title))
                    .collect();
                return Err(WdError::from(
                    Error::new(
                        ErrorCode::NoElement,
                        format!(
                            "no window of the desktop has an element by {using} `{value}`; its windows: {}",
                            if titles.is_empty() { "none".to_string() } else { titles.join(", ") }
                        ),
                    )
                    .with_suggestion("read the page source to see every window's elements, or set an implicit wait for one that comes later"),
                ));
            }
            std::thread::sleep(
                Duration::from_millis(100).min(deadline.saturating_duration_since(Instant::now())),
            );
        }
    }

    fn find_locator(&self, locator: &Locator, many: bool) -> WdResult {
        let implicit = self.state().implicit;
        let (mut tree, mut nodes) = locator.matching()?;
        if nodes.is_empty() && !implicit.is_zero() {
            // uidrive's auto-wait, for as long as the implicit wait.
            match locator.first().with_timeout(implicit).node() {
                Ok(_) => (tree, nodes) = locator.matching()?,
                Err(e)
                    if matches!(
                        e.code,
                        ErrorCode::Timeout | ErrorCode::NoElement | ErrorCode::NoWindow
                    ) =>
                {
                    if many {
                        return Ok(json!([]));
                    }
                    let mut e = e;
                    e.code = ErrorCode::NoElement;
                    return Err(uidrive_facade::explain::name_windows(e, &self.app).into());
                }
                Err(e) => return Err(e.into()),
            }
        }
        let Some(tree) = tree.filter(|_| !nodes.is_empty()) else {
            if many {
                return Ok(json!([]));
            }
            let e = Error::new(
                ErrorCode::NoElement,
                format!("no element matches {}", locator.description()),
            )
            .with_suggestion("read the page source to see the window's elements, or set an implicit wait for one that comes later");
            return Err(uidrive_facade::explain::name_windows(e, &self.app).into());
        };
        if !many {
            nodes.truncate(1);
        }
        let refs = self.refs.refs_of(tree.window, &nodes);
        let found: Vec<Value> = refs.iter().map(|r| element_json(r)).collect();
        Ok(if many {
            Value::Array(found)
        } else {
            found.into_iter().next().unwrap_or(Value::Null)
        })
    }

    fn find_xpath(&self, from: Option<&str>, expression: &str, many: bool) -> WdResult {
        let implicit = self.state().implicit;
        let deadline = Instant::now() + implicit;
        let (window, start) = match from {
            Some(id) => {
                let (tree, nodes) = self.element(id)?.matching()?;
                match (tree, nodes.first()) {
                    (Some(tree), Some(node)) => (tree.window, Some(node.id)),
                    _ => {
                        return Err(WdError::new(
                            404,
                            "stale element reference",
                            format!("{id} is no longer in its window"),
                        ))
                    }
                }
            }
            None => (self.window()?, None),
        };
        loop {
            let tree = self.app.tree(Some(window))?;
            let xml = source::xml(None, &tree);
            let ids = source::xpath(&xml, expression, start)?;
            if !ids.is_empty() {
                let nodes: Vec<_> = ids
                    .iter()
                    .filter_map(|id| tree.node(*id).cloned())
                    .take(if many { usize::MAX } else { 1 })
                    .collect();
                let refs = self.refs.refs_of(tree.window, &nodes);
                let found: Vec<Value> = refs.iter().map(|r| element_json(r)).collect();
                return Ok(if many {
                    Value::Array(found)
                } else {
                    found.into_iter().next().unwrap_or(Value::Null)
                });
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                if many {
                    return Ok(json!([]));
                }
                let e = Error::new(
                    ErrorCode::NoElement,
                    format!("the XPath `{expression}` selects no element of window {window}"),
                )
                .with_suggestion("read the page source to see the elements and their attributes");
                return Err(e.into());
            }
            // Wait for the app to change, not on a timer alone.
            let _ = self
                .app
                .idle(Some(window), Some(left.min(Duration::from_millis(500))));
            std::thread::sleep(left.min(Duration::from_millis(50)));
        }
    }

    /// The element with the keyboard focus.
    pub fn active(&self) -> WdResult {
        let window = self.window()?;
        let tree = self.app.tree(Some(window))?;
        let node = tree
            .focus
            .and_then(|f| tree.node(f))
            .cloned()
            .ok_or_else(|| {
                WdError::from(
                    Error::new(
                        ErrorCode::NoElement,
                        format!("no element of window {window} has the focus"),
                    )
                    .with_suggestion("click or focus an element first"),
                )
            })?;
        let r = self.refs.refs_of(window, &[node]);
        Ok(element_json(&r[0]))
    }

    // ---- elements

    /// Element commands that read or act on one element.
    pub fn element_command(
        &self,
        id: &str,
        command: &str,
        arg: Option<&str>,
        body: &Value,
    ) -> WdResult {
        let el = self.element(id)?;
        match command {
            "click" => {
                el.click()?;
                Ok(Value::Null)
            }
            "clear" => {
                el.fill("")?;
                Ok(Value::Null)
            }
            "value" => {
                let text = match body.get("text").and_then(Value::as_str) {
                    Some(t) => t.to_string(),
                    None => body
                        .get("value")
                        .and_then(Value::as_array)
                        .map(|a| a.iter().filter_map(Value::as_str).collect::<String>())
                        .ok_or_else(|| WdError::invalid_argument("send keys needs `text`"))?,
                };
                for piece in actions::pieces(&text)? {
                    match piece {
                        Piece::Text(t) => el.type_text(&t)?,
                        Piece::Key(k) => el.press(&k.to_string())?,
                    };
                }
                Ok(Value::Null)
            }
            "text" => Ok(json!(el.text()?)),
            "name" => Ok(json!(el.node()?.role.as_str())),
            "attribute" | "property" => {
                let name = arg.unwrap_or("");
                let node = el.node()?;
                let fields = source::fields(&node);
                let value = fields.get(name).cloned().unwrap_or(Value::Null);
                Ok(if command == "attribute" && !value.is_null() {
                    json!(source::plain(&value))
                } else {
                    value
                })
            }
            "selected" => {
                let node = el.node()?;
                use uidrive_core::protocol::State as S;
                Ok(json!(
                    node.has_state(&S::Selected) || node.has_state(&S::Checked)
                ))
            }
            "enabled" => Ok(json!(el.is_enabled()?)),
            "displayed" => Ok(json!(el.is_visible()?)),
            "rect" => {
                let b = el.bounds()?;
                Ok(match b {
                    Some(b) => json!({"x": b.x, "y": b.y, "width": b.width, "height": b.height}),
                    None => json!({"x": 0, "y": 0, "width": 0, "height": 0}),
                })
            }
            "screenshot" => Ok(json!(
                base64::engine::general_purpose::STANDARD.encode(el.screenshot()?.png)
            )),
            "computedrole" => Ok(json!(el.node()?.role.as_str())),
            "computedlabel" => Ok(json!(el.node()?.label.unwrap_or_default())),
            "css" => Ok(json!("")),
            _ => Err(WdError::new(
                404,
                "unknown command",
                format!("element command `{command}`"),
            )),
        }
    }

    // ---- document and windows

    /// The window's tree as XML.
    pub fn source(&self) -> WdResult {
        if self.whole_desktop && self.state().window.is_none() {
            let list = self.app.windows()?;
            let mut parts = Vec::new();
            for w in &list.windows {
                // A window that closed meanwhile is left out.
                if let Ok(tree) = self.app.tree(Some(w.id)) {
                    parts.push(source::xml(Some(w), &tree));
                }
            }
            return Ok(json!(source::desktop(&parts)));
        }
        let window = self.window()?;
        let tree = self.app.tree(Some(window))?;
        let list = self.app.windows()?;
        let entry = list.windows.iter().find(|w| w.id == window);
        Ok(json!(source::xml(entry, &tree)))
    }

    /// A PNG of the window, base64.
    pub fn screenshot(&self) -> WdResult {
        let capture = self.app.capture(Some(self.window()?))?;
        Ok(json!(
            base64::engine::general_purpose::STANDARD.encode(capture.png)
        ))
    }

    /// The window's title.
    pub fn title(&self) -> WdResult {
        let window = self.window()?;
        let list = self.app.windows()?;
        Ok(json!(list
            .windows
            .iter()
            .find(|w| w.id == window)
            .map(|w| w.title.clone())
            .unwrap_or_default()))
    }

    /// The handle of the session's window.
    pub fn window_handle(&self) -> WdResult {
        Ok(json!(self.window()?.to_string()))
    }

    /// Every window's handle.
    pub fn window_handles(&self) -> WdResult {
        let list = self.app.windows()?;
        Ok(json!(list
            .windows
            .iter()
            .map(|w| w.id.to_string())
            .collect::<Vec<_>>()))
    }

    /// Switch to window.
    pub fn switch_window(&self, body: &Value) -> WdResult {
        let handle = string_arg(body, "handle").or_else(|_| string_arg(body, "name"))?;
        let list = self.app.windows()?;
        let window = list
            .windows
            .iter()
            .find(|w| w.id.to_string() == handle || w.title == handle)
            .ok_or_else(|| {
                WdError::new(
                    404,
                    "no such window",
                    format!(
                        "no window has the handle `{handle}`; the app's windows: {}",
                        list.windows
                            .iter()
                            .map(|w| format!("{} ({:?})", w.id, w.title))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
            })?;
        let mut state = self.state();
        state.window = Some(window.id);
        Ok(Value::Null)
    }

    /// The session's window, for the window manager's operations.
    fn managed(&self) -> Result<WindowRef, WdError> {
        Ok(WindowRef::new(
            self.app.driver().clone(),
            Some(self.window()?),
            self.app.timeouts(),
        ))
    }

    /// The window's place and size on the screen, as the window manager
    /// reads them back (its content: the headless desktop draws no frame).
    pub fn window_rect(&self) -> WdResult {
        Ok(rect_json(
            &self
                .managed()?
                .manage(ManageWindowParams::new(None, WindowOp::Read))?,
        ))
    }

    /// Set window rect: W3C first restores a maximized or minimized window,
    /// then moves and resizes it to what the body gives (null: unchanged).
    pub fn set_window_rect(&self, body: &Value) -> WdResult {
        let field = |name: &str| -> Result<Option<i64>, WdError> {
            match body.get(name) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => v
                    .as_f64()
                    .filter(|n| n.fract() == 0.0)
                    .map(|n| Some(n as i64))
                    .ok_or_else(|| {
                        WdError::invalid_argument(format!(
                            "`{name}` of a window rect is a whole number of pixels, or null"
                        ))
                    }),
            }
        };
        let (x, y, width, height) = (field("x")?, field("y")?, field("width")?, field("height")?);
        let size = |n: i64, name: &str| -> Result<u32, WdError> {
            u32::try_from(n)
                .ok()
                .filter(|n| *n > 0 && *n <= 32_767)
                .ok_or_else(|| {
                    WdError::invalid_argument(format!(
                        "the window's {name} is from 1 to 32767 pixels, not {n}"
                    ))
                })
        };
        let place = |n: i64, name: &str| -> Result<i32, WdError> {
            i32::try_from(n)
                .ok()
                .filter(|n| (-32_768..=32_767).contains(n))
                .ok_or_else(|| {
                    WdError::invalid_argument(format!(
                        "the window's {name} is from -32768 to 32767, not {n}"
                    ))
                })
        };
        let window = self.managed()?;
        let mut now = window.manage(ManageWindowParams::new(None, WindowOp::Read))?;
        if now
            .states
            .iter()
            .any(|s| matches!(s.as_str(), "maximized" | "minimized" | "fullscreen"))
        {
            now = window.restore()?;
        }
        if width.is_some() || height.is_some() {
            let w = width.map_or(Ok(now.bounds.width.max(1.0) as u32), |w| size(w, "width"))?;
            let h = height.map_or(Ok(now.bounds.height.max(1.0) as u32), |h| size(h, "height"))?;
            now = window.resize(w, h)?;
        }
        if x.is_some() || y.is_some() {
            let nx = x.map_or(Ok(now.bounds.x as i32), |x| place(x, "x"))?;
            let ny = y.map_or(Ok(now.bounds.y as i32), |y| place(y, "y"))?;
            now = window.move_to(nx, ny)?;
        }
        Ok(rect_json(&now))
    }

    /// Maximize, minimize or fullscreen window, through the window manager.
    pub fn window_state(&self, op: &str) -> WdResult {
        let window = self.managed()?;
        let state = match op {
            "maximize" => window.maximize()?,
            "minimize" => window.minimize()?,
            _ => {
                return Err(WdError::unsupported(
                    "fullscreen window: uidrive's window management moves, resizes, maximizes, minimizes and restores windows, and has no fullscreen; maximize the window instead",
                ))
            }
        };
        Ok(rect_json(&state))
    }

    // ---- input

    /// Perform actions.
    pub fn perform(&self, body: &Value) -> WdResult {
        let window = self.window()?;
        let mut input = self.state().input.clone();
        let mut center = |id: &str| -> Result<(f64, f64), WdError> {
            let b = self.element(id)?.bounds()?.ok_or_else(|| {
                WdError::new(
                    400,
                    "element not interactable",
                    format!("{id} has no box on the screen"),
                )
            })?;
            Ok(b.center())
        };
        let chunks = actions::plan(body, &mut input, &mut center)?;
        // Pauses count from the start, so the time input takes to send is
        // part of them and a glide lasts its duration, not more.
        let mut due = Instant::now();
        for chunk in chunks {
            if !chunk.events.is_empty() {
                self.input(window, chunk.events)?;
            }
            due += chunk.pause;
            std::thread::sleep(due.saturating_duration_since(Instant::now()));
        }
        self.state().input = input;
        Ok(Value::Null)
    }

    /// Release actions.
    pub fn release(&self) -> WdResult {
        let window = self.window()?;
        let events = actions::release(&mut self.state().input);
        if !events.is_empty() {
            self.input(window, events)?;
        }
        Ok(Value::Null)
    }

    fn input(&self, window: WindowId, events: Vec<InputEvent>) -> Result<(), WdError> {
        self.app
            .driver()
            .input(&uidrive_core::protocol::InputParams {
                window: Some(window),
                events,
                hold: true,
            })
            .map_err(WdError::from)
    }

    // ---- extensions

    /// Execute script: `uidrive: menu`, `uidrive: select`, `uidrive: expect`, `uidrive: launch`
    /// (also spelled `mobile: ...`).
    pub fn execute(&self, body: &Value) -> WdResult {
        let script = string_arg(body, "script")?.trim();
        let args = body
            .get("args")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .cloned()
            .unwrap_or(Value::Object(Map::new()));
        let command = script
            .strip_prefix("uidrive:")
            .or_else(|| script.strip_prefix("mobile:"))
            .map(str::trim)
            .ok_or_else(|| {
                WdError::unsupported(format!(
                    "uidrive runs no scripts; execute takes `uidrive: menu`, `uidrive: select` and `uidrive: expect`, not `{}`",
                    script.chars().take(60).collect::<String>()
                ))
            })?;
        match command {
            "menu" => {
                let path = match args.get("path") {
                    Some(Value::Array(items)) => items
                        .iter()
                        .map(|i| i.as_str().map(String::from))
                        .collect::<Option<Vec<_>>>(),
                    Some(Value::String(s)) => {
                        Some(s.split('>').map(|p| p.trim().to_string()).collect())
                    }
                    _ => None,
                }
                .ok_or_else(|| {
                    WdError::invalid_argument("uidrive: menu takes {path: [\"File\", \"Open\"]}")
                })?;
                self.app.menu(Some(self.window()?), path)?;
                Ok(Value::Null)
            }
            "select" => {
                let el = self.element(arg_element(&args)?)?;
                let option = string_arg(&args, "option")?;
                let outcome = el.select_option(TextMatch::exact(option))?;
                Ok(uidrive_facade::outcome::to_json(&outcome)?)
            }
            "expect" => self.expect(&args),
            "launch" => self.launch(&args),
            other => Err(WdError::unsupported(format!(
                "`uidrive: {other}`: the extensions are menu, select, expect and launch"
            ))),
        }
    }

    /// `uidrive: launch` {app, arguments?}: starts another app on the
    /// session's desktop (its own private one, or the display), closed with
    /// the session; answers its pid. A Root session's windows then hold it.
    fn launch(&self, args: &Value) -> WdResult {
        let app = string_arg(args, "app")?;
        let mut argv: Vec<String> = if uidrive_facade::desktop_entry::is_desktop_id(app) {
            uidrive_facade::desktop_entry::argv(app)?
        } else {
            app.split_whitespace().map(String::from).collect()
        };
        argv.extend(words(
            args.get("arguments").unwrap_or(&Value::Null),
            "arguments",
        )?);
        let options = LaunchOptions {
            timeout: Some(uidrive_facade::time::LAUNCH),
            ..LaunchOptions::default()
        };
        let launched = match &self.desktop {
            Some(d) => d.launch(&argv, &options)?,
            None => uidrive_facade::launch(&argv, &options)?,
        };
        let pid = launched.pid();
        self.launched
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(launched);
        Ok(json!({ "pid": pid }))
    }

    fn expect(&self, args: &Value) -> WdResult {
        let locator = match args.get("selector").and_then(Value::as_str) {
            Some(s) => self.root().locator(s),
            None => self.element(arg_element(args)?)?,
        };
        let mut e = expect(&locator);
        if args.get("not").and_then(Value::as_bool) == Some(true) {
            e = e.not();
        }
        if let Some(t) = args.get("timeout") {
            e = e.with_timeout(millis(t, "expect")?);
        }
        let text = |name: &str| -> Result<Option<ExpectedText>, WdError> {
            match args.get(name).and_then(Value::as_str) {
                Some(t) => Ok(Some(ExpectedText::parse(t)?)),
                None => Ok(None),
            }
        };
        if let Some(t) = text("text")? {
            e.to_have_text(t)?;
        } else if let Some(t) = text("containsText")? {
            e.to_contain_text(t)?;
        } else if let Some(t) = text("value")? {
            e.to_have_value(t)?;
        } else if let Some(s) = args.get("state").and_then(Value::as_str) {
            e.to_have_state(uidrive_facade::names::state(s)?)?;
        } else if let Some(n) = args.get("count").and_then(Value::as_u64) {
            e.to_have_count(n as usize)?;
        } else if args.get("visible").and_then(Value::as_bool) == Some(true) {
            e.to_be_visible()?;
        } else if args.get("hidden").and_then(Value::as_bool) == Some(true) {
            e.to_be_hidden()?;
        } else if args.get("enabled").and_then(Value::as_bool) == Some(true) {
            e.to_be_enabled()?;
        } else {
            return Err(WdError::invalid_argument(
                "uidrive: expect takes one of text, containsText, value, state, count, visible, hidden, enabled",
            ));
        }
        Ok(Value::Null)
    }
}

/// A window's state as W3C's window rect.
fn rect_json(state: &WindowState) -> Value {
    let b = state.bounds;
    let n = |v: f64| v.round() as i64;
    json!({"x": n(b.x), "y": n(b.y), "width": n(b.width), "height": n(b.height)})
}

fn arg_element(args: &Value) -> Result<&str, WdError> {
    args.get("elementId")
        .or_else(|| args.get("element"))
        .and_then(|v| {
            v.as_str()
                .or_else(|| v.get(ELEMENT_KEY).and_then(Value::as_str))
        })
        .ok_or_else(|| WdError::invalid_argument("give the element as `elementId`"))
}

fn set_timeouts(state: &mut State, body: &Value) -> Result<(), WdError> {
    let Some(o) = body.as_object() else {
        return Err(WdError::invalid_argument("timeouts are an object"));
    };
    for (name, value) in o {
        if value.is_null() {
            continue;
        }
        match name.as_str() {
            "implicit" => state.implicit = millis(value, "implicit")?,
            "pageLoad" => state.page_load = millis(value, "pageLoad")?,
            "script" => state.script = millis(value, "script")?,
            _ => {}
        }
    }
    Ok(())
}

/// A W3C element reference (with the JSON Wire key old clients read).
fn element_json(r: &str) -> Value {
    json!({ ELEMENT_KEY: r, "ELEMENT": r })
}

/// The few CSS selectors Selenium's bindings make of By.NAME, By.ID,
/// By.CLASS_NAME and By.TAG_NAME, as the strategy they stand for.
fn css(using: &str, value: &str) -> Option<(&'static str, String)> {
    if using != "css selector" {
        return None;
    }
    let v = value.trim().trim_start_matches('*');
    if let Some(inner) = v.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
        let (attr, quoted) = inner.split_once('=')?;
        let text = unescape_css(quoted.trim().strip_prefix('"')?.strip_suffix('"')?);
        return match attr.trim() {
            "name" => Some(("name", text)),
            "id" => Some(("id", text)),
            _ => None,
        };
    }
    if let Some(class) = v.strip_prefix('.') {
        return Some(("class name", unescape_css(class)));
    }
    (!v.is_empty() && v.chars().all(|c| c.is_ascii_alphanumeric()))
        .then(|| ("class name", v.to_string()))
}

/// CSS escapes undone: `\\37 ` (hex, then one optional space) and `\\"`
/// (Selenium escapes a name's leading digit so: By.name("7") is `[name="\\37 "]`).
fn unescape_css(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let mut hex = String::new();
        while hex.len() < 6 && chars.peek().is_some_and(|h| h.is_ascii_hexdigit()) {
            hex.extend(chars.next());
        }
        if hex.is_empty() {
            out.extend(chars.next());
        } else {
            if chars.peek().is_some_and(|w| w.is_whitespace()) {
                chars.next();
            }
            let code = u32::from_str_radix(&hex, 16).unwrap_or(0xFFFD);
            out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
        }
    }
    out
}

fn locate(scope: Scope, using: &str, value: &str) -> Result<Locator, WdError> {
    Ok(match using {
        "accessibility id" => by!(scope, get_by_key(value)),
        "name" => by!(scope, get_by_label(TextMatch::exact(value))),
        "class name" | "tag name" => {
            let role = uidrive_facade::names::role(value)?;
            by!(scope, get_by_role(role, RoleQuery::any()))
        }
        "id" => match value.parse::<u64>() {
            Ok(n) => by!(scope, get_by_id(uidrive_core::protocol::ElementId(n))),
            Err(_) => by!(scope, get_by_key(value)),
        },
        "-uidrive selector" => by!(scope, locator(value)),
        other => {
            return Err(WdError::new(
                400,
                "invalid selector",
                format!("the strategy `{other}`: uidrive finds by accessibility id, name, class name, id, xpath and -uidrive selector"),
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capabilities_merge_and_refuse_other_platforms() {
        let body = json!({"capabilities": {
            "alwaysMatch": {"platformName": "Linux", "appium:app": "x"},
            "firstMatch": [{"appium:automationName": "Mac2"}, {"appium:automationName": "uidrive"}],
        }});
        let caps = capabilities(&body).unwrap();
        assert_eq!(caps["appium:automationName"], "uidrive");
        let body = json!({"capabilities": {"alwaysMatch": {"platformName": "windows"}}});
        assert_eq!(
            capabilities(&body).unwrap_err().error,
            "session not created"
        );
    }

    #[test]
    fn selenium_css_forms_map_to_strategies() {
        assert_eq!(
            css("css selector", "*[name=\"7\"]"),
            Some(("name", "7".into()))
        );
        assert_eq!(
            css("css selector", "[id=\"12\"]"),
            Some(("id", "12".into()))
        );
        assert_eq!(
            css("css selector", ".button"),
            Some(("class name", "button".into()))
        );
        assert_eq!(
            css("css selector", "*[name=\"\\37 \"]"),
            Some(("name", "7".into()))
        );
        assert_eq!(
            css("css selector", "*[name=\"a\\\"b\"]"),
            Some(("name", "a\"b".into()))
        );
        assert_eq!(css("css selector", "div > p"), None);
        assert_eq!(css("xpath", "//a"), None);
    }
}
