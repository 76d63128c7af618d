//! `serve`: the protocol's server over any [`Driver`].

use crate::driver::Driver;
use crate::error::{Error, ErrorCode, Result};
use crate::protocol::wire::{self, LineRead, MAX_REQUEST_BYTES};
use crate::protocol::{InputEvent, InputParams, KeyChord, PointerButton, WindowId};
use serde_json::Value;
use std::fs;
use std::io::{self, BufReader, Write};
use std::net::Shutdown;
use std::os::fd::{FromRawFd, IntoRawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The longest socket path, in bytes: `sun_path` holds 108 with its NUL.
pub const MAX_SOCKET_PATH_BYTES: usize = 107;

/// What one server takes on at most, so that its threads and memory stay
/// bounded whatever its clients do. docs/protocol.md lists the defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Connections served at once. One more is answered with a `failed`
    /// error (id `null`) and closed.
    pub max_connections: usize,
    /// The longest request line; a longer one is answered with
    /// `parse_error` and the connection is closed.
    pub max_request_bytes: usize,
    /// How long a connection may leave a line unfinished (bytes sent, no
    /// newline) before it is answered with `parse_error` and closed.
    pub partial_line_idle: Duration,
    /// How long a connection may send nothing between requests before it is
    /// closed. `SocketDriver` notices and opens a new one.
    pub idle_connection: Duration,
    /// When every slot is taken, a connection that has sent nothing between
    /// requests for this long is closed to make room for a new one (the
    /// longest idle first); only when none is, the new one is refused.
    pub idle_when_full: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_connections: 64,
            max_request_bytes: MAX_REQUEST_BYTES,
            partial_line_idle: Duration::from_secs(10),
            idle_connection: Duration::from_secs(300),
            idle_when_full: Duration::from_secs(2),
        }
    }
}

/// A running server. Stopping it (or dropping it) removes its socket, if
/// the file at its path is still the socket it made.
pub struct Server {
    path: PathBuf,
    /// The device and inode of the socket it made.
    made: Option<(u64, u64)>,
    stopping: Arc<AtomicBool>,
    /// A second descriptor of the listening socket, shut down to wake the acceptor.
    waker: Option<UnixListener>,
    acceptor: Option<JoinHandle<()>>,
    connections: Arc<AtomicUsize>,
}

/// Serves `driver` on a Unix socket at `path`, made with mode 0600, within
/// the default [`Limits`].
///
/// A socket left by a process that ended is replaced; a socket another server
/// listens on, or a file that is not a socket, is refused; so is a path longer
/// than a Unix socket can have ([`MAX_SOCKET_PATH_BYTES`]), and a directory
/// another user could replace the socket in ([`check_socket_dir`]). Connections are
/// served side by side; each one's answers come in the order of its requests.
/// Prints `UIDRIVE_LISTENING path=<path>` on stderr once it listens.
pub fn serve(driver: Arc<dyn Driver>, path: impl AsRef<Path>) -> Result<Server> {
    serve_with(driver, path, Limits::default())
}

/// [`serve`] within the given limits.
pub fn serve_with(
    driver: Arc<dyn Driver>,
    path: impl AsRef<Path>,
    limits: Limits,
) -> Result<Server> {
    let path = path.as_ref().to_path_buf();
    check_socket_path(&path)?;
    check_socket_dir(&path)?;
    clear_stale_socket(&path)?;
    let listener = bind_private(&path)?;
    let made = fs::symlink_metadata(&path).ok().map(|m| (m.dev(), m.ino()));
    let waker = listener
        .try_clone()
        .map_err(|e| Error::failed(format!("could not share the listening socket: {e}")))?;
    let stopping = Arc::new(AtomicBool::new(false));
    let connections = Arc::new(AtomicUsize::new(0));
    let acceptor = {
        let stopping = stopping.clone();
        let connections = connections.clone();
        std::thread::Builder::new()
            .name("uidrive-accept".into())
            .spawn(move || accept_loop(listener, driver, stopping, connections, limits))
            .map_err(|e| Error::failed(format!("could not start the server thread: {e}")))?
    };
    eprintln!("UIDRIVE_LISTENING path={}", path.display());
    Ok(Server {
        path,
        made,
        stopping,
        waker: Some(waker),
        acceptor: Some(acceptor),
        connections,
    })
}

