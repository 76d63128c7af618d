//! Reading one element's fields from its app, with every call for it in flight at once.

use crate::bus::{
    self, call, prop_f64, Link, ObjRef, IFACE_ACCESSIBLE, IFACE_ACTION, IFACE_TABLE,
    IFACE_TABLE_CELL, IFACE_TEXT, IFACE_VALUE,
};
use crate::discovery::AppRef;
use crate::roles;
use crate::states::{st, StateSet};
use crate::stats;
use crate::visible;
use std::collections::HashMap;
use uidrive_core::Result;
use zbus::Connection;

/// The AT-SPI interfaces an object implements, as flags.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ifaces(u16);

impl Ifaces {
    pub const COMPONENT: Ifaces = Ifaces(1);
    pub const ACTION: Ifaces = Ifaces(2);
    pub const TEXT: Ifaces = Ifaces(4);
    pub const EDITABLE_TEXT: Ifaces = Ifaces(8);
    pub const VALUE: Ifaces = Ifaces(16);
    pub const TABLE: Ifaces = Ifaces(32);
    pub const TABLE_CELL: Ifaces = Ifaces(64);

    pub fn from_names<S: AsRef<str>>(names: &[S]) -> Ifaces {
        let mut flags = 0;
        for name in names {
            flags |= match name.as_ref().strip_prefix("org.a11y.atspi.") {
                Some("Component") => 1,
                Some("Action") => 2,
                Some("Text") => 4,
                Some("EditableText") => 8,
                Some("Value") => 16,
                Some("Table") => 32,
                Some("TableCell") => 64,
                Some("Selection") => 128,
                _ => 0,
            };
        }
        Ifaces(flags)
    }

    pub fn has(self, other: Ifaces) -> bool {
        self.0 & other.0 == other.0
    }
}

/// The app's cache as `GetItems` answers it: what it knows of each object, by path.
pub type CacheItems = HashMap<String, CachedItem>;

/// What the app's cache knows of an object.
#[derive(Debug, Clone)]
pub struct CachedItem {
    /// The path of the parent the cache gives.
    pub parent: String,
    /// Its place among the parent's children.
    pub index: i32,
    pub role: u32,
    pub name: String,
    pub description: String,
    pub child_count: i32,
    pub ifaces: Ifaces,
    pub states: StateSet,
}

type CacheTuple = (
    ObjRef,
    ObjRef,
    ObjRef,
    i32,
    i32,
    Vec<String>,
    String,
    u32,
    String,
    Vec<u32>,
);

/// The app's cache (`org.a11y.atspi.Cache.GetItems`) by object path, or empty when it has none.
///
/// Used for role, name and states only: which objects are in the tree comes
/// from walking `GetChildren`, since caches keep objects that left the tree
/// and leave out others. Asked only of toolkits tested safe for it (GTK,
/// Firefox, Chromium; Qt's is empty): a cache walks the whole app in one go.
pub async fn cache_items(link: &Link, bus_name: &str) -> CacheItems {
    let (conn, bus_name) = link.route(bus_name);
    if bus::bulk(conn, bus_name) < bus::Bulk::Cache {
        return HashMap::new();
    }
    let items: Result<Vec<CacheTuple>> = call(
        conn,
        bus_name,
        "/org/a11y/atspi/cache",
        "org.a11y.atspi.Cache",
        "GetItems",
        &(),
    )
    .await;
    items
        .map(|items| {
            items
                .into_iter()
                .map(
                    |(
                        me,
                        _app,
                        parent,
                        index,
                        child_count,
                        ifaces,
                        name,
                        role,
                        description,
                        states,
                    )| {
                        let item = CachedItem {
                            parent: parent.1.as_str().to_string(),
                            index,
                            role,
                            name,
                            description,
                            child_count,
                            ifaces: Ifaces::from_names(&ifaces),
                            states: StateSet::from_words(&states),
                        };
                        (me.1.as_str().to_string(), item)
                    },
                )
                .collect()
        })
        .unwrap_or_default()
}

/// Text contents, caret and selection, in characters (runes).
#[derive(Debug, Clone, Default)]
pub struct TextInfo {
    pub text: String,
    pub caret: i32,
    pub selection: Option<(i32, i32)>,
}

