//! The read planner: every call a read makes is decided here, from the
//! app's profile ([`Profile`]), what is asked ([`Asked`]) and what earlier
//! reads kept ([`Moment`]). Nothing here talks to the app; the executor
//! ([`crate::exec`]) makes the calls as planned, through the app's gate.
//!
//! A read has three parts, each decided in turn:
//!
//! 1. **Before the walk** ([`ReadPlan`]): whether the app's cache is asked,
//!    taken as an earlier read kept it, or not asked; which elements'
//!    children are asked beside it (those the last read had to ask); and,
//!    for a locator's read, which elements' fields are asked beside it
//!    (those the last two fills named).
//! 2. **Each element's structure** ([`children_calls`]): its children as
//!    the cache places them, all of them, or only those on screen.
//! 3. **Each element's fields** ([`field_calls`]): which of its box, key,
//!    text, value, actions, relations, attributes and table place are asked,
//!    decided from its role, interfaces, states and the profile's rules.
//!
//! Nothing is reused on a timer. Two answers are kept from read to read,
//! and only where the toolkit announces every change to what they hold:
//! the app's cache answer, and (GTK 3) the boxes of the cache's elements,
//! which the app announces one by one (`BoundsChanged`). Any event of the
//! app or action of the driver drops both; a box announced changed is
//! asked again with the boxes of everything inside it ([`crate::kept`]).
//! The children of views that manage their descendants (GTK 3 tree views,
//! Qt item views, which sort, filter and gain rows without an event) are
//! never in a kept answer: they and their boxes are asked at every read,
//! and so are values, text and actions.

use crate::bus::ObjRef;
use crate::fetch::{CacheItems, CachedItem, Ifaces, RawNode};
use crate::kept::KeptBoxes;
use crate::profile::{CacheKept, Profile};
use crate::roles;
use crate::states::st;
use crate::visible;
use std::collections::HashMap;
use std::sync::Arc;

/// What a read is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// A whole window, every field of every element (`tree`).
    Window,
    /// A window for a locator: role, name and states of every element,
    /// then every field of the candidates it picks (`tree_for`).
    Candidates,
    /// A window or a cell and what it holds, with the cache asked afresh
    /// (`with_cache`) or not at all, and nothing kept for later (an action
    /// that finds its element by key, a menu's steps, a cell by its place).
    Subtree { with_cache: bool },
    /// One element alone, read again for an action: its actions even when hidden.
    Element,
}

/// What the planner knows of the moment of a read.
#[derive(Debug, Clone, Default)]
pub struct Moment {
    /// The cache answer an earlier read kept, if the app sent no event and
    /// the driver sent no action since it was asked.
    pub kept: Option<Arc<CacheItems>>,
    /// Whether the app announces every change to what its cache holds, to
    /// this driver, now ([`Profile::cache_kept`], once the bridge knows it listens).
    pub announces: bool,
    /// Whether the app is behind GTK's bridge and not yet known to have
    /// learnt that this driver listens.
    pub registration_unknown: bool,
    /// Whether an action's effect is still awaited (GTK 4 runs a `DoAction`
    /// about 250 ms after answering it).
    pub awaiting_action: bool,
    /// Whether the app has a second connection for the fields of a read.
    pub fields_connection: bool,
    /// Whether a GTK 4 popover shows: what it holds is placed from the
    /// whole read of its window.
    pub popover: bool,
    /// The boxes the last whole read kept, if the app announces every
    /// change of a box and nothing happened since that read began.
    pub kept_boxes: Option<Arc<KeptBoxes>>,
    /// The cached elements whose children the last read had to ask.
    pub children_asked: Vec<String>,
    /// The elements the last two fills named, as the walk gave them, and
    /// whether each came from the cache; each once, the later fill's first.
    pub last_fills: Vec<(RawNode, bool)>,
}

