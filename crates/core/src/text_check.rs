//! Whether text landed: the one check every layer makes after it set or
//! typed text (core's locators and keyboard after `fill` and `type`, the
//! AT-SPI driver after `setValue` and `insertText`), and how a message says
//! what a field reads. A password field shows one mask character per
//! character, so it is judged by its length.

use crate::protocol::{Node, State};

/// What a field should read after an edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wanted<'a> {
    /// Exactly this text (a `fill`, a `setValue`).
    Reads(&'a str),
    /// `typed` added to what it read `before` (typing at the caret): its
    /// text changed and holds it.
    Took {
        /// What the field read before.
        before: &'a str,
        /// What was typed.
        typed: &'a str,
    },
}

/// Whether a field that reads `now` holds what is `wanted`: the one "did
/// the text land" check. A password field is judged by its length (one
/// mask character per character).
pub fn landed(now: &str, wanted: Wanted<'_>, password: bool) -> bool {
    let count = |text: &str| text.chars().count();
    match (wanted, password) {
        (Wanted::Reads(text), true) => count(now) == count(text),
        (Wanted::Reads(text), false) => now == text,
        (Wanted::Took { before, typed }, true) => count(now) == count(before) + count(typed),
        (Wanted::Took { before, typed }, false) => now != before && now.contains(typed),
    }
}

/// [`landed`] for an element as read: its value, masked if it is a password field.
pub fn node_landed(node: &Node, wanted: Wanted<'_>) -> bool {
    landed(
        node.value.as_deref().unwrap_or_default(),
        wanted,
        node.has_state(&State::Password),
    )
}

/// What a field reads, for a message: `` `text` `` (clipped), or for a
/// password field how many characters it holds.
pub fn what_it_reads(now: &str, password: bool) -> String {
    if password {
        format!("{} characters", now.chars().count())
    } else {
        format!("`{}`", clip(now))
    }
}

/// [`what_it_reads`] for an element as read.
pub fn what_node_reads(node: &Node) -> String {
    what_it_reads(
        node.value.as_deref().unwrap_or_default(),
        node.has_state(&State::Password),
    )
}

/// How a message says what an element reads: ``reads `text` `` or, for a
/// password field, `holds 3 characters`.
pub fn node_reads(node: &Node) -> String {
    let verb = if node.has_state(&State::Password) {
        "holds"
    } else {
        "reads"
    };
    format!("{verb} {}", what_node_reads(node))
}

/// Text for a message: at most 80 characters.
pub fn clip(text: &str) -> String {
    if text.chars().count() <= 80 {
        text.to_string()
    } else {
        let head: String = text.chars().take(77).collect();
        format!("{head}...")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_judged_by_length() {
        let took = |before, typed| Wanted::Took { before, typed };
        assert!(landed("•••", Wanted::Reads("abc"), true));
        assert!(!landed("••", Wanted::Reads("abc"), true));
        assert!(!landed("•••", Wanted::Reads("abc"), false));
        assert!(landed("•••", took("•", "xy"), true));
        assert!(landed("abc", took("ab", "c"), false));
        assert!(!landed("abc", took("abc", "c"), false));
        assert_eq!(what_it_reads("abc", true), "3 characters");
        assert_eq!(what_it_reads("abc", false), "`abc`");
    }

    #[test]
    fn elements_are_judged_by_their_value_and_password_state() {
        let mut node = Node {
            value: Some("•••".into()),
            states: vec![State::Password],
            ..Node::default()
        };
        assert!(node_landed(&node, Wanted::Reads("abc")));
        assert!(!node_landed(&node, Wanted::Reads("ab")));
        assert_eq!(node_reads(&node), "holds 3 characters");
        node.states.clear();
        assert!(!node_landed(&node, Wanted::Reads("abc")));
        assert_eq!(node_reads(&node), "reads `•••`");
    }

    #[test]
    fn long_text_is_clipped_in_messages() {
        assert_eq!(clip("short"), "short");
        assert_eq!(clip(&"x".repeat(100)).chars().count(), 80);
    }
}
