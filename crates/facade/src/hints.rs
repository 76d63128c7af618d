//! Suggestions in each language's own terms.
//!
//! Core and the drivers write their suggestions the way a Rust user calls
//! uidrive (`uidrive_x11::Desktop`, `App::window(id)`). Each front end passes
//! its errors through [`localize`] once, where they leave it, so a Python
//! user reads `uidrive.headless()` and a C user `ud_desktop_start`.

use uidrive_core::{Error, Term};

/// A front end's language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// Python, the wheel.
    Python,
    /// Node, the module.
    Node,
    /// C, the ABI.
    C,
    /// The command line and its MCP server.
    Cli,
}

/// What each language says for a [`Term`], in the order of [`Lang`]'s
/// columns (Python, Node, C, the command line).
fn spellings(term: Term) -> [&'static str; 4] {
    match term {
        Term::StartDesktop => [
            "start one with uidrive.headless() and launch through desktop.launch(...)",
            "start one with headless() and launch through desktop.launch(...)",
            "start one with ud_desktop_start and launch through ud_desktop_launch",
            "add --headless to `uidrive open`",
        ],
        Term::DesktopStartsOne => [
            "(uidrive.headless() starts one) and launch through desktop.launch(...)",
            "(headless() starts one) and launch through desktop.launch(...)",
            "(ud_desktop_start starts one) and launch through ud_desktop_launch",
            "(`uidrive open --headless` starts one)",
        ],
        Term::DesktopBus => [
            "(uidrive.headless() does) and launch through desktop.launch(...)",
            "(headless() does) and launch through desktop.launch(...)",
            "(ud_desktop_start does) and launch through ud_desktop_launch",
            "(`uidrive open --headless` does)",
        ],
        Term::DesktopStart => [
            "uidrive.headless()",
            "headless()",
            "ud_desktop_start",
            "`uidrive open --headless`",
        ],
        Term::AppWindow => [
            "app.window(id=...)",
            "app.window({ id })",
            "ud_app_window",
            "--window ID",
        ],
        Term::ExactMatch => [
            "exact=True",
            "{ exact: true }",
            "UD_MATCH_EXACT",
            "a quoted name (name=\"...\")",
        ],
        Term::IncludeHidden => [
            "include_hidden=True",
            "includeHidden: true",
            "ud_locator_include_hidden",
            "a ref from `uidrive snapshot`",
        ],
        Term::Snapshot => [
            "(app.snapshot())",
            "(app.snapshot())",
            "(ud_app_snapshot)",
            "(`uidrive snapshot`)",
        ],
        Term::FilterOrNth => [
            "filter(...), or nth(i)",
            "filter({...}), or nth(i)",
            "ud_locator_filter, or ud_locator_nth",
            "a ref from `uidrive snapshot`, or `>> nth=I`",
        ],
        // A term this build has no spelling for stays in Rust's.
        other => [other.rust(); 4],
    }
}

/// The error with its suggestion (and message) in `lang`'s terms: each
/// [`Term`] its details list is said as `lang` says it.
pub fn localize(mut error: Error, lang: Lang) -> Error {
    let column = match lang {
        Lang::Python => 0,
        Lang::Node => 1,
        Lang::C => 2,
        Lang::Cli => 3,
    };
    for term in std::mem::take(&mut error.details.terms) {
        let said = spellings(term)[column];
        error.suggestion = error.suggestion.replace(term.rust(), said);
        error.message = error.message.replace(term.rust(), said);
    }
    error
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_spellings_become_the_languages_own() {
        let err = Error::failed("no display")
            .with_suggestion(
                "run inside a desktop session, or start one with uidrive_x11::Desktop and pass its env()",
            )
            .mentioning(Term::StartDesktop);
        let py = localize(err.clone(), Lang::Python);
        assert!(
            py.suggestion.contains("uidrive.headless()"),
            "{}",
            py.suggestion
        );
        assert!(!py.suggestion.contains("::"));
        let c = localize(err.clone(), Lang::C);
        assert!(
            c.suggestion.contains("ud_desktop_start"),
            "{}",
            c.suggestion
        );
        let err = Error::failed("x")
            .with_suggestion("use App::window(id) with one of these ids, or an exact title")
            .mentioning(Term::AppWindow);
        assert!(localize(err.clone(), Lang::Node)
            .suggestion
            .contains("app.window({ id })"));
        assert!(localize(err, Lang::Python)
            .suggestion
            .contains("app.window(id=...)"));
    }

    #[test]
    fn only_the_terms_the_details_list_are_said_anew() {
        // The same words with no term in the details: read as they are.
        let err = Error::failed("x").with_suggestion("use App::window(id) or TextMatch::exact");
        assert_eq!(localize(err.clone(), Lang::Python), err);
        let err = err.mentioning(Term::ExactMatch);
        let said = localize(err, Lang::C);
        assert_eq!(said.suggestion, "use App::window(id) or UD_MATCH_EXACT");
        assert!(said.details.terms.is_empty(), "said once");
        // Every term has a spelling in every language that is not Rust's.
        for term in Term::ALL {
            for said in spellings(term) {
                assert!(!said.contains("::"), "{term:?}: {said}");
            }
        }
    }
}
