//! The page source: a window's tree as XML, and XPath over it.
//!
//! Each element is named by its role (`button`, `textField`, ...) and
//! carries the node's fields as attributes, as the protocol names them:
//! `id`, `key`, `label`, `value`, `states` and `actions` (space-separated),
//! `x`, `y`, `width`, `height` (the bounds) and the rest. `name` repeats
//! `label`, as Appium's XPath habits expect (`//button[@name="7"]`). XPath
//! 1.0 is evaluated by the `sxd-xpath` crate; each element it selects is
//! found again by its `id`.

use serde_json::{Map, Value};
use std::fmt::Write;
use sxd_xpath::{Context, Factory, Value as XValue};
use uidrive_core::protocol::{ElementId, Node, Tree, Window};

use crate::wire::WdError;

/// The node's fields as strings, for XML attributes and for WebDriver's
/// attribute command: arrays space-separated, bounds as x/y/width/height.
pub fn fields(node: &Node) -> Map<String, Value> {
    let mut out = Map::new();
    let Ok(Value::Object(all)) = serde_json::to_value(node) else {
        return out;
    };
    for (name, value) in all {
        match (name.as_str(), value) {
            ("parent", _) => {}
            ("bounds", Value::Object(b)) => {
                for (k, v) in b {
                    out.insert(k, v);
                }
            }
            (_, Value::Array(items)) => {
                let words: Vec<String> = items.iter().map(plain).collect();
                out.insert(name, Value::String(words.join(" ")));
            }
            (_, value) => {
                out.insert(name, value);
            }
        }
    }
    if let Some(label) = &node.label {
        out.insert("name".into(), Value::String(label.clone()));
    }
    out
}

/// A JSON value as attribute text.
pub fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn escape(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            // Characters XML 1.0 cannot hold at all.
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
}

/// A role name as an XML element name (an unknown role may hold anything).
fn element_name(role: &str) -> String {
    let mut name: String = role
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        name.insert(0, '_');
    }
    name
}

/// The whole desktop's source: each window's `hierarchy` (as [`xml`]
/// makes it) inside one `desktop` element.
pub fn desktop(windows: &[String]) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<desktop>\n");
    for window in windows {
        let body = window
            .split_once("?>\n")
            .map_or(window.as_str(), |(_, rest)| rest);
        out.push_str(body);
        if !body.ends_with('\n') {
            out.push('\n');
        }
    }
    out.push_str("</desktop>\n");
    out
}

/// The window's tree as XML: `<hierarchy handle=.. title=..>` holding the
/// elements, each inside its parent.
pub fn xml(window: Option<&Window>, tree: &Tree) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<hierarchy");
    let _ = write!(out, " handle=\"{}\"", tree.window);
    if let Some(window) = window {
        out.push_str(" title=\"");
        escape(&window.title, &mut out);
        out.push('"');
    }
    out.push_str(">\n");
    // Children by parent, in tree order (every parent comes before its children).
    let mut children: std::collections::HashMap<ElementId, Vec<usize>> = Default::default();
    let mut tops = Vec::new();
    for (at, node) in tree.nodes.iter().enumerate() {
        match node.parent.filter(|p| tree.node(*p).is_some()) {
            Some(parent) => children.entry(parent).or_default().push(at),
            None => tops.push(at),
        }
    }
    // An explicit stack: trees can be deep.
    let mut stack: Vec<(usize, bool)> = tops.iter().rev().map(|&at| (at, false)).collect();
    let mut depth = 1usize;
    while let Some((at, closing)) = stack.pop() {
        let node = &tree.nodes[at];
        let name = element_name(node.role.as_str());
        if closing {
            depth -= 1;
            out.push_str(&"  ".repeat(depth));
            let _ = writeln!(out, "</{name}>");
            continue;
        }
        out.push_str(&"  ".repeat(depth));
        out.push('<');
        out.push_str(&name);
        for (field, value) in fields(node) {
            let _ = write!(out, " {field}=\"");
            escape(&plain(&value), &mut out);
            out.push('"');
        }
        match children.get(&node.id) {
            Some(kids) if !kids.is_empty() => {
                out.push_str(">\n");
                depth += 1;
                stack.push((at, true));
                stack.extend(kids.iter().rev().map(|&k| (k, false)));
            }
            _ => out.push_str("/>\n"),
        }
    }
    out.push_str("</hierarchy>\n");
    out
}