/// A range's numbers.
#[derive(Debug, Clone, Copy, Default)]
pub struct ValueInfo {
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub now: Option<f64>,
    pub step: Option<f64>,
}

/// Everything read of one element.
#[derive(Debug, Clone, Default)]
pub struct RawNode {
    pub obj: Option<ObjRef>,
    pub role: u32,
    pub name: String,
    pub description: String,
    pub states: StateSet,
    pub ifaces: Ifaces,
    pub accessible_id: String,
    pub attributes: HashMap<String, String>,
    pub extents: Option<(i32, i32, i32, i32)>,
    pub text: Option<TextInfo>,
    pub value: Option<ValueInfo>,
    pub actions: Vec<String>,
    pub relations: Vec<(u32, Vec<ObjRef>)>,
    pub table: Option<(i32, i32)>,
    pub cell: Option<(i32, i32, i32, i32)>,
    pub children: Vec<ObjRef>,
    /// The number of children the element reports.
    pub child_count: i32,
    /// Whether only the children on screen were read (see [`visible`]).
    pub truncated: bool,
    /// Whether `actions` was left for later, the element being hidden ([`FetchPlan::actions`]).
    pub actions_unread: bool,
}

/// What a read asks of the app beyond the basics.
#[derive(Debug, Clone, Copy)]
pub struct FetchPlan {
    /// Whether the toolkit gives accessible ids worth asking for.
    pub ids: bool,
    /// The coordinates asked of `GetExtents`: screen (0), or window (1) for
    /// GTK 4, which answers relative to the window anyway and warns otherwise.
    pub coords: u32,
    /// The state an element must have for its extents to be worth asking:
    /// GTK 3 answers a minimal x for one that is not SHOWING, and GTK 4 an
    /// empty box for one that is not VISIBLE, and both read as no bounds.
    pub extents_need: Option<u32>,
    /// Whether an element inside one whose box is empty has an empty box
    /// too, and so is not asked (GTK 4, which never sets SHOWING: a widget
    /// inside an unmapped one is unmapped, as a list's rows scrolled out of
    /// view and everything in them). Needs the read's [`Turns`].
    pub boxes_nest: bool,
    /// Which elements have their actions read with the tree.
    pub actions: ActionsRead,
}

/// Which elements a read asks for their actions. The others' are read when
/// one is acted on ([`actions_of`]): a closed menu's hundreds of items, a
/// list's rows out of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionsRead {
    All,
    /// Those with this state (SHOWING, where the toolkit sets it).
    WithState(u32),
    /// Those with a box on screen, known once their extents are (GTK 4).
    WithBox,
    /// As `WithBox`, but asked beside the box and dropped when it is
    /// empty: one round trip instead of two, for the few elements a
    /// locator's read fills in.
    BesideBox,
}

/// A coordinate at or below this says "no place": toolkits answer about
/// `i32::MIN` for an element or window that is not on screen.
pub const NOWHERE: i32 = -1_000_000;

/// Whether extents an app answered make a box on screen.
pub fn is_box((x, _, width, height): (i32, i32, i32, i32)) -> bool {
    width > 0 && height > 0 && x > NOWHERE
}

/// How the elements of one read take turns for their calls, and what they
/// tell each other of their boxes.
///
/// They go in the read's order, a parent before its children,
/// [`Turns::AT_ONCE`] at a time: enough to keep the app busy, few enough
/// that no call waits behind hundreds of others, so that a call's timeout
/// measures the app and not the queue. With every element's calls sent at
/// once, a read of Calc on a loaded machine (two busy loops on two cores)
/// left a call unanswered after 5 s in 5 runs of 12 (`calc_cells`); 16 at
/// a time, in 0 of 4 (each of Calc's cells costs it milliseconds to answer).
/// It still happened once at 16, in a CI run: Calc itself can stay busy
/// that long there, which the driver reports as a `timeout`.
///
/// Where boxes nest ([`FetchPlan::boxes_nest`]), an element whose parent's
/// box came back empty is not asked for its own. A parent has usually
/// answered by its children's turn; one that has not is not waited for.
pub struct Turns {
    nest: bool,
    /// By element: whether its box is known to be empty.
    empty: std::sync::Mutex<Vec<bool>>,
    in_flight: tokio::sync::Semaphore,
}

