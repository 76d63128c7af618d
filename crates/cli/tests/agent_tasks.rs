//! Four small tasks an AI agent did with uidrive (issue 17), repeated as an
//! agent would do them, reading refs from each answer: once as command lines
//! and once as MCP tool calls. Every command must succeed, and what the agent
//! reads (each command's stdout and stderr, each tool's text) is counted:
//! the four tasks together, with the guide read once (`uidrive skills`, or
//! the MCP server's instructions and tools/list), must read at most a third
//! of the 85,000 characters the first try took. The counts are printed per
//! task (`cargo test -p uidrive-cli --test agent_tasks -- --nocapture`).
//!
//! - gnome-calculator: Advanced mode through its mode menu button (the
//!   inner, named button), then a product and a square root;
//! - gtk4-demo: the Clipboard demo chosen from the demo list (whose rows
//!   `snapshot -i` lists by name) and run; its window is announced and taken
//!   as the session's; Copy, then Paste shows what was copied;
//! - gtk3-widget-factory: page 3 shown (its diff at most 3,000 characters),
//!   a toggle checked and two fields filled, each change read in the diff;
//! - mousepad: text typed into the editor, Search > Find, the word typed
//!   into the find bar and Enter, and the editor's selection read as the
//!   match.
//!
//! The apps come from Debian's packages (scripts/install-deps.sh installs
//! them); a missing app fails the test.

use regex::Regex;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

/// What the first try read for the four tasks (issue 17).
const BEFORE: usize = 85_000;
/// A page switch in widget-factory reads in at most this many characters.
const PAGE_SWITCH_LIMIT: usize = 3_000;
/// The MCP server's tools/list answer is at most this long (the desktop's
/// tools, `window` and `desktop`, are offered only with `--desktop-tools`).
const TOOLS_LIST_LIMIT: usize = 10_000;

/// One step as both front ends say it.
struct Step<'a> {
    cli: Vec<String>,
    tool: &'a str,
    args: Value,
}

fn step<'a>(cli: &[&str], tool: &'a str, args: Value) -> Step<'a> {
    Step {
        cli: cli.iter().map(|s| s.to_string()).collect(),
        tool,
        args,
    }
}

/// An agent's way to run steps, counting what it reads.
trait Agent {
    /// Runs the step; panics (naming the step) if it failed.
    fn run(&mut self, step: Step) -> String;
    fn read(&self) -> usize;
    fn commands(&self) -> usize;
}

struct Cli {
    home: tempfile::TempDir,
    session: String,
    read: usize,
    commands: usize,
}

impl Cli {
    fn new(session: &str) -> Cli {
        Cli {
            home: tempfile::Builder::new()
                .prefix("udtask")
                .tempdir_in("/tmp")
                .unwrap(),
            session: session.into(),
            read: 0,
            commands: 0,
        }
    }

    fn exec(&self, args: &[String]) -> (bool, String) {
        let out = Command::new(env!("CARGO_BIN_EXE_uidrive"))
            .arg("--session")
            .arg(&self.session)
            .args(args)
            .env("XDG_CACHE_HOME", self.home.path().join("cache"))
            .env("XDG_RUNTIME_DIR", self.home.path())
            .env_remove("UIDRIVE_SESSION")
            .output()
            .expect("uidrive runs");
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        (out.status.success(), text)
    }
}

impl Agent for Cli {
    fn run(&mut self, step: Step) -> String {
        let (ok, text) = self.exec(&step.cli);
        self.commands += 1;
        self.read += text.chars().count();
        assert!(ok, "uidrive {:?} failed:\n{text}", step.cli);
        text
    }
    fn read(&self) -> usize {
        self.read
    }
    fn commands(&self) -> usize {
        self.commands
    }
}

impl Drop for Cli {
    fn drop(&mut self) {
        // Stops the app and its desktop, even when the test failed.
        let _ = self.exec(&["close".to_string()]);
    }
}

/// Far above any answer's time: only a hang reaches it.
const HANG_GUARD: Duration = Duration::from_secs(120);

struct Mcp {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
    read: usize,
    commands: usize,
    _home: tempfile::TempDir,
}

