//! How a locator's description picks elements out of one tree read: text
//! matching, the selectors, and the chain of steps applied in order.

use crate::error::{Error, Result};
use crate::protocol::{ElementId, ElementKey, Node, Role, State, Tree};
use std::collections::{HashMap, HashSet};
use std::fmt;

/// How a name or a text is compared with what the element shows.
///
/// Text on both sides is first folded: trimmed, with every run of whitespace
/// (newlines and non-breaking spaces included) made one space.
#[derive(Debug, Clone)]
pub enum TextMatch {
    /// Case-insensitive, anywhere in the text. What a plain `&str` means.
    Substring(String),
    /// The whole text, case-sensitive.
    Exact(String),
    /// A regular expression searched in the folded text.
    Regex(regex::Regex),
}

impl TextMatch {
    /// Case-insensitive, anywhere in the text (what a plain `&str` means).
    pub fn substring(text: impl Into<String>) -> TextMatch {
        TextMatch::Substring(text.into())
    }

    /// The whole text, case-sensitive.
    pub fn exact(text: impl Into<String>) -> TextMatch {
        TextMatch::Exact(text.into())
    }

    /// A regular expression in the `regex` crate's syntax; `(?i)` makes it case-insensitive.
    pub fn regex(pattern: &str) -> Result<TextMatch> {
        regex::Regex::new(pattern)
            .map(TextMatch::Regex)
            .map_err(|e| {
                Error::invalid_request(format!("`{pattern}` is not a regular expression: {e}"))
            })
    }

    /// Whether `text`, folded, matches.
    pub fn matches(&self, text: &str) -> bool {
        let folded = fold_whitespace(text);
        match self {
            TextMatch::Substring(wanted) => folded
                .to_lowercase()
                .contains(&fold_whitespace(wanted).to_lowercase()),
            TextMatch::Exact(wanted) => folded == fold_whitespace(wanted),
            TextMatch::Regex(re) => re.is_match(&folded),
        }
    }

    /// Whether `text` equals the wanted text exactly, ignoring case: used to
    /// prefer one option over others that merely contain it.
    pub(crate) fn equals_ignoring_case(&self, text: &str) -> bool {
        match self {
            TextMatch::Substring(wanted) | TextMatch::Exact(wanted) => {
                fold_whitespace(text).to_lowercase() == fold_whitespace(wanted).to_lowercase()
            }
            TextMatch::Regex(_) => false,
        }
    }
}

impl From<&str> for TextMatch {
    fn from(text: &str) -> TextMatch {
        TextMatch::Substring(text.to_string())
    }
}

impl From<String> for TextMatch {
    fn from(text: String) -> TextMatch {
        TextMatch::Substring(text)
    }
}

impl From<&String> for TextMatch {
    fn from(text: &String) -> TextMatch {
        TextMatch::Substring(text.clone())
    }
}

impl From<regex::Regex> for TextMatch {
    fn from(re: regex::Regex) -> TextMatch {
        TextMatch::Regex(re)
    }
}

impl fmt::Display for TextMatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextMatch::Substring(text) => write!(f, "{text:?}"),
            TextMatch::Exact(text) => write!(f, "{text:?} exact"),
            TextMatch::Regex(re) => write!(f, "/{}/", re.as_str()),
        }
    }
}

/// Trims and makes every run of whitespace one space.
pub fn fold_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What `get_by_role` narrows by besides the role. A `&str`, `String` or
/// [`TextMatch`] converts into a query on the accessible name alone.
#[derive(Debug, Clone, Default)]
pub struct RoleQuery {
    /// The accessible name (the node's `label`).
    pub name: Option<TextMatch>,
    /// Whether it is checked; `None` for either.
    pub checked: Option<bool>,
    /// Whether it is disabled; `None` for either.
    pub disabled: Option<bool>,
    /// Whether it is expanded; `None` for either.
    pub expanded: Option<bool>,
    /// Whether it is selected; `None` for either.
    pub selected: Option<bool>,
    /// The heading or tree level.
    pub level: Option<i64>,
}

impl RoleQuery {
    /// Any element of the role, whatever its name.
    pub fn any() -> RoleQuery {
        RoleQuery::default()
    }

    /// Elements of the role whose accessible name matches `name`.
    pub fn name(name: impl Into<TextMatch>) -> RoleQuery {
        RoleQuery {
            name: Some(name.into()),
            ..RoleQuery::default()
        }
    }

    /// Also narrow to elements that are (or are not) checked.
    pub fn checked(mut self, checked: bool) -> RoleQuery {
        self.checked = Some(checked);
        self
    }

