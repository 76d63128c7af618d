//! One widget, one element. GTK 4 builds some widgets from two accessible
//! objects with one role and one name: a menu button holds a toggle button
//! (gnome-calculator's `[button] "Basic"` twice), a drop-down holds the
//! button that opens it (gtk4-demo's `[comboBox] "Text"` over `[button]
//! "Text"`). GTK 2 and 3 tree views build a column of several renderers (an
//! icon and a text) as a container cell that has no name and holds a cell per
//! renderer: gnome-system-monitor's process names, GIMP's layer names show
//! in a cell that reads nothing. A person sees one control, so a read shows
//! one element: the outer one, in its place and with its box, under the inner
//! one's id, so that acting on it acts where the actions are; the inner one's
//! children become its children.

use std::collections::HashMap;
use uidrive_core::protocol::{Action, ElementId, Node, Role, State};

/// Merges each element whose only actionable descendant is the same widget
/// (same name, and same role or a combo box's button) into one; the focus
/// follows the inner one's id.
pub fn merge_doubles(nodes: &mut Vec<Node>, focus: &mut Option<ElementId>) {
    let mut pairs = doubles(nodes);
    pairs.extend(container_cells(nodes));
    pairs.sort_unstable();
    if pairs.is_empty() {
        return;
    }
    let mut renamed: HashMap<ElementId, ElementId> = HashMap::new();
    let mut gone = vec![false; nodes.len()];
    for (outer, inner) in pairs {
        if gone[outer] || gone[inner] {
            continue;
        }
        let inner_node = nodes[inner].clone();
        let node = &mut nodes[outer];
        renamed.insert(node.id, inner_node.id);
        node.id = inner_node.id;
        // A container cell reads what its text cell reads.
        if node.label.is_none() && node.value.is_none() {
            node.label = inner_node.label;
            node.name_source = inner_node.name_source;
            node.value = inner_node.value;
        }
        for action in inner_node.actions {
            if !node.actions.contains(&action) {
                node.actions.push(action);
            }
        }
        // Shown when either part is (a lean read leaves the outer one's box unasked).
        let shown = !node.states.contains(&State::Offscreen)
            || !inner_node.states.contains(&State::Offscreen);
        for state in inner_node.states {
            if !node.states.contains(&state) {
                node.states.push(state);
            }
        }
        if shown {
            node.states.retain(|s| *s != State::Offscreen);
        }
        if node.description.is_none() {
            node.description = inner_node.description;
        }
        // A locator's read fills in only the elements it may pick: the
        // inner one's box then stands for the widget's.
        if node.bounds.is_none() {
            node.bounds = inner_node.bounds;
        }
        // So a count of the app's objects (a pyatspi walk) still adds up.
        node.extra
            .insert("joined".into(), serde_json::Value::Bool(true));
        gone[inner] = true;
    }
    let mut at = 0;
    nodes.retain(|_| {
        at += 1;
        !gone[at - 1]
    });
    for node in nodes.iter_mut() {
        if let Some(parent) = node.parent.and_then(|p| renamed.get(&p)) {
            node.parent = Some(*parent);
        }
    }
    if let Some(now) = focus.and_then(|f| renamed.get(&f)) {
        *focus = Some(*now);
    }
}

/// Whether a person can operate the element: it takes the focus. Action
/// names are not asked: a locator's lean read knows states but not yet
/// action names, and it must join the same elements as a full read.
fn actionable(node: &Node) -> bool {
    node.actions.contains(&Action::Focus)
}

fn same_widget(outer: &Node, inner: &Node) -> bool {
    let roles =
        outer.role == inner.role || (outer.role == Role::ComboBox && inner.role == Role::Button);
    roles && outer.label.is_some() && outer.label == inner.label
}

/// (outer, inner) positions of each double, outer ones first.
fn doubles(nodes: &[Node]) -> Vec<(usize, usize)> {
    let at: HashMap<ElementId, usize> = nodes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
    // For each element, its actionable descendants: none, one (which), or more.
    #[derive(Clone, Copy)]
    enum Below {
        None,
        One(usize),
        Many,
    }
    let mut below = vec![Below::None; nodes.len()];
    // Children come after their parent: gather from the last up.
    for index in (0..nodes.len()).rev() {
        let Some(parent) = nodes[index].parent.and_then(|p| at.get(&p).copied()) else {
            continue;
        };
        let mine = match (actionable(&nodes[index]), below[index]) {
            (false, b) => b,
            (true, Below::None) => Below::One(index),
            (true, _) => Below::Many,
        };
        below[parent] = match (below[parent], mine) {
            (b, Below::None) => b,
            (Below::None, m) => m,
            _ => Below::Many,
        };
    }
    nodes
        .iter()
        .enumerate()
        .filter_map(|(outer, node)| match below[outer] {
            Below::One(inner) if same_widget(node, &nodes[inner]) => Some((outer, inner)),
            _ => None,
        })
        .collect()
}