/// How a read takes the app's cache (`Cache.GetItems`).
#[derive(Debug, Clone)]
pub enum CachePlan {
    /// Not asked: the read is of one element or a cell.
    None,
    /// Asked. `keep`: the answer may serve later reads. `learn`: a round
    /// trip over the bus beside it tells whether GTK's bridge has learnt
    /// that this driver listens (then later answers may be kept).
    Ask { keep: bool, learn: bool },
    /// The answer an earlier read kept, once a round trip over the bus
    /// proves no event is on its way; else asked as `Ask { keep: true }`.
    Kept(Arc<CacheItems>),
}

/// When each element's fields are asked.
#[derive(Debug, Clone)]
pub enum FieldsPlan {
    /// As soon as the walk finds the element, over the fields' own
    /// connection ([`crate::bus::Link::fields`]).
    WhileWalking,
    /// Once the walk is done, so that the few calls the walk waits on do
    /// not queue behind hundreds of field calls on the one connection.
    AfterWalk,
    /// Only for the candidates a locator picks from the lean read, after
    /// it; `early` are asked beside the structure, for the fill to take
    /// where it would ask the same calls ([`field_calls`]).
    OfCandidates { early: Vec<(RawNode, bool)> },
}

/// Everything decided before a read starts.
#[derive(Debug, Clone)]
pub struct ReadPlan {
    pub cache: CachePlan,
    /// Cached elements whose children are asked beside the cache, a round
    /// trip earlier than its answer could name them.
    pub children_early: Vec<String>,
    pub fields: FieldsPlan,
    /// What each element is asked beyond the basics.
    pub rules: FieldRules,
    /// Whether the cache places the children of the elements it holds
    /// ([`Profile::cache_places_children`]).
    pub cache_places_children: bool,
    /// The boxes an earlier whole read kept, taken for the elements of the
    /// cache (not the window's own) with the kept cache answer, once the
    /// same round trip proves no event is on its way; else every box is asked.
    pub boxes: Option<Arc<KeptBoxes>>,
    /// The elements (paths) whose boxes the app announced changed since
    /// the kept boxes were asked: theirs and their descendants' are asked.
    pub boxes_moved: std::collections::HashSet<String>,
    /// Whether this read keeps the boxes it asks, for the next.
    pub keep_boxes: bool,
    /// How the children on screen of a view are asked.
    pub views: visible::Views,
}

/// The most elements of one fill the next read asks early: a fill of
/// more makes calls that dwarf the round trip early answers save.
pub const MOST_GUESSED: usize = 100;

/// The plan for a read of `asked`, at `moment`.
pub fn plan(profile: &Profile, asked: Asked, moment: Moment) -> ReadPlan {
    let walking = if moment.fields_connection {
        FieldsPlan::WhileWalking
    } else {
        FieldsPlan::AfterWalk
    };
    let whole_window_cache = || match &moment.kept {
        Some(kept) if moment.announces => CachePlan::Kept(kept.clone()),
        _ => CachePlan::Ask {
            keep: moment.announces && !moment.awaiting_action,
            learn: moment.registration_unknown,
        },
    };
    let mut plan = ReadPlan {
        cache: CachePlan::None,
        children_early: Vec::new(),
        fields: walking,
        rules: profile.fields,
        cache_places_children: profile.cache_places_children,
        views: profile.views(),
        boxes: None,
        boxes_moved: Default::default(),
        keep_boxes: false,
    };
    match asked {
        Asked::Window => {
            plan.cache = whole_window_cache();
            plan.children_early = moment.children_asked;
            let keeps = profile.boxes_kept && moment.announces && !moment.awaiting_action;
            if keeps && matches!(plan.cache, CachePlan::Kept(_)) {
                plan.boxes = moment.kept_boxes;
            }
            plan.keep_boxes = keeps;
        }
        Asked::Candidates if reads_lean(profile, &moment) => {
            plan.cache = whole_window_cache();
            plan.children_early = moment.children_asked;
            plan.fields = FieldsPlan::OfCandidates {
                early: moment.last_fills,
            };
            plan.rules = candidate_rules(profile.fields);
        }
        Asked::Candidates => {
            return self::plan(profile, Asked::Window, moment);
        }
        Asked::Subtree { with_cache } => {
            if with_cache {
                plan.cache = CachePlan::Ask {
                    keep: false,
                    learn: false,
                };
            }
        }
        Asked::Element => {
            plan.rules.actions = ActionsRead::All;
        }
    }
    plan
}

