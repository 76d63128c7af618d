//! Where commands may write files. On the command line, wherever its user
//! says. Under MCP, whose caller is an agent the host may trust less than
//! itself, only under the directories the host gave at start
//! (`uidrive mcp --files-dir DIR`), and nowhere without one: a capture then
//! comes back inline. A path under an allowed directory is opened one
//! component at a time from that directory, never following a symlink,
//! and the file is written beside its target and renamed over it, so it
//! never writes through a symlink or a hard link to a file elsewhere.

use std::ffi::{CString, OsString};
use std::fs::File;
use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use uidrive_core::{Error, Result};

/// Where files may be written.
pub enum Files {
    /// Anywhere this process may write (the command line).
    Anywhere,
    /// Only under these directories (MCP); none at all when empty.
    Under(Vec<Allowed>),
}

/// A directory files may be written under, held open since it was given.
pub struct Allowed {
    path: PathBuf,
    dir: File,
}

impl Files {
    /// Only under `dirs`, each an existing directory.
    pub fn under(dirs: &[PathBuf]) -> Result<Files> {
        let mut allowed = Vec::new();
        for dir in dirs {
            let path = std::fs::canonicalize(dir).map_err(|e| {
                Error::invalid_request(format!("--files-dir {}: {e}", dir.display()))
            })?;
            let opened = open_dir_at(libc::AT_FDCWD, path.as_os_str().as_bytes()).map_err(|e| {
                Error::invalid_request(format!("--files-dir {}: {e}", dir.display()))
            })?;
            allowed.push(Allowed { path, dir: opened });
        }
        Ok(Files::Under(allowed))
    }

    /// Whether files go anywhere (the command line), not only where allowed.
    pub fn anywhere(&self) -> bool {
        matches!(self, Files::Anywhere)
    }

    /// Checks that `path` may be written, without writing it.
    pub fn check(&self, path: &Path, what: &str) -> Result<()> {
        match self {
            Files::Anywhere => Ok(()),
            Files::Under(allowed) => self.placed(allowed, path, what).map(|_| ()),
        }
    }

    fn placed<'a>(
        &self,
        allowed: &'a [Allowed],
        path: &Path,
        what: &str,
    ) -> Result<(&'a Allowed, Vec<OsString>)> {
        if allowed.is_empty() {
            return Err(Error::invalid_request(format!(
                "{what}: this server writes no files (it was started without --files-dir)"
            ))
            .with_suggestion(
                "leave the file out to get the result back in the answer, or have the host start `uidrive mcp --files-dir DIR`",
            ));
        }
        place(allowed, path).ok_or_else(|| {
            let dirs: Vec<String> = allowed
                .iter()
                .map(|a| a.path.display().to_string())
                .collect();
            Error::invalid_request(format!(
                "{what}: {} is not under the directories files may be written to ({})",
                path.display(),
                dirs.join(", ")
            ))
            .with_suggestion("give a path under one of them (a relative path is under the first)")
        })
    }

    /// Writes `bytes` to `path` if these rules allow it; answers the path written.
    pub fn write(&self, path: &Path, bytes: &[u8], what: &str) -> Result<PathBuf> {
        let allowed = match self {
            Files::Anywhere => {
                std::fs::write(path, bytes).map_err(|e| {
                    Error::failed(format!("could not write {}: {e}", path.display()))
                })?;
                return Ok(path.to_path_buf());
            }
            Files::Under(allowed) => allowed,
        };
        let (base, parts) = self.placed(allowed, path, what)?;
        let refused = |e: std::io::Error| {
            Error::failed(format!("{what}: could not write {}: {e}", path.display())).with_suggestion(
                "give a path of directories that exist under the allowed directory, with no symlinks on the way",
            )
        };
        let (name, dirs) = parts.split_last().expect("place gives at least a name");
        let mut held: Option<File> = None;
        for dir in dirs {
            let at = held.as_ref().unwrap_or(&base.dir).as_raw_fd();
            held = Some(open_dir_at(at, dir.as_bytes()).map_err(refused)?);
        }
        let dir = held.as_ref().unwrap_or(&base.dir);
        write_in(dir, name, bytes).map_err(refused)?;
        Ok(base.path.join(parts.iter().collect::<PathBuf>()))
    }
}

