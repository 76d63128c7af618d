//! What one read of an app keeps for the next: the app's cache answer,
//! while the app announces no change, and two guesses of what the next
//! read will ask (the planner, [`crate::plan`], decides what to do with them).
//!
//! **The cache answer.** GTK's apps answer `Cache.GetItems` with the whole
//! cache, on the path of every read: 1–2 ms of a 12 ms read of
//! gnome-calculator, 8–12 ms of a 30 ms read of gtk4-demo, about 2 ms of
//! gtk3-widget-factory's. They also send an event for every change to what
//! that answer holds (children, name, description, states): GTK 4 whether
//! or not anyone listens, GTK's bridge (GTK 3, LibreOffice) for the events
//! a client registered for, which this driver did when it connected. So
//! while the app has sent no event since an answer was asked, and a round
//! trip over the bus proves none is on its way, the answer still holds and
//! the next read takes it. GTK's bridge learns of a registration from the
//! registry's signal, which the registry sends before it answers the
//! registration: a call over the bus made after that answer reaches the
//! app behind the signal. So an answer from the bridge is kept only once
//! such a round trip has been answered before it was asked.
//!
//! Any event of the app drops the kept answer, whatever element it is
//! about, and so does any action the driver sends; no answer is kept while
//! an action's effect is still awaited. Nothing is kept for a time, and an
//! app whose toolkit does not announce its changes has none kept
//! ([`crate::profile::CacheKept`]).
//!
//! **Boxes.** Most of the time a GTK 3 app spends on a read goes to the
//! boxes: each `GetExtents` asks the X server where the widget's window is
//! (about half the app's answer time for gtk3-widget-factory). GTK 3's
//! bridge announces each new allocation of a widget (`BoundsChanged`) to a
//! client that registered for it, which this driver does for such apps. So
//! a whole read keeps the boxes it asked of the cache's elements, each from
//! its window's corner, and the next whole read that takes the kept cache
//! answer (nothing happened since the earlier read began, proven by the
//! same round trip) takes them too: the window's own box is asked, and
//! places them. An element whose box the app announced changed since, and
//! everything inside it (a container that moves its own window, as a
//! stack's page as it slides, announces only its own box), is asked again.
//! Scrolling moves what a view holds without a new allocation; the
//! scroll bars announce their new values, an event, which drops all.
//!
//! **Accessible ids** are not in the cache answer: GTK 3's bridge answers
//! each element's only when asked, one call per element. The ids a read
//! asked are kept in the answer's items and carried into the next answer
//! by object path ([`Kept::carry_ids`]), so each object is asked once.
//!
//! **The guesses** are not answers: they name what to ask early, and what
//! is asked early is asked during the read that takes it. The cached
//! elements whose children the last read had to ask (those the cache's
//! places do not give) are asked again beside the cache; the elements the
//! last two fills of a locator's read named are asked their fields beside
//! the structure (an `expect` after a click reads the element the click
//! just found, and a test that alternates two locators reads two sets by
//! turns).

use crate::fetch::{CacheItems, IdSlot, RawNode};
use crate::plan::MOST_GUESSED;
use crate::tree::Element;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// What reads of one app keep for the next.
#[derive(Default)]
pub struct Kept {
    cache: Mutex<Option<KeptCache>>,
    /// The boxes the last whole read asked, for apps that announce every
    /// change of a box ([`crate::profile::Profile::boxes_kept`]).
    boxes: Mutex<Option<Arc<KeptBoxes>>>,
    /// How many boxes kept boxes gave.
    boxes_served: AtomicU64,
    /// How many reads a kept cache answer served.
    cache_served: AtomicU64,
    /// Whether a round trip over the bus, made after this driver registered
    /// for events, has been answered: GTK's bridge then sends them.
    registration_known: AtomicBool,
    /// The cached elements whose children the last read had to ask.
    children_asked: Mutex<Vec<String>>,
    /// The elements the last two fills named, as the walk gave them, and
    /// whether each came from the cache; the last fill's first.
    fills: Mutex<[Vec<(RawNode, bool)>; 2]>,
    /// How many elements took fields asked early.
    fields_served: AtomicU64,
    /// The accessible ids of the last cache answer's elements, by path.
    ids: Mutex<HashMap<String, IdSlot>>,
}

struct KeptCache {
    items: Arc<CacheItems>,
    /// What had happened when the answer was asked.
    before: Changes,
}

/// How many events the app sent and how many actions the driver sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Changes {
    pub events: u64,
    pub actions: u64,
}

/// The boxes a whole read asked of the elements of the app's cache, each
/// from its window's top-left corner, by object path.
#[derive(Debug, Default)]
pub struct KeptBoxes {
    pub boxes: HashMap<String, (i32, i32, i32, i32)>,
    /// What had happened when the read that asked them began, and how
    /// many boxes the app had announced changed.
    before: Option<(Changes, u64)>,
}

