//! Compound widgets acted on as a whole, and errors in the caller's terms.
//!
//! A ref may name a part of a widget: the label inside a combo box, the
//! row inside a list, the inner button of a menu button. `select`, `check`
//! and `fill` on such a part act on the element of the widget that takes
//! the action (an ancestor or a descendant close by); when there is none,
//! they fail at once, saying why, instead of waiting for the element to
//! become something it never will.
//!
//! Errors name things as the caller did: the command's own name, refs
//! (`@e13`) rather than protocol ids.

use crate::ctx::Ctx;
use crate::output::CliError;
use crate::target::{self, TargetSpec};
use std::collections::HashMap;
use uidrive_core::protocol::{Action, ElementId, Node, Role, State};
use uidrive_core::protocol::{InputEvent, PointerButton};
use uidrive_core::snapshot::{node_line, Ref};
use uidrive_core::{ActionOutcome, Effect, Error, ErrorCode, Locator, Route, WindowRef};

/// What a command needs of its element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    /// `check`: a check box, switch, toggle or radio.
    Check,
    /// `fill`: a field that takes text.
    Fill,
    /// `select`: a widget that offers items (a combo box, list, menu button, tab list).
    Select,
}

impl Want {
    fn command(self) -> &'static str {
        match self {
            Want::Check => "check",
            Want::Fill => "fill",
            Want::Select => "select",
        }
    }

    fn what(self) -> &'static str {
        match self {
            Want::Check => "a check box, switch, toggle or radio",
            Want::Fill => "a field that takes text",
            Want::Select => "a combo box, list, menu button or tab list",
        }
    }

    fn takes(self, node: &Node) -> bool {
        match self {
            Want::Check => {
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
            Want::Fill => {
                matches!(node.role, Role::TextField | Role::Search)
                    || node.has_action(&Action::SetValue)
                    || node.has_action(&Action::InsertText)
            }
            Want::Select => {
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

/// How far up or down from the part the widget may be.
const REACH: usize = 3;

/// A locator for the element of `target` that takes what `want` needs. For a
/// ref (or a selector that matches one element now), its element is checked
/// now: a part of a compound widget becomes the widget's element that takes
/// the action, and an element with none near it fails at once. A selector
/// that matches nothing yet is left to the locator, which waits for it.
pub fn locate(
    ctx: &mut Ctx,
    target: &str,
    window: Option<u64>,
    want: Want,
) -> Result<Locator, CliError> {
    let locator = ctx.locator(target, window)?;
    // The element now: a ref's, or the one element a selector matches now
    // (a selector that matches none or several is left to the locator).
    let found = match target::parse(target) {
        Ok(TargetSpec::Ref(r)) => match ctx.state.refs.resolve(r) {
            Ok(t) => Some((Some(t.window), Some(t.id))),
            Err(_) => None,
        },
        Ok(TargetSpec::Selector(_)) if locator.count().ok() == Some(1) => {
            Some((ctx.window(window), locator.node().ok().map(|n| n.id)))
        }
        _ => None,
    };
    let Some((in_window, Some(id))) = found else {
        return Ok(locator);
    };
    let app = ctx.app()?;
    let Ok(tree) = app.tree(in_window) else {
        return Ok(locator);
    };
    let window_id = tree.window;
    let at: HashMap<_, usize> = tree
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id, i))
        .collect();
    let Some(&me) = at.get(&id) else {
        return Ok(locator);
    };
    let nodes = &tree.nodes;
    let takes = |i: usize| want.takes(&nodes[i]) && !nodes[i].has_state(&State::Disabled);
    if want.takes(&nodes[me]) && !(want == Want::Select && is_item(&nodes[me])) {
        return Ok(locator);
    }
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
    let order: Vec<usize> = match want {
        // An item is chosen through its widget; a label inside a combo box too.
        Want::Select => up.iter().chain(down.iter()).copied().collect(),
        Want::Check | Want::Fill => down.iter().chain(up.iter()).copied().collect(),
    };
    if let Some(&better) = order.iter().find(|&&i| takes(i)) {
        let driver = app.driver().clone();
        let timeouts = app.timeouts();
        return Ok(WindowRef::new(driver, Some(window_id), timeouts).get_by_id(nodes[better].id));
    }
    let line = node_line(ctx.state.refs.ref_of(window_id, id), &nodes[me]);
    let hint = match want {
        Want::Check => "press or click it instead, or check the snapshot for the check box",
        Want::Fill => "click it and use `type`, or check the snapshot for the field",
        Want::Select => "press or click it, or `select` on the widget that lists the options",
    };
    Err(Error::new(
        ErrorCode::Unsupported,
        format!(
            "{}: {line} is not {} and none is part of it or around it",
            want.command(),
            want.what()
        ),
    )
    .with_suggestion(hint)
    .into())
}

/// Whether pressing the element must show in the tree: it opens something,
/// or holds a state that a press changes. (A plain button's press may do
/// what the tree cannot show, as copying does: it is never pressed twice.)
fn press_shows(node: &Node) -> bool {
    matches!(
        node.role,
        Role::MenuButton
            | Role::PopUpButton
            | Role::ComboBox
            | Role::ToggleButton
            | Role::CheckBox
            | Role::Radio
            | Role::Switch
            | Role::Tab
            | Role::Disclosure
    ) || node.has_popup.is_some()
        || node.has_state(&State::Expandable)
}

/// What a press could change that the tree shows: each element's role,
/// label, value, number and states, and the windows there are.
fn looks(tree: &uidrive_core::protocol::Tree) -> Vec<String> {
    tree.nodes
        .iter()
        .map(|n| {
            format!(
                "{} {} {:?} {:?} {:?} {:?}",
                n.id, n.role, n.label, n.value, n.now, n.states
            )
        })
        .collect()
}

/// `press`: the element's own press action (else a click at its centre, as
/// core's `activate`, which also looks for its effect). When the press
/// action answered but core saw no change, on an element whose press must
/// show (a menu button, a toggle, a tab...), the window is given longer to
/// show it, and when it still does not the press is made again as a real
/// click at its centre before success is reported; the outcome's route says
/// `input` then, and its effect what that click showed.
pub fn press(
    ctx: &mut Ctx,
    target: &str,
    window: Option<u64>,
) -> Result<(ActionOutcome, bool), CliError> {
    let locator = ctx.locator(target, window)?;
    // The window it is in: a ref's own, else the one the command uses.
    let in_window = match target::parse(target) {
        Ok(TargetSpec::Ref(r)) => ctx.state.refs.resolve(r).ok().map(|t| t.window),
        _ => None,
    }
    .or(ctx.window(window));
    let app = ctx.app()?;
    let before = app.tree(in_window).ok();
    let windows_before = app.windows().ok().map(|w| w.windows.len());
    let mut outcome = locator.activate()?;
    let seen = outcome.effect.is_confirmed();
    if seen || !matches!(outcome.route, Route::Semantic(_)) || !press_shows(&outcome.element) {
        return Ok((outcome, false));
    }
    let Some(before) = before.filter(|t| t.window == outcome.window) else {
        return Ok((outcome, false));
    };
    let app = ctx.app()?;
    // GTK 4 applies actions a moment late: let the window settle first.
    let _ = app.idle(Some(outcome.window), Some(PRESS_SETTLE));
    let after = app.tree(Some(outcome.window))?;
    let windows_after = app.windows().ok().map(|w| w.windows.len());
    if looks(&after) != looks(&before) || windows_after != windows_before {
        return Ok((outcome, false));
    }
    let Some(bounds) = after
        .nodes
        .iter()
        .find(|n| n.id == outcome.element.id)
        .and_then(|n| n.bounds)
        .filter(|b| !b.is_empty())
    else {
        return Ok((outcome, false));
    };
    let (x, y) = bounds.center();
    app.input(
        Some(outcome.window),
        vec![InputEvent::Click(PointerButton::at(x, y))],
    )?;
    outcome.route = Route::Input;
    let _ = app.idle(Some(outcome.window), Some(PRESS_SETTLE));
    let clicked = app.tree(Some(outcome.window)).ok();
    outcome.effect = match clicked {
        Some(tree) if looks(&tree) != looks(&after) => Effect::Confirmed(
            "its press action changed nothing; a real click at its centre changed the window"
                .into(),
        ),
        Some(_) => Effect::Unverifiable(
            "neither its press action nor a real click at its centre changed what the window shows"
                .into(),
        ),
        None => Effect::Confirmed(format!("window {} went after a real click", outcome.window)),
    };
    Ok((outcome, true))
}

/// How long a press is given to show before it is made again as a click.
const PRESS_SETTLE: std::time::Duration = std::time::Duration::from_millis(1500);

/// The names core's locators give their operations, as errors begin.
const OPERATIONS: &[&str] = &[
    "click",
    "dblclick",
    "press",
    "activate",
    "fill",
    "type",
    "type_text",
    "check",
    "uncheck",
    "set_checked",
    "select_option",
    "hover",
    "focus",
    "set_value",
    "clear",
    "scroll_into_view",
];

/// `err` as the caller would say it: headed by the command's name, with refs
/// for the elements the session has refs for instead of protocol ids.
pub fn in_callers_terms(command: &str, ctx: &Ctx, mut err: CliError) -> CliError {
    let mut message = err.error.message.clone();
    if let Some((head, rest)) = message.split_once(": ") {
        if head != command && OPERATIONS.contains(&head) {
            message = format!("{command}: {rest}");
        }
    }
    err.error.message = with_refs(&message, |window, id| match window {
        Some(w) => ctx.state.refs.ref_of(w, id),
        None => ctx.state.refs.ref_of_id(id),
    });
    err
}

/// `window(1).get_by_id(42)` and `get_by_id(42)` in `text` become the ref
/// `ref_of` gives for them; ids without one stay as they are.
fn with_refs(text: &str, ref_of: impl Fn(Option<u64>, ElementId) -> Option<Ref>) -> String {
    const BY_ID: &str = "get_by_id(";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(BY_ID) {
        let after = &rest[at + BY_ID.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || !after[digits..].starts_with(')') {
            out.push_str(&rest[..at + BY_ID.len()]);
            rest = after;
            continue;
        }
        let id = after[..digits].parse::<u64>().ok().map(ElementId);
        // A `window(N).` right before it names the window.
        let before = &rest[..at];
        let (kept, window) = match before.strip_suffix(").") {
            Some(head) => match head.rfind("window(") {
                Some(w) => match head[w + 7..].parse::<u64>() {
                    Ok(n) => (&before[..w], Some(n)),
                    Err(_) => (before, None),
                },
                None => (before, None),
            },
            None => (before, None),
        };
        match id.and_then(|id| ref_of(window, id)) {
            Some(r) => {
                out.push_str(kept);
                out.push_str(&r.to_string());
            }
            None => out.push_str(&rest[..at + BY_ID.len() + digits + 1]),
        }
        rest = &after[digits + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocol_ids_become_refs() {
        let ref_of =
            |w: Option<u64>, id: ElementId| (id.0 == 42 && w != Some(9)).then_some(Ref(13));
        assert_eq!(
            with_refs("select: window(1).get_by_id(42) shows no option", ref_of),
            "select: @e13 shows no option"
        );
        assert_eq!(with_refs("no get_by_id(42) here", ref_of), "no @e13 here");
        assert_eq!(
            with_refs("window(9).get_by_id(42) and get_by_id(7)", ref_of),
            "window(9).get_by_id(42) and get_by_id(7)"
        );
        assert_eq!(with_refs("get_by_id(x)", ref_of), "get_by_id(x)");
    }
}
