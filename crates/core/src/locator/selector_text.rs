//! The string form of a locator, for front ends that pass one string (the CLI,
//! the C ABI): `role=button[name="Add"] >> nth=0`.
//!
//! Parts joined by `>>` search inside the elements before them. A part is
//! `role=ROLE[attr]...`, `key=K`, `text=T`, `label=T`, `placeholder=T`,
//! `id=DIGITS`, `nth=N`, `cell=ROW,COLUMN` (from 1), `first` or `last`;
//! visual targets start a selector: `ocr=T` (OCR'd text, as `text=`),
//! `ocr~=T` (a part, always) and `image=PATH [threshold=0.9]`. A text `T` is `"quoted"` (exact),
//! `/regex/i` (a regular expression, `i` ignoring case) or bare (a
//! case-insensitive substring). Role attributes: `[name=T]`, `[checked]`,
//! `[checked=false]`, `[disabled]`, `[expanded]`, `[selected]`, `[level=2]`.

use super::matching::{RoleQuery, Selector, Step, TextMatch};
use crate::error::{Error, Result};
use crate::protocol::ElementKey;
use crate::visual::VisualQuery;

pub(crate) fn parse(selector: &str) -> Result<Vec<Step>> {
    let parts = split_outside(selector, ">>");
    if parts.iter().all(|p| p.trim().is_empty()) {
        return Err(invalid(selector, "is empty"));
    }
    parts
        .iter()
        .map(|part| parse_part(selector, part.trim()))
        .collect()
}

fn parse_part(selector: &str, part: &str) -> Result<Step> {
    match part {
        "" => return Err(invalid(selector, "has an empty part between `>>`")),
        "first" => return Ok(Step::First),
        "last" => return Ok(Step::Last),
        _ => {}
    }
    let Some((kind, body)) = part.split_once('=') else {
        return Err(invalid(
            selector,
            &format!("has `{part}`, which is not KIND=VALUE (role, key, text, label, placeholder, id, nth, cell)"),
        ));
    };
    let body = body.trim();
    let selector_of = |s: Selector| Ok(Step::Find(s));
    match kind.trim() {
        "role" => selector_of(parse_role(selector, body)?),
        "key" => selector_of(Selector::Key(ElementKey::Str(unquote(body).to_string()))),
        "text" => selector_of(Selector::Text(parse_text(selector, body)?)),
        "label" => selector_of(Selector::Label(parse_text(selector, body)?)),
        "placeholder" => selector_of(Selector::Placeholder(parse_text(selector, body)?)),
        "id" => body
            .parse()
            .map(|id| Step::Find(Selector::Id(id)))
            .map_err(|e: String| invalid(selector, &e)),
        "nth" => body.parse().map(Step::Nth).map_err(|_| {
            invalid(
                selector,
                &format!("has nth={body}; nth takes a whole number from 0"),
            )
        }),
        "ocr" => selector_of(Selector::Visual(VisualQuery::Ocr(parse_text(selector, body)?))),
        "ocr~" => selector_of(Selector::Visual(VisualQuery::Ocr(TextMatch::Substring(
            unquote(body),
        )))),
        "image" => selector_of(Selector::Visual(parse_image(selector, body)?)),
        "cell" => parse_cell(body).ok_or_else(|| {
            invalid(
                selector,
                &format!("has cell={body}; cell takes ROW,COLUMN, whole numbers from 1"),
            )
        }),
        other => Err(invalid(
            selector,
            &format!("has `{other}=`; use role, key, text, label, placeholder, id, nth, cell, ocr or image"),
        )),
    }
}