    /// Also narrow to elements that are (or are not) disabled.
    pub fn disabled(mut self, disabled: bool) -> RoleQuery {
        self.disabled = Some(disabled);
        self
    }

    /// Also narrow to elements that are (or are not) expanded.
    pub fn expanded(mut self, expanded: bool) -> RoleQuery {
        self.expanded = Some(expanded);
        self
    }

    /// Also narrow to elements that are (or are not) selected.
    pub fn selected(mut self, selected: bool) -> RoleQuery {
        self.selected = Some(selected);
        self
    }

    /// Also narrow to this heading or tree level.
    pub fn level(mut self, level: i64) -> RoleQuery {
        self.level = Some(level);
        self
    }

    fn matches(&self, node: &Node) -> bool {
        let flag = |wanted: Option<bool>, state: State| {
            wanted.is_none_or(|wanted| node.has_state(&state) == wanted)
        };
        self.name
            .as_ref()
            .is_none_or(|name| name.matches(node.label.as_deref().unwrap_or("")))
            && flag(self.checked, State::Checked)
            && flag(self.disabled, State::Disabled)
            && flag(self.expanded, State::Expanded)
            && flag(self.selected, State::Selected)
            && self.level.is_none_or(|level| node.level == Some(level))
    }
}

impl From<&str> for RoleQuery {
    fn from(name: &str) -> RoleQuery {
        RoleQuery::name(name)
    }
}

impl From<String> for RoleQuery {
    fn from(name: String) -> RoleQuery {
        RoleQuery::name(name)
    }
}

impl From<TextMatch> for RoleQuery {
    fn from(name: TextMatch) -> RoleQuery {
        RoleQuery::name(name)
    }
}

impl From<Option<&str>> for RoleQuery {
    fn from(name: Option<&str>) -> RoleQuery {
        name.map(RoleQuery::name).unwrap_or_default()
    }
}

/// One way of naming elements: each `get_by_*` adds one.
#[derive(Debug, Clone)]
pub(crate) enum Selector {
    Role(Role, RoleQuery),
    Key(ElementKey),
    Text(TextMatch),
    Label(TextMatch),
    Placeholder(TextMatch),
    Id(ElementId),
    /// A visual target: matches the elements of a visual read (see [`crate::visual`]).
    Visual(crate::visual::VisualQuery),
}

/// Roles whose label usually comes from somewhere else (a label beside a
/// field, a dialog's title) or that only hold other elements: `get_by_text`
/// skips them so that a field and the label naming it don't both match.
const NAMED_FROM_OUTSIDE: &[Role] = &[
    Role::TextField,
    Role::ComboBox,
    Role::Slider,
    Role::Stepper,
    Role::Progress,
    Role::Meter,
    Role::Scroll,
    Role::Splitter,
    Role::ColorWell,
    Role::Group,
    Role::List,
    Role::Table,
    Role::Tree,
    Role::Grid,
    Role::TreeGrid,
    Role::TabList,
    Role::TabPanel,
    Role::MenuBar,
    Role::Menu,
    Role::Toolbar,
    Role::RadioGroup,
    Role::Region,
    Role::Navigation,
    Role::Main,
    Role::Banner,
    Role::ContentInfo,
    Role::Complementary,
    Role::Article,
    Role::Search,
    Role::Dialog,
    Role::AlertDialog,
    Role::Popup,
];

impl Selector {
    fn matches(&self, node: &Node) -> bool {
        match self {
            Selector::Role(role, query) => &node.role == role && query.matches(node),
            // Compared as text too, so `key=42` in a selector string finds an integer key.
            Selector::Key(key) => node
                .key
                .as_ref()
                .is_some_and(|k| k == key || k.to_string() == key.to_string()),
            Selector::Text(text) => {
                !NAMED_FROM_OUTSIDE.contains(&node.role)
                    && node.text().is_some_and(|shown| text.matches(shown))
            }
            Selector::Label(label) => {
                node.role != Role::Text && node.label.as_deref().is_some_and(|l| label.matches(l))
            }
            Selector::Placeholder(text) => {
                node.placeholder.as_deref().is_some_and(|p| text.matches(p))
            }
            Selector::Id(id) => node.id == *id,
            Selector::Visual(_) => crate::visual::is_visual(node),
        }
    }

