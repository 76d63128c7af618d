//! Hostile input against the server and the params checks: bounded input,
//! bounded connections and lines, socket paths, and a shutdown that never
//! needs its own socket (issue 14, findings 2, 3 and 6).

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use uidrive_core::protocol::*;
use uidrive_core::{
    serve, serve_with, Driver, ErrorCode, Limits, MemoryDriver, Result, SocketDriver,
    SocketOptions, MAX_SOCKET_PATH_BYTES,
};

/// Far above anything these tests wait for: only a hang reaches it.
const HANG_GUARD: Duration = Duration::from_secs(30);

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ud-lim-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn raw_call(stream: &mut UnixStream, line: &str) -> Value {
    stream
        .set_read_timeout(Some(HANG_GUARD))
        .expect("a read timeout");
    stream.write_all(line.as_bytes()).unwrap();
    stream.write_all(b"\n").unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut answer = String::new();
    reader.read_line(&mut answer).unwrap();
    serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{e}: {answer:?}"))
}

fn code(answer: &Value) -> &str {
    answer["error"]["code"].as_str().unwrap_or("(no error)")
}

fn input(events: Vec<Value>) -> Value {
    json!({"events": events})
}

fn validate(params: Value) -> Result<()> {
    let params: InputParams = serde_json::from_value(params).expect("well-formed params");
    params.validate()
}

// ---- finding 2: every count in input is bounded

#[test]
fn the_wheel_flood_of_the_issue_is_refused_before_anything_is_sent() {
    let dir = temp_dir("flood");
    let driver = Arc::new(MemoryDriver::new());
    let _server = serve(driver.clone(), dir.join("s")).unwrap();
    let mut stream = UnixStream::connect(dir.join("s")).unwrap();
    let started = Instant::now();
    let answer = raw_call(
        &mut stream,
        r#"{"id":1,"method":"input","params":{"events":[{"type":"wheel","x":100,"y":100,"dx":0,"dy":1e9}]}}"#,
    );
    assert_eq!(code(&answer), "invalid_request", "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("input.events[0].dy"), "{message}");
    assert!(message.contains("10000"), "{message}");
    assert!(!answer["error"]["suggestion"].as_str().unwrap().is_empty());
    assert!(started.elapsed() < Duration::from_secs(1));
    // Nothing reached the app.
    driver.edit(|ui| {
        assert!(
            !ui.log.iter().any(|l| l.starts_with("input")),
            "{:?}",
            ui.log
        )
    });
}

#[test]
fn every_count_in_input_has_a_bound_and_the_bound_itself_is_accepted() {
    use input_limits as limit;
    let wheel = |dy: f64| json!({"type": "wheel", "x": 1, "y": 1, "dx": 0, "dy": dy});
    let text = |n: usize| json!({"type": "text", "text": "é".repeat(n)});
    let key = json!({"type": "key", "key": "a"});

    // One wheel event: at most WHEEL_DELTA DIPs per axis, either sign.
    validate(input(vec![wheel(limit::WHEEL_DELTA)])).unwrap();
    validate(input(vec![wheel(-limit::WHEEL_DELTA)])).unwrap();
    for bad in [limit::WHEEL_DELTA + 1.0, -1e9, 1e300] {
        let err = validate(input(vec![wheel(bad)])).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest, "{bad}");
    }
    let err = validate(input(vec![
        json!({"type": "wheel", "x": 1, "y": 1, "dx": 1e7, "dy": 0}),
    ]))
    .unwrap_err();
    assert!(err.message.contains(".dx"), "{}", err.message);

    // Wheel clicks of the whole request.
    let per_event = wheel_clicks(limit::WHEEL_DELTA);
    let fits = (limit::WHEEL_CLICKS / per_event) as usize;
    validate(input(vec![wheel(limit::WHEEL_DELTA); fits])).unwrap();
    let err = validate(input(vec![wheel(limit::WHEEL_DELTA); fits + 1])).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
    assert!(err.message.contains("wheel clicks"), "{}", err.message);

    // Events per request (repeated keys).
    validate(input(vec![key.clone(); limit::EVENTS])).unwrap();
    let err = validate(input(vec![key.clone(); limit::EVENTS + 1])).unwrap_err();
    assert!(err.message.contains("input.events"), "{}", err.message);

    // Text, counted in characters over the whole request.
    validate(input(vec![text(limit::TEXT_CHARS)])).unwrap();
    let err = validate(input(vec![
        text(limit::TEXT_CHARS / 2),
        text(limit::TEXT_CHARS / 2 + 1),
    ]))
    .unwrap_err();
    assert!(
        err.message.contains("input.events[1].text"),
        "{}",
        err.message
    );

    // Clicks per pointer event.
    let click = |n: u32| json!({"type": "click", "x": 1, "y": 1, "clicks": n});
    validate(input(vec![click(limit::CLICKS)])).unwrap();
    for bad in [0, limit::CLICKS + 1, u32::MAX] {
        assert!(validate(input(vec![click(bad)])).is_err(), "{bad}");
    }

    // Modifiers per event, and coordinates.
    let mods = |n: usize| json!({"type": "pointerMove", "x": 1, "y": 1, "mods": vec!["shift"; n]});
    validate(input(vec![mods(limit::MODS)])).unwrap();
    assert!(validate(input(vec![mods(limit::MODS + 1)])).is_err());
    let far = json!({"type": "pointerMove", "x": limit::COORDINATE * 2.0, "y": 1});
    assert!(validate(input(vec![far])).is_err());
}

