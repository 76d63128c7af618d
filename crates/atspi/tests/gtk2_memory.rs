//! GIMP 2.10 (GTK 2, whose objects are GAIL's): reading its window again
//! and again grows it no more than pyatspi's walks of the same window do.
//!
//! GAIL leaks on two asks: a widget's description (a copy of its tooltip,
//! never freed) and a submenu item's states (its parent's state set, never
//! unreferenced). uidrive asks GAIL the description only of unnamed
//! elements; every client asks the states, pyatspi as much as uidrive, so
//! that part of the growth is GAIL's own and is in both sides here.

mod common;

use common::options;
use std::process::Command;
use std::time::Duration;
use uidrive_core::protocol::TreeParams;
use uidrive_core::Driver;
use uidrive_x11::Desktop;

/// Reads and walks measured on each side, after as many to warm up.
const TURNS: usize = 40;

fn rss(pid: u32) -> i64 {
    std::thread::sleep(Duration::from_secs(2));
    common::rss_kb(pid)
}

#[test]
fn reading_gimp_again_and_again_grows_it_no_more_than_pyatspi_walks() {
    let desktop = Desktop::start().expect("a headless desktop starts");
    let config = std::env::temp_dir().join(format!("uidrive-gimp-{}", std::process::id()));
    std::fs::create_dir_all(&config).unwrap();
    let mut opts = options(&desktop);
    opts.env
        .push(("XDG_CONFIG_HOME".into(), config.display().to_string()));
    // GIMP takes half a minute to start on a busy machine.
    opts.timeout = Duration::from_secs(120);
    let argv: Vec<String> = ["gimp", "-n", "-s", "-d", "-f"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let app = uidrive_atspi::launch_app(&argv, &opts).expect("GIMP launches with a tree");
    let pid = app.pid().expect("launched");
    let read = |times: usize| {
        for _ in 0..times {
            app.driver()
                .tree(&TreeParams { window: None })
                .expect("the window reads");
        }
    };
    // One client walking the window `times` times over one connection, as
    // uidrive's reads do (a process a walk would add a connection each).
    let walk = |times: usize| {
        let script = format!(
            "{}/../../scripts/compat/atspi_walk.py",
            env!("CARGO_MANIFEST_DIR")
        );
        let done = Command::new("timeout")
            .args(["600", "/usr/bin/python3", &script, &pid.to_string()])
            .args(["--repeat", &times.to_string()])
            .envs(desktop.env())
            .output()
            .expect("pyatspi's walk runs");
        assert!(
            done.status.success(),
            "{}",
            String::from_utf8_lossy(&done.stderr)
        );
    };
    // Both warm up first: the bridge's registry of the objects it was asked about.
    read(5);
    walk(5);
    let before = rss(pid);
    read(TURNS);
    let ours = rss(pid) - before;
    walk(TURNS);
    let theirs = rss(pid) - before - ours;
    eprintln!("{TURNS} reads: uidrive +{ours} kB, pyatspi +{theirs} kB");
    // Before uidrive stopped asking GAIL every description, its reads grew
    // GIMP by half as much again as pyatspi's walks (100 kB a read, 69 kB
    // a walk, in GIMP's heap).
    assert!(
        ours * 5 <= theirs.max(0) * 6,
        "{TURNS} uidrive reads grew GIMP by {ours} kB, {TURNS} pyatspi walks by {theirs} kB"
    );
    app.check_alive().expect("GIMP still runs");
    app.close().unwrap();
    let _ = std::fs::remove_dir_all(&config);
}
