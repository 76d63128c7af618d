//! Start-up time and memory of the headless Wayland desktop against the X11
//! one: `cargo run -p uidrive-wayland --example start_time`.

use std::time::Instant;

fn rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    for round in 0..3 {
        let started = Instant::now();
        let x = uidrive_x11::Desktop::start().expect("X11 desktop");
        let x_time = started.elapsed();
        let x_rss: u64 = x.process_ids().into_iter().map(rss_kb).sum();
        drop(x);
        let started = Instant::now();
        let w = uidrive_wayland::WaylandDesktop::start().expect("Wayland desktop");
        let w_time = started.elapsed();
        let w_rss: u64 = w.process_ids().into_iter().map(rss_kb).sum();
        drop(w);
        println!(
            "round {round}: X11 (Xvfb+openbox+buses) {x_time:?}, {x_rss} kB; Wayland (sway+buses) {w_time:?}, {w_rss} kB"
        );
    }
}
