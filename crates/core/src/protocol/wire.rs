//! Framing: one JSON object per line, requests `{id, method, params}`, answers
//! `{id, result}` or `{id, error: {code, message}}`.

use crate::error::{Error, ErrorCode, Result};
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};

/// The longest answer line the client reads: captures of large windows are big.
pub const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// The longest request line `serve` reads. Requests are small (an `input` at
/// its limits is well under 1 MiB); the bound keeps a server's memory small
/// however many connections send long lines at once.
pub const MAX_REQUEST_BYTES: usize = 1024 * 1024;

/// A request as read off the wire, before its params are checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The request's id, any JSON value, echoed in its answer.
    pub id: Value,
    /// The method's name, as `tree`.
    pub method: String,
    /// The params, when the request has them.
    pub params: Option<Value>,
}

/// Reads one request line. On failure, gives the id to answer with (null when
/// the line is not a JSON object) and the error.
pub fn parse_request(line: &[u8]) -> std::result::Result<Request, (Value, Error)> {
    let value: Value = serde_json::from_slice(line).map_err(|e| {
        (
            Value::Null,
            Error::new(ErrorCode::ParseError, format!("the line is not JSON: {e}")),
        )
    })?;
    let Value::Object(mut object) = value else {
        return Err((
            Value::Null,
            Error::new(ErrorCode::ParseError, "the line is JSON but not an object"),
        ));
    };
    let id = object.remove("id").unwrap_or(Value::Null);
    let method = match object.remove("method") {
        Some(Value::String(method)) => method,
        Some(_) => return Err((id, Error::invalid_request("`method` must be a string"))),
        None => return Err((id, Error::invalid_request("the request has no `method`"))),
    };
    let params = match object.remove("params") {
        None | Some(Value::Null) => None,
        Some(params @ Value::Object(_)) => Some(params),
        Some(_) => {
            return Err((
                id,
                Error::invalid_request(format!("{method}: `params` must be an object")),
            ));
        }
    };
    if let Some(field) = object.keys().next() {
        return Err((
            id,
            Error::invalid_request(format!(
                "the request has `{field}`; it takes only id, method and params"
            )),
        ));
    }
    Ok(Request { id, method, params })
}

/// The raw text of member `name` of the JSON object `line`, as it was
/// written (`123456789012345678901234567890` stays that, where parsing
/// would make it a float), or `None` when the line is not an object or has
/// no such member. It scans without recursion, so a line nested too deep
/// to parse still gives its `id`. Meant for lines whose syntax is known to
/// be good apart from their depth; on others it may answer `None`.
pub fn raw_member<'a>(line: &'a [u8], name: &str) -> Option<&'a [u8]> {
    let mut at = skip_space(line, 0);
    if line.get(at) != Some(&b'{') {
        return None;
    }
    at += 1;
    loop {
        at = skip_space(line, at);
        match line.get(at)? {
            b'}' => return None,
            b',' => {
                at += 1;
                continue;
            }
            b'"' => {}
            _ => return None,
        }
        let key_end = string_end(line, at)?;
        let key = &line[at + 1..key_end - 1];
        at = skip_space(line, key_end);
        if line.get(at) != Some(&b':') {
            return None;
        }
        at = skip_space(line, at + 1);
        let value_end = value_end(line, at)?;
        if key == name.as_bytes() {
            return Some(&line[at..value_end]);
        }
        at = value_end;
    }
}

/// The request's `id` as written, to answer with verbatim: `None` when it
/// has none, or when what [`raw_member`] found is no JSON value of its own
/// (or longer than 1 KiB, which no id needs).
pub fn raw_id(line: &[u8]) -> Option<&[u8]> {
    let raw = raw_member(line, "id")?;
    (raw.len() <= 1024 && serde_json::from_slice::<serde::de::IgnoredAny>(raw).is_ok())
        .then_some(raw)
}

