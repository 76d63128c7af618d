//! The parity check: every operation of `operations.json` is offered by
//! Python, Node, C and the command line (whose MCP server offers the same
//! commands as tools) under the name the list gives, or the list says why
//! that front end lacks it. Checked against each front end's public surface:
//! the Python stubs, the Node typings, the C header and the CLI's commands.
//! And the other way round: every function of the C header is in the list
//! (or is one of the ABI's own housekeeping functions).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use uidrive_facade::operations::{self, FRONT_ENDS};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Reads a class's name and bases from a line that starts one.
type ClassStart = dyn Fn(&str) -> Option<(String, Vec<String>)>;

/// Class blocks of a stub or typings file: class name -> member names, plus
/// the module's own functions under "".
fn members(
    text: &str,
    class_start: &ClassStart,
    member: &dyn Fn(&str) -> Option<String>,
    function: &dyn Fn(&str) -> Option<String>,
) -> BTreeMap<String, BTreeSet<String>> {
    let mut classes: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut bases: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some((name, base)) = class_start(line) {
            classes.entry(name.clone()).or_default();
            bases.insert(name.clone(), base);
            current = Some(name);
            continue;
        }
        if let Some(name) = function(line) {
            classes.entry(String::new()).or_default().insert(name);
            current = None;
            continue;
        }
        let top_level = !line.starts_with(' ')
            && !line.trim().is_empty()
            && !line.starts_with('}')
            && !line.starts_with('@');
        if top_level
            && !line.trim_start().starts_with('#')
            && !line.trim_start().starts_with("//")
            && !line.trim_start().starts_with("/*")
            && !line.trim_start().starts_with('*')
        {
            current = None;
        }
        if let (Some(class), Some(name)) = (&current, member(line)) {
            classes.get_mut(class).expect("made above").insert(name);
        }
    }
    // Inherited members (Python's _Factories).
    for (class, base) in &bases {
        for b in base {
            let inherited: Vec<String> = classes
                .get(b)
                .map(|m| m.iter().cloned().collect())
                .unwrap_or_default();
            classes.get_mut(class).expect("known").extend(inherited);
        }
    }
    classes
}

fn python_surface() -> BTreeMap<String, BTreeSet<String>> {
    let text = read("bindings/python/python/uidrive/_native.pyi");
    members(
        &text,
        &|line| {
            let rest = line.strip_prefix("class ")?;
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let bases = rest
                .split_once('(')
                .map(|(_, b)| {
                    b.trim_end_matches("):")
                        .split(',')
                        .map(|s| s.trim().to_string())
                        .collect()
                })
                .unwrap_or_default();
            Some((name, bases))
        },
        &|line| {
            let rest = line.strip_prefix("    def ")?;
            Some(
                rest.chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect(),
            )
        },
        &|line| {
            let rest = line.strip_prefix("def ")?;
            Some(
                rest.chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect(),
            )
        },
    )
}

fn node_surface() -> BTreeMap<String, BTreeSet<String>> {
    let text = read("bindings/node/index.d.ts");
    members(
        &text,
        &|line| {
            let rest = line.strip_prefix("export declare class ")?;
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            Some((name, Vec::new()))
        },
        &|line| {
            let rest = line.strip_prefix("  ")?;
            if rest.starts_with(' ') {
                return None;
            }
            let rest = rest.strip_prefix("readonly ").unwrap_or(rest);
            let rest = rest.strip_prefix("get ").unwrap_or(rest);
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let after = &rest[name.len()..];
            (!name.is_empty()
                && (after.starts_with('(') || after.starts_with(':') || after.starts_with("?:")))
            .then_some(name)
        },
        &|line| {
            let rest = line.strip_prefix("export declare function ")?;
            Some(
                rest.chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect(),
            )
        },
    )
}

fn c_functions() -> BTreeSet<String> {
    let header = read("include/uidrive.h");
    let mut names = BTreeSet::new();
    for (at, _) in header.match_indices("ud_") {
        let rest = &header[at..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if rest[name.len()..].starts_with('(') && !header[..at].ends_with('`') {
            names.insert(name);
        }
    }
    names
}

/// The CLI's command names and the fields of its commands' arguments.
fn cli_surface() -> (BTreeSet<String>, BTreeSet<String>) {
    let mut commands = BTreeSet::new();
    let mut fields = BTreeSet::new();
    let dir = repo().join("crates/cli/src/commands");
    for entry in std::fs::read_dir(&dir).expect("crates/cli/src/commands") {
        let text = std::fs::read_to_string(entry.expect("entry").path()).expect("readable");
        let mut current: Option<String> = None;
        for line in text.lines() {
            let line = line.trim();
            if line.starts_with("impl Command for") {
                current = None;
            }
            if let Some(rest) = line.strip_prefix("const NAME: &'static str = \"") {
                let name = rest.trim_end_matches("\";").to_string();
                commands.insert(name.clone());
                current = Some(name);
            }
            // A command that is no MCP tool does not count for "CLI/MCP".
            if line == "const MCP: bool = false;" {
                if let Some(name) = current.take() {
                    commands.remove(&name);
                }
            }
            if let Some(rest) = line.strip_prefix("pub ") {
                if let Some((name, _)) = rest.split_once(':') {
                    if name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                        fields.insert(name.to_string());
                    }
                }
            }
        }
    }
    // Options shared by many commands, flattened in.
    for shared in ["window", "settle", "timeout"] {
        if read("crates/cli/src/commands/mod.rs").contains(&format!("pub {shared}:")) {
            fields.insert(shared.to_string());
        }
    }
    (commands, fields)
}

