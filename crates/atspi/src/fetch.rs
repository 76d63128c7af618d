//! The calls of one element, made as the planner decided them
//! ([`crate::plan`]): its basics, its children, its fields, each part's
//! calls in flight at once (the app's gate, [`crate::gate`], bounds how many).

use crate::bus::{
    self, call, prop_f64, Link, ObjRef, IFACE_ACCESSIBLE, IFACE_ACTION, IFACE_TABLE,
    IFACE_TABLE_CELL, IFACE_TEXT, IFACE_VALUE,
};
use crate::gate;
use crate::plan::{ActionsWhen, ChildrenCalls, Descriptions, Extents, FieldCalls, MOST_EMBEDDED};
use crate::roles;
use crate::states::StateSet;
use crate::visible;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
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
    /// The element's accessible id once a read asked it: the cache has
    /// none, and an answer kept for later reads keeps it too (until any
    /// event of the app drops the answer, [`crate::kept`]).
    pub accessible_id: IdSlot,
}

/// Where an element's accessible id is kept with its cache item.
pub type IdSlot = Arc<OnceLock<String>>;

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
                            accessible_id: IdSlot::default(),
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
    /// Where the accessible id of an element from the cache is kept for
    /// the reads that take the same cache answer ([`CachedItem::accessible_id`]).
    pub id_slot: Option<IdSlot>,
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
    /// Whether `extents` was kept by an earlier read, from its window's
    /// corner, rather than asked ([`crate::kept::KeptBoxes`]).
    pub box_kept: bool,
    /// Whether `actions` was left for later, the element being hidden ([`crate::plan::ActionsRead`]).
    pub actions_unread: bool,
}

impl RawNode {
    /// The element's lasting name, its `key`: the accessible id the toolkit
    /// gives (GTK 3's ATK id, Qt's `objectName` path) when it gives one,
    /// else the `id` attribute of the markup it comes from (a web page's
    /// `<input id="city">` in Firefox and Chromium, which answer every
    /// accessible id empty); empty when it has neither.
    pub fn key(&self) -> &str {
        if !self.accessible_id.is_empty() {
            return &self.accessible_id;
        }
        self.attributes.get("id").map_or("", String::as_str)
    }

    /// Whether the accessible id of this element from the cache is known
    /// without asking: kept with its cache item by an earlier read.
    pub fn id_kept(&self) -> bool {
        self.id_slot
            .as_ref()
            .is_some_and(|slot| slot.get().is_some())
    }
}

/// A coordinate at or below this says "no place": toolkits answer about
/// `i32::MIN` for an element or window that is not on screen.
pub const NOWHERE: i32 = -1_000_000;

/// Whether extents an app answered make a box on screen.
pub fn is_box((x, _, width, height): (i32, i32, i32, i32)) -> bool {
    width > 0 && height > 0 && x > NOWHERE
}

/// What the elements of one whole read tell each other of their boxes,
/// where boxes nest ([`crate::plan::FieldRules::boxes_nest`]): an element
/// whose parent's box came back empty is not asked for its own. The walk
/// finds parents before their children and the gate lets calls in in the
/// order they asked, so a parent has usually answered by the time its
/// children's turn comes; one that has not is not waited for.
#[derive(Default)]
pub struct Boxes {
    /// By element: whether its box is known to be empty.
    empty: std::sync::Mutex<Vec<bool>>,
}

impl Boxes {
    /// The place of the element at `me` in the read, whose parent is at `parent`.
    pub fn place(&self, me: usize, parent: Option<usize>) -> BoxPlace<'_> {
        BoxPlace {
            boxes: Some(self),
            me,
            parent,
        }
    }

    fn is_empty(&self, at: usize) -> bool {
        self.empty.lock().unwrap().get(at).copied().unwrap_or(false)
    }

    fn set_empty(&self, at: usize) {
        let mut empty = self.empty.lock().unwrap();
        if empty.len() <= at {
            empty.resize(at + 1, false);
        }
        empty[at] = true;
    }
}

/// One element's place in a read's [`Boxes`]; the default has none (its
/// box is asked as its calls say).
#[derive(Default, Clone, Copy)]
pub struct BoxPlace<'a> {
    boxes: Option<&'a Boxes>,
    me: usize,
    parent: Option<usize>,
}

/// The children of the elements at `paths`, asked all at once (the gate
/// bounds how many are in flight); an element that answers none (gone
/// since) is left out.
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

