//! Targets as agents write them: `@e3`, `key=add`, `id=123`,
//! `role=button name="Add"`, or any locator string core understands.

use crate::output::CliError;
use uidrive_core::snapshot::Ref;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetSpec {
    Ref(Ref),
    /// A selector in core's locator syntax.
    Selector(String),
}

/// Reads a target. A ref that does not parse, or a bare word, is a usage error.
pub fn parse(text: &str) -> Result<TargetSpec, CliError> {
    let text = text.trim();
    let looks_like_ref = text.starts_with('@')
        || (text.len() > 1
            && text.starts_with('e')
            && text[1..].bytes().all(|b| b.is_ascii_digit()));
    if looks_like_ref {
        return text
            .parse::<Ref>()
            .map(TargetSpec::Ref)
            .map_err(|e| CliError::usage(e.message));
    }
    if !text.contains('=') {
        return Err(CliError::usage(format!(
            "`{text}` is not a target: give a ref (@e3), key=KEY, id=DIGITS, or role=button name=\"Add\""
        )));
    }
    // Core reads `role=button name="Add"` as `role=button[name="Add"]`, alone or chained.
    Ok(TargetSpec::Selector(text.to_string()))
}

/// Role attributes that may follow `role=ROLE` as words of their own.
const ROLE_ATTRIBUTES: [&str; 6] = [
    "name=",
    "level=",
    "checked=",
    "disabled=",
    "expanded=",
    "selected=",
];

/// Joins `role=button` `name="Add"` given as separate words (a shell splits
/// an unquoted target) back into one target word.
pub fn join_selector_words<S: AsRef<std::ffi::OsStr> + From<String>>(words: Vec<S>) -> Vec<S> {
    let mut out: Vec<S> = Vec::with_capacity(words.len());
    let mut open_role = false;
    for word in words {
        let text = word.as_ref().to_string_lossy().into_owned();
        if open_role && ROLE_ATTRIBUTES.iter().any(|a| text.starts_with(a)) {
            let last = out.pop().expect("a role word came before");
            let joined = format!("{} {text}", last.as_ref().to_string_lossy());
            out.push(S::from(joined));
            continue;
        }
        open_role = text.starts_with("role=") && !text.contains('[');
        out.push(word);
    }
    out
}

/// Splits a batch step the way a shell would: words, 'single' and "double"
/// quotes, backslash escapes. Double quotes right after `=` are kept, so that
/// `name="7"` stays an exact match as in a selector.
pub fn shell_words(text: &str) -> Result<Vec<String>, CliError> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if let Some(w) = word.take() {
                    words.push(w);
                }
            }
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => w.push(c),
                        None => return Err(CliError::usage(format!("unclosed ' in `{text}`"))),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                let keep = w.ends_with('=');
                if keep {
                    w.push('"');
                }
                loop {
                    match chars.next() {
                        Some('"') => {
                            if keep {
                                w.push('"');
                            }
                            break;
                        }
                        Some('\\') => match chars.next() {
                            Some(c) => w.push(c),
                            None => {
                                return Err(CliError::usage(format!("dangling \\ in `{text}`")))
                            }
                        },
                        Some(c) => w.push(c),
                        None => return Err(CliError::usage(format!("unclosed \" in `{text}`"))),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(c) => word.get_or_insert_with(String::new).push(c),
                None => return Err(CliError::usage(format!("dangling \\ in `{text}`"))),
            },
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_keys_ids_and_roles_are_targets() {
        assert_eq!(parse("@e3").unwrap(), TargetSpec::Ref(Ref(3)));
        assert_eq!(parse("e12").unwrap(), TargetSpec::Ref(Ref(12)));
        assert_eq!(
            parse("key=add").unwrap(),
            TargetSpec::Selector("key=add".into())
        );
        assert_eq!(
            parse("id=42").unwrap(),
            TargetSpec::Selector("id=42".into())
        );
        // Attributes as words are core's selector syntax too, alone or chained.
        assert_eq!(
            parse("role=button name=\"Add one\" >> nth=0").unwrap(),
            TargetSpec::Selector("role=button name=\"Add one\" >> nth=0".into())
        );
        assert_eq!(
            parse("role=button[name=\"Add\"] >> nth=0").unwrap(),
            TargetSpec::Selector("role=button[name=\"Add\"] >> nth=0".into())
        );
    }

    #[test]
    fn bad_targets_are_usage_errors() {
        for bad in ["@x", "@e0", "Add", "elephant"] {
            let err = parse(bad).unwrap_err();
            assert!(err.usage, "{bad}");
        }
    }

    #[test]
    fn role_words_split_by_a_shell_are_joined() {
        let words: Vec<String> = ["press", "role=button", "name=Add", "--settle"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            join_selector_words(words),
            vec!["press", "role=button name=Add", "--settle"]
        );
        let words: Vec<String> = ["fill", "role=textField", "name=\"Name\"", "name=x"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            join_selector_words(words),
            vec!["fill", "role=textField name=\"Name\" name=x"]
        );
        let words: Vec<String> = ["fill", "key=name", "name=Ada"].map(String::from).to_vec();
        assert_eq!(join_selector_words(words.clone()), words);
    }

    #[test]
    fn steps_split_like_a_shell() {
        assert_eq!(
            shell_words(r#"press role=button name="7" --settle"#).unwrap(),
            vec!["press", "role=button", r#"name="7""#, "--settle"]
        );
        assert_eq!(
            shell_words(r#"fill @e3 "Ada Lovelace" --settle"#).unwrap(),
            vec!["fill", "@e3", "Ada Lovelace", "--settle"]
        );
        assert_eq!(
            shell_words(r#"press 'role=button name="Add"'"#).unwrap(),
            vec!["press", r#"role=button name="Add""#]
        );
        assert_eq!(
            shell_words(r#"type a\ b """#).unwrap(),
            vec!["type", "a b", ""]
        );
        assert!(shell_words("press \"open").is_err());
    }
}
