//! Window ids that stay the same while a window lives, and picking the window a call means.

use crate::bus::Link;
use crate::bus::ObjRef;
use crate::discovery::{
    cached_top_levels, read_top_levels, root_children, top_level_box, AppRef, TopLevel,
};
use crate::driver::Inner;
use crate::fetch::{ask_children, children_of_cached, CacheItems};
use crate::states::st;
use crate::tree::Element;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use uidrive_core::protocol::WindowId;
use uidrive_core::{Error, Result};

/// Small window ids, handed out in the order windows are first seen and never
/// reused; and the app's root's children as last listed.
#[derive(Debug, Default)]
pub struct WindowIds {
    ids: Mutex<(HashMap<String, WindowId>, WindowId)>,
    last_children: Mutex<Vec<ObjRef>>,
}

impl WindowIds {
    pub fn id_for(&self, obj: &ObjRef) -> WindowId {
        let mut guard = self.ids.lock().unwrap();
        let (map, last) = &mut *guard;
        let key = format!("{}{}", obj.0, obj.1.as_str());
        if let Some(id) = map.get(&key) {
            return *id;
        }
        *last += 1;
        map.insert(key, *last);
        *last
    }

    fn last_children(&self) -> Vec<ObjRef> {
        self.last_children.lock().unwrap().clone()
    }

    fn remember_children(&self, children: &[ObjRef]) {
        *self.last_children.lock().unwrap() = children.to_vec();
    }
}

/// The app's windows with their ids. The windows listed last time are asked
/// for their role, states, title and box beside the root's children, so
/// while the app's windows stay the same a list waits on one round trip to
/// the app, not two (each costs a frame while GTK 4 animates).
pub async fn list(link: &Link, app: &AppRef, ids: &WindowIds) -> Result<Vec<(WindowId, TopLevel)>> {
    let last = ids.last_children();
    let (children, read_early) = tokio::join!(
        root_children(link, app),
        read_top_levels(link, app, last.clone())
    );
    let children = children?;
    ids.remember_children(&children);
    let tops = if children == last {
        read_early?
    } else {
        read_top_levels(link, app, children).await?
    };
    Ok(tops.into_iter().map(|t| (ids.id_for(&t.obj), t)).collect())
}

/// The window `wanted` names; without one, the focused window, else the first shown, else the first.
pub async fn resolve(
    link: &Link,
    app: &AppRef,
    ids: &WindowIds,
    wanted: Option<WindowId>,
) -> Result<(WindowId, TopLevel)> {
    let windows = list(link, app, ids).await?;
    pick(app, windows, wanted)
}

/// The window a read means ([`resolve`]), found alongside reading the app's cache.
pub struct ReadWindow {
    pub id: WindowId,
    pub top: TopLevel,
    /// Whether `top.extents` was asked. A window found in the cache was not:
    /// a full read asks the window's box with its fields ([`ReadWindow::window_box`]).
    pub boxed: bool,
    pub cache: Arc<CacheItems>,
    /// The children of the cache's elements ([`children_of_cached`]).
    pub children: HashMap<String, Vec<ObjRef>>,
}

/// As [`resolve`], for a read: the app's cache is read meanwhile (or kept
/// from the last read, [`crate::kept`]), and when it
/// holds the app's windows their role, states and title come from it. The
/// calls that ask them one by one would otherwise wait behind the cache's
/// answer in the app, a round trip after it (0.1–0.45 ms per read on
/// gnome-calculator).
///
/// The elements whose children the last read had to ask (those the cache's
/// places do not give, usually the same few) are asked again beside the
/// cache, a round trip earlier than the cache's answer could name them.
pub async fn resolve_for_read(inner: &Inner, wanted: Option<WindowId>) -> Result<ReadWindow> {
    let (link, app, ids) = (&inner.link, &inner.app, &inner.ids);
    let asked_last = inner.kept.children_asked();
    let ((children, cache), early) = tokio::join!(
        inner.roots_and_cache(),
        ask_children(link, &app.bus, asked_last)
    );
    let children = children?;
    ids.remember_children(&children);
    let tops = async {
        match cached_top_levels(&children, &cache) {
            Some(tops) => Ok((tops, false)),
            None => Ok((read_top_levels(link, app, children.clone()).await?, true)),
        }
    };
    let (tops, (cached_children, asked)) =
        tokio::join!(tops, children_of_cached(link, app, &cache, early));
    let (tops, boxed): (Vec<TopLevel>, bool) = tops?;
    inner.kept.remember_children_asked(asked);
    let windows = tops.into_iter().map(|t| (ids.id_for(&t.obj), t)).collect();
    let (id, top) = pick(app, windows, wanted)?;
    Ok(ReadWindow {
        id,
        top,
        boxed,
        cache,
        children: cached_children,
    })
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

fn pick(
    app: &AppRef,
    windows: Vec<(WindowId, TopLevel)>,
    wanted: Option<WindowId>,
) -> Result<(WindowId, TopLevel)> {
    let showing = app.toolkit.sets_showing();
    let found = match wanted {
        Some(id) => windows.into_iter().find(|(w, _)| *w == id),
        None => {
            let pick = windows
                .iter()
                .position(|(_, t)| t.states.has(st::ACTIVE))
                .or_else(|| windows.iter().position(|(_, t)| t.states.is_shown(showing)))
                .unwrap_or(0);
            windows.into_iter().nth(pick)
        }
    };
    found.ok_or_else(|| match wanted {
        Some(id) => Error::no_window(format!("{} has no window {id}", app.name)),
        None => Error::no_window(format!("{} has no window open", app.name))
            .with_suggestion("wait for the app to open a window, or check that it started"),
    })
}
