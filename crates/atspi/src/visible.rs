//! The children of an element too big to walk: a spreadsheet or a long list
//! that manages its descendants, or one that reports an absurd child count.
//!
//! Asking such an element for all its children makes the app build an object
//! for each (LibreOffice Calc reports 2^31 cells and grows by gigabytes), so
//! only the children on screen are read, as screen readers do: a table's
//! cells between the corners its hit test finds, a list's items from the
//! first one on screen until they leave the element's box.

use crate::bus::{self, call, Link, ObjRef, IFACE_ACCESSIBLE, IFACE_COMPONENT, IFACE_TABLE};
use crate::discovery::Toolkit;
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
/// Hit tests relative to the window, for [`deepest_at`].
const WINDOW_COORDS: u32 = 1;

/// How the children on screen are read, as the app's profile says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Views {
    /// Whether a table's cells asked by place are kept by place for later
    /// reads ([`crate::profile::Profile::cells_by_place`]); else each read
    /// asks again, as the object at a place changes with the view.
    pub keep_cells: bool,
    /// Whether a cell asked afresh takes the id of its place rather than of
    /// its object ([`crate::ids::name_by_place`]): Qt makes a new object at
    /// every ask, so the same cell would have another id at every read, and
    /// no click on it could be checked as landing on it.
    pub ids_by_place: bool,
    /// The coordinates boxes and hit tests are asked in, one kind for all
    /// ([`crate::fetch::FetchPlan::coords`]): Qt 5 answers nonsense in
    /// window coordinates for a popup's list (a negative height).
    pub coords: u32,
}

/// Whether all of an element's children may be asked for.
pub fn walkable(states: StateSet, child_count: i32) -> bool {
    !states.has(st::MANAGES_DESCENDANTS) && (0..=MAX_CHILDREN).contains(&child_count)
}

/// The children of `obj` that show inside its box, at most [`MAX_VISIBLE`],
/// and its child count. The count (asked of the element, for one whose
/// cache may be wrong) is awaited alongside its box and a table's size, so
/// that a read of a table waits on one round trip for all three.
pub async fn visible_children(
    link: &Link,
    obj: &ObjRef,
    ifaces: Ifaces,
    child_count: impl std::future::Future<Output = i32>,
    views: Views,
) -> (Vec<ObjRef>, i32) {
    if !ifaces.has(Ifaces::COMPONENT) {
        return (Vec::new(), child_count.await);
    }
    let size = async {
        if ifaces.has(Ifaces::TABLE) {
            Some(table_size(link, obj).await)
        } else {
            None
        }
    };
    let (child_count, area, size) = tokio::join!(child_count, extents(link, obj, views), size);
    let area = area.filter(|a| a.2 > 0 && a.3 > 0);
    let (Some(area), true) = (area, child_count != 0) else {
        return (Vec::new(), child_count);
    };
    let found = match size {
        Some(size) => table_cells(link, obj, area, size, views).await,
        None => list_items(link, obj, area, child_count, views).await,
    };
    let mut out: Vec<ObjRef> = Vec::with_capacity(found.len());
    for obj in found {
        if !bus::is_null(&obj) && !out.contains(&obj) {
            out.push(obj);
        }
    }
    (out, child_count)
}

type Area = (i32, i32, i32, i32);

async fn extents(link: &Link, obj: &ObjRef, views: Views) -> Option<Area> {
    let (conn, dest) = link.route(&obj.0);
    bus::get_extents(conn, dest, obj.1.as_str(), views.coords)
        .await
        .ok()
}

/// The child the hit test finds under the point.
async fn hit_child(link: &Link, obj: &ObjRef, (x, y): (i32, i32), views: Views) -> Option<ObjRef> {
    let (conn, dest) = link.route(&obj.0);
    let hit: ObjRef = call(
        conn,
        dest,
        obj.1.as_str(),
        IFACE_COMPONENT,
        "GetAccessibleAtPoint",
        &(x, y, views.coords),
    )
    .await
    .ok()
    .filter(|o| !bus::is_null(o))?;
    Some(with_bus(hit, obj))
}

