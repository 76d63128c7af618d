//! `uidrive webdriver`: a W3C WebDriver endpoint with Appium's conventions,
//! so Selenium and Appium clients (and Selenium Grid) drive Linux apps
//! through uidrive.
//!
//! A small synchronous HTTP server (tiny_http) answers each request on a
//! thread of its own; each command is one call of uidrive's facade or core
//! ([`session`]). Nothing here decides how to find, wait or act: that is
//! uidrive's, and its errors come back as W3C error codes ([`wire`]).

#![deny(missing_docs)]

pub mod actions;
pub mod session;
pub mod source;
pub mod wire;

use serde_json::{json, Value};
use session::Session;
use std::collections::HashMap;
use std::io::Read;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use uidrive_core::Error;
use wire::{WdError, WdResult};

/// The largest request body taken, in bytes.
const MAX_BODY: u64 = 16 << 20;

type Sessions = Arc<Mutex<HashMap<String, Arc<Session>>>>;

/// A running endpoint; [`Server::stop`] ends its sessions (their apps and desktops).
pub struct Server {
    http: Arc<tiny_http::Server>,
    sessions: Sessions,
    accept: Option<JoinHandle<()>>,
    addr: SocketAddr,
}

/// Starts listening on `host:port` (port 0: any free port).
pub fn start(host: &str, port: u16) -> Result<Server, Error> {
    let http = tiny_http::Server::http((host, port)).map_err(|e| {
        Error::failed(format!("webdriver: cannot listen on {host}:{port}: {e}"))
            .with_suggestion("choose another --port, or stop what listens there")
    })?;
    let addr = http
        .server_addr()
        .to_ip()
        .ok_or_else(|| Error::failed("webdriver: the server has no IP address"))?;
    let http = Arc::new(http);
    let sessions: Sessions = Arc::default();
    let accept = {
        let http = http.clone();
        let sessions = sessions.clone();
        std::thread::Builder::new()
            .name("webdriver-accept".into())
            .spawn(move || {
                for request in http.incoming_requests() {
                    let sessions = sessions.clone();
                    // Sessions run side by side; each request on its own thread.
                    let _ = std::thread::Builder::new()
                        .name("webdriver-request".into())
                        .spawn(move || handle(request, &sessions));
                }
            })
            .map_err(|e| Error::failed(format!("webdriver: cannot start a thread: {e}")))?
    };
    Ok(Server {
        http,
        sessions,
        accept: Some(accept),
        addr,
    })
}

impl Server {
    /// Where the endpoint listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops listening and ends every session: what they launched and their desktops.
    pub fn stop(mut self) {
        self.http.unblock();
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
        let sessions: Vec<_> = self
            .sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain()
            .map(|(_, s)| s)
            .collect();
        for session in sessions {
            let _ = session.close();
        }
    }
}

fn new_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    format!(
        "{:08x}-{:04x}-{:012x}",
        std::process::id(),
        n,
        nanos & 0xffff_ffff_ffff
    )
}

fn handle(mut request: tiny_http::Request, sessions: &Sessions) {
    let method = request.method().as_str().to_ascii_uppercase();
    let url = request.url().to_string();
    let mut body = String::new();
    // Read no further than the body: a request that offers an upgrade (Java's
    // client offers h2c) hands over the raw stream, which ends only when the
    // connection does.
    let read = match request.body_length() {
        Some(length) => request
            .as_reader()
            .take((length as u64).min(MAX_BODY))
            .read_to_string(&mut body),
        None if matches!(method.as_str(), "POST" | "PUT") => {
            request.as_reader().take(MAX_BODY).read_to_string(&mut body)
        }
        None => Ok(0),
    };
    let result = match read {
        Err(e) => Err(WdError::invalid_argument(format!(
            "cannot read the request: {e}"
        ))),
        Ok(_) => {
            let parsed = if body.trim().is_empty() {
                Ok(Value::Object(Default::default()))
            } else {
                serde_json::from_str(&body)
                    .map_err(|e| WdError::invalid_argument(format!("the body is not JSON: {e}")))
            };
            parsed.and_then(|body| route(&method, &url, &body, sessions))
        }
    };
    let (status, value) = match result {
        Ok(value) => (200, json!({ "value": value })),
        Err(e) => (e.status, e.body()),
    };
    let bytes = serde_json::to_vec(&value).unwrap_or_default();
    let header = tiny_http::Header::from_bytes(
        &b"Content-Type"[..],
        &b"application/json; charset=utf-8"[..],
    )
    .expect("a valid header");
    let response = tiny_http::Response::from_data(bytes)
        .with_status_code(status)
        .with_header(header);
    let _ = request.respond(response);
}