/// The box kept for `node` by an earlier read, if the plan takes kept
/// boxes: then its box is not asked.
pub fn kept_box(plan: &ReadPlan, node: &RawNode) -> Option<(i32, i32, i32, i32)> {
    let obj = node.obj.as_ref()?;
    plan.boxes.as_ref()?.of_path(obj.1.as_str())
}

/// Whether a locator's read is lean: the app's cache answers role, name
/// and states in one call (GTK's bridge), and no popover shows.
pub fn reads_lean(profile: &Profile, moment: &Moment) -> bool {
    profile.lean && !moment.popover
}

/// How the candidates of a lean read are asked: a few elements, so asking
/// the actions of one whose box turns out empty costs less than a round
/// trip more for all (a frame while GTK 4 animates).
fn candidate_rules(mut rules: FieldRules) -> FieldRules {
    if rules.actions == ActionsRead::WithBox {
        rules.actions = ActionsRead::BesideBox;
    }
    rules
}

/// What the profile says about asking an element's fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldRules {
    /// Whether the toolkit gives accessible ids worth asking for.
    pub ids: bool,
    /// Whether every element's attributes are asked: they carry a web
    /// page's `id`, `class` and tag ([`crate::discovery::AppRef::gives_web_attributes`]).
    pub web_attributes: bool,
    /// The coordinates asked of `GetExtents`: screen (0), or window (1) for
    /// GTK 4, which answers relative to the window anyway and warns otherwise.
    pub coords: u32,
    /// The state an element must have for its box to be worth asking: GTK 3
    /// answers a minimal x for one that is not SHOWING, and GTK 4 an empty
    /// box for one that is not VISIBLE, and both read as no bounds.
    pub extents_need: Option<u32>,
    /// Whether an element inside one whose box is empty has an empty box
    /// too, and so is not asked (GTK 4, which never sets SHOWING: a widget
    /// inside an unmapped one is unmapped, as a list's rows scrolled out
    /// of view and everything in them). Only a whole read, which asks
    /// parents before children, knows the parent's box.
    pub boxes_nest: bool,
    /// Which elements have their actions read with the tree.
    pub actions: ActionsRead,
    /// Which elements are asked their description with their basics.
    pub descriptions: Descriptions,
}

/// Which elements a read asks for their description.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Descriptions {
    All,
    /// Only those with no name, where the description names the element
    /// (GIMP's tool buttons): GTK 2's GAIL answers a widget's description
    /// with a copy of its tooltip that it never frees, so each ask grows
    /// the app (GIMP: 41 kB a read of its 694 tooltips).
    OfUnnamed,
}

/// Which elements a read asks for their actions. The others' are read when
/// one is acted on ([`crate::fetch::actions_of`]): a closed menu's hundreds
/// of items, a list's rows out of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionsRead {
    All,
    /// Those with this state (SHOWING, where the toolkit sets it).
    WithState(u32),
    /// Those with a box on screen, known once their box is (GTK 4): the
    /// element's other fields are asked after its box.
    WithBox,
    /// As `WithBox`, but asked beside the box and dropped when it is
    /// empty: one round trip instead of two.
    BesideBox,
}

/// The calls for one element's fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldCalls {
    pub extents: Extents,
    /// The coordinates the box is asked in ([`FieldRules::coords`]).
    pub coords: u32,
    /// The accessible id (of an element from the cache, unless a read that
    /// took the same cache answer asked it; one read without the cache has
    /// it from its basics).
    pub id: bool,
    pub actions: ActionCalls,
    pub text: Option<TextCalls>,
    /// The Value interface's numbers.
    pub value: bool,
    /// The relation set: it names an unlabelled control's label.
    pub relations: bool,
    /// The attributes: levels, set positions, a field's placeholder, a web
    /// element's `id`, classes and tag.
    pub attributes: bool,
    /// A table's size.
    pub table: bool,
    /// A cell's place and span.
    pub cell: bool,
}

