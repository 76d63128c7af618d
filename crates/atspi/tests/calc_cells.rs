//! LibreOffice Calc's sheet reports 2^31 cells: a read holds only those on
//! screen, and a cell off screen is found by its place through the table's
//! own lookup (`cellAt`), then acted on like any other.

use std::time::Duration;
use uidrive_atspi::{launch_app, LaunchOptions};
use uidrive_core::protocol::Role;
use uidrive_core::{expect, ErrorCode, RoleQuery, TextMatch, Timeouts};
use uidrive_x11::Desktop;

/// Calc's last row: Ctrl+Down from an empty column's first cell lands there.
const LAST_ROW: u32 = 1_048_576;

/// One Calc at a time: two starting side by side, beside the compatibility
/// suite's own LibreOffice on a 2-core CI machine, kept calls unanswered
/// for over 30 s.
static ONE_CALC: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A LibreOffice profile of the test's own that opens no Tip of the Day over
/// the sheet: two Calcs on one profile are one (the second hands its
/// document to the first and exits), and this file's tests run side by side.
fn fresh_profile(test: &str) -> std::path::PathBuf {
    let profile =
        std::env::temp_dir().join(format!("uidrive-calc-cells-{}-{test}", std::process::id()));
    let user = profile.join("user");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(
        user.join("registrymodifications.xcu"),
        r#"<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse"><value>false</value></prop></item>
</oor:items>
"#,
    )
    .unwrap();
    profile
}

/// `read`'s answer, asked again while it fails with `timeout`, for up to
/// 30 s. Back from the sheet's last row, Calc has kept a call unanswered
/// past the 5 s a call may take, on a loaded machine (CI runs, and two busy
/// loops beside the test), both in `expect` and in a read; the driver
/// rightly calls that a timeout, and this test is about finding cells, not
/// about Calc's speed.
/// Calc on `desktop` with `profile`, given the time it takes to show its
/// sheet on a busy machine.
fn launch_calc(desktop: &Desktop, profile: &std::path::Path) -> uidrive_core::App {
    let argv = vec![
        "localc".to_string(),
        "--norestore".to_string(),
        format!("-env:UserInstallation=file://{}", profile.display()),
    ];
    let options = LaunchOptions {
        env: desktop.env(),
        timeout: Duration::from_secs(60),
    };
    let app = launch_app(&argv, &options).unwrap_or_else(|e| panic!("localc launches: {e}"));
    app.set_timeouts(Timeouts {
        action: Duration::from_secs(30),
        expect: Duration::from_secs(30),
    });
    settled(&app);
    app
}

/// Waits (up to 20 s) until Calc's first window keeps one box for three
/// reads half a second apart: on a fresh profile Calc maximizes itself a
/// moment after it shows, under the desktop's window manager, and rebuilds
/// its grid; cells read before that are the small window's.
fn settled(app: &uidrive_core::App) {
    let started = std::time::Instant::now();
    let mut last = None;
    let mut same = 0;
    while same < 3 && started.elapsed() < Duration::from_secs(20) {
        let now = app
            .windows()
            .ok()
            .and_then(|list| list.windows.first().map(|w| w.bounds));
        same = if now.is_some() && now == last {
            same + 1
        } else {
            0
        };
        last = now;
        std::thread::sleep(Duration::from_millis(500));
    }
}

fn once_calc_answers<T>(mut read: impl FnMut() -> uidrive_core::Result<T>) -> T {
    let started = std::time::Instant::now();
    loop {
        match read() {
            Ok(answer) => return answer,
            Err(e)
                if e.code == ErrorCode::Timeout && started.elapsed() < Duration::from_secs(30) =>
            {
                eprintln!("Calc is slow to answer, reading again: {e}");
            }
            Err(e) => panic!("{e} ({})", e.suggestion),
        }
    }
}

