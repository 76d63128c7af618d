//! Reading a whole window: walk `GetChildren` from the window with every
//! element's calls in flight at once, then map the result to protocol nodes.

use crate::bus::{Link, ObjRef};
use crate::discovery::{AppRef, Toolkit};
use crate::early_fill::{Early, LastFill};
use crate::fetch::{
    cache_items, children_of_cached, fetch_basics, fetch_extras, is_box, ActionsRead, CacheItems,
    FetchPlan, Ifaces, RawNode, Turn, Turns, NOWHERE,
};
use crate::ids::element_id;
use crate::profile::Profile;
use crate::roles;
use crate::scale::Frame;
use crate::states::{protocol_states, st};
use crate::stats;
use futures_util::future::join_all;
use futures_util::stream::{FuturesUnordered, StreamExt};
use std::collections::{HashMap, HashSet};
use uidrive_core::protocol::{
    Action, Bounds, ElementId, ElementKey, NameSource, Node, State, Tree,
};
use uidrive_core::{ErrorCode, Result};
use zbus::zvariant::OwnedObjectPath;

/// A window's elements past this many are left out, so a runaway tree can't hang a read.
const MAX_NODES: usize = 20_000;

/// One element read from the app, with where it sits in the tree.
#[derive(Debug, Clone)]
pub struct Element {
    pub raw: RawNode,
    pub parent: Option<usize>,
    /// Whether a scrolled container holds it (so `scrollIntoView` means something).
    pub in_scroller: bool,
}

/// The window's elements, a parent before its children, in the app's order.
pub async fn read_elements(link: &Link, app: &AppRef, window: &ObjRef) -> Result<Vec<Element>> {
    let cache = cache_items(link, &app.bus).await;
    let (children, _) = children_of_cached(link, app, &cache, HashMap::new()).await;
    read_elements_with(link, app, window, &cache, &children).await
}

/// As [`read_elements`], with the app's cache already read (alongside finding the window).
/// A call the app left unanswered fails the read ([`bus::strict`]).
pub async fn read_elements_with(
    link: &Link,
    app: &AppRef,
    window: &ObjRef,
    cache: &CacheItems,
    children: &HashMap<String, Vec<ObjRef>>,
) -> Result<Vec<Element>> {
    crate::bus::strict(walk_and_fetch(link, app, window, cache, children)).await
}

async fn walk_and_fetch(
    link: &Link,
    app: &AppRef,
    window: &ObjRef,
    cache: &CacheItems,
    children: &HashMap<String, Vec<ObjRef>>,
) -> Result<Vec<Element>> {
    let started = std::time::Instant::now();
    let plan = plan_for(app);
    let read = if link.fields.is_some() {
        // The fields have their own connection: read them while walking.
        walk(link, app, window, cache, children, Some(plan)).await?
    } else {
        // One connection: walk first, so that the few calls the walk waits
        // on do not queue behind hundreds of field calls in the app.
        let mut read = walk(link, app, window, cache, children, None).await?;
        stats::note(|| format!("structure read at {:?}", started.elapsed()));
        let turns = Turns::for_plan(plan);
        join_all(
            read.iter_mut()
                .enumerate()
                .map(|(me, (parent, _, node, cached))| {
                    fetch_extras(link, node, *cached, plan, turns.place(me, *parent))
                }),
        )
        .await;
        read
    };
    stats::note(|| format!("structure and fields read in {:?}", started.elapsed()));
    stats::print_calls();
    Ok(in_tree_order(read).into_iter().map(|(e, _)| e).collect())
}

/// A window's elements with their role, name, states and place only (see
/// [`read_lean`]), each with whether the app's cache gave it.
pub struct Lean {
    pub elements: Vec<Element>,
    cached: Vec<bool>,
}

/// The window's elements as walking it gives them: role, name, states,
/// interfaces and children, from the app's cache where it has them; the
/// other fields are left for [`fill`].
pub async fn read_lean(
    link: &Link,
    app: &AppRef,
    window: &ObjRef,
    cache: &CacheItems,
    children: &HashMap<String, Vec<ObjRef>>,
) -> Result<Lean> {
    let started = std::time::Instant::now();
    let read = crate::bus::strict(walk(link, app, window, cache, children, None)).await?;
    stats::note(|| format!("lean: structure read at {:?}", started.elapsed()));
    let (elements, cached) = in_tree_order(read).into_iter().unzip();
    Ok(Lean { elements, cached })
}

/// How a lean read fills in the elements it wants.
fn fill_plan(app: &AppRef) -> FetchPlan {
    let mut plan = plan_for(app);
    if plan.actions == ActionsRead::WithBox {
        // A few elements: asking the actions of one whose box turns out
        // empty costs less than a round trip more for all (a frame while
        // GTK 4 animates).
        plan.actions = ActionsRead::BesideBox;
    }
    plan
}

