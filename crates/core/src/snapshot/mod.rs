//! Snapshots for agents: a window's elements a line each, with short refs,
//! filters, skeletons and diffs.
//!
//! ```text
//! @e2 [button] "Add" key=add
//! @e3 [textField] "Name" value="Ada" key=name focused
//! ```
//!
//! - [`RefMap`] gives elements refs that last while they live and are never reused.
//! - [`Snapshot`] is what a window showed, element by element, with refs.
//! - [`View`] chooses what to print: controls only, a depth-limited skeleton, a subtree.
//! - [`diff`] tells what changed between two snapshots of a window.

mod diff;
mod line;
mod refs;
mod view;
mod visibility;

pub use diff::{brief, diff, Diff, DiffLine, Mark};
pub use line::{is_interactive, spoofs, terminal_safe};
pub use refs::{Ref, RefMap, RefTarget};
pub use view::{Picked, View};

use crate::protocol::{ElementId, Node, Role, Tree, WindowId};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// One element of a snapshot: what its line shows, and where it sits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Element {
    /// The element's ref, as `@e2`.
    #[serde(rename = "ref")]
    pub r: Ref,
    /// Its id in the read the snapshot was taken from.
    pub id: ElementId,
    /// What it is.
    pub role: Role,
    /// Its label, trimmed; `None` when it has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Its value (a field's text, else a range's number); `None` when empty or the same as the label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The app's key for it, as text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The text selected in a field, when some is (a find's match, say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected: Option<String>,
    /// The states worth reading (`checked`, `disabled`, `focused`...), not every flag.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub states: Vec<String>,
    /// How deep in the window's tree: 0 for a top element.
    pub depth: u32,
    /// The parent's ref, unless it is at the top.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<Ref>,
    /// How many direct children it has.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub children: u32,
    /// A control an agent can act on (see [`is_interactive`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interactive: bool,
    /// Not on screen: hidden, scrolled out of view, or inside something
    /// that is (see the `visibility` module for how it is decided).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub offscreen: bool,
    /// Children the element has that the read did not get: a long list or
    /// table whose toolkit gives only the rows on screen (its node is
    /// `truncated`, with a `childCount`). Its line says how many.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unread: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Element {
    /// The element's line: `@e2 [button] "Add" key=add`, leaving out what is empty.
    pub fn line(&self) -> String {
        line::format(self)
    }

    /// Whether it had the keyboard focus when the snapshot was taken.
    pub fn is_focused(&self) -> bool {
        self.states.iter().any(|s| s == "focused")
    }
}

/// An element's line outside a snapshot (as an action reports what it acted
/// on): its ref when it has one, then its role, label, value, key and states.
pub fn node_line(r: Option<Ref>, node: &Node) -> String {
    let element = Element {
        r: r.unwrap_or(Ref(0)),
        id: node.id,
        role: node.role.clone(),
        label: line::text_of(node.label.as_deref()),
        value: line::value_of(node),
        key: node.key.as_ref().map(|k| k.to_string()),
        selected: line::selected_of(node),
        states: line::states_of(node, false),
        depth: 0,
        parent: None,
        children: 0,
        interactive: is_interactive(node),
        offscreen: false,
        unread: 0,
    };
    match r {
        Some(r) => format!("{r} {}", line::body(&element)),
        None => line::body(&element),
    }
}

/// What one window showed: its elements in tree order, a parent before its children.
///
/// [`App::snapshot`](crate::App::snapshot) takes one with refs that last
/// across the App's snapshots; a ref names its element to
/// [`App::get_by_ref`](crate::App::get_by_ref):
///
/// ```
/// use std::sync::Arc;
/// use uidrive_core::snapshot::View;
/// use uidrive_core::{expect, App, MemoryDriver};
///
/// let app = App::new(Arc::new(MemoryDriver::new()));
/// let snapshot = app.snapshot(None)?;
/// let add = snapshot
///     .elements
///     .iter()
///     .find(|e| e.label.as_deref() == Some("Add"))
///     .unwrap();
/// println!("{}", add.line()); // as `@e2 [button] "Add" key=add`
/// assert!(add.line().starts_with(&format!("{} [button] \"Add\"", add.r)));
///
/// // Only the controls an agent can act on, a line each.
/// let text = snapshot.render(&View::interactive())?;
/// assert!(text.contains("[button] \"Add\""), "{text}");
/// assert!(!text.contains("[text]"), "{text}");
///
/// // The ref drives a locator, and the element keeps it in later snapshots.
/// app.get_by_ref(&add.r.to_string())?.click()?;
/// expect(&app.get_by_key("count")).to_have_text("Count: 1")?;
/// let again = app.snapshot(None)?;
/// assert_eq!(again.element(add.r).map(|e| e.id), Some(add.id));
/// # Ok::<(), uidrive_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Snapshot {
    /// The window the snapshot is of.
    pub window: WindowId,
    /// Its elements in tree order, a parent before its children.
    pub elements: Vec<Element>,
}

