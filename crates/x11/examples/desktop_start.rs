//! Measures how long the headless desktop takes to start, with and without
//! its window manager, and the window manager's memory:
//! `cargo run -p uidrive-x11 --example desktop_start [RUNS]`.

use std::time::Instant;

use uidrive_x11::{Desktop, DesktopOptions};

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(5);
    for (label, wm) in [
        ("no window manager", None),
        ("openbox", DesktopOptions::default().window_manager),
    ] {
        let options = DesktopOptions {
            window_manager: wm,
            ..DesktopOptions::default()
        };
        let mut times = Vec::new();
        let mut rss = Vec::new();
        for _ in 0..runs {
            let started = Instant::now();
            let desktop = Desktop::start_with(&options).expect("the desktop starts");
            times.push(started.elapsed().as_secs_f64() * 1000.0);
            if options.window_manager.is_some() {
                std::thread::sleep(std::time::Duration::from_millis(500));
                // The first process the desktop started is its window manager.
                rss.push(rss_kib(desktop.process_ids()[0]));
            }
            desktop.stop();
        }
        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let median = times[times.len() / 2];
        print!(
            "{label}: start median {median:.0} ms (min {:.0}, max {:.0})",
            times[0],
            times[times.len() - 1]
        );
        if !rss.is_empty() {
            print!(", window manager RSS {} KiB", rss[rss.len() / 2]);
        }
        println!();
    }
}
