//! The one limit on a read's calls in flight to an app.
//!
//! Every call a read makes ([`crate::bus::call`], so every property, method
//! and child list) takes a place at its app's gate first and gives it back
//! when answered; the app's profile sets how many places there are
//! ([`crate::profile::Profile::in_flight`]). One gate per app, shared by
//! every driver of the process, so two readers of one app share its limit.
//!
//! Two lanes share the places: a read's structure (child lists, the cache,
//! the basics of elements the cache lacks) goes before its fields, so the
//! walk that finds the next elements never queues behind hundreds of
//! field calls; within a lane, calls go in the order they asked.
//!
//! A call made outside a read (an action, a settling round trip) passes
//! freely: the limit is on what reads ask.

use std::collections::VecDeque;
use std::future::Future;
use std::sync::{Arc, Mutex, Weak};
use tokio::sync::oneshot;

/// Which part of a read a call serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// What finds the elements: child lists, the cache, an element's basics.
    Structure = 0,
    /// The rest of each element's fields.
    Fields = 1,
}

/// One app's places for calls in flight.
pub struct Gate {
    limit: usize,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    in_flight: usize,
    /// By lane: the calls waiting for a place, first come first.
    waiting: [VecDeque<oneshot::Sender<()>>; 2],
    /// The most calls that were in flight at once.
    most: usize,
}

/// A place at the gate, given back when dropped.
pub struct Place {
    gate: Arc<Gate>,
}

impl Drop for Place {
    fn drop(&mut self) {
        self.gate.give_back();
    }
}

/// A call waiting for a place; if it is dropped after a place was handed
/// to it, the place is given back.
struct Waiting {
    gate: Arc<Gate>,
    answer: Option<oneshot::Receiver<()>>,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Some(mut answer) = self.answer.take() {
            if answer.try_recv().is_ok() {
                self.gate.give_back();
            }
        }
    }
}

impl Gate {
    pub fn new(limit: usize) -> Gate {
        Gate {
            limit: limit.max(1),
            state: Mutex::new(State::default()),
        }
    }

