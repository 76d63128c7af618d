//! The operations of uidrive's API: the one table every front end is held to.
//!
//! `operations.json` (beside this crate's Cargo.toml) lists, for each
//! operation, its parameters (canonical snake_case names, types, defaults,
//! timeouts in milliseconds), what it returns, the error codes it may give,
//! and its name in Python, Node, C and the command line (whose MCP server
//! offers the same commands as tools), or, where a front end deliberately
//! lacks it, `{"lacks": "why"}`. `tests/parity.rs` checks the names and
//! parameters against the Python stubs, the Node typings and the C header;
//! the CLI's own tests check its commands and their flags (and so MCP's
//! tools, built from the same structs). A difference in a name, a missing
//! or extra parameter, a type or an optional parameter made required fails.

use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// The list, as written.
pub const JSON: &str = include_str!("../operations.json");

/// The front ends, as the list names them.
pub const FRONT_ENDS: [&str; 4] = ["python", "node", "c", "cli"];

/// One operation.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Operation {
    /// `area.name`, as `locator.click`.
    pub op: String,
    /// What it does, in a few words.
    pub does: String,
    /// Its parameters, beside the object it is called on (a locator, an app).
    pub params: Vec<Param>,
    /// Whether it takes a per-call timeout, and whose default it overrides.
    #[serde(default)]
    pub timeout: Option<TimeoutKind>,
    /// What it answers: `outcome` (an action's outcome), `locator`, `bool`...
    pub returns: String,
    /// The error codes it may give, as `ErrorCode::as_str` spells them.
    pub errors: Vec<String>,
    /// Parameters a front end takes beyond the table's, and why:
    /// `{"c": {"negate": "expect.not, as C passes it"}}`.
    #[serde(default)]
    pub also: BTreeMap<String, BTreeMap<String, String>>,
    pub python: Spelling,
    pub node: Spelling,
    pub c: Spelling,
    pub cli: Spelling,
}

/// A per-call timeout over the app's default for actions or for `expect`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutKind {
    Action,
    Expect,
}

/// One parameter of an operation.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Param {
    /// The canonical name, snake_case (Node spells it camelCase).
    pub name: String,
    #[serde(rename = "type")]
    pub ty: ParamType,
    /// An enum's values.
    #[serde(default)]
    pub values: Vec<String>,
    /// The value when it is left out (milliseconds for `ms`).
    #[serde(default)]
    pub default: Option<Value>,
    /// Whether it may be left out with no default (the operation decides).
    #[serde(default)]
    pub optional: bool,
    /// A front end's own name for it, where it differs: `{"cli": "count"}`.
    #[serde(default)]
    pub aka: BTreeMap<String, String>,
    /// Front ends where it may be left out though the operation needs it,
    /// and why: `{"cli": "key --down Shift alone presses no chord"}`.
    #[serde(default)]
    pub optional_in: BTreeMap<String, String>,
    /// Front ends that do not take it here, and why (where they take it, or
    /// that they do not offer it yet): `{"c": "..."}`.
    #[serde(default)]
    pub not_in: BTreeMap<String, String>,
}

impl Param {
    /// Whether a caller may leave it out.
    pub fn may_be_left_out(&self) -> bool {
        self.optional || self.default.is_some()
    }

    /// Whether a caller of `front_end` may leave it out.
    pub fn may_be_left_out_in(&self, front_end: &str) -> bool {
        self.may_be_left_out() || self.optional_in.contains_key(front_end)
    }

    /// Its name in `front_end`, or `None` when that front end takes it elsewhere.
    pub fn spelled(&self, front_end: &str) -> Option<String> {
        if self.not_in.contains_key(front_end) {
            return None;
        }
        if let Some(own) = self.aka.get(front_end) {
            return Some(own.clone());
        }
        Some(match (front_end, self.ty) {
            ("node", _) => camel_case(&self.name),
            // C names what a bare integer is: `window_id`, `element_id`, `timeout_ms`.
            ("c", ParamType::Ms) => format!("{}_ms", self.name),
            ("c", ParamType::ElementId) => "element_id".into(),
            ("c", _) if self.name == "window" => "window_id".into(),
            // C's `ud_match` says how a text matches: its `exact`.
            ("c", _) if self.name == "exact" => "matching".into(),
            _ => self.name.clone(),
        })
    }
}

