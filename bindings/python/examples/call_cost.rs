//! Times uidrive calls made from Rust, for `bench.py` to set beside the same
//! calls made from Python over the same target.
//!
//!   call_cost socket PATH RUNS   an app on a protocol socket
//!   call_cost pid PID RUNS       an app on the accessibility bus (env from DISPLAY etc.)
//!
//! Prints one JSON object per method: {"method", "median_us", "runs", "nodes"}.

use std::sync::Arc;
use std::time::{Duration, Instant};
use uidrive_atspi::{AtspiDriver, LaunchOptions};
use uidrive_core::{App, Error};

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [kind, target, runs] = args.as_slice() else {
        return Err(Error::invalid_request(
            "usage: call_cost socket PATH RUNS | call_cost pid PID RUNS",
        ));
    };
    let runs: usize = runs
        .parse()
        .map_err(|_| Error::invalid_request("RUNS must be a number"))?;
    let app = match kind.as_str() {
        "socket" => App::connect(target)?,
        "pid" => {
            let pid = target
                .parse()
                .map_err(|_| Error::invalid_request("PID must be a number"))?;
            let options = LaunchOptions {
                env: Vec::new(),
                timeout: Duration::from_secs(30),
            };
            App::new(Arc::new(AtspiDriver::attach_pid(pid, &options)?))
        }
        other => {
            return Err(Error::invalid_request(format!(
                "unknown target kind {other}"
            )))
        }
    };
    let nodes = app.tree(None)?.nodes.len();
    report("hello", runs, nodes, || app.driver().hello().map(drop))?;
    report("windows", runs, nodes, || app.windows().map(drop))?;
    report("tree", runs, nodes, || app.tree(None).map(drop))?;
    Ok(())
}

fn report(
    method: &str,
    runs: usize,
    nodes: usize,
    mut call: impl FnMut() -> Result<(), Error>,
) -> Result<(), Error> {
    call()?; // warm up
    let mut times: Vec<Duration> = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        call()?;
        times.push(started.elapsed());
    }
    times.sort();
    let median = times[times.len() / 2];
    println!(
        "{{\"method\": \"{method}\", \"median_us\": {:.1}, \"runs\": {runs}, \"nodes\": {nodes}}}",
        median.as_secs_f64() * 1e6
    );
    Ok(())
}
