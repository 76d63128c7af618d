//! Role and state names, checked once for every front end: a name this
//! build does not know fails at once with `invalid_request` and the closest
//! known names, instead of a locator that waits out its timeout for an
//! element no app can have.

use crate::error::{Error, Result};
use crate::protocol::{Role, State};

/// ARIA's role names (as Playwright's `get_by_role` takes them) that name a
/// protocol role otherwise: each is accepted as that role. ARIA names equal
/// to the protocol's (`button`, `link`, `dialog`, ...) need no entry.
pub const ARIA_ALIASES: &[(&str, Role)] = &[
    ("textbox", Role::TextField),
    ("searchbox", Role::TextField),
    ("checkbox", Role::CheckBox),
    ("combobox", Role::ComboBox),
    ("listbox", Role::List),
    ("listitem", Role::ListItem),
    ("option", Role::ListItem),
    ("img", Role::Image),
    ("progressbar", Role::Progress),
    ("scrollbar", Role::Scroll),
    ("spinbutton", Role::Stepper),
    ("tablist", Role::TabList),
    ("tabpanel", Role::TabPanel),
    ("treeitem", Role::TreeItem),
    ("treegrid", Role::TreeGrid),
    ("gridcell", Role::Cell),
    ("columnheader", Role::ColumnHeader),
    ("rowheader", Role::RowHeader),
    ("radiogroup", Role::RadioGroup),
    ("menubar", Role::MenuBar),
    ("menuitem", Role::MenuItem),
    ("menuitemcheckbox", Role::MenuItemCheckBox),
    ("menuitemradio", Role::MenuItemRadio),
    ("alertdialog", Role::AlertDialog),
    ("contentinfo", Role::ContentInfo),
];

/// The role a name means, or `invalid_request` for a name that is no role.
/// ARIA's names ([`ARIA_ALIASES`]) mean the protocol's roles they alias.
pub fn role(name: &str) -> Result<Role> {
    let role = Role::parse(name);
    if role.is_known() {
        return Ok(role);
    }
    if let Some((_, role)) = ARIA_ALIASES.iter().find(|(aria, _)| *aria == name) {
        return Ok(role.clone());
    }
    let known: Vec<&str> = Role::ALL.iter().map(Role::as_str).collect();
    // A misspelt ARIA name suggests the protocol's role it would alias.
    let lower = name.to_ascii_lowercase();
    let near_aliases: Vec<&str> = ARIA_ALIASES
        .iter()
        .filter(|(aria, _)| !lower.is_empty() && distance(aria, &lower) <= 2)
        .map(|(_, role)| role.as_str())
        .collect();
    Err(unknown("role", name, &known, &near_aliases))
}

/// The state a name means, or `invalid_request` for a name that is no state.
pub fn state(name: &str) -> Result<State> {
    let state = State::parse(name);
    if state.is_known() {
        return Ok(state);
    }
    let known: Vec<&str> = State::ALL.iter().map(State::as_str).collect();
    Err(unknown("state", name, &known, &[]))
}

fn unknown(kind: &str, name: &str, known: &[&str], near: &[&str]) -> Error {
    let lower = name.to_ascii_lowercase();
    let mut close: Vec<&str> = near.to_vec();
    close.extend(known.iter().copied().filter(|k| {
        let k = k.to_ascii_lowercase();
        !lower.is_empty()
            && !near.iter().any(|n| n.eq_ignore_ascii_case(&k))
            && (k.contains(&lower) || lower.contains(&k) || distance(&k, &lower) <= 2)
    }));
    close.truncate(5);
    let message = format!("`{name}` is not a {kind} uidrive knows");
    let suggestion = if close.is_empty() {
        format!(
            "use one of the protocol's {kind} names: {}",
            known.join(", ")
        )
    } else {
        format!(
            "did you mean {}? (the protocol's {kind} names are camelCase, as \"textField\"; ARIA's, as \"textbox\", are taken too)",
            close
                .iter()
                .map(|c| format!("\"{c}\""))
                .collect::<Vec<_>>()
                .join(" or ")
        )
    };
    Error::invalid_request(message).with_suggestion(suggestion)
}

/// Edit distance, for suggestions.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let kept = row[j + 1];
            row[j + 1] = (previous + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            previous = kept;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn known_names_pass_and_unknown_ones_fail_with_a_hint() {
        assert_eq!(role("button").unwrap(), Role::Button);
        assert_eq!(state("checked").unwrap(), State::Checked);
        let err = role("textfield").unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest);
        assert!(
            err.suggestion.contains("\"textField\""),
            "{}",
            err.suggestion
        );
        let err = role("buton").unwrap_err();
        assert!(err.suggestion.contains("\"button\""), "{}", err.suggestion);
        let err = state("chekced").unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest);
        assert!(err.suggestion.contains("\"checked\""), "{}", err.suggestion);
        assert!(role("").is_err());
    }

    #[test]
    fn aria_role_names_are_aliases() {
        assert_eq!(role("textbox").unwrap(), Role::TextField);
        assert_eq!(role("checkbox").unwrap(), Role::CheckBox);
        assert_eq!(role("combobox").unwrap(), Role::ComboBox);
        assert_eq!(role("listitem").unwrap(), Role::ListItem);
        assert_eq!(role("menuitem").unwrap(), Role::MenuItem);
        for (aria, meant) in ARIA_ALIASES {
            assert_eq!(&role(aria).unwrap(), meant, "{aria}");
            assert!(
                !Role::parse(aria).is_known(),
                "{aria} is a protocol name already"
            );
        }
        // Misspelt ARIA is still refused, with the protocol's name suggested.
        let err = role("textboxx").unwrap_err();
        assert!(
            err.suggestion.contains("\"textField\""),
            "{}",
            err.suggestion
        );
    }
}
