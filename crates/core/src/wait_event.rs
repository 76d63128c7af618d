//! Waiting for an accessibility event: the driver hands over the event from
//! the app's own stream (never a poll of the tree); core names its element,
//! reads it, and gives the new value the event announced.

use crate::error::{Error, ErrorCode, Result};
use crate::locator::Locator;
use crate::protocol::{Event, EventKind, Tree, TreeParams, WaitEventParams};
use crate::{App, Driver};
use std::time::{Duration, Instant};

/// How many windows are read, at most, to find the element of an event
/// whose window the driver did not know.
const WINDOWS_SEARCHED: usize = 8;

impl App {
    /// The first accessibility event of `kind` since uidrive's last action
    /// on the app that no earlier wait answered, else the next one to come,
    /// up to `timeout` (default [`crate::defaults::EVENT`]): `timeout` after.
    /// With a `target`, only events of its one element (resolved first,
    /// strictly; for `window`, events of the window element it names).
    /// Events are answered in order: answering one drops those before it.
    ///
    /// The event names its element and window, carries the element as read
    /// once it came (`node`), and the new value where it has one: the
    /// value or text for `value`, the name for `name`, `true` or `false`
    /// (set or cleared) for `states` and `focus`.
    pub fn wait_for_event(
        &self,
        kind: EventKind,
        target: Option<&Locator>,
        timeout: Option<Duration>,
    ) -> Result<Event> {
        wait(self.driver().as_ref(), kind, target, timeout)
    }
}

impl Locator {
    /// [`App::wait_for_event`] for this locator's one element.
    pub fn wait_for_event(&self, kind: EventKind, timeout: Option<Duration>) -> Result<Event> {
        wait(self.driver.as_ref(), kind, Some(self), timeout)
    }
}

fn wait(
    driver: &dyn Driver,
    kind: EventKind,
    target: Option<&Locator>,
    timeout: Option<Duration>,
) -> Result<Event> {
    let timeout = timeout.unwrap_or(crate::defaults::EVENT);
    let deadline = Instant::now() + timeout;
    let (element, window) = match target {
        Some(locator) => {
            let (tree, node) = locator
                .with_timeout(timeout)
                .resolve_one("wait_for_event")?;
            (Some(node.id), Some(tree.window))
        }
        None => (None, None),
    };
    let left = deadline.saturating_duration_since(Instant::now());
    let mut event = driver
        .wait_event(&WaitEventParams {
            kind,
            element,
            timeout: Some(left.as_millis() as u64),
        })
        .map_err(|e| match target {
            // The element as the caller named it, not by its id.
            Some(locator) if e.code == ErrorCode::Timeout => Error::timeout(format!(
                "wait_for_event: no {kind} event on {locator} came within {} ms",
                timeout.as_millis()
            ))
            .with_suggestion(e.suggestion)
            .from_operation("wait_for_event")
            .detail(|d| {
                d.element = Some(locator.subject());
                d.expected = Some(kind.to_string());
            }),
            _ => e,
        })?;
    event.kind.get_or_insert(kind);
    if event.window.is_none() {
        event.window = window;
    }
    complete(driver, &mut event);
    Ok(event)
}

/// Reads the event's element, in its window or, when the driver did not
/// know the window, in the app's first windows; and its new value.
fn complete(driver: &dyn Driver, event: &mut Event) {
    let Some(id) = event.element else {
        return;
    };
    if event.node.is_none() {
        let windows: Vec<_> = match event.window {
            Some(window) => vec![window],
            None => driver
                .windows()
                .map(|list| list.windows.iter().map(|w| w.id).collect())
                .unwrap_or_default(),
        };
        for window in windows.into_iter().take(WINDOWS_SEARCHED) {
            let Ok(tree) = driver.tree(&TreeParams {
                window: Some(window),
            }) else {
                continue;
            };
            if let Some(node) = find(&tree, id) {
                event.node = Some(node);
                event.window = Some(window);
                break;
            }
        }
    }
    if event.value.is_none() {
        event.value = match (event.kind, &event.node) {
            (Some(EventKind::Value), Some(node)) => crate::locator::value_of(node),
            (Some(EventKind::Name), Some(node)) => node.label.clone(),
            _ => None,
        };
    }
}

