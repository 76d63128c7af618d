//! `serve`: the protocol's server over any [`Driver`].

use crate::driver::Driver;
use crate::error::{Error, ErrorCode, Result};
use crate::protocol::wire::{self, LineRead, MAX_LINE_BYTES};
use serde_json::Value;
use std::fs;
use std::io::{self, BufReader, Write};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// A running server. Stopping it (or dropping it) removes its socket.
pub struct Server {
    path: PathBuf,
    stopping: Arc<AtomicBool>,
    acceptor: Option<JoinHandle<()>>,
}

/// Serves `driver` on a Unix socket at `path`, made with mode 0600.
///
/// A socket left by a process that ended is replaced; a socket another server
/// listens on, or a file that is not a socket, is refused. Connections are
/// served side by side; each one's answers come in the order of its requests.
/// Prints `UIDRIVE_LISTENING path=<path>` on stderr once it listens.
pub fn serve(driver: Arc<dyn Driver>, path: impl AsRef<Path>) -> Result<Server> {
    let path = path.as_ref().to_path_buf();
    clear_stale_socket(&path)?;
    let listener = bind_private(&path)?;
    let stopping = Arc::new(AtomicBool::new(false));
    let acceptor = {
        let stopping = stopping.clone();
        std::thread::Builder::new()
            .name("uidrive-accept".into())
            .spawn(move || accept_loop(listener, driver, stopping))
            .map_err(|e| Error::failed(format!("could not start the server thread: {e}")))?
    };
    eprintln!("UIDRIVE_LISTENING path={}", path.display());
    Ok(Server {
        path,
        stopping,
        acceptor: Some(acceptor),
    })
}

impl Server {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Stops accepting connections and removes the socket.
    pub fn stop(mut self) {
        self.shut_down();
    }

    fn shut_down(&mut self) {
        if self.stopping.swap(true, Ordering::SeqCst) {
            return;
        }
        // Wake the acceptor, which is blocked in accept().
        let _ = UnixStream::connect(&self.path);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
        let _ = fs::remove_file(&self.path);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shut_down();
    }
}

fn clear_stale_socket(path: &Path) -> Result<()> {
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(Error::failed(format!(
                "cannot check {}: {e}",
                path.display()
            )))
        }
    };
    if !meta.file_type().is_socket() {
        return Err(
            Error::failed(format!("{} exists and is not a socket", path.display()))
                .with_suggestion("remove the file or choose another socket path"),
        );
    }
    match UnixStream::connect(path) {
        Ok(_) => Err(
            Error::failed(format!("another server listens at {}", path.display()))
                .with_suggestion("stop that server first, or choose another socket path"),
        ),
        Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
            fs::remove_file(path).map_err(|e| {
                Error::failed(format!(
                    "cannot remove the stale socket {}: {e}",
                    path.display()
                ))
            })
        }
        Err(e) => Err(Error::failed(format!(
            "cannot check the socket {}: {e}",
            path.display()
        ))),
    }
}

/// Binds in a fresh private directory beside `path`, then moves the socket
/// into place, so that it is never reachable with a wider mode than 0600.
fn bind_private(path: &Path) -> Result<UnixListener> {
    let fail = |what: &str, e: io::Error| {
        Error::failed(format!("cannot {what} for {}: {e}", path.display()))
            .with_suggestion("choose a socket path in a directory you can write to")
    };
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let staging = parent.join(format!(".uidrive-{}-{}", std::process::id(), unique()));
    fs::create_dir(&staging).map_err(|e| fail("create a private directory", e))?;
    let result = (|| {
        fs::set_permissions(&staging, fs::Permissions::from_mode(0o700))
            .map_err(|e| fail("make the private directory", e))?;
        let staged = staging.join("s");
        let listener = UnixListener::bind(&staged).map_err(|e| fail("bind the socket", e))?;
        fs::set_permissions(&staged, fs::Permissions::from_mode(0o600))
            .map_err(|e| fail("set the socket's mode", e))?;
        fs::rename(&staged, path).map_err(|e| fail("move the socket into place", e))?;
        Ok(listener)
    })();
    let _ = fs::remove_dir_all(&staging);
    result
}

fn unique() -> u64 {
    use std::sync::atomic::AtomicU64;
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

fn accept_loop(listener: UnixListener, driver: Arc<dyn Driver>, stopping: Arc<AtomicBool>) {
    for stream in listener.incoming() {
        if stopping.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = stream else { continue };
        let driver = driver.clone();
        let _ = std::thread::Builder::new()
            .name("uidrive-conn".into())
            .spawn(move || serve_connection(stream, driver.as_ref()));
    }
}

fn serve_connection(stream: UnixStream, driver: &dyn Driver) {
    let Ok(writer) = stream.try_clone() else {
        return;
    };
    let mut writer = io::BufWriter::new(writer);
    let mut reader = BufReader::new(stream);
    loop {
        let line = match wire::read_line(&mut reader, MAX_LINE_BYTES, |_| Ok(())) {
            // A last request without its newline is still answered.
            Ok(LineRead::Line(line) | LineRead::Cut(line)) => line,
            Ok(LineRead::End) | Err(_) => return,
            Ok(LineRead::TooLong) => {
                let err = Error::new(
                    ErrorCode::ParseError,
                    format!("the line is longer than {MAX_LINE_BYTES} bytes"),
                );
                let _ = writer.write_all(&wire::encode_answer(&Value::Null, &Err(err)));
                let _ = writer.flush();
                return;
            }
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let answer = match wire::parse_request(&line) {
            Ok(request) => {
                let outcome = driver.call(&request.method, request.params);
                wire::encode_answer(&request.id, &outcome)
            }
            Err((id, err)) => wire::encode_answer(&id, &Err(err)),
        };
        if writer
            .write_all(&answer)
            .and_then(|()| writer.flush())
            .is_err()
        {
            return;
        }
    }
}
