//! A person's Wayland session (GNOME, KDE Plasma): real input and captures
//! through the desktop portal, since such compositors offer no virtual
//! input or screencopy protocol to clients.
//!
//! One portal session per session bus, for the life of the process
//! ([`Portal::for_bus`]), so the person is asked to consent once:
//! `org.freedesktop.portal.RemoteDesktop` with keyboard and pointer, and a
//! `ScreenCast` stream of one monitor in the same session (the portal maps
//! absolute pointer positions through a stream). Frames come over PipeWire:
//! a `gst-launch-1.0 pipewiresrc` child is handed the portal's PipeWire
//! descriptor and writes one raw frame. Each failure says what to enable:
//! no portal, a portal without RemoteDesktop, consent refused, no PipeWire
//! or no GStreamer PipeWire plugin.

use std::collections::HashMap;
use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use uidrive_core::protocol::{Capture, InputEvent, Modifier, MouseButton, PointerButton};
use uidrive_core::{Error, ErrorCode, Result};
use zbus::zvariant::{OwnedObjectPath, OwnedValue, Value};
use zbus::{Connection, MatchRule, MessageStream};

const PORTAL: &str = "org.freedesktop.portal.Desktop";
const PORTAL_PATH: &str = "/org/freedesktop/portal/desktop";
const REMOTE_DESKTOP: &str = "org.freedesktop.portal.RemoteDesktop";
const SCREEN_CAST: &str = "org.freedesktop.portal.ScreenCast";
/// How long the person has to answer the portal's dialog.
pub const CONSENT_TIMEOUT: Duration = Duration::from_secs(120);
/// How long a call to the portal that asks nobody may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(25);
/// How long one frame may take to come over PipeWire.
const FRAME_TIMEOUT: Duration = Duration::from_secs(20);
/// `linux/input-event-codes.h`.
const BTN_LEFT: i32 = 0x110;
const BTN_RIGHT: i32 = 0x111;
const BTN_MIDDLE: i32 = 0x112;
/// DIPs scrolled by one wheel click, as on X11 and sway.
const WHEEL_DIPS_PER_CLICK: f64 = crate::WHEEL_DIPS_PER_CLICK;
/// RemoteDesktop device types: keyboard | pointer.
const KEYBOARD: u32 = 1;
const POINTER: u32 = 2;
/// ScreenCast source types.
const SOURCE_MONITOR: u32 = 1;
const SOURCE_WINDOW: u32 = 2;

/// The ScreenCast stream of the session: what the pointer's absolute
/// positions and the captures count from.
#[derive(Debug, Clone, Copy)]
pub struct Stream {
    /// The PipeWire node.
    pub node: u32,
    /// 1: a monitor, 2: a window (the person chose it in the dialog).
    pub source_type: u32,
    /// Its size in the compositor's logical pixels.
    pub width: u32,
    pub height: u32,
}

impl Stream {
    /// Whether the stream shows one window rather than a whole monitor.
    pub fn is_window(&self) -> bool {
        self.source_type == SOURCE_WINDOW
    }
}

/// The portal of one session bus, and the session consented to (once).
pub struct Portal {
    bus: String,
    runtime: tokio::runtime::Runtime,
    session: Mutex<Option<Session>>,
}

struct Session {
    conn: Connection,
    handle: OwnedObjectPath,
    stream: Stream,
    /// Keysyms and buttons held down now, in the order they went down.
    held_keys: Vec<i32>,
    held_buttons: Vec<i32>,
}

/// The portal of each session bus this process used.
fn portals() -> &'static Mutex<HashMap<String, Arc<Portal>>> {
    static PORTALS: OnceLock<Mutex<HashMap<String, Arc<Portal>>>> = OnceLock::new();
    PORTALS.get_or_init(Default::default)
}

