//! Closing a launched app as a person's desktop does: its windows are asked
//! to close, then SIGTERM, then SIGKILL, each after a grace period, and the
//! answer says which step ended it. Before, `close` sent SIGTERM at once:
//! GIMP never wrote its session, and an app that saves when its window is
//! closed never got the request.

use std::path::PathBuf;
use std::time::{Duration, Instant};
use uidrive_facade::{Closed, Desktop, HeadlessOptions, LaunchOptions};

fn desktop() -> Desktop {
    uidrive_facade::headless(&HeadlessOptions::default()).expect("a headless desktop starts")
}

fn launch(desktop: &Desktop, argv: &[&str], env: &[(&str, &str)]) -> uidrive_core::App {
    let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
    let options = LaunchOptions {
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        timeout: Some(Duration::from_secs(60)),
        socket_env: None,
    };
    desktop
        .launch(&argv, &options)
        .unwrap_or_else(|e| panic!("{} launches: {e}", argv[0]))
}

#[test]
fn gtk_and_qt_apps_close_when_their_window_is_asked_to() {
    let desktop = desktop();
    for app in ["gtk3-widget-factory", "featherpad"] {
        let launched = launch(&desktop, &[app], &[]);
        let started = Instant::now();
        let closed = uidrive_facade::close(&launched).expect("it closes");
        assert_eq!(closed, Closed::Windows, "{app}");
        assert!(
            started.elapsed() < uidrive_facade::CLOSE_GRACE,
            "{app} was not given SIGTERM"
        );
    }
}

/// A Tk window that does not close when asked (and, with `stubborn`, ignores SIGTERM too).
fn tk_that_stays(stubborn: bool) -> String {
    let ignore = if stubborn {
        "import signal; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    } else {
        ""
    };
    format!(
        "{ignore}import tkinter as tk; r = tk.Tk(); r.title('stays'); \
         r.protocol('WM_DELETE_WINDOW', lambda: None); r.mainloop()"
    )
}

#[test]
fn an_app_that_stays_open_gets_sigterm_then_sigkill() {
    let desktop = desktop();
    let stays = launch(
        &desktop,
        &["/usr/bin/python3", "-c", &tk_that_stays(false)],
        &[],
    );
    let closed = uidrive_facade::close_within(&stays, Duration::from_millis(800)).unwrap();
    assert_eq!(closed, Closed::Terminated);
    let stubborn = launch(
        &desktop,
        &["/usr/bin/python3", "-c", &tk_that_stays(true)],
        &[],
    );
    let closed = uidrive_facade::close_within(&stubborn, Duration::from_millis(800)).unwrap();
    assert_eq!(closed, Closed::Killed);
    assert_eq!(
        uidrive_facade::close(&stubborn).unwrap(),
        Closed::Exited,
        "closing twice signals nothing"
    );
}

/// GIMP writes its session (`sessionrc`) only when it quits as a person
/// quits it; killed by a signal, it writes nothing. Its next start shows
/// its main window and no other.
#[test]
fn gimp_closes_by_its_window_saves_its_session_and_starts_again_cleanly() {
    let config =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("gimp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&config);
    std::fs::create_dir_all(&config).unwrap();
    let env = [("XDG_CONFIG_HOME", config.to_str().unwrap())];
    let desktop = desktop();
    let main_window = |app: &uidrive_core::App| {
        let started = Instant::now();
        loop {
            let windows = app.windows().expect("GIMP lists its windows").windows;
            if windows
                .iter()
                .any(|w| w.title == "GNU Image Manipulation Program")
            {
                return windows;
            }
            assert!(
                started.elapsed() < Duration::from_secs(90),
                "no main window among {windows:?}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    };
    let gimp = launch(&desktop, &["gimp"], &env);
    main_window(&gimp);
    assert_eq!(uidrive_facade::close(&gimp).unwrap(), Closed::Windows);
    let session = config.join("GIMP/2.10/sessionrc");
    assert!(
        session.exists(),
        "GIMP quit without writing {}",
        session.display()
    );
    let again = launch(&desktop, &["gimp"], &env);
    let windows = main_window(&again);
    let titles: Vec<&str> = windows.iter().map(|w| w.title.as_str()).collect();
    assert_eq!(titles, ["GNU Image Manipulation Program"], "{windows:?}");
    assert_eq!(uidrive_facade::close(&again).unwrap(), Closed::Windows);
    let _ = std::fs::remove_dir_all(&config);
}