/// The element's place among its parent's children, as the app says it.
async fn index_in_parent(link: &Link, obj: &ObjRef) -> Option<i32> {
    let (conn, dest) = link.route(&obj.0);
    call(
        conn,
        dest,
        obj.1.as_str(),
        IFACE_ACCESSIBLE,
        "GetIndexInParent",
        &(),
    )
    .await
    .ok()
}

/// The child under the point, and its place among the element's children.
async fn child_at(link: &Link, obj: &ObjRef, point: (i32, i32), views: Views) -> Option<i32> {
    let hit = hit_child(link, obj, point, views).await?;
    index_in_parent(link, &hit).await.filter(|i| *i >= 0)
}

/// The (row, column) of the table's cell under the point: `None` when the
/// hit test finds nothing there, `Some(None)` when it finds a cell whose
/// place cannot be told.
async fn place_under(
    link: &Link,
    table: &ObjRef,
    columns: i32,
    point: (i32, i32),
    views: Views,
) -> Option<Option<(i32, i32)>> {
    let hit = hit_child(link, table, point, views).await?;
    let Some(index) = index_in_parent(link, &hit).await else {
        return Some(None);
    };
    if index < 0 {
        return Some(place_from_address(link, &hit, columns, index).await);
    }
    let (conn, dest) = link.route(&table.0);
    let path = table.1.as_str();
    let index = (index,);
    let (row, col) = tokio::join!(
        call::<i32, _>(conn, dest, path, IFACE_TABLE, "GetRowAtIndex", &index),
        call::<i32, _>(conn, dest, path, IFACE_TABLE, "GetColumnAtIndex", &index),
    );
    Some(row.ok().zip(col.ok()).filter(|(r, c)| *r >= 0 && *c >= 0))
}

/// LibreOffice Calc counts a cell's index as row × 16384 + column in 32
/// bits, which wraps below the sheet's first 131072 rows; its cells are named
/// by their address (`A1048526`), which gives the place when it agrees with
/// the wrapped index.
async fn place_from_address(
    link: &Link,
    cell: &ObjRef,
    columns: i32,
    index: i32,
) -> Option<(i32, i32)> {
    let (conn, dest) = link.route(&cell.0);
    let name = bus::get_prop(conn, dest, cell.1.as_str(), IFACE_ACCESSIBLE, "Name")
        .await
        .ok()
        .and_then(|v| String::try_from(v).ok())?;
    let (row, col) = parse_address(&name)?;
    let wrapped = (i64::from(row) * i64::from(columns) + i64::from(col)) as i32;
    (wrapped == index).then_some((row, col))
}

/// A spreadsheet address such as `AB12` as (row, column) from 0.
fn parse_address(name: &str) -> Option<(i32, i32)> {
    let digits = name.find(|c: char| c.is_ascii_digit())?;
    let (letters, number) = name.split_at(digits);
    if letters.is_empty() || !letters.chars().all(|c| c.is_ascii_uppercase()) {
        return None;
    }
    let col = letters.bytes().try_fold(0i32, |acc, b| {
        acc.checked_mul(26)?.checked_add(i32::from(b - b'A') + 1)
    })?;
    let row: i32 = number.parse().ok()?;
    (row >= 1).then_some((row - 1, col - 1))
}

/// A table's cells as `GetAccessibleAt` gave them, by (bus, app, table,
/// row, column), and each cell's place: LibreOffice Calc makes a new object
/// at every ask for a cell and keeps them all (its memory grew 3.5 MiB a
/// read), so each cell is asked once and its object read again after; and
/// Calc's cells do not say where they are, which the place kept here does.
type CellKey = (String, String, String, i32, i32);
#[derive(Default)]
struct Cells {
    by_place: HashMap<CellKey, ObjRef>,
    /// Each cell's table and place in it.
    place_of: HashMap<ObjRef, (ObjRef, i32, i32)>,
    /// The latest object asked at each place, where cells are named by
    /// their place but asked afresh (Qt): one entry per place.
    latest_at: HashMap<(ObjRef, i32, i32), ObjRef>,
}
static CELLS: std::sync::LazyLock<std::sync::Mutex<Cells>> =
    std::sync::LazyLock::new(Default::default);