impl Portal {
    /// The portal of the session bus at `bus` (`DBUS_SESSION_BUS_ADDRESS`).
    /// Nothing is asked of the person until the first input or capture.
    pub fn for_bus(bus: &str) -> Result<Arc<Portal>> {
        let mut all = portals().lock().unwrap_or_else(|p| p.into_inner());
        if let Some(portal) = all.get(bus) {
            return Ok(portal.clone());
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("uidrive-portal")
            .enable_all()
            .build()
            .map_err(|e| Error::failed(format!("could not start the portal's runtime: {e}")))?;
        let portal = Arc::new(Portal {
            bus: bus.to_string(),
            runtime,
            session: Mutex::new(None),
        });
        all.insert(bus.to_string(), portal.clone());
        Ok(portal)
    }

    /// Runs `work` on the portal's runtime from any thread.
    fn run<T: Send + 'static>(
        &self,
        work: impl std::future::Future<Output = Result<T>> + Send + 'static,
    ) -> Result<T> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.runtime.spawn(async move {
            let _ = tx.send(work.await);
        });
        rx.recv().unwrap_or_else(|_| {
            Err(Error::failed(
                "uidrive's portal client failed inside (a bug: it panicked; its message is on stderr)",
            ))
        })
    }

    /// The session's stream, starting the session (and asking the person)
    /// if there is none yet.
    pub fn stream(&self) -> Result<Stream> {
        self.with_session(|s| Ok(s.stream))
    }

    fn with_session<T>(&self, f: impl FnOnce(&mut Session) -> Result<T>) -> Result<T> {
        let mut slot = self.session.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            let bus = self.bus.clone();
            *slot = Some(self.run(async move { Session::start(&bus).await })?);
        }
        let session = slot.as_mut().expect("just started");
        let done = f(session);
        // A session the portal closed (the person stopped sharing) is asked for again next time.
        if matches!(&done, Err(e) if e.code == ErrorCode::Disconnected) {
            *slot = None;
        }
        done
    }

    /// Sends `events` as real input through the portal. Their coordinates
    /// count from `origin`, in the stream's pixels; keys go where the
    /// compositor's keyboard focus is. Keys and buttons the events leave
    /// down are released at the end unless `hold`.
    pub fn send_input(&self, origin: (f64, f64), events: &[InputEvent], hold: bool) -> Result<()> {
        check_typable(events)?;
        let events = events.to_vec();
        self.with_session(|session| {
            let conn = session.conn.clone();
            let handle = session.handle.clone();
            let stream = session.stream;
            let held = (session.held_keys.clone(), session.held_buttons.clone());
            let (sent, held) = self.run(async move {
                let mut sender = Sender {
                    conn,
                    handle,
                    stream,
                    held_keys: held.0.clone(),
                    held_buttons: held.1.clone(),
                };
                let mut sent = Ok(());
                for event in &events {
                    sent = sender.event(origin, event).await;
                    if sent.is_err() {
                        break;
                    }
                }
                if !hold || sent.is_err() {
                    let released = sender.release_all_but(&held.0, &held.1).await;
                    sent = sent.and(released);
                }
                Ok((sent, (sender.held_keys, sender.held_buttons)))
            })?;
            session.held_keys = held.0;
            session.held_buttons = held.1;
            sent
        })
    }

    /// Captures a rectangle of the stream (its pixels) as PNG, from one
    /// frame of the ScreenCast stream over PipeWire.
    pub fn capture_rect(&self, x: i32, y: i32, width: u32, height: u32) -> Result<Capture> {
        self.with_session(|session| {
            let conn = session.conn.clone();
            let handle = session.handle.clone();
            let stream = session.stream;
            let fd = self.run(async move { open_pipewire_remote(&conn, &handle).await })?;
            let frame = read_frame(fd, stream)?;
            crop_png(&frame, stream, x, y, width, height)
        })
    }
}

fn portal_error(doing: &str, e: impl std::fmt::Display) -> Error {
    Error::failed(format!("the desktop portal failed {doing}: {e}"))
        .with_suggestion("check that xdg-desktop-portal and its desktop's backend run in the session (journalctl --user -u xdg-desktop-portal)")
}

