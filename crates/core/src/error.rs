//! One error type for the whole library: the protocol's codes plus the client's own.

use crate::protocol::ElementId;
use std::fmt;

/// What went wrong, as a stable string code that scripts can test.
///
/// The first eight are the protocol's; the rest are uidrive's own. A code a
/// newer server sends that this build does not know is kept as [`ErrorCode::Other`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// A request line that is not JSON (`parse_error`).
    ParseError,
    /// A request whose params are missing or wrong (`invalid_request`).
    InvalidRequest,
    /// A method the server does not answer (`unknown_method`).
    UnknownMethod,
    /// No window with that id, or no window at all (`no_window`).
    NoWindow,
    /// No element with that id or key (`no_element`).
    NoElement,
    /// The element, window or server cannot do that (`unsupported`).
    Unsupported,
    /// No answer in time: the app is busy or frozen (`timeout`).
    Timeout,
    /// The app was asked and did not do it (`failed`).
    Failed,
    /// The connection to the app could not be made, or it closed.
    Disconnected,
    /// The other side broke the protocol: a line that is not JSON, an answer to another request.
    ProtocolError,
    /// A locator matched more than one element where one was needed.
    Ambiguous,
    /// The element exists but cannot take the action (hidden, disabled, moving, read-only).
    NotActionable,
    /// A snapshot ref whose element is gone.
    StaleRef,
    /// The app uidrive launched exited.
    AppExited,
    /// An `expect` assertion did not hold before its timeout.
    AssertionFailed,
    /// A code this build does not know.
    Other(String),
}

impl ErrorCode {
    /// Every code this build knows, in a fixed order (the C ABI numbers them by this order).
    pub const ALL: [ErrorCode; 15] = [
        ErrorCode::ParseError,
        ErrorCode::InvalidRequest,
        ErrorCode::UnknownMethod,
        ErrorCode::NoWindow,
        ErrorCode::NoElement,
        ErrorCode::Unsupported,
        ErrorCode::Timeout,
        ErrorCode::Failed,
        ErrorCode::Disconnected,
        ErrorCode::ProtocolError,
        ErrorCode::Ambiguous,
        ErrorCode::NotActionable,
        ErrorCode::StaleRef,
        ErrorCode::AppExited,
        ErrorCode::AssertionFailed,
    ];

    /// The code as a string, as `no_element`.
    pub fn as_str(&self) -> &str {
        match self {
            ErrorCode::ParseError => "parse_error",
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::UnknownMethod => "unknown_method",
            ErrorCode::NoWindow => "no_window",
            ErrorCode::NoElement => "no_element",
            ErrorCode::Unsupported => "unsupported",
            ErrorCode::Timeout => "timeout",
            ErrorCode::Failed => "failed",
            ErrorCode::Disconnected => "disconnected",
            ErrorCode::ProtocolError => "protocol_error",
            ErrorCode::Ambiguous => "ambiguous",
            ErrorCode::NotActionable => "not_actionable",
            ErrorCode::StaleRef => "stale_ref",
            ErrorCode::AppExited => "app_exited",
            ErrorCode::AssertionFailed => "assertion_failed",
            ErrorCode::Other(code) => code,
        }
    }

    /// The code for `code`, or [`ErrorCode::Other`] for one this build does not know.
    pub fn parse(code: &str) -> ErrorCode {
        Self::ALL
            .iter()
            .find(|known| known.as_str() == code)
            .cloned()
            .unwrap_or_else(|| ErrorCode::Other(code.to_string()))
    }