/// Whether an element's box is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extents {
    No,
    Ask,
    /// Asked unless the read already knows its parent's box is empty
    /// ([`FieldRules::boxes_nest`]).
    UnlessInsideEmpty,
}

/// Whether and when an element's actions are asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActionCalls {
    /// Whether the element can have actions at all (its interfaces and role).
    pub read: bool,
    pub when: ActionsWhen,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionsWhen {
    /// With the other fields.
    Now,
    /// Not in this read: when the element is acted on (it is hidden).
    Later,
    /// Once its box is known to be on screen; every other field waits for
    /// the box too.
    AfterBox,
    /// Beside the box, dropped if the box is empty.
    BesideBox,
}

/// The calls for an element's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextCalls {
    /// The selection (asked only when `GetNSelections` counts one).
    pub selection: bool,
    /// The caret: asked only of editable text (WebKitGTK's web process
    /// crashes when asked the caret of a label while the caret is in a field).
    pub caret: bool,
}

/// The calls for the fields of `node`, as the walk read it (`cached` if
/// from the app's cache), under `rules`; `nested`: the read asks parents'
/// boxes before their children's.
pub fn field_calls(node: &RawNode, cached: bool, rules: FieldRules, nested: bool) -> FieldCalls {
    let (role, ifaces, states) = (node.role, node.ifaces, node.states);
    let editable = ifaces.has(Ifaces::EDITABLE_TEXT);
    let unnamed = node.name.is_empty();
    let placed = rules.extents_need.is_none_or(|state| states.has(state));
    let extents = match (
        ifaces.has(Ifaces::COMPONENT) && placed,
        nested && rules.boxes_nest,
    ) {
        (false, _) => Extents::No,
        (true, false) => Extents::Ask,
        (true, true) => Extents::UnlessInsideEmpty,
    };
    let when = match rules.actions {
        ActionsRead::All => ActionsWhen::Now,
        ActionsRead::WithState(state) if states.has(state) => ActionsWhen::Now,
        ActionsRead::WithState(_) => ActionsWhen::Later,
        ActionsRead::WithBox => ActionsWhen::AfterBox,
        ActionsRead::BesideBox => ActionsWhen::BesideBox,
    };
    let wants_text = ifaces.has(Ifaces::TEXT)
        && (roles::has_text_value(role)
            || editable
            || unnamed
            || roles::is_spreadsheet_cell(role, ifaces.has(Ifaces::VALUE)));
    FieldCalls {
        extents,
        coords: rules.coords,
        id: rules.ids && cached && !node.id_kept(),
        actions: ActionCalls {
            read: ifaces.has(Ifaces::ACTION) && roles::may_act(role),
            when,
        },
        text: wants_text.then_some(TextCalls {
            selection: editable || states.has(st::SELECTABLE_TEXT),
            caret: editable,
        }),
        value: ifaces.has(Ifaces::VALUE) && roles::has_range_value(role),
        relations: unnamed && roles::is_labelled_control(role),
        // Headings, sections and forms for their levels; every field for
        // its placeholder, which is kept beside its label.
        attributes: rules.web_attributes || matches!(role, 83 | 90 | 91) || editable,
        table: ifaces.has(Ifaces::TABLE),
        cell: ifaces.has(Ifaces::TABLE_CELL),
    }
}

/// How an element's children are asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChildrenCalls {
    /// Known before the walk (from the cache's places, or asked beside it).
    Given,
    /// It has none.
    None,
    /// Its child list; where the list falls short of the child count (at
    /// most [`MOST_EMBEDDED`]), place by place: GTK 3's bridge answers a
    /// socket's list empty while it counts the plug embedded in it, in
    /// another process (WebKitGTK's page in Epiphany).
    List,
    /// Only those on screen ([`visible`]); `ask_count`: its child count is
    /// asked beside them (GTK 3's cache may count none for an element that
    /// manages its descendants).
    OnScreen { ask_count: bool },
}

/// The most children asked one by one of an element whose child list
/// falls short of its child count.
pub const MOST_EMBEDDED: i32 = 16;

