//! Suggestions in each language's own terms.
//!
//! Core and the drivers write their suggestions the way a Rust user calls
//! uidrive (`uidrive_x11::Desktop`, `App::window(id)`). Each front end passes
//! its errors through [`localize`] once, where they leave it, so a Python
//! user reads `uidrive.headless()` and a C user `ud_desktop_start`.

use uidrive_core::Error;

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

/// Rust spellings, longest first, and what each language says instead.
const TABLE: &[(&str, [&str; 4])] = &[
    (
        "start one with uidrive_x11::Desktop and pass its env()",
        [
            "start one with uidrive.headless() and launch through desktop.launch(...)",
            "start one with headless() and launch through desktop.launch(...)",
            "start one with ud_desktop_start and launch through ud_desktop_launch",
            "add --headless to `uidrive open`",
        ],
    ),
    (
        "(uidrive_x11::Desktop starts one) and pass its env()",
        [
            "(uidrive.headless() starts one) and launch through desktop.launch(...)",
            "(headless() starts one) and launch through desktop.launch(...)",
            "(ud_desktop_start starts one) and launch through ud_desktop_launch",
            "(`uidrive open --headless` starts one)",
        ],
    ),
    (
        "(uidrive_x11::Desktop does) and pass its DBUS_SESSION_BUS_ADDRESS",
        [
            "(uidrive.headless() does) and launch through desktop.launch(...)",
            "(headless() does) and launch through desktop.launch(...)",
            "(ud_desktop_start does) and launch through ud_desktop_launch",
            "(`uidrive open --headless` does)",
        ],
    ),
    (
        "uidrive_x11::Desktop::start",
        [
            "uidrive.headless()",
            "headless()",
            "ud_desktop_start",
            "`uidrive open --headless`",
        ],
    ),
    (
        "uidrive_x11::Desktop",
        [
            "uidrive.headless()",
            "headless()",
            "ud_desktop_start",
            "`uidrive open --headless`",
        ],
    ),
    (
        "App::window(id)",
        [
            "app.window(id=...)",
            "app.window({ id })",
            "ud_app_window",
            "--window ID",
        ],
    ),
    (
        "TextMatch::exact",
        [
            "exact=True",
            "{ exact: true }",
            "UD_MATCH_EXACT",
            "a quoted name (name=\"...\")",
        ],
    ),
    (
        "include_hidden(true)",
        [
            "include_hidden=True",
            "includeHidden: true",
            "ud_locator_include_hidden",
            "a ref from `uidrive snapshot`",
        ],
    ),
    (
        "(`uidrive snapshot`)",
        [
            "(app.snapshot())",
            "(app.snapshot())",
            "(ud_app_snapshot)",
            "(`uidrive snapshot`)",
        ],
    ),
    (
        "filter(...), or nth(i)",
        [
            "filter(...), or nth(i)",
            "filter({...}), or nth(i)",
            "ud_locator_filter, or ud_locator_nth",
            "a ref from `uidrive snapshot`, or `>> nth=I`",
        ],
    ),
];

/// The error with its suggestion (and message) in `lang`'s terms.
pub fn localize(mut error: Error, lang: Lang) -> Error {
    let column = match lang {
        Lang::Python => 0,
        Lang::Node => 1,
        Lang::C => 2,
        Lang::Cli => 3,
    };
    for (rust, spellings) in TABLE {
        if error.suggestion.contains(rust) {
            error.suggestion = error.suggestion.replace(rust, spellings[column]);
        }
        if error.message.contains(rust) {
            error.message = error.message.replace(rust, spellings[column]);
        }
    }
    error
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_spellings_become_the_languages_own() {
        let err = Error::failed("no display").with_suggestion(
            "run inside a desktop session, or start one with uidrive_x11::Desktop and pass its env()",
        );
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
            .with_suggestion("use App::window(id) with one of these ids, or an exact title");
        assert!(localize(err.clone(), Lang::Node)
            .suggestion
            .contains("app.window({ id })"));
        assert!(localize(err, Lang::Python)
            .suggestion
            .contains("app.window(id=...)"));
    }
}
