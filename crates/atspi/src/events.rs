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
use std::collections::{HashMap, HashSet, VecDeque};
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::Notify;
use uidrive_core::protocol::{ElementId, EventKind};
use uidrive_core::{Error, Result};
use zbus::zvariant::Value;
use zbus::{Connection, MatchRule, MessageStream};

/// The events that mean the UI changed in a way a test reads.
const EVENTS: [&str; 4] = [
    "object:children-changed",
    "object:property-change",
    "object:state-changed",
    "object:text-changed",
];
/// Window events, which `waitEvent` hands over and settling leaves out.
const WINDOW_EVENTS: [&str; 4] = [
    "window:create",
    "window:destroy",
    "window:activate",
    "window:deactivate",
];
/// Boxes that changed (GTK 3 sends one at every new allocation of a
/// widget): counted apart, for the boxes a read keeps ([`crate::kept`]),
/// and not by settling, which waits for what the app announces.
const BOUNDS_EVENT: &str = "object:bounds-changed";
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

/// The boxes one app announced changed, by object.
#[derive(Debug, Default)]
struct BoundsLog {
    /// How many it announced.
    count: u64,
    /// The count at each object's latest announcement.
    latest: HashMap<String, u64>,
    /// The count when `latest` was last emptied: it holds at most
    /// [`MOST_BOUNDS_KEPT`] objects.
    emptied_at: u64,
}

/// More objects than a window shows, many times over.
const MOST_BOUNDS_KEPT: usize = 20_000;

/// Per app (by bus name): how many events it sent, and the action whose
/// effect is still to show.
#[derive(Debug, Default)]
pub struct Activity {
    seen: Mutex<HashMap<String, u64>>,
    /// The boxes each app announced changed (`BoundsChanged`).
    bounds: Mutex<HashMap<String, BoundsLog>>,
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
    /// The latest events, for `waitEvent`.
    journal: Mutex<Journal>,
}

/// One event an app sent, as kept for `waitEvent`.
#[derive(Debug, Clone, PartialEq)]
pub struct Seen {
    seq: u64,
    /// The app's bus name and the object's path.
    pub bus: String,
    pub path: String,
    /// The kinds of change it announces (a focus is a state change too).
    pub kinds: Vec<EventKind>,
    /// The toolkit's word for it (`focused`, `accessible-name`, `insert`, `create`).
    pub detail: String,
    /// For a state: whether it was set (`true`) or cleared.
    pub on: Option<bool>,
}

/// The latest events of every app, and per app the first one a wait may
/// answer: none from before the driver's last action, none answered already.
#[derive(Debug, Default)]
struct Journal {
    events: VecDeque<Seen>,
    next: u64,
    from: HashMap<String, u64>,
}

/// How many events are kept for `waitEvent`: the oldest go first.
const KEPT_EVENTS: usize = 4096;

/// The object path of an app's root (its windows are its children).
const APP_ROOT: &str = "/org/a11y/atspi/accessible/root";