/// (container, its text cell) of each cell that reads nothing and holds
/// only cells, one of which reads something (GTK's container cell: an icon
/// renderer's cell and a text renderer's).
fn container_cells(nodes: &[Node]) -> Vec<(usize, usize)> {
    let at: HashMap<ElementId, usize> = nodes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (index, node) in nodes.iter().enumerate() {
        if let Some(parent) = node.parent.and_then(|p| at.get(&p).copied()) {
            children[parent].push(index);
        }
    }
    let reads = |n: &Node| n.label.is_some() || n.value.is_some();
    nodes
        .iter()
        .enumerate()
        .filter(|(outer, node)| {
            node.role == Role::Cell
                && !reads(node)
                && !children[*outer].is_empty()
                && children[*outer]
                    .iter()
                    .all(|c| nodes[*c].role == Role::Cell)
        })
        .filter_map(|(outer, _)| {
            let mut reading = children[outer].iter().filter(|c| reads(&nodes[**c]));
            match (reading.next(), reading.next()) {
                (Some(inner), None) => Some((outer, *inner)),
                _ => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: u64, parent: Option<u64>, role: Role, label: &str, actions: &[Action]) -> Node {
        Node {
            id: ElementId(id),
            parent: parent.map(ElementId),
            role,
            label: Some(label.to_string()).filter(|l| !l.is_empty()),
            actions: actions.to_vec(),
            ..Node::default()
        }
    }

    #[test]
    fn a_menu_button_and_its_toggle_read_as_one_element() {
        // gnome-calculator's mode menu button.
        let mut nodes = vec![
            node(1, None, Role::Group, "", &[]),
            node(2, Some(1), Role::Button, "Basic", &[]),
            node(
                3,
                Some(2),
                Role::Button,
                "Basic",
                &[Action::Press, Action::Focus],
            ),
            node(4, Some(3), Role::Text, "Basic", &[]),
            node(
                5,
                Some(1),
                Role::Button,
                "Undo",
                &[Action::Press, Action::Focus],
            ),
        ];
        nodes[2].states.push(State::Checked);
        nodes[1].states.push(State::Offscreen); // its box not asked
        let mut focus = Some(ElementId(2));
        merge_doubles(&mut nodes, &mut focus);
        assert_eq!(focus, Some(ElementId(3)), "the focus follows");
        let ids: Vec<u64> = nodes.iter().map(|n| n.id.0).collect();
        assert_eq!(ids, [1, 3, 4, 5], "the outer element, under the inner's id");
        assert_eq!(nodes[1].parent, Some(ElementId(1)), "in the outer's place");
        assert_eq!(nodes[1].actions, [Action::Press, Action::Focus]);
        assert!(nodes[1].has_state(&State::Checked));
        assert!(
            !nodes[1].has_state(&State::Offscreen),
            "shown, as its inner part is"
        );
        assert_eq!(nodes[1].extra["joined"], true);
        assert_eq!(nodes[2].parent, Some(ElementId(3)));
    }

    #[test]
    fn a_combo_box_takes_its_buttons_actions_and_others_stay_apart() {
        let mut nodes = vec![
            node(1, None, Role::ComboBox, "Text", &[]),
            node(
                2,
                Some(1),
                Role::Button,
                "Text",
                &[Action::Press, Action::Focus],
            ),
            // Two controls inside one group with the same name: both stay.
            node(3, None, Role::Button, "Open", &[]),
            node(4, Some(3), Role::Button, "Open", &[Action::Focus]),
            node(5, Some(3), Role::Button, "Open", &[Action::Focus]),
            // Another name: not the same widget.
            node(6, None, Role::Button, "Menu", &[]),
            node(7, Some(6), Role::Button, "Close", &[Action::Focus]),
        ];
        merge_doubles(&mut nodes, &mut None);
        let ids: Vec<u64> = nodes.iter().map(|n| n.id.0).collect();
        assert_eq!(ids, [2, 3, 4, 5, 6, 7]);
        assert_eq!(nodes[0].role, Role::ComboBox);
        assert_eq!(nodes[0].actions, [Action::Press, Action::Focus]);
    }

    #[test]
    fn a_container_cell_reads_as_its_text_cell() {
        // gnome-system-monitor's Process Name: an icon cell and a text cell
        // inside a cell that reads nothing.
        let cell = |id, parent, label| node(id, Some(parent), Role::Cell, label, &[Action::Focus]);
        let mut nodes = vec![
            node(1, None, Role::TreeGrid, "", &[]),
            cell(2, 1, ""),
            cell(3, 2, ""),
            cell(4, 2, "bash"),
            cell(5, 1, "root"),
            // Two cells that read: each stays itself.
            cell(6, 1, ""),
            cell(7, 6, "a"),
            cell(8, 6, "b"),
        ];
        nodes[1].bounds = Some(uidrive_core::protocol::Bounds::new(0.0, 0.0, 200.0, 20.0));
        merge_doubles(&mut nodes, &mut None);
        let ids: Vec<u64> = nodes.iter().map(|n| n.id.0).collect();
        assert_eq!(ids, [1, 4, 3, 5, 6, 7, 8]);
        assert_eq!(nodes[1].label.as_deref(), Some("bash"));
        assert_eq!(
            nodes[1].bounds.map(|b| b.width),
            Some(200.0),
            "the whole cell's box"
        );
        assert_eq!(
            nodes[2].parent,
            Some(ElementId(4)),
            "the icon cell inside it"
        );
        assert_eq!(nodes[4].label, None, "a cell of two texts reads neither");
    }
}
