//! A frozen app is a `timeout`, not an exit (issue 14, finding 1), and one
//! `input` cannot flood the app or hold up other connections (finding 2):
//! gtk3-widget-factory stopped with SIGSTOP, continued, then killed, and
//! input at its bounds while other connections call.

mod common;

use common::{enabled, find, launch, Running};
use std::sync::Arc;
use std::time::{Duration, Instant};
use uidrive_core::protocol::{
    input_limits, ActParams, Action, Capture, CaptureParams, EvalParams, Hello, IdleParams,
    InputEvent, InputParams, MenuParams, Role, Tree, TreeParams, WindowList,
};
use uidrive_core::{Driver, Error, ErrorCode, SocketDriver};

/// The bound every call keeps when the app answers nothing: one D-Bus call's
/// timeout (5 s) and the driver's own margin. Far below the driver's whole-call
/// limit (20 s), so a call that waited on several stuck D-Bus calls in a row
/// would show.
const STUCK_BOUND: Duration = Duration::from_secs(12);

fn send_signal(pid: u32, signal: &str) {
    let status = std::process::Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -{signal} {pid}");
}

type Call = Box<dyn FnOnce(&dyn Driver) -> Result<(), Error> + Send>;

/// The six methods that reach the app, each ready to call.
fn every_method(press: uidrive_core::protocol::ElementId) -> Vec<(&'static str, Call)> {
    vec![
        ("windows", Box::new(|d: &dyn Driver| d.windows().map(drop))),
        (
            "tree",
            Box::new(|d: &dyn Driver| d.tree(&TreeParams::default()).map(drop)),
        ),
        (
            "act",
            Box::new(move |d: &dyn Driver| d.act(&ActParams::on(press, Action::Focus))),
        ),
        (
            "capture",
            Box::new(|d: &dyn Driver| d.capture(&CaptureParams::default()).map(drop)),
        ),
        (
            "input",
            Box::new(|d: &dyn Driver| {
                d.input(&InputParams {
                    window: None,
                    events: vec![InputEvent::PointerMove {
                        x: 10.0,
                        y: 10.0,
                        mods: vec![],
                    }],
                    hold: false,
                })
            }),
        ),
        (
            "idle",
            Box::new(|d: &dyn Driver| d.idle(&IdleParams::within(None, 3_000))),
        ),
    ]
}

/// Calls every method at once; answers each one's outcome and time.
fn call_all(
    driver: &Arc<dyn Driver>,
    press: uidrive_core::protocol::ElementId,
) -> Vec<(&'static str, Result<(), Error>, Duration)> {
    let calls: Vec<_> = every_method(press)
        .into_iter()
        .map(|(name, call)| {
            let driver = driver.clone();
            std::thread::spawn(move || {
                let started = Instant::now();
                let outcome = call(driver.as_ref());
                (name, outcome, started.elapsed())
            })
        })
        .collect();
    calls.into_iter().map(|c| c.join().unwrap()).collect()
}

/// The test's app as a driver that threads and a server can share.
struct Shared(Arc<Running>);

impl Driver for Shared {
    fn hello(&self) -> uidrive_core::Result<Hello> {
        self.0.driver.hello()
    }
    fn windows(&self) -> uidrive_core::Result<WindowList> {
        self.0.driver.windows()
    }
    fn tree(&self, p: &TreeParams) -> uidrive_core::Result<Tree> {
        self.0.driver.tree(p)
    }
    fn act(&self, p: &ActParams) -> uidrive_core::Result<()> {
        self.0.driver.act(p)
    }
    fn input(&self, p: &InputParams) -> uidrive_core::Result<()> {
        self.0.driver.input(p)
    }
    fn menu(&self, p: &MenuParams) -> uidrive_core::Result<()> {
        self.0.driver.menu(p)
    }
    fn capture(&self, p: &CaptureParams) -> uidrive_core::Result<Capture> {
        self.0.driver.capture(p)
    }
    fn eval(&self, p: &EvalParams) -> uidrive_core::Result<serde_json::Value> {
        self.0.driver.eval(p)
    }
    fn idle(&self, p: &IdleParams) -> uidrive_core::Result<()> {
        self.0.driver.idle(p)
    }
}

fn shared(app: Running) -> Arc<dyn Driver> {
    Arc::new(Shared(Arc::new(app)))
}

