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
    let mut missing = Vec::new();
    let has_member =
        |surface: &BTreeMap<String, BTreeSet<String>>, name: &str| match name.split_once('.') {
            Some((class, member)) => surface.get(class).is_some_and(|m| m.contains(member)),
            None => surface.get("").is_some_and(|m| m.contains(name)),
        };
    for op in operations::all() {
        // The command line's names and flags are checked against its clap
        // commands by its own tests (crates/cli/src/registry.rs).
        for fe in FRONT_ENDS.into_iter().filter(|fe| *fe != "cli") {
            for name in op.spelling(fe).names() {
                let found = match fe {
                    "python" => has_member(&python, name),
                    "node" => has_member(&node, name),
                    _ => c.contains(name),
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
                .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '<']));
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
                // A click with a button and a count: `click`'s options.
                "click_with" => "click".to_string(),
                // The matches of one read: what `all` answers, as nodes.
                "matching" => "all".to_string(),
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
                "choose_menu" => "app.menu".to_string(),
                "process_running" => "app.process".to_string(),
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

// ---- Parameters -------------------------------------------------------------

/// A parameter as a front end declares it.
#[derive(Debug, Clone)]
struct Declared {
    name: String,
    /// The front end's own type text (`int | None`, `ClickOptions`, `uint32_t`).
    ty: String,
    optional: bool,
}

/// Every function and method of the Python stubs with its parameters, read
/// by Python's own parser (`Class.method`, or `function` for the module's).
fn python_params() -> BTreeMap<String, Vec<Declared>> {
    const DUMP: &str = r#"
import ast, json, sys
tree = ast.parse(open(sys.argv[1]).read())
out, bases = {}, {}
def params(fn):
    a = fn.args
    pos = a.posonlyargs + a.args
    defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
    found = []
    for arg, d in list(zip(pos, defaults)) + list(zip(a.kwonlyargs, a.kw_defaults)):
        if arg.arg in ("self", "cls"):
            continue
        found.append([arg.arg, ast.unparse(arg.annotation) if arg.annotation else "", d is not None])
    return found
for node in tree.body:
    if isinstance(node, ast.ClassDef):
        bases[node.name] = [ast.unparse(b) for b in node.bases]
        for m in node.body:
            if isinstance(m, ast.FunctionDef):
                out[node.name + "." + m.name] = params(m)
    elif isinstance(node, ast.FunctionDef):
        out[node.name] = params(node)
for cls, bs in bases.items():
    for b in bs:
        for name, ps in list(out.items()):
            if name.startswith(b + "."):
                out.setdefault(cls + name[len(b):], ps)
json.dump(out, sys.stdout)
"#;
    let stub = repo().join("bindings/python/python/uidrive/_native.pyi");
    let run = std::process::Command::new("python3")
        .args(["-c", DUMP])
        .arg(&stub)
        .output()
        .expect("python3 runs (the test command installs it)");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let parsed: BTreeMap<String, Vec<(String, String, bool)>> =
        serde_json::from_slice(&run.stdout).expect("the dump is JSON");
    parsed
        .into_iter()
        .map(|(name, params)| {
            let params = params
                .into_iter()
                .map(|(name, ty, has_default)| Declared {
                    name: name.trim_end_matches('_').to_string(),
                    optional: has_default,
                    ty,
                })
                .collect();
            (name, params)
        })
        .collect()
}

/// Splits `a: X, b?: { c: Y; d: Z }` at the commas (or semicolons) outside brackets.
fn split_top(text: &str, at: char) -> Vec<String> {
    let (mut depth, mut part, mut parts) = (0i32, String::new(), Vec::new());
    for c in text.chars() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth -= 1,
            _ => {}
        }
        if c == at && depth == 0 {
            parts.push(std::mem::take(&mut part));
        } else {
            part.push(c);
        }
    }
    parts.push(part);
    parts
        .into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// `name?: Type` as a declared parameter.
fn ts_param(text: &str) -> Option<Declared> {
    let (name, ty) = text.split_once(':')?;
    let name = name.trim().trim_start_matches("readonly ");
    let optional = name.ends_with('?');
    Some(Declared {
        name: name.trim_end_matches('?').to_string(),
        ty: ty.trim().to_string(),
        optional,
    })
}