/// `comboBox name="Left" checked` as `comboBox[name="Left"][checked]`: the
/// words after the role, split outside quotes, each an attribute.
fn bracket_words(body: &str) -> String {
    let (mut words, mut word, mut quoted, mut escaped) = (Vec::new(), String::new(), false, false);
    for c in body.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            '[' if !quoted && words.is_empty() => return body.to_string(),
            c if c.is_whitespace() && !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                continue;
            }
            _ => {}
        }
        word.push(c);
    }
    if !word.is_empty() {
        words.push(word);
    }
    match words.split_first() {
        Some((role, attributes)) if !attributes.is_empty() => {
            let mut out = role.clone();
            for attribute in attributes {
                if attribute.starts_with('[') {
                    out.push_str(attribute);
                } else {
                    out.push_str(&format!("[{attribute}]"));
                }
            }
            out
        }
        _ => body.to_string(),
    }
}

/// `image=PATH` or `image="PATH" threshold=0.8`.
fn parse_image(selector: &str, body: &str) -> Result<VisualQuery> {
    let (path, threshold) = match body.rfind(" threshold=") {
        Some(at) if find_outside(body, ' ').is_some_and(|space| space <= at) => {
            let value = body[at + " threshold=".len()..].trim();
            let threshold: f64 = value.parse().map_err(|_| {
                invalid(
                    selector,
                    &format!(
                        "has threshold={value}; a threshold is a number above 0 and at most 1"
                    ),
                )
            })?;
            (body[..at].trim(), Some(threshold))
        }
        _ => (body, None),
    };
    let path = unquote(path);
    if path.is_empty() {
        return Err(invalid(selector, "has image= without a file"));
    }
    VisualQuery::image(path, threshold).map_err(|e| invalid(selector, &e.message))
}

fn parse_cell(body: &str) -> Option<Step> {
    let (row, column) = body.split_once(',')?;
    let (row, column) = (row.trim().parse().ok()?, column.trim().parse().ok()?);
    (row >= 1 && column >= 1).then_some(Step::Cell { row, column })
}

fn parse_role(selector: &str, body: &str) -> Result<Selector> {
    // `comboBox name="Left" checked`, as a shell-friendly target writes it,
    // means `comboBox[name="Left"][checked]`, alone or chained.
    let bracketed = bracket_words(body);
    let body = bracketed.as_str();
    let (name, mut rest) = match body.find('[') {
        Some(at) => (body[..at].trim(), &body[at..]),
        None => (body, ""),
    };
    let role = crate::names::role(name).map_err(|e| {
        let mut err = invalid(selector, &format!("has role `{name}`: {}", e.message));
        err.suggestion = e.suggestion;
        err
    })?;
    let mut query = RoleQuery::any();
    while !rest.is_empty() {
        let Some(inner) = rest.strip_prefix('[') else {
            return Err(invalid(
                selector,
                &format!("has `{rest}` after the role; attributes are written [name=...]"),
            ));
        };
        let close = find_outside(inner, ']')
            .ok_or_else(|| invalid(selector, "has a `[` without its `]`"))?;
        let attr = inner[..close].trim();
        rest = inner[close + 1..].trim_start();
        let (attr_name, value) = match attr.split_once('=') {
            Some((n, v)) => (n.trim(), Some(v.trim())),
            None => (attr, None),
        };
        let flag = |value: Option<&str>| match value {
            None | Some("true") => Ok(true),
            Some("false") => Ok(false),
            Some(other) => Err(invalid(
                selector,
                &format!("has [{attr_name}={other}]; use true or false"),
            )),
        };
        match attr_name {
            "name" => {
                let value = value.ok_or_else(|| invalid(selector, "has [name] without a value"))?;
                query.name = Some(parse_text(selector, value)?);
            }
            "checked" => query.checked = Some(flag(value)?),
            "disabled" => query.disabled = Some(flag(value)?),
            "expanded" => query.expanded = Some(flag(value)?),
            "selected" => query.selected = Some(flag(value)?),
            "level" => {
                let level = value.and_then(|v| v.parse().ok());
                query.level = Some(level.ok_or_else(|| invalid(selector, "has [level] without a whole number"))?);
            }
            other => {
                return Err(invalid(
                    selector,
                    &format!("has [{other}]; role attributes are name, checked, disabled, expanded, selected, level"),
                ))
            }
        }
    }
    Ok(Selector::Role(role, query))
}