fn session_of(sessions: &Sessions, id: &str) -> Result<Arc<Session>, WdError> {
    sessions
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(id)
        .cloned()
        .ok_or_else(|| {
            WdError::new(
                404,
                "invalid session id",
                format!("no session `{id}`: it was deleted, or never made here"),
            )
        })
}

fn route(method: &str, url: &str, body: &Value, sessions: &Sessions) -> WdResult {
    let path = url.split('?').next().unwrap_or("");
    // Old Appium clients put everything under /wd/hub.
    let path = path.strip_prefix("/wd/hub").unwrap_or(path);
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    match (method, parts.as_slice()) {
        ("GET", ["status"]) => {
            let count = sessions.lock().unwrap_or_else(|p| p.into_inner()).len();
            Ok(json!({
                "ready": true,
                "message": "uidrive webdriver is ready",
                "sessions": count,
                "build": { "version": env!("CARGO_PKG_VERSION"), "name": "uidrive" },
            }))
        }
        ("POST", ["session"]) => {
            let caps = session::capabilities(body)?;
            let session = Session::create(caps)?;
            let id = new_id();
            let caps = session.capabilities().clone();
            sessions
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(id.clone(), Arc::new(session));
            Ok(json!({ "sessionId": id, "capabilities": caps }))
        }
        ("GET", ["sessions"]) => {
            let all = sessions.lock().unwrap_or_else(|p| p.into_inner());
            Ok(Value::Array(
                all.iter()
                    .map(|(id, s)| json!({"id": id, "capabilities": s.capabilities()}))
                    .collect(),
            ))
        }
        (_, ["session", id, rest @ ..]) => {
            if method == "DELETE" && rest.is_empty() {
                let session = sessions
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(*id);
                return match session {
                    Some(s) => {
                        s.close()?;
                        Ok(Value::Null)
                    }
                    None => Err(session_of(sessions, id).err().unwrap_or_else(|| {
                        WdError::new(404, "invalid session id", "no such session")
                    })),
                };
            }
            let s = session_of(sessions, id)?;
            session_command(&s, method, rest, body)
        }
        _ => Err(unknown(method, path)),
    }
}

fn unknown(method: &str, path: &str) -> WdError {
    WdError::new(
        404,
        "unknown command",
        format!("{method} {path} is not a command uidrive webdriver knows (see docs/webdriver.md)"),
    )
}

fn session_command(s: &Session, method: &str, rest: &[&str], body: &Value) -> WdResult {
    match (method, rest) {
        ("GET", []) => Ok(s.capabilities().clone()),
        ("GET", ["timeouts"]) => s.timeouts(),
        ("POST", ["timeouts"]) => s.set_timeouts(body),
        ("POST", ["element"]) => s.find(None, body, false),
        ("POST", ["elements"]) => s.find(None, body, true),
        ("GET", ["element", "active"]) => s.active(),
        ("POST", ["element", id, "element"]) => s.find(Some(id), body, false),
        ("POST", ["element", id, "elements"]) => s.find(Some(id), body, true),
        ("POST", ["element", id, cmd @ ("click" | "clear" | "value")]) => {
            s.element_command(id, cmd, None, body)
        }
        (
            "GET",
            ["element", id, cmd @ ("text" | "name" | "selected" | "enabled" | "displayed" | "rect" | "screenshot"
            | "computedrole" | "computedlabel")],
        ) => s.element_command(id, cmd, None, body),
        ("GET", ["element", id, cmd @ ("attribute" | "property" | "css"), name]) => {
            s.element_command(id, cmd, Some(name), body)
        }
        ("GET", ["source"]) => s.source(),
        ("GET", ["screenshot"]) => s.screenshot(),
        ("GET", ["title"]) => s.title(),
        ("GET", ["window"]) => s.window_handle(),
        ("GET", ["window", "handles"]) => s.window_handles(),
        ("POST", ["window"]) => s.switch_window(body),
        ("GET", ["window", "rect"]) => s.window_rect(),
        ("POST", ["window", "rect"]) => s.set_window_rect(body),
        ("POST", ["window", op @ ("maximize" | "minimize" | "fullscreen")]) => s.window_state(op),
        ("DELETE", ["window"]) => Err(WdError::unsupported(
            "closing one window is not in uidrive; delete the session to close the app",
        )),
        ("POST", ["actions"]) => s.perform(body),
        ("DELETE", ["actions"]) => s.release(),
        ("POST", ["execute", "sync" | "async"]) => s.execute(body),
        _ => Err(unknown(method, &format!("/session/…/{}", rest.join("/")))),
    }
}
