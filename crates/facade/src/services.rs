//! The desktop's services, as every front end reaches them: the clipboard
//! (uidrive holds the X selections itself), the notifications apps post and
//! the tray (uidrive is the notification server and the tray's watcher on
//! its headless desktop).
//!
//! [`Services`] is the one place the operations live; a library's desktop
//! hands out its own ([`crate::Desktop::services`]), and `uidrive serve`
//! answers them over its socket ([`WithServices`]: methods
//! `clipboard.get`, `notifications`, `tray.click`, ...), which is how the
//! command line, whose desktop belongs to that server, reaches them.

use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use uidrive_atspi::DesktopServices;
pub use uidrive_atspi::{Notification, NotificationAction, TrayItem, TrayMenuItem};
use uidrive_core::protocol::{
    ActParams, Capture, CaptureParams, CellAtParams, ElementAtParams, ElementId, EvalParams, Hello,
    IdleParams, InputParams, MenuParams, Node, Tree, TreeParams, WindowList,
};
use uidrive_core::protocol::{AppList, Event, ManageWindowParams, WaitEventParams, WindowState};
use uidrive_core::{Driver, Error, Result};
use uidrive_wayland::WlClipboard;
use uidrive_x11::{Clipboard, Selection, CLIPBOARD_TIMEOUT};

/// How long [`Services::wait_for_notification`] waits when given no timeout.
pub const NOTIFICATION_TIMEOUT: Duration = Duration::from_secs(10);

/// A desktop's clipboard: the X selections, or a wlroots compositor's.
#[derive(Clone)]
enum Board {
    X(Arc<Clipboard>),
    Wayland(WlClipboard),
}

/// The services of one desktop.
#[derive(Clone)]
pub struct Services {
    clipboard: std::result::Result<Board, Error>,
    bus: Option<Arc<DesktopServices>>,
}

impl Services {
    /// A headless desktop's: its clipboard, and uidrive's notification
    /// server and tray watcher on its session bus.
    pub(crate) fn headless(clipboard: Option<Arc<Clipboard>>, bus: Arc<DesktopServices>) -> Self {
        Services {
            clipboard: clipboard
                .map(Board::X)
                .ok_or_else(|| Error::failed("the desktop has no clipboard")),
            bus: Some(bus),
        }
    }

    /// A headless Wayland desktop's: sway's clipboard (wlr-data-control),
    /// and the notification server and tray watcher.
    pub(crate) fn headless_wayland(clipboard: WlClipboard, bus: Arc<DesktopServices>) -> Self {
        Services {
            clipboard: Ok(Board::Wayland(clipboard)),
            bus: Some(bus),
        }
    }

    /// A person's desktop (`DISPLAY`, `XAUTHORITY` of this process): its
    /// clipboard only; its own notification server and tray own their names.
    pub fn session() -> Services {
        let clipboard = match std::env::var("DISPLAY") {
            Ok(display) if !display.is_empty() => {
                let xauthority = std::env::var_os("XAUTHORITY").map(std::path::PathBuf::from);
                Clipboard::connect(&display, xauthority.as_deref()).map(|c| Board::X(Arc::new(c)))
            }
            _ => Err(Error::unsupported("no X display: DISPLAY is not set")
                .with_suggestion("run on an X session, or start uidrive's headless desktop")),
        };
        Services {
            clipboard,
            bus: None,
        }
    }

    fn clipboard(&self) -> Result<&Board> {
        self.clipboard.as_ref().map_err(Clone::clone)
    }

    fn bus(&self, what: &str) -> Result<&DesktopServices> {
        self.bus.as_deref().ok_or_else(|| {
            Error::unsupported(format!(
                "{what}: on a person's desktop the desktop's own notification server and tray \
                 own org.freedesktop.Notifications and org.kde.StatusNotifierWatcher, so uidrive \
                 cannot read what they show; the clipboard works there"
            ))
            .with_suggestion(
                "run the app on uidrive's headless desktop, where uidrive is the notification server and the tray",
            )
        })
    }

    // ---- the clipboard ------------------------------------------------------

    /// The text on the clipboard (`primary`: the primary selection); `None`
    /// when it is empty or holds no text.
    pub fn clipboard_get(&self, primary: bool) -> Result<Option<String>> {
        match self.clipboard()? {
            Board::X(x) => x.get(Selection::of(primary), CLIPBOARD_TIMEOUT),
            Board::Wayland(w) => w.get(primary, CLIPBOARD_TIMEOUT),
        }
    }

