//! `MemoryDriver`: a small fixed UI in memory, for unit tests of core logic and
//! fault injection. It never stands in for a real app in an end-to-end test.
//!
//! Window 1, "Counter", holds a count text, an "Add" button (key `add`) that
//! increments it, a "Name" text field (key `name`), a "Subscribe" check box, a
//! "Volume" slider, a "Fruits" list and a menu bar (File > New resets the
//! count; File > Quit closes the window).

use crate::driver::Driver;
use crate::error::{Error, Result};
use crate::protocol::{
    ActParams, Action, Bounds, Capture, CaptureParams, ElementId, ElementKey, EvalParams, Hello,
    IdleParams, InputEvent, InputParams, Key, MenuParams, Method, MouseButton, NamedKey, Node,
    Role, State, Tree, TreeParams, Window, WindowId, WindowKind, WindowList, PROTOCOL_VERSION,
};
use serde_json::{Map, Value};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// The UI a [`MemoryDriver`] shows; tests change it through [`MemoryDriver::edit`].
#[derive(Debug, Clone)]
pub struct Ui {
    /// The windows, in the order `windows` lists them.
    pub windows: Vec<MemoryWindow>,
    /// How many times `tree` was read, for tests that change the UI between reads.
    pub tree_reads: u64,
    /// How many `input` requests came, refused ones too.
    pub input_requests: u64,
    /// Every `act`, `input` and `menu` request, in order, for tests to inspect.
    pub log: Vec<String>,
}

/// One window of the in-memory UI.
#[derive(Debug, Clone)]
pub struct MemoryWindow {
    /// The window as `windows` lists it.
    pub window: Window,
    /// Its elements, in tree order.
    pub nodes: Vec<Node>,
    /// The element with the keyboard focus, if any.
    pub focus: Option<ElementId>,
    /// The counter's value, which "Add" increments and File > New resets.
    pub count: i64,
}

/// Switches for fault injection.
#[derive(Debug, Clone, Default)]
pub struct Faults {
    /// How long `idle` takes before it answers (or times out).
    pub idle_delay: Duration,
    /// Every call fails with this error while set.
    pub fail_all: Option<Error>,
    /// An `input` request of more events is refused as `unsupported` before
    /// any is handled, as the X11 driver refuses more characters on no key
    /// than it has keycodes to lend.
    pub most_input_events: Option<usize>,
}

type Hook = Box<dyn FnMut(&mut Ui) + Send>;

/// The in-memory driver. See the module docs for its UI.
pub struct MemoryDriver {
    ui: Mutex<Ui>,
    faults: Mutex<Faults>,
    before_tree: Mutex<Option<Hook>>,
}

impl Default for MemoryDriver {
    fn default() -> MemoryDriver {
        MemoryDriver::new()
    }
}

/// The id of the demo UI's "Counter" window.
pub const COUNTER_WINDOW: WindowId = 1;

impl MemoryDriver {
    /// The demo UI: one "Counter" window.
    pub fn new() -> MemoryDriver {
        MemoryDriver::with_ui(Ui {
            windows: vec![counter_window()],
            tree_reads: 0,
            input_requests: 0,
            log: Vec::new(),
        })
    }

    /// A driver that shows `ui`.
    pub fn with_ui(ui: Ui) -> MemoryDriver {
        MemoryDriver {
            ui: Mutex::new(ui),
            faults: Mutex::new(Faults::default()),
            before_tree: Mutex::new(None),
        }
    }

    /// Changes the UI, as the app would between two reads.
    pub fn edit<T>(&self, change: impl FnOnce(&mut Ui) -> T) -> T {
        change(&mut self.lock())
    }

    /// Runs `hook` before every `tree` read (after `tree_reads` is counted), so a
    /// test can make an element appear, move or go away between reads.
    pub fn before_tree(&self, hook: impl FnMut(&mut Ui) + Send + 'static) {
        *self.before_tree.lock().unwrap_or_else(|p| p.into_inner()) = Some(Box::new(hook));
    }

    /// Sets the faults injected from now on (replacing the ones set before).
    pub fn set_faults(&self, faults: Faults) {
        *self.faults.lock().unwrap_or_else(|p| p.into_inner()) = faults;
    }

    fn lock(&self) -> MutexGuard<'_, Ui> {
        self.ui.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn check_faults(&self) -> Result<Faults> {
        let faults = self
            .faults
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        match &faults.fail_all {
            Some(err) => Err(err.clone()),
            None => Ok(faults),
        }
    }
}