/// The ABI's housekeeping: not operations of the API.
const C_HOUSEKEEPING: &[&str] = &[
    "ud_version",
    "ud_abi_version",
    "ud_status_name",
    "ud_last_error_code",
    "ud_last_error_code_name",
    "ud_last_error_message",
    "ud_last_error_suggestion",
    "ud_string_free",
    "ud_bytes_free",
    "ud_locator_free",
];

#[test]
fn every_front_end_offers_every_operation_or_says_why_not() {
    let python = python_surface();
    let node = node_surface();
    let c = c_functions();
    let (commands, fields) = cli_surface();
    let mut missing = Vec::new();
    let has_member =
        |surface: &BTreeMap<String, BTreeSet<String>>, name: &str| match name.split_once('.') {
            Some((class, member)) => surface.get(class).is_some_and(|m| m.contains(member)),
            None => surface.get("").is_some_and(|m| m.contains(name)),
        };
    for op in operations::all() {
        for fe in FRONT_ENDS {
            for name in op.spelling(fe).names() {
                let found = match fe {
                    "python" => has_member(&python, name),
                    "node" => has_member(&node, name),
                    "c" => c.contains(name),
                    _ => {
                        let mut words = name.split_whitespace();
                        let command = words.next().unwrap_or("");
                        commands.contains(command)
                            && words.all(|flag| {
                                flag.strip_prefix("--")
                                    .is_some_and(|f| fields.contains(&f.replace('-', "_")))
                            })
                    }
                };
                if !found {
                    missing.push(format!("{}: {fe} has no `{name}`", op.op));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "front ends drifted from crates/facade/operations.json (offer the operation, or write why not as {{\"lacks\": ...}}):\n  {}",
        missing.join("\n  ")
    );
}

/// The readers see what is there and nothing else.
#[test]
fn the_surfaces_are_read_right() {
    let python = python_surface();
    assert!(
        python["App"].contains("get_by_role"),
        "inherited from _Factories"
    );
    assert!(python["Desktop"].contains("close"));
    assert!(python[""].contains("headless"));
    assert!(!python["Locator"].contains("no_such_method"));
    let node = node_surface();
    assert!(node["Locator"].contains("isVisible"));
    assert!(node["Desktop"].contains("env"));
    assert!(node[""].contains("headless"));
    assert!(!node["App"].contains("isVisible"));
    assert!(c_functions().contains("ud_locator_click"));
    assert!(!c_functions().contains("ud_no_such_function"));
    let (commands, fields) = cli_surface();
    assert!(commands.contains("press") && commands.contains("open"));
    assert!(!commands.contains("skills"), "not an MCP tool");
    assert!(fields.contains("launch") && fields.contains("headless"));
}

#[test]
fn every_c_function_is_an_operation_or_housekeeping() {
    let listed: BTreeSet<String> = operations::all()
        .iter()
        .flat_map(|op| {
            op.c.names()
                .into_iter()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    let unlisted: Vec<String> = c_functions()
        .into_iter()
        .filter(|f| !listed.contains(f) && !C_HOUSEKEEPING.contains(&f.as_str()))
        .collect();
    assert!(
        unlisted.is_empty(),
        "C functions missing from crates/facade/operations.json: {unlisted:?}"
    );
}

/// The `pub fn`s of `impl Locator` / `impl Expect` blocks in a core file.
fn core_methods(path: &str, block: &str) -> Vec<String> {
    let text = read(path);
    let mut names = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("impl ") {
            // `impl Expect {`, not `impl ExpectedText {`.
            inside = line
                .strip_prefix(block)
                .is_some_and(|rest| rest.starts_with([' ', '<']));
        }
        if let Some(rest) = line.strip_prefix("    pub fn ") {
            if inside {
                names.push(
                    rest.chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect(),
                );
            }
        }
    }
    names
}

/// Core's locator actions, queries and assertions are all in the list, so a
/// new one in core fails here until every front end offers it (or the list
/// says why not).
#[test]
fn every_core_locator_action_query_and_assertion_is_listed() {
    let ops: BTreeSet<String> = operations::all().into_iter().map(|op| op.op).collect();
    let mut unlisted = Vec::new();
    for (path, block, area) in [
        (
            "crates/core/src/locator/actions.rs",
            "impl Locator",
            "locator",
        ),
        (
            "crates/core/src/locator/queries.rs",
            "impl Locator",
            "locator",
        ),
        ("crates/core/src/expect.rs", "impl Expect", "expect"),
    ] {
        for name in core_methods(path, block) {
            // Spelled as the front ends spell it; `with_timeout` of an Expect is an argument.
            let name = match name.as_str() {
                "type_text" => "type".to_string(),
                "with_timeout" if area == "expect" => continue,
                _ => name,
            };
            let op = format!("{area}.{name}");
            if !ops.contains(&op) {
                unlisted.push(op);
            }
        }
    }
    assert!(
        unlisted.is_empty(),
        "core has operations crates/facade/operations.json does not list (add them, and offer them in Python, Node, C and the CLI, or say why not): {unlisted:?}"
    );
}

/// Every `.rs` file under a folder.
fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable folder").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// Core's `App` methods are operations too (or plumbing, named here).
#[test]
fn every_core_app_method_is_listed_or_plumbing() {
    let ops: BTreeSet<String> = operations::all().into_iter().map(|op| op.op).collect();
    let mut files = Vec::new();
    rust_files(&repo().join("crates/core/src"), &mut files);
    let mut unlisted = Vec::new();
    for file in files {
        let path = file
            .strip_prefix(repo())
            .expect("inside the repo")
            .to_string_lossy()
            .into_owned();
        let mut names = core_methods(&path, "impl App {");
        names.extend(core_methods(&path, "impl crate::App {"));
        for name in names {
            let op = match name.as_str() {
                // Plumbing: how front ends and drivers are built, not what users call.
                "new" | "with_process" | "driver" | "check_alive" => continue,
                "connect" => "connect".to_string(),
                "launch_socket" => "launch.socket".to_string(),
                "window" | "window_titled" | "focused_window" => "app.window".to_string(),
                "locator" => "find.locator".to_string(),
                "start_tracing" => "tracing.start".to_string(),
                "stop_tracing" => "tracing.stop".to_string(),
                n if n.starts_with("get_by_") && n != "get_by_ref" => format!("find.{n}"),
                n => format!("app.{n}"),
            };
            if !ops.contains(&op) {
                unlisted.push(format!("{op} (App::{name} in {path})"));
            }
        }
    }
    assert!(
        unlisted.is_empty(),
        "core's App has operations crates/facade/operations.json does not list: {unlisted:?}"
    );
}

/// docs/c-api.md gives every function's signature as the header declares it.
#[test]
fn the_c_guide_gives_every_signature() {
    let guide = read("docs/c-api.md");
    let header = read("include/uidrive.h");
    let flat = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let header = flat(&header);
    let guide = flat(&guide);
    let mut missing = Vec::new();
    for name in c_functions() {
        // The declaration: right after a doc comment's `*/`, a short return type, the name.
        let declared = header
            .match_indices(&format!("{name}("))
            .find_map(|(at, _)| {
                let start = header[..at].rfind("*/")? + 2;
                let before = &header[start..at];
                (before.len() < 40 && !before.contains(['(', ';'])).then_some((start, at))
            });
        let (start, at) = declared.expect("declared in the header");
        let end = at + header[at..].find(';').expect("a declaration ends");
        let signature = header[start..=end].trim();
        if !guide.contains(signature) {
            missing.push(signature.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "docs/c-api.md lacks these signatures:\n  {}",
        missing.join("\n  ")
    );
}

#[test]
fn the_test_panic_hook_is_not_in_the_public_header() {
    assert!(!c_functions().contains("ud_test_panic"));
}

/// The table, printed for people (`cargo test -p uidrive-facade --test parity -- --nocapture`).
#[test]
fn print_the_table() {
    println!("| operation | Python | Node | C | CLI/MCP |");
    println!("| --- | --- | --- | --- | --- |");
    for op in operations::all() {
        let cell = |fe: &str| {
            let s = op.spelling(fe);
            match s.lacks() {
                Some(_) => "— (see why)".to_string(),
                None => s.names().join(", "),
            }
        };
        println!(
            "| {} | {} | {} | {} | {} |",
            op.op,
            cell("python"),
            cell("node"),
            cell("c"),
            cell("cli")
        );
    }
}
