//! Window ids that stay the same while a window lives, and picking the window a call means.

use crate::bus::Link;
use crate::bus::ObjRef;
use crate::discovery::{read_top_levels, root_children, AppRef, TopLevel};
use crate::states::st;
use std::collections::HashMap;
use std::sync::Mutex;
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

    pub fn remember_children(&self, children: &[ObjRef]) {
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

/// The window `wanted` names among `windows`: without one, the focused
/// window, else the first shown, else the first.
pub fn pick(
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