fn parse_text(selector: &str, body: &str) -> Result<TextMatch> {
    if body.is_empty() {
        return Err(invalid(selector, "has an empty text"));
    }
    let quoted = (body.len() >= 2)
        && ((body.starts_with('"') && body.ends_with('"'))
            || (body.starts_with('\'') && body.ends_with('\'')));
    if quoted {
        return Ok(TextMatch::Exact(unescape(&body[1..body.len() - 1])));
    }
    if let Some(inner) = body.strip_prefix('/') {
        if let Some(end) = inner.rfind('/') {
            let (pattern, flags) = (&inner[..end], &inner[end + 1..]);
            if !flags.chars().all(|f| "imsux".contains(f)) {
                return Err(invalid(
                    selector,
                    &format!("has regex flags `{flags}`; use i, m, s, u or x"),
                ));
            }
            let pattern = if flags.is_empty() {
                pattern.to_string()
            } else {
                format!("(?{flags}){pattern}")
            };
            return TextMatch::regex(&pattern);
        }
    }
    Ok(TextMatch::Substring(body.to_string()))
}

fn unquote(body: &str) -> String {
    let quoted = body.len() >= 2
        && ((body.starts_with('"') && body.ends_with('"'))
            || (body.starts_with('\'') && body.ends_with('\'')));
    if quoted {
        unescape(&body[1..body.len() - 1])
    } else {
        body.to_string()
    }
}

fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.extend(chars.next());
        } else {
            out.push(c);
        }
    }
    out
}

/// Splits on `sep` where it is outside quotes and `/regex/` values.
fn split_outside<'a>(text: &'a str, sep: &str) -> Vec<&'a str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut scan = Scanner::default();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if scan.is_outside() && bytes[i..].starts_with(sep.as_bytes()) {
            parts.push(&text[start..i]);
            i += sep.len();
            start = i;
            scan = Scanner::default();
            continue;
        }
        scan.step(text, i);
        i += 1;
    }
    parts.push(&text[start..]);
    parts
}

/// The first `wanted` outside quotes and `/regex/` values.
fn find_outside(text: &str, wanted: char) -> Option<usize> {
    let mut scan = Scanner::default();
    for (i, c) in text.char_indices() {
        if scan.is_outside() && c == wanted {
            return Some(i);
        }
        scan.step(text, i);
    }
    None
}

/// Tracks whether a position is inside a quoted text or a `/regex/`. Works on
/// bytes: every delimiter is ASCII, so multi-byte characters pass through.
#[derive(Default)]
struct Scanner {
    inside: Option<u8>,
    escaped: bool,
}

impl Scanner {
    fn is_outside(&self) -> bool {
        self.inside.is_none()
    }

    fn step(&mut self, text: &str, at: usize) {
        let byte = text.as_bytes()[at];
        match self.inside {
            Some(_) if self.escaped => self.escaped = false,
            Some(_) if byte == b'\\' => self.escaped = true,
            Some(close) if byte == close => self.inside = None,
            Some(_) => {}
            None if byte == b'"' || byte == b'\'' => self.inside = Some(byte),
            // A slash opens a regex only where a value starts: after `=`.
            None if byte == b'/' && text[..at].trim_end().ends_with('=') => {
                self.inside = Some(b'/')
            }
            None => {}
        }
    }
}

fn invalid(selector: &str, problem: &str) -> Error {
    Error::invalid_request(format!("the selector `{selector}` {problem}")).with_suggestion(
        "write parts as role=button[name=\"Add\"], key=add, text=/count: \\d+/i, joined by >>",
    )
}

#[cfg(test)]
mod tests {
    use super::super::matching::describe_steps;
    use super::*;

    fn shown(selector: &str) -> String {
        describe_steps(&parse(selector).unwrap())
    }