impl Ui {
    /// The window with `id`, or the focused one (else the first) for `None`; `no_window` when there is none.
    pub fn window_mut(&mut self, id: Option<WindowId>) -> Result<&mut MemoryWindow> {
        let at =
            match id {
                Some(id) => self.windows.iter().position(|w| w.window.id == id),
                None => self.windows.iter().position(|w| w.window.focused).or(
                    if self.windows.is_empty() {
                        None
                    } else {
                        Some(0)
                    },
                ),
            };
        match at {
            Some(at) => Ok(&mut self.windows[at]),
            None if self.windows.is_empty() => Err(Error::no_window("the app has no window")),
            None => Err(Error::no_window(format!(
                "no window {}",
                id.unwrap_or_default()
            ))),
        }
    }
}

impl MemoryWindow {
    /// The element with `id`, if the window holds it.
    pub fn node_mut(&mut self, id: ElementId) -> Option<&mut Node> {
        self.nodes.iter_mut().find(|n| n.id == id)
    }

    /// The node with `key`, for tests.
    pub fn keyed(&mut self, key: &str) -> &mut Node {
        let key = ElementKey::from(key);
        self.nodes
            .iter_mut()
            .find(|n| n.key.as_ref() == Some(&key))
            .expect("the demo UI has this key")
    }

    fn find(&self, params: &ActParams) -> Result<ElementId> {
        if let Some(id) = params.id {
            return self
                .nodes
                .iter()
                .any(|n| n.id == id)
                .then_some(id)
                .ok_or_else(|| {
                    Error::no_element(format!("no element {id} in window {}", self.window.id))
                });
        }
        let key = params
            .key
            .as_ref()
            .ok_or_else(|| Error::invalid_request("act.id or act.key is required"))?;
        let mut matches = self.nodes.iter().filter(|n| n.key.as_ref() == Some(key));
        match (matches.next(), matches.next()) {
            (Some(node), None) => Ok(node.id),
            (None, _) => Err(Error::no_element(format!("no element has key `{key}`"))),
            (Some(_), Some(_)) => Err(Error::no_element(format!(
                "more than one element has key `{key}`"
            ))),
        }
    }

