//! Settling: the app's accessibility events, and the actions whose effect has not shown yet.
//!
//! `idle` answers once the app has processed what it was sent and sent no
//! event meanwhile, proven by round trips to the app, and then stayed quiet
//! (no event) for a quiet period: after an action, one long enough for the
//! app's own late work (a worker's answer, a toolkit's delayed activation)
//! to show; else a short one, which an app that never settles never gives.
//! An action known to take effect late (GTK 4's `DoAction`) is waited for
//! through the first event after it, bounded by its latency. Bounds changes
//! are left out: animated widgets send them many times a second without
//! anything a test would read.

use futures_util::StreamExt;
use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::Notify;
use uidrive_core::{Error, Result};
use zbus::{Connection, MatchRule, MessageStream};

/// The events that mean the UI changed in a way a test reads.
const EVENTS: [&str; 4] = [
    "object:children-changed",
    "object:property-change",
    "object:state-changed",
    "object:text-changed",
];
const MEMBERS: [&str; 4] = [
    "ChildrenChanged",
    "PropertyChange",
    "StateChanged",
    "TextChanged",
];

/// An action whose effect is still to show: from when an event can be its
/// effect, and the latest moment it may land.
#[derive(Debug, Clone, Copy)]
struct Awaited {
    shows_from: Instant,
    until: Instant,
}

/// Per app (by bus name): how many events it sent, and the action whose
/// effect is still to show.
#[derive(Debug, Default)]
pub struct Activity {
    seen: Mutex<HashMap<String, u64>>,
    awaiting: Mutex<HashMap<String, Awaited>>,
    /// When the driver last acted on the app, and when a settle last saw the
    /// app quiet for a whole quiet period after that.
    acted_at: Mutex<HashMap<String, Instant>>,
    settled_at: Mutex<HashMap<String, Instant>>,
    /// Woken at every event, for waits that end at the next one.
    event: Notify,
    /// How many actions the driver sent, to any app.
    actions: AtomicU64,
    /// Whether the events are still being counted (the listener runs).
    listening: AtomicBool,
    /// The runtime whose thread counts the events.
    counter: OnceLock<tokio::runtime::Handle>,
}

impl Activity {
    /// How many events the app has sent so far.
    pub fn events_seen(&self, bus_name: &str) -> u64 {
        self.seen
            .lock()
            .unwrap()
            .get(bus_name)
            .copied()
            .unwrap_or(0)
    }

    fn saw_event(&self, bus_name: &str) {
        *self
            .seen
            .lock()
            .unwrap()
            .entry(bus_name.to_string())
            .or_default() += 1;
        // The first event that can be the last action's effect shows it.
        let mut awaiting = self.awaiting.lock().unwrap();
        if awaiting
            .get(bus_name)
            .is_some_and(|a| Instant::now() >= a.shows_from)
        {
            awaiting.remove(bus_name);
        }
        drop(awaiting);
        self.event.notify_waiters();
    }

    /// Notes an action on the app whose effect may land up to `latency`
    /// from now, unless an event shows it sooner.
    pub fn acted(&self, bus_name: &str, latency: Duration) {
        self.acted_late(bus_name, Duration::ZERO, latency);
    }

    /// Notes an action whose effect lands no sooner than `earliest` and at
    /// most `latest` from now (GTK 4 runs a `DoAction` about 250 ms after
    /// answering it): events before `earliest` belong to what came before,
    /// so several such actions in a row are awaited until the last one's
    /// effect, not the first one's.
    pub fn acted_late(&self, bus_name: &str, earliest: Duration, latest: Duration) {
        self.actions.fetch_add(1, Ordering::Relaxed);
        let now = Instant::now();
        self.acted_at
            .lock()
            .unwrap()
            .insert(bus_name.to_string(), now);
        if latest.is_zero() {
            return;
        }
        let this = Awaited {
            shows_from: now + earliest.min(latest),
            until: now + latest,
        };
        let mut map = self.awaiting.lock().unwrap();
        let entry = map.entry(bus_name.to_string()).or_insert(this);
        entry.shows_from = entry.shows_from.max(this.shows_from);
        entry.until = entry.until.max(this.until);
    }

    /// Until when an action's effect may still land, if one is awaited.
    pub fn awaiting_until(&self, bus_name: &str) -> Option<Instant> {
        let mut map = self.awaiting.lock().unwrap();
        match map.get(bus_name) {
            Some(a) if a.until > Instant::now() => Some(a.until),
            Some(_) => {
                map.remove(bus_name);
                None
            }
            None => None,
        }
    }

    /// Whether the driver acted on the app since a settle last saw it quiet
    /// for a whole quiet period: then its late work may still come.
    pub fn unsettled(&self, bus_name: &str) -> bool {
        let acted = self.acted_at.lock().unwrap().get(bus_name).copied();
        let settled = self.settled_at.lock().unwrap().get(bus_name).copied();
        match (acted, settled) {
            (Some(acted), Some(settled)) => acted > settled,
            (Some(_), None) => true,
            (None, _) => false,
        }
    }

    /// Notes that the app stayed quiet for a whole quiet period, up to `at`.
    pub fn settled(&self, bus_name: &str, at: Instant) {
        self.settled_at
            .lock()
            .unwrap()
            .insert(bus_name.to_string(), at);
    }

