//! Short refs (`@e1`) for elements, stable while the element lives and never reused.

use crate::error::{Error, ErrorCode, Result};
use crate::protocol::{ElementId, Node, Role, Tree, WindowId};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::str::FromStr;

/// A short name for an element, written `@e12`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Ref(pub u64);

impl fmt::Display for Ref {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@e{}", self.0)
    }
}

impl FromStr for Ref {
    type Err = Error;

    /// Reads `@e12`, and also `e12`, as agents sometimes drop the `@`.
    fn from_str(text: &str) -> Result<Ref> {
        let digits = text
            .strip_prefix('@')
            .unwrap_or(text)
            .strip_prefix('e')
            .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
        digits
            .and_then(|d| d.parse().ok())
            .filter(|n| *n > 0)
            .map(Ref)
            .ok_or_else(|| {
                Error::invalid_request(format!("`{text}` is not a ref; refs look like @e12"))
                    .with_suggestion("use a ref that `snapshot` printed, as @e3")
            })
    }
}

impl From<Ref> for String {
    fn from(r: Ref) -> String {
        r.to_string()
    }
}

impl TryFrom<String> for Ref {
    type Error = Error;
    fn try_from(text: String) -> Result<Ref> {
        text.parse()
    }
}

/// What a live ref points at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RefTarget {
    /// The window the element is in.
    pub window: WindowId,
    /// The element's id.
    pub id: ElementId,
    /// The element's role when the ref was given: an id that comes back with
    /// another role is another element, and does not inherit the ref.
    pub role: Role,
}

/// Gives elements refs and remembers them, so that a session can keep its
/// refs between commands (it serializes to JSON).
///
/// An element keeps its ref across snapshots while it is in its window's
/// tree; once a snapshot of that window no longer has it, the ref is retired
/// and never given again, and resolving it is a `stale_ref` error.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RefMap {
    /// The number the next new ref gets; every ref below it was given once.
    next: u64,
    /// Live refs, by number.
    live: BTreeMap<u64, RefTarget>,
}

impl RefMap {
    /// A map that has given no ref yet.
    pub fn new() -> RefMap {
        RefMap::default()
    }

    /// Updates the refs of `tree`'s window: elements seen before keep their
    /// refs, new ones get fresh refs, and refs of elements that went are
    /// retired. Answers the ref of every node, in the tree's order.
    pub fn observe(&mut self, tree: &Tree) -> Vec<Ref> {
        let window = tree.window;
        let mut previous: HashMap<ElementId, (u64, Role)> = HashMap::new();
        self.live.retain(|number, target| {
            if target.window != window {
                return true;
            }
            previous.insert(target.id, (*number, target.role.clone()));
            false
        });
        let mut refs = Vec::with_capacity(tree.nodes.len());
        for node in &tree.nodes {
            let number = match previous.remove(&node.id) {
                Some((number, role)) if role == node.role => number,
                _ => self.fresh(),
            };
            self.live.insert(
                number,
                RefTarget {
                    window,
                    id: node.id,
                    role: node.role.clone(),
                },
            );
            refs.push(Ref(number));
        }
        refs
    }

    fn fresh(&mut self) -> u64 {
        self.next = self.next.max(1);
        let number = self.next;
        self.next += 1;
        number
    }

    /// The element a live ref names, or `stale_ref`.
    pub fn resolve(&self, r: Ref) -> Result<&RefTarget> {
        if let Some(target) = self.live.get(&r.0) {
            return Ok(target);
        }
        let message = if r.0 < self.next {
            format!("{r} is stale: its element is gone from the window")
        } else {
            format!("{r} was never given in this session")
        };
        Err(Error::new(ErrorCode::StaleRef, message))
    }

    /// The ref of one element of `window` read just now: its live ref when
    /// it has one (same id, same role), else a fresh one. Retires nothing
    /// (a part of a window was read, not all of it); the next
    /// [`RefMap::observe`] of the window retires what went.
    pub fn give(&mut self, window: WindowId, node: &Node) -> Ref {
        let live = self
            .live
            .iter()
            .find(|(_, t)| t.window == window && t.id == node.id)
            .map(|(n, t)| (*n, t.role == node.role));
        match live {
            Some((number, true)) => Ref(number),
            other => {
                if let Some((number, false)) = other {
                    self.live.remove(&number);
                }
                let number = self.fresh();
                self.live.insert(
                    number,
                    RefTarget {
                        window,
                        id: node.id,
                        role: node.role.clone(),
                    },
                );
                Ref(number)
            }
        }
    }

    /// The live ref of an element, if it has one.
    pub fn ref_of(&self, window: WindowId, id: ElementId) -> Option<Ref> {
        self.live
            .iter()
            .find(|(_, t)| t.window == window && t.id == id)
            .map(|(n, _)| Ref(*n))
    }

    /// The live ref of an element in whichever window has it (ids rarely repeat across windows).
    pub fn ref_of_id(&self, id: ElementId) -> Option<Ref> {
        self.live
            .iter()
            .find(|(_, t)| t.id == id)
            .map(|(n, _)| Ref(*n))
    }

    /// How many refs are live.
    pub fn len(&self) -> usize {
        self.live.len()
    }