fn find(tree: &Tree, id: crate::protocol::ElementId) -> Option<crate::protocol::Node> {
    tree.nodes.iter().find(|n| n.id == id).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemoryDriver;
    use crate::protocol::{
        ActParams, Action, Capture, CaptureParams, EvalParams, Hello, IdleParams, InputParams,
        MenuParams, WindowList,
    };
    use serde_json::Value;
    use std::sync::{Arc, Mutex};

    /// The demo, with an event stream: every `act` sends a value event on
    /// its element, which `wait_event` hands over once.
    struct Evented {
        demo: MemoryDriver,
        sent: Mutex<Vec<Event>>,
    }

    impl Driver for Evented {
        fn hello(&self) -> Result<Hello> {
            self.demo.hello()
        }
        fn windows(&self) -> Result<WindowList> {
            self.demo.windows()
        }
        fn tree(&self, params: &TreeParams) -> Result<Tree> {
            self.demo.tree(params)
        }
        fn act(&self, params: &ActParams) -> Result<()> {
            self.demo.act(params)?;
            let element = params.id;
            self.sent.lock().unwrap().push(Event {
                detail: "insert".into(),
                element,
                ..Event::default()
            });
            Ok(())
        }
        fn input(&self, params: &InputParams) -> Result<()> {
            self.demo.input(params)
        }
        fn menu(&self, params: &MenuParams) -> Result<()> {
            self.demo.menu(params)
        }
        fn capture(&self, params: &CaptureParams) -> Result<Capture> {
            self.demo.capture(params)
        }
        fn eval(&self, params: &EvalParams) -> Result<Value> {
            self.demo.eval(params)
        }
        fn idle(&self, params: &IdleParams) -> Result<()> {
            self.demo.idle(params)
        }
        fn wait_event(&self, params: &WaitEventParams) -> Result<Event> {
            let mut sent = self.sent.lock().unwrap();
            let at = sent
                .iter()
                .position(|e| params.element.is_none_or(|id| e.element == Some(id)))
                .ok_or_else(|| Error::timeout("no event"))?;
            // Answering one drops those before it.
            let event = sent.drain(..=at).next_back().expect("at is in range");
            Ok(event)
        }
    }

    #[test]
    fn an_event_names_its_element_reads_it_and_gives_its_new_value() {
        let app = App::new(Arc::new(Evented {
            demo: MemoryDriver::new(),
            sent: Mutex::new(Vec::new()),
        }));
        let name = app.get_by_key("name");
        let id = name.node().unwrap().id;
        let mut set = ActParams::on(id, Action::SetValue);
        set.text = Some("Ada".into());
        app.act(&set).unwrap();
        let event = app
            .wait_for_event(EventKind::Value, Some(&name), None)
            .unwrap();
        assert_eq!(event.kind, Some(EventKind::Value));
        assert_eq!(event.element, Some(id));
        assert_eq!(event.value.as_deref(), Some("Ada"), "{event:?}");
        assert_eq!(event.node.map(|n| n.id), Some(id));
        assert!(event.window.is_some());

        // Handed over once: the next wait runs out, naming the locator.
        let err = name
            .wait_for_event(EventKind::Value, Some(Duration::from_millis(50)))
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Timeout);
        assert!(
            err.message
                .starts_with("wait_for_event: no value event on get_by_key(\"name\")"),
            "{}",
            err.message
        );
        assert_eq!(err.details.operation.as_deref(), Some("wait_for_event"));
        assert_eq!(
            err.details.element.as_ref().map(|s| s.shown.as_str()),
            Some("get_by_key(\"name\")")
        );
    }

    #[test]
    fn a_driver_without_events_says_so() {
        let app = App::new(Arc::new(MemoryDriver::new()));
        let err = app
            .wait_for_event(EventKind::Focus, None, None)
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Unsupported, "{}", err.message);
    }
}