fn skip_space(line: &[u8], mut at: usize) -> usize {
    while line.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// The index just past the string that starts at `at` (its opening quote).
fn string_end(line: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    while i < line.len() {
        match line[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// The index just past the JSON value that starts at `at`.
fn value_end(line: &[u8], at: usize) -> Option<usize> {
    match line.get(at)? {
        b'"' => string_end(line, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            while i < line.len() {
                match line[i] {
                    b'"' => {
                        i = string_end(line, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => {
            let mut i = at;
            while i < line.len()
                && !matches!(line[i], b',' | b'}' | b']')
                && !line[i].is_ascii_whitespace()
            {
                i += 1;
            }
            (i > at).then_some(i)
        }
    }
}

/// Writes a request line, newline included.
pub fn encode_request(id: &Value, method: &str, params: Option<&Value>) -> Vec<u8> {
    let mut object = Map::new();
    object.insert("id".into(), id.clone());
    object.insert("method".into(), Value::String(method.into()));
    if let Some(params) = params {
        object.insert("params".into(), params.clone());
    }
    line_of(&Value::Object(object))
}

/// [`encode_answer`] with the id as the request wrote it (see
/// [`raw_member`]), so an id parsing would change (a big integer) comes
/// back verbatim. `raw_id` must be one JSON value.
pub fn encode_answer_raw(raw_id: &[u8], outcome: &Result<Value>) -> Vec<u8> {
    let (name, body) = match outcome {
        Ok(result) => ("result", result.clone()),
        Err(err) => ("error", error_json(err)),
    };
    let mut line = b"{\"id\":".to_vec();
    line.extend_from_slice(raw_id);
    line.extend_from_slice(format!(",\"{name}\":").as_bytes());
    line.extend(serde_json::to_vec(&body).expect("a JSON value always serializes"));
    line.extend_from_slice(b"}\n");
    line
}

fn error_json(err: &Error) -> Value {
    json!({
        "code": err.code.as_str(),
        "message": err.message,
        "suggestion": err.suggestion,
    })
}

/// Writes an answer line, newline included. Errors carry uidrive's `suggestion` too.
pub fn encode_answer(id: &Value, outcome: &Result<Value>) -> Vec<u8> {
    let answer = match outcome {
        Ok(result) => json!({"id": id, "result": result}),
        Err(err) => json!({"id": id, "error": error_json(err)}),
    };
    line_of(&answer)
}

/// Reads an answer line into its id and its result or error.
/// A line that is not a well-formed answer is a `protocol_error`.
pub fn parse_answer(line: &[u8]) -> Result<(Value, Result<Value>)> {
    let value: Value = serde_json::from_slice(line).map_err(|e| {
        Error::protocol(format!(
            "the server sent a line that is not JSON ({e}): {}",
            preview(line)
        ))
    })?;
    let Value::Object(mut object) = value else {
        return Err(Error::protocol(format!(
            "the server sent JSON that is not an object: {}",
            preview(line)
        )));
    };
    let id = object.remove("id").unwrap_or(Value::Null);
    if let Some(error) = object.remove("error") {
        let code = error.get("code").and_then(Value::as_str);
        let message = error.get("message").and_then(Value::as_str);
        let (Some(code), Some(message)) = (code, message) else {
            return Err(Error::protocol(format!(
                "the server sent an error without a code and a message: {error}"
            )));
        };
        let mut err = Error::new(ErrorCode::parse(code), message);
        if let Some(suggestion) = error.get("suggestion").and_then(Value::as_str) {
            err.suggestion = suggestion.to_string();
        }
        return Ok((id, Err(err)));
    }
    match object.remove("result") {
        Some(result) => Ok((id, Ok(result))),
        None => Err(Error::protocol(format!(
            "the server sent an answer with neither result nor error: {}",
            preview(line)
        ))),
    }
}

/// Reads a method's params into their type; an error names the method and the field.
pub fn decode_params<T: DeserializeOwned>(method: &str, params: Option<Value>) -> Result<T> {
    let params = params.unwrap_or_else(|| Value::Object(Map::new()));
    serde_json::from_value(params).map_err(|e| Error::invalid_request(format!("{method}: {e}")))
}

/// Reads a method's result into its type; an error is the server's fault.
pub fn decode_result<T: DeserializeOwned>(method: &str, result: Value) -> Result<T> {
    serde_json::from_value(result).map_err(|e| {
        Error::protocol(format!(
            "the server's answer to `{method}` has the wrong shape: {e}"
        ))
    })
}

fn line_of(value: &Value) -> Vec<u8> {
    let mut line = serde_json::to_vec(value).expect("a JSON value always serializes");
    line.push(b'\n');
    line
}

fn preview(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end();
    if text.chars().count() > 80 {
        format!("{}…", text.chars().take(80).collect::<String>())
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_keep_any_id_and_refuse_what_is_not_a_request() {
        let req =
            parse_request(br#"{"id": {"a": [1]}, "method": "tree", "params": {"window": 1}}"#)
                .unwrap();
        assert_eq!(req.id, json!({"a": [1]}));
        assert_eq!(req.method, "tree");

        let (id, err) = parse_request(b"not json").unwrap_err();
        assert_eq!((id, err.code), (Value::Null, ErrorCode::ParseError));
        let (_, err) = parse_request(b"[1, 2]").unwrap_err();
        assert_eq!(err.code, ErrorCode::ParseError);
        let (id, err) = parse_request(br#"{"id": "x"}"#).unwrap_err();
        assert_eq!((id, err.code), (json!("x"), ErrorCode::InvalidRequest));
        let (_, err) = parse_request(br#"{"id": 1, "method": "tree", "params": 3}"#).unwrap_err();
        assert!(err.message.contains("params"), "{}", err.message);
    }

    #[test]
    fn ids_are_found_as_written_and_answered_verbatim() {
        let line = br#"{"method": "tree", "params": {"id": [1, {"a": "}"}]}, "id" : 123456789012345678901234567890}"#;
        assert_eq!(
            raw_member(line, "id"),
            Some(&b"123456789012345678901234567890"[..])
        );
        assert_eq!(
            raw_member(br#"{"id": "a\"b"}"#, "id"),
            Some(&br#""a\"b""#[..])
        );
        assert_eq!(raw_member(br#"{"x": 1}"#, "id"), None);
        assert_eq!(raw_member(b"[1]", "id"), None);
        // Too deep to parse, still found.
        let deep = [
            &b"{\"id\": 7, \"x\": "[..],
            &b"[".repeat(100_000),
            &b"]".repeat(100_000),
            b"}",
        ]
        .concat();
        assert_eq!(raw_member(&deep, "id"), Some(&b"7"[..]));
        let answer = encode_answer_raw(b"123456789012345678901234567890", &Ok(json!({})));
        assert_eq!(
            answer,
            b"{\"id\":123456789012345678901234567890,\"result\":{}}\n"
        );
        let err = encode_answer_raw(b"\"x\"", &Err(Error::no_window("none")));
        let (id, outcome) = parse_answer(&err).unwrap();
        assert_eq!(id, json!("x"));
        assert_eq!(outcome.unwrap_err().code, ErrorCode::NoWindow);
    }

    #[test]
    fn answers_round_trip() {
        let line = encode_answer(&json!(7), &Err(Error::no_window("no window 7")));
        let (id, outcome) = parse_answer(&line).unwrap();
        assert_eq!(id, json!(7));
        let err = outcome.unwrap_err();
        assert_eq!(err.code, ErrorCode::NoWindow);
        assert_eq!(err.suggestion, ErrorCode::NoWindow.default_suggestion());
        assert!(parse_answer(b"{}").is_err());
        assert_eq!(
            parse_answer(b"garbage").unwrap_err().code,
            ErrorCode::ProtocolError
        );
    }
}

/// What reading one line gave.
#[derive(Debug, PartialEq)]
pub enum LineRead {
    /// A line, without its newline.
    Line(Vec<u8>),
    /// The stream ended in the middle of a line: the bytes before the end.
    Cut(Vec<u8>),
    /// The stream ended before any byte of a new line.
    End,
    /// The line is longer than the limit; the stream is no longer in step.
    TooLong,
}

/// Reads one line of at most `limit` bytes. `before_fill` runs before each
/// read of the stream, told whether part of a line has come already (the
/// client sets its remaining read timeout there; the server a shorter one
/// for an unfinished line).
pub fn read_line<R: std::io::BufRead>(
    reader: &mut R,
    limit: usize,
    mut before_fill: impl FnMut(&mut R, bool) -> std::io::Result<()>,
) -> std::io::Result<LineRead> {
    let mut line = Vec::new();
    loop {
        before_fill(reader, !line.is_empty())?;
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(if line.is_empty() {
                LineRead::End
            } else {
                LineRead::Cut(line)
            });
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(at) => (at + 1, true),
            None => (chunk.len(), false),
        };
        let end = if done { take - 1 } else { take };
        if line.len() + end > limit {
            return Ok(LineRead::TooLong);
        }
        line.extend_from_slice(&chunk[..end]);
        reader.consume(take);
        if done {
            return Ok(LineRead::Line(line));
        }
    }
}