impl Mcp {
    /// A server with its own session; the instructions and tools/list an
    /// agent reads once are counted apart, in `guide`.
    fn start() -> (Mcp, usize) {
        let home = tempfile::Builder::new()
            .prefix("udmcp")
            .tempdir_in("/tmp")
            .unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_uidrive"))
            .arg("mcp")
            .env("XDG_CACHE_HOME", home.path().join("cache"))
            .env("XDG_RUNTIME_DIR", home.path())
            .env_remove("UIDRIVE_SESSION")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("uidrive mcp starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut mcp = Mcp {
            stdin: child.stdin.take(),
            child,
            lines,
            next_id: 0,
            read: 0,
            commands: 0,
            _home: home,
        };
        let init = mcp.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "agent-tasks", "version": "1"}
            }),
        );
        let instructions = init["result"]["instructions"]
            .as_str()
            .unwrap_or_default()
            .chars()
            .count();
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        let tools = mcp.request("tools/list", json!({}));
        // The whole answer, as the client reads it.
        let listed = tools.to_string().chars().count();
        assert!(
            listed <= TOOLS_LIST_LIMIT,
            "tools/list is {listed} characters"
        );
        (mcp, instructions + listed)
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(message.to_string().as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(HANG_GUARD)
                .unwrap_or_else(|_| panic!("no answer to {method}"));
            let answer: Value = serde_json::from_str(&line).unwrap();
            if answer["id"] == id {
                return answer;
            }
        }
    }
}

