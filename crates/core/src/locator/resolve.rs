//! Reading the window a locator names, picking its elements out of that read,
//! and waiting between reads.

use super::matching::{is_shown, Selector, Step, TextMatch, TreeIndex};
use super::{Locator, WindowChoice};
use crate::driver::Driver;
use crate::error::{Error, ErrorCode, Result, Term};
use crate::protocol::{Bounds, ElementId, IdleParams, Node, Role, Tree, TreeParams, WindowId};
use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

/// One read of the locator's window and what the locator picks out of it.
pub(crate) struct Read {
    pub tree: Tree,
    /// Positions in `tree.nodes` of the matches, in tree order.
    pub matches: Vec<usize>,
    /// The elements' bounds as the read of this window before this one saw
    /// them, when that read was recent (see [`seen_before`]).
    pub before: Option<Arc<HashMap<ElementId, Bounds>>>,
}

impl Read {
    pub fn node(&self, at: usize) -> &Node {
        &self.tree.nodes[at]
    }

    pub fn window(&self) -> WindowId {
        self.tree.window
    }
}

impl Locator {
    /// Reads the window once and picks the matches. Errors from the driver
    /// (no such window yet, a lost connection) come back as they are.
    pub(crate) fn read(&self) -> Result<Read> {
        self.read_as(Whole::Window)
    }

    /// Reads the window for the matches alone: the elements the locator's
    /// steps could pick are read whole, the others may come with role, label,
    /// states and parent only (see [`Driver::tree_for`]). For reads whose
    /// callers look at nothing but the matches (and the window's focus).
    pub(crate) fn read_matches(&self) -> Result<Read> {
        self.read_as(Whole::Matches)
    }

    /// Reads `window` for `target`, an element this locator acted on: every
    /// field of it and of the elements the locator could pick, the others
    /// as [`Locator::read_matches`] leaves them; the whole window where the
    /// locator's steps need it.
    pub(crate) fn read_for(&self, window: WindowId, target: ElementId) -> Result<Tree> {
        let params = TreeParams {
            window: Some(window),
        };
        match picked_by_role_and_name(&self.steps) {
            Some(finds) => self.driver.tree_for(&params, &|lean| {
                let mut wanted = could_match(lean, &finds);
                wanted.push(target);
                wanted
            }),
            None => self.driver.tree(&params),
        }
    }

    fn read_as(&self, whole: Whole) -> Result<Read> {
        self.check_valid()?;
        let window = self.window_param()?;
        if let Some(query) = self.visual_query() {
            // A visual target reads the capture, not the tree (which such an app may not have).
            let tree = crate::visual::visual_tree(&*self.driver, window, query)?;
            let matches = TreeIndex::new(&tree).select(&self.steps, self.include_hidden);
            return Ok(Read {
                tree,
                matches,
                before: None,
            });
        }
        let params = TreeParams { window };
        let mut tree = match (whole, picked_by_role_and_name(&self.steps)) {
            (Whole::Matches, Some(finds)) => self
                .driver
                .tree_for(&params, &|lean| could_match(lean, &finds)),
            _ => self.driver.tree(&params),
        }?;
        super::cells::fill_in(&*self.driver, &self.steps, self.include_hidden, &mut tree)?;
        let matches = TreeIndex::new(&tree).select(&self.steps, self.include_hidden);
        let before = seen_before(&self.driver, &tree);
        Ok(Read {
            tree,
            matches,
            before,
        })
    }

    /// The hidden elements the locator would match if it included them: said
    /// in "no element" messages, since a hidden match is the usual surprise.
    pub(crate) fn hidden_matches(&self, tree: &Tree) -> Vec<Node> {
        if self.include_hidden {
            return Vec::new();
        }
        TreeIndex::new(tree)
            .select(&self.steps, true)
            .into_iter()
            .map(|at| tree.nodes[at].clone())
            .filter(|node| !is_shown(node))
            .collect()
    }

