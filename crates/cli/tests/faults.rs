//! Fault injection (issue 14): `uidrive serve --headless --launch
//! gtk3-widget-factory`, and every protocol method called while the app and
//! the server are stopped, continued and killed at random points. Every
//! answer must carry a documented code that agrees with what happened (a
//! stopped app is a `timeout`, never `app_exited`; a dead app is `app_exited`,
//! never a `timeout`; a dead server is `disconnected`), and no call may pass
//! its deadline.
//!
//! The rounds are few and bounded (about a minute in all). The seed is
//! printed; `UIDRIVE_FAULT_SEED=N` replays a run.

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use uidrive_core::{Driver, ErrorCode, SocketDriver, SocketOptions};

/// The codes docs/protocol.md lists for answers and for uidrive's client.
const DOCUMENTED: &[&str] = &[
    "parse_error",
    "invalid_request",
    "unknown_method",
    "no_window",
    "no_element",
    "unsupported",
    "timeout",
    "failed",
    "disconnected",
    "protocol_error",
    "app_exited",
];

/// The client gives up on an answer after this; the server answers a stuck
/// D-Bus call with `timeout` after 5 s, well before.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(8);
/// No call may take longer than this, whatever the fault.
const DEADLINE: Duration = Duration::from_secs(10);
/// Startup of a desktop and the app.
const START_GUARD: Duration = Duration::from_secs(90);

const METHODS: &[&str] = &[
    "hello", "windows", "tree", "act", "input", "menu", "capture", "eval", "idle",
];

/// A small deterministic generator (xorshift), so a seed replays a run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn millis(&mut self, max: u64) -> Duration {
        Duration::from_millis(self.below(max))
    }
}

fn signal(pid: u32, sig: libc::c_int) {
    // SAFETY: a plain kill(2) on a process this test started (or its child).
    unsafe {
        libc::kill(pid as libc::pid_t, sig);
    }
}

fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// Every process below `root`.
fn descendants(root: u32) -> Vec<u32> {
    let all: Vec<u32> = std::fs::read_dir("/proc")
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    all.into_iter()
        .filter(|pid| {
            let mut at = *pid;
            for _ in 0..32 {
                match parent_of(at) {
                    Some(p) if p == root => return true,
                    Some(p) if p > 1 => at = p,
                    _ => return false,
                }
            }
            false
        })
        .collect()
}

fn dead(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| s.contains(") Z") || s.contains(") X"))
        .unwrap_or(true)
}

/// `uidrive serve` with its desktop and the app.
struct Served {
    serve: Child,
    socket: PathBuf,
    app: u32,
    /// Everything it started, killed at the end whatever happened.
    family: Vec<u32>,
    _dir: tempfile::TempDir,
}

