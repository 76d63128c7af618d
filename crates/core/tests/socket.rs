//! The socket client and the server, end to end over the in-memory driver, and
//! the client against servers that misbehave.

use serde_json::json;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use uidrive_core::protocol::*;
use uidrive_core::{
    conformance, serve, Driver, ErrorCode, MemoryDriver, SocketDriver, SocketOptions,
};

fn temp_socket(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("uidrive-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("app.sock")
}

fn quick() -> SocketOptions {
    SocketOptions {
        timeout: Duration::from_millis(500),
        ..SocketOptions::default()
    }
}

#[test]
fn the_in_memory_server_passes_the_conformance_suite() {
    let path = temp_socket("conformance");
    let _server = serve(Arc::new(MemoryDriver::new()), &path).unwrap();
    let report = conformance::run(&path);
    assert!(report.passed(), "{report}");
    assert_eq!(report.checks.len(), 10);
}

#[test]
fn the_client_drives_the_in_memory_app_through_the_server() {
    let path = temp_socket("drive");
    let _server = serve(Arc::new(MemoryDriver::new()), &path).unwrap();
    let client = SocketDriver::connect(&path).unwrap();

    let hello = client.hello().unwrap();
    assert_eq!(hello.protocol, PROTOCOL_VERSION);
    assert!(hello.methods.iter().any(|m| m == "idle"));

    let windows = client.windows().unwrap().windows;
    assert_eq!(windows[0].title, "Counter");

    client
        .act(
            &ActParams {
                key: Some("add".into()),
                ..ActParams::on(ElementId(0), Action::Press)
            }
            .without_id(),
        )
        .unwrap();
    client.idle(&IdleParams::default()).unwrap();
    let tree = client.tree(&TreeParams::default()).unwrap();
    let count = tree
        .nodes
        .iter()
        .find(|n| n.key == Some("count".into()))
        .unwrap();
    assert_eq!(count.label.as_deref(), Some("Count: 1"));

    let name = tree
        .nodes
        .iter()
        .find(|n| n.key == Some("name".into()))
        .unwrap();
    client
        .act(&ActParams::on(name.id, Action::SetValue).with_text("Grace"))
        .unwrap();
    let (x, y) = name.bounds.unwrap().center();
    client
        .input(&InputParams {
            window: None,
            events: vec![
                InputEvent::Click(PointerButton::at(x, y)),
                InputEvent::Text {
                    text: " Hopper ✓".into(),
                },
            ],
            hold: false,
        })
        .unwrap();
    let tree = client.tree(&TreeParams::default()).unwrap();
    assert_eq!(
        tree.node(name.id).unwrap().value.as_deref(),
        Some("Grace Hopper ✓")
    );

    let capture = client.capture(&CaptureParams::default()).unwrap();
    assert!(capture.png.starts_with(b"\x89PNG"));
    assert_eq!((capture.width, capture.height), (400, 275));

    let err = client
        .eval(&EvalParams {
            window: None,
            script: "1".into(),
        })
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Unsupported);
    let err = client
        .menu(&MenuParams {
            window: None,
            path: vec!["Edit".into()],
        })
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NoElement);
    assert!(err.message.contains("Edit"));
    assert!(!err.suggestion.is_empty());

    let raw = client.call("windows", None).unwrap();
    assert_eq!(raw["windows"][0]["id"], 1);
    let err = client
        .call("tree", Some(json!({"window": "x"})))
        .unwrap_err();
    assert_eq!(
        err.code,
        ErrorCode::InvalidRequest,
        "checked before it leaves"
    );
    let err = client.call("teleport", None).unwrap_err();
    assert_eq!(
        err.code,
        ErrorCode::UnknownMethod,
        "unknown methods pass through to the server"
    );
}

trait WithoutId {
    fn without_id(self) -> Self;
}

impl WithoutId for ActParams {
    fn without_id(mut self) -> Self {
        self.id = None;
        self
    }
}

#[test]
fn idle_on_one_connection_does_not_hold_up_another() {
    let path = temp_socket("pool");
    let driver = MemoryDriver::new();
    driver.set_faults(uidrive_core::memory::Faults {
        idle_delay: Duration::from_millis(800),
        ..Default::default()
    });
    let _server = serve(Arc::new(driver), &path).unwrap();
    let client = Arc::new(SocketDriver::connect(&path).unwrap());
    let waiting = {
        let client = client.clone();
        std::thread::spawn(move || client.idle(&IdleParams::within(None, 5000)))
    };
    // While idle waits on its own connection, other calls are answered.
    let mut answered = 0;
    while !waiting.is_finished() && answered < 5 {
        client.windows().unwrap();
        answered += 1;
    }
    assert_eq!(answered, 5, "calls were held up behind idle");
    waiting.join().unwrap().unwrap();
    let err = client.idle(&IdleParams::within(None, 100)).unwrap_err();
    assert_eq!(err.code, ErrorCode::Timeout);
}

#[test]
fn the_socket_is_private_and_removed_when_the_server_stops() {
    let path = temp_socket("mode");
    let server = serve(Arc::new(MemoryDriver::new()), &path).unwrap();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    server.stop();
    assert!(!path.exists());
}