/// Reads every other field of the elements `wanted` names, all at once,
/// taking those `early` asked with the same questions ([`crate::early_fill`]).
/// A call the app left unanswered fails the read ([`crate::bus::strict`]).
pub async fn fill(
    link: &Link,
    app: &AppRef,
    lean: &mut Lean,
    wanted: &HashSet<ElementId>,
    (early, last): (&mut Early, &LastFill),
) -> Result<()> {
    let started = std::time::Instant::now();
    let plan = fill_plan(app);
    let named: Vec<(&mut RawNode, bool)> = lean
        .elements
        .iter_mut()
        .zip(&lean.cached)
        .filter(|(e, _)| wanted.contains(&id_of(&e.raw)))
        .map(|(e, cached)| (&mut e.raw, *cached))
        .collect();
    let named_len = named.len();
    last.remember(
        named
            .iter()
            .map(|(raw, cached)| ((**raw).clone(), *cached))
            .collect(),
    );
    let mut asked = Vec::new();
    for (raw, cached) in named {
        match early.take(raw, cached, plan) {
            Some(filled) => *raw = filled,
            None => asked.push((raw, cached)),
        }
    }
    last.served_early(named_len - asked.len());
    crate::bus::strict(async {
        join_all(
            asked
                .into_iter()
                .map(|(raw, cached)| fetch_extras(link, raw, cached, plan, Turn::default())),
        )
        .await;
        Ok(())
    })
    .await?;
    stats::note(|| {
        format!(
            "lean: fields of {} elements read in {:?}",
            wanted.len(),
            started.elapsed()
        )
    });
    stats::print_calls();
    Ok(())
}

/// A lean read of a window (see [`read_lean`]), with what makes it a tree.
pub struct LeanWindow {
    pub id: u64,
    pub top: ObjRef,
    pub frame: Frame,
    pub lean: Lean,
    /// The fields asked beside the structure, for the fill.
    early: Early,
}

impl crate::driver::Inner {
    /// The window's elements with role, name, states and place only, as a
    /// tree, for an app read lean ([`Profile::lean`]); `None` for the others.
    pub async fn lean_tree(&self, wanted: Option<u64>) -> Result<Option<(Tree, LeanWindow)>> {
        if !self.profile.lean || crate::desktop::shows_popover(self) {
            return Ok(None);
        }
        let started = std::time::Instant::now();
        let (link, app) = (&self.link, &self.app);
        let structure = async {
            let mut found =
                crate::bus::strict(crate::windows::resolve_for_read(self, wanted)).await?;
            let cache = std::mem::take(&mut found.cache);
            stats::note(|| {
                format!(
                    "lean: window found and {} cache items read in {:?}",
                    cache.len(),
                    started.elapsed()
                )
            });
            // A lean read does not ask the window's own box: asked beside it.
            let (lean, extents) = tokio::join!(
                read_lean(link, app, &found.top.obj, &cache, &found.children),
                found.window_box(link, app, None),
            );
            Ok::<_, uidrive_core::Error>((found, cache, extents, lean?))
        };
        // Answers from an app that left any unanswered are not taken: the fill asks again.
        let early =
            crate::bus::strict(async { Ok(self.last_fill.ask(link, fill_plan(app)).await) });
        let (structure, early) = tokio::join!(structure, early);
        let (found, cache, extents, lean) = structure?;
        let mut top = found.top.clone();
        top.extents = extents;
        let window = LeanWindow {
            id: found.id,
            top: found.top.obj.clone(),
            frame: self.frame_of(&top),
            lean,
            early: early.unwrap_or_default(),
        };
        self.check_cache_answer(&cache, &window.lean.elements);
        Ok(Some((self.tree_of(&window), window)))
    }

    /// The lean read with every field of the elements `wanted` names read.
    pub async fn fill_tree(&self, mut window: LeanWindow, wanted: Vec<ElementId>) -> Result<Tree> {
        let wanted: HashSet<ElementId> = wanted.into_iter().collect();
        let early = (&mut window.early, &self.last_fill);
        fill(&self.link, &self.app, &mut window.lean, &wanted, early).await?;
        self.known.remember(&window.lean.elements, &window.top);
        Ok(self.tree_of(&window))
    }

    fn tree_of(&self, window: &LeanWindow) -> Tree {
        let (nodes, focus) = to_nodes(&window.lean.elements, &self.app, window.frame);
        Tree {
            window: window.id,
            focus,
            nodes,
            announcements: None,
            extra: Default::default(),
        }
    }
}

