//! `SocketDriver`: the client of an app that speaks the protocol on a Unix socket.

use crate::driver::{call_json, Driver};
use crate::error::{Error, ErrorCode, Result};
use crate::protocol::wire::{self, decode_params, decode_result, LineRead, MAX_LINE_BYTES};
use crate::protocol::{
    ActParams, Capture, CaptureParams, CellAtParams, ElementAtParams, ElementId, EvalParams,
    EvalResult, Event, Hello, IdleParams, InputParams, MenuParams, Method, Node, Tree, TreeParams,
    WaitEventParams, WindowList,
};
use serde::Serialize;
use serde_json::Value;
use std::io::{self, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How a [`SocketDriver`] talks to its server.
#[derive(Debug, Clone)]
pub struct SocketOptions {
    /// How long any call may take before it fails with `timeout`.
    pub timeout: Duration,
    /// The `timeout` sent with an `idle` that gives none, so that it cannot wait forever.
    pub idle_timeout: Duration,
    /// How many idle connections to keep for reuse. More are opened while calls overlap.
    pub pool_size: usize,
    /// The longest answer line accepted.
    pub max_line_bytes: usize,
}

impl Default for SocketOptions {
    fn default() -> SocketOptions {
        SocketOptions {
            timeout: crate::defaults::LAUNCH,
            idle_timeout: crate::defaults::IDLE,
            pool_size: 4,
            max_line_bytes: MAX_LINE_BYTES,
        }
    }
}

/// A client of the protocol. Calls may come from several threads at once:
/// each takes a connection of its own from a small pool, so an `idle` on one
/// window does not hold up an action on another.
pub struct SocketDriver {
    path: PathBuf,
    options: SocketOptions,
    /// When every call must be answered by, whatever its own time limit
    /// (a command's whole time, [`SocketDriver::set_deadline`]).
    deadline: Mutex<Option<Instant>>,
    pool: Mutex<Vec<Connection>>,
    next_id: AtomicU64,
    hello: OnceLock<Hello>,
}

struct Connection {
    reader: BufReader<UnixStream>,
}

impl SocketDriver {
    /// Connects to the server at `path`, failing at once if none listens there.
    pub fn connect(path: impl AsRef<Path>) -> Result<SocketDriver> {
        SocketDriver::connect_with(path, SocketOptions::default())
    }

    /// Connects to the server at `path` with `options` (timeouts), failing at once if none listens there.
    pub fn connect_with(path: impl AsRef<Path>, options: SocketOptions) -> Result<SocketDriver> {
        let driver = SocketDriver {
            path: path.as_ref().to_path_buf(),
            options,
            deadline: Mutex::new(None),
            pool: Mutex::new(Vec::new()),
            next_id: AtomicU64::new(1),
            hello: OnceLock::new(),
        };
        let first = driver.open()?;
        driver.give_back(first);
        Ok(driver)
    }

    /// The socket path this driver connects to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The options it was made with.
    pub fn options(&self) -> &SocketOptions {
        &self.options
    }

    /// Makes every call from now on end by `deadline` (a `timeout` error
    /// once it has passed), however long its own limit, so a caller with a
    /// time for a whole task of many calls keeps it even when the server
    /// stops answering. `None` lifts it.
    pub fn set_deadline(&self, deadline: Option<Instant>) {
        *self.deadline.lock().unwrap_or_else(|p| p.into_inner()) = deadline;
    }

    fn deadline(&self) -> Option<Instant> {
        *self.deadline.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the server lists `method` in `hello`: an addition is asked
    /// only of a server that has it, since others may not answer an unknown
    /// method at once.
    fn offers(&self, method: Method) -> Result<bool> {
        Ok(self.hello()?.methods.iter().any(|m| m == method.as_str()))
    }

    /// Whether the server lists `param` among `idle`'s in `hello`
    /// (`idleParams`, uidrive's addition).
    fn takes_idle_param(&self, param: &str) -> Result<bool> {
        let hello = self.hello()?;
        Ok(hello
            .extra
            .get(crate::protocol::IDLE_PARAMS)
            .and_then(Value::as_array)
            .is_some_and(|params| params.iter().any(|p| p.as_str() == Some(param))))
    }

    /// Sends one request and waits up to `timeout` for its answer.
    pub fn request(&self, method: &str, params: Option<Value>, timeout: Duration) -> Result<Value> {
        let now = Instant::now();
        let mut deadline = now + timeout;
        let mut cut = None;
        if let Some(overall) = self.deadline().filter(|d| *d < deadline) {
            deadline = overall;
            let left = overall.saturating_duration_since(now);
            cut = Some(left);
            if left.is_zero() {
                return Err(self.explain(Failure::TimedOut, method, timeout, cut));
            }
        }
        let (mut connection, reused) = self.take()?;
        let id = Value::from(self.next_id.fetch_add(1, Ordering::Relaxed));
        let line = wire::encode_request(&id, method, params.as_ref());
        let exchange = |connection: &mut Connection| {
            match connection.send(&line, deadline) {
                // A server that refuses a connection (too many) writes why
                // and closes it, maybe before the request goes: the reason
                // is still there to read.
                Ok(()) | Err(Failure::Closed) => {
                    connection.receive(self.options.max_line_bytes, deadline)
                }
                Err(e) => Err(e),
            }
        };
        let answer = match exchange(&mut connection) {
            // A kept connection the server closed as idle (to make room when
            // full) just as the request went: the server never read it, so
            // it goes again on a new connection.
            Err(Failure::Closed) if reused => {
                connection = self.open()?;
                exchange(&mut connection)
            }
            other => other,
        }
        .map_err(|e| self.explain(e, method, timeout, cut))?;
        let (answer_id, outcome) = wire::parse_answer(&answer)?;
        // An error with a null id is about the connection itself (too many
        // connections, a line too long): the server closes it after.
        if answer_id.is_null() && outcome.is_err() {
            return outcome;
        }
        if answer_id != id {
            return Err(Error::protocol(format!(
                "the server answered request {answer_id} while uidrive waited for request {id} (`{method}`)"
            )));
        }
        // Only a connection that answered in step goes back to the pool.
        self.give_back(connection);
        outcome
    }

    fn call_typed<T: serde::de::DeserializeOwned>(
        &self,
        method: Method,
        params: &impl Serialize,
    ) -> Result<T> {
        let params = serde_json::to_value(params).map_err(|e| {
            Error::invalid_request(format!("{method}: could not write params: {e}"))
        })?;
        let result = self.request(method.as_str(), Some(params), self.options.timeout)?;
        decode_result(method.as_str(), result)
    }

    fn call_unit(&self, method: Method, params: &impl Serialize, timeout: Duration) -> Result<()> {
        let params = serde_json::to_value(params).map_err(|e| {
            Error::invalid_request(format!("{method}: could not write params: {e}"))
        })?;
        self.request(method.as_str(), Some(params), timeout)
            .map(|_| ())
    }

    fn open(&self) -> Result<Connection> {
        let stream = UnixStream::connect(&self.path).map_err(|e| {
            let path = self.path.display();
            match e.kind() {
                io::ErrorKind::NotFound => Error::disconnected(format!("no socket at {path}")).with_suggestion(
                    "start the app with its automation socket at this path (for MyGo apps, MYGO_AUTOMATION=<path>), or `uidrive serve --socket <path>`",
                ),
                io::ErrorKind::ConnectionRefused => Error::disconnected(format!(
                    "nothing listens at {path}: the app that made the socket has ended"
                ))
                .with_suggestion("start the app again; it replaces the stale socket"),
                io::ErrorKind::InvalidInput if path.to_string().len() > crate::server::MAX_SOCKET_PATH_BYTES => Error::disconnected(format!(
                    "the socket path {path} is longer than the {} bytes a Unix socket path holds",
                    crate::server::MAX_SOCKET_PATH_BYTES
                ))
                .with_suggestion("use a shorter socket path"),
                io::ErrorKind::PermissionDenied => Error::disconnected(format!("permission denied for {path}"))
                    .with_suggestion("run as the user who started the app: its socket is private to that user"),
                _ => Error::disconnected(format!("could not connect to {path}: {e}")),
            }
        })?;
        check_peer(&stream, &self.path)?;
        Ok(Connection {
            reader: BufReader::new(stream),
        })
    }

    /// A connection from the pool (`true`), else a new one.
    fn take(&self) -> Result<(Connection, bool)> {
        loop {
            let pooled = self.pool.lock().unwrap_or_else(|p| p.into_inner()).pop();
            match pooled {
                // The server closes connections idle for long: skip those.
                Some(mut connection) => {
                    if connection.still_open() {
                        return Ok((connection, true));
                    }
                }
                None => return Ok((self.open()?, false)),
            }
        }
    }

    fn give_back(&self, connection: Connection) {
        let mut pool = self.pool.lock().unwrap_or_else(|p| p.into_inner());
        if pool.len() < self.options.pool_size {
            pool.push(connection);
        }
    }

    /// `cut`: the time that was left of the caller's deadline, when that,
    /// not the call's own `timeout`, bounded the wait.
    fn explain(
        &self,
        failure: Failure,
        method: &str,
        timeout: Duration,
        cut: Option<Duration>,
    ) -> Error {
        match failure {
            Failure::TimedOut => Error::timeout(match cut {
                Some(left) if left.is_zero() => {
                    format!("the caller's time ran out before `{method}` could be asked")
                }
                Some(left) => format!(
                    "no answer to `{method}` before the caller's time ran out ({} ms were left for it)",
                    left.as_millis()
                ),
                None => format!("no answer to `{method}` within {} ms", timeout.as_millis()),
            })
            .with_suggestion("the app may be busy or hung; give a longer timeout or check the app"),
            Failure::Closed => Error::disconnected(format!(
                "the server closed the connection before answering `{method}`"
            ))
            .with_suggestion(
                "the app may have quit or crashed; check its output and start it again",
            ),
            Failure::TooLong(limit) => Error::protocol(format!(
                "the answer to `{method}` is longer than {limit} bytes"
            )),
            Failure::Io(e) => Error::disconnected(format!("`{method}` failed on the socket: {e}")),
        }
    }
}

/// Refuses a server that runs as another user, before anything is sent: a
/// socket someone else made (in a directory he could write to) would get
/// every request, the text typed into the app included. The server's user
/// is the kernel's answer (`SO_PEERCRED`), whatever the file says; root's
/// servers are accepted, since root can reach the app anyway.
fn check_peer(stream: &UnixStream, path: &Path) -> Result<()> {
    use std::os::fd::AsRawFd;
    let mut cred = libc::ucred {
        pid: 0,
        uid: u32::MAX,
        gid: u32::MAX,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into `cred`.
    let rc = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(Error::disconnected(format!(
            "cannot tell who serves {}: {}",
            path.display(),
            io::Error::last_os_error()
        )));
    }
    let me = crate::children::user_id();
    if cred.uid == me || cred.uid == 0 {
        return Ok(());
    }
    Err(Error::failed(format!(
        "refusing {}: its server runs as another user (uid {}, pid {}), and uidrive sends nothing to another user's socket",
        path.display(),
        cred.uid,
        cred.pid
    ))
    .with_suggestion(
        "someone else may have replaced the app's socket: serve the app from a directory only you can write to, and connect there",
    ))
}

enum Failure {
    TimedOut,
    Closed,
    TooLong(usize),
    Io(io::Error),
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Failure {
        match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => Failure::TimedOut,
            io::ErrorKind::BrokenPipe
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::UnexpectedEof => Failure::Closed,
            _ => Failure::Io(e),
        }
    }
}

fn remaining(deadline: Instant) -> std::result::Result<Duration, Failure> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        Err(Failure::TimedOut)
    } else {
        Ok(left)
    }
}

