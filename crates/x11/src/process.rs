//! Child processes of a desktop: spawned in their own process group, waited on
//! with deadlines, and torn down leaf first so that every process is reaped.

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use uidrive_core::{Error, Result};

/// What to tell a user whose machine lacks one of the desktop's programs.
pub const INSTALL_HINT: &str =
    "install the desktop's packages with scripts/install-deps.sh (Debian: xvfb openbox dbus at-spi2-core)";

/// How long a process gets to exit after SIGTERM before it is killed.
const GRACE: Duration = Duration::from_secs(3);

/// A process this crate started, leader of its own process group.
pub struct Managed {
    name: String,
    child: Child,
    log: PathBuf,
}

impl Managed {
    /// Starts `command` in a new process group with stdout and stderr going
    /// to `log`, tied to this process: the kernel kills it when this process
    /// ends, even by SIGKILL, so a killed uidrive leaves no desktop behind.
    pub fn spawn(name: &str, command: Command, log: &Path) -> Result<Managed> {
        Managed::spawn_ending_on(name, command, log, uidrive_core::children::SIGKILL)
    }

    /// [`Managed::spawn`] with the signal the process gets when this one ends.
    pub fn spawn_ending_on(
        name: &str,
        mut command: Command,
        log: &Path,
        signal: i32,
    ) -> Result<Managed> {
        let out = File::create(log).map_err(|e| {
            Error::failed(format!("cannot create the log file {}: {e}", log.display()))
        })?;
        let err = out
            .try_clone()
            .map_err(|e| Error::failed(format!("cannot open the log file: {e}")))?;
        command
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .process_group(0);
        let child = uidrive_core::children::spawn_tied_with(command, signal)
            .map_err(|e| spawn_error(name, &e))?;
        Ok(Managed {
            name: name.to_string(),
            child,
            log: log.to_path_buf(),
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// `Some(description)` once the process has exited.
    pub fn exited(&mut self) -> Option<String> {
        match self.child.try_wait() {
            Ok(Some(status)) => Some(status.to_string()),
            Ok(None) => None,
            Err(e) => Some(format!("unknown state ({e})")),
        }
    }

    /// The last lines the process wrote, for error messages.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let tail = lines[lines.len().saturating_sub(6)..].join(" | ");
        if tail.is_empty() {
            "(it wrote nothing)".to_string()
        } else {
            tail
        }
    }

    /// An error saying the process died while we waited for it.
    pub fn died(&mut self, waiting_for: &str) -> Error {
        let status = self.exited().unwrap_or_else(|| "still running".into());
        Error::failed(format!(
            "{} exited ({status}) while waiting for {waiting_for}; its output: {}",
            self.name,
            self.log_tail()
        ))
        .with_suggestion(INSTALL_HINT)
    }

    /// Ends the process group: members leaf first (each is reaped by its parent,
    /// which is still alive), then the leader, which we reap ourselves.
    pub fn terminate(&mut self) {
        let group = self.child.id() as i32;
        let leader = group;
        for level in group_levels(group, leader) {
            signal_and_wait(&level, libc::SIGTERM, GRACE);
            signal_and_wait(&level, libc::SIGKILL, GRACE);
        }
        if self.exited().is_none() {
            // SAFETY: kill(2) with a pid we own and a valid signal number.
            unsafe { libc::kill(leader, libc::SIGTERM) };
            let deadline = Instant::now() + GRACE;
            let mut pause = Poll::new();
            while self.exited().is_none() && Instant::now() < deadline {
                pause.sleep();
            }
            if self.exited().is_none() {
                let _ = self.child.kill();
            }
        }
        let _ = self.child.wait();
        // Whatever the leader left behind (a child that ignored its parent's end).
        let stragglers: Vec<i32> = group_members(group).into_iter().map(|p| p.pid).collect();
        signal_and_wait(&stragglers, libc::SIGKILL, GRACE);
    }
}

fn spawn_error(name: &str, e: &io::Error) -> Error {
    if e.kind() == io::ErrorKind::NotFound {
        Error::failed(format!(
            "{name} was not found: it is not installed or not on PATH"
        ))
        .with_suggestion(INSTALL_HINT)
    } else {
        Error::failed(format!("cannot start {name}: {e}")).with_suggestion(INSTALL_HINT)
    }
}

/// A pipe whose write end a child inherits under a known descriptor number, for
/// programs that announce readiness on a descriptor (`Xvfb -displayfd`,
/// `dbus-daemon --print-address=N`).
pub struct ReadyPipe {
    read: OwnedFd,
    write: Option<OwnedFd>,
}

impl ReadyPipe {
    pub fn new() -> Result<ReadyPipe> {
        let mut fds = [0 as RawFd; 2];
        // SAFETY: pipe2 writes two descriptors into the array we pass.
        let rc = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
        if rc != 0 {
            return Err(Error::failed(format!(
                "cannot create a pipe: {}",
                io::Error::last_os_error()
            )));
        }
        // SAFETY: both descriptors were just created and are owned by nobody else.
        let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        Ok(ReadyPipe {
            read,
            write: Some(write),
        })
    }

    /// The descriptor number the child writes to.
    pub fn child_fd(&self) -> RawFd {
        self.write.as_ref().map(|w| w.as_raw_fd()).unwrap_or(-1)
    }

    /// Lets `command`'s child inherit the write end (it is close-on-exec in this
    /// process, so children other threads start at the same time never get it).
    pub fn pass_to(&self, command: &mut Command) {
        let fd = self.child_fd();
        // SAFETY: the closure only calls fcntl, which is async-signal-safe.
        unsafe {
            command.pre_exec(move || {
                if libc::fcntl(fd, libc::F_SETFD, 0) == -1 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }

    /// Closes this process's copy of the write end, so that the read end sees
    /// end-of-file when the child dies.
    pub fn close_write(&mut self) {
        self.write = None;
    }

    /// Reads the first line the child writes. `Ok(None)` on end-of-file (the
    /// child closed the pipe, usually by dying); `Err` with code `timeout` when
    /// nothing came before `deadline`.
    pub fn read_line(&self, deadline: Instant, what: &str) -> Result<Option<String>> {
        let fd = self.read.as_raw_fd();
        let mut line = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Error::timeout(format!("timed out waiting for {what}")));
            }
            let mut poll = libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            };
            let ms = left.as_millis().clamp(1, i32::MAX as u128) as i32;
            // SAFETY: one valid pollfd.
            let rc = unsafe { libc::poll(&mut poll, 1, ms) };
            if rc < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(Error::failed(format!("waiting for {what}: {e}")));
            }
            if rc == 0 {
                continue;
            }
            let mut buf = [0u8; 256];
            // SAFETY: reading into a buffer of the length we pass.
            let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(Error::failed(format!("waiting for {what}: {e}")));
            }
            if n == 0 {
                return Ok(None);
            }
            line.extend_from_slice(&buf[..n as usize]);
            if let Some(end) = line.iter().position(|&b| b == b'\n') {
                line.truncate(end);
                return Ok(Some(String::from_utf8_lossy(&line).trim().to_string()));
            }
        }
    }
}

