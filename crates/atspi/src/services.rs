//! uidrive's own desktop services on a headless desktop's session bus: the
//! notification server (`org.freedesktop.Notifications`, spec 1.2) and the
//! tray's watcher (`org.kde.StatusNotifierWatcher`), so what apps post is
//! recorded and can be read, dismissed, invoked and clicked.
//!
//! One D-Bus connection owns both names and serves both objects on a small
//! runtime of its own; [`DesktopServices`] is the blocking face front ends
//! call. On a person's desktop, the desktop's own notification server and
//! tray own these names: uidrive starts none there.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use uidrive_core::{Error, ErrorCode, Result};
use zbus::message::Header;
use zbus::object_server::SignalEmitter;
use zbus::zvariant::{OwnedValue, Value};

pub const NOTIFICATIONS_NAME: &str = "org.freedesktop.Notifications";
const NOTIFICATIONS_PATH: &str = "/org/freedesktop/Notifications";
pub const WATCHER_NAME: &str = "org.kde.StatusNotifierWatcher";
const WATCHER_PATH: &str = "/StatusNotifierWatcher";
const ITEM_INTERFACE: &str = "org.kde.StatusNotifierItem";
const MENU_INTERFACE: &str = "com.canonical.dbusmenu";

/// Why a notification closed (the spec's `NotificationClosed` reasons).
const EXPIRED: u32 = 1;
const DISMISSED: u32 = 2;
const CLOSED_BY_CALL: u32 = 3;

/// A notification an app posted.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Notification {
    /// The server's id for it (what `replaces_id` and `CloseNotification` name).
    pub id: u32,
    pub app_name: String,
    pub summary: String,
    pub body: String,
    /// Its buttons, in order.
    pub actions: Vec<NotificationAction>,
    /// `low`, `normal` or `critical` (the `urgency` hint; `normal` without it).
    pub urgency: String,
    /// When it was posted (or last replaced), in milliseconds since the Unix epoch.
    pub time: u64,
    /// The icon the app named (`app_icon`); may be empty.
    pub icon: String,
    /// The `category` hint, if given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// How long it shows, as the app asked: -1 the server's default
    /// (uidrive keeps it until dismissed), 0 never expires, else milliseconds.
    pub expire_timeout: i32,
}

/// One of a notification's actions: the key an app gets back, and its label.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct NotificationAction {
    pub id: String,
    pub label: String,
}

/// A tray item (a StatusNotifierItem registered with uidrive's watcher).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TrayItem {
    /// The item's `Id` (an app's own name for it), else its service.
    pub id: String,
    /// Where it is on the bus: `busname/path`.
    pub service: String,
    pub title: String,
    /// The tooltip's title and text, joined by a newline when both are there.
    pub tooltip: String,
    /// `Passive`, `Active` or `NeedsAttention`.
    pub status: String,
    pub category: String,
    pub icon: String,
    /// Whether it has a menu (com.canonical.dbusmenu).
    pub has_menu: bool,
}

/// An entry of a tray item's menu.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TrayMenuItem {
    /// Its id in the menu (what a click names).
    pub id: i32,
    /// The label, without its mnemonic underscores.
    pub label: String,
    pub enabled: bool,
    pub visible: bool,
    pub separator: bool,
    /// `checkmark` or `radio` for a toggle, else empty.
    pub toggle: String,
    pub checked: bool,
    /// The labels of the submenus it is in, outermost first.
    pub path: Vec<String>,
    /// Whether it opens a submenu.
    pub submenu: bool,
}

#[derive(Default)]
struct Board {
    shown: Vec<Notification>,
    last_id: u32,
    /// Counts every change, so an expiry knows whether it is still due.
    serial: HashMap<u32, u64>,
    changes: u64,
    /// Whether a notification may stay after its action (the `resident` hint).
    resident: HashMap<u32, bool>,
}

struct Notes {
    board: Mutex<Board>,
    changed: Condvar,
}