/// Refuses a path no Unix socket can have, before anything is made: empty,
/// longer than [`MAX_SOCKET_PATH_BYTES`], or with a NUL byte.
pub fn check_socket_path(path: &Path) -> Result<()> {
    let bytes = path.as_os_str().as_bytes();
    if bytes.is_empty() {
        return Err(Error::invalid_request("the socket path is empty")
            .with_suggestion("give a path such as /tmp/app.sock"));
    }
    if bytes.len() > MAX_SOCKET_PATH_BYTES {
        return Err(Error::invalid_request(format!(
            "the socket path {} is {} bytes; a Unix socket path holds at most {MAX_SOCKET_PATH_BYTES}",
            path.display(),
            bytes.len()
        ))
        .with_suggestion("choose a shorter path, as one under /tmp or $XDG_RUNTIME_DIR"));
    }
    if bytes.contains(&0) {
        return Err(Error::invalid_request(
            "the socket path contains a NUL byte",
        ));
    }
    Ok(())
}

/// Refuses a socket in a directory where another user could replace it:
/// the socket's directory and every directory above it must belong to this
/// user or to root, and none may be writable by others unless it is sticky
/// (as `/tmp`: there, others cannot rename or remove what is ours). A file
/// already at the path must be ours too.
pub fn check_socket_dir(path: &Path) -> Result<()> {
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let dir = fs::canonicalize(parent).map_err(|e| {
        Error::failed(format!(
            "cannot reach the directory {}: {e}",
            parent.display()
        ))
        .with_suggestion("choose a socket path in a directory that exists")
    })?;
    let me = crate::children::user_id();
    for dir in dir.ancestors() {
        let meta = fs::metadata(dir)
            .map_err(|e| Error::failed(format!("cannot check {}: {e}", dir.display())))?;
        let mode = meta.permissions().mode();
        let others_write = mode & 0o022 != 0;
        let sticky = mode & 0o1000 != 0;
        let why = if meta.uid() != me && meta.uid() != 0 {
            Some(format!("belongs to another user (uid {})", meta.uid()))
        } else if others_write && !sticky {
            Some(format!(
                "can be written by other users (mode {:o}) and is not sticky",
                mode & 0o7777
            ))
        } else {
            None
        };
        if let Some(why) = why {
            return Err(Error::failed(format!(
                "refusing to serve at {}: the directory {} {why}, so another user could replace the socket and take your app's input",
                path.display(),
                dir.display()
            ))
            .with_suggestion(
                "put the socket in a directory only you can write to, as $XDG_RUNTIME_DIR or a directory made with mode 0700",
            ));
        }
    }
    if let Ok(meta) = fs::symlink_metadata(path) {
        if meta.uid() != me {
            return Err(Error::failed(format!(
                "refusing to serve at {}: the file there belongs to another user (uid {})",
                path.display(),
                meta.uid()
            ))
            .with_suggestion("choose another socket path, in a directory only you can write to"));
        }
    }
    Ok(())
}

impl Server {
    /// The socket path the server listens on.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Connections being served now.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    /// Stops accepting connections and removes the socket. Calls in flight
    /// on open connections finish on their own threads.
    pub fn stop(mut self) {
        self.shut_down();
    }

