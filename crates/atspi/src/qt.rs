//! Qt's accessibility bridge (QAccessibleTree, Qt 5 and 6): where its tree
//! views answer for the wrong row, and what is asked instead.
//!
//! Qt Designer 6's New Form dialog: pressing the tree's "Main Window" item
//! selected "Dialog without Buttons", the row above; a click at the item's
//! centre was judged not to land on it (the hit test answered the row above
//! too) and fell back to the press. Qt's item press
//! (`QAccessibleTableCell::selectCell`, in a view that selects rows) asks
//! the tree to select row `m_index.row()`, the item's row *within its
//! parent*, while the tree's `selectRow` takes a row of the whole view:
//! every item below the first level selects a row above its own. Its boxes
//! (`visualRect`) and its own row (`TableCell`, the row in the view) are
//! right. So an item of a Qt tree is pressed by asking the tree to select
//! the item's own row; and a hit test that lands in a tree names the item
//! by its place, as reads do.

use crate::bus::{self, call, ObjRef, IFACE_ACCESSIBLE, IFACE_COMPONENT, IFACE_TABLE};
use crate::discovery::AppRef;
use crate::driver::Inner;
use crate::fetch::RawNode;
use crate::lanes;
use std::time::Duration;
use uidrive_core::protocol::ElementId;
use uidrive_core::Result;

/// AT-SPI's roles of a tree and of a tree table.
const TREE_ROLES: [u32; 2] = [65, 66];
/// AT-SPI's window coordinates, as hit tests ask.
const WINDOW_COORDS: u32 = 1;

/// Whether the app is read through Qt's bridge.
pub fn is_qt(app: &AppRef) -> bool {
    app.toolkit_name.eq_ignore_ascii_case("qt")
}

/// Presses an item of a Qt tree by selecting its own row (see the module's
/// doc); `None` when `raw` is not such an item, to be pressed as any other.
pub async fn press_tree_item(inner: &Inner, raw: &RawNode) -> Result<Option<bool>> {
    let (Some(obj), Some((row, ..))) = (&raw.obj, raw.cell) else {
        return Ok(None);
    };
    if !is_qt(&inner.app) {
        return Ok(None);
    }
    let Some(tree) = parent_tree(inner, obj).await? else {
        return Ok(None);
    };
    let done = lanes::call_done(
        inner,
        &tree.0,
        tree.1.as_str(),
        IFACE_TABLE,
        "AddRowSelection",
        &(row,),
    )
    .await?;
    inner.activity.acted(&inner.app.bus, Duration::ZERO);
    Ok(Some(done))
}

/// The element's parent, when it is a tree.
async fn parent_tree(inner: &Inner, obj: &ObjRef) -> Result<Option<ObjRef>> {
    let (conn, dest) = inner.link.route(&obj.0);
    let parent = bus::get_prop(conn, dest, obj.1.as_str(), IFACE_ACCESSIBLE, "Parent").await?;
    let Ok(parent) = <(String, zbus::zvariant::OwnedObjectPath)>::try_from(parent) else {
        return Ok(None);
    };
    if bus::is_null(&parent) {
        return Ok(None);
    }
    let parent = if parent.0.is_empty() {
        (obj.0.clone(), parent.1)
    } else {
        parent
    };
    let (conn, dest) = inner.link.route(&parent.0);
    let role: u32 = call(
        conn,
        dest,
        parent.1.as_str(),
        IFACE_ACCESSIBLE,
        "GetRole",
        &(),
    )
    .await?;
    Ok(TREE_ROLES.contains(&role).then_some(parent))
}

/// The element at the window point `(x, y)` of a Qt app's `window`,
/// asked level by level as Qt answers (one level down each time). An item
/// of a tree comes back as an object made anew for this answer (Qt's
/// `QAccessibleTree::child` makes one at every call): it is named by the
/// place it gives (its row and column), as reads name the tree's items, so
/// the hit test and the read agree on which element it is.
pub async fn deepest_at(
    inner: &Inner,
    window: &ObjRef,
    x: i32,
    y: i32,
) -> Result<Option<ElementId>> {
    let mut at = window.clone();
    for _ in 0..64 {
        let (conn, dest) = inner.link.route(&at.0);
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
            Ok(hit) if !bus::is_null(&hit) && hit.1.as_str() != at.1.as_str() => {
                if hit.0.is_empty() {
                    (at.0.clone(), hit.1)
                } else {
                    hit
                }
            }
            Ok(_) => break,
            Err(e) if e.code == uidrive_core::ErrorCode::Failed => break,
            Err(e) => return Err(e),
        };
        if let Some(tree) = parent_tree(inner, &hit).await? {
            let item = place_in_tree(inner, &tree, &hit).await;
            let item = item.unwrap_or(hit);
            return Ok(Some(crate::ids::element_id(&item.0, item.1.as_str())));
        }
        at = hit;
    }
    Ok((at != *window).then(|| crate::ids::element_id(&at.0, at.1.as_str())))
}

/// The tree's own object for the item `hit` (made anew by a hit test): the
/// one its place (row and column, from the hit's index among the tree's
/// children) names, as reads ask for it.
async fn place_in_tree(inner: &Inner, tree: &ObjRef, hit: &ObjRef) -> Option<ObjRef> {
    let (conn, dest) = inner.link.route(&hit.0);
    let index: i32 = call(
        conn,
        dest,
        hit.1.as_str(),
        IFACE_ACCESSIBLE,
        "GetIndexInParent",
        &(),
    )
    .await
    .ok()?;
    let (conn, dest) = inner.link.route(&tree.0);
    let path = tree.1.as_str();
    let at = (index,);
    let (row, col) = tokio::join!(
        call::<i32, _>(conn, dest, path, IFACE_TABLE, "GetRowAtIndex", &at),
        call::<i32, _>(conn, dest, path, IFACE_TABLE, "GetColumnAtIndex", &at),
    );
    let views = inner.profile.views();
    crate::visible::cell_at(&inner.link, tree, (row.ok()?, col.ok()?), views)
        .await
        .ok()
        .flatten()
}
