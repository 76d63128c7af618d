//! Launching returns once the app takes input: keys sent at once land.
//! Before, LibreOffice Calc launched and sent `=6*7` and Enter at once left
//! A1 empty in 3 runs of 4 in this test.

mod common;

use common::{launch, options, DEADLINE};
use std::time::{Duration, Instant};
use uidrive_atspi::AtspiDriver;
use uidrive_core::protocol::{InputEvent, InputParams, TreeParams};
use uidrive_core::Driver;
use uidrive_x11::Desktop;

/// A LibreOffice profile of its own that opens no Tip of the Day, which
/// would take the keys meant for the sheet.
fn office_profile() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("uidrive-ready-calc-{}", std::process::id()));
    let user = dir.join("user");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(
        user.join("registrymodifications.xcu"),
        concat!(
            r#"<?xml version="1.0" encoding="UTF-8"?>"#,
            r#"<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">"#,
            r#"<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse"><value>false</value></prop></item>"#,
            "</oor:items>"
        ),
    )
    .unwrap();
    dir
}

#[test]
fn keys_sent_as_soon_as_calc_is_launched_land_in_its_sheet() {
    let profile = office_profile();
    let installation = format!("-env:UserInstallation=file://{}", profile.display());
    let app = launch(&["localc", "--norestore", &installation]);
    app.driver
        .input(&InputParams {
            window: None,
            events: vec![
                InputEvent::Text {
                    text: "=6*7".into(),
                },
                InputEvent::Key {
                    key: "Enter".parse().unwrap(),
                },
            ],
            hold: false,
        })
        .expect("the keys are sent");
    let started = Instant::now();
    loop {
        let tree = app.driver.tree(&TreeParams::default()).expect("Calc reads");
        let a1 = tree
            .nodes
            .iter()
            .find(|n| n.label.as_deref() == Some("A1"))
            .map(|n| n.value.clone());
        if a1 == Some(Some("42".to_string())) {
            break;
        }
        if started.elapsed() >= DEADLINE {
            let windows: Vec<String> = (app.driver.windows().unwrap().windows.iter())
                .map(|w| w.title.clone())
                .collect();
            let focus = tree
                .focus
                .and_then(|f| tree.node(f))
                .map(|n| n.label.clone());
            panic!(
                "A1 reads {a1:?}: the keys sent right after the launch were lost \
                 (windows {windows:?}, the focus on {focus:?})"
            );
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    drop(app);
    let _ = std::fs::remove_dir_all(&profile);
}

/// GTK 3, GTK 4 and Qt windows answer a window manager's ping, and settle,
/// which launching waits for; their window then has the keyboard focus.
#[test]
fn launching_waits_for_the_apps_answer_to_a_ping() {
    for app in ["gtk3-widget-factory", "gnome-calculator", "featherpad"] {
        let desktop = Desktop::start().expect("a headless desktop starts");
        let (driver, mut child, ready) =
            AtspiDriver::launch_ready(&[app.to_string()], &options(&desktop))
                .unwrap_or_else(|e| panic!("{app} launches: {e}"));
        assert_eq!(ready.pinged, Some(true), "{app}: {ready:?}");
        assert!(ready.settled, "{app} settled: {ready:?}");
        // Once ready, the window has the keyboard focus.
        let x11 = desktop.x11().unwrap();
        let focused = x11.focused_window().unwrap();
        let windows = x11.find_windows_by_pid(driver.pid()).unwrap();
        assert!(
            windows
                .iter()
                .any(|w| x11.is_inside(focused, w.id).unwrap_or(false)),
            "{app}: the focus ({focused:#x}) is not in its windows {windows:?}"
        );
        drop(driver);
        let _ = child.kill();
        let _ = child.wait();
    }
}
