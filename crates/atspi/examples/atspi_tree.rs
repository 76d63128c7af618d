//! Reads an app's window tree with uidrive, and times actions the way a test
//! writes them, for the benchmark script (bench/atspi_tree.py) and for
//! looking at what an app shows.
//!
//! usage: atspi_tree NAME [RUNS] [--json] [--turns] [--press LABEL]
//!                    [--click SELECTOR (--flips STATE | --appends TEXT) [--on SELECTOR]]
//!                    [--type SELECTOR TEXT]
//!        atspi_tree --app-env
//!   --app-env prints how uidrive's headless desktop sets an app's environment
//!          beyond its display and buses, a line each: `unset NAME` or
//!          `NAME=VALUE`; a harness with its own display launches apps so.
//!   NAME   the app's accessible name (gnome-calculator, gtk3-widget-factory, ...)
//!   RUNS   how many full reads (and actions) to time (default 5); prints `nodes N ms M` per read
//!   --json prints the last tree as JSON
//!   --turns then reads commands from stdin until it ends, a line each:
//!          `read` prints `nodes N ms M` for one read; `replay` asks the calls
//!          of one read again, all at once, and prints `replay calls N ms M`:
//!          the app's own answer time for a read, with no client waiting
//!          between calls (the calls are those of one more read, made at the
//!          first `replay`). One process for all of a benchmark's turns
//!          keeps its connections to the app to one pair: GTK's bridge keeps
//!          every connection it was given, and each slows the app a little
//!          (docs/apps.md).
//!   --press LABEL times act(press) + idle on the first element labelled LABEL that can be pressed
//!   --click SELECTOR times a locator's `click()` on the element SELECTOR finds
//!          (`role=button[name="7"]`), then the read back of its effect: the
//!          element --on finds (else the clicked one) gets STATE flipped
//!          (`checked`, `expanded`, `selected`), or its value grows by TEXT.
//!          Each run prints `click ms A settled ms B` (click, then `expect`
//!          until the effect shows) and `click ms A idle ms B read ms C seen S`
//!          (click, `idle`, then one read, as `click --settle` does; S says
//!          whether that one read showed the effect); then, with the window
//!          settled, `phase read ms R element_at ms H idle ms I`: a locator's
//!          read of the window, the hit test at the element's centre, and an
//!          `idle` with nothing to wait for, each alone.
//!   --type SELECTOR TEXT times typing TEXT into the field SELECTOR finds, emptied
//!          first: `press_sequentially` (which reads the text back) prints
//!          `press_sequentially ms A`; `keyboard.type` then `expect` prints
//!          `keyboard.type ms A settled ms B`.
//!
//! Locators, `expect` and the keyboard go through `uidrive_core::App` over the
//! driver, as a Rust test would use them.

use std::sync::Arc;
use std::time::{Duration, Instant};
use uidrive_atspi::{AtspiDriver, LaunchOptions};
use uidrive_core::protocol::{ActParams, Action, ElementAtParams, IdleParams, State, TreeParams};
use uidrive_core::{expect, App, Driver, Locator, TextMatch};

