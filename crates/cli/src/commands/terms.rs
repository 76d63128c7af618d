//! Errors in the caller's terms: the command's own name, refs (`@e13`)
//! rather than protocol ids. (A part of a compound widget is acted on as
//! the widget by core: `Locator::retarget`.)

use crate::ctx::Ctx;
use crate::output::CliError;
use uidrive_core::protocol::ElementId;
use uidrive_core::snapshot::Ref;

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
    "scroll",
    "expand",
    "collapse",
    "increment",
    "decrement",
    "select_text",
    "drag_to",
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