    /// How many calls may be in flight at once.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The most calls that were in flight at once so far.
    pub fn most_in_flight(&self) -> usize {
        self.lock().most
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for a place for one call of `lane`.
    pub async fn enter(self: &Arc<Self>, lane: Lane) -> Place {
        let waiting = {
            let mut state = self.lock();
            let ahead = match lane {
                Lane::Structure => !state.waiting[0].is_empty(),
                Lane::Fields => state.waiting.iter().any(|w| !w.is_empty()),
            };
            if state.in_flight < self.limit && !ahead {
                state.in_flight += 1;
                state.most = state.most.max(state.in_flight);
                return Place { gate: self.clone() };
            }
            let (tell, answer) = oneshot::channel();
            state.waiting[lane as usize].push_back(tell);
            Waiting {
                gate: self.clone(),
                answer: Some(answer),
            }
        };
        let mut waiting = waiting;
        if let Some(answer) = waiting.answer.as_mut() {
            // A sender goes only by handing over a place (or with the gate).
            let _ = answer.await;
        }
        waiting.answer = None;
        Place { gate: self.clone() }
    }

    /// A call's place is free: the next waiting call takes it (structure first).
    fn give_back(&self) {
        let mut state = self.lock();
        for lane in 0..2 {
            while let Some(next) = state.waiting[lane].pop_front() {
                if next.send(()).is_ok() {
                    return;
                }
            }
        }
        state.in_flight -= 1;
    }
}

tokio::task_local! {
    /// The gate of the app the current read is of.
    static GATE: Arc<Gate>;
    /// The lane of the calls the current part of the read makes.
    static LANE: Lane;
    /// A place taken before the call it is for was decided on ([`spend`]).
    static TAKEN: std::cell::RefCell<Option<Place>>;
}

/// Runs `read` with every call it makes through `gate`, in the structure lane.
pub async fn through<T>(gate: Arc<Gate>, read: impl Future<Output = T>) -> T {
    GATE.scope(gate, LANE.scope(Lane::Structure, read)).await
}

/// Runs `part` of a read with its calls in the fields lane.
pub async fn fields<T>(part: impl Future<Output = T>) -> T {
    LANE.scope(Lane::Fields, part).await
}

/// A place for one call of the current read, if the call is part of one:
/// the place [`spend`] holds for it, else one waited for at the gate.
pub async fn place() -> Option<Place> {
    if let Ok(Some(taken)) = TAKEN.try_with(|taken| taken.borrow_mut().take()) {
        return Some(taken);
    }
    let gate = GATE.try_with(Arc::clone).ok()?;
    let lane = LANE.try_with(|lane| *lane).unwrap_or(Lane::Structure);
    Some(gate.enter(lane).await)
}

/// Runs `call`, a single call, in `place`, taken when its turn came and
/// before deciding to make it: an element's box is asked only once its
/// parent's turn has come and gone (see [`crate::fetch::Boxes`]).
pub async fn spend<T>(place: Option<Place>, call: impl Future<Output = T>) -> T {
    TAKEN.scope(std::cell::RefCell::new(place), call).await
}

/// An app, by its process and bus name.
type AppKey = (u32, String);

/// Every app's gate, held by its drivers.
static GATES: Mutex<Vec<(AppKey, Weak<Gate>)>> = Mutex::new(Vec::new());

/// The gate of the app of process `pid` at `bus_name`, made with `limit`
/// places if no driver of this process holds one.
pub fn of_app(pid: u32, bus_name: &str, limit: usize) -> Arc<Gate> {
    let mut gates = GATES.lock().unwrap_or_else(|e| e.into_inner());
    gates.retain(|(_, gate)| gate.strong_count() > 0);
    let key = (pid, bus_name.to_string());
    if let Some(gate) = gates
        .iter()
        .find(|(k, _)| *k == key)
        .and_then(|(_, g)| g.upgrade())
    {
        return gate;
    }
    let gate = Arc::new(Gate::new(limit));
    gates.push((key, Arc::downgrade(&gate)));
    gate
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn no_more_calls_than_the_limit_are_in_flight() {
        runtime().block_on(async {
            let gate = Arc::new(Gate::new(3));
            let now = Arc::new(AtomicUsize::new(0));
            let calls = (0..20).map(|_| {
                let now = now.clone();
                through(gate.clone(), async move {
                    let _place = place().await.expect("inside a read");
                    assert!(now.fetch_add(1, Ordering::SeqCst) < 3);
                    tokio::time::sleep(Duration::from_millis(2)).await;
                    now.fetch_sub(1, Ordering::SeqCst);
                })
            });
            futures_util::future::join_all(calls).await;
            assert_eq!(gate.most_in_flight(), 3);
            assert_eq!(gate.lock().in_flight, 0, "every place given back");
        });
    }

    #[test]
    fn structure_goes_before_fields_and_each_lane_in_order() {
        runtime().block_on(async {
            let gate = Arc::new(Gate::new(1));
            let order = Arc::new(Mutex::new(Vec::new()));
            let held = gate.enter(Lane::Fields).await;
            let call = |name: &'static str, lane: Lane| {
                let (gate, order) = (gate.clone(), order.clone());
                async move {
                    let _place = gate.enter(lane).await;
                    order.lock().unwrap().push(name);
                    tokio::task::yield_now().await;
                }
            };
            let calls = futures_util::future::join(
                futures_util::future::join3(
                    call("field 1", Lane::Fields),
                    call("child list 1", Lane::Structure),
                    call("field 2", Lane::Fields),
                ),
                async {
                    tokio::task::yield_now().await;
                    drop(held);
                    call("child list 2", Lane::Structure).await
                },
            );
            calls.await;
            assert_eq!(
                *order.lock().unwrap(),
                ["child list 1", "child list 2", "field 1", "field 2"]
            );
        });
    }

    #[test]
    fn a_call_given_up_while_waiting_leaves_no_place_taken() {
        runtime().block_on(async {
            let gate = Arc::new(Gate::new(1));
            let held = gate.enter(Lane::Structure).await;
            let given_up = tokio::time::timeout(Duration::from_millis(5), gate.enter(Lane::Fields));
            assert!(given_up.await.is_err(), "no place while one is held");
            drop(held);
            let _again = gate.enter(Lane::Fields).await;
            assert_eq!(gate.lock().in_flight, 1);
        });
    }

    #[test]
    fn a_place_taken_early_serves_the_call_it_was_taken_for() {
        runtime().block_on(async {
            let gate = Arc::new(Gate::new(1));
            through(gate.clone(), async {
                let taken = place().await;
                assert!(taken.is_some());
                let served = spend(taken, async { place().await.is_some() }).await;
                assert!(
                    served,
                    "the call takes the place held for it, not a second one"
                );
            })
            .await;
            assert_eq!(gate.lock().in_flight, 0);
        });
    }

    #[test]
    fn calls_outside_a_read_pass_freely() {
        runtime().block_on(async {
            assert!(place().await.is_none());
        });
    }
}
