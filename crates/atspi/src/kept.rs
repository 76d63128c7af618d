//! The app's cache kept from one read to the next, while the app announces no change.
//!
//! GTK's apps answer `Cache.GetItems` with the whole cache, on the path of
//! every read: 1–2 ms of a 12 ms read of gnome-calculator, 8–12 ms of a 30 ms
//! read of gtk4-demo, about 2 ms of gtk3-widget-factory's. They also send an
//! event for every change to what that answer holds (children, name,
//! description, states): GTK 4 whether or not anyone listens
//! ([`Toolkit::announces_every_change`]), GTK's bridge (GTK 3, LibreOffice)
//! for the events a client registered for, which this driver did when it
//! connected. So while the app has sent no event since an answer was asked,
//! and a round trip over the bus proves none is on its way, the answer still
//! holds and the next read takes it.
//!
//! GTK's bridge learns of a registration from the registry's signal, which
//! the registry sends before it answers the registration: a call over the
//! bus made after that answer reaches the app behind the signal. So an
//! answer from the bridge is kept only once such a round trip has been
//! answered before it was asked.
//!
//! Any event of the app drops the kept answer, whatever element it is about,
//! and so does any action the driver sends; no answer is kept while an
//! action's effect is still awaited (GTK 4 runs a `DoAction` about 250 ms
//! after answering it). Nothing is kept for a time: an answer serves until
//! the app says something changed, and an app whose toolkit does not announce
//! its changes has none kept ([`crate::profile::CacheKept`]). Values, text,
//! actions and bounds are not in the cache: every read asks them, and so are
//! the cells of views that manage their descendants (GTK 3 tree views, Qt
//! item views), which change without an event when they sort or filter.
//!
//! [`Toolkit::announces_every_change`]: crate::discovery::Toolkit::announces_every_change

use crate::bus::ObjRef;
use crate::discovery::{root_children, ROOT};
use crate::fetch::{cache_items, CacheItems};
use crate::profile::CacheKept;
use crate::stats;
use crate::tree::Element;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use uidrive_core::Result;

/// The last cache answer of one app, and whether it may serve the next read.
#[derive(Default)]
pub struct KeptCache {
    kept: Mutex<Option<Kept>>,
    /// How many reads a kept answer served.
    served: AtomicU64,
    /// Whether a round trip over the bus, made after this driver registered
    /// for events, has been answered: GTK's bridge then sends them.
    registration_known: AtomicBool,
    /// The cached elements whose children the last read asked.
    children_asked: Mutex<Vec<String>>,
}

struct Kept {
    items: Arc<CacheItems>,
    /// What had happened when the answer was asked.
    before: Changes,
}

/// How many events the app sent and how many actions the driver sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Changes {
    events: u64,
    actions: u64,
}

impl KeptCache {
    /// The kept answer, if it may serve a read made after `now_seen`; a
    /// round trip must still prove no event is on its way.
    fn usable(&self, now_seen: Changes) -> Option<Arc<CacheItems>> {
        let kept = self.kept.lock().unwrap();
        kept.as_ref()
            .filter(|k| k.before == now_seen)
            .map(|k| k.items.clone())
    }

    /// Keeps a fresh answer, asked after `before`.
    fn keep(&self, items: Arc<CacheItems>, before: Changes) {
        *self.kept.lock().unwrap() = Some(Kept { items, before });
    }

    /// Drops `items` if it is the kept answer.
    fn drop_answer(&self, items: &Arc<CacheItems>) {
        let mut kept = self.kept.lock().unwrap();
        if kept.as_ref().is_some_and(|k| Arc::ptr_eq(&k.items, items)) {
            *kept = None;
        }
    }

    /// The cached elements whose children the last read asked.
    pub fn children_asked(&self) -> Vec<String> {
        self.children_asked.lock().unwrap().clone()
    }

    pub fn remember_children_asked(&self, paths: Vec<String>) {
        *self.children_asked.lock().unwrap() = paths;
    }

    /// How many reads a kept answer served so far.
    pub fn reads_served(&self) -> u64 {
        self.served.load(Ordering::Relaxed)
    }
}

