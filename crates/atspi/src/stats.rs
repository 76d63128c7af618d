//! Where a read spends its calls and time, printed to stderr when
//! `UIDRIVE_ATSPI_STATS` is set (for the benchmark and for tuning; off otherwise).

use std::collections::BTreeMap;
use std::sync::Mutex;

static CALLS: Mutex<BTreeMap<String, u64>> = Mutex::new(BTreeMap::new());

/// Looked up once: it is asked on every call.
pub fn on() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("UIDRIVE_ATSPI_STATS").is_some())
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

/// The calls a read makes, kept while [`record_calls`] is on, to be asked
/// again all at once ([`replay`]): how long the app itself needs to answer
/// them, with no client waiting between them, bounds what any read of the
/// same fields can take.
static RECORDED: Mutex<Option<Vec<Recorded>>> = Mutex::new(None);
/// Whether [`RECORDED`] is on, asked on every call without taking its lock.
static RECORDING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// One call as it was made: the connection it went over, and its message.
type Recorded = (zbus::Connection, zbus::Message);

/// Starts keeping every call made, until [`take_recorded_calls`].
pub fn record_calls() {
    *RECORDED.lock().unwrap() = Some(Vec::new());
    RECORDING.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Keeps one call, as its message, when calls are being recorded.
pub fn record<B>(
    conn: &zbus::Connection,
    dest: &str,
    path: &str,
    iface: &str,
    method: &str,
    body: &B,
) where
    B: serde::Serialize + zbus::zvariant::DynamicType,
{
    if !RECORDING.load(std::sync::atomic::Ordering::Relaxed) {
        return;
    }
    let mut recorded = RECORDED.lock().unwrap();
    let Some(calls) = recorded.as_mut() else {
        return;
    };
    // An empty destination is the app's peer connection, as `bus::call` has it.
    let message = zbus::Message::method_call(path, method)
        .and_then(|m| m.interface(iface))
        .and_then(|m| match dest {
            "" => Ok(m),
            dest => m.destination(dest.to_string()),
        })
        .and_then(|m| m.build(body));
    if let Ok(message) = message {
        calls.push((conn.clone(), message));
    }
}

/// Calls a read made, to be asked again ([`crate::AtspiDriver::app_answer_time`]).
#[derive(Clone, Default)]
pub struct RecordedCalls(Vec<Recorded>);

/// Stops recording and gives the calls recorded.
pub fn take_recorded_calls() -> RecordedCalls {
    RECORDING.store(false, std::sync::atomic::Ordering::Relaxed);
    RecordedCalls(RECORDED.lock().unwrap().take().unwrap_or_default())
}

/// Asks `calls` again, each over the connection it first went over, all in
/// flight at once, and returns how many were answered (errors included: an
/// answer is an answer) and the time until the last one.
pub async fn replay(calls: &RecordedCalls) -> (usize, std::time::Duration) {
    let started = std::time::Instant::now();
    let asked = calls
        .0
        .iter()
        .map(|(conn, message)| ask_again(conn, message));
    let answered = futures_util::future::join_all(asked)
        .await
        .into_iter()
        .filter(|answered| *answered)
        .count();
    (answered, started.elapsed())
}

/// Asks one recorded call again; whether the app answered it.
async fn ask_again(conn: &zbus::Connection, message: &zbus::Message) -> bool {
    let header = message.header();
    let (Some(path), Some(iface), Some(method)) =
        (header.path(), header.interface(), header.member())
    else {
        return false;
    };
    let destination = header.destination();
    let body = message.body();
    let answer = if body.signature().to_string().is_empty() {
        conn.call_method(destination, path, Some(iface), method, &())
            .await
    } else {
        let Ok(args) = body.deserialize::<zbus::zvariant::Structure>() else {
            return false;
        };
        conn.call_method(destination, path, Some(iface), method, &args)
            .await
    };
    answer.is_ok() || matches!(answer, Err(zbus::Error::MethodError(..)))
}