impl Notes {
    fn lock(&self) -> MutexGuard<'_, Board> {
        self.board.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Takes `id` off the board; whether it was there.
    fn remove(&self, id: u32) -> bool {
        let mut board = self.lock();
        let before = board.shown.len();
        board.shown.retain(|n| n.id != id);
        board.serial.remove(&id);
        board.resident.remove(&id);
        board.changes += 1;
        let removed = board.shown.len() != before;
        drop(board);
        self.changed.notify_all();
        removed
    }
}

async fn emit_closed(conn: &zbus::Connection, id: u32, reason: u32) -> zbus::Result<()> {
    conn.emit_signal(
        None::<()>,
        NOTIFICATIONS_PATH,
        NOTIFICATIONS_NAME,
        "NotificationClosed",
        &(id, reason),
    )
    .await
}

struct NotificationServer {
    notes: Arc<Notes>,
}

#[zbus::interface(name = "org.freedesktop.Notifications")]
impl NotificationServer {
    fn get_capabilities(&self) -> Vec<String> {
        ["actions", "body", "persistence"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    #[allow(clippy::too_many_arguments)]
    async fn notify(
        &self,
        #[zbus(connection)] conn: &zbus::Connection,
        app_name: String,
        replaces_id: u32,
        app_icon: String,
        summary: String,
        body: String,
        actions: Vec<String>,
        hints: HashMap<String, OwnedValue>,
        expire_timeout: i32,
    ) -> u32 {
        let urgency = match hints.get("urgency").map(|v| &**v) {
            Some(Value::U8(0)) => "low",
            Some(Value::U8(2)) => "critical",
            _ => "normal",
        };
        let category = match hints.get("category").map(|v| &**v) {
            Some(Value::Str(s)) => Some(s.to_string()),
            _ => None,
        };
        let resident = matches!(hints.get("resident").map(|v| &**v), Some(Value::Bool(true)));
        let actions = actions
            .chunks(2)
            .map(|pair| NotificationAction {
                id: pair[0].clone(),
                label: pair.get(1).cloned().unwrap_or_default(),
            })
            .collect();
        let (id, serial) = {
            let mut board = self.notes.lock();
            let replaced = replaces_id != 0 && board.shown.iter().any(|n| n.id == replaces_id);
            let id = if replaced {
                replaces_id
            } else {
                board.last_id = board.last_id.wrapping_add(1).max(1);
                board.last_id
            };
            let note = Notification {
                id,
                app_name,
                summary,
                body,
                actions,
                urgency: urgency.to_string(),
                time: now_ms(),
                icon: app_icon,
                category,
                expire_timeout,
            };
            match board.shown.iter_mut().find(|n| n.id == id) {
                Some(slot) => *slot = note,
                None => board.shown.push(note),
            }
            board.changes += 1;
            let serial = board.changes;
            board.serial.insert(id, serial);
            board.resident.insert(id, resident);
            (id, serial)
        };
        self.notes.changed.notify_all();
        // Expiry as the app asked; -1 (the server's choice) and 0 stay until dismissed.
        if expire_timeout > 0 {
            let notes = self.notes.clone();
            let conn = conn.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(expire_timeout as u64)).await;
                let due = notes.lock().serial.get(&id) == Some(&serial);
                if due && notes.remove(id) {
                    let _ = emit_closed(&conn, id, EXPIRED).await;
                }
            });
        }
        id
    }

    async fn close_notification(&self, #[zbus(connection)] conn: &zbus::Connection, id: u32) {
        if self.notes.remove(id) {
            let _ = emit_closed(conn, id, CLOSED_BY_CALL).await;
        }
    }

    fn get_server_information(&self) -> (String, String, String, String) {
        (
            "uidrive".into(),
            "uidrive".into(),
            env!("CARGO_PKG_VERSION").into(),
            "1.2".into(),
        )
    }
}

/// Registered items: (bus name, object path).
type Items = Arc<Mutex<Vec<(String, String)>>>;

struct Watcher {
    items: Items,
}

