//! What changed between two snapshots of a window, element by element.

use super::{Element, Ref, Snapshot};
use crate::protocol::Role;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// How a diff line reads: `+` came or changed to, `-` went or changed from, `=` context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mark {
    /// `+`: the element came, or its line changed to this.
    #[serde(rename = "+")]
    Added,
    /// `-`: the element went, or its line changed from this.
    #[serde(rename = "-")]
    Removed,
    /// `=`: unchanged, shown as context.
    #[serde(rename = "=")]
    Same,
}

impl Mark {
    /// The mark's character: `+`, `-` or `=`.
    pub fn sign(self) -> char {
        match self {
            Mark::Added => '+',
            Mark::Removed => '-',
            Mark::Same => '=',
        }
    }
}

/// One line of a diff: a mark and the element's line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffLine {
    /// Whether the line came, went or is context.
    pub mark: Mark,
    /// The element's ref.
    #[serde(rename = "ref")]
    pub r: Ref,
    /// The element's line, as the snapshot prints it.
    pub line: String,
}

/// The changes between two snapshots, with a little context around them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Diff {
    /// The lines to print, in order.
    pub lines: Vec<DiffLine>,
    /// How many elements came, went and changed.
    pub added: usize,
    /// How many elements went.
    pub removed: usize,
    /// How many elements changed.
    pub changed: usize,
}

impl Diff {
    /// Nothing came, went or changed.
    pub fn is_empty(&self) -> bool {
        self.added + self.removed + self.changed == 0
    }

    /// `- @e1 [text] "Count: 0"` lines, ending in a newline; `no changes` when empty.
    pub fn render(&self) -> String {
        if self.is_empty() {
            return "no changes\n".into();
        }
        let mut text = String::new();
        for l in &self.lines {
            text.push(l.mark.sign());
            text.push(' ');
            text.push_str(&l.line);
            text.push('\n');
        }
        text
    }
}

