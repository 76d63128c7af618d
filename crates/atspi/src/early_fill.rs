//! A locator's read fills in the fields of the few elements it could pick
//! once the structure is read, a round trip after the cache answer; while
//! GTK 4 animates, that round trip waits for a frame. Reads in a row mostly
//! fill the same elements (an `expect` after a click reads the element the
//! click just found, and a test that alternates two locators reads two sets
//! by turns), so the elements the last two fills named are asked again
//! beside the structure. The fill takes those answers for an element whose
//! questions are the same ([`Questions`]: same object, role, interfaces and
//! the states that decide the calls), and asks the others then. A guess that
//! turns out wrong costs its calls, asked while the read waited anyway.

use crate::bus::{Link, ObjRef};
use crate::fetch::{fetch_extras, questions, FetchPlan, Questions, RawNode, Turn};
use crate::stats;
use futures_util::future::join_all;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// The most elements of one fill the next read asks early.
const GUESSED: usize = 100;

/// The elements the last two fills named, as the walk gave them, and
/// whether each came from the cache; the last fill's first.
#[derive(Default)]
pub struct LastFill {
    elements: Mutex<[Vec<(RawNode, bool)>; 2]>,
    /// How many elements took answers asked early.
    served: AtomicU64,
}

/// Fields asked early, by object: the questions they answer, and the element
/// with them filled in.
#[derive(Default)]
pub struct Early(HashMap<ObjRef, (Questions, RawNode)>);

impl LastFill {
    /// Remembers the elements a fill named, as the walk gave them: none of
    /// a fill of more than [`GUESSED`], whose own calls dwarf the round trip
    /// early answers save.
    pub fn remember(&self, mut elements: Vec<(RawNode, bool)>) {
        if elements.len() > GUESSED {
            elements.clear();
        }
        let mut last = self.elements.lock().unwrap();
        last[1] = std::mem::replace(&mut last[0], elements);
    }

    /// Asks the fields of the elements the last two fills named, as they did
    /// (each element once, as the later fill named it).
    pub async fn ask(&self, link: &Link, plan: FetchPlan) -> Early {
        let mut seen = HashSet::new();
        let guesses: Vec<(RawNode, bool)> = self
            .elements
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
            .collect();
        let asked = guesses.into_iter().map(|(mut node, cached)| async move {
            let asked = questions(&node, cached, plan);
            fetch_extras(link, &mut node, cached, plan, Turn::default()).await;
            Some((node.obj.clone()?, (asked, node)))
        });
        Early(join_all(asked).await.into_iter().flatten().collect())
    }

    /// Counts `elements` that took answers asked early.
    pub fn served_early(&self, elements: usize) {
        self.served.fetch_add(elements as u64, Ordering::Relaxed);
    }

    /// How many elements took answers asked early so far.
    pub fn served(&self) -> u64 {
        self.served.load(Ordering::Relaxed)
    }
}

impl Early {
    /// The element `node` filled in from the answers asked early, when they
    /// were asked with the questions the fill would ask now.
    pub fn take(&mut self, node: &RawNode, cached: bool, plan: FetchPlan) -> Option<RawNode> {
        let obj = node.obj.as_ref()?;
        let (asked, filled) = self.0.remove(obj)?;
        if asked != questions(node, cached, plan) {
            return None;
        }
        stats::count("fields asked early");
        Some(crate::fetch::with_fields_of(
            node.clone(),
            cached,
            filled,
            &asked,
        ))
    }
}
