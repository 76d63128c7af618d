//! Names as a person reads them.
//!
//! Toolkits name elements for screen readers, and not always well: GTK keeps
//! the mnemonic underscore (`_Copy`) and GTK 4 runs a button's name and label
//! together (`Copy Copy`); many controls have no name at all while a person
//! sees a label beside them, text inside them, a placeholder or a tooltip.
//! [`name_for_people`] fixes a window's labels in place, in the order a person
//! would look, and records in `nameSource` where a computed name came from,
//! so a caller can still insist on the element's own accessible name.

use crate::protocol::{ElementId, NameSource, Node, Role, State};
use std::collections::HashMap;

/// A name made of child text is cut to about this many characters.
const MAX_CONTENT_CHARS: usize = 80;
/// At most this many pieces of child text make a name.
const MAX_CONTENT_PIECES: usize = 3;

/// Cleans every label and names the unnamed controls of a window's nodes
/// (in tree order, each parent before its children).
pub fn name_for_people(nodes: &mut [Node]) {
    for node in nodes.iter_mut() {
        if let Some(label) = &node.label {
            let clean = clean_label(label, &node.role);
            node.label = Some(clean).filter(|l| !l.is_empty());
        }
    }
    let content = content_names(nodes);
    for (node, content) in nodes.iter_mut().zip(content) {
        if node.label.is_some() || !wants_name(&node.role) {
            continue;
        }
        let found = [
            (
                NameSource::Content,
                content.filter(|_| named_by_content(&node.role)),
            ),
            (NameSource::Placeholder, node.placeholder.clone()),
            (NameSource::Description, node.description.clone()),
        ]
        .into_iter()
        .find_map(|(source, name)| Some((source, name.filter(|n| !n.trim().is_empty())?)));
        if let Some((source, name)) = found {
            node.label = Some(name);
            node.name_source = Some(source);
        }
    }
}

/// A label without its mnemonic marker and without the same words twice.
pub fn clean_label(label: &str, role: &Role) -> String {
    let label = label.trim();
    if has_mnemonics(role) {
        undouble(&strip_mnemonic(label)).to_string()
    } else {
        label.to_string()
    }
}

/// `Sa_ve` → `Save`, `__init__` unchanged: one underscore before a letter or
/// digit marks the key that goes with Alt; a doubled one is a real underscore.
fn strip_mnemonic(label: &str) -> String {
    let marks = label.match_indices('_').count();
    let mut out = String::with_capacity(label.len());
    let mut chars = label.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('_', Some('_')) => {
                out.push('_');
                chars.next();
            }
            ('_', Some(next)) if marks == 1 && next.is_alphanumeric() => {}
            _ => out.push(c),
        }
    }
    out
}

/// `Copy Copy` → `Copy`, `Open File Open File` → `Open File`.
fn undouble(label: &str) -> &str {
    let len = label.len();
    if len >= 3 && len % 2 == 1 {
        let half = len / 2;
        // A space in the middle: one byte, so both halves end on char boundaries.
        if label.as_bytes()[half] == b' ' && label[..half] == label[half + 1..] {
            return &label[..half];
        }
    }
    label
}

/// Roles whose labels come from widgets that take mnemonics.
fn has_mnemonics(role: &Role) -> bool {
    matches!(
        role,
        Role::Button
            | Role::ToggleButton
            | Role::MenuButton
            | Role::PopUpButton
            | Role::CheckBox
            | Role::Radio
            | Role::Switch
            | Role::Tab
            | Role::MenuItem
            | Role::MenuItemCheckBox
            | Role::MenuItemRadio
            | Role::Menu
            | Role::Text
    )
}

/// Roles a person points at by name: controls, items and tabs.
fn wants_name(role: &Role) -> bool {
    named_by_content(role)
        || matches!(
            role,
            Role::TextField | Role::Slider | Role::Stepper | Role::Switch | Role::Search
        )
}

/// Roles whose visible text inside is their name (a button's label child, a row's cells).
pub(crate) fn named_by_content(role: &Role) -> bool {
    matches!(
        role,
        Role::Button
            | Role::ToggleButton
            | Role::MenuButton
            | Role::PopUpButton
            | Role::CheckBox
            | Role::Radio
            | Role::Tab
            | Role::ListItem
            | Role::TreeItem
            | Role::Row
            | Role::MenuItem
            | Role::MenuItemCheckBox
            | Role::MenuItemRadio
            | Role::Link
            | Role::ComboBox
    )
}