/// Walks the window's structure: each element's basics and children, those
/// of cached elements as `prefetched` gives them ([`children_of_cached`]).
/// (parent index, position among its siblings, element, read from the cache).
async fn walk(
    link: &Link,
    app: &AppRef,
    window: &ObjRef,
    cache: &CacheItems,
    prefetched: &HashMap<String, Vec<ObjRef>>,
    fields: Option<FetchPlan>,
) -> Result<Vec<(Option<usize>, usize, RawNode, bool)>> {
    stats::note(|| {
        format!(
            "cache: {} items; peer connection: {}",
            cache.len(),
            link.peer.is_some()
        )
    });
    // The structure, walking GetChildren level by level, and with `fields`,
    // each element's other fields as soon as it is found, all in flight at
    // once (over their own connection, [`Link::fields`]).
    // (parent index, position among its siblings, element, read from the cache).
    let mut read: Vec<(Option<usize>, usize, RawNode, bool)> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut pending = FuturesUnordered::new();
    let views = Profile::of(app).views();
    let fetch = |obj: ObjRef, parent: Option<usize>, position: usize| {
        let cached = if obj.0 == app.bus {
            cache.get(obj.1.as_str())
        } else {
            None
        };
        let children = cached.and_then(|_| prefetched.get(obj.1.as_str()));
        async move {
            let node = fetch_basics(link, &obj, cached, children, views).await;
            (parent, position, node, cached.is_some())
        }
    };
    seen.insert(window.1.as_str().to_string());
    pending.push(fetch(window.clone(), None, 0));
    // Declared before the futures that borrow it.
    let turns = fields.map(Turns::for_plan);
    let mut filling = FuturesUnordered::new();
    loop {
        let (parent, position, node, cached) = tokio::select! {
            biased;
            Some(basics) = pending.next() => basics,
            Some(filled) = filling.next() => {
                let (me, node): (usize, RawNode) = filled;
                read[me].2 = node;
                continue;
            }
            else => break,
        };
        let mut node = match node {
            Ok(node) => node,
            // An element that went away while the window was read is not in it.
            Err(e) if parent.is_some() && e.code == ErrorCode::NoElement => continue,
            Err(e) => return Err(e),
        };
        if node.states.has(st::DEFUNCT) && parent.is_some() {
            if let Some(obj) = &node.obj {
                crate::visible::forget_cell(obj);
            }
            continue;
        }
        let me = read.len();
        if app.toolkit == Toolkit::Gtk4 {
            restore_stack_pages(&mut node, cache);
        }
        for (at, child) in node.children.iter().enumerate() {
            if read.len() + pending.len() >= MAX_NODES {
                break;
            }
            // Children on another bus (embedded plugs) are read there; a path seen twice is a cycle.
            if seen.insert(format!("{}{}", child.0, child.1.as_str())) {
                pending.push(fetch(child.clone(), Some(me), at));
            }
        }
        match fields {
            Some(plan) => {
                read.push((parent, position, RawNode::default(), cached));
                let turn = turns
                    .as_ref()
                    .map(|t| t.place(me, parent))
                    .unwrap_or_default();
                filling.push(with_fields(link, me, node, cached, plan, turn));
            }
            None => read.push((parent, position, node, cached)),
        }
    }
    Ok(read)
}

/// The element at `me` in a walk's read, with every other field read.
async fn with_fields(
    link: &Link,
    me: usize,
    mut node: RawNode,
    cached: bool,
    plan: FetchPlan,
    turn: Turn<'_>,
) -> (usize, RawNode) {
    fetch_extras(link, &mut node, cached, plan, turn).await;
    (me, node)
}

/// GTK 4's `GetChildren` skips the pages of a stack (a notebook's tab
/// panels) that its cache and `GetChildAtIndex` have: a child whose cached
/// parent is itself a cached child of this element is reached through that page.
fn restore_stack_pages(node: &mut RawNode, cache: &CacheItems) {
    let Some(me) = node.obj.as_ref().map(|o| o.1.as_str().to_string()) else {
        return;
    };
    let mut children: Vec<ObjRef> = Vec::with_capacity(node.children.len());
    for child in std::mem::take(&mut node.children) {
        let page = cache
            .get(child.1.as_str())
            .filter(|item| item.parent != me)
            .and_then(|item| {
                cache
                    .get(&item.parent)
                    .map(|page| (item.parent.clone(), page))
            })
            .filter(|(_, page)| page.parent == me);
        let child = match page.map(|(path, _)| OwnedObjectPath::try_from(path)) {
            Some(Ok(path)) => (child.0.clone(), path),
            _ => child,
        };
        if !children.contains(&child) {
            children.push(child);
        }
    }
    node.children = children;
}

