//! Xwayland on the headless Wayland desktop, when asked for: sway starts
//! it (wlroots' X window manager places X clients' windows as sway views)
//! and uidrive learns its display from a command sway runs, which sees
//! sway's own `DISPLAY`.
//!
//! When uidrive runs as root, sway and so Xwayland run as `nobody`, and
//! Xwayland lets in only its own user; the command first lets root's
//! local connections in (`xhost +si:localuser:root`), which the apps
//! (run as root) and uidrive's X11 backend need.
//!
//! The desktop holds one Wayland connection of its own while Xwayland
//! runs: sway 1.7's wlroots (0.15) crashes (a NULL read in the relative
//! pointer protocol) when Xwayland asks for a relative pointer on a
//! `wl_pointer` gone inert, which happens each time the seat loses its
//! pointer; every uidrive connection brings a virtual pointer and keyboard
//! and takes them away when it closes (one start in ten crashed so). The
//! held connection keeps the seat's pointer and keyboard from before any
//! other connects until the desktop stops.

use std::path::Path;
use std::time::{Duration, Instant};

use uidrive_core::{Error, Result};
use uidrive_x11::process::Managed;

/// The file sway's command writes `STATUS DISPLAY` to, in sway's directory.
const DISPLAY_FILE: &str = "xwayland-display";

/// sway's configuration lines: Xwayland started at once (not on an X
/// client's first connection, so a failure shows at start), and the
/// command that reports its display. That command first connects a client
/// that stays for the desktop's life (`xprop -spy`): wlroots runs Xwayland
/// with `-terminate`, so a moment with no client at all (before wlroots'
/// own window manager connects) would end it, and with it what it was
/// given (root's permission, `AT_SPI_BUS`): X clients then could not
/// connect (`cannot open display`), 1 start in 7 here.
pub(crate) fn config(dir: &Path, root: bool) -> String {
    let file = dir.join(DISPLAY_FILE);
    let file = file.display();
    let keeper = dir.join("xwayland-keeper");
    let keeper = keeper.display();
    let allow = if root {
        "xhost +si:localuser:root >/dev/null 2>&1"
    } else {
        "true"
    };
    format!(
        "xwayland force\n\
         exec sh -c 'xprop -root -spy _XKB_RULES_NAMES > {keeper} 2>&1 & \
         until [ -s {keeper} ]; do sleep 0.01; done; \
         {allow}; echo \"$? $DISPLAY\" > {file}.part && mv {file}.part {file}'\n"
    )
}

/// The directory X servers put their sockets in. wlroots makes it when it
/// is missing, but as sway's user and without the sticky bit, which X
/// servers of other users then refuse; it is made here as Xvfb makes it.
pub(crate) fn socket_dir() -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let dir = Path::new("/tmp/.X11-unix");
    if dir.is_dir() {
        return Ok(());
    }
    match std::fs::create_dir(dir) {
        Ok(()) => std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o1777))
            .map_err(|e| Error::failed(format!("cannot open up {}: {e}", dir.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(Error::failed(format!(
            "cannot make {} for Xwayland's socket: {e}",
            dir.display()
        ))),
    }
}

/// Waits for sway's command to report Xwayland's display (`:N`).
pub(crate) fn wait_for_display(
    dir: &Path,
    sway: &mut Managed,
    timeout: Duration,
) -> Result<String> {
    let file = dir.join(DISPLAY_FILE);
    let deadline = Instant::now() + timeout;
    loop {
        if let Ok(text) = std::fs::read_to_string(&file) {
            let (status, display) = text.trim().split_once(' ').unwrap_or((text.trim(), ""));
            if status != "0" {
                return Err(Error::failed(format!(
                    "Xwayland started, but letting root's apps reach it failed (`xhost` answered {status})"
                ))
                .with_suggestion("install x11-xserver-utils (scripts/install-deps.sh does)"));
            }
            if !display.starts_with(':') {
                return Err(Error::failed(format!(
                    "sway reported no Xwayland display (it wrote {text:?}); its log: {}",
                    sway.log_tail()
                ))
                .with_suggestion("install xwayland (scripts/install-deps.sh does)"));
            }
            return Ok(display.to_string());
        }
        if sway.exited().is_some() {
            return Err(sway.died("Xwayland's display"));
        }
        if Instant::now() >= deadline {
            return Err(Error::timeout(format!(
                "sway started no Xwayland within {} ms; its log: {}",
                timeout.as_millis(),
                sway.log_tail()
            ))
            .with_suggestion(
                "install xwayland (scripts/install-deps.sh does), or give a longer timeout",
            ));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Xwayland's pid: the process `Xwayland DISPLAY ...` (wlroots starts it
/// outside sway's process tree).
pub(crate) fn pid(display: &str) -> Option<u32> {
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .find(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let mut args = cmdline.split(|b| *b == 0);
            args.next().is_some_and(|a| a.ends_with(b"Xwayland"))
                && args.next() == Some(display.as_bytes())
                && is_xwayland(*pid)
        })
}

fn is_xwayland(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let (head, rest) = stat.rsplit_once(')')?;
            Some(head.ends_with("(Xwayland") && !rest.trim_start().starts_with('Z'))
        })
        .unwrap_or(false)
}

/// Ends Xwayland after sway: it leaves on its own once its compositor is
/// gone (wlroots starts it outside sway's process tree), else SIGTERM,
/// then SIGKILL, so nothing of the desktop outlives it.
pub(crate) fn end(pid: u32) {
    let gone_within = |wait: Duration| {
        let deadline = Instant::now() + wait;
        while is_xwayland(pid) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        !is_xwayland(pid)
    };
    for signal in [libc::SIGTERM, libc::SIGKILL] {
        if gone_within(Duration::from_secs(2)) {
            return;
        }
        // SAFETY: kill(2) on the Xwayland this desktop started, checked by name just before.
        unsafe {
            libc::kill(pid as libc::pid_t, signal);
        }
    }
}

/// Writes the accessibility bus address on Xwayland's root window
/// (`AT_SPI_BUS`), as the X11 desktop does on Xvfb's: X clients told no
/// address (Qt on xcb) find the bus there.
pub(crate) fn publish_a11y_bus(display: &str, address: &str) -> Result<()> {
    uidrive_x11::X11::connect_as(display, None)?.set_at_spi_bus(address)
}
