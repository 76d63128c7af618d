//! Who can reach what uidrive starts (issue 30, findings 1 and 2): another
//! local user reaches neither the display, nor the buses, nor the socket of
//! `uidrive serve --headless` and `uidrive open --headless`; a socket
//! another user put in a directory he can write to gets nothing (the client
//! refuses it before sending a byte), and `serve` refuses such a directory.
//!
//! The second user is a real account, `uidrive-probe`, made with `useradd`
//! when missing: the test needs root (CI runs as root).

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const GUARD: Duration = Duration::from_secs(60);

#[path = "../../x11/tests/common/other_user.rs"]
mod other_user;
use other_user::other_user;

fn as_other(program: &str, args: &[&str]) -> Command {
    let (uid, gid) = other_user();
    let mut command = Command::new(program);
    command
        .args(args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", "/")
        .uid(uid)
        .gid(gid);
    command
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A Python one-liner run as the other user: connects to a Unix socket.
const CONNECT: &str = "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print('connected')";

/// The environment of a process, as `/proc` shows it.
fn environ(pid: u32) -> Vec<(String, String)> {
    std::fs::read(format!("/proc/{pid}/environ"))
        .unwrap_or_default()
        .split(|b| *b == 0)
        .filter_map(|v| {
            let v = String::from_utf8_lossy(v);
            v.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
        })
        .collect()
}

fn children(pid: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|stat| {
                stat.rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok())
                    == Some(pid)
            })
        })
        .collect()
}