    fn perform(&mut self, id: ElementId, params: &ActParams) -> Result<()> {
        let node = self.node_mut(id).expect("found above");
        if !node.has_action(&params.action) {
            return Err(Error::unsupported(format!(
                "the {} `{}` cannot `{}`; it offers {}",
                node.role,
                node.label.clone().unwrap_or_default(),
                params.action,
                node.actions
                    .iter()
                    .map(|a| a.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        if node.has_state(&State::Disabled) {
            return Err(Error::failed(format!("element {id} is disabled")));
        }
        match params.action {
            Action::Press => self.press(id),
            Action::Focus => {
                self.focus = Some(id);
                Ok(())
            }
            Action::SetValue => set_value(node, params.text.as_deref().unwrap_or_default()),
            Action::InsertText => {
                insert_text(node, params.text.as_deref().unwrap_or_default());
                Ok(())
            }
            Action::SelectText => {
                let len = char_len(node.value.as_deref());
                let (from, to) = (params.from.unwrap_or(0), params.to.unwrap_or(0));
                if to > len {
                    return Err(Error::invalid_request(format!(
                        "act.to {to} is past the text's end ({len})"
                    )));
                }
                node.selection = Some([from, to]);
                Ok(())
            }
            Action::Increment | Action::Decrement => {
                let step = node.step.unwrap_or(1.0);
                let delta = if params.action == Action::Increment {
                    step
                } else {
                    -step
                };
                let now = node.now.unwrap_or_default() + delta;
                node.now =
                    Some(now.clamp(node.min.unwrap_or(f64::MIN), node.max.unwrap_or(f64::MAX)));
                Ok(())
            }
            Action::Expand | Action::Collapse => {
                node.states.retain(|s| s != &State::Expanded);
                if params.action == Action::Expand {
                    node.states.push(State::Expanded);
                }
                Ok(())
            }
            Action::ScrollIntoView => {
                node.states.retain(|s| s != &State::Offscreen);
                Ok(())
            }
            Action::Other(ref name) => Err(Error::unsupported(format!("no action `{name}`"))),
        }
    }

    fn press(&mut self, id: ElementId) -> Result<()> {
        let node = self.node_mut(id).expect("checked by the caller");
        match node.role {
            Role::CheckBox | Role::Switch | Role::ToggleButton => {
                toggle(&mut node.states, State::Checked);
            }
            Role::ListItem => {
                let parent = node.parent;
                for item in self.nodes.iter_mut().filter(|n| n.parent == parent) {
                    item.states.retain(|s| s != &State::Selected);
                    if item.id == id {
                        item.states.push(State::Selected);
                    }
                }
            }
            _ if node.key == Some(ElementKey::from("add")) => {
                self.count += 1;
                self.show_count();
            }
            _ => {}
        }
        Ok(())
    }

    fn show_count(&mut self) {
        let text = format!("Count: {}", self.count);
        self.keyed("count").label = Some(text);
    }

    fn hit(&self, x: f64, y: f64) -> Option<ElementId> {
        self.nodes
            .iter()
            .rev()
            .find(|n| {
                n.bounds.is_some_and(|b| {
                    x >= b.x && x < b.x + b.width && y >= b.y && y < b.y + b.height
                })
            })
            .map(|n| n.id)
    }

    fn handle(&mut self, event: &InputEvent) -> Result<()> {
        match event {
            InputEvent::Click(p) | InputEvent::PointerUp(p) => {
                let Some(id) = self.hit(p.x, p.y) else {
                    return Ok(());
                };
                let node = self.node_mut(id).expect("hit gives a node");
                if node.has_state(&State::Focusable) {
                    self.focus = Some(id);
                }
                // Only the primary button presses (a right click opens a menu).
                let primary = p.button.is_none_or(|b| b == MouseButton::Left);
                let node = self.node_mut(id).expect("hit gives a node");
                if primary && node.has_action(&Action::Press) && !node.has_state(&State::Disabled) {
                    self.press(id)?;
                }
                Ok(())
            }
            InputEvent::Text { text } => {
                if let Some(node) = self.focused_field() {
                    insert_text(node, text);
                }
                Ok(())
            }
            InputEvent::Key { key } | InputEvent::KeyDown { key } => {
                if key.mods.is_empty() {
                    match key.key {
                        Key::Named(NamedKey::Backspace) => {
                            if let Some(node) = self.focused_field() {
                                backspace(node);
                            }
                        }
                        Key::Named(NamedKey::Enter) | Key::Named(NamedKey::Space) => {
                            if let Some(id) = self.focus {
                                let pressable = self
                                    .node_mut(id)
                                    .is_some_and(|n| n.has_action(&Action::Press));
                                if pressable && matches!(event, InputEvent::Key { .. }) {
                                    self.press(id)?;
                                }
                            }
                        }
                        _ => {}
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn focused_field(&mut self) -> Option<&mut Node> {
        let id = self.focus?;
        self.node_mut(id).filter(|n| n.role == Role::TextField)
    }
}

fn toggle(states: &mut Vec<State>, state: State) {
    if states.contains(&state) {
        states.retain(|s| s != &state);
    } else {
        states.push(state);
    }
}

fn char_len(text: Option<&str>) -> u32 {
    text.map_or(0, |t| t.chars().count() as u32)
}

fn set_value(node: &mut Node, text: &str) -> Result<()> {
    if node.now.is_some() {
        let value: f64 = text.trim().parse().map_err(|_| {
            Error::invalid_request(format!(
                "act.text `{text}` is not a number for the {}",
                node.role
            ))
        })?;
        node.now = Some(value.clamp(node.min.unwrap_or(f64::MIN), node.max.unwrap_or(f64::MAX)));
        return Ok(());
    }
    node.value = Some(text.to_string());
    let end = char_len(node.value.as_deref());
    node.selection = Some([end, end]);
    Ok(())
}

fn insert_text(node: &mut Node, text: &str) {
    let value: Vec<char> = node.value.clone().unwrap_or_default().chars().collect();
    let [from, to] = node.selection.unwrap_or([value.len() as u32; 2]);
    let (from, to) = (
        (from as usize).min(value.len()),
        (to as usize).min(value.len()),
    );
    let mut next: String = value[..from].iter().collect();
    next.push_str(text);
    next.extend(&value[to..]);
    let caret = (from + text.chars().count()) as u32;
    node.value = Some(next);
    node.selection = Some([caret, caret]);
}

fn backspace(node: &mut Node) {
    let mut value: Vec<char> = node.value.clone().unwrap_or_default().chars().collect();
    let [from, to] = node.selection.unwrap_or([value.len() as u32; 2]);
    let (from, to) = (from as usize, to as usize);
    let from = if from == to {
        from.saturating_sub(1)
    } else {
        from
    };
    value.drain(from.min(value.len())..to.min(value.len()));
    node.value = Some(value.into_iter().collect());
    node.selection = Some([from as u32, from as u32]);
}

impl Driver for MemoryDriver {
    fn hello(&self) -> Result<Hello> {
        self.check_faults()?;
        Ok(Hello {
            protocol: PROTOCOL_VERSION,
            server: format!("uidrive {} (memory demo)", env!("CARGO_PKG_VERSION")),
            // The demo has no hit test, and its tables are always read whole.
            methods: Method::ALL
                .iter()
                .filter(|m| {
                    !matches!(
                        m,
                        Method::ElementAt
                            | Method::CellAt
                            | Method::ManageWindow
                            | Method::Apps
                            | Method::CaptureScreen
                            | Method::WaitEvent
                    )
                })
                .map(|m| m.as_str().to_string())
                .collect(),
            actions: Action::ALL.iter().map(|a| a.as_str().to_string()).collect(),
            extra: crate::protocol::idle_takes_quiet(),
        })
    }

    fn windows(&self) -> Result<WindowList> {
        self.check_faults()?;
        let windows = self
            .lock()
            .windows
            .iter()
            .map(|w| w.window.clone())
            .collect();
        Ok(WindowList {
            windows,
            extra: Map::new(),
        })
    }

    fn tree(&self, params: &TreeParams) -> Result<Tree> {
        self.check_faults()?;
        let mut ui = self.lock();
        ui.tree_reads += 1;
        if let Some(hook) = self
            .before_tree
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
        {
            hook(&mut ui);
        }
        let window = ui.window_mut(params.window)?;
        Ok(Tree {
            window: window.window.id,
            focus: window.focus,
            nodes: window.nodes.clone(),
            announcements: None,
            extra: Map::new(),
        })
    }

    fn act(&self, params: &ActParams) -> Result<()> {
        self.check_faults()?;
        params.validate()?;
        let mut ui = self.lock();
        ui.log.push(format!("act {}", params.action));
        let window = ui.window_mut(params.window)?;
        let id = window.find(params)?;
        window.perform(id, params)
    }

    fn input(&self, params: &InputParams) -> Result<()> {
        let faults = self.check_faults()?;
        params.validate()?;
        let mut ui = self.lock();
        ui.input_requests += 1;
        if let Some(most) = faults
            .most_input_events
            .filter(|m| params.events.len() > *m)
        {
            return Err(Error::unsupported(format!(
                "this input has {} events, and the keyboard can take {most} at once",
                params.events.len()
            )));
        }
        ui.log.extend(
            params
                .events
                .iter()
                .map(|e| format!("input {}", e.type_name())),
        );
        let window = ui.window_mut(params.window)?;
        params
            .events
            .iter()
            .try_for_each(|event| window.handle(event))
    }

    fn menu(&self, params: &MenuParams) -> Result<()> {
        self.check_faults()?;
        params.validate()?;
        let mut ui = self.lock();
        ui.log.push(format!("menu {}", params.path.join(" > ")));
        let window_id = ui.window_mut(params.window)?.window.id;
        let path: Vec<&str> = params.path.iter().map(String::as_str).collect();
        match path.as_slice() {
            ["File", "New"] => {
                let window = ui.window_mut(Some(window_id))?;
                window.count = 0;
                window.show_count();
                Ok(())
            }
            ["File", "Quit"] => {
                ui.windows.retain(|w| w.window.id != window_id);
                Ok(())
            }
            ["File", other, ..] => {
                Err(Error::no_element(format!("no menu item `{other}` in File")))
            }
            [first, ..] => Err(Error::no_element(format!(
                "no menu `{first}` in the menu bar"
            ))),
            [] => unreachable!("validated above"),
        }
    }

    fn capture(&self, params: &CaptureParams) -> Result<Capture> {
        self.check_faults()?;
        let mut ui = self.lock();
        let window = ui.window_mut(params.window)?;
        let (width, height) = (
            window.window.content_bounds.width as u32,
            window.window.content_bounds.height as u32,
        );
        Ok(Capture {
            png: crate::png::solid(width, height, [240, 240, 240]),
            width,
            height,
            clipped: false,
            extra: Map::new(),
        })
    }

    fn eval(&self, params: &EvalParams) -> Result<Value> {
        self.check_faults()?;
        self.lock().window_mut(params.window)?;
        Err(Error::unsupported(
            "the window shows native UI, not a web page: there is no script to run",
        )
        .with_suggestion("read the window with `tree` and act on its elements instead"))
    }

    fn idle(&self, params: &IdleParams) -> Result<()> {
        let faults = self.check_faults()?;
        self.lock().window_mut(params.window)?;
        let limit = params.timeout.map(Duration::from_millis);
        match limit {
            Some(limit) if limit < faults.idle_delay => {
                std::thread::sleep(limit);
                Err(Error::timeout(format!(
                    "the window did not settle within {} ms",
                    limit.as_millis()
                )))
            }
            _ => {
                std::thread::sleep(faults.idle_delay);
                Ok(())
            }
        }
    }
}

/// Builds nodes with readable code in tests and in the demo UI.
pub fn node(
    id: u64,
    parent: Option<u64>,
    role: Role,
    label: &str,
    bounds: (f64, f64, f64, f64),
) -> Node {
    Node {
        id: ElementId(id),
        parent: parent.map(ElementId),
        role,
        label: (!label.is_empty()).then(|| label.to_string()),
        bounds: Some(Bounds::new(bounds.0, bounds.1, bounds.2, bounds.3)),
        ..Node::default()
    }
}

fn keyed(mut node: Node, key: &str, states: &[State], actions: &[Action]) -> Node {
    node.key = Some(ElementKey::from(key));
    node.states = states.to_vec();
    node.actions = actions.to_vec();
    node
}

/// The demo window: a counter with a button, a text field, a check box, a slider, a list and a menu.
pub fn counter_window() -> MemoryWindow {
    use Action::*;
    use State::*;
    let id = |n: u64| 4_000_000_000_000_000_000 + n;
    let mut name = keyed(
        node(
            id(3),
            None,
            Role::TextField,
            "Name",
            (20.0, 90.0, 360.0, 32.0),
        ),
        "name",
        &[Focusable],
        &[Focus, SetValue, InsertText, SelectText],
    );
    name.value = Some("Ada".into());
    name.selection = Some([3, 3]);
    let mut volume = keyed(
        node(
            id(5),
            None,
            Role::Slider,
            "Volume",
            (20.0, 176.0, 360.0, 24.0),
        ),
        "volume",
        &[Focusable, Horizontal],
        &[Focus, Increment, Decrement, SetValue],
    );
    (volume.min, volume.max, volume.now, volume.step) =
        (Some(0.0), Some(100.0), Some(50.0), Some(10.0));
    let item = |n: u64, label: &str, y: f64| {
        keyed(
            node(
                id(n),
                Some(id(6)),
                Role::ListItem,
                label,
                (24.0, y, 352.0, 20.0),
            ),
            &label.to_lowercase(),
            &[Selectable],
            &[Press],
        )
    };
    let nodes = vec![
        keyed(
            node(
                id(1),
                None,
                Role::Text,
                "Count: 0",
                (20.0, 20.0, 360.0, 18.0),
            ),
            "count",
            &[],
            &[],
        ),
        keyed(
            node(id(2), None, Role::Button, "Add", (20.0, 48.0, 360.0, 32.0)),
            "add",
            &[Focusable],
            &[Press, Focus],
        ),
        name,
        keyed(
            node(
                id(4),
                None,
                Role::CheckBox,
                "Subscribe",
                (20.0, 132.0, 360.0, 24.0),
            ),
            "subscribe",
            &[Focusable],
            &[Press, Focus],
        ),
        volume,
        keyed(
            node(
                id(6),
                None,
                Role::List,
                "Fruits",
                (20.0, 208.0, 360.0, 64.0),
            ),
            "fruits",
            &[],
            &[],
        ),
        item(7, "Apple", 210.0),
        item(8, "Banana", 230.0),
        item(9, "Cherry", 250.0),
        keyed(
            node(id(10), None, Role::MenuBar, "", (0.0, 0.0, 400.0, 0.0)),
            "menubar",
            &[],
            &[],
        ),
        keyed(
            node(
                id(11),
                Some(id(10)),
                Role::MenuItem,
                "File",
                (0.0, 0.0, 40.0, 0.0),
            ),
            "file",
            &[Expandable],
            &[Expand, Collapse],
        ),
    ];
    MemoryWindow {
        window: Window {
            id: COUNTER_WINDOW,
            title: "Counter".into(),
            kind: WindowKind::Content,
            url: None,
            bounds: Bounds::new(440.0, 362.0, 400.0, 300.0),
            content_bounds: Bounds::new(440.0, 387.0, 400.0, 275.0),
            focused: true,
            visible: true,
            extra: Map::new(),
        },
        nodes,
        focus: None,
        count: 0,
    }
}
