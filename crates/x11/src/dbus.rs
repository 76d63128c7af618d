//! The few D-Bus calls a desktop makes while it starts, through `dbus-send`
//! (part of every D-Bus install), so that this crate needs no D-Bus library.

use std::process::Command;
use std::time::{Duration, Instant};

use uidrive_core::{Error, ErrorCode, Result};

use crate::process::{run, Poll};

/// Calls `method` (`interface.Member`) and returns the reply as `dbus-send
/// --print-reply=literal` prints it, trimmed.
pub(crate) fn call(
    bus: &str,
    dest: &str,
    path: &str,
    method: &str,
    args: &[&str],
    timeout: Duration,
) -> Result<String> {
    let mut command = Command::new("dbus-send");
    command
        .arg(format!("--bus={bus}"))
        .arg("--print-reply=literal")
        .arg(format!("--reply-timeout={}", timeout.as_millis().max(1)))
        .arg(format!("--dest={dest}"))
        .arg(path)
        .arg(method)
        .args(args);
    // dbus-send has its own reply timeout; ours also covers a bus that never answers the connect.
    let output = run("dbus-send", command, timeout + Duration::from_secs(2))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(Error::failed(format!(
            "the D-Bus call {method} to {dest} failed: {}",
            stderr.trim()
        )));
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// Whether `name` has an owner on `bus` (never starts a service).
pub(crate) fn name_has_owner(bus: &str, name: &str, timeout: Duration) -> Result<bool> {
    let reply = call(
        bus,
        "org.freedesktop.DBus",
        "/org/freedesktop/DBus",
        "org.freedesktop.DBus.NameHasOwner",
        &[&format!("string:{name}")],
        timeout,
    )?;
    Ok(reply.ends_with("true"))
}

/// Polls until `name` has an owner on `bus`; `still_alive` is asked between
/// polls and its error ends the wait early (the owner-to-be died).
pub(crate) fn wait_for_name(
    bus: &str,
    name: &str,
    deadline: Instant,
    mut still_alive: impl FnMut() -> Result<()>,
) -> Result<()> {
    let mut pause = Poll::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Error::timeout(format!(
                "{name} did not appear on the bus {bus} in time"
            )));
        }
        match name_has_owner(bus, name, left.min(Duration::from_secs(5))) {
            Ok(true) => return Ok(()),
            Ok(false) => {}
            Err(e) if e.code == ErrorCode::Timeout => {}
            Err(e) => return Err(e),
        }
        still_alive()?;
        pause.sleep();
    }
}

/// Sets a boolean D-Bus property.
pub(crate) fn set_bool_property(
    bus: &str,
    dest: &str,
    path: &str,
    interface: &str,
    property: &str,
    value: bool,
    timeout: Duration,
) -> Result<()> {
    call(
        bus,
        dest,
        path,
        "org.freedesktop.DBus.Properties.Set",
        &[
            &format!("string:{interface}"),
            &format!("string:{property}"),
            &format!("variant:boolean:{value}"),
        ],
        timeout,
    )
    .map(|_| ())
}
