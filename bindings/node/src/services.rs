//! The desktop's services: `desktop.clipboard` (`Clipboard`),
//! `desktop.notifications()` (`Notification`), `desktop.tray()` (`TrayItem`,
//! `TrayMenuItem`). The operations are the facade's
//! (uidrive_facade::services); this marshals.

use crate::desktop::Desktop;
use crate::task::{self, Job, Out};
use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;
use serde_json::{json, Value};
use uidrive_facade::services::{self as svc, Services};

/// `{ primary?: boolean }`: the primary selection instead of the clipboard.
#[napi(object)]
#[derive(Default)]
pub struct ClipboardOptions {
    pub primary: Option<bool>,
}

/// The desktop's clipboard (`desktop.clipboard`): uidrive holds what it
/// sets and gives it to the apps that paste.
#[napi]
pub struct Clipboard {
    services: Services,
}

fn primary(options: Option<ClipboardOptions>) -> bool {
    options.and_then(|o| o.primary).unwrap_or(false)
}

#[napi]
impl Clipboard {
    /// The text on the clipboard, or null when it is empty or holds no text.
    #[napi(ts_return_type = "Promise<string | null>")]
    pub fn get(&self, options: Option<ClipboardOptions>) -> AsyncTask<Job> {
        let (services, primary) = (self.services.clone(), primary(options));
        task::run(move || Ok(Out::Json(json!(services.clipboard_get(primary)?))))
    }

    /// Puts `text` on the clipboard.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn set(&self, text: String, options: Option<ClipboardOptions>) -> AsyncTask<Job> {
        let (services, primary) = (self.services.clone(), primary(options));
        task::unit(move || services.clipboard_set(&text, primary))
    }

    /// Empties the clipboard, whoever holds it.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn clear(&self, options: Option<ClipboardOptions>) -> AsyncTask<Job> {
        let (services, primary) = (self.services.clone(), primary(options));
        task::unit(move || services.clipboard_clear(primary))
    }

    /// The image on the clipboard as PNG, when the app holding it offers `image/png`; else null.
    #[napi(ts_return_type = "Promise<Buffer | null>")]
    pub fn get_image(&self, options: Option<ClipboardOptions>) -> AsyncTask<Job> {
        let (services, primary) = (self.services.clone(), primary(options));
        task::run(move || {
            Ok(match services.clipboard_get_image(primary)? {
                Some(png) => Out::Bytes(png),
                None => Out::Json(Value::Null),
            })
        })
    }
}

/// A notification an app showed on uidrive's headless desktop.
#[napi]
pub struct Notification {
    services: Services,
    note: svc::Notification,
}

#[napi]
impl Notification {
    #[napi(getter)]
    pub fn id(&self) -> u32 {
        self.note.id
    }
    #[napi(getter)]
    pub fn app_name(&self) -> String {
        self.note.app_name.clone()
    }
    #[napi(getter)]
    pub fn summary(&self) -> String {
        self.note.summary.clone()
    }
    #[napi(getter)]
    pub fn body(&self) -> String {
        self.note.body.clone()
    }
    /// Its actions, in order: `{ id, label }`.
    #[napi(getter, ts_return_type = "Array<{ id: string; label: string }>")]
    pub fn actions(&self) -> Value {
        json!(self.note.actions)
    }
    /// `low`, `normal` or `critical`.
    #[napi(getter, ts_return_type = "'low' | 'normal' | 'critical'")]
    pub fn urgency(&self) -> String {
        self.note.urgency.clone()
    }
    /// When it was shown, in milliseconds since the epoch (as `Date.now()`).
    #[napi(getter)]
    pub fn time(&self) -> f64 {
        self.note.time as f64
    }
    #[napi(getter)]
    pub fn icon(&self) -> String {
        self.note.icon.clone()
    }
    #[napi(getter)]
    pub fn category(&self) -> Option<String> {
        self.note.category.clone()
    }

    /// Dismisses it, as a person closing it; its app is told.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn dismiss(&self) -> AsyncTask<Job> {
        let (services, id) = (self.services.clone(), self.note.id);
        task::unit(move || services.notification_dismiss(id))
    }

    /// Invokes its action `action` (an id of `actions`): the app gets `ActionInvoked`, then it closes.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn invoke(&self, action: String) -> AsyncTask<Job> {
        let (services, id) = (self.services.clone(), self.note.id);
        task::unit(move || services.notification_invoke(id, &action))
    }
}

/// An item of the tray on uidrive's headless desktop.
#[napi]
pub struct TrayItem {
    services: Services,
    item: svc::TrayItem,
}

#[napi]
impl TrayItem {
    #[napi(getter)]
    pub fn id(&self) -> String {
        self.item.id.clone()
    }
    /// Where it is on the bus: `busname/path`.
    #[napi(getter)]
    pub fn service(&self) -> String {
        self.item.service.clone()
    }
    #[napi(getter)]
    pub fn title(&self) -> String {
        self.item.title.clone()
    }
    #[napi(getter)]
    pub fn tooltip(&self) -> String {
        self.item.tooltip.clone()
    }
    /// `Passive`, `Active` or `NeedsAttention`.
    #[napi(getter)]
    pub fn status(&self) -> String {
        self.item.status.clone()
    }
    #[napi(getter)]
    pub fn has_menu(&self) -> bool {
        self.item.has_menu
    }