    #[test]
    fn parts_parse_into_steps() {
        assert_eq!(shown("key=add"), "get_by_key(\"add\")");
        assert_eq!(
            shown("role=button[name=\"Add\"] >> nth=1"),
            "get_by_role(\"button\", name=\"Add\" exact).nth(1)"
        );
        assert_eq!(
            shown("role=checkBox[name=sub][checked=false]"),
            "get_by_role(\"checkBox\", name=\"sub\", checked=false)"
        );
        assert_eq!(
            shown("text=/a>>b/i >> last"),
            "get_by_text(/(?i)a>>b/).last()"
        );
        assert_eq!(
            shown("label='Na\\'me' >> first"),
            "get_by_label(\"Na'me\" exact).first()"
        );
        assert_eq!(
            shown("role=table >> cell=1200, 3"),
            "get_by_role(\"table\").cell(1200, 3)"
        );
    }

    #[test]
    fn visual_targets_parse() {
        assert_eq!(shown("ocr=\"Press me\""), "get_by_ocr(\"Press me\" exact)");
        assert_eq!(
            shown("ocr~=\"Pressed\" >> nth=1"),
            "get_by_ocr(\"Pressed\").nth(1)"
        );
        assert_eq!(
            shown("ocr=/pressed \\d+/i"),
            "get_by_ocr(/(?i)pressed \\d+/)"
        );
        assert_eq!(
            shown("image=\"/tmp/a b.png\" threshold=0.8 >> first"),
            "get_by_image(\"/tmp/a b.png\", threshold=0.8).first()"
        );
        assert_eq!(
            shown("image=/tmp/b.png"),
            "get_by_image(\"/tmp/b.png\", threshold=0.9)"
        );
        for (bad, says) in [
            ("image=/tmp/b.png threshold=2", "threshold"),
            ("image=/tmp/b.png threshold=x", "threshold=x"),
            ("ocr=", "empty"),
        ] {
            let err = parse(bad).unwrap_err();
            assert!(err.message.contains(says), "{bad}: {}", err.message);
        }
    }

    #[test]
    fn attributes_written_as_words_mean_the_same_alone_and_chained() {
        let bracketed = shown("role=comboBox[name=\"Left\"][checked]");
        assert_eq!(shown("role=comboBox name=\"Left\" checked"), bracketed);
        assert_eq!(
            shown("role=comboBox name=\"Left\" >> nth=0"),
            shown("role=comboBox[name=\"Left\"] >> nth=0")
        );
        assert_eq!(
            shown("role=list >> role=listItem name=\"Two words\""),
            "get_by_role(\"list\").get_by_role(\"listItem\", name=\"Two words\" exact)"
        );
    }

    #[test]
    fn an_unknown_role_names_the_closest_ones() {
        let err = parse("role=textbx").unwrap_err();
        assert!(err.message.contains("textbx"), "{}", err.message);
        assert!(err.suggestion.contains("textField"), "{}", err.suggestion);
    }

    #[test]
    fn aria_role_names_mean_the_protocols_roles() {
        assert_eq!(shown("role=textbox"), shown("role=textField"));
        assert_eq!(
            shown("role=checkbox[name=\"x\"]"),
            shown("role=checkBox[name=\"x\"]")
        );
    }

    #[test]
    fn bad_selectors_say_what_is_wrong() {
        for (selector, says) in [
            ("", "empty"),
            ("role=frobnicator", "frobnicator"),
            ("colour=red", "colour"),
            ("nth=-1", "nth=-1"),
            ("cell=0,1", "cell=0,1"),
            ("cell=3", "ROW,COLUMN"),
            ("role=button[name=\"x\"", "without its"),
            ("text=/(/", "regular expression"),
            ("key=a >>  >> key=b", "empty part"),
        ] {
            let err = parse(selector).unwrap_err();
            assert!(err.message.contains(says), "{selector}: {}", err.message);
        }
    }
}