    /// Text matches keep the innermost element: a button whose label child
    /// shows the same text is one thing to a person, not two.
    fn keeps_innermost(&self) -> bool {
        matches!(self, Selector::Text(_))
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Selector::Role(role, query) => {
                write!(f, "get_by_role({:?}", role.as_str())?;
                if let Some(name) = &query.name {
                    write!(f, ", name={name}")?;
                }
                let flags = [
                    ("checked", query.checked),
                    ("disabled", query.disabled),
                    ("expanded", query.expanded),
                    ("selected", query.selected),
                ];
                for (flag, value) in flags {
                    if let Some(value) = value {
                        write!(f, ", {flag}={value}")?;
                    }
                }
                if let Some(level) = query.level {
                    write!(f, ", level={level}")?;
                }
                f.write_str(")")
            }
            Selector::Key(key) => write!(f, "get_by_key({:?})", key.to_string()),
            Selector::Text(text) => write!(f, "get_by_text({text})"),
            Selector::Label(text) => write!(f, "get_by_label({text})"),
            Selector::Placeholder(text) => write!(f, "get_by_placeholder({text})"),
            Selector::Id(id) => write!(f, "get_by_id({id})"),
            Selector::Visual(query) => write!(f, "{query}"),
        }
    }
}

/// What `filter` keeps.
#[derive(Debug, Clone, Default)]
pub(crate) struct Filter {
    pub has_text: Option<TextMatch>,
    pub has_not_text: Option<TextMatch>,
    pub has: Option<Vec<Step>>,
    pub has_not: Option<Vec<Step>>,
}

/// One link of a locator's chain.
#[derive(Debug, Clone)]
pub(crate) enum Step {
    /// Elements inside the current ones (anywhere in the window at the start).
    Find(Selector),
    Nth(usize),
    First,
    Last,
    Filter(Filter),
    /// The cell at a table's row and column (from 1), inside the current
    /// elements: shown or not, since its place names it.
    Cell {
        row: u32,
        column: u32,
    },
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Find(selector) => write!(f, "{selector}"),
            Step::Nth(index) => write!(f, "nth({index})"),
            Step::First => f.write_str("first()"),
            Step::Last => f.write_str("last()"),
            Step::Cell { row, column } => write!(f, "cell({row}, {column})"),
            Step::Filter(filter) => {
                let mut parts = Vec::new();
                if let Some(text) = &filter.has_text {
                    parts.push(format!("has_text={text}"));
                }
                if let Some(text) = &filter.has_not_text {
                    parts.push(format!("has_not_text={text}"));
                }
                if let Some(steps) = &filter.has {
                    parts.push(format!("has={}", describe_steps(steps)));
                }
                if let Some(steps) = &filter.has_not {
                    parts.push(format!("has_not={}", describe_steps(steps)));
                }
                write!(f, "filter({})", parts.join(", "))
            }
        }
    }
}

pub(crate) fn describe_steps(steps: &[Step]) -> String {
    steps
        .iter()
        .map(|step| step.to_string())
        .collect::<Vec<_>>()
        .join(".")
}

/// Whether a person could see the element: it has an area and is not marked offscreen.
pub fn is_shown(node: &Node) -> bool {
    node.bounds.is_some_and(|b| !b.is_empty()) && !node.has_state(&State::Offscreen)
}

/// One tree read, indexed for walking up from any node.
pub(crate) struct TreeIndex<'a> {
    pub tree: &'a Tree,
    at: HashMap<ElementId, usize>,
}

impl<'a> TreeIndex<'a> {
    pub fn new(tree: &'a Tree) -> TreeIndex<'a> {
        let at = tree
            .nodes
            .iter()
            .enumerate()
            .map(|(i, node)| (node.id, i))
            .collect();
        TreeIndex { tree, at }
    }

    pub fn node(&self, at: usize) -> &'a Node {
        &self.tree.nodes[at]
    }

    fn parent(&self, at: usize) -> Option<usize> {
        self.tree.nodes[at]
            .parent
            .and_then(|id| self.at.get(&id).copied())
    }

    /// Whether `at` lies strictly inside one of `scope`. Walks up at most as
    /// many steps as there are nodes, so a cycle sent by a broken server ends.
    fn is_inside(&self, at: usize, scope: &HashSet<usize>) -> bool {
        let mut current = self.parent(at);
        for _ in 0..self.tree.nodes.len() {
            match current {
                Some(up) if scope.contains(&up) => return true,
                Some(up) => current = self.parent(up),
                None => return false,
            }
        }
        false
    }

    /// Positions of the elements strictly inside the one at `at`, in tree order.
    pub fn inside(&self, at: usize) -> Vec<usize> {
        let scope = HashSet::from([at]);
        (0..self.tree.nodes.len())
            .filter(|&i| self.is_inside(i, &scope))
            .collect()
    }

    pub fn position(&self, id: ElementId) -> Option<usize> {
        self.at.get(&id).copied()
    }