    /// Puts `text` on the clipboard: uidrive holds it and gives it to apps that paste.
    pub fn clipboard_set(&self, text: &str, primary: bool) -> Result<()> {
        match self.clipboard()? {
            Board::X(x) => x.set(Selection::of(primary), text),
            Board::Wayland(w) => w.set(text, primary, CLIPBOARD_TIMEOUT),
        }
    }

    /// Empties the clipboard.
    pub fn clipboard_clear(&self, primary: bool) -> Result<()> {
        match self.clipboard()? {
            Board::X(x) => x.clear(Selection::of(primary)),
            Board::Wayland(w) => w.clear(primary, CLIPBOARD_TIMEOUT),
        }
    }

    /// The image on the clipboard as PNG, when the app holding it offers `image/png`.
    pub fn clipboard_get_image(&self, primary: bool) -> Result<Option<Vec<u8>>> {
        match self.clipboard()? {
            Board::X(x) => x.get_png(Selection::of(primary), CLIPBOARD_TIMEOUT),
            Board::Wayland(w) => w.get_png(primary, CLIPBOARD_TIMEOUT),
        }
    }

    // ---- notifications ------------------------------------------------------

    /// The notifications shown now, oldest first.
    pub fn notifications(&self) -> Result<Vec<Notification>> {
        Ok(self.bus("notifications")?.notifications())
    }

    /// Dismisses notification `id` (its app is told it was closed).
    pub fn notification_dismiss(&self, id: u32) -> Result<()> {
        self.bus("notification dismiss")?.dismiss(id)
    }

    /// Invokes action `action` of notification `id` (its app gets `ActionInvoked`).
    pub fn notification_invoke(&self, id: u32, action: &str) -> Result<()> {
        if action.is_empty() {
            return Err(Error::invalid_request(
                "notification action: the action is empty",
            ));
        }
        self.bus("notification action")?.invoke(id, action)
    }

    /// Waits for a notification whose summary, body and app name contain
    /// the texts given ([`NOTIFICATION_TIMEOUT`] without a timeout).
    pub fn wait_for_notification(
        &self,
        summary: Option<&str>,
        body: Option<&str>,
        app: Option<&str>,
        timeout: Option<Duration>,
    ) -> Result<Notification> {
        self.bus("wait for a notification")?.wait_for(
            summary,
            body,
            app,
            timeout.unwrap_or(NOTIFICATION_TIMEOUT),
        )
    }

    // ---- the tray -----------------------------------------------------------

    /// The tray's items.
    pub fn tray(&self) -> Result<Vec<TrayItem>> {
        self.bus("tray")?.tray()
    }

    /// Activates a tray item (named by its id, service or title).
    pub fn tray_activate(&self, item: &str) -> Result<TrayItem> {
        self.bus("tray activate")?.tray_activate(item)
    }

    /// A tray item's menu entries.
    pub fn tray_menu(&self, item: &str) -> Result<Vec<TrayMenuItem>> {
        self.bus("tray menu")?.tray_menu(item)
    }

    /// Clicks an entry (its id or label) of a tray item's menu.
    pub fn tray_click(&self, item: &str, entry: &str) -> Result<TrayMenuItem> {
        self.bus("tray click")?.tray_click(item, entry)
    }

    // ---- over the protocol ---------------------------------------------------