/// Runs a short-lived program to completion, killing it if it outlives `timeout`.
pub(crate) fn run(name: &str, mut command: Command, timeout: Duration) -> Result<Output> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().map_err(|e| spawn_error(name, &e))?;
    let deadline = Instant::now() + timeout;
    let mut pause = Poll::new();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Error::timeout(format!(
                    "{name} did not finish within {} ms",
                    timeout.as_millis()
                )));
            }
            Ok(None) => pause.sleep(),
            Err(e) => return Err(Error::failed(format!("waiting for {name}: {e}"))),
        }
    }
    child
        .wait_with_output()
        .map_err(|e| Error::failed(format!("reading the output of {name}: {e}")))
}

/// Short sleeps between polls of something that has no event to wait on,
/// growing from 1 ms to 10 ms.
pub(crate) struct Poll {
    next: Duration,
}

impl Poll {
    pub fn new() -> Poll {
        Poll {
            next: Duration::from_millis(1),
        }
    }

    pub fn sleep(&mut self) {
        std::thread::sleep(self.next);
        self.next = (self.next * 2).min(Duration::from_millis(10));
    }
}

/// One line of `/proc/PID/stat`, the fields we need.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ProcInfo {
    pub pid: i32,
    pub ppid: i32,
    pub pgrp: i32,
    pub zombie: bool,
}

pub(crate) fn proc_info(pid: i32) -> Option<ProcInfo> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold spaces: read after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some(ProcInfo {
        pid,
        ppid,
        pgrp,
        zombie: state == "Z" || state == "X",
    })
}

fn all_processes() -> Vec<ProcInfo> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|entry| {
        let name = entry.ok()?.file_name();
        let pid: i32 = name.to_str()?.parse().ok()?;
        proc_info(pid)
    })
    .collect()
}

/// Every process (zombies included) in process group `group`.
pub(crate) fn group_members(group: i32) -> Vec<ProcInfo> {
    all_processes()
        .into_iter()
        .filter(|p| p.pgrp == group)
        .collect()
}

/// The group's members other than `leader`, deepest first, one level at a time.
fn group_levels(group: i32, leader: i32) -> Vec<Vec<i32>> {
    let members: Vec<ProcInfo> = group_members(group)
        .into_iter()
        .filter(|p| p.pid != leader && !p.zombie)
        .collect();
    let depth = |mut p: ProcInfo| {
        let mut d = 0;
        while let Some(parent) = members.iter().find(|m| m.pid == p.ppid) {
            d += 1;
            p = *parent;
            if d > members.len() {
                break;
            }
        }
        d
    };
    let mut levels: Vec<Vec<i32>> = Vec::new();
    for p in &members {
        let d = depth(*p);
        if levels.len() <= d {
            levels.resize(d + 1, Vec::new());
        }
        levels[d].push(p.pid);
    }
    levels.reverse();
    levels
}

/// Sends `signal` to each live pid and waits until each is gone or a zombie.
fn signal_and_wait(pids: &[i32], signal: i32, grace: Duration) {
    let alive = |pid: i32| proc_info(pid).is_some_and(|p| !p.zombie);
    let targets: Vec<i32> = pids.iter().copied().filter(|&p| alive(p)).collect();
    for &pid in &targets {
        // SAFETY: kill(2) with a valid signal number.
        unsafe { libc::kill(pid, signal) };
    }
    let deadline = Instant::now() + grace;
    let mut pause = Poll::new();
    while targets.iter().any(|&p| alive(p)) && Instant::now() < deadline {
        pause.sleep();
    }
}
