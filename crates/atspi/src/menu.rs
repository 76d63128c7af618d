//! `menu`: choosing a menu-bar item by the labels along its path.

use crate::actions::do_action;
use crate::discovery::TopLevel;
use crate::driver::Inner;
use crate::roles;
use crate::tree::{self, press_action, Element};
use crate::windows;
use std::time::Duration;
use uidrive_core::protocol::{InputEvent, MenuParams};
use uidrive_core::{Error, Result};

/// Walks the window's menu bar down `params.path` and presses the last item.
/// A submenu whose items are not in the tree yet is opened first. A window
/// without a menu bar starts from the control labelled `path[0]` that opens a
/// menu or popover (a menu button, a combo box), whose items may then show anywhere.
pub async fn choose(inner: &Inner, params: &MenuParams) -> Result<()> {
    let (window, top) =
        windows::resolve(&inner.link, &inner.app, &inner.ids, params.window).await?;
    let elements = tree::read_elements(&inner.link, &inner.app, &top.obj).await?;
    let sets_showing = inner.app.toolkit.sets_showing();
    let bar = elements.iter().position(|e| e.raw.role == MENU_BAR);
    // A menu bar the app keeps hidden (Firefox until Alt or F10) can't be
    // walked as a person would; its items may answer, but nothing shows.
    if let Some(at) = bar.filter(|&at| !elements[at].raw.states.is_shown(sets_showing)) {
        let first = &params.path[0];
        let has_it = find_item(&elements, &object_key(&elements[at]), first, false).is_some();
        let also = if has_it {
            format!(" (it has an item `{first}`)")
        } else {
            String::new()
        };
        return Err(Error::unsupported(format!(
            "the menu bar of window {window} is hidden{also}, so its menus can't be opened"
        ))
        .with_suggestion(
            "show it with the keyboard (`key F10` opens its first menu, `key Alt` shows the bar), \
             then read the tree and press the item; or use the app's menu button",
        ));
    }
    let mut walk = Walk {
        inner,
        window,
        top: &top,
        elements,
        opened: 0,
    };
    let chosen = walk.choose(params, bar).await;
    if chosen.is_err() && walk.opened > 0 {
        // Leave no menu open after a failure.
        walk.close_menus().await;
    }
    chosen
}

/// AT-SPI's role for a menu bar.
const MENU_BAR: u32 = 34;

/// One walk down a menu path: the window's elements as read last, and how
/// many menus it opened on the way.
struct Walk<'a> {
    inner: &'a Inner,
    window: u64,
    top: &'a TopLevel,
    elements: Vec<Element>,
    opened: usize,
}