    /// What a caller can usually do about an error of this code.
    pub fn default_suggestion(&self) -> &'static str {
        match self {
            ErrorCode::ParseError => "send one JSON object per line, ending in a newline",
            ErrorCode::InvalidRequest => "check the method's params against docs/protocol.md",
            ErrorCode::UnknownMethod => "call `hello` to list the methods this server supports",
            ErrorCode::NoWindow => {
                "call `windows` to list the open windows and use one of their ids"
            }
            ErrorCode::NoElement => {
                "read the window's `tree` again: the element may have gone or never existed"
            }
            ErrorCode::Unsupported => {
                "use another action or method that the element offers (see its `actions`)"
            }
            ErrorCode::Timeout => "give a longer timeout, or check that the app is responsive",
            ErrorCode::Failed => "check the app's own output for why it could not do it",
            ErrorCode::Disconnected => {
                "check that the app is running and that its socket path is right"
            }
            ErrorCode::ProtocolError => {
                "check that the other side speaks the uidrive automation protocol"
            }
            ErrorCode::Ambiguous => {
                "narrow the locator (a name, `exact`, `nth`, or a key) so it matches one element"
            }
            ErrorCode::NotActionable => {
                "wait for the element to become visible, enabled and still, or use another element"
            }
            ErrorCode::StaleRef => "take a new snapshot and use the refs it prints",
            ErrorCode::AppExited => "check the app's output for a crash; launch it again",
            ErrorCode::AssertionFailed => "compare the expected and observed values in the message",
            ErrorCode::Other(_) => "see the message; this code comes from a newer server",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error with a code to test, a message to read and a suggestion to act on.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    /// What went wrong, for scripts to test.
    pub code: ErrorCode,
    /// What went wrong, for a person to read ([`Error::new`] cuts it at [`MAX_MESSAGE_BYTES`]).
    pub message: String,
    /// What to do about it ([`Error::with_suggestion`] cuts it at [`MAX_MESSAGE_BYTES`]).
    pub suggestion: String,
    /// What the error is about, typed: code that adds to an error or puts it
    /// in a front end's terms reads these, never the message's words.
    /// (Boxed: errors travel in every `Result`, and most have few details.)
    pub details: Box<Details>,
}

/// What an error is about, as typed fields. New fields may come in any
/// release (`#[non_exhaustive]`): build one with [`Details::default`] and
/// set the fields, or through [`Error::detail`].
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct Details {
    /// The operation that failed as core names it (`click`, `fill`); set
    /// only when the message begins with it and `": "`.
    pub operation: Option<String>,
    /// The element (or the locator looking for it) the error is about.
    pub element: Option<Subject>,
    /// What was observed last (a field's text, a state).
    pub observed: Option<String>,
    /// What was expected instead.
    pub expected: Option<String>,
    /// The window the error is about.
    pub window: Option<u64>,
    /// How many elements or windows matched (an `ambiguous` error's candidates).
    pub candidates: Option<usize>,
    /// The app's windows, once the message names them (`explain`).
    pub windows: Option<Vec<u64>>,
    /// How the app's process ended (`app_exited`): its exit code, or minus
    /// the signal that ended it.
    pub exit: Option<i32>,
    /// The API names the message and suggestion use in Rust's spelling,
    /// which each front end says in its own terms.
    pub terms: Vec<Term>,
}

/// The element an error is about: how the message names it, and which it is.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Subject {
    /// The words the message names it with (a locator's description).
    pub shown: String,
    /// Its window, where the locator named one.
    pub window: Option<u64>,
    /// Its id, where the locator names one element by id.
    pub id: Option<ElementId>,
}

impl Subject {
    /// The element the message calls `shown`, in `window`, with `id`.
    pub fn new(shown: impl Into<String>, window: Option<u64>, id: Option<ElementId>) -> Subject {
        Subject {
            shown: shown.into(),
            window,
            id,
        }
    }
}

/// A name of uidrive's API that a message or suggestion uses, written the
/// way a Rust user calls it ([`Term::rust`]); each front end says it its own
/// way (the facade's `hints`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Term {
    /// "start one with uidrive_x11::Desktop and pass its env()".
    StartDesktop,
    /// "(uidrive_x11::Desktop starts one) and pass its env()".
    DesktopStartsOne,
    /// "(uidrive_x11::Desktop does) and pass its DBUS_SESSION_BUS_ADDRESS".
    DesktopBus,
    /// "uidrive_x11::Desktop::start".
    DesktopStart,
    /// "App::window(id)".
    AppWindow,
    /// "TextMatch::exact".
    ExactMatch,
    /// "include_hidden(true)".
    IncludeHidden,
    /// "(`uidrive snapshot`)".
    Snapshot,
    /// "filter(...), or nth(i)".
    FilterOrNth,
}

