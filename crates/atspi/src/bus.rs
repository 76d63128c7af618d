//! The connection to the accessibility bus, and one helper for every call on it.
//!
//! Every call has a deadline, and D-Bus errors become uidrive errors that say
//! whether the app left the bus or only the element went away.

use std::collections::HashMap;
use std::time::Duration;
use uidrive_core::{Error, ErrorCode, Result};
use zbus::zvariant::{DynamicType, OwnedObjectPath, OwnedValue};
use zbus::Connection;

/// How long one D-Bus call may take before the app counts as unresponsive.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// An accessible object: the app's bus name and the object's path.
pub type ObjRef = (String, OwnedObjectPath);

pub const IFACE_ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
pub const IFACE_COMPONENT: &str = "org.a11y.atspi.Component";
pub const IFACE_ACTION: &str = "org.a11y.atspi.Action";
pub const IFACE_TEXT: &str = "org.a11y.atspi.Text";
pub const IFACE_EDITABLE_TEXT: &str = "org.a11y.atspi.EditableText";
pub const IFACE_VALUE: &str = "org.a11y.atspi.Value";
pub const IFACE_TABLE: &str = "org.a11y.atspi.Table";
pub const IFACE_TABLE_CELL: &str = "org.a11y.atspi.TableCell";
pub const IFACE_PROPERTIES: &str = "org.freedesktop.DBus.Properties";

/// Where the session bus and the display are: the caller's overrides first, then the process env.
pub fn env_value(overrides: &[(String, String)], name: &str) -> Option<String> {
    overrides
        .iter()
        .rev()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
        .or_else(|| std::env::var(name).ok())
        .filter(|v| !v.is_empty())
}

/// Opens the accessibility bus of the session whose bus is at `session_address`,
/// switching accessibility on for every toolkit on the way.
pub async fn connect_a11y(session_address: &str, a11y_address: Option<&str>) -> Result<Connection> {
    let session = zbus::connection::Builder::address(session_address)
        .map_err(|e| Error::disconnected(format!("bad session bus address `{session_address}`: {e}")))?
        .method_timeout(CALL_TIMEOUT)
        .build()
        .await
        .map_err(|e| {
            Error::disconnected(format!("could not open the session bus at `{session_address}`: {e}"))
                .with_suggestion("start a D-Bus session (uidrive_x11::Desktop does) and pass its DBUS_SESSION_BUS_ADDRESS")
                .mentioning(uidrive_core::Term::DesktopBus)
        })?;
    // The switch toolkits read to decide whether to talk to assistive technology.
    let _ = session
        .call_method(
            Some("org.a11y.Bus"),
            "/org/a11y/bus",
            Some(IFACE_PROPERTIES),
            "Set",
            &(
                "org.a11y.Status",
                "IsEnabled",
                zbus::zvariant::Value::from(true),
            ),
        )
        .await;
    let address: String = match a11y_address {
        Some(address) => address.to_string(),
        None => session
            .call_method(
                Some("org.a11y.Bus"),
                "/org/a11y/bus",
                Some("org.a11y.Bus"),
                "GetAddress",
                &(),
            )
            .await
            .map_err(|e| {
                Error::disconnected(format!("no accessibility bus on this session: {e}"))
                    .with_suggestion(
                        "install at-spi2-core, whose bus launcher the session bus starts on demand",
                    )
            })?
            .body()
            .deserialize()
            .map_err(|e| Error::protocol(format!("org.a11y.Bus.GetAddress answered oddly: {e}")))?,
    };
    zbus::connection::Builder::address(address.as_str())
        .map_err(|e| {
            Error::disconnected(format!("bad accessibility bus address `{address}`: {e}"))
        })?
        .method_timeout(CALL_TIMEOUT)
        .build()
        .await
        .map_err(|e| {
            Error::disconnected(format!(
                "could not open the accessibility bus at `{address}`: {e}"
            ))
        })
}