/// What a click should change, to be read back.
enum Effect {
    Flips(State),
    Appends(String),
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--app-env") {
        print_app_env();
        return;
    }
    let Some(name) = args.first() else {
        eprintln!("usage: atspi_tree NAME [RUNS] [--json] [--turns] [--press LABEL] [--click SELECTOR (--flips STATE | --appends TEXT) [--on SELECTOR]] [--type SELECTOR TEXT]\n       atspi_tree --app-env");
        std::process::exit(2);
    };
    let runs: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(5);
    let json = args.iter().any(|a| a == "--json");
    let flag = |name: &str, at: usize| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1 + at))
            .cloned()
    };
    let press = flag("--press", 0);
    let click = flag("--click", 0);
    let effect = match (flag("--flips", 0), flag("--appends", 0)) {
        (Some(state), _) => Some(Effect::Flips(
            serde_json::from_value(serde_json::Value::String(state.clone()))
                .unwrap_or_else(|_| fail(format!("--flips {state}: not a state name"))),
        )),
        (None, Some(text)) => Some(Effect::Appends(text)),
        (None, None) => None,
    };
    let on = flag("--on", 0);
    let typed = flag("--type", 0).zip(flag("--type", 1));
    let timeout = std::env::var("UIDRIVE_BENCH_TIMEOUT_S")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
    let opts = LaunchOptions {
        env: Vec::new(),
        timeout: Duration::from_secs(timeout),
    };
    let driver = Arc::new(AtspiDriver::attach_name(name, &opts).unwrap_or_else(|e| fail(&e)));
    let mut last = None;
    for _ in 0..runs {
        last = Some(timed_read(&driver));
    }
    let tree = last.expect("at least one run");
    if args.iter().any(|a| a == "--turns") {
        let mut recorded = None;
        for line in std::io::stdin().lines() {
            match line.as_deref().map(str::trim) {
                Ok("read") => {
                    timed_read(&driver);
                }
                Ok("replay") => replay(
                    &driver,
                    recorded.get_or_insert_with(|| record_a_read(&driver)),
                ),
                Ok(other) => fail(format!("--turns: `{other}` is not `read` or `replay`")),
                Err(e) => fail(format!("--turns: stdin: {e}")),
            }
        }
    }
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
            let acted = ms(started);
            idle(driver.as_ref());
            println!("act ms {acted:.2} act+idle ms {:.2}", ms(started));
        }
    }
    let app = App::new(driver.clone());
    if let Some(selector) = click {
        let effect =
            effect.unwrap_or_else(|| fail("--click needs --flips STATE or --appends TEXT"));
        let target = app.locator(&selector);
        let watched = on.map_or_else(|| target.clone(), |s| app.locator(&s));
        time_clicks(driver.as_ref(), &target, &watched, &effect, runs);
    }
    if let Some((selector, text)) = typed {
        time_typing(&app, &app.locator(&selector), &text, runs);
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&tree).expect("json"));
    }
}

/// The environment uidrive's headless desktop gives an app, beyond its
/// display and buses (see `--app-env`).
fn print_app_env() {
    for name in uidrive_x11::Desktop::env_removed() {
        println!("unset {name}");
    }
    for (name, value) in uidrive_x11::Desktop::toolkit_env() {
        println!("{name}={value}");
    }
}

/// Clicks `target` `runs` times each way: until `expect` sees the effect on
/// `watched`, and with `idle` then a single read.
fn time_clicks(
    driver: &dyn Driver,
    target: &Locator,
    watched: &Locator,
    effect: &Effect,
    runs: usize,
) {
    for run in 0..runs {
        for settle_by_idle in [false, true] {
            let before = watched.node().unwrap_or_else(|e| fail(&e));
            let shows = |node: &uidrive_core::protocol::Node| match effect {
                Effect::Flips(state) => node.has_state(state) != before.has_state(state),
                Effect::Appends(text) => {
                    node.value.clone().unwrap_or_default()
                        == format!("{}{text}", before.value.clone().unwrap_or_default())
                }
            };
            let started = Instant::now();
            let outcome = target.click().unwrap_or_else(|e| fail(&e));
            let clicked = ms(started);
            if run == 0 && !settle_by_idle {
                println!("route {}", outcome.route.as_str());
            }
            if settle_by_idle {
                idle(driver);
                let idled = ms(started);
                let node = watched.node().unwrap_or_else(|e| fail(&e));
                let read = ms(started);
                let seen = shows(&node);
                if !seen {
                    // Let the effect land before the next run measures from it.
                    wait_for(watched, effect, &before);
                }
                println!("click ms {clicked:.2} idle ms {idled:.2} read ms {read:.2} seen {seen}");
            } else {
                wait_for(watched, effect, &before);
                println!("click ms {clicked:.2} settled ms {:.2}", ms(started));
            }
        }
        // Where a click's time can go, each alone on the settled window: a
        // full read, the hit test at the element's centre, an idle.
        let started = Instant::now();
        let node = target.node().unwrap_or_else(|e| fail(&e));
        let read = ms(started);
        let bounds = node
            .bounds
            .unwrap_or_else(|| fail("the clicked element has no bounds"));
        let started = Instant::now();
        driver
            .element_at(&ElementAtParams {
                window: None,
                x: bounds.x + bounds.width / 2.0,
                y: bounds.y + bounds.height / 2.0,
            })
            .unwrap_or_else(|e| fail(&e));
        let hit = ms(started);
        let started = Instant::now();
        idle(driver);
        println!(
            "phase read ms {read:.2} element_at ms {hit:.2} idle ms {:.2}",
            ms(started)
        );
    }
}