/// What a parameter holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamType {
    String,
    /// A text to match: a string (a part, case-insensitive) or a regex.
    TextMatch,
    Int,
    Number,
    Bool,
    /// A duration, in milliseconds.
    Ms,
    /// One of `values`.
    Enum,
    Locator,
    Strings,
    /// A selector string or a locator.
    Selector,
    /// An element's key: a string, number or boolean.
    Key,
    ElementId,
    Events,
    Env,
    Json,
    Path,
}

/// `click_count` as Node spells it: `clickCount`.
pub fn camel_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// How one front end offers an operation.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Spelling {
    /// One name, or several (all must exist).
    Names(Names),
    /// Deliberately not offered, and why.
    Lacks { lacks: String },
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Names {
    One(String),
    Several(Vec<String>),
}

impl Spelling {
    /// The names to look for; empty when the front end lacks the operation.
    pub fn names(&self) -> Vec<&str> {
        match self {
            Spelling::Names(Names::One(name)) => vec![name.as_str()],
            Spelling::Names(Names::Several(names)) => names.iter().map(String::as_str).collect(),
            Spelling::Lacks { .. } => Vec::new(),
        }
    }

    pub fn lacks(&self) -> Option<&str> {
        match self {
            Spelling::Lacks { lacks } => Some(lacks),
            Spelling::Names(_) => None,
        }
    }
}

impl Operation {
    pub fn spelling(&self, front_end: &str) -> &Spelling {
        match front_end {
            "python" => &self.python,
            "node" => &self.node,
            "c" => &self.c,
            _ => &self.cli,
        }
    }
}

/// The list, parsed.
pub fn all() -> Vec<Operation> {
    #[derive(Deserialize)]
    struct File {
        operations: Vec<Operation>,
    }
    let file: File =
        serde_json::from_str(JSON).expect("operations.json is valid (a test checks it)");
    file.operations
}

/// The list as JSON, for tools.
pub fn as_json() -> Value {
    serde_json::from_str(JSON).expect("operations.json is valid (a test checks it)")
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_are_camel_cased_for_node() {
        assert_eq!(super::camel_case("click_count"), "clickCount");
        assert_eq!(super::camel_case("include_hidden"), "includeHidden");
        assert_eq!(super::camel_case("text"), "text");
    }

    #[test]
    fn every_parameter_is_typed_and_every_error_a_code() {
        let codes: Vec<&str> = uidrive_core::ErrorCode::ALL
            .iter()
            .map(|c| c.as_str())
            .collect();
        for op in super::all() {
            let mut names = std::collections::HashSet::new();
            for p in &op.params {
                assert!(names.insert(&p.name), "{}: {} twice", op.op, p.name);
                assert_eq!(
                    p.ty == super::ParamType::Enum,
                    !p.values.is_empty(),
                    "{}.{}: an enum lists its values, nothing else does",
                    op.op,
                    p.name
                );
                for (fe, why) in &p.not_in {
                    assert!(
                        super::FRONT_ENDS.contains(&fe.as_str()),
                        "{}.{}: {fe}",
                        op.op,
                        p.name
                    );
                    assert!(
                        why.len() > 10,
                        "{}.{} not in {fe} without saying where",
                        op.op,
                        p.name
                    );
                }
            }
            assert!(!op.errors.is_empty(), "{} gives no errors?", op.op);
            for e in &op.errors {
                assert!(
                    codes.contains(&e.as_str()),
                    "{}: {e} is not an error code",
                    op.op
                );
            }
        }
    }

    #[test]
    fn the_list_parses_and_names_each_operation_once() {
        let all = super::all();
        assert!(all.len() > 40);
        let mut seen = std::collections::HashSet::new();
        for op in &all {
            assert!(seen.insert(op.op.clone()), "{} twice", op.op);
            for fe in super::FRONT_ENDS {
                let spelling = op.spelling(fe);
                if let Some(why) = spelling.lacks() {
                    assert!(why.len() > 10, "{} lacks in {fe} without a reason", op.op);
                }
            }
        }
    }
}