/// How the children of `node` are asked, its basics read (from the cache
/// if `cached`); `given` if the walk knows them already.
pub fn children_calls(node: &RawNode, cached: bool, given: bool) -> ChildrenCalls {
    let (states, count) = (node.states, node.child_count);
    let manages = states.has(st::MANAGES_DESCENDANTS);
    let unknown_count = count == -1 && !manages;
    if given {
        ChildrenCalls::Given
    } else if cached && manages {
        ChildrenCalls::OnScreen { ask_count: true }
    } else if count == 0 {
        ChildrenCalls::None
    } else if unknown_count || visible::walkable(states, count) {
        ChildrenCalls::List
    } else {
        ChildrenCalls::OnScreen { ask_count: false }
    }
}

/// The children of the cache's elements that a read knows before it walks:
/// from the cache's own places where they add up ([`children_from_cache`],
/// if the plan says the cache places them), and which other cached
/// elements have their children asked, all at once, before the walk needs
/// them (elements the cache keeps after they left the tree cost a call each).
pub fn children_before_walk(
    plan: &ReadPlan,
    bus_name: &str,
    cache: &CacheItems,
) -> (HashMap<String, Vec<ObjRef>>, Vec<String>) {
    let known = if plan.cache_places_children {
        children_from_cache(bus_name, cache)
    } else {
        HashMap::new()
    };
    let asked = cache
        .iter()
        .filter(|(path, c)| {
            (c.child_count != 0 || roles::is_plain_container(c.role))
                && visible::walkable(c.states, c.child_count)
                && !known.contains_key(*path)
        })
        .map(|(path, _)| path.clone())
        .collect();
    (known, asked)
}