impl Turns {
    /// Elements in flight: the fastest of 8, 16, 32 and 64 on gtk4-demo and
    /// gnome-calculator; at 64, the loaded read of Calc above failed in 2
    /// runs of 4.
    const AT_ONCE: usize = 16;

    pub fn for_plan(plan: FetchPlan) -> Turns {
        Turns {
            nest: plan.boxes_nest,
            empty: std::sync::Mutex::new(Vec::new()),
            in_flight: tokio::sync::Semaphore::new(Turns::AT_ONCE),
        }
    }

    /// The place of the element at `me` in the read, whose parent is at `parent`.
    pub fn place(&self, me: usize, parent: Option<usize>) -> Turn<'_> {
        Turn {
            turns: Some(self),
            me,
            parent,
        }
    }

    fn is_empty(&self, at: usize) -> bool {
        self.nest && self.empty.lock().unwrap().get(at).copied().unwrap_or(false)
    }

    fn set_empty(&self, at: usize) {
        if !self.nest {
            return;
        }
        let mut empty = self.empty.lock().unwrap();
        if empty.len() <= at {
            empty.resize(at + 1, false);
        }
        empty[at] = true;
    }
}

/// One element's place in a read's [`Turns`]; the default has none: it
/// waits for no turn, and its extents are asked as the plan says.
#[derive(Default, Clone, Copy)]
pub struct Turn<'a> {
    turns: Option<&'a Turns>,
    me: usize,
    parent: Option<usize>,
}

/// The children of cached elements as the cache itself gives them (each
/// item names its parent and its place there), for the elements where that
/// agrees with the element's own child count: one child at every place, no
/// place left empty. Other elements are left out, to be asked.
pub fn children_from_cache(bus_name: &str, cache: &CacheItems) -> HashMap<String, Vec<ObjRef>> {
    let mut placed: HashMap<&str, Vec<(i32, &str)>> = HashMap::new();
    for (path, item) in cache {
        placed
            .entry(item.parent.as_str())
            .or_default()
            .push((item.index, path.as_str()));
    }
    let mut out = HashMap::new();
    for (path, item) in cache {
        if !visible::walkable(item.states, item.child_count) {
            continue;
        }
        let mut kids = placed.remove(path.as_str()).unwrap_or_default();
        kids.sort_unstable();
        let in_place = kids.len() == item.child_count as usize
            && kids
                .iter()
                .enumerate()
                .all(|(at, (index, _))| *index == at as i32);
        if !in_place {
            continue;
        }
        let refs: Option<Vec<ObjRef>> = kids
            .iter()
            .map(|(_, kid)| {
                zbus::zvariant::OwnedObjectPath::try_from(*kid)
                    .ok()
                    .map(|p| (bus_name.to_string(), p))
            })
            .collect();
        if let Some(refs) = refs {
            out.insert(path.clone(), refs);
        }
    }
    out
}

/// The children of the cache's elements, as known before walking: from the
/// cache's own places where they add up (GTK's bridges, [`children_from_cache`]),
/// else asked all at once, so that walking the tree needs no round trip per
/// level for the elements the cache knows. `early` holds children asked
/// already (beside the cache answer, [`ask_children`]). Also answers which
/// elements' children had to be asked. Elements the cache keeps after they
/// left the tree cost a wasted call each.
pub async fn children_of_cached(
    link: &Link,
    app: &AppRef,
    cache: &CacheItems,
    mut early: HashMap<String, Vec<ObjRef>>,
) -> (HashMap<String, Vec<ObjRef>>, Vec<String>) {
    // A GTK cache gives each element's parent and place among its parent's
    // children as they are at the read: where those add up to the element's
    // child count, one child at every place, they are its children, and only
    // the rest are asked. (GTK 3's cache also keeps elements that left the
    // tree; they no longer sit at a place of a live parent, so their old
    // parent's children do not add up and are asked.)
    let mut known = if app.behind_gtk_bridge() {
        children_from_cache(&app.bus, cache)
    } else {
        HashMap::new()
    };
    let from_cache = known.len();
    let asked: Vec<String> = cache
        .iter()
        .filter(|(path, c)| {
            (c.child_count != 0 || roles::is_plain_container(c.role))
                && visible::walkable(c.states, c.child_count)
                && !known.contains_key(*path)
        })
        .map(|(path, _)| path.clone())
        .collect();
    let mut missing = Vec::new();
    for path in &asked {
        match early.remove(path) {
            Some(children) => {
                known.insert(path.clone(), children);
            }
            None => missing.push(path.clone()),
        }
    }
    let early_used = asked.len() - missing.len();
    known.extend(ask_children(link, &app.bus, missing).await);
    stats::note(|| {
        format!(
            "children of {} cached elements: {from_cache} from the cache itself, {early_used} asked beside it",
            known.len()
        )
    });
    (known, asked)
}