/// The way to an app: the bus, or a direct peer connection where the app offers one
/// (GTK 3 does; it skips the bus daemon's routing of every call and answer).
#[derive(Clone)]
pub struct Link {
    pub bus: Connection,
    /// The app's bus name and the peer connection to it.
    pub peer: Option<(String, Connection)>,
    /// A second peer connection, for the fields of a read. The app answers
    /// one message per connection per turn of its main loop, so the few
    /// calls that walk the tree are answered between the hundreds that read
    /// fields instead of queueing behind them.
    pub fields: Option<Connection>,
}

impl Link {
    /// A link over the bus alone.
    pub fn over_bus(bus: Connection) -> Link {
        Link {
            bus,
            peer: None,
            fields: None,
        }
    }

    /// The connection and destination for calls on objects of `dest`.
    pub fn route<'a>(&'a self, dest: &'a str) -> (&'a Connection, &'a str) {
        match &self.peer {
            Some((name, conn)) if name == dest => (conn, ""),
            _ => (&self.bus, dest),
        }
    }

    /// As [`Link::route`], on the connection for a read's fields where there is one.
    pub fn route_fields<'a>(&'a self, dest: &'a str) -> (&'a Connection, &'a str) {
        match (&self.peer, &self.fields) {
            (Some((name, _)), Some(fields)) if name == dest => (fields, ""),
            _ => self.route(dest),
        }
    }
}

/// The app's direct peer connections, if it offers them: one for walking
/// the tree, and one for the fields of a read ([`Link::fields`]), shared by
/// every driver of the process ([`crate::peer_pool`]). The second is opened
/// only for toolkits tested safe for bulk reads (GTK's bridges): Firefox
/// offers the same bridge, but a browser that crashed on reads of an open
/// menu gets no more calls at once than before. Returned with the app's
/// peer address, where [`crate::lanes`] open their own.
pub async fn open_peers(
    conn: &Connection,
    app_bus: &str,
) -> Option<(String, Connection, Option<Connection>)> {
    let address: String = call(
        conn,
        app_bus,
        "/org/a11y/atspi/accessible/root",
        "org.a11y.atspi.Application",
        "GetApplicationBusAddress",
        &(),
    )
    .await
    .ok()?;
    if address.is_empty() {
        return None;
    }
    // The app's own connection is as safe for bulk reads as the app itself.
    let (walk, fields) = crate::peer_pool::peers(&address, bulk(conn, app_bus)).await?;
    Some((address, walk, fields))
}

/// One connection to the app's peer `address`, within 2 s. `bulk` marks
/// the bulk reads the app's server answers without harm; the mark is the
/// server's (its guid), shared by every connection to it, so a connection
/// that makes no reads (an action's lane) passes `None` and leaves it.
pub async fn connect_peer(address: &str, bulk: Option<Bulk>) -> Option<Connection> {
    let connect = async {
        let builder = match socket_file(address) {
            Some(path) => zbus::connection::Builder::socket(crate::peer_socket::BufferedUnix(
                tokio::net::UnixStream::connect(path).await.ok()?,
            )),
            None => zbus::connection::Builder::address(address).ok()?,
        };
        builder
            .p2p()
            .method_timeout(CALL_TIMEOUT)
            .build()
            .await
            .ok()
    };
    let peer = tokio::time::timeout(Duration::from_secs(2), connect)
        .await
        .ok()
        .flatten()?;
    if let Some(bulk) = bulk {
        mark_bulk(&peer, "", bulk);
    }
    Some(peer)
}

/// The socket file a peer address names (GTK's bridge gives `unix:path=...`),
/// to be read in bulk ([`crate::peer_socket`]); other addresses are opened by zbus.
pub fn socket_file(address: &str) -> Option<std::path::PathBuf> {
    use zbus::address::transport::{Transport, UnixSocket};
    let address = zbus::Address::try_from(address).ok()?;
    match address.transport() {
        Transport::Unix(unix) => match unix.path() {
            UnixSocket::File(path) => Some(path.clone()),
            _ => None,
        },
        _ => None,
    }
}

tokio::task_local! {
    /// The first call of a [`strict`] read that the app did not answer.
    static UNANSWERED: std::cell::RefCell<Option<Error>>;
}