    /// Whether no ref is live.
    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }

    /// Retires every ref of a window, as when it closed.
    pub fn forget_window(&mut self, window: WindowId) {
        self.live.retain(|_, t| t.window != window);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Node;

    #[test]
    fn give_keeps_a_live_ref_and_retires_one_whose_role_changed() {
        let mut map = RefMap::new();
        let button = Node {
            id: ElementId(7),
            role: Role::Button,
            ..Node::default()
        };
        let first = map.give(1, &button);
        assert_eq!(map.give(1, &button), first);
        // Another window's element with the same id is another element.
        assert_ne!(map.give(2, &button), first);
        let text = Node {
            role: Role::Text,
            ..button.clone()
        };
        let other = map.give(1, &text);
        assert_ne!(other, first);
        assert_eq!(map.resolve(first).unwrap_err().code, ErrorCode::StaleRef);
    }

    fn node(id: u64, role: Role) -> Node {
        Node {
            id: ElementId(id),
            role,
            ..Node::default()
        }
    }

    fn tree(window: WindowId, nodes: Vec<Node>) -> Tree {
        Tree {
            window,
            nodes,
            ..Tree::default()
        }
    }

    #[test]
    fn refs_parse_with_or_without_the_at() {
        assert_eq!("@e12".parse::<Ref>().unwrap(), Ref(12));
        assert_eq!("e3".parse::<Ref>().unwrap(), Ref(3));
        for bad in ["@e", "@x1", "12", "@e0", "@e1a", ""] {
            let err = bad.parse::<Ref>().unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidRequest, "{bad}");
        }
        assert_eq!(Ref(7).to_string(), "@e7");
    }

    #[test]
    fn an_element_keeps_its_ref_while_it_lives() {
        let mut refs = RefMap::new();
        let first = refs.observe(&tree(1, vec![node(10, Role::Text), node(20, Role::Button)]));
        assert_eq!(first, vec![Ref(1), Ref(2)]);
        let again = refs.observe(&tree(
            1,
            vec![
                node(30, Role::Text),
                node(20, Role::Button),
                node(10, Role::Text),
            ],
        ));
        assert_eq!(again, vec![Ref(3), Ref(2), Ref(1)]);
        assert_eq!(refs.resolve(Ref(2)).unwrap().id, ElementId(20));
    }

    #[test]
    fn a_gone_element_makes_its_ref_stale_and_the_ref_is_never_reused() {
        let mut refs = RefMap::new();
        refs.observe(&tree(1, vec![node(10, Role::Text), node(20, Role::Button)]));
        let later = refs.observe(&tree(1, vec![node(10, Role::Text)]));
        assert_eq!(later, vec![Ref(1)]);
        let err = refs.resolve(Ref(2)).unwrap_err();
        assert_eq!(err.code, ErrorCode::StaleRef);
        assert!(err.message.contains("@e2"), "{}", err.message);
        // The same id coming back is a new element as far as refs go.
        let back = refs.observe(&tree(1, vec![node(10, Role::Text), node(20, Role::Button)]));
        assert_eq!(back, vec![Ref(1), Ref(3)]);
        assert_eq!(refs.resolve(Ref(2)).unwrap_err().code, ErrorCode::StaleRef);
    }

    #[test]
    fn an_id_that_comes_back_with_another_role_is_another_element() {
        let mut refs = RefMap::new();
        refs.observe(&tree(1, vec![node(10, Role::Button)]));
        let next = refs.observe(&tree(1, vec![node(10, Role::CheckBox)]));
        assert_eq!(next, vec![Ref(2)]);
        assert_eq!(refs.resolve(Ref(1)).unwrap_err().code, ErrorCode::StaleRef);
    }

    #[test]
    fn windows_keep_their_refs_apart() {
        let mut refs = RefMap::new();
        refs.observe(&tree(1, vec![node(10, Role::Button)]));
        refs.observe(&tree(2, vec![node(10, Role::Button)]));
        assert_eq!(refs.resolve(Ref(1)).unwrap().window, 1);
        assert_eq!(refs.resolve(Ref(2)).unwrap().window, 2);
        refs.forget_window(2);
        assert_eq!(refs.resolve(Ref(2)).unwrap_err().code, ErrorCode::StaleRef);
        assert_eq!(refs.ref_of(1, ElementId(10)), Some(Ref(1)));
        assert_eq!(refs.ref_of_id(ElementId(10)), Some(Ref(1)));
    }

    #[test]
    fn never_given_refs_are_refused_too() {
        let refs = RefMap::new();
        let err = refs.resolve(Ref(5)).unwrap_err();
        assert_eq!(err.code, ErrorCode::StaleRef);
        assert!(err.message.contains("never given"));
    }

    #[test]
    fn the_map_survives_a_trip_through_json() {
        let mut refs = RefMap::new();
        refs.observe(&tree(
            1,
            vec![node(10, Role::Text), node(u64::MAX, Role::Button)],
        ));
        let json = serde_json::to_string(&refs).unwrap();
        let back: RefMap = serde_json::from_str(&json).unwrap();
        assert_eq!(back, refs);
        let mut back = back;
        assert_eq!(
            back.observe(&tree(1, vec![node(99, Role::Text)])),
            vec![Ref(3)]
        );
    }
}