/// The children of the elements at `paths`, asked all at once; an element
/// that answers none (gone since) is left out.
pub async fn ask_children(
    link: &Link,
    bus_name: &str,
    paths: Vec<String>,
) -> HashMap<String, Vec<ObjRef>> {
    let (conn, dest) = link.route(bus_name);
    let asked = paths.into_iter().map(|path| async move {
        let children = children_of(conn, dest, &path).await;
        (path, children)
    });
    futures_util::future::join_all(asked)
        .await
        .into_iter()
        .filter_map(|(path, children)| children.ok().map(|c| (path, c)))
        .collect()
}

/// Reads one element's basics and children: role, name and states from the
/// cache when it has the element, else from the element itself. The children
/// of an element that manages its descendants, or has too many to walk, are
/// only those on screen, and the element is marked truncated.
pub async fn fetch_basics(
    link: &Link,
    obj: &ObjRef,
    cached: Option<&CachedItem>,
    prefetched: Option<&Vec<ObjRef>>,
    views: visible::Views,
) -> Result<RawNode> {
    let (conn, dest) = link.route(&obj.0);
    let path = obj.1.as_str();
    let mut node = RawNode {
        obj: Some(obj.clone()),
        ..RawNode::default()
    };
    let mut ask_count = false;
    match cached {
        Some(c) => {
            node.role = c.role;
            node.name = c.name.clone();
            node.description = c.description.clone();
            node.states = c.states;
            node.ifaces = c.ifaces;
            node.child_count = c.child_count;
            // A container the cache counts empty may be filling (LibreOffice
            // Calc's formula bar as it shows): unless the cache placed its
            // children itself, its children are asked.
            if c.child_count == 0 && roles::is_plain_container(c.role) {
                node.child_count = -1;
            }
            // GTK 3's cache may count none for an element that manages its
            // descendants: its count is asked with its children on screen.
            ask_count = c.states.has(st::MANAGES_DESCENDANTS);
        }
        None => {
            let (role, states, ifaces, props) = tokio::join!(
                call::<u32, _>(conn, dest, path, IFACE_ACCESSIBLE, "GetRole", &()),
                call::<Vec<u32>, _>(conn, dest, path, IFACE_ACCESSIBLE, "GetState", &()),
                call::<Vec<String>, _>(conn, dest, path, IFACE_ACCESSIBLE, "GetInterfaces", &()),
                bus::get_props(
                    conn,
                    dest,
                    path,
                    IFACE_ACCESSIBLE,
                    &["Name", "Description", "AccessibleId", "ChildCount"]
                ),
            );
            let props = props?;
            node.role = role?;
            node.states = StateSet::from_words(&states?);
            node.ifaces = Ifaces::from_names(&ifaces?);
            node.name = bus::prop_str(&props, "Name").unwrap_or_default();
            node.description = bus::prop_str(&props, "Description").unwrap_or_default();
            node.accessible_id = bus::prop_str(&props, "AccessibleId").unwrap_or_default();
            // Without a count, the child list is asked for: an app that can't say how
            // many children an element has is not one that manages millions.
            node.child_count = prop_f64(&props, "ChildCount").map_or(-1, |n| n as i32);
        }
    }
    let unknown_count = node.child_count == -1 && !node.states.has(st::MANAGES_DESCENDANTS);
    let walk = visible::walkable(node.states, node.child_count);
    let count = node.child_count;
    // (children, whether only those on screen, the child count)
    let children = async {
        if let Some(children) = prefetched {
            Ok((children.clone(), false, count))
        } else if ask_count {
            let asked = async {
                let asked = bus::get_prop(conn, dest, path, IFACE_ACCESSIBLE, "ChildCount").await;
                asked
                    .ok()
                    .and_then(|v| i32::try_from(v).ok())
                    .unwrap_or(count)
            };
            let (children, count) =
                visible::visible_children(link, obj, node.ifaces, asked, views).await;
            Ok((children, true, count))
        } else if count == 0 {
            Ok((Vec::new(), false, count))
        } else if unknown_count || walk {
            let children = children_of(conn, dest, path).await?;
            let children = if (children.len() as i32) < count && count <= MAX_EMBEDDED {
                children_by_index(conn, dest, path, count).await
            } else {
                children
            };
            Ok((children, false, count))
        } else {
            let (children, count) =
                visible::visible_children(link, obj, node.ifaces, std::future::ready(count), views)
                    .await;
            Ok((children, true, count))
        }
    };
    (node.children, node.truncated, node.child_count) = children.await?;
    Ok(node)
}

