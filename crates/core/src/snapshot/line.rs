//! How one element reads on its line, and which elements count as controls.

use super::Element;
use crate::protocol::{Action, Node, Role, State};
use std::fmt::Write;

/// Longer labels and values are cut: a line is for finding the element, not for reading a page.
const MAX_TEXT: usize = 80;

/// Whether an agent would act on the element: a control by its role, or
/// anything that offers an action beyond focusing and scrolling.
pub fn is_interactive(node: &Node) -> bool {
    let by_role = matches!(
        node.role,
        Role::Button
            | Role::Link
            | Role::CheckBox
            | Role::Radio
            | Role::Switch
            | Role::Slider
            | Role::TextField
            | Role::PopUpButton
            | Role::Tab
            | Role::MenuButton
            | Role::ToggleButton
            | Role::ComboBox
            | Role::Disclosure
            | Role::Stepper
            | Role::ColorWell
            | Role::MenuItem
            | Role::MenuItemCheckBox
            | Role::MenuItemRadio
            | Role::TreeItem
    );
    by_role
        || node
            .actions
            .iter()
            .any(|a| !matches!(a, Action::Focus | Action::ScrollIntoView))
        || (matches!(node.role, Role::ListItem | Role::Cell | Role::Row)
            && node.has_state(&State::Selectable))
}

/// The states a line shows: those that tell what the element is doing, not
/// what it could do (`focusable`, `selectable` and layout flags are left out).
/// The toolkit's `offscreen` flag is left out too: whether an element is on
/// screen is decided by the snapshot (see `visibility`), and a line says
/// `offscreen` only when that finds it hidden.
pub(crate) fn states_of(node: &Node, focused: bool) -> Vec<String> {
    let mut shown: Vec<String> = Vec::new();
    if focused {
        shown.push("focused".into());
    }
    for state in &node.states {
        let keep = matches!(
            state,
            State::Disabled
                | State::Checked
                | State::Mixed
                | State::Selected
                | State::Expanded
                | State::Password
                | State::ReadOnly
                | State::Invalid
                | State::Busy
                | State::SortAscending
                | State::SortDescending
        );
        if keep {
            shown.push(state.as_str().to_string());
        }
    }
    // A thing that can open and is not open says so: agents look for it.
    if node.has_state(&State::Expandable) && !node.has_state(&State::Expanded) {
        shown.push("collapsed".into());
    }
    shown
}

pub(crate) fn text_of(text: Option<&str>) -> Option<String> {
    text.map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
}

/// The value a line shows: the text value, else a range's current number.
pub(crate) fn value_of(node: &Node) -> Option<String> {
    let value = text_of(node.value.as_deref())
        .or_else(|| node.now.map(number))
        .filter(|v| Some(v.as_str()) != node.label.as_deref().map(str::trim));
    value
}

/// The selected part of a text value, when something is selected.
pub(crate) fn selected_of(node: &Node) -> Option<String> {
    let [start, end] = node.selection?;
    let value = node.value.as_deref()?;
    if end <= start {
        return None;
    }
    let picked: String = value
        .chars()
        .skip(start as usize)
        .take((end - start) as usize)
        .collect();
    (!picked.is_empty()).then_some(picked)
}

fn number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// `@e2 [button] "Add" value="x" selected="x" key=add checked`
pub(crate) fn format(e: &Element) -> String {
    format!("{} {}", e.r, body(e))
}

/// The line after the ref: `[button] "Add" value="x" key=add checked`.
pub(crate) fn body(e: &Element) -> String {
    let mut line = format!("[{}]", e.role);
    if let Some(label) = &e.label {
        let _ = write!(line, " {}", quote(label));
    }
    if let Some(value) = &e.value {
        let _ = write!(line, " value={}", quote(value));
    }
    if let Some(selected) = &e.selected {
        let _ = write!(line, " selected={}", quote(selected));
    }
    if let Some(key) = &e.key {
        if key.is_empty() || key.contains(|c: char| c.is_whitespace() || c == '"' || spoofs(c)) {
            let _ = write!(line, " key={}", quote(key));
        } else {
            let _ = write!(line, " key={key}");
        }
    }
    for state in &e.states {
        line.push(' ');
        line.push_str(state);
    }
    if e.offscreen {
        line.push_str(" offscreen");
    }
    if e.unread > 0 {
        let _ = write!(
            line,
            " ({} more not read: only those on screen are; scroll to read others)",
            e.unread
        );
    }
    line
}

/// Whether `c` could make a terminal show something other than the text
/// it is in: control characters (a carriage return, an escape sequence's
/// ESC, C1 codes), bidirectional controls (U+202E turns what follows
/// around), and invisible format characters (zero-width space, word joiner,
/// byte order mark, tags). Newline and tab are left to the caller. Joiners
/// (U+200C, U+200D) are kept: scripts and emoji need them.
pub fn spoofs(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}'
            | '\u{b}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{ad}'
            | '\u{61c}'
            | '\u{180e}'
            | '\u{200b}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{e0001}'
            | '\u{e0020}'..='\u{e007f}')
}

/// `text` with every character that [`spoofs`] a terminal written as
/// `\u{202e}`; newlines and tabs are kept.
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(spoofs) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if spoofs(c) {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Text in double quotes, one line, cut to [`MAX_TEXT`] characters, with
/// what could spoof a terminal escaped ([`spoofs`]).
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(MAX_TEXT) + 2);
    out.push('"');
    for (count, c) in text.chars().enumerate() {
        if count == MAX_TEXT {
            out.push('…');
            break;
        }
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if spoofs(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_escapes_and_cuts() {
        assert_eq!(quote("say \"hi\"\nnow"), "\"say \\\"hi\\\"\\nnow\"");
        let long = "x".repeat(200);
        let quoted = quote(&long);
        assert_eq!(quoted.chars().count(), MAX_TEXT + 3);
        assert!(quoted.ends_with("…\""));
    }

    #[test]
    fn what_could_spoof_a_terminal_is_escaped() {
        // The bidi override, a carriage return and an escape sequence.
        assert_eq!(quote("pay\u{202e}evil"), "\"pay\\u{202e}evil\"");
        assert_eq!(quote("a\rb\u{1b}[2J"), "\"a\\u{d}b\\u{1b}[2J\"");
        assert_eq!(quote("zero\u{200b}width"), "\"zero\\u{200b}width\"");
        // Scripts and emoji keep their joiners; plain text is untouched.
        assert_eq!(quote("👨\u{200d}👩"), "\"👨\u{200d}👩\"");
        assert_eq!(terminal_safe("line one\nline two"), "line one\nline two");
        assert_eq!(terminal_safe("x\u{2066}y"), "x\\u{2066}y");
    }

    #[test]
    fn whole_numbers_read_as_integers() {
        assert_eq!(number(50.0), "50");
        assert_eq!(number(0.5), "0.5");
    }
}
