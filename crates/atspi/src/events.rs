//! Settling: the app's accessibility events, and the actions whose effect has not shown yet.
//!
//! `idle` answers once the app has processed what it was sent and sent no
//! event meanwhile, proven by round trips to the app rather than by a quiet
//! timer; an action known to take effect late (GTK 4's `DoAction`) is waited
//! for through the first event after it, bounded by its latency. Bounds
//! changes are left out: animated widgets send them many times a second
//! without anything a test would read.

use futures_util::StreamExt;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tokio::sync::Notify;
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

/// Per app (by bus name): how many events it sent, and the action whose
/// effect is still to show, with the latest moment it may land.
#[derive(Debug, Default)]
pub struct Activity {
    seen: Mutex<HashMap<String, u64>>,
    awaiting: Mutex<HashMap<String, Instant>>,
    /// Woken at every event, for waits that end at the next one.
    event: Notify,
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
        // The first event after an action is its effect showing.
        self.awaiting.lock().unwrap().remove(bus_name);
        self.event.notify_waiters();
    }

    /// Notes an action on the app whose effect may land up to `latency`
    /// from now, unless an event shows it sooner.
    pub fn acted(&self, bus_name: &str, latency: Duration) {
        if latency.is_zero() {
            return;
        }
        let until = Instant::now() + latency;
        let mut map = self.awaiting.lock().unwrap();
        let entry = map.entry(bus_name.to_string()).or_insert(until);
        if *entry < until {
            *entry = until;
        }
    }

    /// Until when an action's effect may still land, if one is awaited.
    pub fn awaiting_until(&self, bus_name: &str) -> Option<Instant> {
        let mut map = self.awaiting.lock().unwrap();
        match map.get(bus_name) {
            Some(until) if *until > Instant::now() => Some(*until),
            Some(_) => {
                map.remove(bus_name);
                None
            }
            None => None,
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
pub async fn listen(conn: &Connection, activity: std::sync::Arc<Activity>) -> zbus::Result<()> {
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
    }
}