impl crate::driver::Inner {
    /// The app root's children and the app's cache, for a read: the kept
    /// cache answer where it still holds, else the cache asked beside the children.
    pub async fn roots_and_cache(&self) -> (Result<Vec<ObjRef>>, Arc<CacheItems>) {
        let (link, app) = (&self.link, &self.app);
        let before = self.changes();
        let kept = self
            .keeps_cache()
            .then(|| self.kept.usable(before))
            .flatten();
        let Some(items) = kept else {
            let (children, items) = tokio::join!(root_children(link, app), self.ask_cache());
            return (children, items);
        };
        let root = self.root();
        let (children, quiet) = tokio::join!(
            root_children(link, app),
            self.quiet_since(&root, before.events)
        );
        if quiet.unwrap_or(false) {
            self.kept.served.fetch_add(1, Ordering::Relaxed);
            stats::count("GetItems kept");
            return (children, items);
        }
        (children, self.ask_cache().await)
    }

    /// Asks the app's cache, and keeps the answer where it may serve later
    /// reads: not while an action's effect is still awaited.
    async fn ask_cache(&self) -> Arc<CacheItems> {
        let before = self.changes();
        let keep = self.keeps_cache() && self.activity.awaiting_until(&self.app.bus).is_none();
        let items = cache_items(&self.link, &self.app.bus);
        let items = if self.bridge_to_tell() {
            // Not kept: the bridge may not know yet that this driver listens.
            let root = self.root();
            let (items, told) = tokio::join!(items, self.quiet_since(&root, before.events));
            if told.is_ok() {
                self.kept.registration_known.store(true, Ordering::Relaxed);
            }
            items
        } else {
            items.await
        };
        let items = Arc::new(items);
        if keep && !items.is_empty() {
            self.kept.keep(items.clone(), before);
        }
        items
    }

    /// After a read with the cache answer `items`: an answer that lacks an
    /// element the read reached is not kept. GTK 4 adds elements to its
    /// cache as reads first reach them, so a fresh answer holds them and
    /// spares the next read the calls that asked them. (GTK's bridge adds
    /// only the elements the app announces, and never a table's cells, so a
    /// fresh answer from it holds no more.)
    pub fn check_cache_answer(&self, items: &Arc<CacheItems>, elements: &[Element]) {
        if !self.app.toolkit.announces_every_change() {
            return;
        }
        let lacks = |e: &Element| {
            e.raw
                .obj
                .as_ref()
                .is_some_and(|o| o.0 == self.app.bus && !items.contains_key(o.1.as_str()))
        };
        if elements.iter().any(lacks) {
            self.kept.drop_answer(items);
        }
    }

    /// Whether this app's cache answers may be kept: the events are still
    /// counted, and the app sends one for every change to what its cache
    /// holds, GTK's bridge once it has learnt that this driver listens.
    fn keeps_cache(&self) -> bool {
        let announces = match self.profile.cache_kept {
            CacheKept::Never => false,
            CacheKept::UntilEvent => true,
            CacheKept::UntilEventOnceRegistered => {
                self.kept.registration_known.load(Ordering::Relaxed)
            }
        };
        announces && self.activity.listening()
    }

    /// Whether the app is behind GTK's bridge and not yet known to have
    /// learnt that this driver listens.
    fn bridge_to_tell(&self) -> bool {
        self.profile.cache_kept == CacheKept::UntilEventOnceRegistered
            && !self.kept.registration_known.load(Ordering::Relaxed)
    }

    /// The app's root object: a cheap call on it is a round trip.
    fn root(&self) -> ObjRef {
        let path = ROOT.try_into().expect("a valid object path");
        (self.app.bus.clone(), path)
    }

    fn changes(&self) -> Changes {
        Changes {
            events: self.activity.events_seen(&self.app.bus),
            actions: self.activity.actions_sent(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let kept = KeptCache::default();
        let usable = |events, actions| kept.usable(seen(events, actions)).is_some();
        assert!(!usable(0, 0), "nothing kept yet");
        kept.keep(items(96), seen(3, 1));
        let served = kept.usable(seen(3, 1));
        assert_eq!(served.map(|i| i.len()), Some(96), "nothing happened since");
        assert!(!usable(4, 1), "the app sent an event since");
        assert!(!usable(3, 2), "the driver acted since");
    }

    #[test]
    fn a_read_drops_only_the_answer_it_used() {
        let kept = KeptCache::default();
        let (older, newer) = (items(8), items(96));
        kept.keep(newer.clone(), seen(0, 0));
        kept.drop_answer(&older);
        assert!(kept.usable(seen(0, 0)).is_some(), "a newer answer stays");
        kept.drop_answer(&newer);
        assert!(
            kept.usable(seen(0, 0)).is_none(),
            "the answer used is dropped"
        );
    }
}
