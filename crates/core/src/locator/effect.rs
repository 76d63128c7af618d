//! What an action came to: the route it took, what the tree showed of its
//! effect, and the element it was made on as last read. One shape for every
//! front end (Rust, the C ABI, Python, Node, the command line, MCP, traces).
//!
//! An action either fails, naming what was observed, or answers one of:
//!
//! - [`Effect::Confirmed`]: the tree showed the change the action is for
//!   (the text reads so, the box is checked, the window went), said in a few
//!   words;
//! - [`Effect::Unverifiable`]: nothing the tree shows can prove it (a key
//!   chord whose effect is the app's, a plain button that reads as before),
//!   saying what was checked.
//!
//! The element acted on is followed by its identity, or, when the toolkit
//! made it anew, by its place (role and box), and only then by the
//! locator's description: an element whose name is its value (a GTK 3 combo
//! box named by its choice) is not lost when the action changes that name.

use super::matching::TreeIndex;
use super::resolve::describe_node;
use super::Locator;
use crate::protocol::{Action, ElementId, Node, Tree, WindowId};
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::collections::{HashMap, HashSet};

/// How an action reached the element.
#[derive(Debug, Clone, PartialEq)]
pub enum Route {
    /// The element's own action, as assistive technology performs it.
    Semantic(Action),
    /// Real pointer or key input at the element.
    Input,
    /// Nothing had to be done: already checked, already in view, no text to type.
    NotNeeded,
}

impl Route {
    /// The route as one word: `semantic:press`, `input` or `not_needed`.
    pub fn as_str(&self) -> String {
        match self {
            Route::Semantic(action) => format!("semantic:{action}"),
            Route::Input => "input".into(),
            Route::NotNeeded => "not_needed".into(),
        }
    }
}

/// What the tree showed of an action's effect.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// The tree showed the change the action is for: what was seen.
    Confirmed(String),
    /// Nothing the tree shows can prove the action's effect: what was checked.
    Unverifiable(String),
}

impl Effect {
    /// `confirmed` or `unverifiable`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Effect::Confirmed(_) => "confirmed",
            Effect::Unverifiable(_) => "unverifiable",
        }
    }

    /// What was seen (confirmed) or what was checked (unverifiable).
    pub fn detail(&self) -> &str {
        match self {
            Effect::Confirmed(seen) | Effect::Unverifiable(seen) => seen,
        }
    }

    /// Whether the tree showed the effect.
    pub fn is_confirmed(&self) -> bool {
        matches!(self, Effect::Confirmed(_))
    }
}

/// What an action did.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionOutcome {
    /// How the action was done: an accessibility action, real input, or nothing needed.
    pub route: Route,
    /// What the tree showed of the action's effect.
    pub effect: Effect,
    /// The element acted on (the option, for `select_option`; the focused
    /// element, else the window, for keyboard input), as last read: after
    /// the action where it was read again, else just before it.
    pub element: Node,
    /// The window acted in.
    pub window: WindowId,
    /// Windows that went because of the action (a dialog's Close): the
    /// action answers success and names them instead of failing on them.
    pub closed: Vec<WindowId>,
}

/// As JSON for every front end and trace:
/// `{"route": "semantic:press", "effect": "confirmed", "observed": "...",
/// "window": 1, "element": {...}, "closed": [2]}`, where an unverifiable
/// effect has `checked` instead of `observed`, and `closed` is left out when
/// no window went.
impl Serialize for ActionOutcome {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("route", &self.route.as_str())?;
        map.serialize_entry("effect", self.effect.as_str())?;
        match &self.effect {
            Effect::Confirmed(seen) => map.serialize_entry("observed", seen)?,
            Effect::Unverifiable(checked) => map.serialize_entry("checked", checked)?,
        }
        map.serialize_entry("window", &self.window)?;
        map.serialize_entry("element", &self.element)?;
        if !self.closed.is_empty() {
            map.serialize_entry("closed", &self.closed)?;
        }
        map.end()
    }
}

/// The acted-on element in a later read: by its id; else, where the toolkit
/// made it anew, the one element of its role at its place (the same box);
/// else the locator's one match.
pub(crate) fn find_again(locator: &Locator, tree: &Tree, acted: &Node) -> Option<Node> {
    if let Some(node) = tree.node(acted.id) {
        return Some(node.clone());
    }
    if let Some(bounds) = acted.bounds.filter(|b| !b.is_empty()) {
        let mut at_place = tree
            .nodes
            .iter()
            .filter(|n| n.role == acted.role && n.bounds == Some(bounds));
        if let (Some(one), None) = (at_place.next(), at_place.next()) {
            return Some(one.clone());
        }
    }
    let picked = TreeIndex::new(tree).select(&locator.steps, locator.include_hidden);
    match picked.as_slice() {
        [at] => Some(tree.nodes[*at].clone()),
        _ => None,
    }
}