/// Every method and function of the Node typings with its parameters; an
/// options object (`options?: ClickOptions` or an inline `{ ... }`) is
/// flattened into its fields, as the table lists them.
fn node_params() -> BTreeMap<String, Vec<Declared>> {
    let text = read("bindings/node/index.d.ts");
    // Interfaces and what they extend.
    let mut interfaces: BTreeMap<String, (Vec<String>, Vec<Declared>)> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let head = line.trim_start_matches("export ");
        if let Some(rest) = head.strip_prefix("interface ") {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric()).collect();
            let extends = rest
                .split_once(" extends ")
                .map(|(_, e)| split_top(e.trim_end_matches('{').trim(), ','))
                .unwrap_or_default();
            interfaces.insert(name.clone(), (extends, Vec::new()));
            current = Some(name);
            continue;
        }
        if line.starts_with('}') {
            current = None;
        }
        if let (Some(name), Some(field)) = (&current, line.strip_prefix("  ")) {
            if !field.starts_with(' ') && !field.starts_with('/') && !field.starts_with('*') {
                if let Some(p) = ts_param(field.trim_end_matches(';')) {
                    interfaces.get_mut(name).expect("made above").1.push(p);
                }
            }
        }
    }
    fn fields(name: &str, all: &BTreeMap<String, (Vec<String>, Vec<Declared>)>) -> Vec<Declared> {
        let Some((extends, own)) = all.get(name) else {
            return Vec::new();
        };
        let mut out: Vec<Declared> = extends.iter().flat_map(|e| fields(e, all)).collect();
        out.extend(own.iter().cloned());
        out
    }
    let flatten = |p: Declared| -> Vec<Declared> {
        let ty = p.ty.trim();
        if let Some(inline) = ty.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
            return split_top(inline, ';')
                .iter()
                .filter_map(|f| ts_param(f))
                .map(|f| Declared {
                    optional: f.optional || p.optional,
                    ..f
                })
                .collect();
        }
        // An options object's fields are all optional; another object
        // (`act(params: ActParams)`) keeps its fields' own.
        let partial = ty.starts_with("Partial<") || p.name == "options";
        let named = ty.trim_start_matches("Partial<").trim_end_matches('>');
        if interfaces.contains_key(named) && !["Locator", "Node"].contains(&named) {
            return fields(named, &interfaces)
                .into_iter()
                .map(|f| Declared {
                    optional: f.optional || partial || p.optional,
                    ..f
                })
                .collect();
        }
        vec![p]
    };
    let mut out = BTreeMap::new();
    let mut class: Option<String> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("export declare class ") {
            class = Some(rest.chars().take_while(|c| c.is_alphanumeric()).collect());
            continue;
        }
        if line.starts_with('}') {
            class = None;
        }
        let (owner, sig) = match (line.strip_prefix("export declare function "), &class) {
            (Some(sig), _) => (String::new(), sig),
            (None, Some(class)) => match line.strip_prefix("  ") {
                Some(sig) if !sig.starts_with(' ') => (format!("{class}."), sig),
                _ => continue,
            },
            _ => continue,
        };
        let sig = sig.trim_start_matches("static ").trim_start_matches("get ");
        let name: String = sig
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let Some(args) = sig[name.len()..].strip_prefix('(') else {
            continue;
        };
        // The parameters end at the bracket that closes the first one.
        let mut depth = 1;
        let end = args
            .char_indices()
            .find(|&(_, c)| {
                match c {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                depth == 0
            })
            .map(|(at, _)| at)
            .unwrap_or(args.len());
        let params = split_top(&args[..end], ',')
            .iter()
            .filter_map(|p| ts_param(p))
            .flat_map(flatten)
            .collect();
        out.entry(format!("{owner}{name}")).or_insert(params);
    }
    out
}

