//! The read executor: makes the calls the planner decided ([`crate::plan`]),
//! every one through the app's gate ([`crate::gate`]), and keeps what the
//! read leaves for the next ([`crate::kept`]).
//!
//! Every read runs the same steps, each as its plan says:
//!
//! 1. **The window**: the app root's children, beside the app's cache (or
//!    the answer kept from an earlier read, once a round trip proves no
//!    event is on its way) and the children asked early; the windows from
//!    the cache where it holds them, else asked.
//! 2. **The walk**: `GetChildren` level by level from the window, each
//!    element's basics from the cache where it has them, its children as
//!    [`crate::plan::children_calls`] says.
//! 3. **The fields** of each element, as [`crate::plan::field_calls`] says:
//!    while walking (over the fields' own connection), after the walk, or
//!    only for a locator's candidates, taking the answers asked early.
//!
//! A call the app left unanswered fails the read ([`crate::bus::strict`]),
//! so a frozen app never yields a tree with holes that looks complete.

use crate::bus::{self, Link, ObjRef};
use crate::discovery::{
    cached_top_levels, read_top_levels, root_children, top_level_box, AppRef, Toolkit, TopLevel,
    ROOT,
};
use crate::driver::Inner;
use crate::fetch::{self, cache_items, BoxPlace, Boxes, CacheItems, RawNode};
use crate::gate;
use crate::kept::{Changes, KeptBoxes};
use crate::plan::{self, Asked, CachePlan, FieldCalls, FieldRules, FieldsPlan, Moment, ReadPlan};
use crate::profile::{CacheKept, Profile};
use crate::scale::Frame;
use crate::states::st;
use crate::stats;
use crate::tree::{self, id_of, Element};
use futures_util::future::join_all;
use futures_util::stream::{FuturesUnordered, StreamExt};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use uidrive_core::protocol::{CellAtParams, ElementId, Node, Tree, WindowId};
use uidrive_core::{Error, ErrorCode, Result};
use zbus::zvariant::OwnedObjectPath;

/// A window's elements past this many are left out, so a runaway tree can't hang a read.
const MAX_NODES: usize = 20_000;

/// The window a read means, found alongside reading the app's cache.
pub struct ReadWindow {
    pub id: WindowId,
    pub top: TopLevel,
    /// Whether `top.extents` was asked. A window found in the cache was not:
    /// a full read asks the window's box with its fields ([`ReadWindow::window_box`]).
    pub boxed: bool,
    pub cache: Arc<CacheItems>,
    /// The children of the cache's elements known before the walk.
    pub children: HashMap<String, Vec<ObjRef>>,
    /// When the kept cache answer was taken: what had happened, proven
    /// by a round trip to be all that had.
    pub quiet_at: Option<Changes>,
}

impl ReadWindow {
    /// The window's box: as asked, else as the read answered it for the
    /// window's own element (`window`, which asks it in the same
    /// coordinates), else asked now.
    pub async fn window_box(
        &self,
        link: &Link,
        app: &AppRef,
        window: Option<&Element>,
    ) -> (i32, i32, i32, i32) {
        match window.and_then(|w| w.raw.extents) {
            _ if self.boxed => self.top.extents,
            Some(extents) => extents,
            None => top_level_box(link, app, &self.top.obj).await,
        }
    }
}

/// A lean read of a window: its elements with role, name, states and place
/// only, with what makes it a tree, for the fill of a locator's candidates.
pub struct LeanWindow {
    pub id: u64,
    pub top: ObjRef,
    pub frame: Frame,
    pub elements: Vec<Element>,
    /// Whether each element came from the app's cache.
    cached: Vec<bool>,
    /// How the candidates' fields are asked.
    rules: FieldRules,
    /// The fields asked beside the structure, for the fill.
    early: Early,
}

/// Fields asked early, by object: the calls made, and the element with
/// their answers filled in.
#[derive(Default)]
struct Early(HashMap<ObjRef, (FieldCalls, RawNode)>);