/// Runs a read whose optional parts may fail quietly (a property the
/// element lacks), but not because the app stopped answering: the first
/// call that timed out or found the app gone fails the whole read, so a
/// frozen app never yields a tree with holes that looks complete.
pub async fn strict<T>(read: impl std::future::Future<Output = Result<T>>) -> Result<T> {
    UNANSWERED
        .scope(std::cell::RefCell::new(None), async {
            let result = read.await;
            match UNANSWERED.with(|first| first.borrow_mut().take()) {
                Some(unanswered) if result.is_ok() => Err(unanswered),
                _ => result,
            }
        })
        .await
}

/// Calls `iface.method(body)` on `dest` at `path` and decodes the answer as `R`.
pub async fn call<R, B>(
    conn: &Connection,
    dest: &str,
    path: &str,
    iface: &str,
    method: &str,
    body: &B,
) -> Result<R>
where
    R: for<'d> serde::Deserialize<'d> + zbus::zvariant::Type,
    B: serde::Serialize + DynamicType,
{
    // A read's calls wait for a place at the app's gate (crate::gate).
    let _place = crate::gate::place().await;
    // Boxed: a read joins hundreds of calls, and each held inline would make
    // every future around it kilobytes larger, moved and copied as it goes.
    let answer = Box::pin(call_once(conn, dest, path, iface, method, body)).await;
    if let Err(e) = &answer {
        if matches!(
            e.code,
            ErrorCode::Timeout | ErrorCode::AppExited | ErrorCode::Disconnected
        ) {
            let _ = UNANSWERED.try_with(|first| {
                first.borrow_mut().get_or_insert_with(|| e.clone());
            });
        }
    }
    answer
}

async fn call_once<R, B>(
    conn: &Connection,
    dest: &str,
    path: &str,
    iface: &str,
    method: &str,
    body: &B,
) -> Result<R>
where
    R: for<'d> serde::Deserialize<'d> + zbus::zvariant::Type,
    B: serde::Serialize + DynamicType,
{
    crate::stats::count(method);
    crate::stats::record(conn, dest, path, iface, method, body);
    // An empty destination means a peer connection straight to the app.
    let destination = (!dest.is_empty()).then_some(dest);
    let call = conn.call_method(destination, path, Some(iface), method, body);
    let reply = match tokio::time::timeout(CALL_TIMEOUT, call).await {
        Ok(reply) => reply.map_err(|e| bus_error(e, dest, path, method))?,
        Err(_) => {
            return Err(Error::timeout(format!(
                "{} did not answer {iface}.{method} on {path} within {} s",
                the_app(dest),
                CALL_TIMEOUT.as_secs()
            ))
            .with_suggestion("the app may be hung; check that it still responds"))
        }
    };
    reply.body().deserialize::<R>().map_err(|e| {
        Error::protocol(format!(
            "{iface}.{method} on {path} answered an unexpected shape: {e}"
        ))
    })
}

/// The properties `names` of `iface` on the object, those the object has.
///
/// `Properties.GetAll` is one call instead of several, but it kills some
/// apps (Qt 5 and 6 on `Accessible`, Chromium on `Value`), so it is asked
/// only of apps whose toolkit was marked safe for it ([`mark_bulk_safe`]);
/// every other app is asked one property at a time, all in flight at once,
/// as screen readers do.
pub async fn get_props(
    conn: &Connection,
    dest: &str,
    path: &str,
    iface: &str,
    names: &[&str],
) -> Result<HashMap<String, OwnedValue>> {
    if bulk_safe(conn, dest) {
        return call(conn, dest, path, IFACE_PROPERTIES, "GetAll", &(iface,)).await;
    }
    let asked = names
        .iter()
        .map(|name| async move { (*name, get_prop(conn, dest, path, iface, name).await) });
    let mut props = HashMap::new();
    for (name, value) in futures_util::future::join_all(asked).await {
        match value {
            Ok(value) => {
                props.insert(name.to_string(), value);
            }
            // A property the object lacks is left out; a gone app or object fails the read.
            Err(e) if e.code == ErrorCode::Failed => {}
            Err(e) => return Err(e),
        }
    }
    Ok(props)
}