    /// The window the locator names, as `tree` takes it.
    pub(crate) fn window_param(&self) -> Result<Option<WindowId>> {
        let window = match &self.window {
            WindowChoice::Default => None,
            WindowChoice::Id(id) => Some(*id),
            WindowChoice::Titled(title) => {
                let list = self.driver.windows()?;
                let found: Vec<_> = list
                    .windows
                    .iter()
                    .filter(|w| title.matches(&w.title))
                    .collect();
                match found.as_slice() {
                    [one] => Some(one.id),
                    [] => {
                        return Err(Error::no_window(format!(
                            "no window is titled {title}; the windows are {}",
                            list_or_none(list.windows.iter().map(|w| format!("{:?}", w.title)))
                        )))
                    }
                    many => {
                        return Err(Error::new(
                            ErrorCode::Ambiguous,
                            format!(
                                "{} windows are titled {title}: {}",
                                many.len(),
                                many.iter()
                                    .map(|w| format!("{} {:?}", w.id, w.title))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        )
                        .with_suggestion(
                            "use App::window(id) with one of these ids, or an exact title",
                        )
                        .mentioning(Term::AppWindow)
                        .detail(|d| d.candidates = Some(many.len())))
                    }
                }
            }
        };
        Ok(window)
    }

    pub(crate) fn poller(&self, timeout: Duration) -> Poller {
        Poller::new(self.driver.clone(), timeout)
    }
}

/// How much of the window a read must give whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Whole {
    Window,
    Matches,
}

/// The roles and names of the steps that pick elements, when the steps pick
/// by role and name alone (and by place among those: `nth`, `first`,
/// `last`); `None` when a step needs more of every element (text, keys,
/// filters, a cell's place), which only a whole read can judge.
fn picked_by_role_and_name(steps: &[Step]) -> Option<Vec<(Role, Option<TextMatch>)>> {
    if !matches!(steps.first(), Some(Step::Find(_))) {
        return None;
    }
    let mut finds = Vec::new();
    for step in steps {
        match step {
            Step::Find(Selector::Role(role, query)) => {
                finds.push((role.clone(), query.name.clone()))
            }
            Step::Nth(_) | Step::First | Step::Last => {}
            Step::Find(_) | Step::Filter(_) | Step::Cell { .. } => return None,
        }
    }
    Some(finds)
}

/// The elements of a lean read (role, label, states and parent) that one of
/// `finds` could pick once read whole: those of its role whose label matches
/// or cannot be judged yet (none, or one taken from content, a placeholder or
/// a description, which a whole read may change), and for those of a role
/// named by its content, the elements inside them, whose text names them.
fn could_match(lean: &Tree, finds: &[(Role, Option<TextMatch>)]) -> Vec<ElementId> {
    let at: HashMap<ElementId, usize> = lean
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id, i))
        .collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); lean.nodes.len()];
    for (i, node) in lean.nodes.iter().enumerate() {
        if let Some(parent) = node.parent.and_then(|p| at.get(&p)) {
            children[*parent].push(i);
        }
    }
    let mut wanted = vec![false; lean.nodes.len()];
    for (i, node) in lean.nodes.iter().enumerate() {
        let mut with_inside = false;
        let picked = finds.iter().any(|(role, name)| {
            if node.role != *role {
                return false;
            }
            match (name, node.label.as_deref()) {
                (None, _) => true,
                (Some(name), Some(label)) if node.name_source.is_none() => name.matches(label),
                (Some(_), _) => {
                    with_inside = crate::naming::named_by_content(&node.role);
                    true
                }
            }
        });
        if !picked {
            continue;
        }
        wanted[i] = true;
        if with_inside {
            let mut stack = children[i].clone();
            // A cycle sent by a broken server ends: each element is taken once.
            while let Some(below) = stack.pop() {
                if !wanted[below] {
                    wanted[below] = true;
                    stack.extend(children[below].iter().copied());
                }
            }
        }
    }
    lean.nodes
        .iter()
        .zip(wanted)
        .filter_map(|(node, wanted)| wanted.then_some(node.id))
        .collect()
}

/// How recent the read before must be for its bounds to count.
const RECENT: Duration = Duration::from_secs(2);

type SeenKey = (usize, WindowId);
/// By driver (its address, held by a weak reference so that no other driver
/// can be made at that address while its reads are kept) and window.
type Seen = HashMap<SeenKey, (Weak<dyn Driver>, HashMap<ElementId, (Instant, Bounds)>)>;

/// The bounds each element of each window had when last read, by the driver that read it.
static SEEN: std::sync::LazyLock<std::sync::Mutex<Seen>> =
    std::sync::LazyLock::new(Default::default);