impl Connection {
    /// Whether the server still holds the connection open, with nothing unread on it.
    fn still_open(&mut self) -> bool {
        use std::io::Read;
        if !self.reader.buffer().is_empty() {
            return false;
        }
        let stream = self.reader.get_mut();
        if stream.set_nonblocking(true).is_err() {
            return false;
        }
        let mut byte = [0u8; 1];
        let open =
            matches!(stream.read(&mut byte), Err(e) if e.kind() == io::ErrorKind::WouldBlock);
        stream.set_nonblocking(false).is_ok() && open
    }

    fn send(&mut self, line: &[u8], deadline: Instant) -> std::result::Result<(), Failure> {
        let stream = self.reader.get_mut();
        stream.set_write_timeout(Some(remaining(deadline)?))?;
        stream.write_all(line)?;
        Ok(())
    }

    /// Reads one line, without its newline, never past `limit` bytes or `deadline`.
    fn receive(
        &mut self,
        limit: usize,
        deadline: Instant,
    ) -> std::result::Result<Vec<u8>, Failure> {
        let read = wire::read_line(&mut self.reader, limit, |reader, _| {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(io::ErrorKind::TimedOut.into());
            }
            reader.get_ref().set_read_timeout(Some(left))
        });
        match read {
            Ok(LineRead::Line(line)) => Ok(line),
            Ok(LineRead::End | LineRead::Cut(_)) => Err(Failure::Closed),
            Ok(LineRead::TooLong) => Err(Failure::TooLong(limit)),
            Err(e) => Err(e.into()),
        }
    }
}