/// Every function of the C header with its parameters, the handle it is
/// called on and its out-parameters left out.
fn c_params() -> BTreeMap<String, Vec<Declared>> {
    let header = read("include/uidrive.h");
    let mut out = BTreeMap::new();
    for line in header.lines() {
        let Some(open) = line.find('(') else { continue };
        let at = line[..open]
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(0, |at| at + 1);
        let name = &line[at..open];
        if !name.starts_with("ud_") || !line.ends_with(");") {
            continue;
        }
        let args = &line[open + 1..line.len() - 2];
        let params: Vec<Declared> = split_top(args, ',')
            .iter()
            .filter_map(|arg| {
                let name_at = arg.rfind(|c: char| !(c.is_alphanumeric() || c == '_'))? + 1;
                let (ty, name) = arg.split_at(name_at);
                Some(Declared {
                    name: name.to_string(),
                    ty: ty.trim().to_string(),
                    optional: false,
                })
            })
            .filter(|p| !p.name.starts_with("out_") && p.ty != "void")
            .collect();
        out.insert(name.to_string(), params);
    }
    out
}

/// The handle a C function is called on (its first parameter), not one of
/// the operation's own.
fn is_c_handle(p: &Declared) -> bool {
    [
        "ud_app",
        "ud_locator",
        "ud_desktop",
        "ud_expect",
        "ud_snapshot",
        "ud_process",
    ]
    .iter()
    .any(|h| p.ty.contains(h))
        && [
            "app", "locator", "desktop", "expect", "snapshot", "process", "loc",
        ]
        .contains(&p.name.as_str())
}

/// Whether a front end's type text fits the table's type.
fn type_fits(front_end: &str, table: &operations::Param, declared: &str) -> bool {
    use operations::ParamType as T;
    let declared = declared
        .trim()
        .trim_end_matches(" | None")
        .trim_end_matches(" | null")
        .trim();
    let any_of = |names: &[&str]| names.contains(&declared);
    match (front_end, table.ty) {
        ("python", T::String) => any_of(&["str"]),
        ("python", T::TextMatch) => any_of(&["TextLike", "str"]),
        ("python", T::Int) => any_of(&["int"]),
        ("python", T::Number | T::Ms) => any_of(&["float", "int"]),
        ("python", T::Bool) => any_of(&["bool"]),
        ("python", T::Locator) => any_of(&["Locator"]),
        ("python", T::Strings) => any_of(&["Sequence[str]"]),
        ("python", T::Enum) => {
            declared == "str"
                || table
                    .values
                    .iter()
                    .all(|v| declared.contains(&format!("'{v}'")))
        }
        // A named type (`Role`, `State`, `KeyChord`) is a string the typings narrow.
        ("node", T::String | T::TextMatch) => {
            declared.contains("string")
                || declared.contains("TextMatch")
                || declared.chars().next().is_some_and(char::is_uppercase)
        }
        ("node", T::Int | T::Number | T::Ms) => declared == "number",
        ("node", T::Bool) => declared == "boolean",
        ("node", T::Locator) => declared == "Locator",
        ("node", T::Strings) => declared == "string[]",
        ("node", T::Enum) => {
            declared == "string"
                || declared.chars().next().is_some_and(char::is_uppercase)
                || table
                    .values
                    .iter()
                    .all(|v| declared.contains(&format!("'{v}'")))
        }
        ("c", T::String | T::TextMatch | T::Path | T::Json) => declared.contains("char *"),
        ("c", T::Int | T::Ms) => declared.ends_with("_t") || declared == "int",
        ("c", T::Number) => declared == "double",
        // `exact` is C's `matching`, a ud_match code.
        ("c", T::Bool) => declared == "bool" || (table.name == "exact" && declared == "int32_t"),
        ("c", T::Locator) => declared.contains("ud_locator"),
        ("c", T::Enum) => declared.contains("char *") || declared.ends_with("_t"),
        // Front-end shaped values (events, environments, keys): their own tests.
        _ => true,
    }
}

