//! Which lines of a snapshot to print: all, controls only, a skeleton, a subtree.

use super::{Ref, Snapshot};
use crate::error::{Error, ErrorCode, Result};
use std::collections::HashMap;

/// One element a view shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Picked {
    /// Where it is in the snapshot's `elements`.
    pub index: usize,
    /// Its depth below the view's root.
    pub depth: u32,
    /// How many elements the view leaves out below it: past the depth limit, or hidden.
    pub hidden_below: u32,
}

/// What to show of a snapshot.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct View {
    /// Only controls (see [`super::is_interactive`], and list rows), and the
    /// focused element whatever it is.
    pub interactive_only: bool,
    /// Show elements at most this deep (0 = the top ones); an element at the
    /// limit with more below says how many, as `(+12)`, to drill into with `root`.
    pub max_depth: Option<u32>,
    /// Show only this element and what is inside it.
    pub root: Option<Ref>,
    /// Indent lines by depth (the full view; the controls-only view is flat).
    pub indent: bool,
    /// Show hidden elements too (off screen, in a closed menu, on a page not
    /// shown); else they are left out, and the full view counts them as
    /// `(+N)` on the nearest element it shows.
    pub hidden: bool,
}

impl View {
    /// Every element, indented by depth.
    pub fn full() -> View {
        View {
            indent: true,
            ..View::default()
        }
    }

    /// Controls only, one flat list.
    pub fn interactive() -> View {
        View {
            interactive_only: true,
            ..View::default()
        }
    }

    /// The elements this view shows, in tree order.
    pub fn pick(&self, snapshot: &Snapshot) -> Result<Vec<Picked>> {
        let elements = &snapshot.elements;
        let at: HashMap<Ref, usize> = elements.iter().enumerate().map(|(i, e)| (e.r, i)).collect();
        let base = match self.root {
            Some(root) => {
                let Some(&i) = at.get(&root) else {
                    return Err(Error::new(
                        ErrorCode::StaleRef,
                        format!("{root} is not in window {}'s snapshot", snapshot.window),
                    ));
                };
                Some((i, elements[i].depth))
            }
            None => None,
        };
        let base_depth = base.map_or(0, |(_, d)| d);
        let in_scope = |i: usize| -> bool {
            let Some((root_at, _)) = base else {
                return true;
            };
            let mut cursor = Some(i);
            while let Some(c) = cursor {
                if c == root_at {
                    return true;
                }
                cursor = elements[c].parent.and_then(|p| at.get(&p).copied());
            }
            false
        };
        let wanted = |i: usize| -> bool {
            let e = &elements[i];
            // The focused element always shows: keys go to it, whatever its
            // ancestors say about being hidden.
            if e.is_focused() {
                return true;
            }
            if e.offscreen && !self.hidden {
                return false;
            }
            // A list that gave only part of its rows says so in every view.
            !self.interactive_only || e.interactive || e.unread > 0
        };

        let mut shown = vec![false; elements.len()];
        let mut hidden_below = vec![0u32; elements.len()];
        for i in 0..elements.len() {
            if !in_scope(i) {
                continue;
            }
            let relative = elements[i].depth - base_depth;
            match self.max_depth {
                Some(limit) if relative > limit => {
                    if wanted(i) {
                        // Count it on its ancestor at the limit.
                        let mut cursor = Some(i);
                        while let Some(c) = cursor {
                            if elements[c].depth - base_depth == limit {
                                hidden_below[c] += 1;
                                break;
                            }
                            cursor = elements[c].parent.and_then(|p| at.get(&p).copied());
                        }
                    }
                }
                _ => {
                    shown[i] = wanted(i);
                    // What the whole view leaves out because it is hidden
                    // (a closed menu's items, a scrolled-away row) is
                    // counted on the nearest element it shows.
                    if !shown[i] && !self.interactive_only {
                        let mut cursor = elements[i].parent.and_then(|p| at.get(&p).copied());
                        while let Some(c) = cursor {
                            if shown[c] {
                                hidden_below[c] += 1;
                                break;
                            }
                            cursor = elements[c].parent.and_then(|p| at.get(&p).copied());
                        }
                    }
                }
            }
        }

        Ok(elements
            .iter()
            .enumerate()
            .filter(|(i, _)| shown[*i] || hidden_below[*i] > 0)
            .map(|(i, e)| Picked {
                index: i,
                depth: e.depth - base_depth,
                hidden_below: hidden_below[i],
            })
            .collect())
    }

    /// The lines this view shows.
    pub fn lines(&self, snapshot: &Snapshot) -> Result<Vec<String>> {
        let picked = self.pick(snapshot)?;
        Ok(picked
            .iter()
            .map(|p| {
                let mut line = String::new();
                if self.indent {
                    for _ in 0..p.depth {
                        line.push_str("  ");
                    }
                }
                line.push_str(&snapshot.elements[p.index].line());
                if p.hidden_below > 0 {
                    line.push_str(&format!(" (+{})", p.hidden_below));
                }
                line
            })
            .collect())
    }
}