/// What an event announces, from its interface's member, its kind string
/// and first detail: the kinds it stands for, its detail, and for a state
/// whether it was set. Events no kind stands for give none.
pub fn classify(
    window_event: bool,
    member: &str,
    kind: &str,
    detail1: i32,
    path: &str,
) -> (Vec<EventKind>, String, Option<bool>) {
    if window_event {
        return (vec![EventKind::Window], member.to_ascii_lowercase(), None);
    }
    // The kind string is the event's minor part ("focused", "accessible-name", "insert:system").
    let minor = kind.split(':').next().unwrap_or_default().to_string();
    match member {
        "StateChanged" => {
            let on = detail1 != 0;
            let mut kinds = vec![EventKind::States];
            if minor == "focused" && on {
                kinds.insert(0, EventKind::Focus);
            }
            (kinds, minor, Some(on))
        }
        "PropertyChange" => match minor.as_str() {
            "accessible-name" => (vec![EventKind::Name], minor, None),
            "accessible-value" => (vec![EventKind::Value], minor, None),
            _ => (Vec::new(), minor, None),
        },
        "TextChanged" => (vec![EventKind::Value], minor, None),
        "ChildrenChanged" => {
            let mut kinds = vec![EventKind::Children];
            // A child of the app's root is a window of its own.
            if path == APP_ROOT {
                kinds.push(EventKind::Window);
            }
            (kinds, minor, None)
        }
        _ => (Vec::new(), minor, None),
    }
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

    /// How many boxes the app announced changed so far (`BoundsChanged`).
    pub fn bounds_seen(&self, bus_name: &str) -> u64 {
        self.bounds
            .lock()
            .unwrap()
            .get(bus_name)
            .map_or(0, |log| log.count)
    }

    /// The objects (paths) whose boxes the app announced changed since
    /// `since` (a count of [`Activity::bounds_seen`]); `None` when that is
    /// no longer known.
    pub fn bounds_changed_since(&self, bus_name: &str, since: u64) -> Option<HashSet<String>> {
        let logs = self.bounds.lock().unwrap();
        let Some(log) = logs.get(bus_name) else {
            return Some(HashSet::new());
        };
        if log.emptied_at > since {
            return None;
        }
        Some(
            log.latest
                .iter()
                .filter(|(_, at)| **at > since)
                .map(|(path, _)| path.clone())
                .collect(),
        )
    }

    fn saw_bounds(&self, bus_name: &str, path: &str) {
        let mut logs = self.bounds.lock().unwrap();
        let log = logs.entry(bus_name.to_string()).or_default();
        log.count += 1;
        if log.latest.len() >= MOST_BOUNDS_KEPT && !log.latest.contains_key(path) {
            log.latest.clear();
            log.emptied_at = log.count;
        }
        log.latest.insert(path.to_string(), log.count);
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

    /// Keeps an event for `waitEvent`, and wakes the waits.
    pub fn keep(
        &self,
        bus: &str,
        path: &str,
        kinds: Vec<EventKind>,
        detail: String,
        on: Option<bool>,
    ) {
        if kinds.is_empty() {
            return;
        }
        let mut journal = self.journal.lock().unwrap();
        let seq = journal.next;
        journal.next += 1;
        journal.events.push_back(Seen {
            seq,
            bus: bus.to_string(),
            path: path.to_string(),
            kinds,
            detail,
            on,
        });
        if journal.events.len() > KEPT_EVENTS {
            journal.events.pop_front();
        }
        drop(journal);
        self.event.notify_waiters();
    }

    /// Notes that the driver is about to act on the app: a wait answers no
    /// event the app sent before.
    pub fn mark_action(&self, bus: &str) {
        let mut journal = self.journal.lock().unwrap();
        let next = journal.next;
        journal.from.insert(bus.to_string(), next);
    }

    /// The first kept event of the app `bus` a wait may answer, of `kind`
    /// and (if given) about `element`; answering it drops those before it.
    pub fn take_event(
        &self,
        bus: &str,
        kind: EventKind,
        element: Option<ElementId>,
    ) -> Option<Seen> {
        let mut journal = self.journal.lock().unwrap();
        let from = journal.from.get(bus).copied().unwrap_or(0);
        let found = journal
            .events
            .iter()
            .find(|e| {
                e.seq >= from
                    && e.bus == bus
                    && e.kinds.contains(&kind)
                    && element.is_none_or(|id| crate::ids::element_id(&e.bus, &e.path) == id)
            })
            .cloned()?;
        journal.from.insert(bus.to_string(), found.seq + 1);
        Some(found)
    }

    /// [`Activity::take_event`], waiting for the event up to `until`.
    pub async fn wait_event(
        &self,
        bus: &str,
        kind: EventKind,
        element: Option<ElementId>,
        until: Instant,
    ) -> Option<Seen> {
        loop {
            // Registered before the journal is read, so no event slips between.
            let notified = self.event.notified();
            if let Some(seen) = self.take_event(bus, kind, element) {
                return Some(seen);
            }
            if Instant::now() >= until {
                return None;
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
    // Window events, for `waitEvent` only: settling does not count them.
    let window_rule = MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .interface("org.a11y.atspi.Event.Window")?
        .build();
    let mut window_stream = MessageStream::for_match_rule(window_rule, conn, Some(1024)).await?;
    for event in EVENTS.into_iter().chain(WINDOW_EVENTS) {
        register(conn, event, "").await;
    }
    let _ = activity.counter.set(tokio::runtime::Handle::current());
    let activity_for_windows = activity.clone();
    activity.listening.store(true, Ordering::Relaxed);
    tokio::spawn(async move {
        while let Some(Ok(message)) = stream.next().await {
            let header = message.header();
            let member = header
                .member()
                .map(|m| m.as_str().to_string())
                .unwrap_or_default();
            if member == "BoundsChanged" {
                crate::stats::count("event BoundsChanged");
                if let (Some(sender), Some(path)) = (header.sender(), header.path()) {
                    activity.saw_bounds(sender.as_str(), path.as_str());
                }
                continue;
            }
            if !MEMBERS.contains(&member.as_str()) {
                continue;
            }
            crate::stats::count(&format!("event {member}"));
            if let Some(sender) = header.sender() {
                activity.saw_event(sender.as_str());
                keep(&activity, &message, false);
            }
        }
        activity.listening.store(false, Ordering::Relaxed);
    });
    let windows = activity_for_windows;
    tokio::spawn(async move {
        while let Some(Ok(message)) = window_stream.next().await {
            keep(&windows, &message, true);
        }
    });
    Ok(())
}

/// Asks the registry to have the app `bus_name` announce every box that
/// changes, for the boxes a read keeps ([`crate::kept::KeptBoxes`]); only
/// of apps whose profile keeps them, as every app registered sends one at
/// each new allocation of a widget. Done before the driver's first read,
/// so the round trip that tells the bridge learnt of this driver's
/// registrations ([`crate::kept`]) tells it of this one too.
pub async fn listen_to_boxes(conn: &Connection, bus_name: &str) {
    register(conn, BOUNDS_EVENT, bus_name).await;
}

/// Registers `event` with the registry, for the app `bus_name` (every app if empty).
async fn register(conn: &Connection, event: &str, bus_name: &str) {
    let registered = conn
        .call_method(
            Some("org.a11y.atspi.Registry"),
            "/org/a11y/atspi/registry",
            Some("org.a11y.atspi.Registry"),
            "RegisterEvent",
            &(event, Vec::<String>::new(), bus_name),
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

/// Keeps `message`, an AT-SPI event signal, for `waitEvent`.
fn keep(activity: &Activity, message: &zbus::Message, window_event: bool) {
    let header = message.header();
    let (Some(sender), Some(path), Some(member)) =
        (header.sender(), header.path(), header.member())
    else {
        return;
    };
    // The body starts with the kind string and the first detail; for
    // children, `any_data` is a `(so)` reference to the child.
    let body = message.body();
    let args = body.deserialize::<zbus::zvariant::Structure>().ok();
    let fields = args.as_ref().map(|a| a.fields()).unwrap_or_default();
    let kind = match fields.first() {
        Some(Value::Str(s)) => s.as_str().to_string(),
        _ => String::new(),
    };
    let detail1 = match fields.get(1) {
        Some(Value::I32(n)) => *n,
        _ => 0,
    };
    let (mut kinds, detail, on) =
        classify(window_event, member.as_str(), &kind, detail1, path.as_str());
    // A window added to or removed from the app's root: the window event is
    // the window's own (toolkits without window events, as GTK 4, send only this).
    if kinds.contains(&EventKind::Window) && !window_event {
        if let Some(child) = fields.get(3).and_then(child_path) {
            kinds.retain(|k| *k != EventKind::Window);
            activity.keep(
                sender.as_str(),
                &child,
                vec![EventKind::Window],
                detail.clone(),
                None,
            );
        }
    }
    activity.keep(sender.as_str(), path.as_str(), kinds, detail, on);
}

/// The object path in an event's `any_data` holding a `(so)` reference.
fn child_path(data: &Value<'_>) -> Option<String> {
    let mut data = data;
    while let Value::Value(inner) = data {
        data = inner;
    }
    let Value::Structure(reference) = data else {
        return None;
    };
    match reference.fields().get(1)? {
        Value::ObjectPath(path) => Some(path.as_str().to_string()),
        _ => None,
    }
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

    #[test]
    fn boxes_announced_changed_are_known_by_object_since_a_count() {
        let activity = Activity::default();
        assert_eq!(
            activity.bounds_changed_since(":1.5", 0),
            Some(HashSet::new())
        );
        activity.saw_bounds(":1.5", "/a/1");
        let since = activity.bounds_seen(":1.5");
        activity.saw_bounds(":1.5", "/a/2");
        activity.saw_bounds(":1.6", "/a/3");
        let changed = activity.bounds_changed_since(":1.5", since).unwrap();
        assert_eq!(changed, HashSet::from(["/a/2".to_string()]));
        assert_eq!(
            activity.events_seen(":1.5"),
            0,
            "settling does not count them"
        );
        // Past its bound the log forgets; what changed since before is unknown.
        for n in 0..MOST_BOUNDS_KEPT {
            activity.saw_bounds(":1.5", &format!("/b/{n}"));
        }
        assert_eq!(activity.bounds_changed_since(":1.5", since), None);
    }

    #[test]
    fn events_say_what_changed() {
        let focus = classify(false, "StateChanged", "focused", 1, "/a/1");
        assert_eq!(focus.0, vec![EventKind::Focus, EventKind::States]);
        assert_eq!((focus.1.as_str(), focus.2), ("focused", Some(true)));
        let blur = classify(false, "StateChanged", "focused", 0, "/a/1");
        assert_eq!(
            blur.0,
            vec![EventKind::States],
            "losing the focus is no focus event"
        );
        assert_eq!(blur.2, Some(false));
        let typed = classify(false, "TextChanged", "insert:system", 0, "/a/1");
        assert_eq!(
            (typed.0, typed.1.as_str()),
            (vec![EventKind::Value], "insert")
        );
        let named = classify(false, "PropertyChange", "accessible-name", 0, "/a/1");
        assert_eq!(named.0, vec![EventKind::Name]);
        assert!(
            classify(false, "PropertyChange", "accessible-parent", 0, "/a")
                .0
                .is_empty()
        );
        let opened = classify(false, "ChildrenChanged", "add", 0, APP_ROOT);
        assert_eq!(opened.0, vec![EventKind::Children, EventKind::Window]);
        let window = classify(true, "Activate", "", 0, "/a/2");
        assert_eq!(
            (window.0, window.1.as_str()),
            (vec![EventKind::Window], "activate")
        );
    }

    #[test]
    fn a_wait_answers_events_in_order_once_and_none_from_before_an_action() {
        let activity = Activity::default();
        let keep = |path: &str, member: &str, kind: &str, on: i32| {
            let (kinds, detail, set) = classify(false, member, kind, on, path);
            activity.keep(":1.5", path, kinds, detail, set);
        };
        keep("/old", "StateChanged", "focused", 1);
        activity.mark_action(":1.5");
        assert_eq!(
            activity.take_event(":1.5", EventKind::Focus, None),
            None,
            "from before"
        );
        keep("/entry", "StateChanged", "focused", 1);
        keep("/entry", "TextChanged", "insert", 0);
        keep("/other", "TextChanged", "insert", 0);
        // Another app's events are not this one's.
        activity.keep(":1.9", "/x", vec![EventKind::Value], "insert".into(), None);
        let other = crate::ids::element_id(":1.5", "/other");
        let seen = activity
            .take_event(":1.5", EventKind::Value, Some(other))
            .unwrap();
        assert_eq!(seen.path, "/other");
        // Answering it dropped the events before it.
        assert_eq!(activity.take_event(":1.5", EventKind::Focus, None), None);
        assert_eq!(activity.take_event(":1.5", EventKind::Value, None), None);
        keep("/entry", "PropertyChange", "accessible-name", 0);
        let named = activity.take_event(":1.5", EventKind::Name, None).unwrap();
        assert_eq!(named.path, "/entry");
        assert_eq!(
            activity.take_event(":1.5", EventKind::Name, None),
            None,
            "answered once"
        );
    }
}