/// The most children asked one by one of an element whose child list falls
/// short of its child count.
const MAX_EMBEDDED: i32 = 16;

/// The element's children asked place by place (`GetChildAtIndex`), for an
/// element whose `GetChildren` leaves some out: GTK 3's bridge answers a
/// socket's child list empty while it counts the plug embedded in it, in
/// another process (WebKitGTK's page in Epiphany: the web process's
/// document is reached only this way, as pyatspi reaches it).
async fn children_by_index(conn: &Connection, dest: &str, path: &str, count: i32) -> Vec<ObjRef> {
    let asked = (0..count).map(|index| async move {
        call::<ObjRef, _>(
            conn,
            dest,
            path,
            IFACE_ACCESSIBLE,
            "GetChildAtIndex",
            &(index,),
        )
        .await
        .ok()
    });
    futures_util::future::join_all(asked)
        .await
        .into_iter()
        .flatten()
        .filter(|child| !bus::is_null(child))
        .map(|(bus_name, child)| {
            // An empty bus name means the element's own app.
            let bus_name = if bus_name.is_empty() {
                dest.to_string()
            } else {
                bus_name
            };
            (bus_name, child)
        })
        .collect()
}

/// The element's children, without AT-SPI's "no object" entries.
async fn children_of(conn: &Connection, dest: &str, path: &str) -> Result<Vec<ObjRef>> {
    let mut children: Vec<ObjRef> =
        call(conn, dest, path, IFACE_ACCESSIBLE, "GetChildren", &()).await?;
    children.retain(|child| !bus::is_null(child));
    Ok(children)
}

/// Reads the rest of an element: extents, its key, and what its interfaces offer.
/// A call that fails leaves its field out.
pub async fn fetch_extras(
    link: &Link,
    node: &mut RawNode,
    cached: bool,
    plan: FetchPlan,
    turn: Turn<'_>,
) {
    let Some(obj) = node.obj.clone() else { return };
    let _taken = match turn.turns {
        Some(turns) => turns.in_flight.acquire().await.ok(),
        None => None,
    };
    let (conn, dest) = link.route_fields(&obj.0);
    let path = obj.1.as_str();
    let placed = plan.extents_need.is_none_or(|state| node.states.has(state));
    let inside_empty = match (turn.turns, turn.parent) {
        (Some(turns), Some(parent)) => turns.is_empty(parent),
        _ => false,
    };
    let asks_extents = node.ifaces.has(Ifaces::COMPONENT) && placed && !inside_empty;
    let extents = async {
        let extents = if asks_extents {
            bus::get_extents(conn, dest, path, plan.coords).await.ok()
        } else {
            None
        };
        // Only a box answered empty says so of the children: an element not
        // asked (not VISIBLE, or a stack's page, which is no widget) may
        // still hold some that show.
        if let Some(turns) = turn.turns {
            if inside_empty || extents.is_some_and(|e| !is_box(e)) {
                turns.set_empty(turn.me);
            }
        }
        extents
    };
    // An element read without the cache already has its id.
    let id = accessible_id(conn, dest, path, plan.ids && cached);
    let mut details = node.clone();
    let (ext, id) = match plan.actions {
        ActionsRead::WithBox => {
            let ext = extents.await;
            details.actions_unread = !ext.is_some_and(is_box);
            let (id, ()) = tokio::join!(id, fetch_details(conn, dest, path, &mut details));
            (ext, id)
        }
        ActionsRead::BesideBox => {
            let (ext, id, ()) =
                tokio::join!(extents, id, fetch_details(conn, dest, path, &mut details));
            if !ext.is_some_and(is_box) {
                details.actions_unread = true;
                details.actions.clear();
            }
            (ext, id)
        }
        read => {
            details.actions_unread =
                matches!(read, ActionsRead::WithState(state) if !node.states.has(state));
            let (ext, id, ()) =
                tokio::join!(extents, id, fetch_details(conn, dest, path, &mut details));
            (ext, id)
        }
    };
    *node = RawNode {
        extents: ext,
        accessible_id: filled_id(cached, id, details.accessible_id.clone()),
        ..details
    };
}