/// Remembers the bounds `tree` gives as the last seen of its window's
/// elements through `driver`, and gives those seen before, where recent:
/// the stability rung compares an element's bounds across two reads in a
/// row, and the read before may be an earlier action's or check's, which
/// spares a second read of the window when nothing moved. A read for a
/// locator's matches gives bounds for those alone; an element keeps what
/// the last read that gave its bounds saw.
fn seen_before(driver: &Arc<dyn Driver>, tree: &Tree) -> Option<Arc<HashMap<ElementId, Bounds>>> {
    let key = (Arc::as_ptr(driver) as *const () as usize, tree.window);
    let now = Instant::now();
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    seen.retain(|_, (reader, elements)| {
        elements.retain(|_, (at, _)| now.duration_since(*at) < RECENT);
        reader.strong_count() > 0 && !elements.is_empty()
    });
    let (_, elements) = seen
        .entry(key)
        .or_insert_with(|| (Arc::downgrade(driver), HashMap::new()));
    let before: HashMap<ElementId, Bounds> = elements
        .iter()
        .map(|(id, (_, bounds))| (*id, *bounds))
        .collect();
    for node in &tree.nodes {
        if let Some(bounds) = node.bounds {
            elements.insert(node.id, (now, bounds));
        }
    }
    (!before.is_empty()).then(|| Arc::new(before))
}

/// Driver errors worth another read: the window or element may come yet.
pub(crate) fn worth_retrying(err: &Error) -> bool {
    matches!(err.code, ErrorCode::NoWindow | ErrorCode::NoElement)
}

/// How long a retry waits at least, idle's own wait counting toward it. `idle`
/// only waits for frames the app has already asked for: a change driven by a
/// timer or by another process shows none, so `idle` answers at once, and
/// without this the loop would read trees as fast as the driver answers and
/// take the CPU the app needs to make the change. It grows to a small cap.
const BACKOFF: [Duration; 5] = [
    Duration::from_millis(10),
    Duration::from_millis(20),
    Duration::from_millis(50),
    Duration::from_millis(100),
    Duration::from_millis(200),
];

/// The longest single `idle` call: a window that never settles (a spinner)
/// still gets read again at this pace.
const IDLE_SLICE: Duration = Duration::from_millis(500);

/// Paces the reads of one wait, against one deadline.
pub(crate) struct Poller {
    driver: Arc<dyn Driver>,
    timeout: Duration,
    deadline: Instant,
    window: Option<WindowId>,
    retries: usize,
}

impl Poller {
    pub fn new(driver: Arc<dyn Driver>, timeout: Duration) -> Poller {
        Poller {
            driver,
            timeout,
            deadline: Instant::now() + timeout,
            window: None,
            retries: 0,
        }
    }

    /// The wait's whole timeout, for messages.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    pub fn expired(&self) -> bool {
        Instant::now() >= self.deadline
    }

    pub fn remaining(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    /// Which window to wait on (the one read last).
    pub fn watch(&mut self, window: WindowId) {
        self.window = Some(window);
    }

    /// Waits for the window to settle, and at least the back-off interval,
    /// never past the deadline. Only a broken connection ends the wait early.
    pub fn wait(&mut self) -> Result<()> {
        let started = Instant::now();
        self.settle()?;
        let floor = BACKOFF[self.retries.min(BACKOFF.len() - 1)];
        self.retries += 1;
        let rest = floor.saturating_sub(started.elapsed());
        let rest = rest.min(self.deadline.saturating_duration_since(Instant::now()));
        if !rest.is_zero() {
            std::thread::sleep(rest);
        }
        Ok(())
    }

    /// Waits for the window to settle only: used for the second read of the
    /// stability check, which wants the next frame, not a pause. It asks for
    /// no quiet period (`quiet: 0`): the wait reads again anyway, so an app's
    /// late work is seen on a later read rather than waited out here.
    pub fn settle(&mut self) -> Result<()> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        let slice = left.min(IDLE_SLICE);
        if slice.is_zero() {
            return Ok(());
        }
        let params = IdleParams {
            window: self.window,
            timeout: Some(slice.as_millis().max(1) as u64),
            quiet: Some(0),
        };
        match self.driver.idle(&params) {
            Ok(()) => Ok(()),
            Err(e) if idle_failure_is_fatal(&e) => Err(e),
            Err(_) => Ok(()),
        }
    }
}