#[zbus::interface(name = "org.kde.StatusNotifierWatcher")]
impl Watcher {
    async fn register_status_notifier_item(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
        service: String,
    ) {
        let sender = header.sender().map(|s| s.to_string()).unwrap_or_default();
        // Items name their bus name, or (Ayatana, KDE) their object path on the sender's.
        let (bus, path) = if service.starts_with('/') {
            (sender, service)
        } else {
            (service, "/StatusNotifierItem".to_string())
        };
        let name = format!("{bus}{path}");
        {
            let mut items = self.items.lock().unwrap_or_else(|p| p.into_inner());
            if !items.iter().any(|(b, p)| *b == bus && *p == path) {
                items.push((bus, path));
            }
        }
        let _ = Self::status_notifier_item_registered(&emitter, &name).await;
    }

    async fn register_status_notifier_host(
        &self,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
        _service: String,
    ) {
        let _ = Self::status_notifier_host_registered(&emitter).await;
    }

    #[zbus(property)]
    fn registered_status_notifier_items(&self) -> Vec<String> {
        self.items
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|(b, p)| format!("{b}{p}"))
            .collect()
    }

    /// uidrive reads the items as a host does: apps show theirs.
    #[zbus(property)]
    fn is_status_notifier_host_registered(&self) -> bool {
        true
    }

    #[zbus(property)]
    fn protocol_version(&self) -> i32 {
        0
    }

    #[zbus(signal)]
    async fn status_notifier_item_registered(
        emitter: &SignalEmitter<'_>,
        service: &str,
    ) -> zbus::Result<()>;

    #[zbus(signal)]
    async fn status_notifier_item_unregistered(
        emitter: &SignalEmitter<'_>,
        service: &str,
    ) -> zbus::Result<()>;

    #[zbus(signal)]
    async fn status_notifier_host_registered(emitter: &SignalEmitter<'_>) -> zbus::Result<()>;
}

/// The notification server and the tray watcher of one headless desktop.
/// Dropping it gives both names up.
pub struct DesktopServices {
    conn: zbus::Connection,
    notes: Arc<Notes>,
    items: Items,
    timeout: Duration,
    runtime: Option<tokio::runtime::Runtime>,
}

impl std::fmt::Debug for DesktopServices {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DesktopServices").finish_non_exhaustive()
    }
}

