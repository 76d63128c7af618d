//! `menu`: choosing a menu-bar item by the labels along its path.

use crate::actions::do_action;
use crate::driver::Inner;
use crate::roles;
use crate::tree::{self, press_action, Element};
use crate::windows;
use std::time::Duration;
use uidrive_core::protocol::MenuParams;
use uidrive_core::{Error, Result};

/// Walks the window's menu bar down `params.path` and presses the last item.
/// A submenu whose items are not in the tree yet is opened first. A window
/// without a menu bar starts from the control labelled `path[0]` that opens a
/// menu or popover (a menu button, a combo box), whose items may then show anywhere.
pub async fn choose(inner: &Inner, params: &MenuParams) -> Result<()> {
    let (window, top) =
        windows::resolve(&inner.link, &inner.app, &inner.ids, params.window).await?;
    let mut elements = tree::read_elements(&inner.link, &inner.app, &top.obj).await?;
    let bar = elements.iter().position(|e| e.raw.role == 34);
    let mut scope = object_key(&elements[bar.unwrap_or(0)]);
    for (depth, label) in params.path.iter().enumerate() {
        let mut found = find_item(&elements, &scope, label, bar.is_none() && depth == 0);
        if found.is_none() && depth > 0 {
            // The submenu may be built, or shown, only once it opens.
            if let Some(at) = index_of(&elements, &scope) {
                open(inner, &elements[at]).await?;
                inner.idle(Some(window), Duration::from_secs(5)).await?;
                elements = tree::read_elements(&inner.link, &inner.app, &top.obj).await?;
                found = find_item(&elements, &scope, label, false).or_else(|| {
                    find_shown_anywhere(&elements, label, inner.app.toolkit.sets_showing())
                });
            }
        }
        let Some(at) = found else {
            let place = match (depth, bar) {
                (0, Some(_)) => "the menu bar".to_string(),
                (0, None) => "the window, which has no menu bar,".to_string(),
                _ => format!("the menu `{}`", params.path[..depth].join(" > ")),
            };
            return Err(Error::no_element(format!(
                "no item `{label}` in {place} of window {window}"
            ))
            .with_suggestion("read the window's `tree` for the menu items' labels"));
        };
        scope = object_key(&elements[at]);
    }
    let at = index_of(&elements, &scope).expect("the item was just found");
    open(inner, &elements[at]).await
}

async fn open(inner: &Inner, element: &Element) -> Result<()> {
    let obj = element
        .raw
        .obj
        .clone()
        .expect("read elements have their object");
    let index = press_action(&element.raw.actions).ok_or_else(|| {
        Error::unsupported(format!(
            "the menu item \"{}\" offers no action to choose it",
            element.raw.name
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

fn best_match(elements: &[Element], candidates: &[usize], label: &str) -> Option<usize> {
    let wanted = normalize(label);
    candidates
        .iter()
        .copied()
        .find(|&i| normalize(&elements[i].raw.name) == wanted)
        .or_else(|| {
            candidates
                .iter()
                .copied()
                .find(|&i| normalize(&elements[i].raw.name).eq_ignore_ascii_case(&wanted))
        })
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
