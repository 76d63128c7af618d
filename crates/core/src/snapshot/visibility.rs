//! Which elements a person would see on screen.
//!
//! Toolkits flag elements `offscreen` in ways that do not match the screen:
//! GTK 4 flags containers whose children are drawn (gtk4-demo's Clipboard
//! demo holds its "Copy this!" field in a group flagged offscreen), and a row
//! scrolled out of a list may carry no flag at all. So an element counts as
//! hidden when
//!
//! - its bounds lie outside the visible part of its window: the window's box,
//!   cut down by every scrolling ancestor's box (scroll areas, lists, trees,
//!   tables, grids); or
//! - it is flagged offscreen and nothing inside it is both unflagged and on
//!   screen (a flagged container of visible things is not really hidden); or
//! - an ancestor is hidden in this sense.
//!
//! An element without bounds and without the flag goes with its parent.

use crate::protocol::{Bounds, Role, State, Tree};

/// Roles whose box cuts what is inside it: what scrolls out of them is gone.
fn clips(role: &Role) -> bool {
    matches!(
        role,
        Role::Scroll | Role::List | Role::Tree | Role::Table | Role::Grid | Role::TreeGrid
    )
}

fn area(bounds: Option<&Bounds>) -> Option<Bounds> {
    bounds.filter(|b| !b.is_empty()).copied()
}

fn cut(a: Option<Bounds>, b: Option<Bounds>) -> Option<Bounds> {
    match (a, b) {
        (None, other) | (other, None) => other,
        (Some(a), Some(b)) => {
            let x = a.x.max(b.x);
            let y = a.y.max(b.y);
            let right = (a.x + a.width).min(b.x + b.width);
            let bottom = (a.y + a.height).min(b.y + b.height);
            Some(Bounds::new(
                x,
                y,
                (right - x).max(0.0),
                (bottom - y).max(0.0),
            ))
        }
    }
}

/// For each node of `tree` (`parents[i]`: the index of node i's parent, which
/// comes before it), whether it is hidden from a person looking at the window.
pub(super) fn hidden(tree: &Tree, parents: &[Option<usize>]) -> Vec<bool> {
    let nodes = &tree.nodes;
    let n = nodes.len();
    // The visible part of the window inside each node: what its children may show in.
    let mut clip: Vec<Option<Bounds>> = Vec::with_capacity(n);
    // Whether the node's own box is on screen: Some(false) outside the visible part.
    let mut on_screen: Vec<Option<bool>> = Vec::with_capacity(n);
    for (at, node) in nodes.iter().enumerate() {
        let own = area(node.bounds.as_ref());
        let outer = parents[at].and_then(|p| clip[p]);
        on_screen.push(match (own, outer) {
            (Some(b), Some(c)) => Some(!c.is_empty() && b.intersects(&c)),
            (Some(_), None) => Some(true),
            (None, _) => None,
        });
        // A top element is the window's content: its box is the window's.
        let inner = if parents[at].is_none() || clips(&node.role) {
            cut(outer, own)
        } else {
            outer
        };
        clip.push(inner);
    }
    let flagged: Vec<bool> = nodes
        .iter()
        .map(|node| node.has_state(&State::Offscreen))
        .collect();
    // Whether something at or below the node is unflagged and on screen.
    let mut shown_inside: Vec<bool> = (0..n)
        .map(|at| !flagged[at] && on_screen[at] == Some(true))
        .collect();
    for at in (0..n).rev() {
        if shown_inside[at] {
            if let Some(p) = parents[at] {
                shown_inside[p] = true;
            }
        }
    }
    // Inside a menu that shows, only an element's own state hides it: GTK 4
    // keeps the page of a popover menu's stack without its visible flag.
    let mut in_open_menu = vec![false; n];
    let mut hidden = vec![false; n];
    for (at, node) in nodes.iter().enumerate() {
        let own = if flagged[at] {
            !shown_inside[at]
        } else {
            on_screen[at] == Some(false)
        };
        let (parent_hidden, parent_in_menu) = match parents[at] {
            Some(p) => (hidden[p] && !in_open_menu[p], in_open_menu[p]),
            None => (false, false),
        };
        hidden[at] = own || parent_hidden;
        in_open_menu[at] =
            parent_in_menu || (matches!(node.role, Role::Menu | Role::Popup) && !hidden[at]);
    }
    hidden
}
