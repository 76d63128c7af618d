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
    /// The app's windows at the last observation, so that a settled action
    /// can say which opened, closed or took the focus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub windows: Option<Vec<SeenWindow>>,
    /// The trace `open --trace FILE` started: written to `file` at `close`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceSession>,
}

/// A trace recorded across a session's commands, staged in `dir`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceSession {
    pub file: PathBuf,
    pub dir: PathBuf,
}

/// A window as the session last saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeenWindow {
    pub id: u64,
    pub title: String,
    #[serde(default)]
    pub focused: bool,
}

/// Where a session's state lives.
pub enum Store {
    /// A file, locked while a command runs. The lock file goes when the
    /// command ends and the session keeps no state.
    File { files: Files, lock: File },
    /// Memory only: an MCP server's session, which ends with it.
    Memory,
}

/// What a session's file held, for [`Store::open_file_lenient`].
pub enum Read {
    State(State),
    /// The file is there but no state can be read from it: the error says why.
    Damaged(Error),
}

/// Where session `name` keeps its files, under [`sessions_dir`]. The state
/// is the file named as the session; everything else uidrive keeps there
/// starts with a dot, which no session name does, so no session's file is
/// another's lock, log or temporary file (`s1.lock` is a session of its own,
/// whose lock is `.s1.lock.lock`).
pub struct Files {
    pub state: PathBuf,
    pub lock: PathBuf,
    pub log: PathBuf,
    dir: PathBuf,
    name: String,
}

impl Files {
    pub fn of(name: &str) -> Result<Files> {
        check_name(name)?;
        let dir = sessions_dir();
        Ok(Files {
            state: dir.join(name),
            lock: dir.join(format!(".{name}.lock")),
            log: dir.join(format!(".{name}.log")),
            dir,
            name: name.to_string(),
        })
    }

    /// A temporary file for the state that no other writer uses: the
    /// session's, this process's and a counter's.
    fn temporary(&self) -> PathBuf {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        self.dir.join(format!(
            ".{}.{}-{}.tmp",
            self.name,
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ))
    }
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
            "{name:?} is not a session name: use letters, digits, `.`, `_` and `-`"
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
        match Store::open_file_lenient(name)? {
            (store, Read::State(state)) => Ok((store, state)),
            (_, Read::Damaged(e)) => Err(e),
        }
    }

    /// [`Store::open_file`] that also opens a session whose file is damaged
    /// (for `close`, which must still stop what the session started).
    pub fn open_file_lenient(name: &str) -> Result<(Store, Read)> {
        let files = Files::of(name)?;
        make_private_dir(&files.dir)?;
        let lock = lock(&files.lock)?;
        let path = &files.state;
        let read = match fs::read(path) {
            // An empty file (a lock file of an older uidrive, named like this session) holds nothing.
            Ok(bytes) if bytes.is_empty() => Read::State(State::default()),
            Ok(bytes) => match serde_json::from_slice(&bytes) {
                Ok(state) => Read::State(state),
                Err(e) => Read::Damaged(
                    Error::failed(format!("session file {} is damaged: {e}", path.display()))
                        .with_suggestion(
                            "run `uidrive close` (it stops what the session started and removes the file), then open the app again",
                        ),
                ),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Read::State(State::default()),
            Err(e) => {
                return Err(Error::failed(format!(
                    "could not read {}: {e}",
                    path.display()
                )))
            }
        };
        Ok((Store::File { files, lock }, read))
    }

    /// The file of the session's state, if it has one.
    pub fn state_path(&self) -> Option<&Path> {
        match self {
            Store::File { files, .. } => Some(&files.state),
            Store::Memory => None,
        }
    }

    /// Writes the state: to a temporary file of this writer's own, then
    /// renamed over the old one, so a reader sees the old state or the new.
    pub fn save(&self, state: &State) -> Result<()> {
        let Store::File { files, .. } = self else {
            return Ok(());
        };
        let path = &files.state;
        let bytes = serde_json::to_vec(state)
            .map_err(|e| Error::failed(format!("could not write the session: {e}")))?;
        let temporary = files.temporary();
        let write = || -> std::io::Result<()> {
            let mut file = OpenOptions::new()
                .create_new(true)
                .write(true)
                .mode(0o600)
                .open(&temporary)?;
            file.write_all(&bytes)?;
            file.sync_all()?;
            fs::rename(&temporary, path)
        };
        write().map_err(|e| {
            let _ = fs::remove_file(&temporary);
            Error::failed(format!("could not save {}: {e}", path.display()))
        })
    }

    /// Removes the session's file.
    pub fn delete(&self) {
        if let Store::File { files, .. } = self {
            let _ = fs::remove_file(&files.state);
        }
    }
}

impl Drop for Store {
    /// A session that keeps no state keeps no lock file either. It is
    /// removed while still held; a command waiting on it then finds that
    /// its lock is no longer the file's and takes the new one ([`lock`]).
    fn drop(&mut self) {
        if let Store::File { files, lock } = self {
            if !files.state.exists() && same_file(lock, &files.lock) {
                let _ = fs::remove_file(&files.lock);
            }
        }
    }
}

/// Opens and locks the session's lock file: one command at a time per
/// session; other sessions are not held up. A lock file removed while this
/// command waited (its session ended) is opened again.
fn lock(path: &Path) -> Result<File> {
    loop {
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(path)
            .map_err(|e| Error::failed(format!("could not open the session's lock: {e}")))?;
        // SAFETY: flock on a file descriptor we own.
        unsafe {
            libc::flock(lock.as_raw_fd(), libc::LOCK_EX);
        }
        if same_file(&lock, path) {
            return Ok(lock);
        }
    }
}

/// Whether `path` is still the file `file` has open.
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}
