//! Processes uidrive starts for the life of this one: a headless desktop's
//! servers and the apps launched on it.
//!
//! [`spawn_tied`] starts a process that the kernel kills (SIGKILL) when this
//! process ends, however it ends — a SIGKILL included, when nothing of
//! uidrive's own gets to run (`PR_SET_PDEATHSIG`). The kernel ties a child
//! to the *thread* that forked it, so every such child is forked by one
//! thread that lives as long as the process. [`reap_on_exit`] waits for a
//! child on a thread of its own, so one that ends (killed, crashed) is
//! reaped at once instead of staying a zombie until uidrive asks.

use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};

type Job = (Command, mpsc::Sender<io::Result<Child>>);

/// This process's effective user id.
pub fn user_id() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Starts `command` as a child that dies with this process (SIGKILL).
pub fn spawn_tied(command: Command) -> io::Result<Child> {
    spawn_tied_with(command, SIGKILL)
}

/// SIGKILL, the signal [`spawn_tied`] sends.
pub const SIGKILL: i32 = 9;
/// SIGTERM, for a child that ends its own children when asked to
/// (at-spi-bus-launcher ends its bus), and would leave them on SIGKILL.
pub const SIGTERM: i32 = 15;

/// [`spawn_tied`] with the signal the child gets when this process ends.
pub fn spawn_tied_with(mut command: Command, signal: i32) -> io::Result<Child> {
    tie(&mut command, signal);
    static FORKER: OnceLock<Mutex<mpsc::Sender<Job>>> = OnceLock::new();
    let forker = FORKER.get_or_init(|| {
        let (jobs, queue) = mpsc::channel::<Job>();
        // Never joined: it must outlive every child it forks.
        std::thread::Builder::new()
            .name("uidrive-forker".into())
            .spawn(move || {
                for (mut command, answer) in queue {
                    let _ = answer.send(command.spawn());
                }
            })
            .expect("a thread to start processes from");
        Mutex::new(jobs)
    });
    let (answer, answered) = mpsc::channel();
    forker
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .send((command, answer))
        .map_err(|_| io::Error::other("the thread that starts processes is gone"))?;
    answered
        .recv()
        .map_err(|_| io::Error::other("the thread that starts processes is gone"))?
}

/// Asks the kernel to send `signal` to the child when its parent goes, and
/// checks that the parent did not go before the ask (then the child ends at once).
fn tie(command: &mut Command, signal: i32) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: getpid has no preconditions.
        let parent = unsafe { libc::getpid() };
        // SAFETY: only async-signal-safe calls (prctl, getppid, _exit) run
        // between fork and exec.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, signal as libc::c_ulong, 0, 0, 0) != 0 {
                    return Err(io::Error::last_os_error());
                }
                if libc::getppid() != parent {
                    libc::_exit(127);
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (command, signal);
}

/// Reaps `child` as soon as it ends: a thread waits for its end without
/// reaping it (`waitid` with `WNOWAIT`), then takes the lock and lets
/// `Child::try_wait` reap it, so the status stays readable through the
/// `Child`. Whoever takes the child out of `slot` first (to close it) reaps
/// it instead, and the thread finds the slot empty and ends.
pub fn reap_on_exit(pid: u32, slot: Arc<Mutex<Option<Child>>>) {
    let spawned = std::thread::Builder::new()
        .name("uidrive-reaper".into())
        .spawn(move || {
            loop {
                // SAFETY: waitid with a zeroed siginfo_t it fills in.
                let rc = unsafe {
                    let mut info: libc::siginfo_t = std::mem::zeroed();
                    libc::waitid(
                        libc::P_PID,
                        pid as libc::id_t,
                        &mut info,
                        libc::WEXITED | libc::WNOWAIT,
                    )
                };
                if rc == 0 {
                    break;
                }
                if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                    return; // reaped already (closed), or not ours
                }
            }
            if let Some(child) = slot.lock().unwrap_or_else(|p| p.into_inner()).as_mut() {
                if child.id() == pid {
                    let _ = child.try_wait();
                }
            }
        });
    // Without the thread the child is still reaped when it is next asked about.
    drop(spawned);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn state(pid: u32) -> Option<char> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        stat.rsplit(')').next()?.trim_start().chars().next()
    }

    #[test]
    fn a_killed_child_is_reaped_at_once_and_its_status_kept() {
        let mut sleep = Command::new("sleep");
        sleep.arg("30");
        let child = spawn_tied(sleep).unwrap();
        let pid = child.id();
        let slot = Arc::new(Mutex::new(Some(child)));
        reap_on_exit(pid, slot.clone());
        // SAFETY: kill with the pid of our own child.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        let deadline = Instant::now() + Duration::from_secs(10);
        while state(pid).is_some() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(state(pid), None, "pid {pid} is still there (a zombie?)");
        let status = slot.lock().unwrap().as_mut().unwrap().try_wait().unwrap();
        assert_eq!(
            status.map(|s| s.to_string()).as_deref(),
            Some("signal: 9 (SIGKILL)")
        );
    }
}