impl Session {
    /// Checks what the session offers, then asks the person: CreateSession,
    /// SelectDevices (keyboard, pointer), SelectSources (one monitor),
    /// Start (the consent dialog).
    async fn start(bus: &str) -> Result<Session> {
        let conn = zbus::connection::Builder::address(bus)
            .map(|b| b.method_timeout(CALL_TIMEOUT))
            .map_err(|e| portal_error("to connect", e))?
            .build()
            .await
            .map_err(|e| {
                Error::failed(format!("cannot connect to the session bus {bus}: {e}"))
                    .with_suggestion(
                        "run uidrive in the person's session (its DBUS_SESSION_BUS_ADDRESS)",
                    )
            })?;
        check_portal(&conn).await?;
        let types: u32 = portal_property(&conn, REMOTE_DESKTOP, "AvailableDeviceTypes").await?;
        if types & (KEYBOARD | POINTER) != KEYBOARD | POINTER {
            return Err(Error::unsupported(format!(
                "the desktop portal's RemoteDesktop offers device types {types}, not both keyboard (1) and pointer (2)"
            ))
            .with_suggestion("use a desktop whose portal backend offers remote input (xdg-desktop-portal-gnome or xdg-desktop-portal-kde)"));
        }
        let sources: u32 = portal_property(&conn, SCREEN_CAST, "AvailableSourceTypes").await?;
        if sources & SOURCE_MONITOR == 0 {
            return Err(Error::unsupported(
                "the desktop portal's ScreenCast cannot share a monitor, which input at positions and captures need",
            )
            .with_suggestion("use a desktop whose portal backend shares monitors (xdg-desktop-portal-gnome or xdg-desktop-portal-kde)"));
        }
        let created = request(
            &conn,
            REMOTE_DESKTOP,
            "CreateSession",
            |token| {
                let mut options = options(token);
                options.insert("session_handle_token", Value::from("uidrive"));
                (options,)
            },
            CALL_TIMEOUT,
        )
        .await?;
        let handle: String = take(&created, "session_handle")?;
        let handle = OwnedObjectPath::try_from(handle)
            .map_err(|e| portal_error("to name the session", e))?;
        // RemoteDesktop 2 (xdg-desktop-portal 1.18) can keep the consent
        // past this process: a token the next process shows instead of asking.
        let version: u32 = portal_property(&conn, REMOTE_DESKTOP, "version")
            .await
            .unwrap_or(1);
        let restore = (version >= 2).then(|| std::fs::read_to_string(token_file()?).ok());
        let h = handle.clone();
        request(
            &conn,
            REMOTE_DESKTOP,
            "SelectDevices",
            move |token| {
                let mut options = options(token);
                options.insert("types", Value::from(KEYBOARD | POINTER));
                if let Some(kept) = restore {
                    // 2: kept until the person revokes it.
                    options.insert("persist_mode", Value::from(2u32));
                    if let Some(kept) = kept {
                        options.insert("restore_token", Value::from(kept.trim().to_string()));
                    }
                }
                (h.clone(), options)
            },
            CALL_TIMEOUT,
        )
        .await?;
        let h = handle.clone();
        request(
            &conn,
            SCREEN_CAST,
            "SelectSources",
            move |token| {
                let mut options = options(token);
                options.insert(
                    "types",
                    Value::from(SOURCE_MONITOR | (sources & SOURCE_WINDOW)),
                );
                options.insert("multiple", Value::from(false));
                (h.clone(), options)
            },
            CALL_TIMEOUT,
        )
        .await?;
        let h = handle.clone();
        let started = request(
            &conn,
            REMOTE_DESKTOP,
            "Start",
            move |token| (h.clone(), "", options(token)),
            CONSENT_TIMEOUT,
        )
        .await?;
        if let (Ok(kept), Some(file)) = (take::<String>(&started, "restore_token"), token_file()) {
            // Best effort: without it the next process asks again.
            let _ = file
                .parent()
                .map(std::fs::create_dir_all)
                .and_then(|_| std::fs::write(&file, kept).ok());
        }
        let devices: u32 = take(&started, "devices").unwrap_or(0);
        let streams: Vec<(u32, HashMap<String, OwnedValue>)> =
            take(&started, "streams").unwrap_or_default();
        if devices & (KEYBOARD | POINTER) != KEYBOARD | POINTER {
            close(&conn, &handle).await;
            return Err(Error::unsupported(format!(
                "the person shared the screen but did not allow remote interaction (devices {devices}): uidrive cannot send keys and pointer input"
            ))
            .with_suggestion("answer the portal's dialog again allowing remote interaction (GNOME: the \"Allow remote interaction\" switch)"));
        }
        let Some((node, props)) = streams.into_iter().next() else {
            close(&conn, &handle).await;
            return Err(Error::unsupported(
                "the portal started the session without a screen stream, which input at positions and captures need",
            )
            .with_suggestion("choose a screen (or the app's window) in the portal's dialog"));
        };
        let source_type = props
            .get("source_type")
            .and_then(|v| u32::try_from(v).ok())
            .unwrap_or(SOURCE_MONITOR);
        let (width, height) = props
            .get("size")
            .and_then(|v| <(i32, i32)>::try_from(v.try_clone().ok()?).ok())
            .ok_or_else(|| {
                Error::failed("the portal's screen stream has no size").with_suggestion(
                    "report it: xdg-desktop-portal's ScreenCast streams carry their size",
                )
            })?;
        // A compositor with no keyboard of its own (a headless GNOME) adds
        // the portal's virtual keyboard to its seat on its first key, and
        // only then tells a window that it has the keyboard focus; that
        // first key is lost. A Shift tap now, so the first key sent is not.
        for down in [1u32, 0] {
            let no_options: HashMap<&str, Value> = HashMap::new();
            conn.call_method(
                Some(PORTAL),
                PORTAL_PATH,
                Some(REMOTE_DESKTOP),
                "NotifyKeyboardKeysym",
                &(&handle, no_options, modifier_keysym(Modifier::Shift), down),
            )
            .await
            .map_err(|e| portal_error("to take a key", e))?;
        }
        Ok(Session {
            conn,
            handle,
            stream: Stream {
                node,
                source_type,
                width: width.max(0) as u32,
                height: height.max(0) as u32,
            },
            held_keys: Vec::new(),
            held_buttons: Vec::new(),
        })
    }
}