impl Served {
    fn start() -> Served {
        let dir = tempfile::Builder::new()
            .prefix("udf")
            .tempdir_in("/tmp")
            .unwrap();
        let socket = dir.path().join("s");
        let mut serve = Command::new(env!("CARGO_BIN_EXE_uidrive"))
            .args(["serve", "--socket"])
            .arg(&socket)
            .args(["--headless", "--launch", "gtk3-widget-factory"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("uidrive serve starts");
        let stderr = serve.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut told = false;
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if !told && line.contains("UIDRIVE_LISTENING") {
                    let _ = tx.send(());
                    told = true;
                }
            }
        });
        rx.recv_timeout(START_GUARD)
            .expect("uidrive serve listens within the start guard");
        let started = Instant::now();
        let app = loop {
            let found = descendants(serve.id()).into_iter().find(|pid| {
                std::fs::read_to_string(format!("/proc/{pid}/comm"))
                    .map(|c| c.starts_with("gtk3-widget-fac"))
                    .unwrap_or(false)
            });
            if let Some(pid) = found {
                break pid;
            }
            assert!(
                started.elapsed() < START_GUARD,
                "no app under uidrive serve"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        let family = descendants(serve.id());
        Served {
            serve,
            socket,
            app,
            family,
            _dir: dir,
        }
    }

    /// A button of the app's window, for `act`.
    fn button(&self, client: &SocketDriver) -> String {
        let tree = client.tree(&Default::default()).expect("the first tree");
        tree.nodes
            .iter()
            .find(|n| {
                use uidrive_core::protocol::{Role, State};
                n.role == Role::Button
                    && n.has_state(&State::Focusable)
                    && !n.has_state(&State::Disabled)
                    && !n.has_state(&State::Offscreen)
            })
            .expect("a focusable button")
            .id
            .to_string()
    }

    fn client(&self) -> Arc<SocketDriver> {
        Arc::new(
            SocketDriver::connect_with(
                &self.socket,
                SocketOptions {
                    timeout: CLIENT_TIMEOUT,
                    idle_timeout: Duration::from_secs(2),
                    ..SocketOptions::default()
                },
            )
            .expect("the client connects"),
        )
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let mut family = descendants(self.serve.id());
        family.extend(&self.family);
        for pid in family {
            signal(pid, libc::SIGCONT);
            signal(pid, libc::SIGKILL);
        }
        signal(self.serve.id(), libc::SIGCONT);
        let _ = self.serve.kill();
        let _ = self.serve.wait();
    }
}

/// The params of each method, on the element `press` where one is needed.
fn params(method: &str, press: &str) -> Option<Value> {
    match method {
        "hello" | "windows" => None,
        "tree" | "capture" => Some(json!({})),
        "act" => Some(json!({"id": press, "action": "focus"})),
        "input" => Some(json!({"events": [{"type": "pointerMove", "x": 20, "y": 20}]})),
        "menu" => Some(json!({"path": ["uidrive-no-such-menu"]})),
        "eval" => Some(json!({"script": "1"})),
        "idle" => Some(json!({"timeout": 2000})),
        other => panic!("no params for {other}"),
    }
}

/// What a method answers when nothing goes wrong: success, or its own code.
fn normal(method: &str, code: Option<&str>) -> bool {
    matches!(
        (method, code),
        (_, None) | ("eval", Some("unsupported")) | ("menu", Some("no_element" | "unsupported"))
    )
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Fault {
    None,
    /// The app stopped for the rest of the round.
    AppStop,
    /// The app stopped, then continued during the round.
    AppStopCont,
    /// The server stopped, then continued before the client's timeout.
    ServerStopCont,
    /// The server stopped past the client's timeout (a client of 2 s).
    ServerStop,
    /// The app killed.
    AppKill,
    /// The server killed (its desktop and app with it).
    ServerKill,
}

impl Fault {
    fn name(self) -> &'static str {
        match self {
            Fault::None => "none",
            Fault::AppStop => "app SIGSTOP",
            Fault::AppStopCont => "app SIGSTOP, SIGCONT",
            Fault::ServerStopCont => "server SIGSTOP, SIGCONT",
            Fault::ServerStop => "server SIGSTOP past the client's timeout",
            Fault::AppKill => "app SIGKILL",
            Fault::ServerKill => "server SIGKILL",
        }
    }

    /// Whether `code` (None: success) agrees with what happened.
    fn agrees(self, method: &str, code: Option<&str>) -> bool {
        if normal(method, code) {
            // Success only before the fault struck, or for what needs no app.
            return true;
        }
        match self {
            Fault::None | Fault::ServerStopCont => false,
            // Alive all along: slow, never gone.
            Fault::AppStop | Fault::AppStopCont | Fault::ServerStop => code == Some("timeout"),
            // Gone: never a mere timeout or a broken connection.
            Fault::AppKill => code == Some("app_exited"),
            // The server is gone: the app behind it can't be judged.
            Fault::ServerKill => code == Some("disconnected"),
        }
    }
}

/// One answer.
struct Seen {
    fault: Fault,
    method: &'static str,
    code: Option<String>,
    message: String,
    took: Duration,
}

/// Calls every method at random points of a short window, and strikes
/// `fault` at a random point of it.
fn round(
    served: &Served,
    client: &Arc<SocketDriver>,
    press: &str,
    fault: Fault,
    rng: &mut Rng,
) -> Vec<Seen> {
    let starts: Vec<Duration> = METHODS.iter().map(|_| rng.millis(600)).collect();
    let strike = rng.millis(300);
    let pause = rng.millis(1500);
    let calls: Vec<_> = METHODS
        .iter()
        .zip(starts)
        .map(|(method, start)| {
            let client = client.clone();
            let params = params(method, press);
            std::thread::spawn(move || {
                std::thread::sleep(start);
                let started = Instant::now();
                let outcome = client.call(method, params);
                (outcome, started.elapsed())
            })
        })
        .collect();
    std::thread::sleep(strike);
    let (app, server) = (served.app, served.serve.id());
    match fault {
        Fault::None => {}
        Fault::AppStop => signal(app, libc::SIGSTOP),
        Fault::AppStopCont => {
            signal(app, libc::SIGSTOP);
            std::thread::sleep(pause);
            signal(app, libc::SIGCONT);
        }
        Fault::ServerStopCont => {
            signal(server, libc::SIGSTOP);
            std::thread::sleep(pause);
            signal(server, libc::SIGCONT);
        }
        Fault::ServerStop => signal(server, libc::SIGSTOP),
        Fault::AppKill => signal(app, libc::SIGKILL),
        Fault::ServerKill => {
            for pid in descendants(server) {
                signal(pid, libc::SIGKILL);
            }
            signal(server, libc::SIGKILL);
        }
    }
    let seen = METHODS
        .iter()
        .zip(calls)
        .map(|(method, call)| {
            let (outcome, took) = call.join().expect("the call's thread");
            let (code, message) = match outcome {
                Ok(_) => (None, String::new()),
                Err(e) => (Some(e.code.as_str().to_string()), e.message),
            };
            Seen {
                fault,
                method,
                code,
                message,
                took,
            }
        })
        .collect();
    match fault {
        Fault::AppStop => signal(app, libc::SIGCONT),
        Fault::ServerStop => signal(server, libc::SIGCONT),
        _ => {}
    }
    seen
}

fn check(seen: &[Seen]) {
    for s in seen {
        let code = s.code.as_deref();
        if let Some(code) = code {
            assert!(
                DOCUMENTED.contains(&code),
                "{} under `{}`: undocumented code {code}: {}",
                s.method,
                s.fault.name(),
                s.message
            );
        }
        assert!(
            s.fault.agrees(s.method, code),
            "{} under `{}` answered {} ({:?}), which contradicts the fault: {}",
            s.method,
            s.fault.name(),
            code.unwrap_or("success"),
            s.took,
            s.message
        );
        assert!(
            s.took <= DEADLINE,
            "{} under `{}` took {:?}, past its deadline of {DEADLINE:?}: {}",
            s.method,
            s.fault.name(),
            s.took,
            s.message
        );
    }
}

/// Waits until the app answers again after a fault of the round before.
fn recover(client: &SocketDriver) {
    let started = Instant::now();
    loop {
        let settled = client.call("idle", Some(json!({"timeout": 5000})));
        if settled.is_ok() && client.windows().is_ok() {
            return;
        }
        assert!(
            started.elapsed() < START_GUARD,
            "the app did not recover: {settled:?}"
        );
    }
}

fn summary(all: &[Seen]) {
    // fault -> code -> (count, slowest)
    let mut table: BTreeMap<(&str, String), (usize, Duration)> = BTreeMap::new();
    for s in all {
        let code = s.code.clone().unwrap_or_else(|| "success".into());
        let entry = table
            .entry((s.fault.name(), code))
            .or_insert((0, Duration::ZERO));
        entry.0 += 1;
        entry.1 = entry.1.max(s.took);
    }
    for s in all.iter().filter(|s| s.took > Duration::from_secs(3)) {
        eprintln!(
            "slow: {} under `{}`: {} in {:?} {}",
            s.method,
            s.fault.name(),
            s.code.as_deref().unwrap_or("success"),
            s.took,
            s.message
        );
    }
    eprintln!("| fault | code | answers | slowest |");
    eprintln!("| --- | --- | --- | --- |");
    for ((fault, code), (count, slowest)) in table {
        eprintln!(
            "| {fault} | {code} | {count} | {} ms |",
            slowest.as_millis()
        );
    }
}

#[test]
fn faults_at_random_points_of_every_method_get_answers_that_agree_with_them() {
    let seed = std::env::var("UIDRIVE_FAULT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    eprintln!("fault injection: UIDRIVE_FAULT_SEED={seed}");
    let mut rng = Rng(seed);
    let mut all = Vec::new();

    // One server through rounds of stops and continues, then the app killed.
    let served = Served::start();
    let client = served.client();
    let press = served.button(&client);
    let quick = Arc::new(
        SocketDriver::connect_with(
            &served.socket,
            SocketOptions {
                timeout: Duration::from_secs(2),
                idle_timeout: Duration::from_secs(1),
                ..SocketOptions::default()
            },
        )
        .expect("the quick client connects"),
    );
    let mut faults = vec![
        Fault::None,
        Fault::AppStop,
        Fault::AppStopCont,
        Fault::ServerStopCont,
        Fault::ServerStop,
    ];
    // Each kind once, then four more at random: a bounded number of rounds.
    for _ in 0..4 {
        faults.push(faults[rng.below(5) as usize]);
    }
    for fault in faults {
        // A stopped server is seen by a client that gives up sooner.
        let client = if fault == Fault::ServerStop {
            &quick
        } else {
            &client
        };
        let seen = round(&served, client, &press, fault, &mut rng);
        check(&seen);
        all.extend(seen);
        recover(client);
    }
    let seen = round(&served, &client, &press, Fault::AppKill, &mut rng);
    check(&seen);
    all.extend(seen);
    // Once dead, every method that reaches the app says so.
    let seen = round(&served, &client, &press, Fault::AppKill, &mut rng);
    for s in &seen {
        if !matches!(s.method, "hello" | "eval") {
            assert_eq!(
                s.code.as_deref(),
                Some("app_exited"),
                "{} after the app died: {}",
                s.method,
                s.message
            );
        }
    }
    check(&seen);
    all.extend(seen);
    assert!(dead(served.app), "the app should be dead after SIGKILL");
    drop(served);

    // Another server, killed at a random point of the calls.
    let served = Served::start();
    let client = served.client();
    let press = served.button(&client);
    let seen = round(&served, &client, &press, Fault::ServerKill, &mut rng);
    check(&seen);
    all.extend(seen);
    // Afterwards every call is disconnected, at once (`hello` is the
    // client's own copy of the first answer).
    for method in METHODS.iter().filter(|m| **m != "hello") {
        let started = Instant::now();
        let err = client
            .call(method, params(method, &press))
            .expect_err("a dead server answers nothing");
        assert_eq!(err.code, ErrorCode::Disconnected, "{method}: {err}");
        assert!(started.elapsed() < Duration::from_secs(1), "{method}");
    }
    drop(served);

    summary(&all);
}