/// The ids of the elements `expression` selects in `source` (from the
/// element with id `from`, or the document), in document order.
pub fn xpath(
    source: &str,
    expression: &str,
    from: Option<ElementId>,
) -> Result<Vec<ElementId>, WdError> {
    let invalid = |what: String| WdError::new(400, "invalid selector", what);
    let xpath = Factory::new()
        .build(expression)
        .map_err(|e| invalid(format!("the XPath `{expression}` does not parse: {e}")))?
        .ok_or_else(|| invalid(format!("the XPath `{expression}` is empty")))?;
    let package = sxd_document::parser::parse(source).map_err(|e| {
        WdError::new(
            500,
            "unknown error",
            format!("the page source is not XML: {e:?}"),
        )
    })?;
    let document = package.as_document();
    let context = Context::new();
    let start = match from {
        None => document.root().into(),
        Some(id) => {
            let find = Factory::new()
                .build(&format!("//*[@id='{id}']"))
                .ok()
                .flatten()
                .ok_or_else(|| invalid("cannot look the element up".into()))?;
            match find.evaluate(&context, document.root()) {
                Ok(XValue::Nodeset(set)) => match set.document_order_first() {
                    Some(node) => node,
                    None => {
                        return Err(WdError::new(
                            404,
                            "stale element reference",
                            format!("element {id} is no longer in its window's tree"),
                        ))
                    }
                },
                _ => return Err(invalid("cannot look the element up".into())),
            }
        }
    };
    let value = xpath
        .evaluate(&context, start)
        .map_err(|e| invalid(format!("the XPath `{expression}` fails: {e}")))?;
    let XValue::Nodeset(set) = value else {
        return Err(invalid(format!(
            "the XPath `{expression}` selects a value, not elements"
        )));
    };
    let mut ids = Vec::new();
    for node in set.document_order() {
        let element = match node {
            sxd_xpath::nodeset::Node::Element(e) => e,
            _ => {
                return Err(invalid(format!(
                    "the XPath `{expression}` selects something other than elements"
                )))
            }
        };
        if let Some(id) = element.attribute_value("id").and_then(|v| v.parse().ok()) {
            ids.push(ElementId(id));
        }
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidrive_core::protocol::Role;

    fn node(id: u64, parent: Option<u64>, role: Role, label: &str) -> Node {
        Node {
            id: ElementId(id),
            parent: parent.map(ElementId),
            role,
            label: Some(label.into()),
            ..Node::default()
        }
    }

    #[test]
    fn the_desktops_source_holds_each_window_and_parses() {
        let one = Tree {
            window: 1,
            nodes: vec![node(1, None, Role::Button, "7")],
            ..Tree::default()
        };
        let two = Tree {
            window: 2,
            nodes: vec![node(1, None, Role::Slider, "level")],
            ..Tree::default()
        };
        let source = desktop(&[xml(None, &one), xml(None, &two)]);
        assert_eq!(source.matches("<?xml").count(), 1, "{source}");
        assert_eq!(source.matches("<hierarchy ").count(), 2, "{source}");
        // One well-formed document: XPath reads it whole.
        assert_eq!(
            xpath(&source, "/desktop/hierarchy[@handle=\"2\"]/slider", None).unwrap(),
            vec![ElementId(1)]
        );
    }

    #[test]
    fn the_source_nests_elements_and_xpath_finds_them_by_field() {
        let tree = Tree {
            window: 1,
            nodes: vec![
                node(1, None, Role::Group, "Calc \"&\" <co>"),
                node(2, Some(1), Role::Button, "7"),
                node(3, Some(1), Role::Group, "pad"),
                node(4, Some(3), Role::Button, "8"),
            ],
            ..Tree::default()
        };
        let source = xml(None, &tree);
        assert!(source.contains("<button id=\"2\""), "{source}");
        assert!(source.contains("&quot;&amp;&quot; &lt;co&gt;"), "{source}");
        assert_eq!(
            xpath(&source, "//button[@name='8']", None).unwrap(),
            vec![ElementId(4)]
        );
        assert_eq!(xpath(&source, "//button", None).unwrap().len(), 2);
        assert_eq!(
            xpath(&source, "./button", Some(ElementId(3))).unwrap(),
            vec![ElementId(4)]
        );
        assert_eq!(
            xpath(&source, "//*[", None).unwrap_err().error,
            "invalid selector"
        );
        assert_eq!(
            xpath(&source, "count(//button)", None).unwrap_err().error,
            "invalid selector"
        );
    }
}