/// A driver whose `input` takes a long time, as a long but valid input on a real app does.
struct SlowInput {
    inner: MemoryDriver,
    input_time: Duration,
}

impl Driver for SlowInput {
    fn hello(&self) -> Result<Hello> {
        self.inner.hello()
    }
    fn windows(&self) -> Result<WindowList> {
        self.inner.windows()
    }
    fn tree(&self, p: &TreeParams) -> Result<Tree> {
        self.inner.tree(p)
    }
    fn act(&self, p: &ActParams) -> Result<()> {
        self.inner.act(p)
    }
    fn input(&self, p: &InputParams) -> Result<()> {
        std::thread::sleep(self.input_time);
        self.inner.input(p)
    }
    fn menu(&self, p: &MenuParams) -> Result<()> {
        self.inner.menu(p)
    }
    fn capture(&self, p: &CaptureParams) -> Result<Capture> {
        self.inner.capture(p)
    }
    fn eval(&self, p: &EvalParams) -> Result<Value> {
        self.inner.eval(p)
    }
    fn idle(&self, p: &IdleParams) -> Result<()> {
        self.inner.idle(p)
    }
}

#[test]
fn a_long_input_on_one_connection_does_not_hold_up_the_others() {
    let dir = temp_dir("long-input");
    let driver = Arc::new(SlowInput {
        inner: MemoryDriver::new(),
        input_time: Duration::from_secs(3),
    });
    let _server = serve(driver, dir.join("s")).unwrap();
    let path = dir.join("s");
    let long = std::thread::spawn({
        let path = path.clone();
        move || {
            let client = SocketDriver::connect(&path).unwrap();
            let events = vec![json!({"type": "key", "key": "a"}); 100];
            client.call("input", Some(input(events)))
        }
    });
    std::thread::sleep(Duration::from_millis(200));
    let others: Vec<_> = (0..4)
        .map(|_| {
            let path = path.clone();
            std::thread::spawn(move || {
                let client = SocketDriver::connect(&path).unwrap();
                let mut slowest = Duration::ZERO;
                for _ in 0..5 {
                    let started = Instant::now();
                    client.windows().unwrap();
                    client.tree(&TreeParams::default()).unwrap();
                    slowest = slowest.max(started.elapsed());
                }
                slowest
            })
        })
        .collect();
    for other in others {
        let slowest = other.join().unwrap();
        assert!(slowest < Duration::from_secs(1), "a call took {slowest:?}");
    }
    assert!(
        !long.is_finished(),
        "the long input ended before the others were done"
    );
    long.join().unwrap().unwrap();
}

// ---- finding 3: socket paths and shutdown

fn path_of_len(dir: &Path, len: usize) -> PathBuf {
    let base = dir.as_os_str().len() + 1;
    assert!(
        len > base + 10,
        "the temporary directory's path is too long for this test"
    );
    // A subdirectory, so the name of the socket itself is short.
    let sub = dir.join("d".repeat(len - base - 3));
    std::fs::create_dir_all(&sub).unwrap();
    let path = sub.join("ab");
    assert_eq!(path.as_os_str().len(), len);
    path
}

