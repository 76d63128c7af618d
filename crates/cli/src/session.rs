//! Sessions: what one agent's commands share (the app, the window, the refs,
//! the last snapshot), kept in a file of its own under the user's cache
//! directory, mode 0600, so that agents side by side don't disturb each other.

use serde::{Deserialize, Serialize};
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use uidrive_core::snapshot::{RefMap, Snapshot};
use uidrive_core::{Error, Result};

/// The app a session drives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Target {
    /// The protocol socket commands connect to.
    pub socket: PathBuf,
    /// What was opened, for people: `--launch gnome-calculator`.
    pub what: String,
    /// The `uidrive serve` process this session started and owns, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub daemon: Option<u32>,
    /// Where that process writes its output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<PathBuf>,
}

/// Everything a session remembers between commands.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct State {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Target>,
    /// The window commands use when they name none (else the focused one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<u64>,
    #[serde(default)]
    pub refs: RefMap,
    /// The last snapshot taken, which `--settle` diffs against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last: Option<Snapshot>,
}

/// Where a session's state lives.
pub enum Store {
    /// A file, locked while a command runs.
    File { path: PathBuf, _lock: File },
    /// Memory only: an MCP server's session, which ends with it.
    Memory,
}

/// A session name: letters, digits, `.`, `_` and `-`, so it is a safe file name.
pub fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(Error::invalid_request(format!(
            "`{name}` is not a session name: use letters, digits, `.`, `_` and `-`"
        )))
    }
}

/// `$XDG_CACHE_HOME/uidrive/sessions`, else `~/.cache/uidrive/sessions`.
pub fn sessions_dir() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    cache.join("uidrive").join("sessions")
}

pub fn make_private_dir(dir: &Path) -> Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| Error::failed(format!("could not make {}: {e}", dir.display())))
}

impl Store {
    /// Opens (and locks) the file of session `name`, reading its state.
    pub fn open_file(name: &str) -> Result<(Store, State)> {
        check_name(name)?;
        let dir = sessions_dir();
        make_private_dir(&dir)?;
        let path = dir.join(name);
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(dir.join(format!("{name}.lock")))
            .map_err(|e| Error::failed(format!("could not open the session's lock: {e}")))?;
        // One command at a time per session; other sessions are not held up.
        // SAFETY: flock on a file descriptor we own.
        unsafe {
            libc::flock(lock.as_raw_fd(), libc::LOCK_EX);
        }
        let state = match fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                Error::failed(format!("session file {} is damaged: {e}", path.display()))
                    .with_suggestion(format!("remove {} and open the app again", path.display()))
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => State::default(),
            Err(e) => {
                return Err(Error::failed(format!(
                    "could not read {}: {e}",
                    path.display()
                )))
            }
        };
        Ok((Store::File { path, _lock: lock }, state))
    }

    /// Writes the state: to a private temporary file, then renamed over the old one.
    pub fn save(&self, state: &State) -> Result<()> {
        let Store::File { path, .. } = self else {
            return Ok(());
        };
        let bytes = serde_json::to_vec(state)
            .map_err(|e| Error::failed(format!("could not write the session: {e}")))?;
        let temporary = path.with_extension("tmp");
        let write = || -> std::io::Result<()> {
            let mut file = OpenOptions::new()
                .create(true)
                .truncate(true)
                .write(true)
                .mode(0o600)
                .open(&temporary)?;
            file.write_all(&bytes)?;
            file.sync_all()?;
            fs::rename(&temporary, path)
        };
        write().map_err(|e| Error::failed(format!("could not save {}: {e}", path.display())))
    }

    /// Removes the session's file.
    pub fn delete(&self) {
        if let Store::File { path, .. } = self {
            let _ = fs::remove_file(path);
        }
    }
}