    /// Positions of the elements the chain picks, in tree order. Hidden
    /// elements are left out of every `Find` unless `include_hidden`.
    pub fn select(&self, steps: &[Step], include_hidden: bool) -> Vec<usize> {
        self.select_from(None, steps, include_hidden)
    }

    fn select_from(
        &self,
        scope: Option<Vec<usize>>,
        steps: &[Step],
        include_hidden: bool,
    ) -> Vec<usize> {
        let mut current = scope;
        for step in steps {
            let picked = match step {
                Step::Find(selector) => self.find(current.as_deref(), selector, include_hidden),
                Step::Nth(index) => current_or_all(self, &current)
                    .get(*index)
                    .map(|&at| vec![at])
                    .unwrap_or_default(),
                Step::First => current_or_all(self, &current).into_iter().take(1).collect(),
                Step::Last => current_or_all(self, &current)
                    .last()
                    .map(|&at| vec![at])
                    .unwrap_or_default(),
                Step::Filter(filter) => current_or_all(self, &current)
                    .into_iter()
                    .filter(|&at| self.passes(at, filter, include_hidden))
                    .collect(),
                Step::Cell { row, column } => self.cells(current.as_deref(), *row, *column),
            };
            current = Some(picked);
        }
        current.unwrap_or_default()
    }

    fn find(
        &self,
        scope: Option<&[usize]>,
        selector: &Selector,
        include_hidden: bool,
    ) -> Vec<usize> {
        let scope: Option<HashSet<usize>> = scope.map(|s| s.iter().copied().collect());
        let found: Vec<usize> = (0..self.tree.nodes.len())
            .filter(|&at| {
                let node = self.node(at);
                selector.matches(node)
                    && (include_hidden || is_shown(node))
                    && scope.as_ref().is_none_or(|scope| self.is_inside(at, scope))
            })
            .collect();
        if !selector.keeps_innermost() {
            return found;
        }
        found
            .iter()
            .copied()
            .filter(|&outer| {
                let outer_only = HashSet::from([outer]);
                !found
                    .iter()
                    .any(|&inner| inner != outer && self.is_inside(inner, &outer_only))
            })
            .collect()
    }

    /// The cells at (`row`, `column`) inside `scope` (anywhere without one).
    pub fn cells(&self, scope: Option<&[usize]>, row: u32, column: u32) -> Vec<usize> {
        let scope: Option<HashSet<usize>> = scope.map(|s| s.iter().copied().collect());
        (0..self.tree.nodes.len())
            .filter(|&at| {
                let node = self.node(at);
                node.row_index == Some(i64::from(row))
                    && node.col_index == Some(i64::from(column))
                    && scope.as_ref().is_none_or(|scope| self.is_inside(at, scope))
            })
            .collect()
    }

    fn passes(&self, at: usize, filter: &Filter, include_hidden: bool) -> bool {
        let shows = |text: &TextMatch| self.subtree_shows(at, text);
        let has = |steps: &Vec<Step>| {
            !self
                .select_from(Some(vec![at]), steps, include_hidden)
                .is_empty()
        };
        filter.has_text.as_ref().is_none_or(shows)
            && !filter.has_not_text.as_ref().is_some_and(shows)
            && filter.has.as_ref().is_none_or(has)
            && !filter.has_not.as_ref().is_some_and(has)
    }

    /// Whether the element or anything inside it shows the text, in its label or value.
    fn subtree_shows(&self, at: usize, text: &TextMatch) -> bool {
        let shows = |node: &Node| {
            [node.label.as_deref(), node.value.as_deref()]
                .into_iter()
                .flatten()
                .any(|t| text.matches(t))
        };
        let scope = HashSet::from([at]);
        shows(self.node(at))
            || (0..self.tree.nodes.len()).any(|i| shows(self.node(i)) && self.is_inside(i, &scope))
    }
}

fn current_or_all(index: &TreeIndex<'_>, current: &Option<Vec<usize>>) -> Vec<usize> {
    match current {
        Some(list) => list.clone(),
        None => (0..index.tree.nodes.len()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_trims_and_collapses_whitespace() {
        assert_eq!(fold_whitespace("  Count:\n\t 0 \u{a0}"), "Count: 0");
        assert!(TextMatch::from("count: 0").matches("Count:   0"));
        assert!(TextMatch::exact("Count: 0").matches(" Count:\n0 "));
        assert!(!TextMatch::exact("count: 0").matches("Count: 0"));
        assert!(TextMatch::regex(r"^Count: \d+$")
            .unwrap()
            .matches(" Count:  12\n"));
        assert!(TextMatch::regex("(").is_err());
    }
}