#[test]
fn socket_paths_longer_than_a_unix_socket_allows_are_refused_up_front() {
    let dir = temp_dir("long-path");
    let path = path_of_len(&dir, MAX_SOCKET_PATH_BYTES + 1);
    let err = serve(Arc::new(MemoryDriver::new()), &path)
        .err()
        .expect("refused");
    assert_eq!(err.code, ErrorCode::InvalidRequest);
    assert!(
        err.message
            .contains(&format!("{} bytes", MAX_SOCKET_PATH_BYTES + 1)),
        "{}",
        err.message
    );
    assert!(err.message.contains("107"), "{}", err.message);
    assert!(!err.suggestion.is_empty());
    // Nothing was left behind: no socket, no staging directory.
    let left: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    // The client says the same kind of thing instead of a bare OS error.
    let err = SocketDriver::connect(&path).err().expect("refused");
    assert!(err.message.contains("107"), "{}", err.message);
}

#[test]
fn every_socket_path_that_fits_works_up_to_the_longest() {
    let dir = temp_dir("fit");
    for len in [100, MAX_SOCKET_PATH_BYTES] {
        let path = path_of_len(&dir, len);
        let server = serve(Arc::new(MemoryDriver::new()), &path)
            .unwrap_or_else(|e| panic!("a {len}-byte path: {e}"));
        let client = SocketDriver::connect(&path).unwrap();
        assert_eq!(client.windows().unwrap().windows.len(), 1);
        let mode = std::fs::metadata(&path).unwrap();
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(mode.permissions().mode() & 0o777, 0o600);
        server.stop();
        assert!(!path.exists());
    }
}

/// Runs `work` on a thread and fails if it does not end within the hang guard.
fn within_guard<T: Send + 'static>(what: &str, work: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(work());
    });
    rx.recv_timeout(HANG_GUARD)
        .unwrap_or_else(|_| panic!("{what} hung"))
}

#[test]
fn stopping_never_needs_to_reach_the_server_through_its_own_socket() {
    let dir = temp_dir("stop");
    // The socket file removed by someone else: the path reaches nothing.
    let server = serve(Arc::new(MemoryDriver::new()), dir.join("s")).unwrap();
    std::fs::remove_file(dir.join("s")).unwrap();
    within_guard("stopping a server whose socket was removed", move || {
        server.stop()
    });

    // The path taken over by a file that is not a socket.
    let server = serve(Arc::new(MemoryDriver::new()), dir.join("t")).unwrap();
    std::fs::remove_file(dir.join("t")).unwrap();
    std::fs::write(dir.join("t"), b"not a socket").unwrap();
    within_guard("stopping a server whose path is a file", move || {
        drop(server)
    });

    // A connection in the middle of a line does not hold the stop up either.
    let server = serve(Arc::new(MemoryDriver::new()), dir.join("u")).unwrap();
    let mut half = UnixStream::connect(dir.join("u")).unwrap();
    half.write_all(b"{\"id\": 1, ").unwrap();
    within_guard("stopping a server with a half-sent line", move || {
        server.stop()
    });
    assert!(UnixStream::connect(dir.join("u")).is_err());
}

// ---- finding 6: connections, line size, unfinished lines

#[test]
fn the_default_limits_are_those_docs_protocol_md_lists() {
    let limits = Limits::default();
    assert_eq!(limits.max_connections, 64);
    assert_eq!(limits.max_request_bytes, 1024 * 1024);
    assert_eq!(limits.partial_line_idle, Duration::from_secs(10));
    assert_eq!(limits.idle_connection, Duration::from_secs(300));
    assert_eq!(limits.idle_when_full, Duration::from_secs(2));
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/protocol.md"
    ))
    .unwrap();
    for listed in [
        "64 connections",
        "1 MiB",
        "10 s",
        "300 s",
        "idle for 2 s",
        "107 bytes",
        "1,000 events",
        "10,000 DIPs",
        "1,000 wheel clicks",
        "10,000 characters",
    ] {
        assert!(
            doc.contains(listed),
            "docs/protocol.md does not list `{listed}`"
        );
    }
}

fn small_limits() -> Limits {
    Limits {
        max_connections: 8,
        max_request_bytes: 4096,
        partial_line_idle: Duration::from_secs(1),
        idle_connection: Duration::from_secs(60),
        idle_when_full: Duration::from_secs(60),
    }
}