/// What reads of the app's elements ask for ([`Profile::fetch`]).
pub fn plan_for(app: &AppRef) -> FetchPlan {
    Profile::of(app).fetch
}

/// The objects behind the element ids of earlier reads, with the window each was in.
#[derive(Debug, Default)]
pub struct Known {
    objects: std::sync::Mutex<HashMap<ElementId, (ObjRef, ObjRef)>>,
}

impl Known {
    pub fn remember(&self, elements: &[Element], window: &ObjRef) {
        let mut map = self.objects.lock().unwrap();
        if map.len() > 100_000 {
            map.clear();
        }
        for element in elements {
            if let Some(obj) = &element.raw.obj {
                map.insert(id_of(&element.raw), (obj.clone(), window.clone()));
            }
        }
    }

    /// The object of `id`, if an earlier read saw it in `window`.
    pub fn get(&self, id: ElementId, window: &ObjRef) -> Option<ObjRef> {
        let map = self.objects.lock().unwrap();
        map.get(&id)
            .filter(|(_, w)| w == window)
            .map(|(obj, _)| obj.clone())
    }
}

/// Orders the elements depth first, each parent before its children, siblings as the app lists them.
/// Each element keeps what came with it (`T`).
fn in_tree_order<T>(read: Vec<(Option<usize>, usize, RawNode, T)>) -> Vec<(Element, T)> {
    let mut children: Vec<Vec<(usize, usize)>> = vec![Vec::new(); read.len()];
    let mut roots = Vec::new();
    for (index, (parent, position, _, _)) in read.iter().enumerate() {
        match parent {
            Some(p) => children[*p].push((*position, index)),
            None => roots.push(index),
        }
    }
    for list in &mut children {
        list.sort_unstable();
    }
    let mut slots: Vec<Option<(RawNode, T)>> =
        read.into_iter().map(|(_, _, n, t)| Some((n, t))).collect();
    let mut out = Vec::with_capacity(slots.len());
    // (index in `read`, parent's index in `out`, inside a scroller)
    let mut stack: Vec<(usize, Option<usize>, bool)> =
        roots.into_iter().rev().map(|r| (r, None, false)).collect();
    while let Some((index, parent, in_scroller)) = stack.pop() {
        let Some((raw, kept)) = slots[index].take() else {
            continue;
        };
        let scroller_here = in_scroller || matches!(raw.role, 49 | 68);
        let me = out.len();
        out.push((
            Element {
                raw,
                parent,
                in_scroller,
            },
            kept,
        ));
        for &(_, child) in children[index].iter().rev() {
            stack.push((child, Some(me), scroller_here));
        }
    }
    out
}

/// Maps read elements to protocol nodes, with bounds relative to the window's content.
pub fn to_nodes(
    elements: &[Element],
    app: &AppRef,
    frame: Frame,
) -> (Vec<Node>, Option<ElementId>) {
    let replaced = with_embedded_text(elements);
    let elements = replaced.as_deref().unwrap_or(elements);
    let ids: Vec<ElementId> = elements.iter().map(|e| id_of(&e.raw)).collect();
    let names: HashMap<String, &str> = elements
        .iter()
        .filter_map(|e| e.raw.obj.as_ref().map(|o| (key_of(o), e.raw.name.as_str())))
        .collect();
    // The text of each element's first label child: GTK 4 buttons get their label from it.
    let mut child_label: Vec<Option<&str>> = vec![None; elements.len()];
    for element in elements {
        if let (Some(parent), 29) = (element.parent, element.raw.role) {
            child_label[parent].get_or_insert(element.raw.name.as_str());
        }
    }
    let mut focus = None;
    let mut nodes = elements
        .iter()
        .enumerate()
        .map(|(index, element)| {
            let raw = &element.raw;
            if raw.states.has(st::FOCUSED) && index > 0 {
                focus = Some(ids[index]);
            }
            let mut node = to_node(
                element,
                ids[index],
                element.parent.map(|p| ids[p]),
                app.toolkit,
                frame,
                &names,
            );
            if app.toolkit == Toolkit::Gtk4 {
                let raw = &element.raw;
                if let Some(label) = gtk4_label(raw.role, &raw.name, child_label[index]) {
                    node.label = label;
                }
            }
            node
        })
        .collect::<Vec<_>>();
    if app.toolkit.sets_showing() {
        hide_inside_hidden(elements, &mut nodes);
    }
    for (index, element) in elements.iter().enumerate() {
        if only_selects_in_popup(elements, element) {
            nodes[index].actions.retain(|a| *a != Action::Press);
        }
    }
    uidrive_core::naming::name_for_people(&mut nodes);
    crate::one_widget::merge_doubles(&mut nodes, &mut focus);
    (nodes, focus)
}

