//! Helpers shared by the end-to-end tests: polling with deadlines.

#![allow(dead_code)]

use std::time::{Duration, Instant};

/// Generous: the CI machine has 2 cores shared by many jobs.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// Calls `probe` until it returns `Some`, or panics naming `what` after `timeout`.
pub fn wait_for<T>(what: &str, timeout: Duration, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_millis(2);
    loop {
        if let Some(value) = probe() {
            return value;
        }
        assert!(
            Instant::now() < deadline,
            "timed out after {timeout:?} waiting for {what}"
        );
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(25));
    }
}

/// Waits for a child to exit and returns its stdout.
pub fn wait_for_exit(child: &mut std::process::Child, timeout: Duration) -> String {
    use std::io::Read;
    let status = wait_for("the app to exit", timeout, || child.try_wait().unwrap());
    let mut out = String::new();
    if let Some(stdout) = child.stdout.as_mut() {
        stdout.read_to_string(&mut out).unwrap();
    }
    assert!(
        status.success(),
        "the app exited with {status}; stdout: {out:?}"
    );
    out
}

/// Kills the child if the test ends before it exits.
pub struct KillOnDrop(pub std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            let _ = self.0.kill();
        }
        let _ = self.0.wait();
    }
}
