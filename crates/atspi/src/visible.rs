//! The children of an element too big to walk: a spreadsheet or a long list
//! that manages its descendants, or one that reports an absurd child count.
//!
//! Asking such an element for all its children makes the app build an object
//! for each (LibreOffice Calc reports 2^31 cells and grows by gigabytes), so
//! only the children on screen are read, as screen readers do: a table's
//! cells between the corners its hit test finds, a list's items from the
//! first one on screen until they leave the element's box.

use crate::bus::{self, call, Link, ObjRef, IFACE_ACCESSIBLE, IFACE_COMPONENT, IFACE_TABLE};
use crate::fetch::Ifaces;
use crate::states::{st, StateSet};
use futures_util::future::join_all;
use std::collections::HashMap;

/// Above this many children an element's child list is never asked for.
pub const MAX_CHILDREN: i32 = 5_000;
/// The most children read of one element whose list is not walked.
const MAX_VISIBLE: usize = 2_000;
/// How many list items are asked at once while looking for the end of the screen.
const BATCH: i32 = 64;
/// Extents and hit tests relative to the window: every toolkit answers them alike.
const WINDOW_COORDS: u32 = 1;

/// Whether all of an element's children may be asked for.
pub fn walkable(states: StateSet, child_count: i32) -> bool {
    !states.has(st::MANAGES_DESCENDANTS) && (0..=MAX_CHILDREN).contains(&child_count)
}

/// The children of `obj` that show inside its box, at most [`MAX_VISIBLE`].
pub async fn visible_children(
    link: &Link,
    obj: &ObjRef,
    ifaces: Ifaces,
    child_count: i32,
) -> Vec<ObjRef> {
    if child_count == 0 || !ifaces.has(Ifaces::COMPONENT) {
        return Vec::new();
    }
    let Some(area) = extents(link, obj).await.filter(|a| a.2 > 0 && a.3 > 0) else {
        return Vec::new();
    };
    let found = if ifaces.has(Ifaces::TABLE) {
        table_cells(link, obj, area).await
    } else {
        list_items(link, obj, area, child_count).await
    };
    let mut out: Vec<ObjRef> = Vec::with_capacity(found.len());
    for obj in found {
        if !bus::is_null(&obj) && !out.contains(&obj) {
            out.push(obj);
        }
    }
    out
}

type Area = (i32, i32, i32, i32);

async fn extents(link: &Link, obj: &ObjRef) -> Option<Area> {
    let (conn, dest) = link.route(&obj.0);
    call(
        conn,
        dest,
        obj.1.as_str(),
        IFACE_COMPONENT,
        "GetExtents",
        &(WINDOW_COORDS,),
    )
    .await
    .ok()
}

/// The child under the point, and its place among the element's children.
async fn child_at(link: &Link, obj: &ObjRef, x: i32, y: i32) -> Option<i32> {
    let (conn, dest) = link.route(&obj.0);
    let hit: ObjRef = call(
        conn,
        dest,
        obj.1.as_str(),
        IFACE_COMPONENT,
        "GetAccessibleAtPoint",
        &(x, y, WINDOW_COORDS),
    )
    .await
    .ok()
    .filter(|o| !bus::is_null(o))?;
    let hit = with_bus(hit, obj);
    let (conn, dest) = link.route(&hit.0);
    call(
        conn,
        dest,
        hit.1.as_str(),
        IFACE_ACCESSIBLE,
        "GetIndexInParent",
        &(),
    )
    .await
    .ok()
    .filter(|i: &i32| *i >= 0)
}

/// A table's cells as `GetAccessibleAt` gave them, by (bus, app, table,
/// row, column): LibreOffice Calc makes a new object at every ask for a cell
/// and keeps them all (its memory grew 3.5 MiB a read), so each cell is
/// asked once and its object read again after.
type CellKey = (String, String, String, i32, i32);
static CELLS: std::sync::LazyLock<std::sync::Mutex<HashMap<CellKey, ObjRef>>> =
    std::sync::LazyLock::new(Default::default);
/// More cells than any screen shows, many times over.
const MAX_KNOWN_CELLS: usize = 50_000;

/// Forgets a cell that went (a later read asks the table for it again).
pub fn forget_cell(cell: &ObjRef) {
    CELLS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|_, known| known != cell);
}

/// The deepest element under a point of `window` (window coordinates), by
/// the toolkit's own hit test, level by level; `unsupported` when the
/// toolkit has none.
pub async fn deepest_at(
    link: &Link,
    window: &ObjRef,
    x: i32,
    y: i32,
) -> uidrive_core::Result<Option<uidrive_core::protocol::ElementId>> {
    let mut at = window.clone();
    for depth in 0..64 {
        let (conn, dest) = link.route(&at.0);
        let hit = call::<ObjRef, _>(
            conn,
            dest,
            at.1.as_str(),
            IFACE_COMPONENT,
            "GetAccessibleAtPoint",
            &(x, y, WINDOW_COORDS),
        )
        .await;
        let hit = match hit {
            Ok(hit) if !bus::is_null(&hit) && hit.1.as_str() != at.1.as_str() => with_bus(hit, &at),
            Ok(_) => break,
            Err(e) if depth == 0 && e.code == uidrive_core::ErrorCode::Failed => {
                return Err(uidrive_core::Error::unsupported(format!(
                    "the app's toolkit answers no hit test: {}",
                    e.message
                )))
            }
            // An element without a Component interface ends the descent.
            Err(e) if e.code == uidrive_core::ErrorCode::Failed => break,
            Err(e) => return Err(e),
        };
        at = hit;
    }
    Ok((at != *window).then(|| crate::ids::element_id(&at.0, at.1.as_str())))
}