impl DesktopServices {
    /// Owns `org.freedesktop.Notifications` and `org.kde.StatusNotifierWatcher`
    /// on the session bus at `address`, each call to it given up to `timeout`.
    pub fn start(address: &str, timeout: Duration) -> Result<DesktopServices> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("uidrive-services")
            .enable_all()
            .build()
            .map_err(|e| Error::failed(format!("cannot start the desktop services: {e}")))?;
        let notes = Arc::new(Notes {
            board: Mutex::default(),
            changed: Condvar::new(),
        });
        let items: Items = Arc::default();
        let server = NotificationServer {
            notes: notes.clone(),
        };
        let watcher = Watcher {
            items: items.clone(),
        };
        let built = runtime.block_on(async {
            let build = async {
                zbus::connection::Builder::address(address)?
                    .serve_at(NOTIFICATIONS_PATH, server)?
                    .serve_at(WATCHER_PATH, watcher)?
                    .name(NOTIFICATIONS_NAME)?
                    .name(WATCHER_NAME)?
                    .build()
                    .await
            };
            tokio::time::timeout(timeout, build).await
        });
        let conn = match built {
            Ok(Ok(conn)) => conn,
            Ok(Err(e)) => {
                return Err(Error::failed(format!(
                    "cannot serve {NOTIFICATIONS_NAME} and {WATCHER_NAME} on the session bus: {e}"
                ))
                .with_suggestion("check that dbus-daemon runs for the desktop"))
            }
            Err(_) => {
                return Err(Error::timeout(format!(
                    "the session bus did not take {NOTIFICATIONS_NAME} within {} ms",
                    timeout.as_millis()
                )))
            }
        };
        Ok(DesktopServices {
            conn,
            notes,
            items,
            timeout,
            runtime: Some(runtime),
        })
    }

    fn block_on<T>(&self, what: &str, work: impl std::future::Future<Output = T>) -> Result<T> {
        let runtime = self.runtime.as_ref().expect("present until dropped");
        runtime
            .block_on(async { tokio::time::timeout(self.timeout, work).await })
            .map_err(|_| {
                Error::timeout(format!(
                    "{what} took longer than {} ms",
                    self.timeout.as_millis()
                ))
                .with_suggestion("the app may be busy or hung; try again")
            })
    }

    // ---- notifications ----------------------------------------------------

    /// The notifications shown now, oldest first.
    pub fn notifications(&self) -> Vec<Notification> {
        self.notes.lock().shown.clone()
    }

    fn shown(&self, id: u32) -> Result<Notification> {
        let found = self.notes.lock().shown.iter().find(|n| n.id == id).cloned();
        found.ok_or_else(|| {
            Error::new(
                ErrorCode::NoElement,
                format!("no notification {id} is shown"),
            )
            .with_suggestion(self.listing())
        })
    }

    fn listing(&self) -> String {
        let shown = self.notifications();
        if shown.is_empty() {
            return "no notification is shown now".into();
        }
        let list: Vec<String> = shown
            .iter()
            .map(|n| format!("{} {:?}", n.id, n.summary))
            .collect();
        format!("shown now: {}", list.join(", "))
    }

    /// Closes notification `id` as a person dismissing it does: it goes
    /// from the list and its app gets `NotificationClosed` (reason 2).
    pub fn dismiss(&self, id: u32) -> Result<()> {
        self.shown(id)?;
        if self.notes.remove(id) {
            self.block_on("telling the app its notification closed", async {
                emit_closed(&self.conn, id, DISMISSED).await
            })?
            .map_err(bus_error)?;
        }
        Ok(())
    }

    /// Invokes action `action` of notification `id`, as a click on its
    /// button: its app gets `ActionInvoked`, then (unless it asked to stay,
    /// the `resident` hint) the notification closes.
    pub fn invoke(&self, id: u32, action: &str) -> Result<()> {
        let note = self.shown(id)?;
        if !note.actions.iter().any(|a| a.id == action) {
            let offered: Vec<String> = note
                .actions
                .iter()
                .map(|a| format!("{} ({:?})", a.id, a.label))
                .collect();
            return Err(Error::invalid_request(format!(
                "notification {id} ({:?}) has no action `{action}`",
                note.summary
            ))
            .with_suggestion(if offered.is_empty() {
                "it has no actions".to_string()
            } else {
                format!("its actions: {}", offered.join(", "))
            }));
        }
        let resident = self.notes.lock().resident.get(&id) == Some(&true);
        self.block_on("invoking the notification's action", async {
            self.conn
                .emit_signal(
                    None::<()>,
                    NOTIFICATIONS_PATH,
                    NOTIFICATIONS_NAME,
                    "ActionInvoked",
                    &(id, action),
                )
                .await
        })?
        .map_err(bus_error)?;
        if !resident && self.notes.remove(id) {
            self.block_on("telling the app its notification closed", async {
                emit_closed(&self.conn, id, DISMISSED).await
            })?
            .map_err(bus_error)?;
        }
        Ok(())
    }

    /// Waits up to `timeout` for a notification whose summary, body and
    /// app name contain the texts given (each `None` matches any), shown
    /// now or posted while waiting.
    pub fn wait_for(
        &self,
        summary: Option<&str>,
        body: Option<&str>,
        app: Option<&str>,
        timeout: Duration,
    ) -> Result<Notification> {
        let fits = |n: &Notification| {
            summary.is_none_or(|s| n.summary.contains(s))
                && body.is_none_or(|b| n.body.contains(b))
                && app.is_none_or(|a| n.app_name.contains(a))
        };
        let deadline = Instant::now() + timeout;
        let mut board = self.notes.lock();
        loop {
            if let Some(found) = board.shown.iter().find(|n| fits(n)) {
                return Ok(found.clone());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                drop(board);
                let mut wanted = Vec::new();
                if let Some(s) = summary {
                    wanted.push(format!("summary {s:?}"));
                }
                if let Some(b) = body {
                    wanted.push(format!("body {b:?}"));
                }
                if let Some(a) = app {
                    wanted.push(format!("app {a:?}"));
                }
                let wanted = if wanted.is_empty() {
                    "any notification".to_string()
                } else {
                    format!("a notification with {}", wanted.join(", "))
                };
                return Err(Error::timeout(format!(
                    "waited {} ms for {wanted}",
                    timeout.as_millis()
                ))
                .with_suggestion(self.listing()));
            }
            board = self
                .notes
                .changed
                .wait_timeout(board, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    // ---- the tray ---------------------------------------------------------

    /// The tray's items, in the order they registered (those whose app has
    /// left the bus are dropped).
    pub fn tray(&self) -> Result<Vec<TrayItem>> {
        let registered = self.items.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let mut found = Vec::new();
        let mut gone = Vec::new();
        for (bus, path) in registered {
            match self.read_item(&bus, &path) {
                Ok(item) => found.push(item),
                Err(_) if !self.has_owner(&bus)? => gone.push((bus, path)),
                Err(e) => return Err(e),
            }
        }
        if !gone.is_empty() {
            self.items
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .retain(|i| !gone.contains(i));
        }
        Ok(found)
    }

    fn has_owner(&self, bus: &str) -> Result<bool> {
        let reply = self
            .block_on("asking the bus", async {
                self.conn
                    .call_method(
                        Some("org.freedesktop.DBus"),
                        "/org/freedesktop/DBus",
                        Some("org.freedesktop.DBus"),
                        "NameHasOwner",
                        &(bus,),
                    )
                    .await
            })?
            .map_err(bus_error)?;
        reply.body().deserialize::<bool>().map_err(bus_error)
    }

    fn read_item(&self, bus: &str, path: &str) -> Result<TrayItem> {
        let reply = self
            .block_on("reading a tray item", async {
                self.conn
                    .call_method(
                        Some(bus),
                        path,
                        Some("org.freedesktop.DBus.Properties"),
                        "GetAll",
                        &(ITEM_INTERFACE,),
                    )
                    .await
            })?
            .map_err(bus_error)?;
        let props: HashMap<String, OwnedValue> = reply.body().deserialize().map_err(bus_error)?;
        let text = |name: &str| match props.get(name).map(|v| &**v) {
            Some(Value::Str(s)) => s.to_string(),
            Some(Value::ObjectPath(p)) => p.to_string(),
            _ => String::new(),
        };
        let tooltip = match props.get("ToolTip").map(|v| &**v) {
            Some(Value::Structure(s)) => {
                let parts: Vec<String> = s
                    .fields()
                    .iter()
                    .skip(2)
                    .filter_map(|f| match f {
                        Value::Str(t) if !t.is_empty() => Some(t.to_string()),
                        _ => None,
                    })
                    .collect();
                parts.join("\n")
            }
            _ => String::new(),
        };
        let service = format!("{bus}{path}");
        let id = text("Id");
        let menu = text("Menu");
        Ok(TrayItem {
            id: if id.is_empty() { service.clone() } else { id },
            service,
            title: text("Title"),
            tooltip,
            status: text("Status"),
            category: text("Category"),
            icon: text("IconName"),
            has_menu: !menu.is_empty() && menu != "/",
        })
    }

    /// The item `name` names: its id, its service or its title.
    fn find_item(&self, name: &str) -> Result<(String, String, TrayItem)> {
        let items = self.tray()?;
        let matching: Vec<&TrayItem> = items
            .iter()
            .filter(|i| i.id == name || i.service == name)
            .collect();
        let matching = if matching.is_empty() {
            items.iter().filter(|i| i.title == name).collect()
        } else {
            matching
        };
        match matching.as_slice() {
            [one] => {
                let (bus, path) = split_service(&one.service);
                Ok((bus, path, (*one).clone()))
            }
            [] => Err(
                Error::new(ErrorCode::NoElement, format!("no tray item {name:?}")).with_suggestion(
                    if items.is_empty() {
                        "no app has put an item in the tray".to_string()
                    } else {
                        let ids: Vec<String> =
                            items.iter().map(|i| format!("{:?}", i.id)).collect();
                        format!("the tray holds {}", ids.join(", "))
                    },
                ),
            ),
            several => Err(Error::new(
                ErrorCode::Ambiguous,
                format!("{} tray items are called {name:?}", several.len()),
            )
            .with_suggestion("name one by its service (`busname/path`, as `tray` lists)")),
        }
    }

    /// Activates tray item `name`, as a click on its icon does (`Activate`).
    pub fn tray_activate(&self, name: &str) -> Result<TrayItem> {
        let (bus, path, item) = self.find_item(name)?;
        self.block_on("activating the tray item", async {
            self.conn
                .call_method(
                    Some(bus.as_str()),
                    path.as_str(),
                    Some(ITEM_INTERFACE),
                    "Activate",
                    &(0i32, 0i32),
                )
                .await
        })?
        .map_err(bus_error)?;
        Ok(item)
    }

    /// The menu of tray item `name`, every entry at every depth, a submenu
    /// before what it holds.
    pub fn tray_menu(&self, name: &str) -> Result<Vec<TrayMenuItem>> {
        let (bus, menu) = self.menu_of(name)?;
        // Some apps fill a menu only when asked to show it.
        let _ = self.block_on("opening the tray item's menu", async {
            self.conn
                .call_method(
                    Some(bus.as_str()),
                    menu.as_str(),
                    Some(MENU_INTERFACE),
                    "AboutToShow",
                    &(0i32,),
                )
                .await
        });
        let reply = self
            .block_on("reading the tray item's menu", async {
                let none: Vec<String> = Vec::new();
                self.conn
                    .call_method(
                        Some(bus.as_str()),
                        menu.as_str(),
                        Some(MENU_INTERFACE),
                        "GetLayout",
                        &(0i32, -1i32, none),
                    )
                    .await
            })?
            .map_err(bus_error)?;
        type Layout = (i32, HashMap<String, OwnedValue>, Vec<OwnedValue>);
        let (_revision, (_, _, children)): (u32, Layout) =
            reply.body().deserialize().map_err(bus_error)?;
        let mut out = Vec::new();
        for child in &children {
            flatten_menu(child, &[], &mut out);
        }
        Ok(out)
    }

    /// Clicks entry `entry` (its id, or its label) of tray item `name`'s
    /// menu (`Event` `clicked`).
    pub fn tray_click(&self, name: &str, entry: &str) -> Result<TrayMenuItem> {
        let entries = self.tray_menu(name)?;
        let wanted: Vec<&TrayMenuItem> = match entry.parse::<i32>() {
            Ok(id) => entries.iter().filter(|e| e.id == id).collect(),
            Err(_) => entries
                .iter()
                .filter(|e| e.label == entry && !e.separator)
                .collect(),
        };
        let chosen = match wanted.as_slice() {
            [one] => (*one).clone(),
            [] => {
                let labels: Vec<String> = entries
                    .iter()
                    .filter(|e| !e.separator)
                    .map(|e| format!("{} {:?}", e.id, e.label))
                    .collect();
                return Err(Error::new(
                    ErrorCode::NoElement,
                    format!("tray item {name:?}'s menu has no entry {entry:?}"),
                )
                .with_suggestion(format!("its entries: {}", labels.join(", "))));
            }
            several => {
                return Err(Error::new(
                    ErrorCode::Ambiguous,
                    format!("{} entries of the menu are {entry:?}", several.len()),
                )
                .with_suggestion("name the entry by its id, as `tray menu` lists"))
            }
        };
        if !chosen.enabled {
            return Err(Error::new(
                ErrorCode::NotActionable,
                format!("the menu entry {:?} is disabled", chosen.label),
            )
            .with_suggestion("wait until the app enables it"));
        }
        let (bus, menu) = self.menu_of(name)?;
        let stamp = (now_ms() / 1000) as u32;
        self.block_on("clicking the tray menu's entry", async {
            self.conn
                .call_method(
                    Some(bus.as_str()),
                    menu.as_str(),
                    Some(MENU_INTERFACE),
                    "Event",
                    &(chosen.id, "clicked", Value::I32(0), stamp),
                )
                .await
        })?
        .map_err(bus_error)?;
        Ok(chosen)
    }

    /// The bus name and menu path of tray item `name`.
    fn menu_of(&self, name: &str) -> Result<(String, String)> {
        let (bus, path, item) = self.find_item(name)?;
        let reply = self
            .block_on("reading the tray item's menu", async {
                self.conn
                    .call_method(
                        Some(bus.as_str()),
                        path.as_str(),
                        Some("org.freedesktop.DBus.Properties"),
                        "Get",
                        &(ITEM_INTERFACE, "Menu"),
                    )
                    .await
            })?
            .map_err(bus_error)?;
        let menu: OwnedValue = reply.body().deserialize().map_err(bus_error)?;
        match &*menu {
            Value::ObjectPath(p) if p.as_str() != "/" => Ok((bus, p.to_string())),
            _ => Err(
                Error::unsupported(format!("the tray item {:?} has no menu", item.id))
                    .with_suggestion("activate it instead (`tray activate`)"),
            ),
        }
    }
}

impl Drop for DesktopServices {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            let conn = self.conn.clone();
            let _ = runtime.block_on(async {
                tokio::time::timeout(Duration::from_millis(500), conn.close()).await
            });
            runtime.shutdown_background();
        }
    }
}

