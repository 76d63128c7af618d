//! How long launching waits, after an app's window shows on the
//! accessibility bus, for the app to take input (`AtspiDriver::wait_ready`),
//! per app, each run on a headless desktop of its own.
//!
//! usage: ready_time [RUNS] [-- ARGV...]
//!   without ARGV: one app per toolkit (GTK 3, GTK 4, Qt 5, Qt 6, Firefox,
//!   Chromium, LibreOffice); prints `APP proof P ms M` per run, then the
//!   median per app.

use std::time::Duration;
use uidrive_atspi::{AtspiDriver, LaunchOptions};
use uidrive_x11::Desktop;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (runs, argv) = match args.iter().position(|a| a == "--") {
        Some(at) => (args[..at].first().cloned(), vec![args[at + 1..].to_vec()]),
        None => (args.first().cloned(), default_apps()),
    };
    let runs: usize = runs.and_then(|r| r.parse().ok()).unwrap_or(3);
    for argv in argv {
        let name = argv[0].clone();
        let mut times = Vec::new();
        for _ in 0..runs {
            let desktop = Desktop::start().expect("a headless desktop starts");
            let options = LaunchOptions {
                env: desktop.env(),
                timeout: Duration::from_secs(60),
            };
            let argv = argv
                .iter()
                .map(|a| a.replace("{run}", &format!("{}", std::process::id())))
                .collect::<Vec<_>>();
            if let Some(at) = argv.iter().position(|a| a == "--profile") {
                // Firefox takes only a profile directory that exists.
                let _ = std::fs::create_dir_all(&argv[at + 1]);
            }
            match AtspiDriver::launch_ready(&argv, &options) {
                Ok((driver, mut child, ready)) => {
                    println!(
                        "{name} proof {} ms {:.1}",
                        ready.proof(),
                        ready.waited.as_secs_f64() * 1000.0
                    );
                    times.push(ready.waited);
                    drop(driver);
                    let _ = child.kill();
                    let _ = child.wait();
                }
                Err(e) => println!("{name} failed: {e}"),
            }
            desktop.stop();
        }
        times.sort();
        if let Some(median) = times.get(times.len() / 2) {
            println!(
                "{name} median ms {:.1} of {} runs",
                median.as_secs_f64() * 1000.0,
                times.len()
            );
        }
    }
}

fn default_apps() -> Vec<Vec<String>> {
    let form = format!(
        "{}/../../scripts/compat/form.html",
        env!("CARGO_MANIFEST_DIR")
    );
    [
        vec!["gtk3-widget-factory".to_string()],
        vec!["gnome-calculator".to_string()],
        vec!["featherpad".to_string()],
        vec!["/usr/lib/qt6/bin/linguist".to_string()],
        vec![
            "firefox-esr".to_string(),
            "--new-instance".to_string(),
            "--profile".to_string(),
            "/tmp/uidrive-ready-firefox-{run}".to_string(),
            form.clone(),
        ],
        vec![
            "chromium".to_string(),
            "--no-first-run".to_string(),
            "--no-default-browser-check".to_string(),
            "--password-store=basic".to_string(),
            "--no-sandbox".to_string(),
            "--user-data-dir=/tmp/uidrive-ready-chromium-{run}".to_string(),
            form,
        ],
        vec![
            "localc".to_string(),
            "--norestore".to_string(),
            "-env:UserInstallation=file:///tmp/uidrive-ready-office-{run}".to_string(),
        ],
    ]
    .into_iter()
    .collect()
}
