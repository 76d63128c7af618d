//! A part of a compound widget acted on as the widget: the label inside a
//! combo box, a row inside a list, the inner button of a menu button, the
//! text of a check box's row. `check`, `fill` and `select_option` on such a
//! part act on the element close by (an ancestor or a descendant) that
//! takes the action; when there is none they fail at once, saying why,
//! instead of waiting for the element to become what it never will.

use super::ladder::takes_text;
use super::resolve::describe_node;
use super::{Locator, WindowRef};
use crate::error::{Error, ErrorCode, Result};
use crate::protocol::{Action, Node, Role, State};
use std::collections::HashMap;

/// What an action needs of its element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// A check box, switch, toggle or radio (`check`, `uncheck`, `set_checked`).
    Check,
    /// A field that takes text (`fill`).
    Fill,
    /// A widget that offers items: a combo box, list, menu button, tab list (`select_option`).
    Select,
}

/// How far up or down from the part the widget may be.
const REACH: usize = 3;

impl Purpose {
    fn action(self) -> &'static str {
        match self {
            Purpose::Check => "check",
            Purpose::Fill => "fill",
            Purpose::Select => "select_option",
        }
    }

    fn what(self) -> &'static str {
        match self {
            Purpose::Check => "a check box, switch, toggle or radio",
            Purpose::Fill => "a field that takes text",
            Purpose::Select => "a combo box, list, menu button or tab list",
        }
    }

    /// What the element was not, as the ladder says it (`was not editable`).
    fn able(self) -> &'static str {
        match self {
            Purpose::Check => "checkable",
            Purpose::Fill => "editable",
            Purpose::Select => "a widget with options",
        }
    }

    fn hint(self) -> &'static str {
        match self {
            Purpose::Check => {
                "press or click it instead, or look in the snapshot for the check box"
            }
            Purpose::Fill => "click it and type, or look in the snapshot for the field",
            Purpose::Select => "press or click it, or select on the widget that lists the options",
        }
    }

    fn takes(self, node: &Node) -> bool {
        match self {
            Purpose::Check => {
                matches!(
                    node.role,
                    Role::CheckBox
                        | Role::Radio
                        | Role::Switch
                        | Role::ToggleButton
                        | Role::MenuItemCheckBox
                        | Role::MenuItemRadio
                ) || node.has_state(&State::Checked)
            }
            // The one "takes text" rule, the ladder's.
            Purpose::Fill => takes_text(node),
            Purpose::Select => {
                matches!(
                    node.role,
                    Role::ComboBox
                        | Role::List
                        | Role::Tree
                        | Role::Table
                        | Role::Grid
                        | Role::TreeGrid
                        | Role::TabList
                        | Role::MenuButton
                        | Role::PopUpButton
                        | Role::RadioGroup
                ) || node.has_popup.is_some()
                    || (node.has_action(&Action::Press)
                        && !is_item(node)
                        && !matches!(node.role, Role::TextField | Role::Search | Role::Text))
                    || node.has_action(&Action::Expand)
            }
        }
    }
}

/// An item of a widget, which `select` chooses through the widget.
fn is_item(node: &Node) -> bool {
    matches!(
        node.role,
        Role::ListItem
            | Role::TreeItem
            | Role::Row
            | Role::Cell
            | Role::Tab
            | Role::MenuItem
            | Role::MenuItemCheckBox
            | Role::MenuItemRadio
    )
}

impl Locator {
    /// The element that takes `purpose` when the one element this matches
    /// now is a part of a compound widget that does not: `Some` locator for
    /// the widget's element that does (by its id, in its window), `None`
    /// to act on this locator as it is (it takes the action, or matches
    /// none or several now and is left to wait). Fails at once
    /// with `not_actionable` when nothing near it takes the action.
    pub fn retarget(&self, purpose: Purpose) -> Result<Option<Locator>> {
        let (Some(tree), nodes) = self.matching()? else {
            return Ok(None);
        };
        let [found] = nodes.as_slice() else {
            return Ok(None);
        };
        let at: HashMap<_, usize> = tree
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.id, i))
            .collect();
        let Some(&me) = at.get(&found.id) else {
            return Ok(None);
        };
        let nodes = &tree.nodes;
        if purpose.takes(&nodes[me]) && !(purpose == Purpose::Select && is_item(&nodes[me])) {
            return Ok(None);
        }
        let takes = |i: usize| purpose.takes(&nodes[i]) && !nodes[i].has_state(&State::Disabled);
        // Up: the widget this is a part of (a row's list, a label's combo box).
        let mut up = Vec::new();
        let mut cursor = nodes[me].parent.and_then(|p| at.get(&p).copied());
        while let Some(c) = cursor {
            if up.len() == REACH {
                break;
            }
            up.push(c);
            cursor = nodes[c].parent.and_then(|p| at.get(&p).copied());
        }
        // Down: the part that takes it (a combo box's entry, a row's check box).
        let mut down = Vec::new();
        let mut level = vec![me];
        for _ in 0..REACH {
            let next: Vec<usize> = nodes
                .iter()
                .enumerate()
                .filter(|(_, n)| {
                    n.parent
                        .is_some_and(|p| level.iter().any(|l| nodes[*l].id == p))
                })
                .map(|(i, _)| i)
                .collect();
            down.extend(next.iter().copied());
            level = next;
        }
        let order: Vec<usize> = match purpose {
            // An item is chosen through its widget; a label inside a combo box too.
            Purpose::Select => up.iter().chain(down.iter()).copied().collect(),
            Purpose::Check | Purpose::Fill => down.iter().chain(up.iter()).copied().collect(),
        };
        if let Some(&better) = order.iter().find(|&&i| takes(i)) {
            let root = WindowRef::new(self.driver.clone(), Some(tree.window), self.timeouts);
            return Ok(Some(
                root.get_by_id(nodes[better].id)
                    .with_timeout(self.action_timeout()),
            ));
        }
        // The element as a locator names it (window(1).get_by_id(7)), which
        // a front end may show in its own terms (a ref): the details say so.
        let named = WindowRef::new(self.driver.clone(), Some(tree.window), self.timeouts)
            .get_by_id(nodes[me].id);
        Err(Error::new(
            ErrorCode::NotActionable,
            format!(
                "{}: {named} ({}) was not {}: it is not {} and none is part of it or around it",
                purpose.action(),
                describe_node(&nodes[me]),
                purpose.able(),
                purpose.what()
            ),
        )
        .with_suggestion(purpose.hint())
        .from_operation(purpose.action())
        .detail(|d| {
            d.element = Some(named.subject());
            d.window = Some(tree.window);
            d.observed = Some(describe_node(&nodes[me]));
            d.expected = Some(purpose.what().to_string());
        }))
    }
}
