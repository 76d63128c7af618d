//! The background `uidrive serve` a session starts to hold its app (and its
//! headless desktop) between commands, serving the protocol on a private socket.

use crate::session::{make_private_dir, Files};
use std::fs::OpenOptions;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use uidrive_core::{Error, ErrorCode, Result, SocketDriver};

/// How long a daemon gets to take its app and desktop down before it is killed.
pub const STOP_GRACE: Duration = Duration::from_secs(20);

/// A started daemon: its process, socket and log.
pub struct Started {
    pub child: Child,
    pub socket: PathBuf,
    pub log: PathBuf,
}

/// Unix socket paths are short (108 bytes): keep them in the runtime directory.
fn runtime_dir() -> PathBuf {
    let base = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|d| d.is_dir() && d.as_os_str().len() < 60)
        .unwrap_or_else(|| {
            // SAFETY: getuid cannot fail.
            let uid = unsafe { libc::getuid() };
            PathBuf::from(format!("/tmp/uidrive-{uid}"))
        });
    base.join("uidrive")
}

/// Starts `uidrive serve SERVE_ARGS --socket <fresh path>` in its own process
/// group, detached from the terminal, and waits until it listens.
pub fn start(session: &str, serve_args: &[String], timeout: Duration) -> Result<Started> {
    let dir = runtime_dir();
    make_private_dir(&dir)?;
    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() % 1_000_000_000)
        .unwrap_or(0);
    // The process and the time make the path unique; the session's name, cut
    // short, only tells people whose it is, and keeps the path within the
    // 107 bytes a socket path holds.
    let short: String = session.chars().take(16).collect();
    let socket = dir.join(format!("{short}-{}-{stamp}.sock", std::process::id()));
    let log = Files::of(session)?.log;
    if let Some(dir) = log.parent() {
        make_private_dir(dir)?;
    }
    let log_file = OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .mode(0o600)
        .open(&log)
        .map_err(|e| Error::failed(format!("could not open {}: {e}", log.display())))?;
    let errors = log_file
        .try_clone()
        .map_err(|e| Error::failed(format!("could not open {}: {e}", log.display())))?;
    let exe = std::env::current_exe()
        .map_err(|e| Error::failed(format!("could not find the uidrive binary: {e}")))?;
    let mut child = Command::new(exe)
        .arg("serve")
        .arg("--socket")
        .arg(&socket)
        .args(serve_args)
        .stdin(Stdio::null())
        .stdout(log_file)
        .stderr(errors)
        .process_group(0)
        .spawn()
        .map_err(|e| Error::failed(format!("could not start uidrive serve: {e}")))?;
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait().ok().flatten() {
            return Err(Error::new(
                ErrorCode::AppExited,
                format!(
                    "uidrive serve {} exited ({status}): {}",
                    serve_args.join(" "),
                    tail(&log)
                ),
            )
            .with_suggestion(format!(
                "check the command; the whole log is {}",
                log.display()
            )));
        }
        if SocketDriver::connect(&socket).is_ok() {
            return Ok(Started { child, socket, log });
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Error::timeout(format!(
                "the app was not up within {} s: {}",
                timeout.as_secs(),
                tail(&log)
            ))
            .with_suggestion("give a longer --timeout, or check the command"));
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// The last lines of a log, on one line.
fn tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let last = lines[lines.len().saturating_sub(3)..].join(" | ");
    if last.is_empty() {
        "(no output)".into()
    } else {
        last
    }
}

/// Whether a process is there, and is a `uidrive serve` (a pid can be reused).
pub fn alive(pid: u32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|cmdline| {
            let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
            args.iter().any(|a| a.ends_with(b"uidrive")) && args.iter().any(|a| *a == b"serve")
        })
        .unwrap_or(false)
        && !is_zombie(pid)
}

fn is_zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rsplit_once(')')
                .map(|(_, rest)| rest.trim_start().starts_with('Z'))
        })
        .unwrap_or(false)
}

/// Asks the daemon to stop (SIGTERM: it ends what it launched, takes its
/// desktop down and removes its socket) and waits up to `grace`; then kills
/// what is left: its children (the app, the desktop's servers, which lead
/// process groups of their own) and its own process group.
pub fn stop(pid: u32, grace: Duration) {
    if !alive(pid) {
        return;
    }
    // SAFETY: kill with a pid we checked is our daemon.
    unsafe {
        libc::kill(pid as libc::pid_t, libc::SIGTERM);
    }
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline && alive(pid) {
        std::thread::sleep(Duration::from_millis(20));
    }
    if alive(pid) {
        for child in children(pid) {
            // SAFETY: a direct child of our daemon.
            unsafe {
                libc::kill(child as libc::pid_t, libc::SIGKILL);
            }
        }
    }
    // SAFETY: the group is the daemon's own (made at spawn); an empty group answers ESRCH.
    unsafe {
        libc::kill(-(pid as libc::pid_t), libc::SIGKILL);
    }
}

/// The processes whose parent is `pid`.
fn children(pid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|candidate| {
            std::fs::read_to_string(format!("/proc/{candidate}/stat"))
                .ok()
                .and_then(|stat| {
                    let (_, rest) = stat.rsplit_once(')')?;
                    rest.split_whitespace().nth(1)?.parse::<u32>().ok()
                })
                == Some(pid)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_are_found_by_their_parent() {
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        let found = children(std::process::id());
        let _ = child.kill();
        let _ = child.wait();
        assert!(found.contains(&child.id()), "{found:?}");
    }
}
