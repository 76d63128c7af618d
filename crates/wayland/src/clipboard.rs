//! The clipboard of a wlroots compositor, through Debian's `wl-clipboard`
//! (`wl-copy`, `wl-paste`), which speak `zwlr_data_control_manager_v1`: a
//! client reads and sets the selection there without a window or the
//! keyboard focus. `wl-copy` forks a process that holds the text and gives
//! it to the apps that paste, until another client takes the selection or
//! the compositor ends (with the desktop).

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use uidrive_core::{Error, Result};

/// The clipboard of the compositor at `WAYLAND_DISPLAY`.
#[derive(Debug, Clone)]
pub struct WlClipboard {
    display: PathBuf,
    runtime_dir: PathBuf,
}

impl WlClipboard {
    /// `display`: the compositor's socket (an absolute path, or a name in `runtime_dir`).
    pub fn new(display: PathBuf, runtime_dir: PathBuf) -> WlClipboard {
        WlClipboard {
            display,
            runtime_dir,
        }
    }

    fn command(&self, program: &str, primary: bool) -> Command {
        let mut command = Command::new(program);
        command
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("WAYLAND_DISPLAY", &self.display)
            .env("XDG_RUNTIME_DIR", &self.runtime_dir);
        if primary {
            command.arg("--primary");
        }
        command
    }

    /// The text on the clipboard (`primary`: the primary selection); `None`
    /// when it is empty or holds no text.
    pub fn get(&self, primary: bool, timeout: Duration) -> Result<Option<String>> {
        let mut paste = self.command("wl-paste", primary);
        paste.args(["--no-newline", "--type", "text"]);
        Ok(run(paste, timeout)?.map(|bytes| String::from_utf8_lossy(&bytes).into_owned()))
    }

    /// The image on the clipboard as PNG, when its owner offers `image/png`.
    pub fn get_png(&self, primary: bool, timeout: Duration) -> Result<Option<Vec<u8>>> {
        let mut types = self.command("wl-paste", primary);
        types.arg("--list-types");
        let offered = run(types, timeout)?.unwrap_or_default();
        if !String::from_utf8_lossy(&offered)
            .lines()
            .any(|t| t == "image/png")
        {
            return Ok(None);
        }
        let mut paste = self.command("wl-paste", primary);
        paste.args(["--type", "image/png"]);
        run(paste, timeout)
    }

    /// Puts `text` on the clipboard and checks that it reads back.
    pub fn set(&self, text: &str, primary: bool, timeout: Duration) -> Result<()> {
        let mut copy = self.command("wl-copy", primary);
        copy.args(["--", text]);
        started(copy)?;
        self.confirm(primary, timeout, Some(text))
    }

    /// Empties the clipboard, and checks that it is.
    pub fn clear(&self, primary: bool, timeout: Duration) -> Result<()> {
        let mut copy = self.command("wl-copy", primary);
        copy.arg("--clear");
        started(copy)?;
        self.confirm(primary, timeout, None)
    }

    /// Waits until the clipboard reads `wanted`.
    fn confirm(&self, primary: bool, timeout: Duration, wanted: Option<&str>) -> Result<()> {
        let deadline = Instant::now() + timeout;
        loop {
            let now = self.get(primary, timeout)?;
            if now.as_deref() == wanted {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(Error::failed(format!(
                    "the Wayland clipboard reads {now:?} after wl-copy set {wanted:?}"
                ))
                .with_suggestion(
                    "another client may have taken the selection at once; try again",
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn missing(program: &str, e: std::io::Error) -> Error {
    Error::unsupported(format!(
        "the Wayland clipboard goes through {program} (package wl-clipboard), which did not start: {e}"
    ))
    .with_suggestion("install wl-clipboard (apt-get install wl-clipboard)")
}

/// Runs `wl-copy`, which sets the selection, then forks a process that
/// holds it: no pipe is left to it, or reading one would wait for that
/// process to end.
fn started(mut copy: Command) -> Result<()> {
    copy.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let status = copy.status().map_err(|e| missing("wl-copy", e))?;
    if !status.success() {
        return Err(Error::failed(format!(
            "wl-copy failed ({status}): the compositor may not offer wlr-data-control"
        ))
        .with_suggestion("check that the headless Wayland desktop (sway) still runs"));
    }
    Ok(())
}

/// Runs `wl-paste` within `timeout`: what it printed, or `None` when it
/// says the clipboard is empty or has no content of the type asked.
fn run(mut paste: Command, timeout: Duration) -> Result<Option<Vec<u8>>> {
    paste
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = paste.spawn().map_err(|e| missing("wl-paste", e))?;
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let out = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stdout.read_to_end(&mut bytes);
        bytes
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| Error::failed(e.to_string()))? {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Error::timeout(format!(
                "the app holding the Wayland clipboard did not give its content within {} ms",
                timeout.as_millis()
            ))
            .with_suggestion("the app may be busy; wait for it (idle) and read again"));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let bytes = out.join().unwrap_or_default();
    let said = err.join().unwrap_or_default();
    if status.success() {
        return Ok(Some(bytes));
    }
    // wl-paste's words for an empty clipboard, or one without the type asked.
    if ["Nothing is copied", "No selection", "No suitable type"]
        .iter()
        .any(|empty| said.contains(empty))
    {
        return Ok(None);
    }
    Err(
        Error::failed(format!("wl-paste failed ({status}): {}", said.trim()))
            .with_suggestion("check that the headless Wayland desktop (sway) still runs"),
    )
}