/// Where the portal's restore token is kept between processes.
fn token_file() -> Option<std::path::PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".local/state")))?;
    Some(state.join("uidrive").join("portal-restore-token"))
}

fn options(token: &str) -> HashMap<&'static str, Value<'static>> {
    let mut options = HashMap::new();
    options.insert("handle_token", Value::from(token.to_string()));
    options
}

/// Fails at once when no portal runs (or can be started) on the bus, or
/// when it has no RemoteDesktop.
async fn check_portal(conn: &Connection) -> Result<()> {
    let dbus = zbus::fdo::DBusProxy::new(conn)
        .await
        .map_err(|e| portal_error("to be looked for", e))?;
    let name = zbus::names::BusName::try_from(PORTAL).expect("a valid name");
    let running = dbus.name_has_owner(name).await.unwrap_or(false);
    let activatable = dbus
        .list_activatable_names()
        .await
        .map(|names| names.iter().any(|n| n.as_str() == PORTAL))
        .unwrap_or(false);
    if !running && !activatable {
        return Err(Error::unsupported(
            "no desktop portal on the session bus (org.freedesktop.portal.Desktop is neither running nor activatable): on a Wayland session without uidrive's own compositor, real input and captures go through it",
        )
        .with_suggestion("install xdg-desktop-portal with the desktop's backend (xdg-desktop-portal-gnome on GNOME, xdg-desktop-portal-kde on KDE Plasma) and log in again; or run the app on uidrive's headless desktop"));
    }
    Ok(())
}