impl Driver for SocketDriver {
    fn hello(&self) -> Result<Hello> {
        if let Some(hello) = self.hello.get() {
            return Ok(hello.clone());
        }
        let params = crate::protocol::HelloParams {
            protocol: Some(crate::protocol::PROTOCOL_VERSION),
            client: Some(format!("uidrive {}", env!("CARGO_PKG_VERSION"))),
        };
        let hello = match self.call_typed(Method::Hello, &params) {
            Ok(hello) => hello,
            // A protocol-1 server knows no `hello`: carry on without it.
            Err(e) if e.code == ErrorCode::UnknownMethod => Hello::protocol_1(),
            Err(e) => return Err(e),
        };
        Ok(self.hello.get_or_init(|| hello).clone())
    }

    fn windows(&self) -> Result<WindowList> {
        let result = self.request(Method::Windows.as_str(), None, self.options.timeout)?;
        decode_result(Method::Windows.as_str(), result)
    }

    fn tree(&self, params: &TreeParams) -> Result<Tree> {
        self.call_typed(Method::Tree, params)
    }

    fn act(&self, params: &ActParams) -> Result<()> {
        params.validate()?;
        self.call_unit(Method::Act, params, self.options.timeout)
    }

    fn input(&self, params: &InputParams) -> Result<()> {
        params.validate()?;
        self.call_unit(Method::Input, params, self.options.timeout)
    }