#[test]
fn a_cell_off_screen_is_found_by_its_place() {
    let _one = ONE_CALC.lock().unwrap_or_else(|p| p.into_inner());
    let desktop = Desktop::start().expect("a headless desktop starts");
    let profile = fresh_profile("off-screen");
    let app = launch_calc(&desktop, &profile);
    let sheet = app.get_by_role(Role::Table, RoleQuery::any());

    // A cell on screen carries its place too (Calc's cells do not say it).
    let first = sheet.cell(1, 1);
    expect(&first).to_be_focused().unwrap();
    assert_eq!(first.node().unwrap().label.as_deref(), Some("A1"));

    // Write into the sheet's last row, then go back to the top.
    app.keyboard().press("Ctrl+Down").unwrap();
    let far = sheet.cell(LAST_ROW, 1);
    expect(&far).to_be_focused().unwrap();
    app.keyboard().type_text("far away", None).unwrap();
    app.keyboard().press("Enter").unwrap();
    app.keyboard().press("Ctrl+Home").unwrap();
    once_calc_answers(|| expect(&first).to_be_focused());

    // The last row is off screen: no read of the sheet holds it, yet its
    // place finds it, with what it holds.
    let tree = once_calc_answers(|| app.tree(None));
    assert!(
        !tree
            .nodes
            .iter()
            .any(|n| n.label.as_deref() == Some("A1048576")),
        "the sheet's read holds its last row while the top is on screen"
    );
    assert_eq!(
        once_calc_answers(|| far.node()).label.as_deref(),
        Some("A1048576")
    );
    once_calc_answers(|| expect(&far).to_have_value(TextMatch::exact("far away")));

    // Focusing a cell off screen does not succeed, and says so: Calc accepts
    // the call and moves the focus to the sheet, not the cell (`failed`), or
    // it has dropped the cell's object before the call lands or before the
    // lookup finds it again (`no_element`; Calc frees an off-screen cell's
    // object whenever it is idle).
    let err = far
        .with_timeout(Duration::from_secs(3))
        .focus()
        .unwrap_err();
    match err.code {
        ErrorCode::Failed => assert!(
            err.message.contains("the focus did not come to it"),
            "{}",
            err.message
        ),
        ErrorCode::NoElement => assert!(
            err.message.contains("went away") || err.message.contains("no element matches"),
            "{}",
            err.message
        ),
        _ => panic!("focus on a cell off screen: {err}"),
    }

    // Past the sheet's last row there is no cell: an error that says so.
    let err = sheet
        .cell(LAST_ROW + 1, 1)
        .with_timeout(Duration::from_millis(500))
        .text()
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NoElement, "{err}");
    assert!(err.message.contains("cell(1048577, 1)"), "{}", err.message);
    app.close().unwrap();
    let _ = std::fs::remove_dir_all(&profile);
}

/// A real click at a cell's box lands on that cell. LibreOffice answers the
/// boxes inside its window 25 pixels too high (the GTK menu bar's height:
/// src/office.rs); at its own boxes a click on B2 focused B1, and one on A1
/// hit the column header.
#[test]
fn a_click_at_a_cells_box_lands_on_that_cell() {
    let _one = ONE_CALC.lock().unwrap_or_else(|p| p.into_inner());
    let desktop = Desktop::start().expect("a headless desktop starts");
    let profile = fresh_profile("click");
    let app = launch_calc(&desktop, &profile);
    let sheet = app.get_by_role(Role::Table, RoleQuery::any());
    expect(&sheet.cell(1, 1)).to_be_focused().unwrap();
    for (row, col, label) in [(2, 2, "B2"), (1, 1, "A1"), (3, 3, "C3")] {
        let cell = sheet.cell(row, col);
        once_calc_answers(|| cell.click());
        once_calc_answers(|| expect(&cell).to_be_focused());
        assert_eq!(
            once_calc_answers(|| cell.node()).label.as_deref(),
            Some(label)
        );
    }
    app.close().unwrap();
    let _ = std::fs::remove_dir_all(&profile);
}
