//! The desktop's services: `clipboard`, `notifications`, `notification`,
//! `tray` and `wait --notification`. The session's desktop belongs to the
//! `uidrive serve` it started, which holds the clipboard and is the
//! notification server and tray watcher; these commands ask it over the
//! session's socket (uidrive_facade::services).

use crate::ctx::Ctx;
use crate::output::{CliError, Output};
use crate::registry::{Command, Hints, ACTS, READS};
use clap::{Args, ValueEnum};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use uidrive_core::{Error, ErrorCode};
use uidrive_facade::services as svc;

/// Asks the session's server for one of the services' methods.
fn ask(ctx: &mut Ctx, method: &str, params: Value) -> Result<Value, CliError> {
    let app = ctx.app()?;
    app.driver().call(method, Some(params)).map_err(|e| {
        if e.code == ErrorCode::UnknownMethod {
            CliError::from(
                Error::unsupported(format!(
                    "the session's server does not offer `{method}`: it is not uidrive's own"
                ))
                .with_suggestion(
                    "open the app with uidrive (`uidrive open --headless --launch CMD`), whose server holds the desktop's clipboard, notifications and tray",
                ),
            )
        } else {
            CliError::from(e)
        }
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ClipboardVerb {
    Get,
    Set,
    Clear,
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Clipboard {
    /// get, set TEXT or clear.
    pub verb: ClipboardVerb,
    /// The text to put on the clipboard (set).
    #[serde(default)]
    pub text: Option<String>,
    /// The primary selection (what is selected) instead of the clipboard.
    #[arg(long)]
    #[serde(default)]
    pub primary: bool,
}

impl Command for Clipboard {
    const NAME: &'static str = "clipboard";
    const MCP: bool = false;
    const ABOUT: &'static str =
        "Read, set or clear the desktop's clipboard (uidrive holds what it sets and gives it to apps that paste)";
    const HINTS: Hints = ACTS;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        let which = if self.primary {
            "primary selection"
        } else {
            "clipboard"
        };
        match self.verb {
            ClipboardVerb::Get => {
                if self.text.is_some() {
                    return Err(CliError::usage("clipboard get takes no text"));
                }
                let answer = ask(
                    ctx,
                    svc::METHOD_CLIPBOARD_GET,
                    json!({ "primary": self.primary }),
                )?;
                let text = answer.get("text").and_then(Value::as_str);
                Ok(Output::new(
                    match text {
                        Some(text) => format!("{text}\n"),
                        None => format!("the {which} is empty\n"),
                    },
                    json!({ "text": text, "primary": self.primary }),
                ))
            }
            ClipboardVerb::Set => {
                let Some(text) = self.text else {
                    return Err(CliError::usage("clipboard set needs the TEXT to set"));
                };
                ask(
                    ctx,
                    svc::METHOD_CLIPBOARD_SET,
                    json!({ "text": text, "primary": self.primary }),
                )?;
                Ok(Output::new(
                    format!("set the {which} ({} characters)\n", text.chars().count()),
                    json!({ "text": text, "primary": self.primary }),
                ))
            }
            ClipboardVerb::Clear => {
                if self.text.is_some() {
                    return Err(CliError::usage("clipboard clear takes no text"));
                }
                ask(
                    ctx,
                    svc::METHOD_CLIPBOARD_CLEAR,
                    json!({ "primary": self.primary }),
                )?;
                Ok(Output::new(
                    format!("cleared the {which}\n"),
                    json!({ "primary": self.primary }),
                ))
            }
        }
    }
}

fn notification_line(n: &Value) -> String {
    let text = |k: &str| n.get(k).and_then(Value::as_str).unwrap_or_default();
    let actions: Vec<String> = n
        .get("actions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|a| {
            let id = a.get("id").and_then(Value::as_str).unwrap_or_default();
            let label = a.get("label").and_then(Value::as_str).unwrap_or_default();
            format!("{id}={label:?}")
        })
        .collect();
    let mut line = format!(
        "{} {:?} {:?} app={:?} urgency={}",
        n.get("id").and_then(Value::as_u64).unwrap_or_default(),
        text("summary"),
        text("body"),
        text("app_name"),
        text("urgency"),
    );
    if !actions.is_empty() {
        line.push_str(&format!(" actions: {}", actions.join(" ")));
    }
    line
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Notifications {}

impl Command for Notifications {
    const NAME: &'static str = "notifications";
    const MCP: bool = false;
    const ABOUT: &'static str =
        "List the notifications apps show on uidrive's headless desktop (id, summary, body, app, actions)";
    const HINTS: Hints = READS;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        let answer = ask(ctx, svc::METHOD_NOTIFICATIONS, json!({}))?;
        let list = answer
            .get("notifications")
            .cloned()
            .unwrap_or_else(|| json!([]));
        let text: String = list
            .as_array()
            .into_iter()
            .flatten()
            .map(|n| notification_line(n) + "\n")
            .collect();
        Ok(Output::new(
            if text.is_empty() {
                "no notifications\n".to_string()
            } else {
                text
            },
            json!({ "notifications": list }),
        ))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NotificationVerb {
    Dismiss,
    Action,
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Notification {
    /// dismiss ID, or action ID ACTION.
    pub verb: NotificationVerb,
    /// The notification's id, as `notifications` lists.
    pub id: u32,
    /// The action to invoke (its key, as `notifications` lists).
    #[serde(default)]
    pub action: Option<String>,
}

impl Command for Notification {
    const NAME: &'static str = "notification";
    const MCP: bool = false;
    const ABOUT: &'static str =
        "Dismiss a notification, or invoke one of its actions (its app is told, as by a click)";
    const HINTS: Hints = ACTS;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        match self.verb {
            NotificationVerb::Dismiss => {
                if self.action.is_some() {
                    return Err(CliError::usage("notification dismiss takes only the ID"));
                }
                ask(
                    ctx,
                    svc::METHOD_NOTIFICATION_DISMISS,
                    json!({ "id": self.id }),
                )?;
                Ok(Output::new(
                    format!("dismissed notification {}\n", self.id),
                    json!({ "id": self.id }),
                ))
            }
            NotificationVerb::Action => {
                let Some(action) = self.action else {
                    return Err(CliError::usage(
                        "notification action needs the ID and the ACTION to invoke",
                    ));
                };
                ask(
                    ctx,
                    svc::METHOD_NOTIFICATION_INVOKE,
                    json!({ "id": self.id, "action": action }),
                )?;
                Ok(Output::new(
                    format!("invoked {action} of notification {}\n", self.id),
                    json!({ "id": self.id, "action": action }),
                ))
            }
        }
    }
}

/// `wait --notification TEXT`: a notification whose summary or body holds TEXT.
pub fn wait_for_notification(
    ctx: &mut Ctx,
    text: &str,
    timeout: std::time::Duration,
) -> Result<Output, CliError> {
    // The summary first; failing that, the body (each wait shares the time).
    let deadline = std::time::Instant::now() + timeout;
    let mut last = None;
    loop {
        for field in ["summary", "body"] {
            let mut params = json!({ "timeout_ms": 0 });
            params[field] = json!(text);
            match ask(ctx, svc::METHOD_NOTIFICATION_WAIT, params) {
                Ok(answer) => {
                    let note = answer.get("notification").cloned().unwrap_or(Value::Null);
                    return Ok(Output::new(
                        notification_line(&note) + "\n",
                        json!({ "notification": note }),
                    ));
                }
                Err(e) if e.error.code == ErrorCode::Timeout => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        if std::time::Instant::now() >= deadline {
            let mut e = last.expect("asked at least once");
            e.error.message = format!(
                "waited {} ms for a notification whose summary or body holds {text:?}",
                timeout.as_millis()
            );
            return Err(e);
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TrayVerb {
    Activate,
    Menu,
    Click,
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tray {
    /// Nothing to list the items; activate ITEM, menu ITEM, or click ITEM ENTRY.
    #[serde(default)]
    pub verb: Option<TrayVerb>,
    /// The item: its id, service (`busname/path`) or title, as `tray` lists.
    #[serde(default)]
    pub item: Option<String>,
    /// The menu entry to click: its id or its label, as `tray menu` lists.
    #[serde(default)]
    pub entry: Option<String>,
}

fn tray_item_line(i: &Value) -> String {
    let text = |k: &str| i.get(k).and_then(Value::as_str).unwrap_or_default();
    format!(
        "{} title={:?} tooltip={:?} status={}{}",
        text("id"),
        text("title"),
        text("tooltip"),
        text("status"),
        if i.get("has_menu").and_then(Value::as_bool) == Some(true) {
            " (menu)"
        } else {
            ""
        }
    )
}

fn menu_entry_line(e: &Value) -> String {
    if e.get("separator").and_then(Value::as_bool) == Some(true) {
        return format!(
            "{} ----",
            e.get("id").and_then(Value::as_i64).unwrap_or_default()
        );
    }
    let depth = e.get("path").and_then(Value::as_array).map_or(0, Vec::len);
    let mut line = format!(
        "{}{} {:?}",
        "  ".repeat(depth),
        e.get("id").and_then(Value::as_i64).unwrap_or_default(),
        e.get("label").and_then(Value::as_str).unwrap_or_default()
    );
    if e.get("enabled").and_then(Value::as_bool) == Some(false) {
        line.push_str(" disabled");
    }
    if e.get("checked").and_then(Value::as_bool) == Some(true) {
        line.push_str(" checked");
    }
    line
}

impl Command for Tray {
    const NAME: &'static str = "tray";
    const MCP: bool = false;
    const ABOUT: &'static str =
        "List the tray's items on uidrive's headless desktop; activate one, read its menu or click an entry";
    const HINTS: Hints = ACTS;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        let item = || {
            self.item
                .clone()
                .ok_or_else(|| CliError::usage("tray: name the ITEM (its id, as `tray` lists)"))
        };
        match self.verb {
            None => {
                if self.item.is_some() {
                    return Err(CliError::usage(
                        "tray: say what to do with the item: activate, menu or click",
                    ));
                }
                let answer = ask(ctx, svc::METHOD_TRAY, json!({}))?;
                let items = answer.get("items").cloned().unwrap_or_else(|| json!([]));
                let text: String = items
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|i| tray_item_line(i) + "\n")
                    .collect();
                Ok(Output::new(
                    if text.is_empty() {
                        "the tray is empty\n".to_string()
                    } else {
                        text
                    },
                    json!({ "items": items }),
                ))
            }
            Some(TrayVerb::Activate) => {
                let answer = ask(ctx, svc::METHOD_TRAY_ACTIVATE, json!({ "item": item()? }))?;
                let it = answer.get("item").cloned().unwrap_or(Value::Null);
                Ok(Output::new(
                    format!("activated {}\n", tray_item_line(&it)),
                    json!({ "item": it }),
                ))
            }
            Some(TrayVerb::Menu) => {
                let answer = ask(ctx, svc::METHOD_TRAY_MENU, json!({ "item": item()? }))?;
                let entries = answer.get("entries").cloned().unwrap_or_else(|| json!([]));
                let text: String = entries
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|e| menu_entry_line(e) + "\n")
                    .collect();
                Ok(Output::new(
                    if text.is_empty() {
                        "the menu is empty\n".to_string()
                    } else {
                        text
                    },
                    json!({ "entries": entries }),
                ))
            }
            Some(TrayVerb::Click) => {
                let Some(entry) = self.entry.clone() else {
                    return Err(CliError::usage(
                        "tray click: name the ITEM and the ENTRY (its id or label, as `tray menu` lists)",
                    ));
                };
                let answer = ask(
                    ctx,
                    svc::METHOD_TRAY_CLICK,
                    json!({ "item": item()?, "entry": entry }),
                )?;
                let clicked = answer.get("entry").cloned().unwrap_or(Value::Null);
                Ok(Output::new(
                    format!("clicked {}\n", menu_entry_line(&clicked).trim_start()),
                    json!({ "entry": clicked }),
                ))
            }
        }
    }
}

/// MCP's `desktop` tool: the clipboard, notifications and tray in one, to keep the tool list short.
#[derive(Debug, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DesktopTool {
    /// clipboard-get|-set|-clear, notifications, dismiss, invoke, tray, tray-activate|-menu|-click
    pub op: String,
    #[serde(default)]
    pub text: Option<String>,
    #[arg(long)]
    #[serde(default)]
    pub primary: bool,
    #[arg(long)]
    #[serde(default)]
    pub id: Option<u32>,
    #[arg(long)]
    #[serde(default)]
    pub action: Option<String>,
    #[arg(long)]
    #[serde(default)]
    pub item: Option<String>,
    #[arg(long)]
    #[serde(default)]
    pub entry: Option<String>,
}

impl Command for DesktopTool {
    const NAME: &'static str = "desktop";
    const ABOUT: &'static str =
        "The desktop's clipboard, notifications (uidrive's headless desktop) and tray";
    const HINTS: Hints = ACTS;
    const CLI: bool = false;
    const MCP_DESKTOP: bool = true;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError> {
        let id = || {
            self.id
                .ok_or_else(|| CliError::usage("desktop: give the notification's id"))
        };
        let clipboard = |verb| Clipboard {
            verb,
            text: self.text.clone(),
            primary: self.primary,
        };
        let tray = |verb| Tray {
            verb,
            item: self.item.clone(),
            entry: self.entry.clone(),
        };
        match self.op.as_str() {
            "clipboard-get" => clipboard(ClipboardVerb::Get).run(ctx),
            "clipboard-set" => clipboard(ClipboardVerb::Set).run(ctx),
            "clipboard-clear" => clipboard(ClipboardVerb::Clear).run(ctx),
            "notifications" => Notifications {}.run(ctx),
            "dismiss" => Notification {
                verb: NotificationVerb::Dismiss,
                id: id()?,
                action: None,
            }
            .run(ctx),
            "invoke" => Notification {
                verb: NotificationVerb::Action,
                id: id()?,
                action: self.action.clone(),
            }
            .run(ctx),
            "tray" => tray(None).run(ctx),
            "tray-activate" => tray(Some(TrayVerb::Activate)).run(ctx),
            "tray-menu" => tray(Some(TrayVerb::Menu)).run(ctx),
            "tray-click" => tray(Some(TrayVerb::Click)).run(ctx),
            other => Err(CliError::usage(format!(
                "desktop: no op `{other}`: clipboard-get, clipboard-set, clipboard-clear, notifications, dismiss, invoke, tray, tray-activate, tray-menu or tray-click"
            ))),
        }
    }
}