impl Snapshot {
    /// Takes a snapshot of `tree`, giving its elements refs from `refs`
    /// (elements seen before keep theirs; the refs of gone ones retire).
    pub fn take(tree: &Tree, refs: &mut RefMap) -> Snapshot {
        let assigned = refs.observe(tree);
        let index: HashMap<ElementId, usize> = tree
            .nodes
            .iter()
            .enumerate()
            .map(|(at, n)| (n.id, at))
            .collect();
        let parents: Vec<Option<usize>> = tree
            .nodes
            .iter()
            .enumerate()
            .map(|(at, node)| {
                node.parent
                    .and_then(|p| index.get(&p).copied())
                    .filter(|p| *p < at)
            })
            .collect();
        let hidden = visibility::hidden(tree, &parents);
        let mut elements: Vec<Element> = Vec::with_capacity(tree.nodes.len());
        for (at, node) in tree.nodes.iter().enumerate() {
            let parent_at = parents[at];
            let depth = parent_at.map_or(0, |p| elements[p].depth + 1);
            if let Some(p) = parent_at {
                elements[p].children += 1;
            }
            let focused = tree.focus == Some(node.id);
            elements.push(Element {
                r: assigned[at],
                id: node.id,
                role: node.role.clone(),
                label: line::text_of(node.label.as_deref()),
                value: line::value_of(node),
                key: node.key.as_ref().map(|k| k.to_string()),
                selected: line::selected_of(node),
                states: line::states_of(node, focused),
                depth,
                parent: parent_at.map(|p| assigned[p]),
                children: 0,
                // A row a person sees is something to pick, whether or not
                // the toolkit calls it selectable (GTK 4's list rows do not).
                interactive: is_interactive(node)
                    || matches!(node.role, Role::ListItem | Role::Row),
                // The focused element is where keys go: it counts as shown.
                offscreen: hidden[at] && !focused,
                unread: 0,
            });
        }
        for (element, node) in elements.iter_mut().zip(&tree.nodes) {
            if let (true, Some(count)) = (node.truncated, node.child_count) {
                let count = u32::try_from(count).unwrap_or(u32::MAX);
                element.unread = count.saturating_sub(element.children);
            }
        }
        Snapshot {
            window: tree.window,
            elements,
        }
    }

    /// The element a ref names, if this snapshot has it.
    pub fn element(&self, r: Ref) -> Option<&Element> {
        self.elements.iter().find(|e| e.r == r)
    }

    /// The lines `view` shows, as text ending in a newline (empty if none).
    pub fn render(&self, view: &View) -> crate::Result<String> {
        let lines = view.lines(self)?;
        let mut text = lines.join("\n");
        if !text.is_empty() {
            text.push('\n');
        }
        Ok(text)
    }
}

#[cfg(test)]
mod tests;

impl crate::App {
    /// A snapshot of a window (the focused one, else the first). Refs are kept
    /// by the App: an element keeps its ref across this App's snapshots.
    pub fn snapshot(&self, window: Option<WindowId>) -> crate::Result<Snapshot> {
        let tree = self.tree(window)?;
        let mut refs = self.refs.lock().unwrap_or_else(|p| p.into_inner());
        Ok(Snapshot::take(&tree, &mut refs))
    }

    /// A locator for the element a ref of this App's snapshots (`@e3`) names;
    /// `stale_ref` once the element is gone, `invalid_request` for a malformed ref.
    pub fn get_by_ref(&self, r: &str) -> crate::Result<crate::Locator> {
        let r: Ref = r.parse()?;
        let refs = self.refs.lock().unwrap_or_else(|p| p.into_inner());
        let target = refs.resolve(r)?;
        Ok(self.window(target.window).get_by_id(target.id))
    }
}