/// One element's basics: role, name, states, interfaces and child count,
/// from the cache when it has the element, else asked of the element
/// (with its accessible id, which comes with the same call), and its
/// description as `descriptions` says.
pub async fn basics(
    link: &Link,
    obj: &ObjRef,
    cached: Option<&CachedItem>,
    descriptions: Descriptions,
) -> Result<RawNode> {
    let mut node = RawNode {
        obj: Some(obj.clone()),
        ..RawNode::default()
    };
    if let Some(c) = cached {
        node.role = c.role;
        node.name = c.name.clone();
        node.description = c.description.clone();
        node.states = c.states;
        node.ifaces = c.ifaces;
        node.child_count = c.child_count;
        node.accessible_id = c.accessible_id.get().cloned().unwrap_or_default();
        node.id_slot = Some(c.accessible_id.clone());
        // A container the cache counts empty may be filling (LibreOffice
        // Calc's formula bar as it shows): unless the cache placed its
        // children itself, its children are asked.
        if c.child_count == 0 && roles::is_plain_container(c.role) {
            node.child_count = -1;
        }
        return Ok(node);
    }
    let (conn, dest) = link.route(&obj.0);
    let path = obj.1.as_str();
    let props: &[&str] = match descriptions {
        Descriptions::All => &["Name", "Description", "AccessibleId", "ChildCount"],
        Descriptions::OfUnnamed => &["Name", "AccessibleId", "ChildCount"],
    };
    let (role, states, ifaces, props) = tokio::join!(
        call::<u32, _>(conn, dest, path, IFACE_ACCESSIBLE, "GetRole", &()),
        call::<Vec<u32>, _>(conn, dest, path, IFACE_ACCESSIBLE, "GetState", &()),
        call::<Vec<String>, _>(conn, dest, path, IFACE_ACCESSIBLE, "GetInterfaces", &()),
        bus::get_props(conn, dest, path, IFACE_ACCESSIBLE, props),
    );
    let props = props?;
    node.role = role?;
    node.states = StateSet::from_words(&states?);
    node.ifaces = Ifaces::from_names(&ifaces?);
    node.name = bus::prop_str(&props, "Name").unwrap_or_default();
    node.description = match descriptions {
        Descriptions::All => bus::prop_str(&props, "Description"),
        Descriptions::OfUnnamed if node.name.is_empty() => {
            bus::get_prop(conn, dest, path, IFACE_ACCESSIBLE, "Description")
                .await
                .ok()
                .and_then(|v| String::try_from(v).ok())
        }
        Descriptions::OfUnnamed => None,
    }
    .unwrap_or_default();
    node.accessible_id = bus::prop_str(&props, "AccessibleId").unwrap_or_default();
    // Without a count, the child list is asked for: an app that can't say how
    // many children an element has is not one that manages millions.
    node.child_count = prop_f64(&props, "ChildCount").map_or(-1, |n| n as i32);
    Ok(node)
}

/// Asks `node`'s children as `calls` says (`given`: the list known before
/// the walk); marks it truncated when only those on screen were read.
pub async fn children(
    link: &Link,
    node: &mut RawNode,
    calls: ChildrenCalls,
    given: Option<&Vec<ObjRef>>,
    views: visible::Views,
) -> Result<()> {
    let Some(obj) = node.obj.clone() else {
        return Ok(());
    };
    let (conn, dest) = link.route(&obj.0);
    let path = obj.1.as_str();
    let count = node.child_count;
    (node.children, node.truncated, node.child_count) = match calls {
        ChildrenCalls::Given => (given.cloned().unwrap_or_default(), false, count),
        ChildrenCalls::None => (Vec::new(), false, count),
        ChildrenCalls::List => {
            let children = children_of(conn, dest, path).await?;
            let children = if (children.len() as i32) < count && count <= MOST_EMBEDDED {
                children_by_index(conn, dest, path, count).await
            } else {
                children
            };
            (children, false, count)
        }
        ChildrenCalls::OnScreen { ask_count: true } => {
            let asked = async {
                let asked = bus::get_prop(conn, dest, path, IFACE_ACCESSIBLE, "ChildCount").await;
                asked
                    .ok()
                    .and_then(|v| i32::try_from(v).ok())
                    .unwrap_or(count)
            };
            let (children, count) =
                visible::visible_children(link, &obj, node.ifaces, asked, views).await;
            (children, true, count)
        }
        ChildrenCalls::OnScreen { ask_count: false } => {
            let (children, count) = visible::visible_children(
                link,
                &obj,
                node.ifaces,
                std::future::ready(count),
                views,
            )
            .await;
            (children, true, count)
        }
    };
    Ok(())
}

/// The element's children asked place by place (`GetChildAtIndex`), for an
/// element whose `GetChildren` leaves some out (see [`ChildrenCalls::List`]):
/// WebKitGTK's page in Epiphany, in the web process, is reached only this
/// way, as pyatspi reaches it.
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

