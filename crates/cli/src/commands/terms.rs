//! Errors in the caller's terms: the command's own name, refs (`@e13`)
//! rather than protocol ids. (A part of a compound widget is acted on as
//! the widget by core: `Locator::retarget`.)

use crate::ctx::Ctx;
use crate::output::CliError;
use uidrive_core::protocol::ElementId;
use uidrive_core::snapshot::Ref;
#[cfg(doc)]
use uidrive_core::Details;
use uidrive_core::Error;

/// `err` as the caller would say it: headed by the command's name rather
/// than the core operation it ran ([`Details::operation`]), and naming the
/// element it is about ([`Details::element`]) by its ref where the session
/// has one, instead of its protocol id. Only the typed details are read.
pub fn in_callers_terms(command: &str, ctx: &Ctx, mut err: CliError) -> CliError {
    err.error = callers_terms(command, err.error.clone(), |window, id| match window {
        Some(w) => ctx.state.refs.ref_of(w, id),
        None => ctx.state.refs.ref_of_id(id),
    });
    err
}

/// [`in_callers_terms`] with `ref_of` giving the ref of an element.
fn callers_terms(
    command: &str,
    error: Error,
    ref_of: impl Fn(Option<u64>, ElementId) -> Option<Ref>,
) -> Error {
    let mut error = error.renamed(command);
    let named = error.details.element.as_ref().and_then(|subject| {
        let id = subject.id?;
        Some((subject.shown.clone(), ref_of(subject.window, id)?))
    });
    if let Some((shown, r)) = named {
        error.message = error.message.replace(&shown, &r.to_string());
    }
    error
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidrive_core::{ErrorCode, Subject};

    fn ref_of(w: Option<u64>, id: ElementId) -> Option<Ref> {
        (id.0 == 42 && w != Some(9)).then_some(Ref(13))
    }

    #[test]
    fn the_element_in_the_details_is_named_by_its_ref() {
        let err = Error::new(
            ErrorCode::NoElement,
            "select_option: window(1).get_by_id(42) shows no option",
        )
        .from_operation("select_option")
        .detail(|d| {
            d.element = Some(Subject::new(
                "window(1).get_by_id(42)",
                Some(1),
                Some(ElementId(42)),
            ))
        });
        let said = callers_terms("select", err, ref_of);
        assert_eq!(said.message, "select: @e13 shows no option");
        assert_eq!(said.details.operation.as_deref(), Some("select"));
        // The same element in a window with no ref for it stays as it is.
        let err = Error::failed("click: window(9).get_by_id(42) moved")
            .from_operation("click")
            .detail(|d| {
                d.element = Some(Subject::new(
                    "window(9).get_by_id(42)",
                    Some(9),
                    Some(ElementId(42)),
                ))
            });
        assert_eq!(
            callers_terms("click", err, ref_of).message,
            "click: window(9).get_by_id(42) moved"
        );
    }

    #[test]
    fn only_the_typed_details_are_read_never_the_words() {
        // A message that reads like core's but carries no details is left
        // exactly as it is: nothing is parsed out of it.
        let err = Error::failed("select_option: window(1).get_by_id(42) shows no option");
        assert_eq!(
            callers_terms("select", err.clone(), ref_of).message,
            err.message
        );
        // An operation in the details that does not head the message renames nothing.
        let mut err = Error::failed("it moved: select_option: x");
        err.details.operation = Some("select_option".into());
        assert_eq!(
            callers_terms("select", err, ref_of).message,
            "it moved: select_option: x"
        );
    }
}