/// The app's environment under a server: its display, cookie and buses.
fn desktop_of(server: u32) -> Vec<(String, String)> {
    let deadline = Instant::now() + GUARD;
    loop {
        for child in children(server) {
            let env = environ(child);
            if env.iter().any(|(k, _)| k == "AT_SPI_BUS_ADDRESS")
                && env.iter().any(|(k, _)| k == "XAUTHORITY")
            {
                return env;
            }
        }
        assert!(Instant::now() < deadline, "no desktop under {server}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The other user tries the display, both buses and the socket; each must fail.
fn other_user_reaches_nothing(env: &[(String, String)], socket: &Path) {
    let get = |name: &str| {
        env.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("no {name} in {env:?}"))
    };
    let display = get("DISPLAY");
    // The control: with the cookie, this user gets in.
    let own = Command::new("xdpyinfo")
        .args(["-display", &display])
        .env("XAUTHORITY", get("XAUTHORITY"))
        .output()
        .unwrap();
    assert!(own.status.success(), "{}", text(&own));
    let x = as_other("xdpyinfo", &["-display", &display])
        .output()
        .unwrap();
    assert!(
        !x.status.success(),
        "the other user opened {display}: {}",
        text(&x)
    );
    for bus in ["DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS"] {
        let out = as_other(
            "dbus-send",
            &[
                &format!("--bus={}", get(bus)),
                "--print-reply",
                "--dest=org.freedesktop.DBus",
                "/org/freedesktop/DBus",
                "org.freedesktop.DBus.ListNames",
            ],
        )
        .output()
        .unwrap();
        assert!(
            !out.status.success(),
            "the other user reached {bus}: {}",
            text(&out)
        );
    }
    let own = Command::new("/usr/bin/python3")
        .args(["-c", CONNECT, socket.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(own.status.success(), "{}", text(&own));
    let out = as_other(
        "/usr/bin/python3",
        &["-c", CONNECT, socket.to_str().unwrap()],
    )
    .output()
    .unwrap();
    assert!(
        !out.status.success(),
        "the other user connected to the socket: {}",
        text(&out)
    );
}

struct Stop(Child);

impl Drop for Stop {
    fn drop(&mut self) {
        // SAFETY: SIGTERM to the server this test started.
        unsafe { libc::kill(self.0.id() as i32, libc::SIGTERM) };
        let _ = self.0.wait();
    }
}

fn temp() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("udpriv")
        .tempdir_in("/tmp")
        .unwrap()
}

#[test]
fn serve_headless_is_its_users_alone() {
    let dir = temp();
    let socket = dir.path().join("s");
    let mut child = Command::new(env!("CARGO_BIN_EXE_uidrive"))
        .args(["serve", "--socket"])
        .arg(&socket)
        .args(["--headless", "--launch", "gnome-calculator"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let server = Stop(child);
    for line in BufReader::new(stderr).lines() {
        if line.unwrap().starts_with("UIDRIVE_LISTENING") {
            break;
        }
    }
    let env = desktop_of(server.0.id());
    other_user_reaches_nothing(&env, &socket);
}

#[test]
fn open_headless_is_its_users_alone() {
    let dir = temp();
    let uidrive = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_uidrive"))
            .args(["--session", "private"])
            .args(args)
            .env("XDG_CACHE_HOME", dir.path().join("cache"))
            .env("XDG_RUNTIME_DIR", dir.path())
            .output()
            .unwrap()
    };
    let opened = uidrive(&["open", "--headless", "--launch", "gnome-calculator"]);
    assert!(opened.status.success(), "{}", text(&opened));
    let state: Value = serde_json::from_slice(
        &std::fs::read(dir.path().join("cache/uidrive/sessions/private")).unwrap(),
    )
    .unwrap();
    let daemon = state["target"]["daemon"].as_u64().unwrap() as u32;
    let socket = PathBuf::from(state["target"]["socket"].as_str().unwrap());
    let env = desktop_of(daemon);
    other_user_reaches_nothing(&env, &socket);
    let closed = uidrive(&["close"]);
    assert!(closed.status.success(), "{}", text(&closed));
}

/// The reproduction of the issue: another user replaces the listener in a
/// directory everyone can write to, and the text typed goes to him.
#[test]
fn another_users_socket_gets_nothing_and_serve_refuses_a_shared_directory() {
    let dir = temp();
    let shared = dir.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
    let socket = shared.join("app.sock");
    let heard = shared.join("heard");
    // His listener writes down every byte it gets.
    let listener = "import socket,sys,os\n\
s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); os.chmod(sys.argv[1],0o777); s.listen(8)\n\
print('ready', flush=True)\n\
while True:\n    c,_=s.accept(); c.settimeout(2)\n    try:\n        data=c.recv(65536)\n    except Exception:\n        data=b''\n    open(sys.argv[2],'ab').write(data)\n";
    std::fs::write(&heard, b"").unwrap();
    std::fs::set_permissions(&heard, std::fs::Permissions::from_mode(0o666)).unwrap();
    let mut his = as_other(
        "/usr/bin/python3",
        &[
            "-c",
            listener,
            socket.to_str().unwrap(),
            heard.to_str().unwrap(),
        ],
    )
    .stdout(Stdio::piped())
    .spawn()
    .unwrap();
    let mut ready = String::new();
    BufReader::new(his.stdout.take().unwrap())
        .read_line(&mut ready)
        .unwrap();
    assert_eq!(ready.trim(), "ready");
    let uidrive = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_uidrive"))
            .args(["--session", "victim"])
            .args(args)
            .env("XDG_CACHE_HOME", dir.path().join("cache"))
            .env("XDG_RUNTIME_DIR", dir.path())
            .output()
            .unwrap()
    };
    let opened = uidrive(&["open", "--socket", socket.to_str().unwrap()]);
    let filled = uidrive(&["fill", "key=pw", "hunter2"]);
    let _ = his.kill();
    let _ = his.wait();
    assert!(
        !opened.status.success(),
        "open took his socket: {}",
        text(&opened)
    );
    assert!(
        text(&opened).contains("runs as another user"),
        "{}",
        text(&opened)
    );
    assert!(!filled.status.success());
    let got = std::fs::read(&heard).unwrap();
    assert!(
        got.is_empty(),
        "his socket got {:?}",
        String::from_utf8_lossy(&got)
    );
    // And uidrive does not serve where he could do this.
    let served = Command::new(env!("CARGO_BIN_EXE_uidrive"))
        .args(["serve", "--demo", "--socket"])
        .arg(shared.join("mine.sock"))
        .output()
        .unwrap();
    assert!(!served.status.success());
    assert!(
        text(&served).contains("can be written by other users"),
        "{}",
        text(&served)
    );
}