/// The allowed directory `path` is under and its components below it (the
/// last is the file's name). A relative path is under the first directory;
/// `..` and `.` are refused.
fn place<'a>(allowed: &'a [Allowed], path: &Path) -> Option<(&'a Allowed, Vec<OsString>)> {
    let normal = |rest: &Path| -> Option<Vec<OsString>> {
        let parts: Option<Vec<OsString>> = rest
            .components()
            .map(|c| match c {
                Component::Normal(part) => Some(part.to_os_string()),
                _ => None,
            })
            .collect();
        parts.filter(|p| !p.is_empty())
    };
    if path.is_relative() {
        let first = allowed.first()?;
        return normal(path).map(|parts| (first, parts));
    }
    allowed
        .iter()
        .find_map(|a| normal(path.strip_prefix(&a.path).ok()?).map(|parts| (a, parts)))
}

/// Opens directory `name` in `at` (a directory's descriptor, or the
/// working directory), not following a symlink.
fn open_dir_at(at: i32, name: &[u8]) -> std::io::Result<File> {
    let name = CString::new(name).map_err(std::io::Error::other)?;
    // SAFETY: openat with a valid C string; the descriptor is ours to own.
    let fd = unsafe {
        libc::openat(
            at,
            name.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a descriptor just opened and owned by nobody else.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// Writes `bytes` to a new file beside `name` in `dir`, then renames it
/// over `name`: whatever `name` was (a symlink, a hard link to a file
/// elsewhere) is replaced, never written through.
fn write_in(dir: &File, name: &OsString, bytes: &[u8]) -> std::io::Result<()> {
    let staged = CString::new(
        [
            b".uidrive-",
            name.as_bytes(),
            format!(".{}.tmp", std::process::id()).as_bytes(),
        ]
        .concat(),
    )
    .map_err(std::io::Error::other)?;
    let target = CString::new(name.as_bytes()).map_err(std::io::Error::other)?;
    // SAFETY: openat with valid C strings; the descriptor is ours to own.
    let fd = unsafe {
        libc::openat(
            dir.as_raw_fd(),
            staged.as_ptr(),
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            0o644,
        )
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a descriptor just opened and owned by nobody else.
    let mut file = unsafe { File::from_raw_fd(fd) };
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    // SAFETY: renameat and unlinkat with valid C strings in a directory we hold open.
    let moved = written.and_then(|()| {
        match unsafe {
            libc::renameat(
                dir.as_raw_fd(),
                staged.as_ptr(),
                dir.as_raw_fd(),
                target.as_ptr(),
            )
        } {
            0 => Ok(()),
            _ => Err(std::io::Error::last_os_error()),
        }
    });
    if moved.is_err() {
        unsafe { libc::unlinkat(dir.as_raw_fd(), staged.as_ptr(), 0) };
    }
    moved
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_go_only_under_the_allowed_directory_and_never_through_links() {
        let root = tempfile::tempdir().unwrap();
        let allowed = root.path().join("out");
        let outside = root.path().join("outside");
        std::fs::create_dir_all(allowed.join("sub")).unwrap();
        std::fs::write(&outside, b"keep").unwrap();
        let files = Files::under(std::slice::from_ref(&allowed)).unwrap();
        // Relative and absolute paths under it.
        let written = files.write(Path::new("a.png"), b"1", "t").unwrap();
        assert_eq!(std::fs::read(&written).unwrap(), b"1");
        files.write(&allowed.join("sub/b.png"), b"2", "t").unwrap();
        assert_eq!(std::fs::read(allowed.join("sub/b.png")).unwrap(), b"2");
        // Outside it, above it, or through /proc: refused.
        for bad in [
            outside.clone(),
            allowed.join("../outside"),
            PathBuf::from("/proc/self/mem"),
        ] {
            assert!(files.write(&bad, b"x", "t").is_err(), "{}", bad.display());
        }
        assert_eq!(std::fs::read(&outside).unwrap(), b"keep");
        // A symlink in the allowed directory is replaced, not followed;
        // a symlinked directory on the way is refused.
        std::os::unix::fs::symlink(&outside, allowed.join("link.png")).unwrap();
        files.write(&allowed.join("link.png"), b"3", "t").unwrap();
        assert_eq!(std::fs::read(&outside).unwrap(), b"keep");
        std::os::unix::fs::symlink(root.path(), allowed.join("up")).unwrap();
        assert!(files.write(&allowed.join("up/outside"), b"x", "t").is_err());
        assert_eq!(std::fs::read(&outside).unwrap(), b"keep");
        // A hard link to a file elsewhere is replaced, not written through.
        std::fs::hard_link(&outside, allowed.join("hard.png")).unwrap();
        files.write(&allowed.join("hard.png"), b"4", "t").unwrap();
        assert_eq!(std::fs::read(&outside).unwrap(), b"keep");
        // With no directory given, nothing is written.
        let none = Files::under(&[]).unwrap();
        assert!(none.write(Path::new("c.png"), b"x", "t").is_err());
    }
}