impl Walk<'_> {
    async fn choose(&mut self, params: &MenuParams, bar: Option<usize>) -> Result<()> {
        let (inner, window) = (self.inner, self.window);
        let mut scope = object_key(&self.elements[bar.unwrap_or(0)]);
        let mut parent_scope = scope.clone();
        for (depth, label) in params.path.iter().enumerate() {
            parent_scope = scope.clone();
            let mut found = find_item(&self.elements, &scope, label, bar.is_none() && depth == 0);
            if found.is_none() && depth > 0 {
                // The submenu may be built, or shown, only once it opens.
                if let Some(at) = index_of(&self.elements, &scope) {
                    let what = params.path[..depth].join(" > ");
                    open(inner, &self.elements[at], &what).await?;
                    self.opened += 1;
                    inner.idle(Some(window), Duration::from_secs(5)).await?;
                    self.elements =
                        tree::read_elements(&inner.link, &inner.app, &self.top.obj).await?;
                    found = find_item(&self.elements, &scope, label, false).or_else(|| {
                        find_shown_anywhere(&self.elements, label, inner.app.toolkit.sets_showing())
                    });
                }
            }
            let Some(at) = found else {
                return Err(self.not_found(params, depth, bar));
            };
            scope = object_key(&self.elements[at]);
        }
        let mut at = index_of(&self.elements, &scope).expect("the item was just found");
        let sets_showing = inner.app.toolkit.sets_showing();
        let item = &self.elements[at].raw;
        if params.path.len() > 1 && !item.states.is_enabled() && !item.states.is_shown(sets_showing)
        {
            // Apps may bring a closed menu's items up to date only as it
            // opens (mousepad does): open it and read the item again.
            if let Some(menu_at) = index_of(&self.elements, &parent_scope) {
                let what = params.path[..params.path.len() - 1].join(" > ");
                open(inner, &self.elements[menu_at], &what).await?;
                self.opened += 1;
                inner.idle(Some(window), Duration::from_secs(5)).await?;
                self.elements = tree::read_elements(&inner.link, &inner.app, &self.top.obj).await?;
                at = index_of(&self.elements, &scope).ok_or_else(|| {
                    Error::no_element(format!(
                        "the menu item `{}` went when its menu opened",
                        params.path.join(" > ")
                    ))
                })?;
            }
        }
        open(inner, &self.elements[at], &params.path.join(" > ")).await
    }

    /// The `no_element` error for `params.path[depth]`, with what there is instead.
    fn not_found(&self, params: &MenuParams, depth: usize, bar: Option<usize>) -> Error {
        let label = &params.path[depth];
        let window = self.window;
        if depth > 0 {
            return Error::no_element(format!(
                "no item `{label}` in the menu `{}` of window {window}",
                params.path[..depth].join(" > ")
            ))
            .with_suggestion("read the window's `tree` for the menu items' labels");
        }
        if bar.is_some() {
            return Error::no_element(format!(
                "no item `{label}` in the menu bar of window {window}"
            ))
            .with_suggestion("read the window's `tree` for the menu items' labels");
        }
        // No menu bar: GTK 4 and libadwaita apps keep their menus behind buttons.
        let sets_showing = self.inner.app.toolkit.sets_showing();
        let mut openers: Vec<String> = Vec::new();
        let elements = &self.elements;
        let found = (0..elements.len()).filter(|&at| is_menu_opener(elements, at, sets_showing));
        for at in found {
            let name = format!("`{}`", elements[at].raw.name);
            if !openers.contains(&name) {
                openers.push(name);
            }
        }
        let buttons = if openers.is_empty() {
            " and no labelled button that opens a menu".to_string()
        } else {
            format!("; its menus open from {}", openers.join(", "))
        };
        Error::no_element(format!(
            "window {window} has no menu bar{buttons}, and nothing labelled `{label}` opens one"
        ))
        .with_suggestion(if openers.is_empty() {
            "press F10 (`key F10`) to open the app's menu, then read the tree".to_string()
        } else {
            format!(
                "start the path at a menu button, as `menu {} ...`, or press F10 (`key F10`) to open the app's menu",
                openers[0].trim_matches('`')
            )
        })
    }

    /// Closes the menus this walk opened, with Escape as a person would.
    async fn close_menus(&self) {
        let escapes = vec![
            InputEvent::Key {
                key: "Escape"
                    .parse()
                    .expect("a chord written in the code parses"),
            };
            self.opened
        ];
        let _ = crate::actions::send_keys(self.inner, self.top, escapes).await;
        let _ = self
            .inner
            .idle(Some(self.window), Duration::from_secs(2))
            .await;
    }
}

/// AT-SPI's relation from a control to what it controls (a menu button to its popover).
const CONTROLLER_FOR: u32 = 3;

/// A shown, labelled control that opens a menu: a menu button (which GTK 4
/// marks as the controller of its popover) or a control that expands.
fn is_menu_opener(elements: &[Element], at: usize, sets_showing: bool) -> bool {
    let raw = &elements[at].raw;
    roles::opens_menu(raw.role)
        && raw.states.is_shown(sets_showing)
        && !raw.name.is_empty()
        && !raw.name.starts_with("Gtk")
        && (raw.states.has(crate::states::st::EXPANDABLE)
            || raw
                .relations
                .iter()
                .any(|(kind, targets)| *kind == CONTROLLER_FOR && !targets.is_empty())
            || is_gtk4_menu_button(elements, at))
}

/// GTK 4.8 shows a menu button as a button without actions around a button
/// with the same label that opens the popover.
fn is_gtk4_menu_button(elements: &[Element], at: usize) -> bool {
    let outer = &elements[at].raw;
    outer.actions.is_empty()
        && elements.iter().skip(at + 1).take(4).any(|e| {
            e.parent == Some(at)
                && e.raw.name == outer.name
                && press_action(&e.raw.actions).is_some()
        })
}