fn to_node(
    element: &Element,
    id: ElementId,
    parent: Option<ElementId>,
    toolkit: Toolkit,
    frame: Frame,
    names: &HashMap<String, &str>,
) -> Node {
    let raw = &element.raw;
    let mut node = Node {
        id,
        parent,
        role: roles::protocol_role(raw.role),
        ..Node::default()
    };
    let related = |kind: u32| -> Vec<ObjRef> {
        raw.relations
            .iter()
            .filter(|(k, _)| *k == kind)
            .flat_map(|(_, targets)| targets.iter().cloned())
            .collect()
    };
    let mut label = raw.name.clone();
    if label.is_empty() {
        label = related(2) // labelled-by
            .iter()
            .filter_map(|o| names.get(&key_of(o)).copied())
            .filter(|n| !n.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        if !label.is_empty() {
            node.name_source = Some(NameSource::LabelledBy);
        }
    }
    node.placeholder = raw
        .attributes
        .get("placeholder-text")
        .filter(|p| !p.is_empty())
        .cloned();
    let text_value = raw.text.as_ref().map(|t| t.text.clone());
    if label.is_empty()
        && !roles::has_text_value(raw.role)
        && !raw.ifaces.has(Ifaces::EDITABLE_TEXT)
    {
        label = text_value.clone().unwrap_or_default();
    }
    node.label = Some(label).filter(|l| !l.is_empty());
    let number = raw.value.and_then(|v| v.now).map(format_number);
    let spreadsheet = roles::is_spreadsheet_cell(raw.role, raw.ifaces.has(Ifaces::VALUE));
    // What the screen shows: an element whose text is empty has no value,
    // whatever number it answers (Calc's Value is 0 for an empty cell and
    // a text cell alike: a cell's value is its text).
    let shown = |text: Option<String>| text.filter(|t| !t.is_empty());
    node.value = if spreadsheet {
        shown(text_value.clone())
    } else if roles::has_text_value(raw.role) || raw.ifaces.has(Ifaces::EDITABLE_TEXT) {
        match text_value {
            Some(text) => shown(Some(text)),
            None => number,
        }
    } else {
        number
    };
    node.description = Some(raw.description.clone()).filter(|d| !d.is_empty());
    node.bounds = raw.extents.and_then(|(x, y, w, h)| {
        let (dx, dy) = if toolkit.window_relative_extents() {
            (0, 0)
        } else {
            frame.origin
        };
        // A window being unmapped can answer a place near i32::MIN: where
        // its elements are on it is then not known. (In floating point, as
        // no difference of two places may overflow.)
        let placed = dx > NOWHERE && dy > NOWHERE;
        (placed && is_box((x, y, w, h))).then(|| {
            // In device pixels, as the X server counts them ([`crate::scale`]).
            let k = frame.scale;
            Bounds::new(
                (f64::from(x) - f64::from(dx)) * k,
                (f64::from(y) - f64::from(dy)) * k,
                f64::from(w) * k,
                f64::from(h) * k,
            )
        })
    });
    node.states = protocol_states(raw.states, raw.role, toolkit.sets_showing());
    // GTK 4 keeps VISIBLE on widgets inside a hidden parent (a closed revealer);
    // one with no area on screen is not shown.
    if !toolkit.sets_showing()
        && node.bounds.is_none()
        && parent.is_some()
        && !node.states.contains(&State::Offscreen)
    {
        node.states.push(State::Offscreen);
    }
    node.actions = offered_actions(element);
    // An empty cell's 0 is not a number it shows.
    let empty_cell = spreadsheet && node.value.is_none();
    if let Some(v) = raw.value.filter(|_| !empty_cell) {
        node.min = v.min;
        node.max = v.max;
        node.now = v.now;
        node.step = v.step;
    }
    if let Some(text) = &raw.text {
        if raw.ifaces.has(Ifaces::EDITABLE_TEXT) || raw.states.has(st::SELECTABLE_TEXT) {
            let (s, e) = text.selection.unwrap_or((text.caret, text.caret));
            node.selection = Some([s.max(0) as u32, e.max(0) as u32]);
        }
    }
    let attr = |name: &str| raw.attributes.get(name).and_then(|v| v.parse::<i64>().ok());
    node.level = attr("level");
    node.pos_in_set = attr("posinset");
    node.set_size = attr("setsize");
    if let Some((rows, cols)) = raw.table {
        node.row_count = Some(i64::from(rows));
        node.col_count = Some(i64::from(cols));
    }
    if let Some((row, col, row_span, col_span)) = raw.cell {
        node.row_index = Some(i64::from(row) + 1);
        node.col_index = Some(i64::from(col) + 1);
        node.row_span = (row_span > 1).then_some(i64::from(row_span));
        node.col_span = (col_span > 1).then_some(i64::from(col_span));
    }
    if raw.truncated {
        node.truncated = true;
        node.child_count = Some(i64::from(raw.child_count)).filter(|n| *n >= 0);
    }
    node.key = Some(raw.accessible_id.clone())
        .filter(|k| !k.is_empty())
        .map(ElementKey::Str);
    node.controls = related(3)
        .iter()
        .map(|o| element_id(&o.0, o.1.as_str()))
        .collect();
    node.described_by = related(18)
        .iter()
        .map(|o| element_id(&o.0, o.1.as_str()))
        .collect();
    node.error_message = related(21)
        .iter()
        .map(|o| element_id(&o.0, o.1.as_str()))
        .collect();
    node
}

/// AT-SPI's object replacement character: where a text holds an embedded
/// object (Gecko writes one for every child of a paragraph, a link, a field).
const OBJECT_MARK: char = '\u{FFFC}';

/// The elements with each object replacement character of a name or text
/// replaced by the text of the embedded object it stands for (the element's
/// children, in order, as Gecko's hypertext counts them), or dropped where
/// that object shows no text; `None` when no element has one.
fn with_embedded_text(elements: &[Element]) -> Option<Vec<Element>> {
    let marked = |e: &Element| {
        e.raw.name.contains(OBJECT_MARK)
            || e.raw
                .text
                .as_ref()
                .is_some_and(|t| t.text.contains(OBJECT_MARK))
    };
    if !elements.iter().any(marked) {
        return None;
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); elements.len()];
    for (index, element) in elements.iter().enumerate() {
        if let Some(parent) = element.parent {
            children[parent].push(index);
        }
    }
    // Children come after their parent: the deepest are replaced first.
    let mut out = elements.to_vec();
    for index in (0..out.len()).rev() {
        if !marked(&out[index]) {
            continue;
        }
        let texts: Vec<String> = children[index]
            .iter()
            .map(|&child| shown_text(&out[child].raw))
            .collect();
        let raw = &mut out[index].raw;
        raw.name = replace_marks(&raw.name, &texts);
        if let Some(text) = raw.text.as_mut() {
            text.text = replace_marks(&text.text, &texts);
        }
    }
    Some(out)
}