impl Term {
    /// Every term, in a fixed order.
    pub const ALL: [Term; 9] = [
        Term::StartDesktop,
        Term::DesktopStartsOne,
        Term::DesktopBus,
        Term::DesktopStart,
        Term::AppWindow,
        Term::ExactMatch,
        Term::IncludeHidden,
        Term::Snapshot,
        Term::FilterOrNth,
    ];

    /// The words as core writes them.
    pub fn rust(self) -> &'static str {
        match self {
            Term::StartDesktop => "start one with uidrive_x11::Desktop and pass its env()",
            Term::DesktopStartsOne => "(uidrive_x11::Desktop starts one) and pass its env()",
            Term::DesktopBus => "(uidrive_x11::Desktop does) and pass its DBUS_SESSION_BUS_ADDRESS",
            Term::DesktopStart => "uidrive_x11::Desktop::start",
            Term::AppWindow => "App::window(id)",
            Term::ExactMatch => "TextMatch::exact",
            Term::IncludeHidden => "include_hidden(true)",
            Term::Snapshot => "(`uidrive snapshot`)",
            Term::FilterOrNth => "filter(...), or nth(i)",
        }
    }
}

/// A result whose error is uidrive's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The longest message or suggestion an error carries, in bytes: longer
/// ones (an input echoed back, a server's answer) are cut, saying how much
/// was left out, so no front end ever hands out a huge error.
pub const MAX_MESSAGE_BYTES: usize = 8 * 1024;

/// `text`, cut at [`MAX_MESSAGE_BYTES`] on a character boundary.
fn bounded(mut text: String) -> String {
    if text.len() <= MAX_MESSAGE_BYTES {
        return text;
    }
    let total = text.len();
    let mut end = MAX_MESSAGE_BYTES - 64;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push_str(&format!("… ({} more bytes left out)", total - end));
    text
}