#[test]
fn a_stale_socket_is_replaced_and_a_live_one_or_a_file_refused() {
    let path = temp_socket("stale");
    drop(UnixListener::bind(&path).unwrap()); // leaves the file behind, as a crashed app does
    let server = serve(Arc::new(MemoryDriver::new()), &path).unwrap();

    let err = serve(Arc::new(MemoryDriver::new()), &path)
        .err()
        .expect("a live socket is refused");
    assert!(
        err.message.contains("another server listens"),
        "{}",
        err.message
    );
    server.stop();

    std::fs::write(&path, "not a socket").unwrap();
    let err = serve(Arc::new(MemoryDriver::new()), &path)
        .err()
        .expect("a plain file is refused");
    assert!(err.message.contains("not a socket"), "{}", err.message);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "not a socket",
        "the file is left alone"
    );
}

#[test]
fn connecting_where_nothing_listens_says_so() {
    let path = temp_socket("none");
    let err = SocketDriver::connect(&path).err().unwrap();
    assert_eq!(err.code, ErrorCode::Disconnected);
    assert!(err.message.contains("no socket"), "{}", err.message);

    drop(UnixListener::bind(&path).unwrap());
    let err = SocketDriver::connect(&path).err().unwrap();
    assert_eq!(err.code, ErrorCode::Disconnected);
    assert!(err.message.contains("nothing listens"), "{}", err.message);
}

/// A server that answers each request line with what `answer` makes of it.
fn misbehaving(
    name: &str,
    answer: impl Fn(&serde_json::Value, &mut UnixStream) + Send + 'static,
) -> PathBuf {
    let path = temp_socket(name);
    let listener = UnixListener::bind(&path).unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 0 {
                let request: serde_json::Value = serde_json::from_str(&line).unwrap();
                answer(&request, &mut stream);
                line.clear();
            }
        }
    });
    path
}

fn windows_error(path: &Path) -> uidrive_core::Error {
    let client = SocketDriver::connect_with(path, quick()).unwrap();
    let started = Instant::now();
    let err = client.windows().unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the error came late"
    );
    err
}

#[test]
fn a_server_that_closes_mid_answer_is_disconnected() {
    let path = misbehaving("close", |_, stream| {
        stream.write_all(b"{\"id\": 1, \"resu").unwrap();
        stream.shutdown(std::net::Shutdown::Both).unwrap();
    });
    let err = windows_error(&path);
    assert_eq!(err.code, ErrorCode::Disconnected, "{err}");
    assert!(err.message.contains("closed"), "{}", err.message);
}

#[test]
fn a_server_that_closes_before_answering_is_disconnected() {
    let path = misbehaving("close-early", |_, stream| {
        stream.shutdown(std::net::Shutdown::Both).unwrap();
    });
    let err = windows_error(&path);
    assert_eq!(err.code, ErrorCode::Disconnected, "{err}");
    assert!(err.message.contains("closed"), "{}", err.message);
}

#[test]
fn a_server_that_sends_garbage_breaks_the_protocol() {
    let path = misbehaving("garbage", |_, stream| {
        stream.write_all(b"\x00\x01 hello there\n").unwrap();
    });
    let err = windows_error(&path);
    assert_eq!(err.code, ErrorCode::ProtocolError);
    assert!(err.message.contains("not JSON"), "{}", err.message);
}

#[test]
fn an_answer_to_another_request_breaks_the_protocol() {
    let path = misbehaving("wrong-id", |request, stream| {
        let wrong = request["id"].as_u64().unwrap() + 100;
        stream
            .write_all(format!("{}\n", json!({"id": wrong, "result": {"windows": []}})).as_bytes())
            .unwrap();
    });
    let err = windows_error(&path);
    assert_eq!(err.code, ErrorCode::ProtocolError);
    assert!(err.message.contains("answered request"), "{}", err.message);
}

#[test]
fn a_server_that_never_answers_times_out() {
    let path = misbehaving("silent", |_, _| {});
    let err = windows_error(&path);
    assert_eq!(err.code, ErrorCode::Timeout);
    assert!(err.message.contains("500 ms"), "{}", err.message);
}

#[test]
fn an_answer_longer_than_the_limit_is_refused() {
    let path = misbehaving("long", |request, stream| {
        let title = "x".repeat(4096);
        let answer = json!({"id": request["id"], "result": {"windows": [], "title": title}});
        stream.write_all(format!("{answer}\n").as_bytes()).unwrap();
    });
    let options = SocketOptions {
        max_line_bytes: 1024,
        ..quick()
    };
    let client = SocketDriver::connect_with(&path, options).unwrap();
    let err = client.windows().unwrap_err();
    assert_eq!(err.code, ErrorCode::ProtocolError);
    assert!(err.message.contains("longer than 1024"), "{}", err.message);
}

#[test]
fn a_protocol_1_server_without_hello_is_still_driven() {
    let path = misbehaving("protocol-1", |request, stream| {
        let answer = match request["method"].as_str() {
            Some("windows") => json!({"id": request["id"], "result": {"windows": []}}),
            _ => {
                json!({"id": request["id"], "error": {"code": "unknown_method", "message": "no such method"}})
            }
        };
        stream.write_all(format!("{answer}\n").as_bytes()).unwrap();
    });
    let client = SocketDriver::connect_with(&path, quick()).unwrap();
    let hello = client.hello().unwrap();
    assert_eq!(hello.protocol, 1);
    assert!(!hello.methods.iter().any(|m| m == "hello"));
    assert!(
        client.windows().unwrap().windows.is_empty(),
        "carries on after hello"
    );
}