/// `busname/path` as its two halves.
fn split_service(service: &str) -> (String, String) {
    match service.find('/') {
        Some(at) => (service[..at].to_string(), service[at..].to_string()),
        None => (service.to_string(), "/StatusNotifierItem".to_string()),
    }
}

/// One layout node (`(ia{sv}av)`) and what it holds, into `out`.
fn flatten_menu(node: &Value<'_>, path: &[String], out: &mut Vec<TrayMenuItem>) {
    let node = match node {
        Value::Value(inner) => &**inner,
        other => other,
    };
    let Value::Structure(s) = node else { return };
    let fields = s.fields();
    let (Some(Value::I32(id)), Some(Value::Dict(props))) = (fields.first(), fields.get(1)) else {
        return;
    };
    let prop = |name: &str| {
        props.iter().find_map(|(k, v)| match k {
            Value::Str(k) if k.as_str() == name => Some(match v {
                Value::Value(inner) => (**inner).try_clone().ok(),
                other => other.try_clone().ok(),
            }),
            _ => None,
        })?
    };
    let text = |name: &str| match prop(name) {
        Some(Value::Str(s)) => s.to_string(),
        _ => String::new(),
    };
    let flag = |name: &str, default: bool| match prop(name) {
        Some(Value::Bool(b)) => b,
        _ => default,
    };
    let label = strip_mnemonic(&text("label"));
    let children: Vec<&Value<'_>> = match fields.get(2) {
        Some(Value::Array(a)) => a.inner().iter().collect(),
        _ => Vec::new(),
    };
    out.push(TrayMenuItem {
        id: *id,
        label: label.clone(),
        enabled: flag("enabled", true),
        visible: flag("visible", true),
        separator: text("type") == "separator",
        toggle: text("toggle-type"),
        checked: matches!(prop("toggle-state"), Some(Value::I32(1))),
        path: path.to_vec(),
        submenu: text("children-display") == "submenu" || !children.is_empty(),
    });
    let mut inner = path.to_vec();
    inner.push(label);
    for child in children {
        flatten_menu(child, &inner, out);
    }
}

/// `_File` as `File`; `__` is a literal underscore.
fn strip_mnemonic(label: &str) -> String {
    let mut out = String::with_capacity(label.len());
    let mut chars = label.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '_' {
            if chars.peek() == Some(&'_') {
                out.push('_');
                chars.next();
            }
            continue;
        }
        out.push(c);
    }
    out
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

fn bus_error(e: impl std::fmt::Display) -> Error {
    Error::failed(format!("the D-Bus call failed: {e}"))
        .with_suggestion("the app may have left the bus; list again")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mnemonics_and_services_are_read() {
        assert_eq!(strip_mnemonic("_Open"), "Open");
        assert_eq!(strip_mnemonic("a__b"), "a_b");
        assert_eq!(
            split_service(":1.5/org/ayatana/x"),
            (":1.5".to_string(), "/org/ayatana/x".to_string())
        );
    }
}
