//! What a locator reads. `count` and `all` take one read as it is; the others
//! are strict: they wait (up to the action timeout) for the locator to match,
//! and fail at once with `ambiguous` when it matches more than one element.

use super::ladder::Needs;
use super::matching::is_shown;
use super::resolve::{ambiguous, worth_retrying};
use super::Locator;
use crate::error::{ErrorCode, Result};
use crate::protocol::{Bounds, Node, State, Tree};

impl Locator {
    /// How many elements match now. A window that is not there counts none.
    pub fn count(&self) -> Result<usize> {
        match self.read() {
            Ok(read) => Ok(read.matches.len()),
            Err(e) if e.code == ErrorCode::NoWindow => Ok(0),
            Err(e) => Err(e),
        }
    }

    /// A locator for each element that matches now, pinned by position (`nth(i)`).
    pub fn all(&self) -> Result<Vec<Locator>> {
        Ok((0..self.count()?).map(|i| self.nth(i)).collect())
    }

    /// The one element, with all its protocol fields, and the read it came from.
    pub(crate) fn resolve_one(&self, what: &str) -> Result<(Tree, Node)> {
        let mut poller = self.poller(self.action_timeout());
        let ready = self.wait_ready(what, Needs::ATTACHED, &mut poller)?;
        let node = ready.node().clone();
        Ok((ready.tree, node))
    }

    /// The element's protocol fields.
    pub fn node(&self) -> Result<Node> {
        self.resolve_one("node").map(|(_, node)| node)
    }

    /// What a person reads on it: its label, else its value ("" for neither).
    pub fn text(&self) -> Result<String> {
        let node = self.resolve_one("text")?.1;
        Ok(node.text().unwrap_or_default().to_string())
    }

    /// Its value: the text of a field, or a slider's number when it has no text value.
    pub fn value(&self) -> Result<Option<String>> {
        let node = self.resolve_one("value")?.1;
        Ok(value_of(&node))
    }

    pub fn states(&self) -> Result<Vec<State>> {
        Ok(self.resolve_one("states")?.1.states)
    }

    pub fn bounds(&self) -> Result<Option<Bounds>> {
        Ok(self.resolve_one("bounds")?.1.bounds)
    }

    pub fn is_enabled(&self) -> Result<bool> {
        Ok(!self
            .resolve_one("is_enabled")?
            .1
            .has_state(&State::Disabled))
    }

    pub fn is_checked(&self) -> Result<bool> {
        Ok(self.resolve_one("is_checked")?.1.has_state(&State::Checked))
    }

    pub fn is_focused(&self) -> Result<bool> {
        let (tree, node) = self.resolve_one("is_focused")?;
        Ok(tree.focus == Some(node.id))
    }

    /// Whether the one element shows now; `false` at once when nothing
    /// matches (hidden elements match only with `include_hidden`). Does not wait.
    pub fn is_visible(&self) -> Result<bool> {
        let read = match self.read() {
            Ok(read) => read,
            Err(e) if worth_retrying(&e) => return Ok(false),
            Err(e) => return Err(e),
        };
        match read.matches.len() {
            0 => Ok(false),
            1 => Ok(is_shown(read.node(read.matches[0]))),
            _ => Err(ambiguous(self, &read, "is_visible")),
        }
    }

    pub fn is_hidden(&self) -> Result<bool> {
        self.is_visible().map(|visible| !visible)
    }

    /// Whether the one element reads `expanded` (a tree row, expander or
    /// combo box that shows what it holds).
    pub fn is_expanded(&self) -> Result<bool> {
        let (tree, node) = self.resolve_one("is_expanded")?;
        // A GTK 4 tree row says it on the expander inside it.
        let at = tree.nodes.iter().position(|n| n.id == node.id);
        let shown = at.map(|at| &tree.nodes[super::actions::expander_at(&tree, at)]);
        Ok(shown.unwrap_or(&node).has_state(&State::Expanded))
    }

    /// Whether the one element takes text and is not read-only (the rule
    /// `to_be_editable` holds it to).
    pub fn is_editable(&self) -> Result<bool> {
        let node = self.resolve_one("is_editable")?.1;
        Ok(is_editable(&node))
    }

    /// Every element that matches now, in tree order, and the read they
    /// came from (one read, not waited for: as `count`). A window that is
    /// not there matches none.
    pub fn matching(&self) -> Result<(Option<Tree>, Vec<Node>)> {
        match self.read() {
            Ok(read) => {
                let nodes = read
                    .matches
                    .iter()
                    .map(|&at| read.node(at).clone())
                    .collect();
                Ok((Some(read.tree), nodes))
            }
            Err(e) if e.code == ErrorCode::NoWindow => Ok((None, Vec::new())),
            Err(e) => Err(e),
        }
    }
}

/// Takes text and is not read-only.
pub(crate) fn is_editable(node: &Node) -> bool {
    super::takes_text(node) && !node.has_state(&State::ReadOnly)
}

/// A node's value as text: its `value`, else a slider's `now`.
pub(crate) fn value_of(node: &Node) -> Option<String> {
    node.value
        .clone()
        .or_else(|| node.now.map(super::actions::number))
}
