//! Settling: the app's accessibility events, and when it last acted or was acted on.
//!
//! `idle` answers once the app sent no event for a settle interval and any
//! action's late effect had time to land. Bounds changes are left out: animated
//! widgets send them many times a second without anything a test would read.

use futures_util::StreamExt;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use zbus::{Connection, MatchRule, MessageStream};

/// How long an app must be quiet to count as settled.
pub const SETTLE: Duration = Duration::from_millis(80);

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

/// When each app (by bus name) last sent an event, and until when an action's effect may land.
#[derive(Debug, Default)]
pub struct Activity {
    last_event: Mutex<HashMap<String, Instant>>,
    busy_until: Mutex<HashMap<String, Instant>>,
}

impl Activity {
    pub fn last_event(&self, bus_name: &str) -> Option<Instant> {
        self.last_event.lock().unwrap().get(bus_name).copied()
    }

    fn saw_event(&self, bus_name: &str) {
        self.last_event
            .lock()
            .unwrap()
            .insert(bus_name.to_string(), Instant::now());
    }

    /// Notes an action on the app whose effect may land up to `latency` from now.
    pub fn acted(&self, bus_name: &str, latency: Duration) {
        let until = Instant::now() + latency;
        let mut map = self.busy_until.lock().unwrap();
        let entry = map.entry(bus_name.to_string()).or_insert(until);
        if *entry < until {
            *entry = until;
        }
    }

    /// The moment from which the app must stay quiet for `SETTLE` to count as settled.
    pub fn quiet_from(&self, bus_name: &str) -> Option<Instant> {
        let event = self.last_event(bus_name);
        let busy = self.busy_until.lock().unwrap().get(bus_name).copied();
        event.max(busy)
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
    fn an_action_keeps_the_app_busy_for_its_latency() {
        let activity = Activity::default();
        assert!(activity.quiet_from(":1.5").is_none());
        activity.acted(":1.5", Duration::from_millis(300));
        let busy = activity.quiet_from(":1.5").unwrap();
        assert!(busy > Instant::now() + Duration::from_millis(200));
        activity.saw_event(":1.5");
        assert_eq!(
            activity.quiet_from(":1.5"),
            Some(busy),
            "a later deadline wins over an earlier event"
        );
    }
}
