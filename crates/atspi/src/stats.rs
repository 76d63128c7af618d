//! Where a read spends its calls and time, printed to stderr when
//! `UIDRIVE_ATSPI_STATS` is set (for the benchmark and for tuning; off otherwise).

use std::collections::BTreeMap;
use std::sync::Mutex;

static CALLS: Mutex<BTreeMap<String, u64>> = Mutex::new(BTreeMap::new());

pub fn on() -> bool {
    std::env::var_os("UIDRIVE_ATSPI_STATS").is_some()
}

/// Counts one D-Bus call of `method`.
pub fn count(method: &str) {
    if on() {
        *CALLS.lock().unwrap().entry(method.to_string()).or_insert(0) += 1;
    }
}

/// Prints a line about a read's progress.
pub fn note(line: impl FnOnce() -> String) {
    if on() {
        eprintln!("{}", line());
    }
}

/// Prints and clears the calls counted since the last time.
pub fn print_calls() {
    if on() {
        let mut calls = CALLS.lock().unwrap();
        eprintln!("calls: {:?}", *calls);
        calls.clear();
    }
}