    fn shut_down(&mut self) {
        if self.stopping.swap(true, Ordering::SeqCst) {
            return;
        }
        // Shutting the listening socket down wakes the acceptor from accept()
        // with an error; nothing connects to the path, which may be unreachable.
        if let Some(waker) = self.waker.take() {
            // SAFETY: the descriptor is ours (a duplicate made by try_clone)
            // and the stream takes it over, closing it when dropped.
            let socket = unsafe { UnixStream::from_raw_fd(waker.into_raw_fd()) };
            let _ = socket.shutdown(Shutdown::Both);
        }
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
        // Only the socket this server made: a newer server's at the same
        // path, or a file someone put there, stays.
        let still_ours =
            fs::symlink_metadata(&self.path).is_ok_and(|m| Some((m.dev(), m.ino())) == self.made);
        if still_ours {
            let _ = fs::remove_file(&self.path);
        }
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
/// When the staging path would be longer than a socket path may be, the
/// socket is bound through the directory's descriptor (`/proc/self/fd/N/s`),
/// so every path [`check_socket_path`] accepts works.
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
        let listener = if staged.as_os_str().len() <= MAX_SOCKET_PATH_BYTES {
            UnixListener::bind(&staged)
        } else {
            let dir =
                fs::File::open(&staging).map_err(|e| fail("open the private directory", e))?;
            use std::os::fd::AsRawFd;
            UnixListener::bind(format!("/proc/self/fd/{}/s", dir.as_raw_fd()))
        }
        .map_err(|e| fail("bind the socket", e))?;
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

/// The connections being served, and since when each has been idle
/// between requests (`None` while a request is read or answered).
#[derive(Default)]
struct Served {
    next: u64,
    open: Vec<Open>,
}

struct Open {
    id: u64,
    idle_since: Option<Instant>,
    /// A second descriptor, shut down to close the connection from outside.
    stream: UnixStream,
}

type Registry = Arc<Mutex<Served>>;

fn lock(registry: &Registry) -> std::sync::MutexGuard<'_, Served> {
    registry.lock().unwrap_or_else(|p| p.into_inner())
}

/// Closes the connection idle longest, if one has been idle at least
/// `after`; its thread sees the end of its stream and frees its slot.
fn evict_idle(registry: &Registry, after: Duration) -> bool {
    let served = lock(registry);
    let now = Instant::now();
    let oldest = served
        .open
        .iter()
        .filter_map(|o| o.idle_since.map(|since| (since, o)))
        .filter(|(since, _)| now.duration_since(*since) >= after)
        .min_by_key(|(since, _)| *since);
    match oldest {
        Some((_, open)) => {
            let _ = open.stream.shutdown(Shutdown::Both);
            true
        }
        None => false,
    }
}

/// Counts a connection while its thread lives, and keeps its entry in the registry.
struct Slot {
    connections: Arc<AtomicUsize>,
    registry: Registry,
    id: u64,
}

impl Slot {
    /// Marks the connection idle between requests (`true`) or busy.
    fn idle(&self, idle: bool) {
        if let Some(open) = lock(&self.registry)
            .open
            .iter_mut()
            .find(|o| o.id == self.id)
        {
            open.idle_since = match (idle, open.idle_since) {
                (true, Some(since)) => Some(since),
                (true, None) => Some(Instant::now()),
                (false, _) => None,
            };
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        lock(&self.registry).open.retain(|o| o.id != self.id);
        self.connections.fetch_sub(1, Ordering::SeqCst);
    }
}

fn accept_loop(
    listener: UnixListener,
    driver: Arc<dyn Driver>,
    stopping: Arc<AtomicBool>,
    connections: Arc<AtomicUsize>,
    limits: Limits,
) {
    let limits = Arc::new(limits);
    let registry = Registry::default();
    loop {
        let accepted = listener.accept();
        if stopping.load(Ordering::SeqCst) {
            break;
        }
        let Ok((stream, _)) = accepted else {
            // A connection that went before it was taken, or no descriptors
            // left: do not spin on the error.
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        // Counted only when there is room, so the count never passes the limit.
        let take = || {
            connections.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < limits.max_connections).then_some(n + 1)
            })
        };
        let mut taken = take();
        if taken.is_err() && evict_idle(&registry, limits.idle_when_full) {
            // The closed connection's thread frees its slot as it ends.
            let deadline = Instant::now() + Duration::from_secs(1);
            while taken.is_err() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(1));
                taken = take();
            }
        }
        if taken.is_err() {
            refuse(stream, &limits);
            continue;
        }
        let Ok(handle) = stream.try_clone() else {
            connections.fetch_sub(1, Ordering::SeqCst);
            continue;
        };
        let id = {
            let mut served = lock(&registry);
            served.next += 1;
            let id = served.next;
            served.open.push(Open {
                id,
                idle_since: None,
                stream: handle,
            });
            id
        };
        let slot = Slot {
            connections: connections.clone(),
            registry: registry.clone(),
            id,
        };
        let driver = driver.clone();
        let limits = limits.clone();
        let spawned = std::thread::Builder::new()
            .name("uidrive-conn".into())
            .spawn(move || serve_connection(stream, driver.as_ref(), &limits, &slot));
        if spawned.is_err() {
            // The thread (and the stream and slot it owned) is gone; back off.
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// Tells a connection over the limit why it is closed, without waiting on it.
fn refuse(mut stream: UnixStream, limits: &Limits) {
    let err = Error::failed(format!(
        "the server already serves {} connections, as many as it takes at once, and none has been idle for {} ms",
        limits.max_connections,
        limits.idle_when_full.as_millis()
    ))
    .with_suggestion("close connections you no longer use, or try again once others have closed");
    let _ = stream.set_nonblocking(true);
    let _ = stream.write_all(&wire::encode_answer(&Value::Null, &Err(err)));
}

/// What `input` requests with `hold` left down on one connection: released
/// when the connection ends, however it ends.
struct Held<'a> {
    driver: &'a dyn Driver,
    window: Option<WindowId>,
    keys: Vec<KeyChord>,
    buttons: Vec<PointerButton>,
}