    /// How many actions the driver sent so far ([`Activity::acted`]).
    pub fn actions_sent(&self) -> u64 {
        self.actions.load(Ordering::Relaxed)
    }

    /// Whether the events are still being counted: the listener stops only
    /// when the bus connection closes.
    pub fn listening(&self) -> bool {
        self.listening.load(Ordering::Relaxed)
    }

    /// Whether the app sent no event since `before` (a count from
    /// [`Activity::events_seen`]), once `round_trip`, a call over the bus
    /// where its events come, is answered. The bus hands over the app's
    /// events and answers in the order the app sent them, and the check runs
    /// on the thread that counts events, after letting it count the events
    /// that arrived ahead of the answer.
    pub async fn quiet_after(
        self: &Arc<Self>,
        bus_name: &str,
        before: u64,
        round_trip: impl Future<Output = Result<()>> + Send + 'static,
    ) -> Result<bool> {
        let (activity, bus_name) = (self.clone(), bus_name.to_string());
        let check = async move {
            round_trip.await?;
            tokio::task::yield_now().await;
            tokio::task::yield_now().await;
            Ok(activity.events_seen(&bus_name) == before)
        };
        match self.counter.get() {
            Some(counter) => counter.spawn(check).await.map_err(|e| {
                Error::failed(format!("the check for the app's events stopped: {e}"))
            })?,
            None => check.await,
        }
    }

    /// Waits until `until` unless the app `bus_name` sends an event first
    /// (its count passes `before`); answers whether it stayed quiet.
    pub async fn quiet_until(&self, bus_name: &str, before: u64, until: Instant) -> bool {
        loop {
            // Registered before the count is read, so no event slips between.
            let notified = self.event.notified();
            if self.events_seen(bus_name) != before {
                return false;
            }
            if Instant::now() >= until {
                return true;
            }
            tokio::select! {
                () = notified => {}
                () = tokio::time::sleep_until(until.into()) => {}
            }
        }
    }

    /// Waits for the app's next event, or until `until`, whichever is first.
    pub async fn next_event_or(&self, until: Instant) {
        let notified = self.event.notified();
        tokio::select! {
            () = notified => {}
            () = tokio::time::sleep_until(until.into()) => {}
        }
    }
}

/// Asks the registry to have apps send the events settling listens to, and
/// starts recording them. GTK 3 sends object events only after this.
pub async fn listen(conn: &Connection, activity: Arc<Activity>) -> zbus::Result<()> {
    let rule = MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .interface("org.a11y.atspi.Event.Object")?
        .build();
    let mut stream = MessageStream::for_match_rule(rule, conn, Some(4096)).await?;
    for event in EVENTS {
        let registered = conn
            .call_method(
                Some("org.a11y.atspi.Registry"),
                "/org/a11y/atspi/registry",
                Some("org.a11y.atspi.Registry"),
                "RegisterEvent",
                &(event, Vec::<String>::new(), ""),
            )
            .await;
        if registered.is_err() {
            // Older registries take the event name alone.
            let _ = conn
                .call_method(
                    Some("org.a11y.atspi.Registry"),
                    "/org/a11y/atspi/registry",
                    Some("org.a11y.atspi.Registry"),
                    "RegisterEvent",
                    &(event,),
                )
                .await;
        }
    }
    let _ = activity.counter.set(tokio::runtime::Handle::current());
    activity.listening.store(true, Ordering::Relaxed);
    tokio::spawn(async move {
        while let Some(Ok(message)) = stream.next().await {
            let header = message.header();
            let member = header
                .member()
                .map(|m| m.as_str().to_string())
                .unwrap_or_default();
            if !MEMBERS.contains(&member.as_str()) {
                continue;
            }
            crate::stats::count(&format!("event {member}"));
            if let Some(sender) = header.sender() {
                activity.saw_event(sender.as_str());
            }
        }
        activity.listening.store(false, Ordering::Relaxed);
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_action_is_awaited_until_its_first_event_or_its_latency() {
        let activity = Activity::default();
        assert!(activity.awaiting_until(":1.5").is_none());
        activity.acted(":1.5", Duration::ZERO);
        assert!(
            activity.awaiting_until(":1.5").is_none(),
            "nothing to await"
        );
        activity.acted(":1.5", Duration::from_secs(60));
        assert!(activity.awaiting_until(":1.5").is_some());
        activity.saw_event(":1.5");
        assert!(
            activity.awaiting_until(":1.5").is_none(),
            "the event ends it"
        );
        assert_eq!(activity.events_seen(":1.5"), 1);
        activity.acted(":1.5", Duration::from_millis(1));
        std::thread::sleep(Duration::from_millis(5));
        assert!(
            activity.awaiting_until(":1.5").is_none(),
            "the latency ends it"
        );
        assert_eq!(activity.events_seen(":1.6"), 0);
        // A late action: an event before its effect can land does not end the wait.
        activity.acted_late(":1.5", Duration::from_secs(30), Duration::from_secs(60));
        activity.saw_event(":1.5");
        assert!(
            activity.awaiting_until(":1.5").is_some(),
            "too soon to be its effect"
        );
    }
}