impl Agent for Mcp {
    fn run(&mut self, step: Step) -> String {
        let answer = self.request(
            "tools/call",
            json!({"name": step.tool, "arguments": step.args}),
        );
        self.commands += 1;
        let result = &answer["result"];
        let text: String = result["content"]
            .as_array()
            .unwrap_or_else(|| panic!("{} {}: {answer}", step.tool, step.args))
            .iter()
            .filter_map(|c| c["text"].as_str())
            .collect();
        self.read += text.chars().count();
        assert!(
            result["isError"] != true,
            "{} {} failed:\n{text}",
            step.tool,
            step.args
        );
        text
    }
    fn read(&self) -> usize {
        self.read
    }
    fn commands(&self) -> usize {
        self.commands
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        // Closing stdin ends the server, which stops the app it opened.
        drop(self.stdin.take());
        for _ in 0..200 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The ref of the first line matching `pattern` (after the ref; a diff's
/// mark before it is allowed).
fn ref_of(text: &str, pattern: &str) -> String {
    let line = Regex::new(&format!(r"(?m)^(?:[-+=] )?(@e\d+) {pattern}")).unwrap();
    match line.captures(text) {
        Some(found) => found[1].to_string(),
        None => panic!("no line matches {pattern:?} in:\n{text}"),
    }
}

/// All refs of lines matching `pattern`, in order.
fn refs_of(text: &str, pattern: &str) -> Vec<String> {
    let line = Regex::new(&format!(r"(?m)^(?:[-+=] )?(@e\d+) {pattern}")).unwrap();
    line.captures_iter(text).map(|c| c[1].to_string()).collect()
}

fn matches(text: &str, pattern: &str) -> bool {
    Regex::new(pattern).unwrap().is_match(text)
}

fn open(agent: &mut dyn Agent, app: &str) -> String {
    agent.run(step(
        &["open", "--headless", "--timeout", "60000", "--launch", app],
        "open",
        json!({"headless": true, "timeout": 60000, "launch": [app]}),
    ))
}

fn close(agent: &mut dyn Agent) {
    agent.run(step(&["close"], "close", json!({})));
}

fn controls(agent: &mut dyn Agent) -> String {
    agent.run(step(
        &["snapshot", "-i"],
        "snapshot",
        json!({"interactive": true}),
    ))
}

fn press(agent: &mut dyn Agent, target: &str) -> String {
    agent.run(step(
        &["press", target, "--settle"],
        "press",
        json!({"target": target, "settle": true}),
    ))
}

/// A batch of steps, each given as its command line and its tool call.
fn batch(agent: &mut dyn Agent, steps: &[(&[&str], Value)]) -> String {
    let mut cli = vec!["batch".to_string()];
    cli.extend(steps.iter().map(|(words, _)| words.join(" ")));
    let calls: Vec<Value> = steps.iter().map(|(_, call)| call.clone()).collect();
    agent.run(Step {
        cli,
        tool: "batch",
        args: json!({"steps": calls}),
    })
}

/// gnome-calculator: Advanced mode, 4 × 6 = 24, then √144 = 12.
fn calculator(agent: &mut dyn Agent) {
    open(agent, "gnome-calculator");
    let seen = controls(agent);
    // The mode menu button: GTK 4's button and the toggle inside it read as one element.
    let mode = refs_of(&seen, r#"\[button\] "Basic""#);
    assert_eq!(mode.len(), 1, "one mode button: {mode:?}");
    let inner = mode[0].clone();
    let diff = agent.run(step(
        &["select", &inner, "Advanced", "--settle"],
        "select",
        json!({"target": inner, "option": "Advanced", "settle": true}),
    ));
    assert!(diff.contains("\"Advanced\""), "{diff}");
    let seen = controls(agent);
    let button = |label: &str| ref_of(&seen, &format!(r#"\[button\] "{}""#, regex::escape(label)));
    let (four, times, six, equals) = (button("4"), button("×"), button("6"), button("="));
    let (root, one) = (button("√"), button("1"));
    fn pressing(r: &String) -> (Vec<&str>, Value) {
        (
            vec!["press", r.as_str()],
            json!({"tool": "press", "target": r}),
        )
    }
    let product: Vec<(Vec<&str>, Value)> = [&four, &times, &six, &equals]
        .into_iter()
        .map(pressing)
        .collect();
    let product: Vec<(&[&str], Value)> = product
        .iter()
        .map(|(w, c)| (w.as_slice(), c.clone()))
        .collect();
    let out = batch(agent, &product);
    assert!(
        matches(&out, r#"(?m)^\+ @e\d+ \[textField\].* value="24""#),
        "{out}"
    );
    // Escape clears the display; then √144.
    let escape = (
        vec!["key", "Escape"],
        json!({"tool": "key", "keys": ["Escape"]}),
    );
    let mut root_steps = vec![escape];
    root_steps.extend(
        [&root, &one, &four, &four, &equals]
            .into_iter()
            .map(pressing),
    );
    let root_steps: Vec<(&[&str], Value)> = root_steps
        .iter()
        .map(|(w, c)| (w.as_slice(), c.clone()))
        .collect();
    let out = batch(agent, &root_steps);
    assert!(
        matches(&out, r#"(?m)^\+ @e\d+ \[textField\].* value="12""#),
        "{out}"
    );
    close(agent);
}

/// gtk4-demo: the Clipboard demo run, Copy pressed, Paste shows the copy.
fn gtk4_demo(agent: &mut dyn Agent) {
    open(agent, "gtk4-demo");
    let seen = controls(agent);
    // The demo list's rows, by name.
    for name in ["Application Class", "Clipboard", "Combo Boxes"] {
        assert!(
            seen.contains(&format!("[listItem] \"{name}\"")),
            "snapshot -i does not list the row {name:?}:\n{seen}"
        );
    }
    // select on a row chooses it through its list.
    let row = ref_of(&seen, r#"\[listItem\] "Clipboard""#);
    let diff = agent.run(step(
        &["select", &row, "Clipboard", "--settle"],
        "select",
        json!({"target": row, "option": "Clipboard", "settle": true}),
    ));
    assert!(
        matches(
            &diff,
            r#"(?m)^\+ @e\d+ \[listItem\] "Clipboard".* selected"#
        ),
        "{diff}"
    );
    let run = ref_of(&diff, r#"\[button\] "Run"$"#);
    let opened = press(agent, &run);
    assert!(
        matches(&opened, r#"(?m)^\+ window \d+ "Clipboard" focused$"#),
        "the demo's window is not announced:\n{opened}"
    );
    let copy = ref_of(&opened, r#"\[button\] "Copy""#);
    let paste = ref_of(&opened, r#"\[button\] "Paste""#);
    press(agent, &copy);
    let pasted = press(agent, &paste);
    assert!(pasted.contains("\"Copy this!\""), "{pasted}");
    let windows = agent.run(step(&["windows"], "windows", json!({})));
    assert!(
        matches(&windows, r#"(?m)^window \d+ "Clipboard" content focused"#),
        "{windows}"
    );
    close(agent);
}

/// gtk3-widget-factory: page 3, a toggle and two fields.
fn widget_factory(agent: &mut dyn Agent) {
    open(agent, "gtk3-widget-factory");
    let seen = controls(agent);
    let page = ref_of(&seen, r#"\[radio\] "Page 3""#);
    let diff = agent.run(step(
        &["check", &page, "--settle"],
        "check",
        json!({"target": page, "settle": true}),
    ));
    assert!(diff.contains("\"Page 3\" checked"), "{diff}");
    assert!(
        diff.chars().count() <= PAGE_SWITCH_LIMIT,
        "the page switch reads {} characters:\n{diff}",
        diff.chars().count()
    );
    println!(
        "gtk3-widget-factory: the switch to page 3 read {} characters",
        diff.chars().count()
    );
    let seen = controls(agent);
    let record = ref_of(&seen, r#"\[toggleButton\] "Record""#);
    let first = ref_of(&seen, r#"\[textField\] "First Name""#);
    let last = ref_of(&seen, r#"\[textField\] "Last Name""#);
    let out = batch(
        agent,
        &[
            (
                &["check", &record],
                json!({"tool": "check", "target": record}),
            ),
            (
                &["fill", &first, "Ada"],
                json!({"tool": "fill", "target": first, "text": "Ada"}),
            ),
            (
                &["fill", &last, "Lovelace"],
                json!({"tool": "fill", "target": last, "text": "Lovelace"}),
            ),
        ],
    );
    assert!(
        matches(&out, r#"(?m)^\+ @e\d+ \[toggleButton\] "Record".* checked"#),
        "{out}"
    );
    assert!(
        matches(
            &out,
            r#"(?m)^\+ @e\d+ \[textField\] "First Name" value="Ada""#
        ),
        "{out}"
    );
    assert!(
        matches(
            &out,
            r#"(?m)^\+ @e\d+ \[textField\] "Last Name" value="Lovelace""#
        ),
        "{out}"
    );
    close(agent);
}

/// mousepad: find a word in what was typed.
fn mousepad(agent: &mut dyn Agent) {
    open(agent, "mousepad");
    let seen = controls(agent);
    let editor = ref_of(&seen, r#"\[textField\].* focused"#);
    // Typed into the editor and read back before the answer.
    let typed = agent.run(step(
        &["type", "one two three two", "--into", &editor, "--settle"],
        "type",
        json!({"text": "one two three two", "into": editor, "settle": true}),
    ));
    assert!(
        typed.contains(&format!("{editor} [textField] value=\"one two three two\"")),
        "{typed}"
    );
    let found = agent.run(step(
        &["menu", "Search", "Find", "--settle"],
        "menu",
        json!({"path": ["Search", "Find"], "settle": true}),
    ));
    assert!(
        matches(&found, r"(?m)^\+ @e\d+ \[toolbar\]"),
        "the find bar did not come:\n{found}"
    );
    // The find bar's field has the focus, so its line is in the diff.
    let field = ref_of(&found, r"\[textField\] focused");
    // The word in the find bar, then Enter: the editor selects the first match.
    let matched = batch(
        agent,
        &[
            (
                &["type", "two", "--into", &field],
                json!({"tool": "type", "text": "two", "into": field}),
            ),
            (&["key", "Enter"], json!({"tool": "key", "keys": ["Enter"]})),
        ],
    );
    assert!(
        matches(
            &matched,
            &format!(r#"(?m)^\+ {editor} \[textField\] value="one two three two" selected="two""#)
        ),
        "the editor does not show the match selected:\n{matched}"
    );
    close(agent);
}

type Task = (&'static str, fn(&mut dyn Agent));

const TASKS: [Task; 4] = [
    ("gnome-calculator", calculator),
    ("gtk4-demo", gtk4_demo),
    ("gtk3-widget-factory", widget_factory),
    ("mousepad", mousepad),
];

fn report(front: &str, counts: &[(&str, usize, usize)], guide: usize) -> usize {
    let total: usize = counts.iter().map(|(_, _, read)| read).sum();
    println!("{front}: characters read per task (commands, characters)");
    for (name, commands, read) in counts {
        println!("  {name:<20} {commands:>3} commands {read:>6} characters");
    }
    println!(
        "  {:<20}             {total:>6} characters (limit {}; the first try read {BEFORE})",
        "all four",
        BEFORE / 3
    );
    println!(
        "  {:<20}             {guide:>6} characters, read once",
        "the guide"
    );
    total
}

#[test]
fn four_agent_tasks_as_command_lines() {
    let guide = Command::new(env!("CARGO_BIN_EXE_uidrive"))
        .arg("skills")
        .output()
        .expect("uidrive runs");
    let guide = String::from_utf8_lossy(&guide.stdout).chars().count();
    let mut counts = Vec::new();
    for (name, task) in TASKS {
        let mut cli = Cli::new(&format!("task-{}", name.split('-').next().unwrap()));
        task(&mut cli);
        counts.push((name, cli.commands(), cli.read()));
    }
    let total = report("command line", &counts, guide);
    assert!(
        total <= BEFORE / 3,
        "the four tasks read {total} characters"
    );
}

#[test]
fn four_agent_tasks_as_mcp_calls() {
    let (mut mcp, guide) = Mcp::start();
    let mut counts = Vec::new();
    for (name, task) in TASKS {
        let (read, commands) = (mcp.read(), mcp.commands());
        task(&mut mcp);
        counts.push((name, mcp.commands() - commands, mcp.read() - read));
    }
    let total = report("MCP", &counts, guide);
    assert!(
        total <= BEFORE / 3,
        "the four tasks read {total} characters"
    );
}

/// Errors in the caller's terms: the command's name and refs, and an element
/// that cannot take the action fails at once.
#[test]
fn errors_name_the_command_and_the_refs_given() {
    let mut cli = Cli::new("task-errors");
    open(&mut cli, "gnome-calculator");
    let seen = controls(&mut cli);
    let seven = ref_of(&seen, r#"\[button\] "7""#);
    let started = std::time::Instant::now();
    let (ok, text) = cli.exec(&["check".into(), seven.clone()]);
    assert!(!ok, "{text}");
    assert!(
        text.starts_with(&format!(
            "error: not_actionable: check: {seven} (button \"7\""
        )) && text.contains("was not checkable"),
        "{text}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "check took {:?}",
        started.elapsed()
    );
    // A selector that matches one element now is checked the same way.
    let (ok, text) = cli.exec(&["check".into(), r#"role=button name="7""#.into()]);
    assert!(!ok, "{text}");
    assert!(
        text.starts_with(&format!("error: not_actionable: check: {seven} (button")),
        "{text}"
    );
    let (ok, text) = cli.exec(&[
        "--action-timeout".into(),
        "1000".into(),
        "select".into(),
        seven.clone(),
        "Nothing".into(),
    ]);
    assert!(!ok, "{text}");
    assert!(
        text.starts_with(&format!("error: no_element: select: {seven} ")),
        "{text}"
    );
    assert!(!text.contains("get_by_id"), "{text}");
}

/// MCP's grouped tools reach the operations they stand for (issue 31): on
/// gtk3-widget-factory, `set-value` steps a spin button, `get` reads it back
/// and answers a state, `focus` selects text, `scroll` shows an element,
/// `find` lists matches and `verify` checks a claim.
#[test]
fn mcp_grouped_tools_act_and_read_back() {
    let (mut mcp, _) = Mcp::start();
    let agent: &mut dyn Agent = &mut mcp;
    open(agent, "gtk3-widget-factory");
    let seen = controls(agent);
    let stepper = ref_of(&seen, r#"\[stepper\] value="50"$"#);
    let entry = ref_of(&seen, r#"\[textField\] value="entry"$"#);
    let call = |agent: &mut dyn Agent, tool: &str, args: Value| agent.run(step(&[], tool, args));

    let stepped = call(agent, "set-value", json!({"target": stepper, "steps": 2}));
    assert!(
        stepped.contains("# confirmed: it moved from 50"),
        "{stepped}"
    );
    let down = call(agent, "set-value", json!({"target": stepper, "steps": -1}));
    assert!(down.contains("# confirmed: it moved from 52"), "{down}");
    assert_eq!(
        call(agent, "get", json!({"field": "value", "target": stepper})),
        "51\n"
    );
    assert_eq!(
        call(agent, "get", json!({"field": "enabled", "target": stepper})),
        "true\n"
    );

    let selected = call(agent, "focus", json!({"target": entry, "from": 0, "to": 2}));
    assert!(selected.contains(r#"selected="en""#), "{selected}");
    let shown = call(
        agent,
        "scroll",
        json!({"target": stepper, "direction": "into-view"}),
    );
    assert!(shown.contains("# confirmed:"), "{shown}");

    let found = call(agent, "find", json!({"selector": "role=stepper"}));
    assert_eq!(found.lines().count(), 2, "{found}");
    let verdict = call(agent, "verify", json!({"target": stepper, "value": "51"}));
    assert_eq!(verdict, "satisfied\n");
    close(agent);
}

/// MCP's `wait` tool waits for an event the app sent (issue 31): the focus
/// an action gave an entry, from AT-SPI's event stream.
#[test]
fn mcp_wait_hands_over_the_event_an_action_caused() {
    let (mut mcp, _) = Mcp::start();
    let agent: &mut dyn Agent = &mut mcp;
    open(agent, "gtk3-widget-factory");
    let seen = controls(agent);
    let stepper = ref_of(&seen, r#"\[stepper\] value="50"$"#);
    let entry = ref_of(&seen, r#"\[textField\] value="entry"$"#);
    agent.run(step(&[], "focus", json!({"target": stepper})));
    agent.run(step(&[], "focus", json!({"target": entry})));
    let event = agent.run(step(
        &[],
        "wait",
        json!({"event": "focus", "target": entry}),
    ));
    assert!(
        event.starts_with(&format!("focus (focused) on {entry} [textField]")),
        "{event}"
    );
    close(agent);
}