/// Waits (within the hang guard) until `check` holds.
fn eventually(what: &str, check: impl Fn() -> bool) {
    let started = Instant::now();
    while !check() {
        assert!(
            started.elapsed() < HANG_GUARD,
            "{what}: not so within {HANG_GUARD:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn half_sent_connections_are_bounded_and_dropped_after_the_idle_time() {
    let dir = temp_dir("half");
    let path = dir.join("s");
    let limits = small_limits();
    let server = serve_with(Arc::new(MemoryDriver::new()), &path, limits.clone()).unwrap();
    // Many more half-sent connections than the server takes.
    let mut held = Vec::new();
    let mut refused = 0;
    let mut most = 0;
    for _ in 0..200 {
        let mut stream = UnixStream::connect(&path).unwrap();
        let _ = stream.write_all(b"{\"id\": 1, \"method\"");
        held.push(stream);
        most = most.max(server.connections());
        assert!(most <= limits.max_connections, "{most} connections at once");
    }
    // The acceptor may lag behind the connects: watch it catch up.
    let started = Instant::now();
    while most < limits.max_connections && started.elapsed() < HANG_GUARD {
        most = most.max(server.connections());
        assert!(most <= limits.max_connections, "{most} connections at once");
        std::thread::sleep(Duration::from_millis(1));
    }
    // Those over the limit were told why and closed.
    for stream in &mut held {
        stream.set_read_timeout(Some(HANG_GUARD)).unwrap();
        let mut answer = String::new();
        let _ = BufReader::new(&*stream).read_line(&mut answer);
        let answer: Value =
            serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{e}: {answer}"));
        assert_eq!(answer["id"], Value::Null);
        match code(&answer) {
            // Over the limit.
            "failed" => {
                assert!(answer["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("8 connections"));
                refused += 1;
            }
            // Within it: dropped once the line stayed unfinished.
            "parse_error" => {
                assert!(answer["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("unfinished"))
            }
            other => panic!("unexpected {other}: {answer}"),
        }
    }
    // (A slot freed by a dropped connection may take a later one, so more than
    // `max_connections` may have been served in all, never more at once.)
    assert!(
        refused > 0 && refused <= 200 - limits.max_connections,
        "{refused} refused"
    );
    eventually("every half-sent connection is dropped", || {
        server.connections() == 0
    });
    // The server still serves.
    let client = SocketDriver::connect(&path).unwrap();
    assert_eq!(client.windows().unwrap().windows.len(), 1);
}

#[test]
fn the_client_reads_a_refusal_over_the_connection_limit_as_the_error_it_is() {
    let dir = temp_dir("refusal");
    let path = dir.join("s");
    let limits = Limits {
        max_connections: 2,
        ..small_limits()
    };
    let server = serve_with(Arc::new(MemoryDriver::new()), &path, limits).unwrap();
    let a = UnixStream::connect(&path).unwrap();
    let b = UnixStream::connect(&path).unwrap();
    eventually("two connections held", || server.connections() == 2);
    let client = SocketDriver::connect_with(
        &path,
        SocketOptions {
            timeout: Duration::from_secs(5),
            ..SocketOptions::default()
        },
    )
    .unwrap();
    let err = client.windows().unwrap_err();
    assert_eq!(err.code, ErrorCode::Failed, "{err}");
    assert!(err.message.contains("2 connections"), "{}", err.message);
    assert!(!err.suggestion.is_empty());
    drop((a, b));
    eventually("the held connections closed", || server.connections() == 0);
    assert_eq!(client.windows().unwrap().windows.len(), 1);
}

#[test]
fn a_request_line_longer_than_the_limit_is_refused_and_memory_stays_bounded() {
    let dir = temp_dir("long-line");
    let path = dir.join("s");
    let _server = serve(Arc::new(MemoryDriver::new()), &path).unwrap();
    let before = peak_rss_kib();
    // Four connections each sending a 60 MB line at once, as in the issue.
    let senders: Vec<_> = (0..4)
        .map(|_| {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut stream = UnixStream::connect(&path).unwrap();
                stream.set_write_timeout(Some(HANG_GUARD)).unwrap();
                stream.set_read_timeout(Some(HANG_GUARD)).unwrap();
                let chunk = vec![b'x'; 1 << 20];
                let mut sent = 0usize;
                // The server closes the connection once the line passes its limit.
                while sent < 60 << 20 {
                    match stream.write(&chunk) {
                        Ok(n) => sent += n,
                        Err(_) => break,
                    }
                }
                let mut answer = Vec::new();
                let _ = stream.read_to_end(&mut answer);
                (sent, String::from_utf8_lossy(&answer).to_string())
            })
        })
        .collect();
    for sender in senders {
        let (sent, answer) = sender.join().unwrap();
        assert!(
            sent < 60 << 20,
            "the server read all {sent} bytes of a line"
        );
        let answer: Value =
            serde_json::from_str(answer.trim()).unwrap_or_else(|e| panic!("{e}: {answer}"));
        assert_eq!(code(&answer), "parse_error");
        assert!(answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("1048576"));
    }
    let grown_mib = (peak_rss_kib() - before) / 1024;
    assert!(grown_mib < 64, "the peak memory grew by {grown_mib} MiB");
}

fn peak_rss_kib() -> i64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/self/status")
}

#[test]
fn a_connection_the_server_closed_for_idling_is_replaced_by_the_client() {
    let dir = temp_dir("idle-conn");
    let path = dir.join("s");
    let limits = Limits {
        idle_connection: Duration::from_millis(200),
        ..small_limits()
    };
    let server = serve_with(Arc::new(MemoryDriver::new()), &path, limits).unwrap();
    let client = SocketDriver::connect(&path).unwrap();
    client.windows().unwrap();
    eventually("the idle connection closed", || server.connections() == 0);
    // The pooled connection is gone; the next call opens another.
    assert_eq!(client.windows().unwrap().windows.len(), 1);
    assert_eq!(client.tree(&TreeParams::default()).unwrap().window, 1);
}

// ---- issue 30: connection slots of idle clients, and who may replace a socket

#[test]
fn idle_connections_give_up_their_slots_to_a_new_client_when_the_server_is_full() {
    let dir = temp_dir("evict");
    let path = dir.join("s");
    let limits = Limits {
        max_connections: 4,
        idle_when_full: Duration::from_millis(200),
        ..small_limits()
    };
    let server = serve_with(Arc::new(MemoryDriver::new()), &path, limits).unwrap();
    // Four clients that asked once, then sit idle on their connections.
    let mut idle: Vec<UnixStream> = (0..4)
        .map(|_| {
            let mut stream = UnixStream::connect(&path).unwrap();
            assert!(raw_call(&mut stream, r#"{"id":1,"method":"windows"}"#)["result"].is_object());
            stream
        })
        .collect();
    eventually("four connections held", || server.connections() == 4);
    std::thread::sleep(Duration::from_millis(300));
    // A fifth is served: the longest idle was closed to make room...
    let client = SocketDriver::connect(&path).unwrap();
    assert_eq!(client.windows().unwrap().windows.len(), 1);
    assert!(server.connections() <= 4);
    // ...and that one sees the end of its stream.
    let closed = idle
        .iter_mut()
        .filter(|s| {
            s.set_read_timeout(Some(Duration::from_millis(100)))
                .unwrap();
            matches!((&**s).read(&mut [0u8; 1]), Ok(0))
        })
        .count();
    assert!(closed >= 1, "no idle connection was closed");
}

#[test]
fn a_full_server_with_no_idle_connection_refuses_the_next_one_saying_why() {
    let dir = temp_dir("full-busy");
    let path = dir.join("s");
    let limits = Limits {
        max_connections: 2,
        idle_when_full: Duration::from_millis(100),
        partial_line_idle: Duration::from_secs(60),
        ..small_limits()
    };
    let server = serve_with(Arc::new(MemoryDriver::new()), &path, limits).unwrap();
    // Two connections in the middle of a request line are busy, not idle.
    let held: Vec<UnixStream> = (0..2)
        .map(|_| {
            let mut stream = UnixStream::connect(&path).unwrap();
            stream.write_all(b"{\"id\": 1, \"method\"").unwrap();
            stream
        })
        .collect();
    eventually("two connections held", || server.connections() == 2);
    std::thread::sleep(Duration::from_millis(200));
    let mut third = UnixStream::connect(&path).unwrap();
    third.set_read_timeout(Some(HANG_GUARD)).unwrap();
    let mut answer = String::new();
    BufReader::new(&mut third).read_line(&mut answer).unwrap();
    let answer: Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(code(&answer), "failed", "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("2 connections") && message.contains("none has been idle for 100 ms"),
        "{message}"
    );
    drop(held);
}

#[test]
fn serve_refuses_a_directory_others_can_write_unless_it_is_sticky() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir("dirs");
    let open = dir.join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    let err = serve(Arc::new(MemoryDriver::new()), open.join("s"))
        .err()
        .unwrap();
    assert_eq!(err.code, ErrorCode::Failed);
    assert!(
        err.message.contains("can be written by other users"),
        "{}",
        err.message
    );
    assert!(!open.join("s").exists(), "nothing was made");
    // The same directory with the sticky bit (as /tmp): others cannot move
    // what is ours, so it is served.
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let server = serve(Arc::new(MemoryDriver::new()), open.join("s")).unwrap();
    assert_eq!(
        SocketDriver::connect(open.join("s"))
            .unwrap()
            .windows()
            .unwrap()
            .windows
            .len(),
        1
    );
    server.stop();
    // A group-writable directory is open to others too.
    let group = dir.join("group");
    std::fs::create_dir(&group).unwrap();
    std::fs::set_permissions(&group, std::fs::Permissions::from_mode(0o770)).unwrap();
    assert!(serve(Arc::new(MemoryDriver::new()), group.join("s")).is_err());
}

#[test]
fn serve_refuses_a_directory_or_a_file_of_another_user() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        panic!(
            "this test hands a directory to another user (chown) and needs root; CI runs as root"
        );
    }
    let nobody = 65534;
    let dir = temp_dir("others");
    let theirs = dir.join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    std::os::unix::fs::chown(&theirs, Some(nobody), Some(nobody)).unwrap();
    let err = serve(Arc::new(MemoryDriver::new()), theirs.join("s"))
        .err()
        .unwrap();
    assert!(
        err.message.contains("belongs to another user"),
        "{}",
        err.message
    );
    // In a sticky directory, a file already at the path that is not ours.
    let sticky = dir.join("sticky");
    std::fs::create_dir(&sticky).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&sticky, std::fs::Permissions::from_mode(0o1777)).unwrap();
    std::fs::write(sticky.join("s"), b"").unwrap();
    std::os::unix::fs::chown(sticky.join("s"), Some(nobody), Some(nobody)).unwrap();
    let err = serve(Arc::new(MemoryDriver::new()), sticky.join("s"))
        .err()
        .unwrap();
    assert!(
        err.message
            .contains("the file there belongs to another user"),
        "{}",
        err.message
    );
}

#[test]
fn a_stopped_server_removes_only_the_socket_it_made() {
    let dir = temp_dir("inode");
    let path = dir.join("s");
    let old = serve(Arc::new(MemoryDriver::new()), &path).unwrap();
    // Its socket is removed, and a newer server listens at the same path.
    std::fs::remove_file(&path).unwrap();
    let new = serve(Arc::new(MemoryDriver::new()), &path).unwrap();
    old.stop();
    assert!(
        path.exists(),
        "the old server removed the newer server's socket"
    );
    assert_eq!(
        SocketDriver::connect(&path)
            .unwrap()
            .windows()
            .unwrap()
            .windows
            .len(),
        1
    );
    new.stop();
    assert!(!path.exists(), "a server removes its own socket");
}

// ---- issue 30: input state of a connection

#[test]
fn keys_a_connection_held_are_released_when_it_closes() {
    let dir = temp_dir("held");
    let path = dir.join("s");
    let driver = Arc::new(MemoryDriver::new());
    let _server = serve(driver.clone(), &path).unwrap();
    let mut stream = UnixStream::connect(&path).unwrap();
    let answer = raw_call(
        &mut stream,
        r#"{"id":1,"method":"input","params":{"hold":true,"events":[{"type":"keyDown","key":"Ctrl+a"},{"type":"pointerDown","x":5,"y":5}]}}"#,
    );
    assert!(answer["result"].is_object(), "{answer}");
    // A request that does not hold leaves nothing for the close to release.
    let answer = raw_call(
        &mut stream,
        r#"{"id":2,"method":"input","params":{"events":[{"type":"keyDown","key":"Shift+b"}]}}"#,
    );
    assert!(answer["result"].is_object(), "{answer}");
    let logged = |ui: &uidrive_core::memory::Ui| ui.log.clone();
    let before = driver.edit(|ui| logged(ui));
    drop(stream);
    eventually("the held key and button are released", || {
        driver.edit(|ui| ui.log.len() > before.len())
    });
    let after = driver.edit(|ui| logged(ui));
    assert_eq!(
        &after[before.len()..],
        ["input pointerUp", "input keyUp"],
        "{after:?}"
    );
}

#[test]
fn a_keystroke_of_a_key_that_types_carries_its_text() {
    let chord = |c: &str| c.parse::<KeyChord>().unwrap();
    let text = |t: &str| InputEvent::Text { text: t.into() };
    let key = |c: &str| InputEvent::Key { key: chord(c) };
    assert_eq!(InputEvent::keystroke(chord("a")), vec![key("a"), text("a")]);
    assert_eq!(
        InputEvent::keystroke(chord("Shift+a")),
        vec![key("Shift+a"), text("A")]
    );
    assert_eq!(InputEvent::keystroke(chord("Enter")), vec![key("Enter")]);
    assert_eq!(InputEvent::keystroke(chord("Ctrl+a")), vec![key("Ctrl+a")]);
    // `hold` is sent only when asked for, so servers that do not know it never see it.
    let plain = InputParams {
        window: None,
        events: vec![key("Enter")],
        hold: false,
    };
    assert!(serde_json::to_value(&plain).unwrap().get("hold").is_none());
}

// ---- issue 30: a list read in part says so

#[test]
fn a_snapshot_of_a_list_that_gave_part_of_its_rows_says_how_many_more_exist() {
    use uidrive_core::snapshot::{RefMap, Snapshot, View};
    // The issue's list: 100,000 rows, of which the toolkit gives those on screen.
    let mut nodes = vec![
        json!({"id": "1", "role": "table", "truncated": true, "childCount": 100_000, "rowCount": 100_000}),
    ];
    for row in 0..25 {
        nodes.push(json!({"id": (row + 2).to_string(), "parent": "1", "role": "cell", "label": format!("row {row}")}));
    }
    let tree: Tree = serde_json::from_value(json!({"window": 1, "nodes": nodes})).unwrap();
    let snapshot = Snapshot::take(&tree, &mut RefMap::default());
    for view in [View::full(), View::interactive()] {
        let text = snapshot.render(&view).unwrap();
        let table = text
            .lines()
            .find(|l| l.contains("[table]"))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(table.contains("99975 more not read"), "{table}");
    }
    assert_eq!(snapshot.elements[0].unread, 99_975);
    // A list read whole says nothing of the kind.
    let mut whole = tree.clone();
    whole.nodes[0].truncated = false;
    let text = Snapshot::take(&whole, &mut RefMap::default())
        .render(&View::full())
        .unwrap();
    assert!(!text.contains("not read"), "{text}");
}

// ---- issue 30: every line is answered, ids verbatim

#[test]
fn every_line_gets_its_answer_with_its_id_as_written_and_blank_lines_none() {
    let dir = temp_dir("lines");
    let path = dir.join("s");
    let _server = serve(Arc::new(MemoryDriver::new()), &path).unwrap();
    let stream = UnixStream::connect(&path).unwrap();
    stream.set_read_timeout(Some(HANG_GUARD)).unwrap();
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    let mut ask = |line: &[u8]| -> String {
        writer.write_all(line).unwrap();
        writer.write_all(b"\n").unwrap();
        let mut answer = String::new();
        reader.read_line(&mut answer).unwrap();
        answer
    };
    // Not UTF-8, and nested too deep: parse errors, answered.
    let answer: Value =
        serde_json::from_str(&ask(b"{\"id\": 1, \"method\": \"\xff\xfe\"}")).unwrap();
    assert_eq!(code(&answer), "parse_error", "{answer}");
    let deep = [b"[".repeat(100_000), b"]".repeat(100_000)].concat();
    let answer: Value = serde_json::from_str(&ask(&deep)).unwrap();
    assert_eq!(code(&answer), "parse_error", "{answer}");
    // A 30-digit id comes back as it was written, not as a float.
    let answer = ask(br#"{"id": 123456789012345678901234567890, "method": "windows"}"#);
    assert!(
        answer.starts_with(r#"{"id":123456789012345678901234567890,"result":"#),
        "{answer}"
    );
    let answer = ask(br#"{"id": 1.50, "method": "nope"}"#);
    assert!(answer.starts_with(r#"{"id":1.50,"error":"#), "{answer}");
    // Blank lines are skipped without an answer: the next answer is the next request's.
    let answer: Value = serde_json::from_str(&ask(
        b"   \n\n\t\n{\"id\": \"after\", \"method\": \"windows\"}",
    ))
    .unwrap();
    assert_eq!(answer["id"], "after", "{answer}");
}