/// Asks the fields `calls` names of `node`, over the fields' connection where there is one; `place`
/// is its place in the read's [`Boxes`]. A call that fails leaves its
/// field out rather than failing the whole read.
pub async fn fields(link: &Link, node: &mut RawNode, calls: &FieldCalls, place: BoxPlace<'_>) {
    let Some(obj) = node.obj.clone() else { return };
    let (conn, dest) = link.route_fields(&obj.0);
    let path = obj.1.as_str();
    let extents = async {
        let (taken, inside_empty) = match (calls.extents, place.boxes, place.parent) {
            (Extents::UnlessInsideEmpty, Some(boxes), Some(parent)) => {
                // Its turn at the gate first: the parent's box has usually
                // been answered by then.
                let taken = gate::place().await;
                (taken, boxes.is_empty(parent))
            }
            _ => (None, false),
        };
        let asks = calls.extents != Extents::No && !inside_empty;
        let extents = if asks {
            let asked = bus::get_extents(conn, dest, path, calls.coords);
            gate::spend(taken, asked).await.ok()
        } else {
            None
        };
        // Only a box answered empty says so of the children: an element not
        // asked (not VISIBLE, or a stack's page, which is no widget) may
        // still hold some that show.
        if let Some(boxes) = place.boxes {
            if inside_empty || extents.is_some_and(|e| !is_box(e)) {
                boxes.set_empty(place.me);
            }
        }
        extents
    };
    let id = accessible_id(conn, dest, path, calls.id);
    let mut details = node.clone();
    let (ext, id) = match calls.actions.when {
        ActionsWhen::AfterBox => {
            let ext = extents.await;
            details.actions_unread = !ext.is_some_and(is_box);
            let (id, ()) = tokio::join!(id, ask_details(conn, dest, path, calls, &mut details));
            (ext, id)
        }
        ActionsWhen::BesideBox => {
            let (ext, id, ()) = tokio::join!(
                extents,
                id,
                ask_details(conn, dest, path, calls, &mut details)
            );
            if !ext.is_some_and(is_box) {
                details.actions_unread = true;
                details.actions.clear();
            }
            (ext, id)
        }
        when => {
            details.actions_unread = when == ActionsWhen::Later;
            let (ext, id, ()) = tokio::join!(
                extents,
                id,
                ask_details(conn, dest, path, calls, &mut details)
            );
            (ext, id)
        }
    };
    let accessible_id = match id {
        Some(id) => {
            if let Some(slot) = &details.id_slot {
                let _ = slot.set(id.clone());
            }
            id
        }
        // Not asked: kept already ([`RawNode::id_kept`]), or read with the basics.
        None if calls.id => String::new(),
        None => details.accessible_id.clone(),
    };
    *node = RawNode {
        extents: ext,
        accessible_id,
        ..details
    };
}

/// `lean`, an element as a walk gives it, with
/// the fields [`fields`] read of the same element with the same calls (`filled`).
pub fn with_fields_of(lean: RawNode, filled: RawNode, asked: &FieldCalls) -> RawNode {
    RawNode {
        accessible_id: if asked.id {
            filled.accessible_id
        } else {
            lean.accessible_id
        },
        id_slot: lean.id_slot,
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

/// The element's accessible id, if `wanted` and answered.
async fn accessible_id(conn: &Connection, dest: &str, path: &str, wanted: bool) -> Option<String> {
    if !wanted {
        return None;
    }
    bus::get_prop(conn, dest, path, IFACE_ACCESSIBLE, "AccessibleId")
        .await
        .ok()
        .and_then(|v| v.downcast_ref::<&str>().ok().map(str::to_string))
}

/// The fields beyond the box and the key, as `calls` names them.
async fn ask_details(
    conn: &Connection,
    dest: &str,
    path: &str,
    calls: &FieldCalls,
    node: &mut RawNode,
) {
    let text = async {
        let text = calls.text?;
        read_text_parts(conn, dest, path, text.selection, text.caret).await
    };
    let value = async {
        if !calls.value {
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
        if node.actions_unread || !calls.actions.read {
            return Vec::new();
        }
        read_actions(conn, dest, path).await
    };
    let relations = async {
        if !calls.relations {
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
        if !calls.attributes {
            return HashMap::new();
        }
        call::<HashMap<String, String>, _>(conn, dest, path, IFACE_ACCESSIBLE, "GetAttributes", &())
            .await
            .unwrap_or_default()
    };
    // Single properties and methods only: GTK 3's bridge crashes the app on
    // `GetAll` of TableCell, and may on other interfaces it half implements.
    let table = async {
        if !calls.table {
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
        if !calls.cell {
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