/// For each node, the text a person sees inside it: the labels and values
/// of its shown descendants, in order, a few pieces at most.
fn content_names(nodes: &[Node]) -> Vec<Option<String>> {
    let at: HashMap<ElementId, usize> = nodes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (index, node) in nodes.iter().enumerate() {
        if let Some(parent) = node.parent.and_then(|p| at.get(&p)) {
            children[*parent].push(index);
        }
    }
    (0..nodes.len())
        .map(|index| {
            if nodes[index].label.is_some() || !named_by_content(&nodes[index].role) {
                return None;
            }
            let mut pieces: Vec<&str> = Vec::new();
            // (node, whether an ancestor below `index` is flagged offscreen)
            let mut stack: Vec<(usize, bool)> =
                children[index].iter().rev().map(|c| (*c, false)).collect();
            while let Some((next, under_flagged)) = stack.pop() {
                if pieces.len() == MAX_CONTENT_PIECES {
                    break;
                }
                let node = &nodes[next];
                // GTK 4 flags containers offscreen whose children are drawn:
                // below a flag, only text with a box on screen counts.
                let flagged = node.has_state(&State::Offscreen);
                let boxed = node.bounds.is_some_and(|b| !b.is_empty());
                let text = node.label.as_deref().or(node.value.as_deref());
                let text = text
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .filter(|_| !flagged && (!under_flagged || boxed));
                match text {
                    Some(text) => {
                        if !pieces.contains(&text) {
                            pieces.push(text);
                        }
                    }
                    None => stack.extend(
                        children[next]
                            .iter()
                            .rev()
                            .map(|c| (*c, under_flagged || flagged)),
                    ),
                }
            }
            let joined = pieces.join(" ");
            (!joined.is_empty()).then(|| shorten(&joined))
        })
        .collect()
}

fn shorten(text: &str) -> String {
    match text.char_indices().nth(MAX_CONTENT_CHARS) {
        Some((cut, _)) => format!("{}…", text[..cut].trim_end()),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: u64, parent: Option<u64>, role: Role, label: Option<&str>) -> Node {
        Node {
            id: ElementId(id),
            parent: parent.map(ElementId),
            role,
            label: label.map(str::to_string),
            ..Node::default()
        }
    }

    #[test]
    fn mnemonics_and_doubled_labels_are_cleaned() {
        assert_eq!(clean_label("_Copy Copy", &Role::Button), "Copy");
        assert_eq!(clean_label("Sa_ve As…", &Role::MenuItem), "Save As…");
        assert_eq!(clean_label("7 7", &Role::Button), "7");
        assert_eq!(clean_label("my__file", &Role::Button), "my_file");
        // Two single underscores are not a mnemonic; a cell is not a widget with one.
        assert_eq!(clean_label("a_b_c", &Role::Button), "a_b_c");
        assert_eq!(clean_label("snake_case", &Role::Cell), "snake_case");
        assert_eq!(clean_label("Go Go Go", &Role::Button), "Go Go Go");
        // Multi-byte characters around the middle (kcalc's `+/−`) are no pair.
        assert_eq!(clean_label("+/−", &Role::Button), "+/−");
        assert_eq!(clean_label("√ √", &Role::Button), "√");
        assert_eq!(clean_label("x−−", &Role::Button), "x−−");
    }

    #[test]
    fn unnamed_controls_are_named_by_what_a_person_sees() {
        let mut nodes = vec![
            node(1, None, Role::Group, None),
            // A row whose text sits on a child group's labels.
            node(2, Some(1), Role::ListItem, None),
            node(3, Some(2), Role::Group, None),
            node(4, Some(3), Role::Text, Some("Clipboard")),
            node(5, Some(3), Role::Text, Some("Copy and paste")),
            // A field named by its placeholder, a button by its tooltip.
            Node {
                placeholder: Some("First Name".into()),
                ..node(6, Some(1), Role::TextField, None)
            },
            Node {
                description: Some("Close the window".into()),
                ..node(7, Some(1), Role::Button, None)
            },
            // An offscreen child does not name its parent.
            node(8, Some(1), Role::Button, None),
            Node {
                states: vec![State::Offscreen],
                ..node(9, Some(8), Role::Text, Some("hidden"))
            },
            node(10, Some(1), Role::Button, Some("_Paste Paste")),
        ];
        name_for_people(&mut nodes);
        let label = |i: usize| nodes[i].label.as_deref();
        assert_eq!(label(1), Some("Clipboard Copy and paste"));
        assert_eq!(nodes[1].name_source, Some(NameSource::Content));
        assert_eq!(label(5), Some("First Name"));
        assert_eq!(nodes[5].name_source, Some(NameSource::Placeholder));
        assert_eq!(label(6), Some("Close the window"));
        assert_eq!(nodes[6].name_source, Some(NameSource::Description));
        assert_eq!(label(7), None);
        assert_eq!(label(9), Some("Paste"));
        assert_eq!(nodes[9].name_source, None);
        // Groups are not given names.
        assert_eq!(label(2), None);
    }

    #[test]
    fn long_content_is_cut() {
        let long = "x".repeat(200);
        let mut nodes = vec![
            node(1, None, Role::Button, None),
            node(2, Some(1), Role::Text, Some(&long)),
        ];
        name_for_people(&mut nodes);
        assert_eq!(nodes[0].label.as_ref().map(|l| l.chars().count()), Some(81));
    }
}
