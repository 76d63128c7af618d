//! The operations of uidrive's API, and how each front end spells them.
//!
//! `operations.json` (beside this crate's Cargo.toml) is the one list: for
//! each operation, its name in Python, Node, C and the command line (whose
//! MCP server offers the same commands as tools), or, where a front end
//! deliberately lacks it, `{"lacks": "why"}`. `tests/parity.rs` checks every
//! spelling against the front ends' public surfaces (the Python stubs, the
//! Node typings, the C header, the CLI's commands), so drift fails the build.

use serde::Deserialize;
use serde_json::Value;

/// The list, as written.
pub const JSON: &str = include_str!("../operations.json");

/// The front ends, as the list names them.
pub const FRONT_ENDS: [&str; 4] = ["python", "node", "c", "cli"];

/// One operation.
#[derive(Debug, Clone, Deserialize)]
pub struct Operation {
    /// `area.name`, as `locator.click`.
    pub op: String,
    /// What it does, in a few words.
    pub does: String,
    pub python: Spelling,
    pub node: Spelling,
    pub c: Spelling,
    pub cli: Spelling,
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