impl Early {
    /// The element `node` filled in from the answers asked early, when they
    /// answer the very calls the fill would make now.
    fn take(&mut self, node: &RawNode, calls: &FieldCalls) -> Option<RawNode> {
        let obj = node.obj.as_ref()?;
        let (asked, filled) = self.0.remove(obj)?;
        if asked != *calls {
            return None;
        }
        stats::count("fields asked early");
        Some(fetch::with_fields_of(node.clone(), filled, &asked))
    }
}

impl Inner {
    /// The plan of a read of `asked`, now.
    pub fn plan(&self, asked: Asked) -> ReadPlan {
        plan::plan(&self.profile, asked, self.moment(asked))
    }

    /// What the planner needs to know of this moment.
    fn moment(&self, asked: Asked) -> Moment {
        let keeps = matches!(asked, Asked::Window | Asked::Candidates);
        if !keeps {
            return Moment {
                fields_connection: self.link.fields.is_some(),
                ..Moment::default()
            };
        }
        let registration_known = self.kept.registration_known();
        let announces =
            plan::may_keep_cache(&self.profile, registration_known, self.activity.listening());
        let candidates = asked == Asked::Candidates && self.profile.lean;
        Moment {
            kept: announces.then(|| self.kept.cache(self.changes())).flatten(),
            announces,
            registration_unknown: self.profile.cache_kept == CacheKept::UntilEventOnceRegistered
                && !registration_known,
            awaiting_action: self.activity.awaiting_until(&self.app.bus).is_some(),
            fields_connection: self.link.fields.is_some(),
            popover: candidates && crate::desktop::shows_popover(self),
            kept_boxes: announces.then(|| self.kept.boxes(self.changes())).flatten(),
            children_asked: self.kept.children_asked(),
            last_fills: if candidates {
                self.kept.last_fills()
            } else {
                Vec::new()
            },
        }
    }

    fn changes(&self) -> Changes {
        Changes {
            events: self.activity.events_seen(&self.app.bus),
            actions: self.activity.actions_sent(),
        }
    }

    /// Reads the window's tree as the protocol answers it.
    pub async fn tree(&self, wanted: Option<u64>) -> Result<Tree> {
        let plan = self.plan(Asked::Window);
        gate::through(self.gate.clone(), self.read_tree(plan, wanted)).await
    }

    async fn read_tree(&self, mut plan: ReadPlan, wanted: Option<u64>) -> Result<Tree> {
        let started = std::time::Instant::now();
        let start = (self.changes(), self.activity.bounds_seen(&self.app.bus));
        let (link, app) = (&self.link, &self.app);
        let mut found = bus::strict(self.find_window(&plan, wanted)).await?;
        // Kept boxes hold if nothing happened since the read that asked them
        // began, as the round trip that kept the cache answer proves, but
        // for the elements whose boxes the app announced changed since.
        let moved = match (&plan.boxes, found.quiet_at) {
            (Some(boxes), Some(at)) if boxes.kept_at(at) => self
                .activity
                .bounds_changed_since(&app.bus, boxes.bounds_before()),
            _ => None,
        };
        match moved {
            Some(moved) => plan.boxes_moved = moved,
            None => plan.boxes = None,
        }
        let cache = std::mem::take(&mut found.cache);
        stats::note(|| {
            format!(
                "window found and {} cache items read in {:?}",
                cache.len(),
                started.elapsed()
            )
        });
        let mut elements =
            read_subtree(link, app, &plan, &found.top.obj, &cache, &found.children).await?;
        self.check_cache_answer(&cache, &elements);
        self.place_kept_boxes(&mut elements).await;
        if plan.keep_boxes {
            self.kept
                .keep_boxes(KeptBoxes::of(&elements, &cache, &app.bus, start));
        }
        found.top.extents = found.window_box(link, app, elements.first()).await;
        let (id, top) = (found.id, found.top);
        crate::desktop::place_popovers(self, &top, &mut elements).await;
        self.known.remember(&elements, &top.obj);
        let (nodes, focus) = tree::to_nodes(&elements, app, self.frame_of(&top));
        stats::note(|| format!("tree done in {:?}", started.elapsed()));
        Ok(Tree {
            window: id,
            focus,
            nodes,
            announcements: None,
            extra: Default::default(),
        })
    }

