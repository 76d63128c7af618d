//! Reads an app's window tree with uidrive, for the benchmark script
//! (bench/atspi_tree.py) and for looking at what an app shows.
//!
//! usage: atspi_tree NAME [RUNS] [--json] [--press LABEL]
//!   NAME   the app's accessible name (gnome-calculator, gtk3-widget-factory, ...)
//!   RUNS   how many full reads to time (default 5); prints `nodes N ms M` per run
//!   --json prints the last tree as JSON
//!   --press LABEL times act(press) + idle on the first element labelled LABEL that can be pressed

use std::time::{Duration, Instant};
use uidrive_atspi::{AtspiDriver, LaunchOptions};
use uidrive_core::protocol::{ActParams, Action, IdleParams, TreeParams};
use uidrive_core::Driver;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(name) = args.first() else {
        eprintln!("usage: atspi_tree NAME [RUNS] [--json] [--press LABEL]");
        std::process::exit(2);
    };
    let runs: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(5);
    let json = args.iter().any(|a| a == "--json");
    let press = args
        .iter()
        .position(|a| a == "--press")
        .and_then(|at| args.get(at + 1));
    let opts = LaunchOptions {
        env: Vec::new(),
        timeout: Duration::from_secs(30),
    };
    let driver = AtspiDriver::attach_name(name, &opts).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let mut last = None;
    for _ in 0..runs {
        let started = Instant::now();
        let tree = driver.tree(&TreeParams::default()).expect("tree");
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        println!("nodes {} ms {ms:.2}", tree.nodes.len());
        last = Some(tree);
    }
    let tree = last.expect("at least one run");
    if let Some(label) = press {
        let button = tree
            .nodes
            .iter()
            .find(|n| {
                n.actions.contains(&Action::Press)
                    && n.label.as_deref().map(|l| l.trim()) == Some(label.as_str())
            })
            .expect("an element with that label that can be pressed");
        for _ in 0..runs {
            let started = Instant::now();
            driver
                .act(&ActParams::on(button.id, Action::Press))
                .expect("press");
            let acted = started.elapsed().as_secs_f64() * 1000.0;
            driver
                .idle(&IdleParams {
                    window: None,
                    timeout: Some(10_000),
                })
                .expect("idle");
            let total = started.elapsed().as_secs_f64() * 1000.0;
            println!("act ms {acted:.2} act+idle ms {total:.2}");
        }
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&tree).expect("json"));
    }
}