/// `expect` on `watched` until the click's effect shows.
fn wait_for(watched: &Locator, effect: &Effect, before: &uidrive_core::protocol::Node) {
    let checked = match effect {
        Effect::Flips(state) => {
            let assertion = expect(watched);
            let assertion = if before.has_state(state) {
                assertion.not()
            } else {
                assertion
            };
            assertion.to_have_state(state.clone())
        }
        Effect::Appends(text) => expect(watched).to_have_value(TextMatch::exact(format!(
            "{}{text}",
            before.value.clone().unwrap_or_default()
        ))),
    };
    checked.unwrap_or_else(|e| fail(&e));
}

/// Types `text` into the emptied `field` with `press_sequentially`, and with
/// the app's keyboard after focusing it, `runs` times each.
fn time_typing(app: &App, field: &Locator, text: &str, runs: usize) {
    let keyboard = app.keyboard();
    let original = field
        .value()
        .unwrap_or_else(|e| fail(&e))
        .unwrap_or_default();
    for _ in 0..runs {
        field.fill("").unwrap_or_else(|e| fail(&e));
        let started = Instant::now();
        field
            .press_sequentially(text, None)
            .unwrap_or_else(|e| fail(&e));
        println!("press_sequentially ms {:.2}", ms(started));
        expect(field)
            .to_have_value(TextMatch::exact(text))
            .unwrap_or_else(|e| fail(&e));

        field.fill("").unwrap_or_else(|e| fail(&e));
        field.focus().unwrap_or_else(|e| fail(&e));
        let started = Instant::now();
        keyboard.type_text(text, None).unwrap_or_else(|e| fail(&e));
        let typed = ms(started);
        expect(field)
            .to_have_value(TextMatch::exact(text))
            .unwrap_or_else(|e| fail(&e));
        println!("keyboard.type ms {typed:.2} settled ms {:.2}", ms(started));
    }
    // The peers find the field by what it read before.
    field.fill(&original).unwrap_or_else(|e| fail(&e));
}

fn idle(driver: &dyn Driver) {
    driver
        .idle(&IdleParams::within(None, 10_000))
        .expect("idle");
}

/// One read of the window, printed as `nodes N ms M`: N counts the app's
/// objects, as a pyatspi walk does (a node `joined` from one widget's two
/// objects counts two).
fn timed_read(driver: &AtspiDriver) -> uidrive_core::protocol::Tree {
    let started = Instant::now();
    let tree = driver.tree(&TreeParams::default()).expect("tree");
    let joined = tree
        .nodes
        .iter()
        .filter(|n| n.extra.get("joined").is_some_and(|j| j == true))
        .count();
    println!("nodes {} ms {:.2}", tree.nodes.len() + joined, ms(started));
    tree
}

/// The calls of one more read, recorded. It comes right after another read,
/// as every measured read does, so it makes the calls they make: where the
/// app's cache answer is kept between reads, it does not ask it again.
fn record_a_read(driver: &AtspiDriver) -> uidrive_atspi::RecordedCalls {
    driver.tree(&TreeParams::default()).expect("tree");
    uidrive_atspi::record_calls();
    driver.tree(&TreeParams::default()).expect("tree");
    uidrive_atspi::take_recorded_calls()
}

/// A read's calls asked again all at once, printed as `replay calls N ms M`.
fn replay(driver: &AtspiDriver, recorded: &uidrive_atspi::RecordedCalls) {
    let (calls, took) = driver
        .app_answer_time(recorded)
        .unwrap_or_else(|e| fail(&e));
    println!("replay calls {calls} ms {:.2}", took.as_secs_f64() * 1000.0);
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

fn fail(what: impl std::fmt::Display) -> ! {
    eprintln!("{what}");
    std::process::exit(1)
}