    /// Activates it, as a click on its icon.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn activate(&self) -> AsyncTask<Job> {
        let (services, item) = (self.services.clone(), self.item.service.clone());
        task::unit(move || services.tray_activate(&item).map(|_| ()))
    }

    /// Its menu's entries, every depth, a submenu before what it holds.
    #[napi(ts_return_type = "Promise<TrayMenuItem[]>")]
    pub fn menu(&self) -> AsyncTask<Job> {
        let (services, item) = (self.services.clone(), self.item.service.clone());
        task::run(move || {
            let entries = services.tray_menu(&item)?;
            Ok(Out::TrayMenu(
                entries
                    .into_iter()
                    .map(|entry| TrayMenuItem {
                        services: services.clone(),
                        item: item.clone(),
                        entry,
                    })
                    .collect(),
            ))
        })
    }
}

/// An entry of a tray item's menu.
#[napi]
pub struct TrayMenuItem {
    services: Services,
    item: String,
    entry: svc::TrayMenuItem,
}

#[napi]
impl TrayMenuItem {
    #[napi(getter)]
    pub fn id(&self) -> i32 {
        self.entry.id
    }
    #[napi(getter)]
    pub fn label(&self) -> String {
        self.entry.label.clone()
    }
    #[napi(getter)]
    pub fn enabled(&self) -> bool {
        self.entry.enabled
    }
    #[napi(getter)]
    pub fn separator(&self) -> bool {
        self.entry.separator
    }
    #[napi(getter)]
    pub fn checked(&self) -> bool {
        self.entry.checked
    }
    /// The labels of the submenus it is in, outermost first.
    #[napi(getter)]
    pub fn path(&self) -> Vec<String> {
        self.entry.path.clone()
    }

    /// Clicks it (the app gets the menu's `clicked` event).
    #[napi(ts_return_type = "Promise<void>")]
    pub fn click(&self) -> AsyncTask<Job> {
        let (services, item, id) = (
            self.services.clone(),
            self.item.clone(),
            self.entry.id.to_string(),
        );
        task::unit(move || services.tray_click(&item, &id).map(|_| ()))
    }
}

/// `waitForNotification`'s options: texts the notification's fields hold, and milliseconds to wait.
#[napi(object)]
#[derive(Default)]
pub struct WaitForNotificationOptions {
    pub summary: Option<String>,
    pub body: Option<String>,
    pub app: Option<String>,
    pub timeout: Option<f64>,
}

#[napi]
impl Desktop {
    /// The desktop's clipboard (CLIPBOARD; `{ primary: true }` for PRIMARY).
    #[napi(getter)]
    pub fn clipboard(&self, env: napi::Env) -> napi::Result<Clipboard> {
        let services = crate::error::sync(&env, self.inner.services())?;
        Ok(Clipboard { services })
    }

    /// The notifications apps show on this desktop now, oldest first.
    #[napi(ts_return_type = "Promise<Notification[]>")]
    pub fn notifications(&self) -> AsyncTask<Job> {
        let desktop = self.inner.clone();
        task::run(move || {
            let services = desktop.services()?;
            let list = services.notifications()?;
            Ok(Out::Notifications(
                list.into_iter()
                    .map(|note| Notification {
                        services: services.clone(),
                        note,
                    })
                    .collect(),
            ))
        })
    }

    /// Waits for a notification whose summary, body and app name hold the
    /// texts given (`timeout` ms, 10 000 by default).
    #[napi(ts_return_type = "Promise<Notification>")]
    pub fn wait_for_notification(
        &self,
        options: Option<WaitForNotificationOptions>,
    ) -> AsyncTask<Job> {
        let desktop = self.inner.clone();
        let o = options.unwrap_or_default();
        task::run(move || {
            let timeout = crate::convert::millis_opt("waitForNotification: timeout", o.timeout)?;
            let services = desktop.services()?;
            let note = services.wait_for_notification(
                o.summary.as_deref(),
                o.body.as_deref(),
                o.app.as_deref(),
                timeout,
            )?;
            Ok(Out::Notification(Box::new(Notification { services, note })))
        })
    }

    /// The tray's items.
    #[napi(ts_return_type = "Promise<TrayItem[]>")]
    pub fn tray(&self) -> AsyncTask<Job> {
        let desktop = self.inner.clone();
        task::run(move || {
            let services = desktop.services()?;
            let items = services.tray()?;
            Ok(Out::TrayItems(
                items
                    .into_iter()
                    .map(|item| TrayItem {
                        services: services.clone(),
                        item,
                    })
                    .collect(),
            ))
        })
    }
}