    /// Answers `method` if it is one of the services' (`None` otherwise),
    /// with the JSON params a client sent.
    pub fn call(&self, method: &str, params: Option<&Value>) -> Option<Result<Value>> {
        let empty = json!({});
        let p = params.unwrap_or(&empty);
        let flag = |name: &str| p.get(name).and_then(Value::as_bool).unwrap_or(false);
        let answer = match method {
            METHOD_CLIPBOARD_GET => self
                .clipboard_get(flag("primary"))
                .map(|t| json!({ "text": t })),
            METHOD_CLIPBOARD_SET => string(p, method, "text")
                .and_then(|t| self.clipboard_set(&t, flag("primary")))
                .map(|()| json!({})),
            METHOD_CLIPBOARD_CLEAR => self.clipboard_clear(flag("primary")).map(|()| json!({})),
            METHOD_NOTIFICATIONS => self
                .notifications()
                .map(|list| json!({ "notifications": list })),
            METHOD_NOTIFICATION_DISMISS => id(p, method)
                .and_then(|id| self.notification_dismiss(id))
                .map(|()| json!({})),
            METHOD_NOTIFICATION_INVOKE => id(p, method)
                .and_then(|id| Ok((id, string(p, method, "action")?)))
                .and_then(|(id, action)| self.notification_invoke(id, &action))
                .map(|()| json!({})),
            METHOD_NOTIFICATION_WAIT => {
                let text = |name: &str| p.get(name).and_then(Value::as_str).map(str::to_string);
                let timeout = p
                    .get("timeout_ms")
                    .and_then(Value::as_u64)
                    .map(Duration::from_millis);
                self.wait_for_notification(
                    text("summary").as_deref(),
                    text("body").as_deref(),
                    text("app").as_deref(),
                    timeout,
                )
                .map(|n| json!({ "notification": n }))
            }
            METHOD_TRAY => self.tray().map(|items| json!({ "items": items })),
            METHOD_TRAY_ACTIVATE => string(p, method, "item")
                .and_then(|i| self.tray_activate(&i))
                .map(|item| json!({ "item": item })),
            METHOD_TRAY_MENU => string(p, method, "item")
                .and_then(|i| self.tray_menu(&i))
                .map(|entries| json!({ "entries": entries })),
            METHOD_TRAY_CLICK => string(p, method, "item")
                .and_then(|i| Ok((i, string(p, method, "entry")?)))
                .and_then(|(i, e)| self.tray_click(&i, &e))
                .map(|entry| json!({ "entry": entry })),
            _ => return None,
        };
        Some(answer)
    }
}

/// The protocol methods `uidrive serve` answers for its desktop's services.
pub const METHOD_CLIPBOARD_GET: &str = "clipboard.get";
#[allow(missing_docs)]
pub const METHOD_CLIPBOARD_SET: &str = "clipboard.set";
#[allow(missing_docs)]
pub const METHOD_CLIPBOARD_CLEAR: &str = "clipboard.clear";
#[allow(missing_docs)]
pub const METHOD_NOTIFICATIONS: &str = "notifications";
#[allow(missing_docs)]
pub const METHOD_NOTIFICATION_DISMISS: &str = "notification.dismiss";
#[allow(missing_docs)]
pub const METHOD_NOTIFICATION_INVOKE: &str = "notification.invoke";
#[allow(missing_docs)]
pub const METHOD_NOTIFICATION_WAIT: &str = "notification.wait";
#[allow(missing_docs)]
pub const METHOD_TRAY: &str = "tray";
#[allow(missing_docs)]
pub const METHOD_TRAY_ACTIVATE: &str = "tray.activate";
#[allow(missing_docs)]
pub const METHOD_TRAY_MENU: &str = "tray.menu";
#[allow(missing_docs)]
pub const METHOD_TRAY_CLICK: &str = "tray.click";

fn string(p: &Value, method: &str, name: &str) -> Result<String> {
    p.get(name)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| Error::invalid_request(format!("{method}: `{name}` must be a string")))
}

fn id(p: &Value, method: &str) -> Result<u32> {
    p.get("id")
        .and_then(Value::as_u64)
        .and_then(|id| u32::try_from(id).ok())
        .ok_or_else(|| {
            Error::invalid_request(format!("{method}: `id` must be a notification's id"))
        })
}

/// A driver that also answers the desktop services' methods: what
/// `uidrive serve` serves when it holds a desktop. Everything else goes to
/// the driver it wraps.
pub struct WithServices {
    inner: Arc<dyn Driver>,
    services: Services,
}

impl WithServices {
    /// `inner`, with `services` answered beside it.
    pub fn new(inner: Arc<dyn Driver>, services: Services) -> WithServices {
        WithServices { inner, services }
    }
}

/// Every method [`Services::call`] answers, as `hello` lists them.
pub const METHODS: [&str; 11] = [
    METHOD_CLIPBOARD_GET,
    METHOD_CLIPBOARD_SET,
    METHOD_CLIPBOARD_CLEAR,
    METHOD_NOTIFICATIONS,
    METHOD_NOTIFICATION_DISMISS,
    METHOD_NOTIFICATION_INVOKE,
    METHOD_NOTIFICATION_WAIT,
    METHOD_TRAY,
    METHOD_TRAY_ACTIVATE,
    METHOD_TRAY_MENU,
    METHOD_TRAY_CLICK,
];

