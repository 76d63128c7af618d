//! Role and state names, checked once for every front end: a name this
//! build does not know fails at once with `invalid_request` and the closest
//! known names, instead of a locator that waits out its timeout for an
//! element no app can have.

use crate::error::{Error, Result};
use crate::protocol::{Role, State};

/// The role a name means, or `invalid_request` for a name that is no role.
pub fn role(name: &str) -> Result<Role> {
    let role = Role::parse(name);
    if role.is_known() {
        return Ok(role);
    }
    let known: Vec<&str> = Role::ALL.iter().map(Role::as_str).collect();
    Err(unknown("role", name, &known))
}

/// The state a name means, or `invalid_request` for a name that is no state.
pub fn state(name: &str) -> Result<State> {
    let state = State::parse(name);
    if state.is_known() {
        return Ok(state);
    }
    let known: Vec<&str> = State::ALL.iter().map(State::as_str).collect();
    Err(unknown("state", name, &known))
}

fn unknown(kind: &str, name: &str, known: &[&str]) -> Error {
    let lower = name.to_ascii_lowercase();
    let mut close: Vec<&str> = known
        .iter()
        .copied()
        .filter(|k| {
            let k = k.to_ascii_lowercase();
            !lower.is_empty()
                && (k.contains(&lower) || lower.contains(&k) || distance(&k, &lower) <= 2)
        })
        .collect();
    close.truncate(5);
    let message = format!("`{name}` is not a {kind} uidrive knows");
    let suggestion = if close.is_empty() {
        format!(
            "use one of the protocol's {kind} names: {}",
            known.join(", ")
        )
    } else {
        format!(
            "did you mean {}? (the protocol's {kind} names are camelCase, as \"textField\")",
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
}