impl KeptBoxes {
    /// The boxes of `elements` below the window (the first), from its
    /// corner: those of the cache's elements that have one.
    pub fn of(
        elements: &[Element],
        cache: &CacheItems,
        bus_name: &str,
        before: (Changes, u64),
    ) -> Self {
        let Some((x0, y0, _, _)) = elements.first().and_then(|w| w.raw.extents) else {
            return KeptBoxes::default();
        };
        let boxes = elements
            .iter()
            .skip(1)
            .filter_map(|e| {
                let obj = e.raw.obj.as_ref()?;
                let (x, y, w, h) = e.raw.extents?;
                (obj.0 == bus_name && cache.contains_key(obj.1.as_str()))
                    .then(|| (obj.1.as_str().to_string(), (x - x0, y - y0, w, h)))
            })
            .collect();
        KeptBoxes {
            boxes,
            before: Some(before),
        }
    }

    /// Whether these boxes were asked by a read begun when `at` had happened.
    pub fn kept_at(&self, at: Changes) -> bool {
        self.before.is_some_and(|(changes, _)| changes == at)
    }

    /// How many boxes the app had announced changed when the read that
    /// asked these began: those it announced since are asked again.
    pub fn bounds_before(&self) -> u64 {
        self.before.map_or(0, |(_, bounds)| bounds)
    }

    /// The box kept of the element at `path`, from its window's corner.
    pub fn of_path(&self, path: &str) -> Option<(i32, i32, i32, i32)> {
        self.boxes.get(path).copied()
    }
}

impl Kept {
    /// The kept cache answer, if nothing happened since it was asked
    /// (`now` is what has happened so far); a round trip must still prove
    /// no event is on its way.
    pub fn cache(&self, now: Changes) -> Option<Arc<CacheItems>> {
        let kept = self.cache.lock().unwrap();
        kept.as_ref()
            .filter(|k| k.before == now)
            .map(|k| k.items.clone())
    }

    /// Keeps a cache answer asked after `before`.
    pub fn keep_cache(&self, items: Arc<CacheItems>, before: Changes) {
        *self.cache.lock().unwrap() = Some(KeptCache { items, before });
    }

    /// The boxes the last whole read kept, if nothing happened since that
    /// read began (`now` is what has happened so far); a round trip must
    /// still prove no event is on its way.
    pub fn boxes(&self, now: Changes) -> Option<Arc<KeptBoxes>> {
        let kept = self.boxes.lock().unwrap();
        kept.as_ref().filter(|k| k.kept_at(now)).cloned()
    }

    pub fn keep_boxes(&self, boxes: KeptBoxes) {
        *self.boxes.lock().unwrap() = Some(Arc::new(boxes));
    }

    /// Counts `boxes` taken from kept boxes.
    pub fn served_boxes(&self, boxes: usize) {
        self.boxes_served.fetch_add(boxes as u64, Ordering::Relaxed);
    }

    /// How many boxes kept boxes gave so far.
    pub fn boxes_served(&self) -> u64 {
        self.boxes_served.load(Ordering::Relaxed)
    }

    /// Gives the elements of a new cache answer the accessible ids asked of
    /// the same objects in earlier answers, and keeps the new answer's for
    /// the next. GTK's bridge names an object by a number it gives no
    /// other object while the app runs, and an app sets an element's id
    /// when it makes it; so an object is asked its id once, and an event
    /// (which drops a kept answer) costs no call per element.
    pub fn carry_ids(&self, items: &mut CacheItems) {
        let mut ids = self.ids.lock().unwrap();
        let mut next = HashMap::with_capacity(items.len());
        for (path, item) in items.iter_mut() {
            if let Some(slot) = ids.remove(path) {
                item.accessible_id = slot;
            }
            next.insert(path.clone(), item.accessible_id.clone());
        }
        *ids = next;
    }

    /// Drops `items` if it is the kept answer.
    pub fn drop_cache(&self, items: &Arc<CacheItems>) {
        let mut kept = self.cache.lock().unwrap();
        if kept.as_ref().is_some_and(|k| Arc::ptr_eq(&k.items, items)) {
            *kept = None;
        }
    }

    /// After a read with the cache answer `items`, of an app that adds
    /// elements to its cache as reads first reach them (GTK 4): an answer
    /// that lacks an element the read reached is not kept, so the next read
    /// asks a fresh one that holds it and spares the calls that asked it.
    /// (GTK's bridge adds only the elements the app announces, and never a
    /// table's cells, so a fresh answer from it holds no more.)
    pub fn check_cache(&self, items: &Arc<CacheItems>, bus_name: &str, elements: &[Element]) {
        let lacks = |e: &Element| {
            e.raw
                .obj
                .as_ref()
                .is_some_and(|o| o.0 == bus_name && !items.contains_key(o.1.as_str()))
        };
        if elements.iter().any(lacks) {
            self.drop_cache(items);
        }
    }

    pub fn served_from_cache(&self) {
        self.cache_served.fetch_add(1, Ordering::Relaxed);
    }

    /// How many reads a kept cache answer served so far.
    pub fn reads_served(&self) -> u64 {
        self.cache_served.load(Ordering::Relaxed)
    }

    pub fn registration_known(&self) -> bool {
        self.registration_known.load(Ordering::Relaxed)
    }

    pub fn learnt_registration(&self) {
        self.registration_known.store(true, Ordering::Relaxed);
    }