enum Step<'a> {
    Same(Ref, &'a str),
    Came(Ref, &'a str),
    Went(Ref, &'a str),
    Changed(Ref, &'a str, &'a str),
}

/// The changes from `old` to `new`, matched by ref (so both should come from
/// one [`super::RefMap`]), with up to `context` unchanged lines (`=`) before
/// and after each change. Elements that went are shown where they were.
pub fn diff(old: &Snapshot, new: &Snapshot, context: usize) -> Diff {
    let old_lines: HashMap<Ref, String> = old.elements.iter().map(|e| (e.r, e.line())).collect();
    let new_lines: Vec<(Ref, String)> = new.elements.iter().map(|e| (e.r, e.line())).collect();
    let in_new: HashSet<Ref> = new_lines.iter().map(|(r, _)| *r).collect();

    // Each element that went is shown before the next surviving element that
    // followed it in the old snapshot (or at the end).
    let mut went_before: HashMap<Option<Ref>, Vec<Ref>> = HashMap::new();
    let mut pending: Vec<Ref> = Vec::new();
    for e in &old.elements {
        if in_new.contains(&e.r) {
            if !pending.is_empty() {
                went_before.insert(Some(e.r), std::mem::take(&mut pending));
            }
        } else {
            pending.push(e.r);
        }
    }
    if !pending.is_empty() {
        went_before.insert(None, pending);
    }

    let mut steps: Vec<Step> = Vec::new();
    for (r, line) in &new_lines {
        for gone in went_before.remove(&Some(*r)).unwrap_or_default() {
            steps.push(Step::Went(gone, &old_lines[&gone]));
        }
        steps.push(match old_lines.get(r) {
            None => Step::Came(*r, line),
            Some(before) if before != line => Step::Changed(*r, before, line),
            Some(_) => Step::Same(*r, line),
        });
    }
    for gone in went_before.remove(&None).unwrap_or_default() {
        steps.push(Step::Went(gone, &old_lines[&gone]));
    }

    let changes: Vec<usize> = steps
        .iter()
        .enumerate()
        .filter(|(_, s)| !matches!(s, Step::Same(..)))
        .map(|(i, _)| i)
        .collect();
    let near_change = |i: usize| {
        changes
            .iter()
            .any(|&c| (c < i && i - c <= context) || (c > i && c - i <= context))
    };

    let mut out = Diff::default();
    for (i, step) in steps.iter().enumerate() {
        let mut line = |mark: Mark, r: Ref, text: &str| {
            out.lines.push(DiffLine {
                mark,
                r,
                line: text.to_string(),
            })
        };
        match *step {
            Step::Same(r, text) if near_change(i) => line(Mark::Same, r, text),
            Step::Same(..) => {}
            Step::Came(r, text) => line(Mark::Added, r, text),
            Step::Went(r, text) => line(Mark::Removed, r, text),
            Step::Changed(r, before, after) => {
                line(Mark::Removed, r, before);
                line(Mark::Added, r, after);
            }
        }
        match step {
            Step::Came(..) => out.added += 1,
            Step::Went(..) => out.removed += 1,
            Step::Changed(..) => out.changed += 1,
            Step::Same(..) => {}
        }
    }
    out
}

/// The changes an agent needs to read, from `old` to `new`: what is on screen
/// in either (elements hidden in both are left out, so a toolkit flipping
/// flags on things nobody sees is not a change), and an element that came
/// or went with things inside it is one line, `(+N)` counting those (but a
/// menu that came keeps its items' lines, and the focused element its own).
/// Context
/// lines (`=`) skip nameless groups. [`diff`] keeps every element's line.
pub fn brief(old: &Snapshot, new: &Snapshot, context: usize) -> Diff {
    let old = on_screen(old);
    let new = on_screen(new);
    let mut out = diff(&old, &new, context);
    let old_refs: HashSet<Ref> = old.elements.iter().map(|e| e.r).collect();
    let new_refs: HashSet<Ref> = new.elements.iter().map(|e| e.r).collect();
    // Elements that came inside an element that came are folded into the
    // outermost of them; the same for elements that went.
    let came = folds(&new, |r| !old_refs.contains(&r), true);
    let went = folds(&old, |r| !new_refs.contains(&r), false);
    let mut lines = Vec::with_capacity(out.lines.len());
    for mut l in std::mem::take(&mut out.lines) {
        let folded = match l.mark {
            Mark::Added if !old_refs.contains(&l.r) => came.get(&l.r),
            Mark::Removed if !new_refs.contains(&l.r) => went.get(&l.r),
            _ => None,
        };
        match folded {
            Some(Fold::Inside) => continue,
            Some(Fold::Item) => {}
            Some(Fold::Top(n)) if *n > 0 => l.line.push_str(&format!(" (+{n})")),
            // A bare nameless group coming or going (GTK 4 flips the flags
            // of wrappers around things already shown) is nothing to read.
            Some(Fold::Top(_)) if nameless_group(&new, l.r) || nameless_group(&old, l.r) => {
                continue
            }
            _ => {}
        }
        if l.mark == Mark::Same && nameless_group(&new, l.r) {
            continue;
        }
        lines.push(l);
    }
    out.lines = lines;
    out
}

enum Fold {
    /// The outermost element of those that came (or went), with how many are inside it.
    Top(usize),
    /// Inside another one that came (or went).
    Inside,
    /// An item of a menu that came, or the focused element inside what came:
    /// shown on its own line, since choosing an item is what a menu opens
    /// for, and keys go to the focused element.
    Item,
}

/// How the elements `changed` picks fold; with `items`, the items of a menu
/// among them keep their lines.
fn folds(snapshot: &Snapshot, changed: impl Fn(Ref) -> bool, items: bool) -> HashMap<Ref, Fold> {
    let mut out: HashMap<Ref, Fold> = HashMap::new();
    let mut top_of: HashMap<Ref, Ref> = HashMap::new();
    let mut menus: HashSet<Ref> = HashSet::new();
    // Parents come before their children, so a parent's top is known first.
    for e in &snapshot.elements {
        if !changed(e.r) {
            continue;
        }
        let menu_like = items && matches!(e.role, Role::Menu | Role::Popup | Role::MenuBar);
        match e.parent.and_then(|p| top_of.get(&p).copied()) {
            // The focused element keeps its line too: keys go to it.
            Some(top) if (menus.contains(&top) && e.interactive) || (items && e.is_focused()) => {
                top_of.insert(e.r, top);
                out.insert(e.r, Fold::Item);
            }
            Some(top) => {
                top_of.insert(e.r, top);
                out.insert(e.r, Fold::Inside);
                if let Some(Fold::Top(n)) = out.get_mut(&top) {
                    *n += 1;
                }
            }
            None => {
                top_of.insert(e.r, e.r);
                out.insert(e.r, Fold::Top(0));
                if menu_like {
                    menus.insert(e.r);
                }
            }
        }
    }
    out
}

/// The elements a person sees (and the focused one), with their parents
/// pointing at the nearest such ancestor.
fn on_screen(snapshot: &Snapshot) -> Snapshot {
    let kept: HashSet<Ref> = snapshot
        .elements
        .iter()
        .filter(|e| !e.offscreen || e.is_focused())
        .map(|e| e.r)
        .collect();
    let parent_of: HashMap<Ref, Option<Ref>> =
        snapshot.elements.iter().map(|e| (e.r, e.parent)).collect();
    let nearest = |mut p: Option<Ref>| {
        while let Some(r) = p {
            if kept.contains(&r) {
                return Some(r);
            }
            p = parent_of.get(&r).copied().flatten();
        }
        None
    };
    Snapshot {
        window: snapshot.window,
        elements: snapshot
            .elements
            .iter()
            .filter(|e| kept.contains(&e.r))
            .map(|e| Element {
                parent: nearest(e.parent),
                ..e.clone()
            })
            .collect(),
    }
}

fn nameless_group(snapshot: &Snapshot, r: Ref) -> bool {
    snapshot.element(r).is_some_and(|e| {
        matches!(e.role, Role::Group) && e.label.is_none() && e.value.is_none() && e.key.is_none()
    })
}