/// More cells than any screen shows, many times over.
const MAX_KNOWN_CELLS: usize = 50_000;

fn cells() -> std::sync::MutexGuard<'static, Cells> {
    CELLS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Forgets a cell that went (a later read asks the table for it again).
pub fn forget_cell(cell: &ObjRef) {
    let mut known = cells();
    known.by_place.retain(|_, obj| obj != cell);
    known.place_of.remove(cell);
}

/// The row and column (from 0) a table gave `cell` at, when it was asked for it by place.
pub fn place_of(cell: &ObjRef) -> Option<(i32, i32)> {
    cells().place_of.get(cell).map(|(_, row, col)| (*row, *col))
}

/// The cell at the place where `cell` was, asked of its table again: Calc
/// drops the object of a cell off screen once it is idle (the cell is
/// `transient`). `None` for an element not asked for by place.
pub async fn ask_again(link: &Link, cell: &ObjRef) -> Option<ObjRef> {
    let (table, row, col) = cells().place_of.get(cell).cloned()?;
    forget_cell(cell);
    let kept = Views {
        keep_cells: true,
        ids_by_place: false,
        coords: 0,
    };
    cell_object(link, &table, (row, col), kept).await.ok()
}

/// The cell of `table` at (`row`, `col`), from 0: asked of the table once,
/// then the same object again. `None` outside the table or where it has none.
pub async fn cell_at(
    link: &Link,
    table: &ObjRef,
    (row, col): (i32, i32),
    views: Views,
) -> uidrive_core::Result<Option<ObjRef>> {
    let (rows, cols) = table_size(link, table).await;
    if row >= rows || col >= cols {
        return Ok(None);
    }
    let cell = cell_object(link, table, (row, col), views).await?;
    Ok(Some(cell).filter(|cell| !bus::is_null(cell)))
}

/// A table's rows and columns (0 for what it does not answer).
async fn table_size(link: &Link, table: &ObjRef) -> (i32, i32) {
    let (conn, dest) = link.route(&table.0);
    let path = table.1.as_str();
    let int = |name: &'static str| async move {
        bus::get_prop(conn, dest, path, IFACE_TABLE, name)
            .await
            .ok()
            .and_then(|v| i32::try_from(v).ok())
            .unwrap_or(0)
    };
    tokio::join!(int("NRows"), int("NColumns"))
}