    /// The cached elements whose children the last read had to ask.
    pub fn children_asked(&self) -> Vec<String> {
        self.children_asked.lock().unwrap().clone()
    }

    pub fn remember_children_asked(&self, paths: Vec<String>) {
        *self.children_asked.lock().unwrap() = paths;
    }

    /// Remembers the elements a fill named, as the walk gave them: none of
    /// a fill of more than [`MOST_GUESSED`].
    pub fn remember_fill(&self, mut elements: Vec<(RawNode, bool)>) {
        if elements.len() > MOST_GUESSED {
            elements.clear();
        }
        let mut last = self.fills.lock().unwrap();
        last[1] = std::mem::replace(&mut last[0], elements);
    }

    /// The elements the last two fills named, each once, as the later fill named it.
    pub fn last_fills(&self) -> Vec<(RawNode, bool)> {
        let mut seen = HashSet::new();
        self.fills
            .lock()
            .unwrap()
            .iter()
            .flatten()
            .filter(|(node, _)| {
                node.obj
                    .as_ref()
                    .is_some_and(|obj| seen.insert(obj.clone()))
            })
            .cloned()
            .collect()
    }

    /// Counts `elements` that took fields asked early.
    pub fn served_early(&self, elements: usize) {
        self.fields_served
            .fetch_add(elements as u64, Ordering::Relaxed);
    }

    /// How many elements took fields asked early so far.
    pub fn fields_served(&self) -> u64 {
        self.fields_served.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::ROOT;
    use crate::fetch::CachedItem;

    fn items(n: usize) -> Arc<CacheItems> {
        let item = |index| CachedItem {
            parent: ROOT.into(),
            index,
            role: 0,
            name: String::new(),
            description: String::new(),
            child_count: 0,
            ifaces: Default::default(),
            states: Default::default(),
            accessible_id: Default::default(),
        };
        Arc::new(
            (0..n)
                .map(|i| (format!("/o/{i}"), item(i as i32)))
                .collect(),
        )
    }

    fn seen(events: u64, actions: u64) -> Changes {
        Changes { events, actions }
    }

    #[test]
    fn an_answer_serves_until_an_event_or_an_action() {
        let kept = Kept::default();
        let usable = |events, actions| kept.cache(seen(events, actions)).is_some();
        assert!(!usable(0, 0), "nothing kept yet");
        kept.keep_cache(items(96), seen(3, 1));
        let served = kept.cache(seen(3, 1));
        assert_eq!(served.map(|i| i.len()), Some(96), "nothing happened since");
        assert!(!usable(4, 1), "the app sent an event since");
        assert!(!usable(3, 2), "the driver acted since");
    }

    #[test]
    fn accessible_ids_asked_once_are_carried_into_later_answers() {
        let kept = Kept::default();
        let mut first = (*items(3)).clone();
        kept.carry_ids(&mut first);
        let _ = first["/o/1"].accessible_id.set("town".into());
        // The next answer: /o/0 went, /o/1 stays, /o/3 is new.
        let mut next: CacheItems = (*items(4)).clone();
        next.remove("/o/0");
        kept.carry_ids(&mut next);
        assert_eq!(
            next["/o/1"].accessible_id.get().map(String::as_str),
            Some("town")
        );
        assert_eq!(
            next["/o/3"].accessible_id.get(),
            None,
            "a new object is asked"
        );
        assert_eq!(
            next["/o/2"].accessible_id.get(),
            None,
            "one not yet asked is asked"
        );
        let mut third: CacheItems = (*items(1)).clone();
        kept.carry_ids(&mut third);
        assert_eq!(
            third["/o/0"].accessible_id.get(),
            None,
            "an object that left an answer is not remembered"
        );
    }

    #[test]
    fn a_read_drops_only_the_answer_it_used() {
        let kept = Kept::default();
        let (older, newer) = (items(8), items(96));
        kept.keep_cache(newer.clone(), seen(0, 0));
        kept.drop_cache(&older);
        assert!(kept.cache(seen(0, 0)).is_some(), "a newer answer stays");
        kept.drop_cache(&newer);
        assert!(
            kept.cache(seen(0, 0)).is_none(),
            "the answer used is dropped"
        );
    }

    #[test]
    fn the_last_two_fills_are_guessed_each_element_once() {
        let kept = Kept::default();
        let node = |path: &str| {
            let obj = (":1.1".to_string(), path.try_into().unwrap());
            (
                RawNode {
                    obj: Some(obj),
                    ..RawNode::default()
                },
                true,
            )
        };
        kept.remember_fill(vec![node("/a"), node("/b")]);
        kept.remember_fill(vec![node("/b"), node("/c")]);
        let paths: Vec<String> = kept
            .last_fills()
            .iter()
            .map(|(n, _)| n.obj.as_ref().unwrap().1.to_string())
            .collect();
        assert_eq!(paths, ["/b", "/c", "/a"]);
        kept.remember_fill(
            (0..=MOST_GUESSED)
                .map(|i| node(&format!("/n{i}")))
                .collect(),
        );
        assert_eq!(kept.last_fills().len(), 2, "a fill too big to guess");
    }
}