/// How `after` differs from `before` in what a person reads of one element
/// (its name, value, number, states, selection), said in a few words; `None`
/// when it reads the same.
pub(crate) fn change(before: &Node, after: &Node) -> Option<String> {
    let mut said = Vec::new();
    if before.label != after.label {
        said.push(format!(
            "its name {} -> {}",
            quoted(&before.label),
            quoted(&after.label)
        ));
    }
    if before.value != after.value {
        said.push(format!(
            "its value {} -> {}",
            quoted(&before.value),
            quoted(&after.value)
        ));
    }
    if before.now != after.now {
        let number = |n: Option<f64>| n.map_or("none".to_string(), |n| n.to_string());
        said.push(format!(
            "its number {} -> {}",
            number(before.now),
            number(after.now)
        ));
    }
    let came: Vec<&str> = after
        .states
        .iter()
        .filter(|s| !before.states.contains(s))
        .map(|s| s.as_str())
        .collect();
    let went: Vec<&str> = before
        .states
        .iter()
        .filter(|s| !after.states.contains(s))
        .map(|s| s.as_str())
        .collect();
    if !came.is_empty() {
        said.push(format!("now {}", came.join(", ")));
    }
    if !went.is_empty() {
        said.push(format!("no longer {}", went.join(", ")));
    }
    if before.selection != after.selection && said.is_empty() {
        said.push("its selection moved".into());
    }
    (!said.is_empty()).then(|| said.join("; "))
}

/// How the window changed around the acted-on element `target` between two
/// reads of it (elements that came or went, names and states that changed),
/// in a few words; `None` when nothing did. Both reads are a locator's, so
/// the other elements are compared by what such a read gives of every
/// element: role, name, states and place in the tree.
pub(crate) fn window_change(before: &Tree, after: &Tree, target: ElementId) -> Option<String> {
    let was: HashMap<ElementId, &Node> = before.nodes.iter().map(|n| (n.id, n)).collect();
    let now: HashSet<ElementId> = after.nodes.iter().map(|n| n.id).collect();
    let came: Vec<&Node> = after
        .nodes
        .iter()
        .filter(|n| !was.contains_key(&n.id))
        .collect();
    let went = before.nodes.iter().filter(|n| !now.contains(&n.id)).count();
    let changed: Vec<&Node> = after
        .nodes
        .iter()
        .filter(|n| n.id != target)
        .filter(|n| {
            was.get(&n.id)
                .is_some_and(|w| w.label != n.label || w.states != n.states)
        })
        .collect();
    let mut said = Vec::new();
    let example = |nodes: &[&Node]| {
        nodes
            .iter()
            .find(|n| n.label.is_some())
            .map(|n| format!(" ({})", describe_node(n)))
            .unwrap_or_default()
    };
    if !came.is_empty() {
        said.push(format!("{} element(s) came{}", came.len(), example(&came)));
    }
    if went > 0 {
        said.push(format!("{went} element(s) went"));
    }
    if !changed.is_empty() {
        said.push(format!(
            "{} element(s) changed name or state{}",
            changed.len(),
            example(&changed)
        ));
    }
    (!said.is_empty()).then(|| format!("the window changed: {}", said.join(", ")))
}

fn quoted(text: &Option<String>) -> String {
    match text {
        Some(text) => format!("{:?}", crate::text_check::clip(text)),
        None => "none".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::State;

    #[test]
    fn one_json_shape() {
        let outcome = ActionOutcome {
            route: Route::NotNeeded,
            effect: Effect::Confirmed("checked already".into()),
            element: Node::default(),
            window: 3,
            closed: Vec::new(),
        };
        let json = serde_json::to_value(&outcome).unwrap();
        assert_eq!(json["route"], "not_needed");
        assert_eq!(json["effect"], "confirmed");
        assert_eq!(json["observed"], "checked already");
        assert_eq!(json["window"], 3);
        assert!(json.get("closed").is_none());
        let outcome = ActionOutcome {
            route: Route::Semantic(Action::Press),
            effect: Effect::Unverifiable("the button reads as before".into()),
            closed: vec![2],
            ..outcome
        };
        let json = serde_json::to_value(&outcome).unwrap();
        assert_eq!(json["route"], "semantic:press");
        assert_eq!(json["effect"], "unverifiable");
        assert_eq!(json["checked"], "the button reads as before");
        assert_eq!(json["closed"], serde_json::json!([2]));
    }

    #[test]
    fn a_change_is_said_in_a_few_words() {
        let before = Node {
            label: Some("Left".into()),
            ..Node::default()
        };
        assert_eq!(change(&before, &before), None);
        let after = Node {
            label: Some("Middle".into()),
            states: vec![State::Checked],
            ..Node::default()
        };
        assert_eq!(
            change(&before, &after).as_deref(),
            Some("its name \"Left\" -> \"Middle\"; now checked")
        );
    }
}