    fn menu(&self, params: &MenuParams) -> Result<()> {
        params.validate()?;
        self.call_unit(Method::Menu, params, self.options.timeout)
    }

    fn capture(&self, params: &CaptureParams) -> Result<Capture> {
        self.call_typed(Method::Capture, params)
    }

    fn element_at(&self, params: &ElementAtParams) -> Result<Option<ElementId>> {
        #[derive(serde::Deserialize)]
        struct Hit {
            id: Option<ElementId>,
        }
        if !self.offers(Method::ElementAt)? {
            return Err(Error::unsupported(
                "the server offers no hit test (`elementAt`)",
            ));
        }
        self.call_typed::<Hit>(Method::ElementAt, params)
            .map(|hit| hit.id)
    }

    fn cell_at(&self, params: &CellAtParams) -> Result<Vec<Node>> {
        #[derive(serde::Deserialize)]
        struct Cell {
            nodes: Vec<Node>,
        }
        params.validate()?;
        if !self.offers(Method::CellAt)? {
            return Err(Error::unsupported(
                "the server offers no lookup of a cell by its place (`cellAt`)",
            ));
        }
        self.call_typed::<Cell>(Method::CellAt, params)
            .map(|cell| cell.nodes)
    }

    fn wait_event(&self, params: &WaitEventParams) -> Result<Event> {
        params.validate()?;
        if !self.offers(Method::WaitEvent)? {
            return Err(Error::unsupported(
                "the server offers no accessibility events (`waitEvent`)",
            ));
        }
        let mut params = params.clone();
        let mut wait = *params
            .timeout
            .get_or_insert(crate::defaults::EVENT.as_millis() as u64);
        // Within the caller's deadline, the server is asked to give up first.
        if let Some(deadline) = self.deadline() {
            let left = deadline
                .saturating_duration_since(Instant::now())
                .as_millis() as u64;
            if left < wait {
                wait = left.saturating_sub(100);
                params.timeout = Some(wait);
            }
        }
        let params_json = serde_json::to_value(&params).map_err(|e| {
            Error::invalid_request(format!("waitEvent: could not write params: {e}"))
        })?;
        // The server answers `timeout` itself; the socket waits a little longer for that answer.
        let wait = Duration::from_millis(wait);
        let timeout = wait + self.options.timeout.min(Duration::from_secs(5));
        let result = self.request(Method::WaitEvent.as_str(), Some(params_json), timeout)?;
        decode_result(Method::WaitEvent.as_str(), result)
    }