/// A property of a portal interface; a portal without the interface fails
/// naming it.
async fn portal_property<T>(conn: &Connection, iface: &'static str, name: &str) -> Result<T>
where
    T: TryFrom<OwnedValue>,
{
    let reply = conn
        .call_method(
            Some(PORTAL),
            PORTAL_PATH,
            Some("org.freedesktop.DBus.Properties"),
            "Get",
            &(iface, name),
        )
        .await;
    let value: OwnedValue = match reply {
        Ok(msg) => msg
            .body()
            .deserialize()
            .map_err(|e| portal_error("to answer", e))?,
        Err(e) => {
            let short = iface.rsplit('.').next().unwrap_or(iface);
            return Err(Error::unsupported(format!(
                "the desktop portal offers no {short} ({iface}: {e}); real input and captures on this Wayland session need RemoteDesktop and ScreenCast"
            ))
            .with_suggestion("install the portal backend of the desktop that implements them (xdg-desktop-portal-gnome on GNOME, xdg-desktop-portal-kde on KDE Plasma; xdg-desktop-portal-gtk and -wlr have no RemoteDesktop) and check XDG_CURRENT_DESKTOP names that desktop"));
        }
    };
    T::try_from(value).map_err(|_| {
        portal_error(
            "to answer",
            format!("{iface}.{name} has an unexpected type"),
        )
    })
}

/// A value of a portal response.
fn take<T: TryFrom<OwnedValue>>(results: &HashMap<String, OwnedValue>, key: &str) -> Result<T> {
    let value = results
        .get(key)
        .ok_or_else(|| portal_error("to answer", format!("its response has no {key}")))?;
    let value = value
        .try_clone()
        .map_err(|e| portal_error("to answer", e))?;
    T::try_from(value)
        .map_err(|_| portal_error("to answer", format!("its {key} has an unexpected type")))
}

/// Calls a portal method that answers through a Request object's
/// `Response` signal, and waits for the answer (up to `limit`).
async fn request<B>(
    conn: &Connection,
    iface: &'static str,
    method: &'static str,
    body: impl FnOnce(&str) -> B,
    limit: Duration,
) -> Result<HashMap<String, OwnedValue>>
where
    B: serde::Serialize + zbus::zvariant::DynamicType,
{
    static TOKENS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let token = format!(
        "uidrive{}",
        TOKENS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let sender = conn
        .unique_name()
        .map(|n| n.trim_start_matches(':').replace('.', "_"))
        .unwrap_or_default();
    let path = format!("{PORTAL_PATH}/request/{sender}/{token}");
    // Listen before calling: the answer may come before the call returns.
    let rule = MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .interface("org.freedesktop.portal.Request")
        .and_then(|b| b.member("Response"))
        .and_then(|b| b.path(path.as_str()))
        .map_err(|e| portal_error("to be listened to", e))?
        .build();
    let mut responses = MessageStream::for_match_rule(rule, conn, Some(4))
        .await
        .map_err(|e| portal_error("to be listened to", e))?;
    conn.call_method(
        Some(PORTAL),
        PORTAL_PATH,
        Some(iface),
        method,
        &body(&token),
    )
    .await
    .map_err(|e| portal_error(&format!("{iface}.{method}"), e))?;
    let answer = tokio::time::timeout(limit, responses.next()).await;
    let msg = match answer {
        Err(_) if method == "Start" => {
            return Err(Error::timeout(format!(
                "nobody answered the desktop portal's dialog asking to allow remote control of the screen within {} s",
                limit.as_secs()
            ))
            .with_suggestion("answer the dialog (\"Share\", with remote interaction allowed); it is asked once per uidrive process"))
        }
        Err(_) => {
            return Err(Error::timeout(format!(
                "the desktop portal did not answer {iface}.{method} within {} s",
                limit.as_secs()
            )))
        }
        Ok(None) => return Err(Error::disconnected("the session bus closed while waiting for the portal")),
        Ok(Some(msg)) => msg.map_err(|e| portal_error("to answer", e))?,
    };
    let (code, results): (u32, HashMap<String, OwnedValue>) = msg
        .body()
        .deserialize()
        .map_err(|e| portal_error("to answer", e))?;
    match code {
        0 => Ok(results),
        1 => Err(Error::unsupported(
            "the person refused the desktop portal's request to control the screen (they cancelled its dialog)",
        )
        .with_suggestion("answer the dialog with \"Share\" and remote interaction allowed; uidrive asks again on the next input or capture")),
        _ if method == "Start" => Err(Error::failed(format!(
            "the desktop portal could not start the remote desktop session ({iface}.{method} ended with code {code})"
        ))
        .with_suggestion("check that PipeWire runs in the session (pipewire and wireplumber, e.g. systemctl --user start pipewire wireplumber): screen sharing needs it; the portal's log says more")),
        _ => Err(Error::failed(format!(
            "the desktop portal ended {iface}.{method} with code {code}"
        ))
        .with_suggestion("the portal's log (journalctl --user -u xdg-desktop-portal) says why")),
    }
}

async fn close(conn: &Connection, handle: &OwnedObjectPath) {
    let _ = conn
        .call_method(
            Some(PORTAL),
            handle.as_str(),
            Some("org.freedesktop.portal.Session"),
            "Close",
            &(),
        )
        .await;
}

async fn open_pipewire_remote(conn: &Connection, handle: &OwnedObjectPath) -> Result<OwnedFd> {
    let no_options: HashMap<&str, Value> = HashMap::new();
    let reply = conn
        .call_method(
            Some(PORTAL),
            PORTAL_PATH,
            Some(SCREEN_CAST),
            "OpenPipeWireRemote",
            &(handle, no_options),
        )
        .await
        .map_err(|e| {
            Error::failed(format!("the desktop portal could not open PipeWire: {e}")).with_suggestion(
                "start PipeWire in the session (pipewire and wireplumber): the portal's screen stream comes over it",
            )
        })?;
    let fd: zbus::zvariant::OwnedFd = reply
        .body()
        .deserialize()
        .map_err(|e| portal_error("to hand over PipeWire", e))?;
    Ok(fd.into())
}

/// Sends input events over the session.
struct Sender {
    conn: Connection,
    handle: OwnedObjectPath,
    stream: Stream,
    held_keys: Vec<i32>,
    held_buttons: Vec<i32>,
}

impl Sender {
    async fn notify<B>(&self, method: &'static str, body: B) -> Result<()>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType,
    {
        self.conn
            .call_method(
                Some(PORTAL),
                PORTAL_PATH,
                Some(REMOTE_DESKTOP),
                method,
                &body,
            )
            .await
            .map(|_| ())
            .map_err(|e| {
                let text = e.to_string();
                // The person stopped sharing, or the portal closed the session.
                if text.contains("session") || text.contains("Session") {
                    Error::disconnected(format!(
                        "the desktop portal's remote desktop session ended ({method}: {text})"
                    ))
                    .with_suggestion("try again: uidrive asks the person for a new session")
                } else {
                    portal_error(method, text)
                }
            })
    }

    fn none() -> HashMap<&'static str, Value<'static>> {
        HashMap::new()
    }

    async fn motion(&self, origin: (f64, f64), x: f64, y: f64) -> Result<()> {
        let (w, h) = (f64::from(self.stream.width), f64::from(self.stream.height));
        let (ax, ay) = (origin.0 + x, origin.1 + y);
        if !(0.0..w).contains(&ax) || !(0.0..h).contains(&ay) {
            return Err(Error::new(
                ErrorCode::NotActionable,
                format!(
                    "the point ({ax:.0}, {ay:.0}) is outside the screen the portal shares ({}x{})",
                    self.stream.width, self.stream.height
                ),
            )
            .with_suggestion("bring the element into view on the shared screen"));
        }
        self.notify(
            "NotifyPointerMotionAbsolute",
            (&self.handle, Self::none(), self.stream.node, ax, ay),
        )
        .await
    }

    async fn button(&mut self, button: i32, down: bool) -> Result<()> {
        self.notify(
            "NotifyPointerButton",
            (&self.handle, Self::none(), button, u32::from(down)),
        )
        .await?;
        if down && !self.held_buttons.contains(&button) {
            self.held_buttons.push(button);
        } else if !down {
            self.held_buttons.retain(|&b| b != button);
        }
        Ok(())
    }

    async fn key(&mut self, keysym: i32, down: bool) -> Result<()> {
        self.notify(
            "NotifyKeyboardKeysym",
            (&self.handle, Self::none(), keysym, u32::from(down)),
        )
        .await?;
        if down && !self.held_keys.contains(&keysym) {
            self.held_keys.push(keysym);
        } else if !down {
            self.held_keys.retain(|&k| k != keysym);
        }
        Ok(())
    }

    /// Presses the modifiers not held yet; answers those it pressed.
    async fn press_mods(&mut self, mods: &[Modifier]) -> Result<Vec<i32>> {
        let mut pressed = Vec::new();
        for m in mods {
            let sym = modifier_keysym(*m);
            if !self.held_keys.contains(&sym) {
                self.key(sym, true).await?;
                pressed.push(sym);
            }
        }
        Ok(pressed)
    }

    async fn release(&mut self, syms: &[i32]) -> Result<()> {
        for &sym in syms.iter().rev() {
            self.key(sym, false).await?;
        }
        Ok(())
    }

    async fn event(&mut self, origin: (f64, f64), event: &InputEvent) -> Result<()> {
        match event {
            InputEvent::PointerMove { x, y, mods } => {
                let pressed = self.press_mods(mods).await?;
                let moved = self.motion(origin, *x, *y).await;
                self.release(&pressed).await.and(moved)
            }
            InputEvent::PointerDown(p) => {
                self.press_mods(&p.mods).await?;
                self.motion(origin, p.x, p.y).await?;
                self.button(button_code(p), true).await
            }
            InputEvent::PointerUp(p) => {
                self.motion(origin, p.x, p.y).await?;
                self.button(button_code(p), false).await?;
                let syms: Vec<i32> = p.mods.iter().map(|m| modifier_keysym(*m)).collect();
                let held: Vec<i32> = syms
                    .into_iter()
                    .filter(|s| self.held_keys.contains(s))
                    .collect();
                self.release(&held).await
            }
            InputEvent::Click(p) => {
                let pressed = self.press_mods(&p.mods).await?;
                self.motion(origin, p.x, p.y).await?;
                let button = button_code(p);
                for _ in 0..p.clicks().clamp(1, 3) {
                    self.button(button, true).await?;
                    self.button(button, false).await?;
                }
                self.release(&pressed).await
            }
            InputEvent::Wheel {
                x, y, dx, dy, mods, ..
            } => {
                let pressed = self.press_mods(mods).await?;
                self.motion(origin, *x, *y).await?;
                // Axis 0 is vertical, 1 horizontal; positive steps scroll down and right.
                for (delta, axis) in [(*dy, 0u32), (*dx, 1u32)] {
                    let steps = wheel_steps(delta);
                    if steps != 0 {
                        self.notify(
                            "NotifyPointerAxisDiscrete",
                            (&self.handle, Self::none(), axis, steps),
                        )
                        .await?;
                    }
                }
                self.release(&pressed).await
            }
            InputEvent::KeyDown { key } => {
                self.press_mods(&key.mods).await?;
                let sym = crate::keymap::chord_keysym(key)? as i32;
                if !self.held_keys.contains(&sym) {
                    self.key(sym, true).await?;
                }
                Ok(())
            }
            InputEvent::KeyUp { key } => {
                let sym = crate::keymap::chord_keysym(key)? as i32;
                if self.held_keys.contains(&sym) {
                    self.key(sym, false).await?;
                }
                let mods: Vec<i32> = key
                    .mods
                    .iter()
                    .map(|m| modifier_keysym(*m))
                    .filter(|s| self.held_keys.contains(s))
                    .collect();
                self.release(&mods).await
            }
            InputEvent::Key { key } => {
                let sym = crate::keymap::chord_keysym(key)? as i32;
                let pressed = self.press_mods(&key.mods).await?;
                self.key(sym, true).await?;
                self.key(sym, false).await?;
                self.release(&pressed).await
            }
            InputEvent::Text { text } => {
                for c in text.chars() {
                    let sym = crate::keymap::char_keysym(c)? as i32;
                    self.key(sym, true).await?;
                    self.key(sym, false).await?;
                }
                Ok(())
            }
        }
    }

    async fn release_all_but(&mut self, keys_before: &[i32], buttons_before: &[i32]) -> Result<()> {
        let buttons: Vec<i32> = self
            .held_buttons
            .iter()
            .copied()
            .filter(|b| !buttons_before.contains(b))
            .collect();
        for b in buttons.into_iter().rev() {
            self.button(b, false).await?;
        }
        let keys: Vec<i32> = self
            .held_keys
            .iter()
            .copied()
            .filter(|k| !keys_before.contains(k))
            .collect();
        self.release(&keys).await
    }
}

/// Refuses text the person's keyboard layout may lack, before any key is
/// sent. The portal sends keysyms, which the compositor types through the
/// session's layout; GNOME drops a keysym its layout lacks without a word
/// (mutter 43 types none of "ñ €" on a US layout), and a client cannot
/// read the layout before the portal's keyboard is on the seat.
fn check_typable(events: &[InputEvent]) -> Result<()> {
    for event in events {
        if let InputEvent::Text { text } = event {
            if let Some(c) = text.chars().find(|c| !(c.is_ascii_graphic() || *c == ' ')) {
                return Err(Error::unsupported(format!(
                    "on a person's Wayland session uidrive types through the desktop portal, whose keys go through the session's keyboard layout; {c:?} (U+{:04X}) may not be on it and would be dropped without a word, so nothing was typed",
                    c as u32
                ))
                .with_suggestion("type printable ASCII only, or set such text through accessibility (act setValue or insertText), which needs no keyboard"));
            }
        }
    }
    Ok(())
}

fn modifier_keysym(m: Modifier) -> i32 {
    match m {
        Modifier::Shift => 0xffe1,
        Modifier::Ctrl | Modifier::CmdOrCtrl => 0xffe3,
        Modifier::Alt => 0xffe9,
        Modifier::Super => 0xffeb,
    }
}

fn button_code(p: &PointerButton) -> i32 {
    match p.button() {
        MouseButton::Left => BTN_LEFT,
        MouseButton::Middle => BTN_MIDDLE,
        MouseButton::Right => BTN_RIGHT,
    }
}

/// Wheel clicks for `delta` DIPs, signed (as on X11).
fn wheel_steps(delta: f64) -> i32 {
    if delta == 0.0 || !delta.is_finite() {
        return 0;
    }
    let clicks = (delta.abs() / WHEEL_DIPS_PER_CLICK).round().max(1.0) as i32;
    if delta < 0.0 {
        -clicks
    } else {
        clicks
    }
}

/// One frame of the stream as RGB, `stream.width` x `stream.height`: a
/// `gst-launch-1.0` child connects to PipeWire through `fd` (the portal's
/// remote, which shows it the session's stream alone) and writes the frame
/// to its stdout.
fn read_frame(fd: OwnedFd, stream: Stream) -> Result<Vec<u8>> {
    use std::os::unix::process::CommandExt;
    const CHILD_FD: i32 = 3;
    let caps = format!(
        "video/x-raw,format=RGB,width={},height={}",
        stream.width, stream.height
    );
    let mut command = Command::new("gst-launch-1.0");
    command
        .args(["-q", "pipewiresrc"])
        .arg(format!("fd={CHILD_FD}"))
        .arg(format!("path={}", stream.node))
        .args([
            "num-buffers=1",
            "always-copy=true",
            "!",
            "videoconvert",
            "!",
            "videoscale",
            "!",
        ])
        .arg(caps)
        .args(["!", "fdsink", "fd=1"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let raw = fd.as_raw_fd();
    // SAFETY: only async-signal-safe calls between fork and exec; dup2
    // leaves the new descriptor without close-on-exec.
    unsafe {
        command.pre_exec(move || {
            if libc::dup2(raw, CHILD_FD) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = command.spawn().map_err(|e| {
        Error::unsupported(format!(
            "cannot run gst-launch-1.0, which reads the portal's screen stream over PipeWire: {e}"
        ))
        .with_suggestion(
            "install gstreamer1.0-tools and gstreamer1.0-pipewire (GStreamer's PipeWire plugin)",
        )
    })?;
    drop(fd);
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stdout.read_to_end(&mut bytes);
        bytes
    });
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let deadline = Instant::now() + FRAME_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let bytes = reader.join().unwrap_or_default();
    let errors = errors.join().unwrap_or_default();
    let want = stream.width as usize * stream.height as usize * 3;
    match status {
        None => Err(Error::timeout(format!(
            "no frame came over PipeWire from the portal's screen stream within {} s",
            FRAME_TIMEOUT.as_secs()
        ))
        .with_suggestion("check that PipeWire and wireplumber run in the session")),
        Some(_) if errors.contains("no element \"pipewiresrc\"") => Err(Error::unsupported(
            "GStreamer has no pipewiresrc element, which reads the portal's screen stream",
        )
        .with_suggestion("install gstreamer1.0-pipewire")),
        Some(status) if !status.success() || bytes.len() < want => Err(Error::failed(format!(
            "reading a frame of the portal's screen stream over PipeWire failed ({status}, {} of {want} bytes): {}",
            bytes.len(),
            errors.trim()
        ))
        .with_suggestion("check that PipeWire runs in the session (pipewire and wireplumber)")),
        Some(_) => Ok(bytes),
    }
}

/// The rectangle of an RGB frame of the stream's size, as PNG.
fn crop_png(
    frame: &[u8],
    stream: Stream,
    x: i32,
    y: i32,
    width: u32,
    height: u32,
) -> Result<Capture> {
    let (fw, fh) = (stream.width as i64, stream.height as i64);
    let (x0, y0) = (i64::from(x).max(0), i64::from(y).max(0));
    let x1 = (i64::from(x) + i64::from(width)).min(fw);
    let y1 = (i64::from(y) + i64::from(height)).min(fh);
    if x1 <= x0 || y1 <= y0 {
        return Err(Error::no_window(format!(
            "the window ({x}, {y}, {width}x{height}) is not on the shared screen ({fw}x{fh})"
        )));
    }
    let clipped = (x0, y0, x1, y1)
        != (
            i64::from(x),
            i64::from(y),
            i64::from(x) + i64::from(width),
            i64::from(y) + i64::from(height),
        );
    let (w, h) = ((x1 - x0) as usize, (y1 - y0) as usize);
    let mut rgb = Vec::with_capacity(w * h * 3);
    for row in y0 as usize..y1 as usize {
        let start = (row * fw as usize + x0 as usize) * 3;
        rgb.extend_from_slice(&frame[start..start + w * 3]);
    }
    let png = uidrive_x11::encode_png(w as u32, h as u32, &rgb)?;
    Ok(Capture {
        png,
        width: w as u32,
        height: h as u32,
        clipped,
        extra: serde_json::Map::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_beyond_ascii_is_refused_before_any_key() {
        let text = |t: &str| [InputEvent::Text { text: t.into() }];
        assert!(check_typable(&text("Hello, world ~!")).is_ok());
        let err = check_typable(&text("a ñ")).unwrap_err();
        assert_eq!(err.code, ErrorCode::Unsupported);
        assert!(err.message.contains("U+00F1"), "{err}");
        assert!(check_typable(&text("tab\t")).is_err());
    }

    #[test]
    fn wheel_steps_round_to_clicks_and_keep_the_sign() {
        assert_eq!(wheel_steps(0.0), 0);
        assert_eq!(wheel_steps(30.0), 1);
        assert_eq!(wheel_steps(-250.0), -3);
    }

    #[test]
    fn a_crop_keeps_the_rows_and_columns_asked_for() {
        let stream = Stream {
            node: 1,
            source_type: SOURCE_MONITOR,
            width: 4,
            height: 3,
        };
        let frame: Vec<u8> = (0..36).collect();
        let c = crop_png(&frame, stream, 1, 1, 2, 5).unwrap();
        assert_eq!((c.width, c.height, c.clipped), (2, 2, true));
        assert!(crop_png(&frame, stream, 10, 0, 2, 2).is_err());
    }
}