/// Which bulk reads an app's toolkit was tested to answer without harm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Bulk {
    /// One property or action name at a time (Qt crashes on
    /// `GetAll(Accessible)`, and its cache is empty).
    None,
    /// The cache (`Cache.GetItems`), but no `GetAll` or `GetActions`
    /// (Chromium crashes on `GetAll(Value)`, Firefox on `GetActions`).
    Cache,
    /// Everything: GTK's bridges.
    All,
}

/// The bulk reads of apps, by the bus they are on and their name there (a
/// peer connection's own server and an empty name).
static BULK: std::sync::Mutex<Vec<((String, String), Bulk)>> = std::sync::Mutex::new(Vec::new());

/// Records which bulk reads the app at `dest` answers without harm (see docs/apps.md).
pub fn mark_bulk(conn: &Connection, dest: &str, bulk: Bulk) {
    let key = (conn.server_guid().to_string(), dest.to_string());
    let mut known = BULK.lock().unwrap_or_else(|e| e.into_inner());
    known.retain(|(k, _)| *k != key);
    known.push((key, bulk));
}

/// The bulk reads the app at `dest` answers without harm; none unless marked.
pub fn bulk(conn: &Connection, dest: &str) -> Bulk {
    let known = BULK.lock().unwrap_or_else(|e| e.into_inner());
    known
        .iter()
        .find(|((guid, name), _)| name == dest && *guid == conn.server_guid().as_str())
        .map_or(Bulk::None, |(_, bulk)| *bulk)
}

/// Whether `Properties.GetAll` and `Action.GetActions` are safe for the app.
pub fn bulk_safe(conn: &Connection, dest: &str) -> bool {
    bulk(conn, dest) == Bulk::All
}

/// AT-SPI's "no object", as child lists and relations may hold it.
pub fn is_null(obj: &ObjRef) -> bool {
    obj.1.as_str() == "/org/a11y/atspi/null"
}

/// The object's box, `(x, y, width, height)`, in the coordinates `coords`
/// names (0 screen, 1 window, as AT-SPI numbers them).
pub async fn get_extents(
    conn: &Connection,
    dest: &str,
    path: &str,
    coords: u32,
) -> Result<(i32, i32, i32, i32)> {
    call(conn, dest, path, IFACE_COMPONENT, "GetExtents", &(coords,)).await
}

/// One property of `iface` on the object.
pub async fn get_prop(
    conn: &Connection,
    dest: &str,
    path: &str,
    iface: &str,
    name: &str,
) -> Result<OwnedValue> {
    call(conn, dest, path, IFACE_PROPERTIES, "Get", &(iface, name)).await
}

/// The app a call went to, for a message: its bus name, or none over a
/// direct connection (whose destination is empty).
fn the_app(dest: &str) -> String {
    if dest.is_empty() {
        "the app".to_string()
    } else {
        format!("the app at {dest}")
    }
}