    fn manage_window(
        &self,
        params: &crate::protocol::ManageWindowParams,
    ) -> Result<crate::protocol::WindowState> {
        params.validate()?;
        if !self.offers(Method::ManageWindow)? {
            return Err(Error::unsupported(
                "the server manages no windows (`manageWindow`)",
            ));
        }
        let wire = serde_json::to_value(params).map_err(|e| {
            Error::invalid_request(format!("manageWindow: could not write params: {e}"))
        })?;
        // The server waits for the effect as long as it was told to.
        let wait = Duration::from_millis(params.timeout.unwrap_or(0));
        let result = self.request(
            Method::ManageWindow.as_str(),
            Some(wire),
            self.options.timeout + wait,
        )?;
        decode_result(Method::ManageWindow.as_str(), result)
    }

    fn apps(&self) -> Result<crate::protocol::AppList> {
        if !self.offers(Method::Apps)? {
            return Err(Error::unsupported(
                "the server cannot list the desktop's apps (`apps`)",
            ));
        }
        self.call_typed(Method::Apps, &crate::protocol::NoParams {})
    }

    fn capture_screen(&self) -> Result<Capture> {
        if !self.offers(Method::CaptureScreen)? {
            return Err(Error::unsupported(
                "the server cannot capture the screen (`captureScreen`)",
            ));
        }
        self.call_typed(Method::CaptureScreen, &crate::protocol::NoParams {})
    }

    fn eval(&self, params: &EvalParams) -> Result<Value> {
        self.call_typed::<EvalResult>(Method::Eval, params)
            .map(|r| r.value)
    }

    fn idle(&self, params: &IdleParams) -> Result<()> {
        params.validate()?;
        let mut params = params.clone();
        // `quiet` goes only to a server that takes it; others settle by their own rule.
        if params.quiet.is_some() && !self.takes_idle_param("quiet")? {
            params.quiet = None;
        }
        let mut wait = *params
            .timeout
            .get_or_insert(self.options.idle_timeout.as_millis() as u64);
        // Within the caller's deadline, the server is asked to give up first.
        if let Some(deadline) = self.deadline() {
            let left = deadline
                .saturating_duration_since(Instant::now())
                .as_millis() as u64;
            if left < wait {
                wait = left.saturating_sub(100);
                params.timeout = Some(wait);
            }
        }
        // The server answers `timeout` itself; the socket waits a little longer for that answer.
        let timeout =
            Duration::from_millis(wait) + self.options.timeout.min(Duration::from_secs(5));
        self.call_unit(Method::Idle, &params, timeout)
    }

    /// Known methods are checked before they leave; others pass through unchanged,
    /// so methods of newer servers are reachable.
    fn call(&self, method: &str, params: Option<Value>) -> Result<Value> {
        match Method::parse(method) {
            Some(Method::Idle) => {
                let params: IdleParams = decode_params(method, params)?;
                self.idle(&params)
                    .map(|()| Value::Object(Default::default()))
            }
            Some(_) => call_json(self, method, params),
            None => self.request(method, params, self.options.timeout),
        }
    }
}