impl Held<'_> {
    /// Notes what an answered `input` request pressed (if it held them) and released.
    fn note(&mut self, params: &Option<Value>) {
        let Some(Ok(params)) = params.clone().map(serde_json::from_value::<InputParams>) else {
            return;
        };
        for event in &params.events {
            match event {
                InputEvent::KeyDown { key } if params.hold && !self.keys.contains(key) => {
                    self.keys.push(key.clone());
                    self.window = params.window;
                }
                InputEvent::PointerDown(p) if params.hold => {
                    self.buttons.retain(|b| b.button() != p.button());
                    self.buttons.push(p.clone());
                    self.window = params.window;
                }
                InputEvent::KeyUp { key } => self.keys.retain(|k| k.key != key.key),
                InputEvent::PointerUp(p) => self.buttons.retain(|b| b.button() != p.button()),
                _ => {}
            }
        }
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        if self.keys.is_empty() && self.buttons.is_empty() {
            return;
        }
        let mut events: Vec<InputEvent> =
            self.buttons.drain(..).map(InputEvent::PointerUp).collect();
        events.extend(
            self.keys
                .drain(..)
                .rev()
                .map(|key| InputEvent::KeyUp { key }),
        );
        let params = InputParams {
            window: self.window,
            events,
            hold: false,
        };
        let _ = self.driver.input(&params);
    }
}

fn serve_connection(stream: UnixStream, driver: &dyn Driver, limits: &Limits, slot: &Slot) {
    let Ok(writer) = stream.try_clone() else {
        return;
    };
    let mut held = Held {
        driver,
        window: None,
        keys: Vec::new(),
        buttons: Vec::new(),
    };
    // A client that stops reading its answers does not hold the thread for ever.
    let _ = writer.set_write_timeout(Some(limits.idle_connection.max(Duration::from_secs(1))));
    let mut writer = io::BufWriter::new(writer);
    let mut reader = BufReader::new(stream);
    loop {
        let mut unfinished = false;
        let read = wire::read_line(&mut reader, limits.max_request_bytes, |reader, started| {
            // Waiting for a request may take long; an unfinished one may not.
            unfinished = started || !reader.buffer().is_empty();
            slot.idle(!unfinished);
            let wait = if unfinished {
                limits.partial_line_idle
            } else {
                limits.idle_connection
            };
            reader
                .get_ref()
                .set_read_timeout(Some(wait.max(Duration::from_millis(1))))
        });
        slot.idle(false);
        let line = match read {
            // A last request without its newline is still answered.
            Ok(LineRead::Line(line) | LineRead::Cut(line)) => line,
            Ok(LineRead::End) => return,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                // A connection idle between requests is closed without a word.
                if unfinished {
                    send_alone(
                        &mut writer,
                        Error::new(
                            ErrorCode::ParseError,
                            format!(
                                "the line stayed unfinished for {} ms; the connection is closed",
                                limits.partial_line_idle.as_millis()
                            ),
                        )
                        .with_suggestion(
                            "send each request whole, as one line ending in a newline",
                        ),
                    );
                }
                return;
            }
            Err(_) => return,
            Ok(LineRead::TooLong) => {
                send_alone(
                    &mut writer,
                    Error::new(
                        ErrorCode::ParseError,
                        format!(
                            "the line is longer than {} bytes, the longest request this server reads; the connection is closed",
                            limits.max_request_bytes
                        ),
                    )
                    .with_suggestion("send smaller requests: split long input or text into several"),
                );
                return;
            }
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        // The answer repeats the id as the request wrote it (a big integer
        // stays one); a line that is no JSON object is answered with null.
        let answer = |id: &Value, outcome: &Result<Value>| match wire::raw_id(&line) {
            Some(raw) if !id.is_null() => wire::encode_answer_raw(raw, outcome),
            _ => wire::encode_answer(id, outcome),
        };
        let answer = match wire::parse_request(&line) {
            Ok(request) => {
                let input = (request.method == "input").then(|| request.params.clone());
                let outcome = driver.call(&request.method, request.params);
                if let (Some(params), Ok(_)) = (input, &outcome) {
                    held.note(&params);
                }
                answer(&request.id, &outcome)
            }
            Err((id, err)) => answer(&id, &Err(err)),
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

/// Answers, with id `null`, why the connection is about to close.
fn send_alone(writer: &mut io::BufWriter<UnixStream>, err: Error) {
    let _ = writer
        .get_ref()
        .set_write_timeout(Some(Duration::from_secs(1)));
    let _ = writer.write_all(&wire::encode_answer(&Value::Null, &Err(err)));
    let _ = writer.flush();
}
