//! Java's ATK bridge (java-atk-wrapper, toolkit name `J2SE-access-bridge`):
//! what it shows differently from the toolkits the protocol's roles follow.
//!
//! A JList's items, and those of a JComboBox's popup list, are the cells
//! its renderer draws: Swing's default renderer is a JLabel, so the bridge
//! gives each item the role `label`, selectable, with a `click` action
//! (pyatspi on the Swing app of tests/apps: `list 'Fruit'` > `label
//! 'Apple'`). Read as plain text they were left out of `snapshot -i`, and
//! `select` found no option to choose. A selectable label directly in a
//! list is its item.

use crate::discovery::AppRef;
use uidrive_core::protocol::{Node, Role, State};

/// The toolkit name the bridge reports.
const TOOLKIT: &str = "J2SE-access-bridge";

/// Whether the app is a Java app read through the ATK bridge.
pub fn is_java(app: &AppRef) -> bool {
    app.toolkit_name == TOOLKIT
}

/// Gives a list's selectable labels the role of what they are, its items.
pub fn list_items(nodes: &mut [Node]) {
    let lists: std::collections::HashSet<_> = nodes
        .iter()
        .filter(|n| n.role == Role::List)
        .map(|n| n.id)
        .collect();
    for node in nodes.iter_mut() {
        let in_list = node.parent.is_some_and(|p| lists.contains(&p));
        if in_list && node.role == Role::Text && node.has_state(&State::Selectable) {
            node.role = Role::ListItem;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidrive_core::protocol::ElementId;

    fn node(id: u64, parent: Option<u64>, role: Role, states: Vec<State>) -> Node {
        Node {
            id: ElementId(id),
            parent: parent.map(ElementId),
            role,
            states,
            ..Node::default()
        }
    }

    #[test]
    fn a_lists_selectable_labels_are_its_items() {
        let mut nodes = vec![
            node(1, None, Role::List, vec![]),
            node(2, Some(1), Role::Text, vec![State::Selectable]),
            node(3, Some(1), Role::Text, vec![]),
            node(4, None, Role::Text, vec![State::Selectable]),
        ];
        list_items(&mut nodes);
        let roles: Vec<Role> = nodes.iter().map(|n| n.role.clone()).collect();
        assert_eq!(roles, [Role::List, Role::ListItem, Role::Text, Role::Text]);
    }
}
