//! One error type for the whole library: the protocol's codes plus the client's own.

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
        }
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
    fn every_error_has_a_suggestion() {
        let err = Error::no_window("no window 7");
        assert_eq!(err.to_string(), "no_window: no window 7");
        assert!(err.suggestion.contains("windows"));
    }
}