impl Driver for WithServices {
    fn hello(&self) -> Result<Hello> {
        // The app's methods, then the desktop's services answered beside them.
        let mut hello = self.inner.hello()?;
        for method in METHODS {
            if !hello.methods.iter().any(|m| m == method) {
                hello.methods.push(method.to_string());
            }
        }
        Ok(hello)
    }
    fn windows(&self) -> Result<WindowList> {
        self.inner.windows()
    }
    fn tree(&self, params: &TreeParams) -> Result<Tree> {
        self.inner.tree(params)
    }
    fn act(&self, params: &ActParams) -> Result<()> {
        self.inner.act(params)
    }
    fn input(&self, params: &InputParams) -> Result<()> {
        self.inner.input(params)
    }
    fn menu(&self, params: &MenuParams) -> Result<()> {
        self.inner.menu(params)
    }
    fn capture(&self, params: &CaptureParams) -> Result<Capture> {
        self.inner.capture(params)
    }
    fn eval(&self, params: &EvalParams) -> Result<Value> {
        self.inner.eval(params)
    }
    fn idle(&self, params: &IdleParams) -> Result<()> {
        self.inner.idle(params)
    }
    fn element_at(&self, params: &ElementAtParams) -> Result<Option<ElementId>> {
        self.inner.element_at(params)
    }
    fn cell_at(&self, params: &CellAtParams) -> Result<Vec<Node>> {
        self.inner.cell_at(params)
    }
    fn wait_event(&self, params: &WaitEventParams) -> Result<Event> {
        self.inner.wait_event(params)
    }
    fn manage_window(&self, params: &ManageWindowParams) -> Result<WindowState> {
        self.inner.manage_window(params)
    }
    fn apps(&self) -> Result<AppList> {
        self.inner.apps()
    }
    fn capture_screen(&self) -> Result<Capture> {
        self.inner.capture_screen()
    }
    fn tree_for(
        &self,
        params: &TreeParams,
        wanted: &dyn Fn(&Tree) -> Vec<ElementId>,
    ) -> Result<Tree> {
        self.inner.tree_for(params, wanted)
    }
    fn call(&self, method: &str, params: Option<Value>) -> Result<Value> {
        match self.services.call(method, params.as_ref()) {
            Some(answer) => answer,
            None => self.inner.call(method, params),
        }
    }
    fn tracer(&self) -> Option<uidrive_core::trace::Tracing> {
        self.inner.tracer()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidrive_core::ErrorCode;

    fn services_of(driver: &WithServices) -> &Services {
        &driver.services
    }

    /// On a person's desktop (no services of uidrive's on the bus) the
    /// notification and tray operations say why they can't, and the
    /// protocol's other methods pass through to the app's driver.
    #[test]
    fn a_persons_desktop_says_what_it_cannot_read() {
        let services = Services {
            clipboard: Err(Error::unsupported("no X display: DISPLAY is not set")),
            bus: None,
        };
        let e = services.notifications().unwrap_err();
        assert_eq!(e.code, ErrorCode::Unsupported);
        assert!(e.message.contains("org.freedesktop.Notifications"), "{e:?}");
        assert!(e.suggestion.contains("headless"), "{e:?}");
        assert_eq!(services.tray().unwrap_err().code, ErrorCode::Unsupported);
        assert_eq!(
            services.clipboard_get(false).unwrap_err().code,
            ErrorCode::Unsupported
        );
        // Answered here: the services' methods; the rest is the app's.
        let answer = services.call(METHOD_NOTIFICATIONS, None).unwrap();
        assert_eq!(answer.unwrap_err().code, ErrorCode::Unsupported);
        assert!(services.call("windows", None).is_none());
        let bad = services
            .call(METHOD_NOTIFICATION_INVOKE, Some(&json!({"id": "x"})))
            .unwrap();
        assert_eq!(bad.unwrap_err().code, ErrorCode::InvalidRequest);
        let driver = WithServices::new(Arc::new(uidrive_core::MemoryDriver::new()), services);
        assert!(
            driver.call("windows", None).is_ok(),
            "the app's methods go through"
        );
        assert_eq!(
            driver.call(METHOD_TRAY, None).unwrap_err().code,
            ErrorCode::Unsupported
        );
        let hello = driver.hello().unwrap();
        assert!(hello.methods.iter().any(|m| m == "windows"), "{hello:?}");
        for method in METHODS {
            assert!(hello.methods.iter().any(|m| m == method), "{method}");
            assert!(
                services_of(&driver).call(method, None).is_some(),
                "{method} is answered"
            );
        }
    }
}