/// `GetAccessibleAt`, through the cells already asked for where they are kept.
async fn cell_object(
    link: &Link,
    table: &ObjRef,
    (row, col): (i32, i32),
    views: Views,
) -> uidrive_core::Result<ObjRef> {
    let (conn, dest) = link.route(&table.0);
    let path = table.1.as_str();
    if !views.keep_cells {
        let cell = call::<ObjRef, _>(
            conn,
            dest,
            path,
            IFACE_TABLE,
            "GetAccessibleAt",
            &(row, col),
        )
        .await?;
        let cell = with_bus(cell, table);
        if views.ids_by_place && !bus::is_null(&cell) {
            crate::ids::name_by_place(&cell.0, cell.1.as_str(), path, (row, col));
            // Its place, as Qt's cells may not say it (no TableCell): a
            // press of a tree's item selects that row (crate::qt).
            let mut known = cells();
            let place = (table.clone(), row, col);
            if let Some(old) = known.latest_at.insert(place.clone(), cell.clone()) {
                known.place_of.remove(&old);
            }
            known.place_of.insert(cell.clone(), place);
        }
        return Ok(cell);
    }
    let key = (
        conn.server_guid().to_string(),
        table.0.clone(),
        path.to_string(),
        row,
        col,
    );
    if let Some(cell) = cells().by_place.get(&key) {
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
    let cell = with_bus(cell, table);
    let mut known = cells();
    if known.by_place.len() >= MAX_KNOWN_CELLS {
        *known = Cells::default();
    }
    known.by_place.insert(key, cell.clone());
    known
        .place_of
        .insert(cell.clone(), (table.clone(), row, col));
    Ok(cell)
}

/// The deepest element under a point of `window` (window coordinates), by
/// the toolkit's own hit test, level by level unless `toolkit` answers the
/// deepest at once; `unsupported` when the toolkit has none.
pub async fn deepest_at(
    link: &Link,
    toolkit: Toolkit,
    window: &ObjRef,
    x: i32,
    y: i32,
) -> uidrive_core::Result<Option<uidrive_core::protocol::ElementId>> {
    let levels = if toolkit.hit_test_finds_deepest() {
        1
    } else {
        64
    };
    let mut at = window.clone();
    for depth in 0..levels {
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
/// corners, with the headers of those columns; `size` is its (rows, columns).
async fn table_cells(
    link: &Link,
    obj: &ObjRef,
    area: Area,
    size: (i32, i32),
    views: Views,
) -> Vec<ObjRef> {
    let (x, y, w, h) = area;
    let (conn, dest) = link.route(&obj.0);
    let path = obj.1.as_str();
    let (rows, cols) = size;
    if rows <= 0 || cols <= 0 {
        return Vec::new();
    }
    // Boxes come from the app: a huge or negative one (pluma's text view)
    // must not overflow.
    let (top_left, bottom_right) = tokio::join!(
        place_under(
            link,
            obj,
            cols,
            (x.saturating_add(1), y.saturating_add(1)),
            views
        ),
        place_under(
            link,
            obj,
            cols,
            (
                x.saturating_add(w).saturating_sub(2),
                y.saturating_add(h).saturating_sub(2)
            ),
            views
        ),
    );
    // Nothing under the top-left corner: the grid from its start. A cell
    // there (or at the far corner) whose place is unknown: none are read, as
    // reading cells elsewhere may cost the app dearly (Calc works out an
    // off-screen cell's box from every row above it).
    let Some((row0, col0)) = top_left.unwrap_or(Some((0, 0))) else {
        return Vec::new();
    };
    let (row1, col1) = match bottom_right {
        // Without a hit test for the far corner, a screenful of a usual grid.
        None => (row0 + 50, col0 + 26),
        Some(Some(place)) => place,
        Some(None) => return Vec::new(),
    };
    let col1 = col1.clamp(col0, cols - 1);
    let width = (col1 - col0 + 1) as usize;
    let most_rows = (MAX_VISIBLE / width).max(1) as i32;
    let row1 = row1.clamp(row0, (rows - 1).min(row0 + most_rows - 1));
    let headers = (col0..=col1).map(|col| async move {
        call::<ObjRef, _>(conn, dest, path, IFACE_TABLE, "GetColumnHeader", &(col,)).await
    });
    let cells = (row0..=row1)
        .flat_map(|row| (col0..=col1).map(move |col| cell_object(link, obj, (row, col), views)));
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
async fn list_items(
    link: &Link,
    obj: &ObjRef,
    area: Area,
    child_count: i32,
    views: Views,
) -> Vec<ObjRef> {
    let (x, y, w, h) = area;
    let (conn, dest) = link.route(&obj.0);
    let path = obj.1.as_str();
    let start = child_at(link, obj, (x.saturating_add(1), y.saturating_add(1)), views)
        .await
        .unwrap_or(0);
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
            let place = extents(link, &child, views).await;
            Some((child, place))
        });
        let mut any_inside = false;
        for (child, place) in join_all(read).await.into_iter().flatten() {
            let inside = place.is_some_and(|(cx, cy, cw, ch)| {
                let (cx, cy, cw, ch) = (cx as i64, cy as i64, cw as i64, ch as i64);
                let (x, y, w, h) = (x as i64, y as i64, w as i64, h as i64);
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

    #[test]
    fn spreadsheet_addresses_give_row_and_column() {
        assert_eq!(parse_address("A1"), Some((0, 0)));
        assert_eq!(parse_address("U52"), Some((51, 20)));
        assert_eq!(parse_address("AA3"), Some((2, 26)));
        assert_eq!(parse_address("XFD1048576"), Some((1_048_575, 16_383)));
        for not_one in ["", "A", "12", "a1", "A0", "Sheet1", "A1B"] {
            assert_eq!(parse_address(not_one), None, "{not_one}");
        }
    }
}