/// Every operation's parameters are each front end's, named, typed and
/// optional as the table says, and no front end takes one the table does
/// not list.
#[test]
fn every_front_end_takes_each_operations_parameters_as_the_table_says() {
    let surfaces = [
        ("python", python_params()),
        ("node", node_params()),
        ("c", c_params()),
    ];
    let ops = operations::all();
    let mut diffs = Vec::new();
    for (fe, surface) in &surfaces {
        // Which table parameters each surface name serves, over all its operations.
        let mut served: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
        for op in &ops {
            for name in op.spelling(fe).names() {
                let entry = served.entry(name).or_default();
                entry.extend(op.params.iter().filter_map(|p| p.spelled(fe)));
                entry.extend(
                    op.also
                        .get(*fe)
                        .into_iter()
                        .flatten()
                        .map(|(p, _)| p.clone()),
                );
                if op.timeout.is_some() && *fe != "c" {
                    entry.insert("timeout".into());
                }
            }
        }
        for op in &ops {
            let names = op.spelling(fe).names();
            let declared: Vec<&Declared> = names
                .iter()
                .filter_map(|n| surface.get(*n))
                .flatten()
                .filter(|p| !(*fe == "c" && is_c_handle(p)))
                .collect();
            if names.is_empty() || names.iter().all(|n| !surface.contains_key(*n)) {
                continue; // lacking, or not found: the names test says so
            }
            for p in &op.params {
                let Some(spelled) = p.spelled(fe) else {
                    continue;
                };
                match declared.iter().find(|d| d.name == spelled) {
                    None => diffs.push(format!(
                        "{fe} {}: no parameter `{spelled}` (the table's {}: {:?})",
                        names.join("/"),
                        p.name,
                        p.ty
                    )),
                    Some(d) => {
                        if !type_fits(fe, p, &d.ty) {
                            diffs.push(format!(
                                "{fe} {}: `{spelled}` is `{}`, the table says {:?}",
                                names.join("/"),
                                d.ty,
                                p.ty
                            ));
                        }
                        if *fe != "c" && p.may_be_left_out_in(fe) != d.optional {
                            diffs.push(format!(
                                "{fe} {}: `{spelled}` is {}, the table says it {}",
                                names.join("/"),
                                if d.optional { "optional" } else { "required" },
                                if p.may_be_left_out() {
                                    "may be left out"
                                } else {
                                    "is required"
                                }
                            ));
                        }
                    }
                }
            }
            if op.timeout.is_some() && *fe != "c" && !declared.iter().any(|d| d.name == "timeout") {
                diffs.push(format!(
                    "{fe} {}: no per-call `timeout` (the table says it takes one)",
                    names.join("/")
                ));
            }
            for name in &names {
                for d in surface.get(*name).into_iter().flatten() {
                    let known = served.get(name).is_some_and(|s| s.contains(&d.name));
                    if !(known || (*fe == "c" && is_c_handle(d))) {
                        diffs.push(format!(
                            "{fe} {name}: takes `{}`, which the table does not list for it",
                            d.name
                        ));
                    }
                }
            }
        }
    }
    diffs.sort();
    diffs.dedup();
    assert!(
        diffs.is_empty(),
        "{} parameter differences against crates/facade/operations.json (fix the front end, or the table with `aka`/`not_in` and why):\n  {}",
        diffs.len(),
        diffs.join("\n  ")
    );
}

/// The parameter readers see what is there.
#[test]
fn the_parameter_readers_read_right() {
    let python = python_params();
    let click = &python["Locator.click"];
    assert!(click.iter().any(|p| p.name == "click_count" && p.optional));
    assert!(python["App.get_by_role"]
        .iter()
        .any(|p| p.name == "include_hidden"));
    let node = node_params();
    let click = &node["Locator.click"];
    assert!(click.iter().any(|p| p.name == "clickCount" && p.optional));
    assert!(
        click.iter().any(|p| p.name == "timeout"),
        "ClickOptions extends ActionOptions"
    );
    assert!(
        node["Keyboard.type"].iter().any(|p| p.name == "delay"),
        "inline options"
    );
    let c = c_params();
    let button = &c["ud_locator_click_button"];
    assert!(button
        .iter()
        .any(|p| p.name == "button" && p.ty == "int32_t"));
    assert!(!button.iter().any(|p| p.name.starts_with("out_")));
}