    /// The window's elements with role, name, states and place only, as a
    /// tree, where the plan reads a locator's candidates lean; `None` where
    /// it reads the whole window instead.
    pub async fn lean_tree(&self, wanted: Option<u64>) -> Result<Option<(Tree, LeanWindow)>> {
        let plan = self.plan(Asked::Candidates);
        if !matches!(plan.fields, FieldsPlan::OfCandidates { .. }) {
            return Ok(None);
        }
        let window = gate::through(self.gate.clone(), self.read_lean(plan, wanted)).await?;
        Ok(Some((self.tree_of(&window), window)))
    }

    async fn read_lean(&self, plan: ReadPlan, wanted: Option<u64>) -> Result<LeanWindow> {
        let started = std::time::Instant::now();
        let (link, app) = (&self.link, &self.app);
        let structure = async {
            let mut found = bus::strict(self.find_window(&plan, wanted)).await?;
            let cache = std::mem::take(&mut found.cache);
            stats::note(|| {
                format!(
                    "lean: window found and {} cache items read in {:?}",
                    cache.len(),
                    started.elapsed()
                )
            });
            // A lean read does not ask the window's own box: asked beside it.
            let (walked, extents) = tokio::join!(
                bus::strict(walk(
                    link,
                    app,
                    &plan,
                    &found.top.obj,
                    &cache,
                    &found.children,
                    None
                )),
                found.window_box(link, app, None),
            );
            stats::note(|| format!("lean: structure read at {:?}", started.elapsed()));
            let (walked, _) = walked?;
            Ok::<_, Error>((found, cache, extents, walked))
        };
        // Answers from an app that left any unanswered are not taken: the fill asks again.
        let early = bus::strict(async { Ok(ask_early(link, &plan).await) });
        let (structure, early) = tokio::join!(structure, early);
        let (found, cache, extents, walked) = structure?;
        let (elements, cached) = in_tree_order(walked).into_iter().unzip();
        let mut top = found.top.clone();
        top.extents = extents;
        let window = LeanWindow {
            id: found.id,
            top: found.top.obj.clone(),
            frame: self.frame_of(&top),
            elements,
            cached,
            rules: plan.rules,
            early: early.unwrap_or_default(),
        };
        self.check_cache_answer(&cache, &window.elements);
        Ok(window)
    }

    /// The lean read with every field of the elements `wanted` names read,
    /// taking those asked early with the same calls.
    pub async fn fill_tree(&self, mut window: LeanWindow, wanted: Vec<ElementId>) -> Result<Tree> {
        let wanted: HashSet<ElementId> = wanted.into_iter().collect();
        gate::through(self.gate.clone(), self.fill(&mut window, &wanted)).await?;
        self.known.remember(&window.elements, &window.top);
        Ok(self.tree_of(&window))
    }

