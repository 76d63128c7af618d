//! Snapshots and the refs they hand out (`@e3`), for every front end.
//!
//! A ref is resolved fail-closed and at once: a ref that was retired, or
//! never given, is `stale_ref`; a live one is checked against a fresh read
//! of its window, and is `stale_ref` when its element is gone or its id now
//! belongs to an element of another role. Only then does it become a
//! locator for that element.

use std::sync::{Arc, Mutex};
use uidrive_core::locator::WindowRef;
use uidrive_core::protocol::{Node, TreeParams, WindowId};
use uidrive_core::snapshot::{Ref, RefMap, Snapshot, View};
use uidrive_core::{App, Driver, Error, ErrorCode, Locator, Result, Timeouts};

/// The refs of one app's snapshots; front ends keep one beside each App.
#[derive(Debug, Default)]
pub struct Refs {
    map: Mutex<RefMap>,
}

impl Refs {
    /// No refs yet.
    pub fn new() -> Refs {
        Refs::default()
    }

    /// A snapshot of a window (the focused one, else the first); elements
    /// seen before keep their refs.
    pub fn snapshot(&self, app: &App, window: Option<WindowId>) -> Result<Snapshot> {
        let tree = app.tree(window)?;
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        Ok(Snapshot::take(&tree, &mut map))
    }

    /// The refs of `nodes`, elements of `window` a locator just matched
    /// (WebDriver's element ids): an element seen before keeps its ref.
    pub fn refs_of(&self, window: WindowId, nodes: &[Node]) -> Vec<String> {
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        nodes
            .iter()
            .map(|node| map.give(window, node).to_string())
            .collect()
    }

    /// A locator for the element `r` names, checked now (see the module's page).
    pub fn get_by_ref(&self, app: &App, r: &str) -> Result<Locator> {
        let r: Ref = r.trim().parse()?;
        let window = {
            let map = self.map.lock().unwrap_or_else(|p| p.into_inner());
            map.resolve(r)?.window
        };
        let tree = read_window(app.driver().as_ref(), window, r);
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        locate(
            &mut map,
            app.driver().clone(),
            app.timeouts(),
            r,
            window,
            tree,
        )
    }
}

/// A snapshot rendered as text, controls only when `interactive`.
pub fn render(snapshot: &Snapshot, interactive: bool) -> Result<String> {
    let view = if interactive {
        View::interactive()
    } else {
        View::full()
    };
    snapshot.render(&view)
}

/// [`Refs::get_by_ref`] over a ref map kept elsewhere (the command line keeps
/// a session's map in a file between commands).
pub fn resolve(
    map: &mut RefMap,
    driver: Arc<dyn Driver>,
    timeouts: Timeouts,
    r: Ref,
) -> Result<Locator> {
    let window = map.resolve(r)?.window;
    let tree = read_window(driver.as_ref(), window, r);
    locate(map, driver, timeouts, r, window, tree)
}

/// Reads the ref's window; a window that is gone makes the ref stale.
fn read_window(
    driver: &dyn Driver,
    window: WindowId,
    r: Ref,
) -> Result<std::result::Result<uidrive_core::protocol::Tree, Error>> {
    match driver.tree(&TreeParams {
        window: Some(window),
    }) {
        Ok(tree) => Ok(Ok(tree)),
        Err(e) if e.code == ErrorCode::NoWindow => Ok(Err(Error::new(
            ErrorCode::StaleRef,
            format!("{r} is stale: its window {window} is gone"),
        )
        .with_suggestion("take a new snapshot and use the refs it shows"))),
        Err(e) => Err(e),
    }
}

fn locate(
    map: &mut RefMap,
    driver: Arc<dyn Driver>,
    timeouts: Timeouts,
    r: Ref,
    window: WindowId,
    tree: Result<std::result::Result<uidrive_core::protocol::Tree, Error>>,
) -> Result<Locator> {
    match tree? {
        Ok(tree) => {
            map.observe(&tree);
        }
        Err(stale) => {
            map.forget_window(window);
            return Err(stale);
        }
    }
    let target = map.resolve(r).map_err(|e| {
        if e.code == ErrorCode::StaleRef {
            e.with_suggestion("take a new snapshot and use the refs it shows")
        } else {
            e
        }
    })?;
    Ok(WindowRef::new(driver, Some(target.window), timeouts).get_by_id(target.id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidrive_core::MemoryDriver;

    #[test]
    fn refs_resolve_at_once_and_fail_closed() {
        let app = App::new(Arc::new(MemoryDriver::new()));
        let refs = Refs::new();
        let snapshot = refs.snapshot(&app, None).unwrap();
        let first = snapshot
            .elements
            .first()
            .expect("the memory UI has elements");
        let r = first.r.to_string();
        let locator = refs.get_by_ref(&app, &r).unwrap();
        assert_eq!(locator.count().unwrap(), 1);
        let err = refs.get_by_ref(&app, "@e999").unwrap_err();
        assert_eq!(err.code, ErrorCode::StaleRef);
        let err = refs.get_by_ref(&app, "e0").unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest);
        assert!(render(&snapshot, false).unwrap().contains(&r));
    }
}