/// Turns a D-Bus error into uidrive's: an app gone from the bus is `app_exited`,
/// an object gone from the app is `no_element`.
pub fn bus_error(err: zbus::Error, dest: &str, path: &str, method: &str) -> Error {
    let name = match &err {
        zbus::Error::MethodError(name, _, _) => name.as_str().to_string(),
        zbus::Error::FDO(fdo) => fdo_name(fdo),
        _ => String::new(),
    };
    let who = the_app(dest);
    let unanswered = || {
        Error::timeout(format!(
            "{who} did not answer {method} on {path} within {} s: it is frozen or busy",
            CALL_TIMEOUT.as_secs()
        ))
        .with_suggestion("check that the app still responds (a stopped or hung process answers nothing); try again once it does")
    };
    if let zbus::Error::InputOutput(io) = &err {
        if io.kind() == std::io::ErrorKind::TimedOut {
            return unanswered();
        }
    }
    match name.as_str() {
        // The bus daemon answers NoReply both when the app left without
        // answering and when it did not answer in time; only the first is an exit.
        "org.freedesktop.DBus.Error.NoReply" if !err.to_string().contains("disconnected") => {
            unanswered()
        }
        "org.freedesktop.DBus.Error.TimedOut" | "org.freedesktop.DBus.Error.Timeout" => {
            unanswered()
        }
        "org.freedesktop.DBus.Error.ServiceUnknown"
        | "org.freedesktop.DBus.Error.NameHasNoOwner"
        | "org.freedesktop.DBus.Error.NoReply" => Error::new(
            ErrorCode::AppExited,
            format!(
                "the app {dest} left the accessibility bus during {method}: it exited or crashed"
            ),
        ),
        "org.freedesktop.DBus.Error.UnknownObject" => {
            Error::no_element(format!("the element {path} of {dest} is gone"))
        }
        // GTK 4 answers this for an object it no longer has.
        "org.freedesktop.DBus.Error.UnknownMethod" if object_gone(&err.to_string()) => {
            Error::no_element(format!("the element {path} of {dest} is gone"))
        }
        // GTK 4 answers this for calls it does not implement (GrabFocus on
        // a tree expander): the element cannot, which callers may work around.
        "org.freedesktop.DBus.Error.NotSupported" => Error::unsupported(format!(
            "{method} on {path} of {dest}: the app does not support it ({err})"
        )),
        // Whether the app is gone or only closed the connection, the driver
        // tells from its process (`AtspiDriver::explain`).
        _ if matches!(err, zbus::Error::InputOutput(_)) && dest.is_empty() => Error::disconnected(
            format!("the app closed its direct connection during {method}"),
        )
        .with_suggestion("if the app still runs, attach to it again"),
        _ if matches!(err, zbus::Error::InputOutput(_)) => Error::disconnected(format!(
            "the accessibility bus closed during {method}: {err}"
        )),
        _ => Error::failed(format!("{method} on {path} of {dest} failed: {err}")),
    }
}

/// GTK 4's answers for an object it no longer has: the path is unknown, the
/// object has lost its Accessible interface while being torn down, or no
/// object is registered at the path any more (GDBus then lacks even the
/// Properties interface there, which every object it serves has).
fn object_gone(message: &str) -> bool {
    message.contains("does not exist")
        || (message.contains("No such interface")
            && message.contains("org.freedesktop.DBus.Properties"))
        || (message.contains("No such interface") && message.contains(IFACE_ACCESSIBLE) && {
            // Only the Accessible interface itself, not Accessible-something else.
            let at = message.find(IFACE_ACCESSIBLE).unwrap_or(0) + IFACE_ACCESSIBLE.len();
            !message[at..].starts_with(|c: char| c.is_ascii_alphanumeric())
        })
}

fn fdo_name(err: &zbus::fdo::Error) -> String {
    use zbus::DBusError;
    err.name().as_str().to_string()
}

/// A string property out of a `GetAll` answer.
pub fn prop_str(props: &HashMap<String, OwnedValue>, key: &str) -> Option<String> {
    props
        .get(key)
        .and_then(|v| v.downcast_ref::<&str>().ok())
        .map(str::to_string)
}

/// A number property out of a `GetAll` answer, whatever its D-Bus type.
pub fn prop_f64(props: &HashMap<String, OwnedValue>, key: &str) -> Option<f64> {
    use zbus::zvariant::Value;
    match &**props.get(key)? {
        Value::F64(v) => Some(*v),
        Value::I32(v) => Some(f64::from(*v)),
        Value::U32(v) => Some(f64::from(*v)),
        Value::I64(v) => Some(*v as f64),
        Value::U64(v) => Some(*v as f64),
        Value::I16(v) => Some(f64::from(*v)),
        Value::U16(v) => Some(f64::from(*v)),
        Value::U8(v) => Some(f64::from(*v)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::object_gone;

    #[test]
    fn gone_objects_are_told_from_missing_interfaces() {
        assert!(object_gone("Object does not exist at path “/a/b”"));
        assert!(object_gone(
            "No such interface “org.a11y.atspi.Accessible” on object at path /a"
        ));
        assert!(!object_gone(
            "No such interface “org.a11y.atspi.Component” on object at path /a"
        ));
        // What gnome-calculator (GTK 4) answered a GetAll on a button it had
        // just dropped, in the WebDriver clients' test.
        assert!(object_gone(
            "No such interface “org.freedesktop.DBus.Properties” on object at path /org/gnome/Calculator/a11y/beb66e43"
        ));
    }
}
