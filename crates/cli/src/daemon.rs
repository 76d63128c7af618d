//! The background `uidrive serve` a session starts to hold its app (and its
//! headless desktop) between commands, serving the protocol on a private socket.

use crate::session::{make_private_dir, Files};
use std::fs::OpenOptions;
use std::os::unix::ffi::OsStrExt;
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

/// The variable that marks a daemon with the session it serves (the path of
/// the session's file), so `close` finds it even when that file is damaged
/// or empty.
pub const SESSION_MARK: &str = "UIDRIVE_SERVE_FOR";

/// Starts `uidrive serve SERVE_ARGS --socket <fresh path>` in its own process
/// group, detached from the terminal, and waits until it listens. `tied`:
/// the daemon ends with this process (an MCP server's own session);
/// otherwise it outlives it, for the session's next command.
pub fn start(
    session: &str,
    serve_args: &[String],
    timeout: Duration,
    tied: bool,
) -> Result<Started> {
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
    let files = Files::of(session)?;
    let log = files.log.clone();
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
    // Embedded in Python or Node, this executable is the interpreter: the
    // front end said how to start `uidrive` again.
    let mut command = match crate::self_command() {
        Some([program, args @ ..]) => {
            let mut command = Command::new(program);
            command.args(args);
            command
        }
        _ => Command::new(
            std::env::current_exe()
                .map_err(|e| Error::failed(format!("could not find the uidrive binary: {e}")))?,
        ),
    };
    command
        .arg("serve")
        .arg("--socket")
        .arg(&socket)
        .args(serve_args)
        .env(SESSION_MARK, &files.state)
        .stdin(Stdio::null())
        .stdout(log_file)
        .stderr(errors)
        .process_group(0);
    let spawned = if tied {
        uidrive_core::children::spawn_tied(command)
    } else {
        command.spawn()
    };
    let mut child =
        spawned.map_err(|e| Error::failed(format!("could not start uidrive serve: {e}")))?;
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

/// The daemons serving the session whose file is `state` (marked with
/// [`SESSION_MARK`] at start), whatever that file says.
pub fn serving(state: &Path) -> Vec<u32> {
    let mark = [SESSION_MARK.as_bytes(), b"=", state.as_os_str().as_bytes()].concat();
    processes()
        .into_iter()
        .filter(|p| alive(p.pid))
        .filter(|p| {
            std::fs::read(format!("/proc/{}/environ", p.pid))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|v| v == mark.as_slice()))
        })
        .map(|p| p.pid)
        .collect()
}

/// What stopping a daemon found.
#[derive(Debug, PartialEq)]
pub enum Stopped {
    /// It ran, and it and every process under it are gone now.
    Ended { processes: usize },
    /// It was not running (it had exited, or the pid is another program's).
    NotRunning,
}

/// Asks the daemon to stop (SIGTERM: it ends what it launched, takes its
/// desktop down and removes its socket) and waits up to `grace`; then kills
/// it and what is left under it. Answers once it has checked that the
/// daemon and every process it had under it are gone, or names those that
/// are not.
pub fn stop(pid: u32, grace: Duration) -> Result<Stopped> {
    if !alive(pid) {
        return Ok(Stopped::NotRunning);
    }
    // Everything under it now: what must be gone when it is.
    let under = descendants(pid);
    // SAFETY: kill with a pid we checked is our daemon.
    unsafe {
        libc::kill(pid as libc::pid_t, libc::SIGTERM);
    }
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline && alive(pid) {
        std::thread::sleep(Duration::from_millis(20));
    }
    if alive(pid) {
        // Its desktop and app are tied to it and die with it; what it
        // started that outlives it anyway is killed here.
        // SAFETY: kill with a pid we checked is our daemon.
        unsafe {
            libc::kill(pid as libc::pid_t, libc::SIGKILL);
        }
    }
    // SAFETY: the group is the daemon's own (made at spawn); an empty group answers ESRCH.
    unsafe {
        libc::kill(-(pid as libc::pid_t), libc::SIGKILL);
    }
    let gone = |p: &Proc| !same_process(p);
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline && !under.iter().all(gone) {
        std::thread::sleep(Duration::from_millis(20));
    }
    for p in under.iter().filter(|p| !gone(p)) {
        // SAFETY: a process that was under our daemon, the same one (start time checked).
        unsafe {
            libc::kill(p.pid as libc::pid_t, libc::SIGKILL);
        }
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    let left = loop {
        let left: Vec<&Proc> = under.iter().filter(|p| !gone(p)).collect();
        if left.is_empty() || Instant::now() >= deadline {
            break left;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    if left.is_empty() {
        return Ok(Stopped::Ended {
            processes: under.len(),
        });
    }
    let names: Vec<String> = left
        .iter()
        .map(|p| format!("{} (pid {})", p.name, p.pid))
        .collect();
    Err(Error::failed(format!(
        "uidrive serve (pid {pid}) was told to stop, but these still run: {}",
        names.join(", ")
    ))
    .with_suggestion("end them by hand (kill -9 PID), then run `uidrive close` again"))
}

/// A process as `/proc` shows it: enough to tell it from a later one with
/// the same pid (its start time).
#[derive(Debug, Clone)]
struct Proc {
    pid: u32,
    ppid: u32,
    started: u64,
    name: String,
    zombie: bool,
}

fn read_proc(pid: u32) -> Option<Proc> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
    Some(Proc {
        pid,
        ppid: fields.get(1)?.parse().ok()?,
        started: fields.get(19)?.parse().ok()?,
        name: stat[open + 1..close].to_string(),
        zombie: fields.first() == Some(&"Z"),
    })
}

/// Still the same process, and not a zombie?
fn same_process(p: &Proc) -> bool {
    read_proc(p.pid).is_some_and(|now| now.started == p.started && !now.zombie)
}

fn processes() -> Vec<Proc> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(read_proc)
        .collect()
}

/// `pid` and every live process under it, `pid` first.
fn descendants(pid: u32) -> Vec<Proc> {
    let all = processes();
    let mut found: Vec<Proc> = all.iter().filter(|p| p.pid == pid).cloned().collect();
    let mut at = 0;
    while at < found.len() {
        let parent = found[at].pid;
        found.extend(
            all.iter()
                .filter(|p| p.ppid == parent && !p.zombie)
                .cloned(),
        );
        at += 1;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descendants_are_found_by_their_parents() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 5 & wait"])
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        let found = loop {
            let found: Vec<u32> = descendants(std::process::id())
                .iter()
                .map(|p| p.pid)
                .collect();
            if found.len() >= 3 || Instant::now() > deadline {
                break found;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(found[0], std::process::id());
        assert!(found.contains(&child.id()), "{found:?}");
        assert!(found.len() >= 3, "the shell's sleep too: {found:?}");
    }
}