impl Error {
    /// An error with the code's default suggestion.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Error {
        let suggestion = code.default_suggestion().to_string();
        Error {
            code,
            message: bounded(message.into()),
            suggestion,
            details: Box::default(),
        }
    }

    /// The same error with its [`Details`] changed by `set`.
    pub fn detail(mut self, set: impl FnOnce(&mut Details)) -> Error {
        set(&mut self.details);
        self
    }

    /// The same error, noting how the app's process ended ([`Details::exit`]).
    pub fn exited(self, status: &std::process::ExitStatus) -> Error {
        #[cfg(unix)]
        let exit = {
            use std::os::unix::process::ExitStatusExt;
            status.code().or_else(|| status.signal().map(|s| -s))
        };
        #[cfg(not(unix))]
        let exit = status.code();
        self.detail(|d| d.exit = exit)
    }

    /// The same error, noting that its message or suggestion uses `term`.
    pub fn mentioning(mut self, term: Term) -> Error {
        if !self.details.terms.contains(&term) {
            self.details.terms.push(term);
        }
        self
    }

    /// Notes that the error came from core's operation `operation`, when its
    /// message is headed by it (`click: ...`), as core writes its messages.
    pub fn from_operation(mut self, operation: &str) -> Error {
        if self.details.operation.is_none() && self.headed_by(operation) {
            self.details.operation = Some(operation.to_string());
        }
        self
    }

    fn headed_by(&self, operation: &str) -> bool {
        self.message
            .get(..operation.len())
            .is_some_and(|head| head == operation)
            && self.message[operation.len()..].starts_with(": ")
    }

    /// The same error headed by `name` instead of the operation it came
    /// from ([`Details::operation`]): a front end's own name for the call.
    pub fn renamed(mut self, name: &str) -> Error {
        if let Some(operation) = self.details.operation.take() {
            if operation != name && self.headed_by(&operation) {
                self.message = format!("{name}{}", &self.message[operation.len()..]);
            }
            self.details.operation = Some(name.to_string());
        }
        self
    }

    /// The same error with another suggestion.
    pub fn with_suggestion(mut self, suggestion: impl Into<String>) -> Error {
        self.suggestion = bounded(suggestion.into());
        self
    }

    /// An `invalid_request` error.
    pub fn invalid_request(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::InvalidRequest, message)
    }

    /// An `unsupported` error.
    pub fn unsupported(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::Unsupported, message)
    }

    /// A `no_window` error.
    pub fn no_window(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::NoWindow, message)
    }

    /// A `no_element` error.
    pub fn no_element(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::NoElement, message)
    }

    /// A `timeout` error.
    pub fn timeout(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::Timeout, message)
    }

    /// A `failed` error.
    pub fn failed(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::Failed, message)
    }

    /// A `disconnected` error.
    pub fn disconnected(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::Disconnected, message)
    }

    /// A `protocol_error` error: the other side broke the protocol.
    pub fn protocol(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::ProtocolError, message)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_unknown_codes_are_kept() {
        for code in ErrorCode::ALL {
            assert_eq!(ErrorCode::parse(code.as_str()), code);
        }
        assert_eq!(
            ErrorCode::parse("brand_new"),
            ErrorCode::Other("brand_new".into())
        );
        assert_eq!(ErrorCode::parse("brand_new").as_str(), "brand_new");
    }

    #[test]
    fn long_messages_are_cut_on_a_character_boundary_saying_how_much() {
        let err = Error::failed("é".repeat(1_000_000)).with_suggestion("x".repeat(100_000));
        assert!(
            err.message.len() <= MAX_MESSAGE_BYTES,
            "{}",
            err.message.len()
        );
        assert!(
            err.message.ends_with("more bytes left out)"),
            "{}",
            &err.message[8000..]
        );
        assert!(err.suggestion.len() <= MAX_MESSAGE_BYTES);
        assert_eq!(Error::failed("short").message, "short");
    }

    #[test]
    fn details_are_typed_and_rename_only_the_head_core_wrote() {
        let err = Error::no_element("click: no element matches get_by_key(\"x\")")
            .from_operation("click")
            .mentioning(Term::Snapshot)
            .mentioning(Term::Snapshot)
            .detail(|d| d.candidates = Some(0));
        assert_eq!(err.details.operation.as_deref(), Some("click"));
        assert_eq!(err.details.terms, vec![Term::Snapshot], "noted once");
        assert_eq!(err.details.candidates, Some(0));
        let renamed = err.renamed("press");
        assert_eq!(
            renamed.message,
            "press: no element matches get_by_key(\"x\")"
        );
        assert_eq!(renamed.details.operation.as_deref(), Some("press"));
        // A message not headed by the operation names none, and keeps its words.
        let other = Error::failed("clicked nothing").from_operation("click");
        assert_eq!(other.details.operation, None);
        assert_eq!(other.clone().renamed("press").message, "clicked nothing");
        // No details, no renaming: the words are never parsed for a head.
        assert_eq!(
            Error::failed("click: x").renamed("press").message,
            "click: x"
        );
    }

    #[cfg(unix)]
    #[test]
    fn an_exit_is_kept_as_its_code_or_minus_its_signal() {
        use std::os::unix::process::ExitStatusExt;
        let code = std::process::ExitStatus::from_raw(3 << 8);
        let signal = std::process::ExitStatus::from_raw(15);
        assert_eq!(Error::failed("x").exited(&code).details.exit, Some(3));
        assert_eq!(Error::failed("x").exited(&signal).details.exit, Some(-15));
    }

    #[test]
    fn every_error_has_a_suggestion() {
        let err = Error::no_window("no window 7");
        assert_eq!(err.to_string(), "no_window: no window 7");
        assert!(err.suggestion.contains("windows"));
    }
}