/// Everything that decides which calls [`fetch_extras`] (and
/// [`fetch_details`]) make for one element, outside a read's [`Turns`]: two
/// elements with the same questions get the same calls, so the answers
/// asked for one serve the other. Kept beside those two functions: what
/// they come to read of an element, this must hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Questions {
    obj: Option<ObjRef>,
    /// Whether the accessible id is asked with the fields (of a cached element).
    asks_id: bool,
    role: u32,
    named: bool,
    ifaces: Ifaces,
    actions_unread: bool,
    /// Whether the states let the box be asked ([`FetchPlan::extents_need`]).
    placed: bool,
    selectable_text: bool,
    /// Whether the states let the actions be read ([`ActionsRead::WithState`]).
    acts: bool,
}

/// The questions [`fetch_extras`] asks of `node` under `plan`.
pub fn questions(node: &RawNode, cached: bool, plan: FetchPlan) -> Questions {
    Questions {
        obj: node.obj.clone(),
        asks_id: plan.ids && cached,
        role: node.role,
        named: !node.name.is_empty(),
        ifaces: node.ifaces,
        actions_unread: node.actions_unread,
        placed: plan.extents_need.is_none_or(|state| node.states.has(state)),
        selectable_text: node.states.has(st::SELECTABLE_TEXT),
        acts: match plan.actions {
            ActionsRead::WithState(state) => node.states.has(state),
            _ => true,
        },
    }
}

/// `lean`, an element as a walk gives it (`cached` if from the cache), with
/// the fields [`fetch_extras`] read of an element that was `asked` the same
/// [`Questions`] (`filled`).
pub fn with_fields_of(lean: RawNode, cached: bool, filled: RawNode, asked: &Questions) -> RawNode {
    let asked_id = if asked.asks_id {
        filled.accessible_id
    } else {
        String::new()
    };
    RawNode {
        accessible_id: filled_id(cached, asked_id, lean.accessible_id),
        obj: lean.obj,
        role: lean.role,
        name: lean.name,
        description: lean.description,
        states: lean.states,
        ifaces: lean.ifaces,
        children: lean.children,
        child_count: lean.child_count,
        truncated: lean.truncated,
        ..filled
    }
}

/// The accessible id a fill gives an element: the one asked with its fields
/// for an element from the cache (empty where the toolkit gives none), the
/// one the walk read for another.
fn filled_id(cached: bool, asked: String, walked: String) -> String {
    if cached {
        asked
    } else {
        walked
    }
}

async fn accessible_id(conn: &Connection, dest: &str, path: &str, wanted: bool) -> String {
    if !wanted {
        return String::new();
    }
    bus::get_prop(conn, dest, path, IFACE_ACCESSIBLE, "AccessibleId")
        .await
        .ok()
        .and_then(|v| v.downcast_ref::<&str>().ok().map(str::to_string))
        .unwrap_or_default()
}