/// Waits until the process has died (a zombie until its parent reaps it, or gone).
fn wait_dead(pid: u32) {
    let started = Instant::now();
    while std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| !s.contains(") Z"))
        .unwrap_or(false)
    {
        assert!(started.elapsed() < STUCK_BOUND, "process {pid} did not die");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_stopped_app_is_a_timeout_until_it_continues_and_a_killed_one_has_exited() {
    let app = launch(&["gtk3-widget-factory"]);
    let tree = app.tree();
    let press = find(&tree, Role::Button, "About Widget Factory", enabled).id;
    let pid = app.child.id();
    let driver = shared(app);

    send_signal(pid, "STOP");
    for (name, outcome, took) in call_all(&driver, press) {
        let err = outcome.expect_err(&format!("{name} answered while the app was stopped"));
        assert_eq!(
            err.code,
            ErrorCode::Timeout,
            "{name} on a stopped app: {err} ({took:?})"
        );
        assert!(took < STUCK_BOUND, "{name} took {took:?}: {err}");
        assert!(!err.suggestion.is_empty(), "{name}: {err}");
        eprintln!(
            "stopped: {name} -> {} in {took:?}: {}",
            err.code, err.message
        );
    }

    send_signal(pid, "CONT");
    driver
        .idle(&IdleParams::within(None, 10_000))
        .expect("the continued app settles");
    for (name, outcome, took) in call_all(&driver, press) {
        outcome.unwrap_or_else(|e| panic!("{name} after SIGCONT: {e}"));
        eprintln!("continued: {name} -> ok in {took:?}");
    }

    // Killed and not reaped (the test holds the child): a zombie is an exited app.
    send_signal(pid, "KILL");
    wait_dead(pid);
    for (name, outcome, took) in call_all(&driver, press) {
        let err = outcome.expect_err(&format!("{name} answered from a killed app"));
        assert_eq!(
            err.code,
            ErrorCode::AppExited,
            "{name} on a killed app: {err} ({took:?})"
        );
        assert!(took < STUCK_BOUND, "{name} took {took:?}: {err}");
        eprintln!(
            "killed: {name} -> {} in {took:?}: {}",
            err.code, err.message
        );
    }
}

#[test]
fn input_is_bounded_and_a_long_one_does_not_hold_up_other_connections() {
    let app = launch(&["gtk3-widget-factory"]);
    app.tree();
    let driver = shared(app);
    let dir = std::env::temp_dir().join(format!("ud-flood-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s");
    let _server = uidrive_core::serve(driver.clone(), &path).unwrap();

    // The event of the issue: refused at once, nothing sent.
    let client = SocketDriver::connect(&path).unwrap();
    let started = Instant::now();
    let flood =
        serde_json::json!({"events": [{"type": "wheel", "x": 100, "y": 100, "dx": 0, "dy": 1e9}]});
    let err = client.call("input", Some(flood.clone())).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest, "{err}");
    assert!(started.elapsed() < Duration::from_secs(1));
    // A raw line, past the client's own check, meets the server's.
    {
        use std::io::{BufRead, BufReader, Write};
        let mut raw = std::os::unix::net::UnixStream::connect(&path).unwrap();
        raw.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let line = serde_json::json!({"id": 1, "method": "input", "params": flood});
        writeln!(raw, "{line}").unwrap();
        let mut answer = String::new();
        BufReader::new(raw).read_line(&mut answer).unwrap();
        assert!(answer.contains("\"invalid_request\""), "{answer}");
    }

    // Input at its bounds on one connection...
    let per_event = input_limits::WHEEL_DELTA;
    let events =
        (input_limits::WHEEL_CLICKS / uidrive_core::protocol::wheel_clicks(per_event)) as usize;
    let long = std::thread::spawn({
        let path = path.clone();
        move || {
            let client = SocketDriver::connect(&path).unwrap();
            let mut events: Vec<InputEvent> = (0..events)
                .map(|at| InputEvent::Wheel {
                    x: 200.0,
                    y: 200.0,
                    dx: 0.0,
                    dy: if at % 2 == 0 { per_event } else { -per_event },
                    precise: false,
                    mods: vec![],
                })
                .collect();
            events.push(InputEvent::PointerMove {
                x: 5.0,
                y: 5.0,
                mods: vec![],
            });
            let started = Instant::now();
            let outcome = client.input(&InputParams {
                window: None,
                events,
                hold: false,
            });
            (outcome, started.elapsed())
        }
    });
    // ...while others keep being answered within a second.
    let others: Vec<_> = (0..3)
        .map(|_| {
            let path = path.clone();
            std::thread::spawn(move || {
                let client = SocketDriver::connect(&path).unwrap();
                let mut slowest = Duration::ZERO;
                for _ in 0..5 {
                    let started = Instant::now();
                    client.windows().expect("windows while input runs");
                    slowest = slowest.max(started.elapsed());
                    std::thread::sleep(Duration::from_millis(50));
                }
                slowest
            })
        })
        .collect();
    for other in others {
        let slowest = other.join().unwrap();
        assert!(
            slowest < Duration::from_secs(1),
            "a windows call took {slowest:?}"
        );
    }
    let (outcome, took) = long.join().unwrap();
    outcome.expect("input at its bounds is accepted");
    eprintln!(
        "input of {} wheel clicks took {took:?}",
        input_limits::WHEEL_CLICKS
    );
    // The app still answers.
    driver
        .idle(&IdleParams::within(None, 10_000))
        .expect("the app settles after the input");
    driver.tree(&TreeParams::default()).expect("and reads");
}
