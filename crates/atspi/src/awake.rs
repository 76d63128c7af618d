//! Keeping the thread that reads an app's answers awake while they arrive.
//!
//! A read keeps a few calls in flight and takes each answer as it comes.
//! Between two answers the reading thread has nothing to do, so it sleeps,
//! and on a virtual machine a core with nothing to run halts: waking it for
//! the next answer can take longer than the app took to send it, hundreds
//! of times a read. So while a driver call is under way and an app answered
//! on a peer socket within the last [`WINDOW`], the thread polls its sockets
//! instead of sleeping, yielding its core to any other thread that wants
//! it. Once the answers pause that long (a slow answer, a frame, a frozen
//! app) it sleeps as before, until the next answer: a call costs at most
//! `WINDOW` of polling per pause, and the app's own work is untouched.
//!
//! Measured on gtk3-widget-factory, on this project's 2-core KVM machine,
//! reads 50 ms apart: 23.8 ms sleeping between answers, 13.2 ms polling
//! (median of 30, docs/apps.md).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// How long after an answer the thread keeps polling for the next.
const WINDOW: Duration = Duration::from_millis(1);

/// When answers arrived, for the threads that wait on them.
struct Answers {
    /// How long after an answer to keep polling.
    window: Duration,
    start: Instant,
    /// When the last answer arrived, in nanoseconds after `start`, plus
    /// one; 0 while none has.
    last: AtomicU64,
    arrived: Notify,
    /// How many times a poller polled, and how many times it went to sleep.
    polls: AtomicU64,
    sleeps: AtomicU64,
}

/// The answers of every peer socket of this process.
static ANSWERS: LazyLock<Arc<Answers>> = LazyLock::new(|| Arc::new(Answers::new(WINDOW)));

/// Notes that bytes from an app arrived on a peer socket.
pub fn answer_arrived() {
    ANSWERS.arrived();
}

/// Keeps `runtime`'s thread polling while answers arrive, until the
/// returned guard is dropped.
pub fn while_waiting(runtime: &tokio::runtime::Handle) -> Polling {
    Polling(runtime.spawn(ANSWERS.clone().poll()))
}

/// Stops its poller when dropped.
pub struct Polling(tokio::task::JoinHandle<()>);

impl Drop for Polling {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Answers {
    fn new(window: Duration) -> Answers {
        Answers {
            window,
            start: Instant::now(),
            last: AtomicU64::new(0),
            arrived: Notify::new(),
            polls: AtomicU64::new(0),
            sleeps: AtomicU64::new(0),
        }
    }

    /// Now, as `last` counts.
    fn now(&self) -> u64 {
        self.start.elapsed().as_nanos() as u64 + 1
    }

    fn arrived(&self) {
        self.last.store(self.now(), Ordering::Relaxed);
        self.arrived.notify_one();
    }

    /// Whether an answer arrived within the last `window`.
    fn answering(&self) -> bool {
        match self.last.load(Ordering::Relaxed) {
            0 => false,
            last => self.now().saturating_sub(last) < self.window.as_nanos() as u64,
        }
    }

    /// Polls while answers keep arriving and sleeps while they do not;
    /// ends only when aborted.
    async fn poll(self: Arc<Self>) {
        loop {
            if self.answering() {
                self.polls.fetch_add(1, Ordering::Relaxed);
                // Lets any other thread that wants this core have it first.
                std::thread::yield_now();
                // Puts this task last: the runtime looks at its sockets,
                // without waiting, before it comes back here.
                tokio::task::yield_now().await;
            } else {
                self.sleeps.fetch_add(1, Ordering::Relaxed);
                self.arrived.notified().await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Waits (for at most 10 s) until the poller has gone to sleep `times` times.
    async fn slept(answers: &Answers, times: u64) {
        for _ in 0..10_000 {
            if answers.sleeps.load(Ordering::Relaxed) >= times {
                return;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        panic!("the poller never went to sleep a {times}th time");
    }

    #[tokio::test]
    async fn with_no_answer_the_poller_sleeps_without_polling() {
        let answers = Arc::new(Answers::new(WINDOW));
        let poller = tokio::spawn(answers.clone().poll());
        slept(&answers, 1).await;
        assert_eq!(answers.polls.load(Ordering::Relaxed), 0);
        poller.abort();
    }

    #[tokio::test]
    async fn an_answer_wakes_the_poller_which_sleeps_again_once_answers_pause() {
        // Long enough that the poller surely runs within it on a busy machine.
        let answers = Arc::new(Answers::new(Duration::from_millis(300)));
        let poller = tokio::spawn(answers.clone().poll());
        slept(&answers, 1).await;
        answers.arrived();
        slept(&answers, 2).await;
        let polled = answers.polls.load(Ordering::Relaxed);
        assert!(polled > 0, "the poller did not poll after an answer");
        answers.arrived();
        slept(&answers, 3).await;
        assert!(answers.polls.load(Ordering::Relaxed) > polled);
        poller.abort();
    }
}