    async fn fill(&self, window: &mut LeanWindow, wanted: &HashSet<ElementId>) -> Result<()> {
        let started = std::time::Instant::now();
        let rules = window.rules;
        let named: Vec<(&mut RawNode, bool)> = window
            .elements
            .iter_mut()
            .zip(&window.cached)
            .filter(|(e, _)| wanted.contains(&id_of(&e.raw)))
            .map(|(e, cached)| (&mut e.raw, *cached))
            .collect();
        let named_len = named.len();
        self.kept.remember_fill(
            named
                .iter()
                .map(|(raw, cached)| ((**raw).clone(), *cached))
                .collect(),
        );
        let mut asked = Vec::new();
        for (raw, cached) in named {
            let calls = plan::field_calls(raw, cached, rules, false);
            match window.early.take(raw, &calls) {
                Some(filled) => *raw = filled,
                None => asked.push((raw, calls)),
            }
        }
        self.kept.served_early(named_len - asked.len());
        let link = &self.link;
        bus::strict(async {
            join_all(asked.into_iter().map(|(raw, calls)| async move {
                let fields = fetch::fields(link, raw, &calls, BoxPlace::default());
                gate::fields(fields).await;
            }))
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

    fn tree_of(&self, window: &LeanWindow) -> Tree {
        let (nodes, focus) = tree::to_nodes(&window.elements, &self.app, window.frame);
        Tree {
            window: window.id,
            focus,
            nodes,
            announcements: None,
            extra: Default::default(),
        }
    }

    /// A table's cell by its place (from 1), asked of the table, with the
    /// elements inside it: how a cell of a table too big to read whole is found.
    pub async fn cell_at(&self, params: &CellAtParams) -> Result<Vec<Node>> {
        gate::through(self.gate.clone(), self.read_cell(params)).await
    }

    async fn read_cell(&self, params: &CellAtParams) -> Result<Vec<Node>> {
        let (link, app) = (&self.link, &self.app);
        let (_, top) = crate::windows::resolve(link, app, &self.ids, params.window).await?;
        let table = self.known.get(params.table, &top.obj).ok_or_else(|| {
            Error::new(
                ErrorCode::StaleRef,
                format!("no table {} in the window's last read", params.table),
            )
            .with_suggestion("read the window again (`tree`) and give a table's id from it")
        })?;
        let place = |n: i64| i32::try_from(n - 1).unwrap_or(i32::MAX);
        let (row, col) = (place(params.row), place(params.column));
        let plan = self.plan(Asked::Subtree { with_cache: false });
        // The cell asked for earlier may have gone since (Calc drops the
        // objects of cells that leave the screen): then the table is asked again.
        let mut again = true;
        let mut elements = loop {
            let Some(cell) = crate::visible::cell_at(link, &table, (row, col), plan.views).await?
            else {
                return Ok(Vec::new());
            };
            let no_cache = CacheItems::default();
            let read = read_subtree(link, app, &plan, &cell, &no_cache, &HashMap::new()).await;
            let gone = match &read {
                Ok(elements) => elements
                    .first()
                    .is_none_or(|e| e.raw.states.has(st::DEFUNCT)),
                Err(e) => e.code == ErrorCode::NoElement,
            };
            if gone && again {
                crate::visible::forget_cell(&cell);
                again = false;
                continue;
            }
            break read?;
        };
        // A table too big to read whole scrolls to show any of its cells.
        if let Some(cell) = elements.first_mut() {
            cell.in_scroller = true;
        }
        self.known.remember(&elements, &top.obj);
        let (mut nodes, _) = tree::to_nodes(&elements, app, self.frame_of(&top));
        if let Some(cell) = nodes.first_mut() {
            cell.parent = Some(params.table);
        }
        Ok(nodes)
    }

    /// One element's basics and children, read alone (for an action on an
    /// element an earlier read found).
    pub async fn element_basics(&self, obj: &ObjRef) -> Result<RawNode> {
        let plan = self.plan(Asked::Element);
        gate::through(self.gate.clone(), async {
            let mut node = fetch::basics(&self.link, obj, None, plan.rules.descriptions).await?;
            let calls = plan::children_calls(&node, false, false);
            fetch::children(&self.link, &mut node, calls, None, plan.views).await?;
            Ok(node)
        })
        .await
    }

    /// The fields of one element read alone: its actions even when hidden.
    pub async fn element_fields(&self, node: &mut RawNode) {
        let plan = self.plan(Asked::Element);
        let calls = plan::field_calls(node, false, plan.rules, false);
        let fields = fetch::fields(&self.link, node, &calls, BoxPlace::default());
        gate::through(self.gate.clone(), gate::fields(fields)).await;
    }

    /// The window `wanted` names ([`crate::windows::resolve`]), found
    /// alongside the app's cache as the plan takes it and the children the
    /// plan asks early. When the cache holds the app's windows their role,
    /// states and title come from it: the calls that ask them one by one
    /// would otherwise wait behind the cache's answer in the app, a round
    /// trip after it (0.1–0.45 ms per read on gnome-calculator).
    async fn find_window(&self, plan: &ReadPlan, wanted: Option<WindowId>) -> Result<ReadWindow> {
        let (link, app, ids) = (&self.link, &self.app, &self.ids);
        let children_early = plan.children_early.clone();
        let ((children, cache, quiet_at), early) = tokio::join!(
            self.roots_and_cache(&plan.cache),
            fetch::ask_children(link, &app.bus, children_early)
        );
        let children = children?;
        ids.remember_children(&children);
        let tops = async {
            match cached_top_levels(&children, &cache) {
                Some(tops) => Ok((tops, false)),
                None => Ok((read_top_levels(link, app, children.clone()).await?, true)),
            }
        };
        let (tops, (known, asked)) =
            tokio::join!(tops, known_children(link, plan, &app.bus, &cache, early));
        let (tops, boxed): (Vec<TopLevel>, bool) = tops?;
        self.kept.remember_children_asked(asked);
        let windows = tops.into_iter().map(|t| (ids.id_for(&t.obj), t)).collect();
        let (id, top) = crate::windows::pick(app, windows, wanted)?;
        Ok(ReadWindow {
            id,
            top,
            boxed,
            cache,
            children: known,
            quiet_at,
        })
    }

    /// The app root's children and the app's cache as the plan takes it;
    /// for a kept answer taken, what had happened when it was proven to hold.
    async fn roots_and_cache(
        &self,
        cache: &CachePlan,
    ) -> (Result<Vec<ObjRef>>, Arc<CacheItems>, Option<Changes>) {
        let (link, app) = (&self.link, &self.app);
        match cache {
            CachePlan::None => (root_children(link, app).await, Arc::default(), None),
            CachePlan::Ask { keep, learn } => {
                let (children, items) =
                    tokio::join!(root_children(link, app), self.ask_cache(*keep, *learn));
                (children, items, None)
            }
            CachePlan::Kept(items) => {
                let (before, root) = (self.changes(), self.root());
                let (children, quiet) = tokio::join!(
                    root_children(link, app),
                    self.quiet_since(&root, before.events)
                );
                if quiet.unwrap_or(false) {
                    self.kept.served_from_cache();
                    stats::count("GetItems kept");
                    return (children, items.clone(), Some(before));
                }
                (children, self.ask_cache(true, false).await, None)
            }
        }
    }

    /// Places the boxes a read took from kept boxes at the window's corner
    /// as the read found it (the window may have moved); asks them where
    /// the window's own box was not read.
    async fn place_kept_boxes(&self, elements: &mut [Element]) {
        let kept = elements.iter().filter(|e| e.raw.box_kept).count();
        if kept == 0 {
            return;
        }
        self.kept.served_boxes(kept);
        stats::note(|| format!("{kept} boxes kept"));
        if let Some((x0, y0, _, _)) = elements.first().and_then(|w| w.raw.extents) {
            for e in elements.iter_mut().filter(|e| e.raw.box_kept) {
                e.raw.extents = e.raw.extents.map(|(x, y, w, h)| (x + x0, y + y0, w, h));
            }
            return;
        }
        let coords = self.profile.fields.coords;
        let asked = elements
            .iter_mut()
            .filter(|e| e.raw.box_kept)
            .map(|e| async move {
                e.raw.box_kept = false;
                e.raw.extents = match &e.raw.obj {
                    Some(obj) => {
                        let (conn, dest) = self.link.route_fields(&obj.0);
                        bus::get_extents(conn, dest, obj.1.as_str(), coords)
                            .await
                            .ok()
                    }
                    None => None,
                };
            });
        join_all(asked).await;
    }

    /// Asks the app's cache; keeps the answer for later reads if `keep`;
    /// with `learn`, a round trip over the bus beside it tells whether
    /// GTK's bridge knows by now that this driver listens.
    async fn ask_cache(&self, keep: bool, learn: bool) -> Arc<CacheItems> {
        let before = self.changes();
        let items = cache_items(&self.link, &self.app.bus);
        let items = if learn {
            let root = self.root();
            let (items, told) = tokio::join!(items, self.quiet_since(&root, before.events));
            if told.is_ok() {
                self.kept.learnt_registration();
            }
            items
        } else {
            items.await
        };
        let mut items = items;
        if self.profile.fields.ids {
            self.kept.carry_ids(&mut items);
        }
        let items = Arc::new(items);
        if keep && !items.is_empty() {
            self.kept.keep_cache(items.clone(), before);
        }
        items
    }

    /// After a read with the cache answer `items` (see [`crate::kept::Kept::check_cache`]).
    fn check_cache_answer(&self, items: &Arc<CacheItems>, elements: &[Element]) {
        if self.app.toolkit.announces_every_change() {
            self.kept.check_cache(items, &self.app.bus, elements);
        }
    }

    /// The app's root object: a cheap call on it is a round trip.
    fn root(&self) -> ObjRef {
        let path = ROOT.try_into().expect("a valid object path");
        (self.app.bus.clone(), path)
    }
}

/// The window's elements, a parent before its children, in the app's order,
/// with the app's cache asked afresh and nothing kept (for an action that
/// finds its element by key, and a menu's steps).
pub async fn read_elements(link: &Link, app: &AppRef, window: &ObjRef) -> Result<Vec<Element>> {
    let profile = Profile::of(app);
    let moment = Moment {
        fields_connection: link.fields.is_some(),
        ..Moment::default()
    };
    let plan = plan::plan(&profile, Asked::Subtree { with_cache: true }, moment);
    let gate = gate::of_app(app.pid, &app.bus, profile.in_flight);
    gate::through(gate, async {
        let cache = cache_items(link, &app.bus).await;
        let (children, _) = known_children(link, &plan, &app.bus, &cache, HashMap::new()).await;
        read_subtree(link, app, &plan, window, &cache, &children).await
    })
    .await
}

/// The children of the cache's elements known before the walk
/// ([`plan::children_before_walk`]): those `early` holds (asked beside the
/// cache), the others asked now, all at once. Also answers which elements'
/// children had to be asked.
async fn known_children(
    link: &Link,
    plan: &ReadPlan,
    bus_name: &str,
    cache: &CacheItems,
    mut early: HashMap<String, Vec<ObjRef>>,
) -> (HashMap<String, Vec<ObjRef>>, Vec<String>) {
    let (mut known, asked) = plan::children_before_walk(plan, bus_name, cache);
    let from_cache = known.len();
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
    known.extend(fetch::ask_children(link, bus_name, missing).await);
    stats::note(|| {
        format!(
            "children of {} cached elements: {from_cache} from the cache itself, {early_used} asked beside it",
            known.len()
        )
    });
    (known, asked)
}

/// The elements from `top` down with every field, as the plan asks them:
/// while walking where the fields have their own connection, else after.
async fn read_subtree(
    link: &Link,
    app: &AppRef,
    plan: &ReadPlan,
    top: &ObjRef,
    cache: &CacheItems,
    children: &HashMap<String, Vec<ObjRef>>,
) -> Result<Vec<Element>> {
    bus::strict(async {
        let started = std::time::Instant::now();
        let boxes = Boxes::default();
        let walked =
            match plan.fields {
                FieldsPlan::WhileWalking => {
                    walk(link, app, plan, top, cache, children, Some(&boxes))
                        .await?
                        .0
                }
                _ => {
                    let (mut walked, moved) =
                        walk(link, app, plan, top, cache, children, None).await?;
                    stats::note(|| format!("structure read at {:?}", started.elapsed()));
                    let boxes = &boxes;
                    join_all(walked.iter_mut().enumerate().map(
                        |(me, (parent, _, node, cached))| {
                            let (calls, kept) =
                                calls_of(plan, node, *cached, parent.is_none(), moved[me]);
                            let place = boxes.place(me, *parent);
                            async move {
                                gate::fields(fetch::fields(link, node, &calls, place)).await;
                                take_kept_box(node, kept);
                            }
                        },
                    ))
                    .await;
                    walked
                }
            };
        stats::note(|| format!("structure and fields read in {:?}", started.elapsed()));
        stats::print_calls();
        Ok(in_tree_order(walked).into_iter().map(|(e, _)| e).collect())
    })
    .await
}

/// One element as the walk found it: its parent's index in the walk, its
/// position among its siblings, the element, and whether the cache gave it.
type Walked = (Option<usize>, usize, RawNode, bool);

/// Walks the window's structure: each element's basics and children, those
/// of cached elements as `given` holds them. With `fields_while`, each
/// element's fields are asked as soon as it is found, all in flight at
/// once (over their own connection, [`Link::fields`]). Also gives, for
/// each element walked, whether its box may have moved ([`box_moved`]).
async fn walk(
    link: &Link,
    app: &AppRef,
    plan: &ReadPlan,
    window: &ObjRef,
    cache: &CacheItems,
    given: &HashMap<String, Vec<ObjRef>>,
    fields_while: Option<&Boxes>,
) -> Result<(Vec<Walked>, Vec<bool>)> {
    stats::note(|| {
        format!(
            "cache: {} items; peer connection: {}",
            cache.len(),
            link.peer.is_some()
        )
    });
    let mut read: Vec<Walked> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut pending = FuturesUnordered::new();
    let find = |obj: ObjRef, parent: Option<usize>, position: usize| {
        let cached = if obj.0 == app.bus {
            cache.get(obj.1.as_str())
        } else {
            None
        };
        let known = cached.and_then(|_| given.get(obj.1.as_str()));
        async move {
            let node = async {
                let descriptions = plan.rules.descriptions;
                let mut node = match fetch::basics(link, &obj, cached, descriptions).await {
                    // A cell kept by its place whose object went (Calc drops
                    // its cells' objects when a dialog over the sheet
                    // closes): its table is asked for the cell there now.
                    Err(e) if e.code == ErrorCode::NoElement => {
                        match crate::visible::ask_again(link, &obj).await {
                            Some(again) => fetch::basics(link, &again, None, descriptions).await?,
                            None => return Err(e),
                        }
                    }
                    read => read?,
                };
                let calls = plan::children_calls(&node, cached.is_some(), known.is_some());
                fetch::children(link, &mut node, calls, known, plan.views).await?;
                Ok::<_, Error>(node)
            };
            (
                parent,
                position,
                node.await.map_err(|e| (e, obj)),
                cached.is_some(),
            )
        }
    };
    seen.insert(window.1.as_str().to_string());
    pending.push(find(window.clone(), None, 0));
    let mut filling = FuturesUnordered::new();
    // Whether each element's box, or an ancestor's, was announced changed.
    let mut moved: Vec<bool> = Vec::new();
    loop {
        let (parent, position, node, cached) = tokio::select! {
            biased;
            Some(found) = pending.next() => found,
            Some(filled) = filling.next() => {
                let (me, node): (usize, RawNode) = filled;
                read[me].2 = node;
                continue;
            }
            else => break,
        };
        let mut node = match node {
            Ok(node) => node,
            // An element that went away while the window was read is not in
            // it (nor kept for the next read, if it was a cell kept by place).
            Err((e, obj)) if parent.is_some() && e.code == ErrorCode::NoElement => {
                crate::visible::forget_cell(&obj);
                continue;
            }
            Err((e, _)) => return Err(e),
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
                pending.push(find(child.clone(), Some(me), at));
            }
        }
        moved.push(box_moved(plan, &node, parent.map(|p| moved[p])));
        match fields_while {
            Some(boxes) => {
                read.push((parent, position, RawNode::default(), cached));
                let (calls, kept) = calls_of(plan, &node, cached, parent.is_none(), moved[me]);
                let place = boxes.place(me, parent);
                filling.push(async move {
                    gate::fields(fetch::fields(link, &mut node, &calls, place)).await;
                    take_kept_box(&mut node, kept);
                    (me, node)
                });
            }
            None => read.push((parent, position, node, cached)),
        }
    }
    Ok((read, moved))
}

/// The calls for the fields of an element a whole read walked, and the
/// box kept for it, which is then not asked (never the window's own: the
/// kept boxes are placed from its corner).
fn calls_of(
    plan: &ReadPlan,
    node: &RawNode,
    cached: bool,
    window: bool,
    moved: bool,
) -> (FieldCalls, Option<(i32, i32, i32, i32)>) {
    let mut calls = plan::field_calls(node, cached, plan.rules, true);
    let kept = if window || moved || calls.extents == plan::Extents::No {
        None
    } else {
        plan::kept_box(plan, node)
    };
    if kept.is_some() {
        calls.extents = plan::Extents::No;
    }
    (calls, kept)
}

/// Whether `node`'s box may have changed since the kept boxes were asked:
/// the app announced its box changed, or an ancestor's (`parent_moved`).
fn box_moved(plan: &ReadPlan, node: &RawNode, parent_moved: Option<bool>) -> bool {
    parent_moved == Some(true)
        || node
            .obj
            .as_ref()
            .is_some_and(|obj| plan.boxes_moved.contains(obj.1.as_str()))
}

/// Gives `node` the box kept for it, from its window's corner, once its
/// other fields are read.
fn take_kept_box(node: &mut RawNode, kept: Option<(i32, i32, i32, i32)>) {
    if let Some(kept) = kept {
        node.extents = Some(kept);
        node.box_kept = true;
    }
}

/// The fields of the elements the last two fills named, asked as the fill
/// would ask them now, beside a lean read's structure.
async fn ask_early(link: &Link, plan: &ReadPlan) -> Early {
    let FieldsPlan::OfCandidates { early } = &plan.fields else {
        return Early::default();
    };
    let asked = early.iter().cloned().map(|(mut node, cached)| async move {
        let calls = plan::field_calls(&node, cached, plan.rules, false);
        gate::fields(fetch::fields(link, &mut node, &calls, BoxPlace::default())).await;
        Some((node.obj.clone()?, (calls, node)))
    });
    Early(join_all(asked).await.into_iter().flatten().collect())
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

/// Orders the elements depth first, each parent before its children, siblings as the app lists them.
/// Each element keeps whether the cache gave it.
fn in_tree_order(read: Vec<Walked>) -> Vec<(Element, bool)> {
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
    let mut slots: Vec<Option<(RawNode, bool)>> =
        read.into_iter().map(|(_, _, n, c)| Some((n, c))).collect();
    let mut out = Vec::with_capacity(slots.len());
    // (index in `read`, parent's index in `out`, inside a scroller)
    let mut stack: Vec<(usize, Option<usize>, bool)> =
        roots.into_iter().rev().map(|r| (r, None, false)).collect();
    while let Some((index, parent, in_scroller)) = stack.pop() {
        let Some((raw, cached)) = slots[index].take() else {
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
            cached,
        ));
        for &(_, child) in children[index].iter().rev() {
            stack.push((child, Some(me), scroller_here));
        }
    }
    out
}
