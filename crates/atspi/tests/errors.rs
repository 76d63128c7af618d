//! Clear errors, never hangs: unknown windows, elements that went away, apps that die mid-call.

mod common;

use common::{enabled, find, launch, DEADLINE};
use std::time::{Duration, Instant};
use uidrive_core::protocol::{ActParams, Action, ElementId, EvalParams, Role, TreeParams};
use uidrive_core::{Driver, ErrorCode};

#[test]
fn unknown_windows_and_elements_are_named() {
    let app = launch(&["zenity", "--question", "--text", "Proceed?"]);
    let err = app
        .driver
        .tree(&TreeParams {
            window: Some(9_999),
        })
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NoWindow, "{err}");
    let err = app.act(ElementId(12_345), Action::Press).unwrap_err();
    assert_eq!(err.code, ErrorCode::NoElement, "{err}");
    let err = app
        .driver
        .eval(&EvalParams {
            window: None,
            script: "1".into(),
        })
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Unsupported);
    let hello = app.driver.hello().unwrap();
    assert_eq!(hello.protocol, 1);
    assert!(hello.server.ends_with("(atspi)"), "{}", hello.server);
}

#[test]
fn an_element_of_a_closed_dialog_is_no_element() {
    let app = launch(&["gtk3-widget-factory"]);
    let main = app.tree().window;
    let tree = app.tree();
    let about = find(&tree, Role::Button, "About Widget Factory", |_| true).id;
    app.act(about, Action::Press).unwrap();
    // The about dialog opens as a window of its own.
    let started = Instant::now();
    let dialog = loop {
        app.idle();
        let windows = app.driver.windows().unwrap().windows;
        if let Some(w) = windows.iter().find(|w| w.id != main && w.visible) {
            break w.id;
        }
        assert!(
            started.elapsed() < DEADLINE,
            "the about dialog did not open"
        );
    };
    let dialog_tree = app
        .driver
        .tree(&TreeParams {
            window: Some(dialog),
        })
        .unwrap();
    let close = find(&dialog_tree, Role::Button, "Close", enabled).id;
    app.driver
        .act(&ActParams::on(close, Action::Press).in_window(Some(dialog)))
        .unwrap();
    let started = Instant::now();
    loop {
        app.idle();
        let gone = app.driver.tree(&TreeParams {
            window: Some(dialog),
        });
        if let Err(err) = gone {
            assert_eq!(err.code, ErrorCode::NoWindow, "{err}");
            break;
        }
        assert!(
            started.elapsed() < DEADLINE,
            "the about dialog did not close"
        );
    }
    let err = app
        .driver
        .act(&ActParams::on(close, Action::Press).in_window(Some(main)))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NoElement, "{err}");
}

#[test]
fn an_app_killed_mid_call_is_a_clear_error() {
    let app = launch(&["gtk3-widget-factory"]);
    let pid = app.child.id() as i32;
    // A stopped app answers nothing: the tree read waits on it when it is killed.
    send_signal(pid, "STOP");
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        send_signal(pid, "KILL");
    });
    let started = Instant::now();
    let err = app.driver.tree(&TreeParams::default()).unwrap_err();
    killer.join().unwrap();
    assert!(
        matches!(err.code, ErrorCode::AppExited | ErrorCode::Disconnected),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    let err = app.driver.windows().unwrap_err();
    assert!(
        matches!(err.code, ErrorCode::AppExited | ErrorCode::Disconnected),
        "{err}"
    );
}

#[test]
fn an_app_that_exits_before_its_window_is_app_exited_at_once() {
    let desktop = uidrive_x11::Desktop::start().expect("a headless desktop starts");
    let timeout = Duration::from_secs(20);
    let opts = uidrive_atspi::LaunchOptions {
        env: desktop.env(),
        timeout,
    };
    let started = Instant::now();
    let err = match uidrive_atspi::AtspiDriver::launch(&["true".to_string()], &opts) {
        Ok(_) => panic!("`true` has no window, yet the launch succeeded"),
        Err(err) => err,
    };
    assert_eq!(err.code, ErrorCode::AppExited, "{err}");
    assert!(
        err.message.contains("`true` exited") && err.message.contains("before it showed a window"),
        "{err}"
    );
    assert!(!err.suggestion.is_empty(), "{err}");
    // The exit is noticed while waiting, not once the wait ran out.
    assert!(started.elapsed() < timeout, "took {:?}", started.elapsed());
}

fn send_signal(pid: i32, signal: &str) {
    let status = std::process::Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .expect("kill runs");
    assert!(status.success());
}