/// A window that never settles, has gone, or cannot tell is no reason to
/// stop waiting; a connection that broke is.
fn idle_failure_is_fatal(err: &Error) -> bool {
    matches!(
        err.code,
        ErrorCode::Disconnected | ErrorCode::ProtocolError | ErrorCode::AppExited
    )
}

/// A node as a person would pick it out: role, label, key, value, states, bounds.
pub fn describe_node(node: &Node) -> String {
    let mut text = node.role.to_string();
    if let Some(label) = node.label.as_deref().filter(|l| !l.is_empty()) {
        text.push_str(&format!(" {label:?}"));
    }
    if let Some(key) = &node.key {
        text.push_str(&format!(" key={key}"));
    }
    if let Some(value) = &node.value {
        text.push_str(&format!(" value={value:?}"));
    }
    if let Some(now) = node.now {
        text.push_str(&format!(" now={now}"));
    }
    if !node.states.is_empty() {
        let states: Vec<_> = node.states.iter().map(|s| s.as_str()).collect();
        text.push_str(&format!(" [{}]", states.join(", ")));
    }
    match node.bounds {
        Some(b) => text.push_str(&format!(" at ({}, {}) {}x{}", b.x, b.y, b.width, b.height)),
        None => text.push_str(" without bounds"),
    }
    text
}

/// The `ambiguous` error: every candidate (up to ten), so the caller can narrow the locator.
pub(crate) fn ambiguous(locator: &Locator, read: &Read, what: &str) -> Error {
    const SHOWN: usize = 10;
    let mut listed: Vec<String> = read
        .matches
        .iter()
        .take(SHOWN)
        .enumerate()
        .map(|(i, &at)| format!("[{i}] {}", describe_node(read.node(at))))
        .collect();
    if read.matches.len() > SHOWN {
        listed.push(format!("and {} more", read.matches.len() - SHOWN));
    }
    Error::new(
        ErrorCode::Ambiguous,
        format!(
            "{what}: {locator} matches {} elements where one is needed: {}",
            read.matches.len(),
            listed.join("; ")
        ),
    )
    .with_suggestion(
        "narrow the locator: a fuller or exact name, a key, filter(...), or nth(i) with an index above",
    )
    .mentioning(Term::FilterOrNth)
    .detail(|d| {
        d.candidates = Some(read.matches.len());
        d.element = Some(locator.subject());
    })
}

/// The `no_element` error after waiting, naming hidden matches if there were any.
pub(crate) fn not_found(locator: &Locator, what: &str, waited: Duration, hidden: &[Node]) -> Error {
    let mut message = format!(
        "{what}: no element matches {locator} in {} after {}",
        locator.window,
        human(waited)
    );
    let mut suggestion =
        "check the locator against the window's tree (`uidrive snapshot`), or wait longer";
    if let Some(first) = hidden.first() {
        message.push_str(&format!(
            "; {} hidden element{} match{}, as {}",
            hidden.len(),
            if hidden.len() == 1 { "" } else { "s" },
            if hidden.len() == 1 { "es" } else { "" },
            describe_node(first)
        ));
        suggestion = "the match is hidden (no area or offscreen): show it first, or use include_hidden(true)";
    }
    let visual = locator.visual_query().is_some();
    if visual {
        message.push_str(" on the window's capture");
        suggestion = "see what OCR reads on the window (`uidrive snapshot --ocr`): match a part (ocr~=) or a regex (ocr=/.../i) where it reads a letter otherwise; for image=, lower the threshold or capture the template again (`uidrive screenshot TARGET FILE`)";
    }
    let mut err = Error::no_element(message)
        .with_suggestion(suggestion)
        .detail(|d| {
            d.element = Some(locator.subject());
            d.candidates = Some(0);
            d.observed = hidden.first().map(describe_node);
        });
    if !visual {
        err = err.mentioning(Term::Snapshot);
    }
    if !hidden.is_empty() || locator.include_hidden {
        err = err.mentioning(Term::IncludeHidden);
    }
    err
}

/// A duration as people write it in messages: `250 ms`, `10 s`, `2.5 s`.
pub(crate) fn human(duration: Duration) -> String {
    let ms = duration.as_millis();
    if ms < 1000 {
        format!("{ms} ms")
    } else if duration.subsec_millis() == 0 {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", duration.as_secs_f64())
    }
}

pub(super) fn list_or_none(items: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = items.collect();
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}