/// The fields that depend on the element's interfaces and role. A call that
/// fails leaves its field out rather than failing the whole read.
async fn fetch_details(conn: &Connection, dest: &str, path: &str, node: &mut RawNode) {
    let role = node.role;
    let ifaces = node.ifaces;
    let editable = ifaces.has(Ifaces::EDITABLE_TEXT);
    let want_text = ifaces.has(Ifaces::TEXT)
        && (roles::has_text_value(role)
            || editable
            || node.name.is_empty()
            || roles::is_spreadsheet_cell(role, ifaces.has(Ifaces::VALUE)));
    // Relations name an unlabelled control's label; attributes carry levels and set positions.
    let want_relations = node.name.is_empty() && roles::is_labelled_control(role);
    // Unnamed fields may carry a placeholder there.
    let want_attributes = matches!(role, 83 | 90 | 91) || (node.name.is_empty() && editable);
    let text = async {
        if !want_text {
            return None;
        }
        let selection = editable || node.states.has(st::SELECTABLE_TEXT);
        read_text_parts(conn, dest, path, selection, editable).await
    };
    let value = async {
        if !ifaces.has(Ifaces::VALUE) || !roles::has_range_value(role) {
            return None;
        }
        let props = bus::get_props(
            conn,
            dest,
            path,
            IFACE_VALUE,
            &[
                "MinimumValue",
                "MaximumValue",
                "CurrentValue",
                "MinimumIncrement",
            ],
        )
        .await
        .ok()?;
        Some(ValueInfo {
            min: prop_f64(&props, "MinimumValue"),
            max: prop_f64(&props, "MaximumValue"),
            now: prop_f64(&props, "CurrentValue"),
            step: prop_f64(&props, "MinimumIncrement").filter(|s| *s > 0.0),
        })
    };
    let actions = async {
        if node.actions_unread || !ifaces.has(Ifaces::ACTION) || !roles::may_act(role) {
            return Vec::new();
        }
        read_actions(conn, dest, path).await
    };
    let relations = async {
        if !want_relations {
            return Vec::new();
        }
        call::<Vec<(u32, Vec<ObjRef>)>, _>(
            conn,
            dest,
            path,
            IFACE_ACCESSIBLE,
            "GetRelationSet",
            &(),
        )
        .await
        .unwrap_or_default()
    };
    let attributes = async {
        if !want_attributes {
            return HashMap::new();
        }
        call::<HashMap<String, String>, _>(conn, dest, path, IFACE_ACCESSIBLE, "GetAttributes", &())
            .await
            .unwrap_or_default()
    };
    // Single properties and methods only: GTK 3's bridge crashes the app on
    // `GetAll` of TableCell, and may on other interfaces it half implements.
    let table = async {
        if !ifaces.has(Ifaces::TABLE) {
            return None;
        }
        let (rows, cols) = tokio::join!(
            bus::get_prop(conn, dest, path, IFACE_TABLE, "NRows"),
            bus::get_prop(conn, dest, path, IFACE_TABLE, "NColumns"),
        );
        Some((
            i32::try_from(rows.ok()?).ok()?,
            i32::try_from(cols.ok()?).ok()?,
        ))
    };
    let cell = async {
        if !ifaces.has(Ifaces::TABLE_CELL) {
            return None;
        }
        call::<(i32, i32, i32, i32), _>(conn, dest, path, IFACE_TABLE_CELL, "GetRowColumnSpan", &())
            .await
            .ok()
    };
    let (t, v, a, r, at, tb, c) =
        tokio::join!(text, value, actions, relations, attributes, table, cell);
    node.text = t;
    node.value = v;
    node.actions = a;
    node.relations = r;
    node.attributes = at;
    node.table = tb;
    // Calc's cells have no TableCell interface; their place is known when
    // the read asked their table for them by place.
    node.cell = c.or_else(|| {
        let obj = node.obj.as_ref()?;
        crate::visible::place_of(obj).map(|(row, col)| (row, col, 1, 1))
    });
}

/// The element's action names. `GetActions` answers every action's name,
/// description and key binding at once; Firefox's bridge answers it with one
/// string in all three places, and crashes on some menu items, so apps not
/// tested safe for bulk reads are asked `NActions`, then each `GetName`; and
/// so is any app whose `GetActions` leaves a name empty (LibreOffice's Bold
/// toggle answers `("", "", "")` where `GetName(0)` says `press`).
async fn read_actions(conn: &Connection, dest: &str, path: &str) -> Vec<String> {
    /// More actions than any control has: a bound on what an app may claim.
    const MAX_ACTIONS: i32 = 32;
    if bus::bulk_safe(conn, dest) {
        let names: Vec<String> = call::<Vec<(String, String, String)>, _>(
            conn,
            dest,
            path,
            IFACE_ACTION,
            "GetActions",
            &(),
        )
        .await
        .map(|list| list.into_iter().map(|(name, _, _)| name).collect())
        .unwrap_or_default();
        if names.iter().all(|name| !name.is_empty()) {
            return names;
        }
    }
    let count = bus::get_prop(conn, dest, path, IFACE_ACTION, "NActions")
        .await
        .ok()
        .and_then(|v| i32::try_from(v).ok())
        .unwrap_or(0)
        .clamp(0, MAX_ACTIONS);
    let names = (0..count).map(|index| async move {
        call::<String, _>(conn, dest, path, IFACE_ACTION, "GetName", &(index,))
            .await
            .unwrap_or_default()
    });
    futures_util::future::join_all(names).await
}

