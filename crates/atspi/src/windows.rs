//! Window ids that stay the same while a window lives, and picking the window a call means.

use crate::bus::Link;
use crate::bus::ObjRef;
use crate::discovery::{top_levels, AppRef, TopLevel};
use crate::states::st;
use std::collections::HashMap;
use std::sync::Mutex;
use uidrive_core::protocol::WindowId;
use uidrive_core::{Error, Result};

/// Small window ids, handed out in the order windows are first seen and never reused.
#[derive(Debug, Default)]
pub struct WindowIds {
    ids: Mutex<(HashMap<String, WindowId>, WindowId)>,
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
}

/// The app's windows with their ids.
pub async fn list(link: &Link, app: &AppRef, ids: &WindowIds) -> Result<Vec<(WindowId, TopLevel)>> {
    let tops = top_levels(link, app).await?;
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
