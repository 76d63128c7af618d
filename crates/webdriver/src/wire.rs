//! WebDriver's answers: `{"value": ...}`, and errors as W3C error codes with
//! their HTTP statuses, carrying uidrive's message, suggestion and code.

use serde_json::{json, Value};
use uidrive_core::{Error, ErrorCode};

/// A W3C error: its HTTP status, its error code and what to tell the client.
#[derive(Debug, Clone)]
pub struct WdError {
    /// The HTTP status W3C gives the code.
    pub status: u16,
    /// The W3C error code (`no such element`, ...).
    pub error: &'static str,
    /// uidrive's message, with its suggestion.
    pub message: String,
    /// uidrive's own code and suggestion, for clients that look.
    pub data: Value,
}

impl WdError {
    /// An error of WebDriver's own (no uidrive error behind it).
    pub fn new(status: u16, error: &'static str, message: impl Into<String>) -> WdError {
        WdError {
            status,
            error,
            message: message.into(),
            data: Value::Null,
        }
    }

    /// `invalid argument`: the request's body is not what the command takes.
    pub fn invalid_argument(message: impl Into<String>) -> WdError {
        WdError::new(400, "invalid argument", message)
    }

    /// `unsupported operation`.
    pub fn unsupported(message: impl Into<String>) -> WdError {
        WdError::new(500, "unsupported operation", message)
    }

    /// The JSON body of the answer.
    pub fn body(&self) -> Value {
        let mut value = json!({
            "error": self.error,
            "message": self.message,
            "stacktrace": "",
        });
        if !self.data.is_null() {
            value["data"] = self.data.clone();
        }
        json!({ "value": value })
    }
}

/// The W3C error code and status for one of uidrive's codes.
pub fn w3c_code(code: &ErrorCode) -> (u16, &'static str) {
    match code {
        ErrorCode::NoElement => (404, "no such element"),
        ErrorCode::StaleRef => (404, "stale element reference"),
        ErrorCode::NoWindow => (404, "no such window"),
        ErrorCode::NotActionable => (400, "element not interactable"),
        ErrorCode::Timeout => (500, "timeout"),
        ErrorCode::InvalidRequest | ErrorCode::ParseError | ErrorCode::Ambiguous => {
            (400, "invalid argument")
        }
        ErrorCode::Unsupported | ErrorCode::UnknownMethod => (500, "unsupported operation"),
        _ => (500, "unknown error"),
    }
}

impl From<Error> for WdError {
    fn from(e: Error) -> WdError {
        let (status, error) = w3c_code(&e.code);
        let message = if e.suggestion.is_empty() {
            format!("{}: {}", e.code, e.message)
        } else {
            format!("{}: {} (suggestion: {})", e.code, e.message, e.suggestion)
        };
        WdError {
            status,
            error,
            message,
            data: json!({ "code": e.code.as_str(), "suggestion": e.suggestion }),
        }
    }
}

/// The result of one command: the `value` to answer, or an error.
pub type WdResult = std::result::Result<Value, WdError>;

/// A string member of a request body, required.
pub fn string_arg<'a>(body: &'a Value, name: &str) -> Result<&'a str, WdError> {
    body.get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| WdError::invalid_argument(format!("the body needs a string `{name}`")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uidrive_errors_become_w3c_codes_with_the_message_and_suggestion() {
        let e = WdError::from(
            Error::new(ErrorCode::NoElement, "no element matches x")
                .with_suggestion("read the page source"),
        );
        assert_eq!((e.status, e.error), (404, "no such element"));
        assert!(e.message.contains("no element matches x"));
        assert!(e.message.contains("read the page source"));
        let body = e.body();
        assert_eq!(body["value"]["error"], "no such element");
        assert_eq!(body["value"]["data"]["code"], "no_element");
        assert_eq!(w3c_code(&ErrorCode::StaleRef).1, "stale element reference");
        assert_eq!(
            w3c_code(&ErrorCode::NotActionable).1,
            "element not interactable"
        );
        assert_eq!(w3c_code(&ErrorCode::Timeout).1, "timeout");
        assert_eq!(w3c_code(&ErrorCode::InvalidRequest).1, "invalid argument");
    }
}