/// The children of cached elements as the cache itself gives them (each
/// item names its parent and its place there), for the elements where that
/// agrees with the element's own child count: one child at every place, no
/// place left empty. GTK 3's cache also keeps elements that left the tree;
/// they no longer sit at a place of a live parent, so their old parent's
/// children do not add up and are asked.
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
        if !in_place(&kids, item) {
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

/// Whether `kids`, sorted by place, are one child at every place of `item`.
fn in_place(kids: &[(i32, &str)], item: &CachedItem) -> bool {
    kids.len() == item.child_count as usize
        && kids
            .iter()
            .enumerate()
            .all(|(at, (index, _))| *index == at as i32)
}

/// Whether a kept cache answer may serve reads of this app at all.
pub fn may_keep_cache(profile: &Profile, registration_known: bool, listening: bool) -> bool {
    let announces = match profile.cache_kept {
        CacheKept::Never => false,
        CacheKept::UntilEvent => true,
        CacheKept::UntilEventOnceRegistered => registration_known,
    };
    announces && listening
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::{AppRef, Toolkit};
    use crate::states::StateSet;

    fn profile(name: &str, toolkit_name: &str, toolkit: Toolkit) -> Profile {
        Profile::of(&AppRef {
            bus: ":1.1".into(),
            pid: 1,
            name: name.into(),
            toolkit,
            toolkit_name: toolkit_name.into(),
        })
    }

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
            accessible_id: Default::default(),
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

    #[test]
    fn a_kept_answer_serves_only_apps_that_announce_their_changes() {
        let kept = Some(Arc::new(CacheItems::new()));
        let qt = profile("okular", "Qt", Toolkit::Other);
        assert!(
            !may_keep_cache(&qt, true, true),
            "Qt's views sort unannounced"
        );
        let gtk3 = profile("gtk3-widget-factory", "gtk", Toolkit::Other);
        assert!(
            !may_keep_cache(&gtk3, false, true),
            "not before the bridge knows"
        );
        assert!(may_keep_cache(&gtk3, true, true));
        assert!(!may_keep_cache(&gtk3, true, false), "nor once events stop");
        let gtk4 = profile("gnome-calculator", "gtk", Toolkit::Gtk4);
        assert!(may_keep_cache(&gtk4, false, true));
        let moment = |announces| Moment {
            kept: kept.clone(),
            announces,
            ..Moment::default()
        };
        assert!(matches!(
            plan(&gtk4, Asked::Window, moment(true)).cache,
            CachePlan::Kept(_)
        ));
        assert!(matches!(
            plan(&gtk4, Asked::Window, moment(false)).cache,
            CachePlan::Ask { keep: false, .. }
        ));
        let acting = Moment {
            announces: true,
            awaiting_action: true,
            ..Moment::default()
        };
        assert!(
            matches!(
                plan(&gtk4, Asked::Window, acting).cache,
                CachePlan::Ask { keep: false, .. }
            ),
            "nothing kept while an action's effect is awaited"
        );
        assert!(matches!(
            plan(&gtk4, Asked::Subtree { with_cache: true }, moment(true)).cache,
            CachePlan::Ask { keep: false, .. }
        ));
        assert!(matches!(
            plan(&gtk4, Asked::Element, moment(true)).cache,
            CachePlan::None
        ));
    }

    #[test]
    fn boxes_are_kept_for_gtk3_alone_and_taken_with_the_kept_cache_answer() {
        let kept_boxes = Some(Arc::new(KeptBoxes::default()));
        let quiet = |kept: Option<Arc<CacheItems>>| Moment {
            kept,
            announces: true,
            kept_boxes: kept_boxes.clone(),
            ..Moment::default()
        };
        let answer = Some(Arc::new(CacheItems::new()));
        let gtk3 = profile("gtk3-widget-factory", "gtk", Toolkit::Other);
        let whole = plan(&gtk3, Asked::Window, quiet(answer.clone()));
        assert!(whole.keep_boxes && whole.boxes.is_some());
        let fresh = plan(&gtk3, Asked::Window, quiet(None));
        assert!(
            fresh.keep_boxes && fresh.boxes.is_none(),
            "a cache asked afresh: every box asked"
        );
        let lean = plan(&gtk3, Asked::Candidates, quiet(answer.clone()));
        assert!(!lean.keep_boxes && lean.boxes.is_none());
        let acting = Moment {
            awaiting_action: true,
            ..quiet(answer.clone())
        };
        let whole = plan(&gtk3, Asked::Window, acting);
        assert!(!whole.keep_boxes && whole.boxes.is_none());
        for other in [
            profile("gnome-calculator", "gtk", Toolkit::Gtk4),
            profile("soffice", "gtk", Toolkit::Other),
            profile("gimp-2.10", "GAIL", Toolkit::Other),
            profile("kcalc", "Qt", Toolkit::Other),
        ] {
            assert!(!other.boxes_kept);
            let whole = plan(&other, Asked::Window, quiet(answer.clone()));
            assert!(!whole.keep_boxes && whole.boxes.is_none());
        }
    }

    #[test]
    fn a_locator_reads_lean_behind_gtks_bridge_unless_a_popover_shows() {
        let gtk3 = profile("gtk3-widget-factory", "gtk", Toolkit::Other);
        let lean = plan(&gtk3, Asked::Candidates, Moment::default());
        assert!(matches!(lean.fields, FieldsPlan::OfCandidates { .. }));
        let popover = Moment {
            popover: true,
            ..Moment::default()
        };
        let whole = plan(&gtk3, Asked::Candidates, popover);
        assert!(matches!(whole.fields, FieldsPlan::AfterWalk));
        let qt = profile("kcalc", "Qt", Toolkit::Other);
        let whole = plan(&qt, Asked::Candidates, Moment::default());
        assert!(matches!(whole.fields, FieldsPlan::AfterWalk));
        let gtk4 = profile("gtk4-demo", "gtk", Toolkit::Gtk4);
        assert_eq!(
            plan(&gtk4, Asked::Candidates, Moment::default())
                .rules
                .actions,
            ActionsRead::BesideBox,
            "a few candidates: actions beside the box"
        );
        assert_eq!(
            plan(&gtk4, Asked::Element, Moment::default()).rules.actions,
            ActionsRead::All,
            "one element alone: its actions even when hidden"
        );
    }

    #[test]
    fn an_elements_calls_follow_its_role_interfaces_and_states() {
        let gtk3 = profile("gtk3-widget-factory", "gtk", Toolkit::Other).fields;
        let field = RawNode {
            role: 79, // entry
            ifaces: Ifaces::from_names(&[
                "org.a11y.atspi.Component",
                "org.a11y.atspi.Text",
                "org.a11y.atspi.EditableText",
                "org.a11y.atspi.Action",
            ]),
            states: StateSet(1 << st::SHOWING),
            ..RawNode::default()
        };
        let calls = field_calls(&field, true, gtk3, true);
        assert_eq!(calls.extents, Extents::Ask);
        assert_eq!(
            calls.text,
            Some(TextCalls {
                selection: true,
                caret: true
            })
        );
        assert!(calls.relations && calls.attributes && calls.id && !calls.value);
        let kept = RawNode {
            id_slot: Some(Arc::new(std::sync::OnceLock::from("town".to_string()))),
            ..field.clone()
        };
        assert!(
            !field_calls(&kept, true, gtk3, true).id,
            "an id kept with the cache answer is not asked again"
        );
        assert_eq!(calls.actions.when, ActionsWhen::Now);
        let hidden = RawNode {
            states: StateSet::default(),
            ..field.clone()
        };
        let calls = field_calls(&hidden, true, gtk3, true);
        assert_eq!(
            calls.extents,
            Extents::No,
            "GTK 3 answers no box unless shown"
        );
        assert_eq!(calls.actions.when, ActionsWhen::Later);
        let gtk4 = profile("gtk4-demo", "gtk", Toolkit::Gtk4).fields;
        let shown = RawNode {
            states: StateSet(1 << st::VISIBLE),
            ..field
        };
        assert_eq!(
            field_calls(&shown, true, gtk4, true).extents,
            Extents::UnlessInsideEmpty
        );
        assert_eq!(field_calls(&shown, true, gtk4, false).extents, Extents::Ask);
    }

    #[test]
    fn web_elements_are_asked_their_attributes_and_fields_their_placeholder() {
        let firefox = profile("Firefox", "Gecko", Toolkit::Other).fields;
        let button = RawNode {
            role: 43, // push button
            name: "Send".into(),
            ..RawNode::default()
        };
        let calls = field_calls(&button, true, firefox, false);
        assert!(
            calls.attributes && !calls.id,
            "a page's id, class and tag are attributes; its accessible ids are empty"
        );
        let gtk3 = profile("gtk3-widget-factory", "gtk", Toolkit::Other).fields;
        assert!(!field_calls(&button, true, gtk3, false).attributes);
        let named_field = RawNode {
            role: 79, // entry
            name: "Postcode".into(),
            ifaces: Ifaces::from_names(&["org.a11y.atspi.EditableText"]),
            ..RawNode::default()
        };
        assert!(
            field_calls(&named_field, true, gtk3, false).attributes,
            "a field's placeholder is read beside its name"
        );
    }

    #[test]
    fn views_show_only_their_children_on_screen() {
        let node = |states: StateSet, child_count| RawNode {
            states,
            child_count,
            ..RawNode::default()
        };
        let manages = StateSet(1 << st::MANAGES_DESCENDANTS);
        assert_eq!(
            children_calls(&node(manages, 0), true, false),
            ChildrenCalls::OnScreen { ask_count: true },
            "GTK 3's cache counts a tree view's rows as none"
        );
        assert_eq!(
            children_calls(&node(manages, 40), false, false),
            ChildrenCalls::OnScreen { ask_count: false }
        );
        let plain = StateSet::default();
        assert_eq!(
            children_calls(&node(plain, 3), true, true),
            ChildrenCalls::Given
        );
        assert_eq!(
            children_calls(&node(plain, 0), false, false),
            ChildrenCalls::None
        );
        assert_eq!(
            children_calls(&node(plain, -1), false, false),
            ChildrenCalls::List
        );
        assert_eq!(
            children_calls(&node(plain, i32::MAX), false, false),
            ChildrenCalls::OnScreen { ask_count: false }
        );
    }
}