/// The element's action names, read now if the tree left them for later.
pub async fn actions_of(link: &Link, raw: &RawNode) -> Vec<String> {
    match (&raw.obj, raw.actions_unread) {
        (Some(obj), true) if raw.ifaces.has(Ifaces::ACTION) => {
            let (conn, dest) = link.route(&obj.0);
            read_actions(conn, dest, obj.1.as_str()).await
        }
        _ => raw.actions.clone(),
    }
}

/// Text, caret and selection. GTK 4 answers "" to `GetText(0, -1)`, so the
/// character count is read first and asked for exactly.
pub async fn read_text(
    conn: &Connection,
    dest: &str,
    path: &str,
    with_selection: bool,
) -> Option<TextInfo> {
    read_text_parts(conn, dest, path, with_selection, true).await
}

/// As [`read_text`], the caret only `with_caret`: WebKitGTK's web process
/// crashes when asked the caret of a label while the caret is in a field.
async fn read_text_parts(
    conn: &Connection,
    dest: &str,
    path: &str,
    with_selection: bool,
    with_caret: bool,
) -> Option<TextInfo> {
    // The selection is asked only of an element that has one: WebKitGTK's
    // web process crashes on `GetSelection(0)` of a label while the
    // selection (a caret) is in a field of the page.
    let selection = async {
        if !with_selection {
            return None;
        }
        let count: i32 = call(conn, dest, path, IFACE_TEXT, "GetNSelections", &())
            .await
            .ok()?;
        if count <= 0 {
            return None;
        }
        call::<(i32, i32), _>(conn, dest, path, IFACE_TEXT, "GetSelection", &(0i32,))
            .await
            .ok()
    };
    let asked: &[&str] = if with_caret {
        &["CharacterCount", "CaretOffset"]
    } else {
        &["CharacterCount"]
    };
    let props = bus::get_props(conn, dest, path, IFACE_TEXT, asked);
    let (props, selection) = tokio::join!(props, selection);
    let props = props.ok()?;
    let count = prop_f64(&props, "CharacterCount").unwrap_or(0.0) as i32;
    let caret = prop_f64(&props, "CaretOffset").unwrap_or(0.0) as i32;
    let text = if count > 0 {
        call::<String, _>(conn, dest, path, IFACE_TEXT, "GetText", &(0i32, count))
            .await
            .ok()?
    } else {
        String::new()
    };
    Some(TextInfo {
        text,
        caret,
        selection: selection.filter(|(s, e)| e > s),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(parent: &str, index: i32, child_count: i32) -> CachedItem {
        CachedItem {
            parent: parent.into(),
            index,
            role: 0,
            name: String::new(),
            description: String::new(),
            child_count,
            ifaces: Ifaces::default(),
            states: StateSet::default(),
        }
    }

    #[test]
    fn the_cache_gives_children_only_where_its_places_add_up() {
        let cache: HashMap<String, CachedItem> = [
            ("/w", item("/root", 0, 2)),
            // Listed out of order: the places order them.
            ("/w/b", item("/w", 1, 0)),
            ("/w/a", item("/w", 0, 1)),
            // `/w/a` says one child, the cache has two: it is asked instead.
            ("/w/a/x", item("/w/a", 0, 0)),
            ("/w/a/y", item("/w/a", 2, 0)),
        ]
        .into_iter()
        .map(|(path, item)| (path.to_string(), item))
        .collect();
        let children = children_from_cache(":1.5", &cache);
        let paths = |path: &str| {
            children.get(path).map(|list| {
                list.iter()
                    .map(|(bus, p)| format!("{bus}{}", p.as_str()))
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(
            paths("/w"),
            Some(vec![":1.5/w/a".to_string(), ":1.5/w/b".to_string()])
        );
        assert_eq!(paths("/w/b"), Some(vec![]));
        assert_eq!(paths("/w/a"), None);
        assert_eq!(paths("/w/a/y"), Some(vec![]));
    }
}