/// A table's cells between the cells at its top-left and bottom-right
/// corners, with the headers of those columns.
async fn table_cells(link: &Link, obj: &ObjRef, area: Area) -> Vec<ObjRef> {
    let (x, y, w, h) = area;
    let (conn, dest) = link.route(&obj.0);
    let path = obj.1.as_str();
    let int = |name: &'static str| async move {
        bus::get_prop(conn, dest, path, IFACE_TABLE, name)
            .await
            .ok()
            .and_then(|v| i32::try_from(v).ok())
            .unwrap_or(0)
    };
    let cell_place = |index: Option<i32>| async move {
        let index = (index?,);
        let (row, col) = tokio::join!(
            call::<i32, _>(conn, dest, path, IFACE_TABLE, "GetRowAtIndex", &index),
            call::<i32, _>(conn, dest, path, IFACE_TABLE, "GetColumnAtIndex", &index),
        );
        Some((row.ok()?.max(0), col.ok()?.max(0)))
    };
    let (rows, cols, top_left, bottom_right) = tokio::join!(
        int("NRows"),
        int("NColumns"),
        child_at(link, obj, x + 1, y + 1),
        child_at(link, obj, x + w - 2, y + h - 2),
    );
    if rows <= 0 || cols <= 0 {
        return Vec::new();
    }
    let (top_left, bottom_right) = tokio::join!(cell_place(top_left), cell_place(bottom_right));
    let (row0, col0) = top_left.unwrap_or((0, 0));
    // Without a hit test for the far corner, a screenful of a usual grid.
    let (row1, col1) = bottom_right.unwrap_or((row0 + 50, col0 + 26));
    let col1 = col1.clamp(col0, cols - 1);
    let width = (col1 - col0 + 1) as usize;
    let most_rows = (MAX_VISIBLE / width).max(1) as i32;
    let row1 = row1.clamp(row0, (rows - 1).min(row0 + most_rows - 1));
    let headers = (col0..=col1).map(|col| async move {
        call::<ObjRef, _>(conn, dest, path, IFACE_TABLE, "GetColumnHeader", &(col,)).await
    });
    let guid = conn.server_guid().to_string();
    let cells = (row0..=row1).flat_map(|row| {
        let guid = guid.clone();
        (col0..=col1).map(move |col| {
            let key = (guid.clone(), obj.0.clone(), path.to_string(), row, col);
            async move {
                if let Some(cell) = CELLS.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
                    return Ok(cell.clone());
                }
                let cell = call::<ObjRef, _>(
                    conn,
                    dest,
                    path,
                    IFACE_TABLE,
                    "GetAccessibleAt",
                    &(row, col),
                )
                .await?;
                let mut known = CELLS.lock().unwrap_or_else(|e| e.into_inner());
                if known.len() >= MAX_KNOWN_CELLS {
                    known.clear();
                }
                known.insert(key, cell.clone());
                Ok(cell)
            }
        })
    });
    let (headers, cells) = tokio::join!(join_all(headers), join_all(cells));
    headers
        .into_iter()
        .chain(cells)
        .filter_map(Result::ok)
        .map(|cell| with_bus(cell, obj))
        .collect()
}

/// A list's items from the first one on screen, a batch at a time, until
/// they leave the element's box.
async fn list_items(link: &Link, obj: &ObjRef, area: Area, child_count: i32) -> Vec<ObjRef> {
    let (x, y, w, h) = area;
    let (conn, dest) = link.route(&obj.0);
    let path = obj.1.as_str();
    let start = child_at(link, obj, x + 1, y + 1).await.unwrap_or(0);
    let end = if child_count > 0 {
        child_count
    } else {
        i32::MAX
    };
    let mut out = Vec::new();
    let mut at = start;
    while at < end && out.len() < MAX_VISIBLE {
        let batch = at..end.min(at.saturating_add(BATCH));
        at = batch.end;
        let read = batch.map(|index| async move {
            let child: ObjRef = call(
                conn,
                dest,
                path,
                IFACE_ACCESSIBLE,
                "GetChildAtIndex",
                &(index,),
            )
            .await
            .ok()?;
            let child = with_bus(child, obj);
            let place = extents(link, &child).await;
            Some((child, place))
        });
        let mut any_inside = false;
        for (child, place) in join_all(read).await.into_iter().flatten() {
            let inside = place.is_some_and(|(cx, cy, cw, ch)| {
                cx < x + w && cy < y + h && cx + cw > x && cy + ch > y
            });
            if inside {
                any_inside = true;
                out.push(child);
            }
        }
        if !any_inside {
            break;
        }
    }
    out
}

/// A reference as the rest of the driver keeps them, on a bus name: an
/// empty one means the app of `parent`.
fn with_bus(found: ObjRef, parent: &ObjRef) -> ObjRef {
    if found.0.is_empty() {
        (parent.0.clone(), found.1)
    } else {
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_or_self_managing_elements_are_not_walked() {
        let plain = StateSet::default();
        let managing = StateSet(1 << st::MANAGES_DESCENDANTS);
        assert!(walkable(plain, 0));
        assert!(walkable(plain, MAX_CHILDREN));
        assert!(!walkable(plain, MAX_CHILDREN + 1));
        assert!(!walkable(plain, i32::MAX));
        assert!(!walkable(plain, -1));
        assert!(!walkable(managing, 3));
    }
}