/// What an embedded object shows as text: its text, else its name.
fn shown_text(raw: &RawNode) -> String {
    raw.text
        .as_ref()
        .map(|t| t.text.replace(OBJECT_MARK, ""))
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| raw.name.replace(OBJECT_MARK, ""))
}

/// `text` with its n-th object mark replaced by `objects[n]` (dropped past the end).
fn replace_marks(text: &str, objects: &[String]) -> String {
    let mut next = objects.iter();
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == OBJECT_MARK {
            if let Some(object) = next.next() {
                out.push_str(object);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// GTK 4.8 names an element without a name after its widget class
/// (`GtkButton`), and runs a button's label into its name twice (`7 7`):
/// the label child's text is the better label in both cases.
fn gtk4_label(role: u32, name: &str, child_label: Option<&str>) -> Option<Option<String>> {
    // GTK 4.8 names every notebook tab "Tab"; its label child reads Info or Source.
    let class_name = is_class_name(name) || (role == 37 && name == "Tab"); // page tab
    let doubled = child_label.is_some_and(|c| !c.is_empty() && name == format!("{c} {c}"));
    if !(class_name || doubled) {
        return None;
    }
    Some(child_label.filter(|c| !c.is_empty()).map(str::to_string))
}

/// Whether `name` is a GTK or libadwaita widget class name rather than words.
fn is_class_name(name: &str) -> bool {
    ["Gtk", "Adw", "Gsk"].iter().any(|prefix| {
        name.strip_prefix(prefix).is_some_and(|rest| {
            rest.starts_with(|c: char| c.is_ascii_uppercase())
                && rest.chars().all(|c| c.is_ascii_alphanumeric())
        })
    })
}

/// Marks offscreen every element inside a hidden menu: SHOWING means the
/// element and all its ancestors are shown, but Gecko and WebKit keep it on
/// the items of a closed menu (a `<select>`'s options in Epiphany, a menu
/// bar's menus in Thunderbird and Firefox) while the menu itself is hidden,
/// so they read as controls a person could use. Only menus hide what they
/// hold here: other containers may lack SHOWING while what they hold shows
/// (WebKit's root scroll pane, GTK 3's socket for an embedded page).
fn hide_inside_hidden(elements: &[Element], nodes: &mut [Node]) {
    let mut hides = vec![false; nodes.len()];
    for index in 1..nodes.len() {
        let offscreen = nodes[index].states.contains(&State::Offscreen);
        let in_hidden_menu = elements[index].parent.is_some_and(|p| p > 0 && hides[p]);
        if in_hidden_menu && !offscreen {
            nodes[index].states.push(State::Offscreen);
        }
        let menu = matches!(elements[index].raw.role, 33 | 41); // menu, popup menu
        hides[index] = in_hidden_menu || (menu && offscreen);
    }
}

/// Whether the element is an item of a combo box's popup list whose only
/// action is Qt's `Toggle`: that selects the item (it reads `selected`)
/// without choosing it, and the popup stays open; a click chooses it.
fn only_selects_in_popup(elements: &[Element], element: &Element) -> bool {
    let up = |e: &Element| e.parent.map(|p| &elements[p]);
    let in_combo = up(element)
        .and_then(up)
        .is_some_and(|combo| combo.raw.role == 11); // combo box
    in_combo
        && element.raw.actions.len() == 1
        && element.raw.actions[0].eq_ignore_ascii_case("toggle")
}

/// The actions an element really offers, from its interfaces, states and action names.
pub fn offered_actions(element: &Element) -> Vec<Action> {
    let raw = &element.raw;
    let mut out = Vec::new();
    if press_action(&raw.actions).is_some() {
        out.push(Action::Press);
    }
    if raw.states.has(st::FOCUSABLE) {
        out.push(Action::Focus);
    }
    let editable = raw.ifaces.has(Ifaces::EDITABLE_TEXT) && raw.states.has(st::EDITABLE);
    let range = is_range(raw);
    if editable || range {
        out.push(Action::SetValue);
    }
    if editable {
        out.push(Action::InsertText);
    }
    if raw.ifaces.has(Ifaces::TEXT) && (editable || raw.states.has(st::SELECTABLE_TEXT)) {
        out.push(Action::SelectText);
    }
    if range {
        out.push(Action::Increment);
        out.push(Action::Decrement);
    }
    if opens_popup(raw) {
        out.push(Action::Expand);
    } else if raw.states.has(st::EXPANDABLE) && expand_action(&raw.actions).is_some() {
        out.push(if raw.states.has(st::EXPANDED) {
            Action::Collapse
        } else {
            Action::Expand
        });
    }
    if element.in_scroller && raw.ifaces.has(Ifaces::COMPONENT) {
        out.push(Action::ScrollIntoView);
    }
    out
}

/// Whether the element is a range a person can move (not a progress bar), with room to move.
pub fn is_range(raw: &RawNode) -> bool {
    let adjustable = roles::is_adjustable_range(raw.role);
    match raw.value {
        Some(v) => {
            adjustable
                && raw.ifaces.has(Ifaces::VALUE)
                && matches!((v.min, v.max), (Some(lo), Some(hi)) if hi > lo)
        }
        None => false,
    }
}

/// The index of the action that presses the element, if it has one.
pub fn press_action(actions: &[String]) -> Option<usize> {
    const PRESS: [&str; 7] = [
        "click", "press", "activate", "toggle", "jump", "open", "select",
    ];
    PRESS
        .iter()
        .find_map(|want| actions.iter().position(|a| a.eq_ignore_ascii_case(want)))
}

/// Whether the element is a closed combo box that opens its popup by an
/// action of its own: Qt's `ShowMenu` (Qt sets no EXPANDABLE state, and a
/// click at an editable combo's centre lands in its text field).
pub fn opens_popup(raw: &RawNode) -> bool {
    raw.role == 11 // combo box
        && !raw.states.has(st::EXPANDED)
        && raw.actions.iter().any(|a| a.eq_ignore_ascii_case(SHOW_MENU))
}

const SHOW_MENU: &str = "ShowMenu";

/// The index of the action that expands or collapses the element, if it has one.
pub fn expand_action(actions: &[String]) -> Option<usize> {
    const EXPAND: [&str; 7] = [
        "expand or contract",
        "expand or collapse",
        "expand",
        "collapse",
        "toggle",
        "activate",
        SHOW_MENU,
    ];
    EXPAND
        .iter()
        .find_map(|want| actions.iter().position(|a| a.eq_ignore_ascii_case(want)))
}

pub fn id_of(raw: &RawNode) -> ElementId {
    raw.obj
        .as_ref()
        .map(|o| element_id(&o.0, o.1.as_str()))
        .unwrap_or_default()
}

fn key_of(obj: &ObjRef) -> String {
    format!("{}{}", obj.0, obj.1.as_str())
}

fn format_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn press_and_expand_actions_are_found_by_name() {
        let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(press_action(&names(&["click"])), Some(0));
        assert_eq!(press_action(&names(&["edit", "activate"])), Some(1));
        assert_eq!(press_action(&names(&["edit"])), None);
        assert_eq!(
            expand_action(&names(&["activate", "expand or contract"])),
            Some(1)
        );
        assert_eq!(format_number(42.0), "42");
        assert_eq!(gtk4_label(32, "7 7", Some("7")), Some(Some("7".into())));
        assert_eq!(
            gtk4_label(32, "GtkButton", Some("π")),
            Some(Some("π".into()))
        );
        assert_eq!(gtk4_label(32, "AdwGizmo", None), Some(None));
        assert_eq!(gtk4_label(32, "Undo", Some("Undo")), None);
        assert_eq!(
            gtk4_label(37, "Tab", Some("Info")),
            Some(Some("Info".into()))
        );
        assert_eq!(
            gtk4_label(32, "Tab", Some("Info")),
            None,
            "a button named Tab"
        );
        assert!(!is_class_name("Gtkfoo") && !is_class_name("Gtk Button"));
        assert_eq!(format_number(0.5), "0.5");
    }

    #[test]
    fn object_marks_take_the_embedded_objects_text_or_go() {
        let element = |name: &str, text: Option<&str>, parent| Element {
            raw: RawNode {
                name: name.into(),
                text: text.map(|t| crate::fetch::TextInfo {
                    text: t.into(),
                    ..Default::default()
                }),
                ..RawNode::default()
            },
            parent,
            in_scroller: false,
        };
        let elements = vec![
            element("", Some("Read \u{FFFC} and \u{FFFC}\u{FFFC}"), None),
            element("the terms", None, Some(0)),
            element("", Some("\u{FFFC}"), Some(0)),
            element("", None, Some(2)),
        ];
        let replaced = with_embedded_text(&elements).expect("marks replaced");
        let text = |at: usize| replaced[at].raw.text.as_ref().unwrap().text.clone();
        assert_eq!(text(0), "Read the terms and ");
        assert_eq!(text(2), "");
        assert!(with_embedded_text(&elements[1..2]).is_none());
    }

    #[test]
    fn an_empty_text_is_no_value_and_an_empty_cells_zero_no_number() {
        let node = |role, ifaces, text: &str| {
            let element = Element {
                raw: RawNode {
                    role,
                    ifaces,
                    text: Some(crate::fetch::TextInfo {
                        text: text.into(),
                        ..Default::default()
                    }),
                    value: Some(crate::fetch::ValueInfo {
                        now: Some(0.0),
                        ..Default::default()
                    }),
                    ..RawNode::default()
                },
                parent: None,
                in_scroller: false,
            };
            let frame = Frame::unscaled((0, 0));
            to_node(
                &element,
                ElementId(1),
                None,
                Toolkit::Other,
                frame,
                &HashMap::new(),
            )
        };
        let cell_ifaces = Ifaces::from_names(&["org.a11y.atspi.Value", "org.a11y.atspi.Text"]);
        let empty_cell = node(56, cell_ifaces, ""); // table cell
        assert_eq!((empty_cell.value, empty_cell.now), (None, None));
        let zero = node(56, cell_ifaces, "0");
        assert_eq!((zero.value.as_deref(), zero.now), (Some("0"), Some(0.0)));
        let field = node(61, Ifaces::from_names(&["org.a11y.atspi.EditableText"]), "");
        assert_eq!(field.value, None, "an empty field");
        let typed = node(
            61,
            Ifaces::from_names(&["org.a11y.atspi.EditableText"]),
            "Ada",
        );
        assert_eq!(typed.value.as_deref(), Some("Ada"));
    }

    #[test]
    fn bounds_count_from_the_window_and_a_window_with_no_place_gives_none() {
        let element = Element {
            raw: RawNode {
                extents: Some((i32::MAX - 5, 150, 20, 10)),
                ..RawNode::default()
            },
            parent: None,
            in_scroller: false,
        };
        let bounds = |origin| {
            to_node(
                &element,
                ElementId(1),
                None,
                Toolkit::Other,
                Frame::unscaled(origin),
                &HashMap::new(),
            )
            .bounds
        };
        assert_eq!(
            bounds((-10, 100)),
            Some(Bounds::new(f64::from(i32::MAX) + 5.0, 50.0, 20.0, 10.0)),
            "no overflow"
        );
        // What GTK 3 answers for a window being unmapped.
        assert_eq!(bounds((i32::MIN, i32::MIN)), None);
    }
}