/// Chooses (or opens) one item; `path` names it in messages.
async fn open(inner: &Inner, element: &Element, path: &str) -> Result<()> {
    let obj = element
        .raw
        .obj
        .clone()
        .expect("read elements have their object");
    if !element.raw.states.is_enabled() {
        return Err(Error::failed(format!(
            "the menu item `{path}` is disabled, so it can't be chosen now"
        ))
        .with_suggestion(
            "the app enables it when it applies (a selection, a document, text to act on); \
             check its state in the `tree`",
        ));
    }
    // A closed menu's items have their actions read only now.
    let actions = crate::fetch::actions_of(&inner.link, &element.raw).await;
    let index = press_action(&actions).ok_or_else(|| {
        Error::unsupported(format!(
            "the menu item `{path}` offers no action to choose it (its actions: {})",
            if actions.is_empty() {
                "none".to_string()
            } else {
                actions.join(", ")
            }
        ))
    })?;
    do_action(
        inner,
        &obj.0,
        obj.1.as_str(),
        index,
        inner.app.toolkit.action_latency(),
    )
    .await
}

/// The menu item labelled `label` below the element with key `scope`; with
/// `openers`, also a control that opens a menu (for windows without a menu bar).
fn find_item(elements: &[Element], scope: &str, label: &str, openers: bool) -> Option<usize> {
    let root = index_of(elements, scope)?;
    let below: Vec<usize> = (root + 1..elements.len())
        .take_while(|&i| descends_from(elements, i, root))
        .filter(|&i| {
            let role = elements[i].raw.role;
            roles::is_menu_item(role) || role == 33 || (openers && roles::opens_menu(role))
        })
        .collect();
    best_match(elements, &below, label)
}

/// A shown element labelled `label` that can be pressed, anywhere in the window:
/// the items of a popover that is not a child of the button that opened it.
fn find_shown_anywhere(elements: &[Element], label: &str, sets_showing: bool) -> Option<usize> {
    let shown: Vec<usize> = (0..elements.len())
        .filter(|&i| {
            let raw = &elements[i].raw;
            raw.states.is_shown(sets_showing) && press_action(&raw.actions).is_some()
        })
        .collect();
    best_match(elements, &shown, label)
}

/// The candidate labelled `label` (exactly, else ignoring case); of several,
/// one that can be pressed (a GTK 4 menu button is a box around the button
/// that opens it, both with its label).
fn best_match(elements: &[Element], candidates: &[usize], label: &str) -> Option<usize> {
    let wanted = normalize(label);
    let pressable = |i: &usize| press_action(&elements[*i].raw.actions).is_some();
    let exact: Vec<usize> = candidates
        .iter()
        .copied()
        .filter(|&i| normalize(&elements[i].raw.name) == wanted)
        .collect();
    let loose: Vec<usize> = candidates
        .iter()
        .copied()
        .filter(|&i| normalize(&elements[i].raw.name).eq_ignore_ascii_case(&wanted))
        .collect();
    exact
        .iter()
        .find(|i| pressable(i))
        .or(exact.first())
        .or_else(|| loose.iter().find(|i| pressable(i)).or(loose.first()))
        .copied()
}

fn descends_from(elements: &[Element], mut index: usize, root: usize) -> bool {
    while let Some(parent) = elements[index].parent {
        if parent == root {
            return true;
        }
        index = parent;
    }
    false
}

fn index_of(elements: &[Element], key: &str) -> Option<usize> {
    elements.iter().position(|e| object_key(e) == key)
}

fn object_key(element: &Element) -> String {
    element
        .raw
        .obj
        .as_ref()
        .map(|o| format!("{}{}", o.0, o.1.as_str()))
        .unwrap_or_default()
}

/// A label as menus show it, without mnemonic marks or a trailing ellipsis.
fn normalize(label: &str) -> String {
    label
        .replace('_', "")
        .trim()
        .trim_end_matches('…')
        .trim_end_matches("...")
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_match_without_mnemonics_or_ellipses() {
        assert_eq!(normalize("_Open…"), "Open");
        assert_eq!(normalize(" Save As... "), "Save As");
    }
}
