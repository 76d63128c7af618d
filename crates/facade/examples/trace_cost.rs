//! What tracing costs: the gnome-calculator scenario (7 × 6 = 42 and an
//! `expect` on the display, five steps) on a private headless desktop, run
//! with tracing off and on, counting the calls locators make to the app's
//! driver and timing each run. Prints the tree reads, captures and settle
//! waits tracing adds per step, the time per step each way, and what a trace
//! of the scenario weighs.
//!
//!     cargo run --release -p uidrive-facade --example trace_cost [ROUNDS]
//!
//! (bench/trace_cost.sh runs it.)

use serde_json::Value;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use uidrive_core::protocol::{
    ActParams, Capture, CaptureParams, ElementAtParams, ElementId, EvalParams, Hello, IdleParams,
    InputParams, MenuParams, Role, Tree, TreeParams, WindowList,
};
use uidrive_core::trace::TraceOptions;
use uidrive_core::{expect, App, Driver, Result, RoleQuery, TextMatch};
use uidrive_facade::{headless, HeadlessOptions, LaunchOptions};

/// The app's driver, counting what is asked of it.
struct Counting {
    inner: Arc<dyn Driver>,
    trees: AtomicU64,
    captures: AtomicU64,
    idles: AtomicU64,
    others: AtomicU64,
}

impl Counting {
    fn counts(&self) -> [u64; 4] {
        [
            self.trees.load(Ordering::Relaxed),
            self.captures.load(Ordering::Relaxed),
            self.idles.load(Ordering::Relaxed),
            self.others.load(Ordering::Relaxed),
        ]
    }
}

impl Driver for Counting {
    fn hello(&self) -> Result<Hello> {
        self.inner.hello()
    }
    fn windows(&self) -> Result<WindowList> {
        self.others.fetch_add(1, Ordering::Relaxed);
        self.inner.windows()
    }
    fn tree(&self, params: &TreeParams) -> Result<Tree> {
        self.trees.fetch_add(1, Ordering::Relaxed);
        self.inner.tree(params)
    }
    fn act(&self, params: &ActParams) -> Result<()> {
        self.others.fetch_add(1, Ordering::Relaxed);
        self.inner.act(params)
    }
    fn input(&self, params: &InputParams) -> Result<()> {
        self.others.fetch_add(1, Ordering::Relaxed);
        self.inner.input(params)
    }
    fn menu(&self, params: &MenuParams) -> Result<()> {
        self.inner.menu(params)
    }
    fn capture(&self, params: &CaptureParams) -> Result<Capture> {
        self.captures.fetch_add(1, Ordering::Relaxed);
        self.inner.capture(params)
    }
    fn eval(&self, params: &EvalParams) -> Result<Value> {
        self.inner.eval(params)
    }
    fn idle(&self, params: &IdleParams) -> Result<()> {
        self.idles.fetch_add(1, Ordering::Relaxed);
        self.inner.idle(params)
    }
    fn element_at(&self, params: &ElementAtParams) -> Result<Option<ElementId>> {
        self.inner.element_at(params)
    }
    fn cell_at(
        &self,
        params: &uidrive_core::protocol::CellAtParams,
    ) -> Result<Vec<uidrive_core::protocol::Node>> {
        self.inner.cell_at(params)
    }
}

const STEPS: u64 = 5;

/// The scenario: four presses and a check of the display. Resets with Escape first.
fn scenario(app: &App) -> Result<()> {
    for key in ["7", "×", "6", "="] {
        app.get_by_role(Role::Button, RoleQuery::from(TextMatch::exact(key)))
            .click()?;
    }
    let display = app.get_by_role(Role::TextField, RoleQuery::any()).first();
    expect(&display).to_have_value(TextMatch::exact("42"))
}

fn main() -> Result<()> {
    let rounds: u32 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(5);
    let desktop = headless(&HeadlessOptions::default())?;
    let launched = desktop.launch(
        &["gnome-calculator".to_string()],
        &LaunchOptions {
            timeout: Some(Duration::from_secs(30)),
            ..LaunchOptions::default()
        },
    )?;
    let counting = Arc::new(Counting {
        inner: launched.driver().clone(),
        trees: AtomicU64::new(0),
        captures: AtomicU64::new(0),
        idles: AtomicU64::new(0),
        others: AtomicU64::new(0),
    });
    let app = App::new(counting.clone());
    let clear = || {
        app.get_by_role(Role::Button, RoleQuery::from(TextMatch::exact("Clear")))
            .click()
    };
    scenario(&app)?; // warm up
    let dir = std::env::temp_dir().join(format!("uidrive-trace-cost-{}", std::process::id()));
    let mut rows = Vec::new();
    let mut weight = 0;
    for traced in [false, true] {
        let mut time = Duration::ZERO;
        let mut calls = [0u64; 4];
        for round in 0..rounds {
            let _ = clear();
            if traced {
                app.start_tracing(TraceOptions::default())?;
            }
            let before = counting.counts();
            let started = Instant::now();
            scenario(&app)?;
            if traced {
                let path = dir.join(format!("round-{round}.zip"));
                let written = app.stop_tracing(Some(&path))?.expect("a trace was on");
                weight = written.bytes;
            }
            time += started.elapsed();
            let after = counting.counts();
            for i in 0..4 {
                calls[i] += after[i] - before[i];
            }
        }
        let per_step = |n: u64| n as f64 / f64::from(rounds) / STEPS as f64;
        rows.push((
            traced,
            time.as_secs_f64() * 1000.0 / f64::from(rounds) / STEPS as f64,
            calls.map(per_step),
        ));
    }
    println!("gnome-calculator scenario, {STEPS} steps, {rounds} rounds each way (stop's final frame counted in)");
    println!(
        "{:<12} {:>10} {:>11} {:>9} {:>11} {:>13}",
        "tracing", "ms/step", "trees/step", "captures", "idles/step", "other calls"
    );
    for (traced, ms, [trees, captures, idles, others]) in &rows {
        let label = if *traced { "on" } else { "off" };
        println!(
            "{label:<12} {ms:>10.1} {trees:>11.2} {captures:>9.2} {idles:>11.2} {others:>13.2}"
        );
    }
    let (off, on) = (&rows[0], &rows[1]);
    println!(
        "tracing adds per step: {:.1} ms, {:.2} tree reads, {:.2} captures, {:.2} settle waits",
        on.1 - off.1,
        on.2[0] - off.2[0],
        on.2[1] - off.2[1],
        on.2[2] - off.2[2]
    );
    println!("a trace of the scenario weighs {weight} bytes");
    let _ = std::fs::remove_dir_all(&dir);
    drop(app);
    uidrive_facade::close(&launched)?;
    desktop.stop();
    Ok(())
}
