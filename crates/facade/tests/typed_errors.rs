//! Errors carry their context as typed details (`uidrive_core::Details`);
//! the code that adds to an error or puts it in a front end's terms reads
//! those, never the message's words (issue 31). The unit tests of
//! `explain`, `hints` and the CLI's `terms` build errors with details and
//! check what comes out; this test holds the front ends to the rule: no
//! binding, no C function and none of those three files looks into an
//! error's message or suggestion to decide anything.

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The reads of an error's words that would re-parse it.
const PARSES: [&str; 12] = [
    ".contains(",
    ".find(",
    ".rfind(",
    ".split(",
    ".split_once(",
    ".strip_prefix(",
    ".strip_suffix(",
    ".starts_with(",
    ".ends_with(",
    ".matches(",
    ".lines(",
    ".parse",
];

/// Where an error's words may go whole: shown, handed to the caller.
const SHOWN_BY: [&str; 3] = ["c_text(", "call1((", "one_line("];

/// `file:line: text` for each place in `text` (a Rust file, its unit tests
/// left out) where an error's `message` or `suggestion` is read to parse
/// it: directly, through a variable holding it, or handed to a function
/// other than one that shows it.
fn parses_of_words(name: &str, text: &str) -> Vec<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    let mut found = Vec::new();
    // Variables that hold an error's words (`let message = err.message.clone()`).
    let mut held: Vec<String> = Vec::new();
    for line in code.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("let ") {
            let rest = rest.trim_start_matches("mut ");
            if let Some((var, value)) = rest.split_once(" = ") {
                if value.contains(".message") || value.contains(".suggestion") {
                    held.push(format!("{}.", var.trim()));
                }
            }
        }
    }
    for (at, line) in code.lines().enumerate() {
        let said = || format!("{name}:{}: {}", at + 1, line.trim());
        for var in &held {
            if let Some(i) = line
                .find(&format!(" {var}"))
                .or_else(|| line.find(&format!("({var}")))
            {
                let after = &line[i + var.len() + 1..];
                if PARSES.iter().any(|p| after.starts_with(&p[1..])) {
                    found.push(said());
                }
            }
        }
        for arg in ["(&", ", &"] {
            for field in [".message", ".suggestion"] {
                let mut rest = line;
                while let Some(i) = rest.find(arg) {
                    let after = &rest[i + arg.len()..];
                    let word_end = after
                        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
                        .unwrap_or(after.len());
                    let shown = SHOWN_BY.iter().any(|f| line.contains(f));
                    if after[..word_end].ends_with(field) && !shown && !line.contains(".replace(") {
                        found.push(said());
                    }
                    rest = after;
                }
            }
        }
        for field in [".message", ".suggestion"] {
            let mut rest = line;
            while let Some(i) = rest.find(field) {
                let after = &rest[i + field.len()..];
                // `.message` itself, not `.messages` or `.message_id`.
                if !after.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
                    let after = after
                        .trim_start_matches(".as_str()")
                        .trim_start_matches(".as_ref()");
                    if PARSES.iter().any(|p| after.starts_with(p)) {
                        found.push(format!("{name}:{}: {}", at + 1, line.trim()));
                    }
                }
                rest = &rest[i + field.len()..];
            }
        }
    }
    found
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs")
            // The ABI's own test files, not its code.
            && !path.file_name().unwrap().to_string_lossy().starts_with("tests")
        {
            out.push(path);
        }
    }
}

#[test]
fn the_reader_finds_a_message_parsed() {
    let bad = "fn f(e: Error) -> bool {\n    e.message.contains(\"x\") || e.suggestion.split(';').count() > 1\n}\n";
    assert_eq!(parses_of_words("bad.rs", bad).len(), 2);
    // Through a variable, or handed to a parser (as terms.rs and
    // process.rs did before the details).
    let held = "fn f(err: Error) {\n    let mut message = err.error.message.clone();\n    if let Some((head, rest)) = message.split_once(\": \") {}\n}\n";
    assert_eq!(parses_of_words("held.rs", held).len(), 1, "{held}");
    let handed = "fn f(e: Error) -> Option<i32> {\n    parse_exit(&e.message)\n}\n";
    assert_eq!(parses_of_words("handed.rs", handed).len(), 1);
    let shown = "fn f(e: &Error) { let m = c_text(&e.message); }\n";
    assert!(parses_of_words("shown.rs", shown).is_empty());
    let fine = "fn f(e: Error) -> String {\n    format!(\"{}\", e.message)\n}\n#[cfg(test)]\nmod tests { fn t(e: Error) { assert!(e.message.contains(\"x\")); } }\n";
    assert!(parses_of_words("fine.rs", fine).is_empty());
}

#[test]
fn no_front_end_reads_an_errors_words_to_decide() {
    let root = repo();
    let mut files = Vec::new();
    for dir in ["bindings/python/src", "bindings/node/src", "ffi"] {
        rust_files(&root.join(dir), &mut files);
    }
    for file in [
        "crates/cli/src/commands/terms.rs",
        "crates/facade/src/explain.rs",
        "crates/facade/src/hints.rs",
        "crates/facade/src/process.rs",
    ] {
        files.push(root.join(file));
    }
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let name = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        found.extend(parses_of_words(&name, &text));
    }
    assert!(
        files.len() > 20,
        "the front ends' files are found: {files:?}"
    );
    assert!(
        found.is_empty(),
        "these read an error's words; read its typed details (uidrive_core::Details) instead:\n  {}",
        found.join("\n  ")
    );
}
