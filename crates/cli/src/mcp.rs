//! `uidrive mcp`: the agent commands as MCP tools over stdio. The tools are
//! the command table's entries (same names, arguments and help); refs and the
//! app live in this server's own session, in memory, and end with it.

use crate::ctx::Ctx;
use crate::daemon;
use crate::output::CliError;
use crate::registry::{self, Entry};
use crate::session::{State, Store, Target};
use base64::Engine;
use clap::Args;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use uidrive_core::Error;
use uidrive_facade::hints::{localize, Lang};

#[derive(Debug, Args)]
pub struct McpArgs {
    /// Offer only the tools that read (windows, snapshot, wait, screenshot): observation only.
    #[arg(long, env = "UIDRIVE_MCP_READ_ONLY", value_parser = clap::builder::BoolishValueParser::new())]
    pub read_only: bool,
    /// Offer the desktop's tools too: `window` (move, resize, minimize, maximize, restore, focus, close a window; its bounds and states; the desktop's apps).
    #[arg(long = "desktop-tools", env = "UIDRIVE_MCP_DESKTOP_TOOLS", value_parser = clap::builder::BoolishValueParser::new())]
    pub desktop_tools: bool,
    /// Start with this app: one listening on a protocol socket (a MyGo app, `uidrive serve`).
    #[arg(long, value_name = "PATH")]
    pub socket: Option<PathBuf>,
    /// Let tools write files (a screenshot's `file`, a trace) under this directory, and nowhere else; give it again for more. Without it no tool writes a file: captures come back inline.
    #[arg(long = "files-dir", value_name = "DIR", env = "UIDRIVE_MCP_FILES_DIR")]
    pub files_dir: Vec<PathBuf>,
    /// Start with the app of this command-line session (its app only: refs stay the MCP session's own).
    #[arg(
        long = "attach-session",
        value_name = "NAME",
        conflicts_with = "socket"
    )]
    pub attach_session: Option<String>,
}

/// The app the server starts with, if the host gave one: it is not the
/// server's to stop.
fn initial_target(args: &McpArgs) -> Result<Option<Target>, Error> {
    if let Some(socket) = &args.socket {
        return Ok(Some(Target {
            what: format!("--socket {}", socket.display()),
            socket: socket.clone(),
            daemon: None,
            log: None,
        }));
    }
    let Some(name) = &args.attach_session else {
        return Ok(None);
    };
    let (_lock, state) = Store::open_file(name)?;
    let target = state
        .target
        .ok_or_else(|| crate::output::nothing_open(name))?;
    Ok(Some(Target {
        what: format!("session {name}: {}", target.what),
        daemon: None,
        log: None,
        ..target
    }))
}

const INSTRUCTIONS: &str = "uidrive drives native desktop apps through their accessibility tree. \
Call `open` (launch: [\"gnome-calculator\"], headless: true) first, then `snapshot` with interactive: true \
to get refs such as @e3, then act on refs (`press`, `fill`, `check`, `select`, `key`...) with settle: true. \
Arguments the tools share: `target`, the element: a ref (@e3), key=KEY, id=DIGITS, or role=button name=\"Add\"; \
`settle`, answer what changed once the window settles (+ came, - went, = context; `(+N)` counts what came \
or went inside an element; windows that opened, closed or took the focus come first); `window`, a window \
id from `windows` (by default the session's, which follows the focus); `timeout`, in milliseconds; `gone`, \
for it not to show instead; `into`, an element to focus first; `text`, a whole text (/pattern/ is a regex), `contains`, a part. `batch` runs steps given as {\"tool\": \"press\", \"target\": \"@e3\"} and answers \
what changed once. Each action answers `effect`: `confirmed` with what the tree showed (`observed`), or \
`unverifiable` with what was checked (`checked`; read the window to see what it did); an action whose \
effect did not come fails instead; windows the action closed are listed in `closed`. Refs belong to the session; \
a ref whose element went is refused as stale_ref: take a new snapshot.";

/// Arguments many tools share: the instructions explain them once, so the
/// tools' schemas leave their descriptions out.
const SHARED: &[&str] = &[
    "settle", "window", "target", "timeout", "gone", "text", "contains", "script", "notches",
    "collapse", "off", "into",
];

struct Server {
    /// The server's own session, in memory (when no session was named).
    ctx: Arc<Mutex<Ctx>>,
    /// A named command-line session (`UIDRIVE_SESSION` or `--session`) the
    /// tools work in instead: its state file is read and written per call,
    /// so the command line and this server share its app, window and refs.
    session: Option<String>,
    read_only: bool,
    /// Whether the desktop's tools are offered (`--desktop-tools`).
    desktop_tools: bool,
    /// Where tools may write files.
    files: Arc<crate::files::Files>,
    /// Daemons that `open` started for a named session, to reap.
    children: Arc<Mutex<Vec<std::process::Child>>>,
}

fn offered(read_only: bool, desktop_tools: bool) -> impl Iterator<Item = &'static Entry> {
    registry::COMMANDS.iter().filter(move |e| {
        e.mcp && (!read_only || e.hints.read_only) && (desktop_tools || !e.mcp_desktop)
    })
}

fn tool(entry: &Entry) -> Tool {
    // Only what differs from MCP's defaults (not read-only, not idempotent,
    // destructive) is said, to keep tools/list short; destructiveHint and
    // idempotentHint mean nothing for a tool that only reads (MCP's spec).
    let mut hints = ToolAnnotations::new();
    if !entry.hints.destructive && !entry.hints.read_only {
        hints = hints.destructive(false);
    }
    if entry.hints.read_only {
        hints = hints.read_only(true);
    }
    if entry.hints.idempotent && !entry.hints.read_only {
        hints = hints.idempotent(true);
    }
    let schema = compact((entry.schema)());
    Tool::new(entry.name, mcp_terms(entry.about), Arc::new(schema)).annotate(hints)
}

/// A tool's input schema as short as it can be and still say everything:
/// no defaults or integer formats (the descriptions say what matters),
/// optional values typed without `null`, shared arguments described briefly,
/// and command-line words in MCP's terms.
fn compact(mut schema: serde_json::Map<String, Value>) -> serde_json::Map<String, Value> {
    fn shrink(value: &mut Value) {
        let Value::Object(object) = value else {
            if let Value::Array(items) = value {
                items.iter_mut().for_each(shrink);
            }
            return;
        };
        for key in ["default", "format", "minimum", "additionalProperties"] {
            object.remove(key);
        }
        if let Some(Value::Array(types)) = object.get("type") {
            let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
            if kept.len() == 1 {
                object.insert("type".into(), kept[0].clone());
            }
        }
        if let Some(Value::String(text)) = object.get("description") {
            let text = mcp_terms(text);
            object.insert("description".into(), Value::String(text));
        }
        object.values_mut().for_each(shrink);
    }
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        // The full diff is the command line's: an agent reads the short one.
        properties.remove("full");
    }
    // A flattened struct's doc comment says nothing the tool does not.
    schema.remove("description");
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for name in SHARED {
            if let Some(Value::Object(p)) = properties.get_mut(*name) {
                p.remove("description");
            }
        }
    }
    // Helper types (a batch step) are described where they are used.
    if let Some(Value::Object(defs)) = schema.get_mut("$defs") {
        for def in defs.values_mut() {
            if let Value::Object(def) = def {
                def.remove("description");
            }
        }
    }
    let mut value = Value::Object(std::mem::take(&mut schema));
    shrink(&mut value);
    match value {
        Value::Object(object) => object,
        _ => unreachable!("an object stays an object"),
    }
}

/// Text written for the command line, in MCP's terms: `uidrive snapshot -i`
/// is the `snapshot` tool with interactive: true, `--window ID` the `window`
/// argument.
pub fn mcp_terms(text: &str) -> String {
    const PHRASES: &[(&str, &str)] = &[
        (
            "`uidrive snapshot -i`",
            "the `snapshot` tool with interactive: true",
        ),
        (
            "`uidrive open --headless`",
            "the `open` tool with headless: true",
        ),
        (
            "add --headless to `uidrive open`",
            "give `open` headless: true",
        ),
        (
            "run `uidrive skills` or `uidrive COMMAND --help` for the syntax",
            "check the arguments against the tool's input schema",
        ),
        (
            "run `uidrive open --launch CMD...` (or --socket PATH, --pid N, --app NAME) first",
            "call `open` first, with launch (or socket, pid, app)",
        ),
        ("--window ID", "`window`"),
        (" -i ", " interactive: true "),
        ("-i for", "interactive: true for"),
    ];
    let mut out = text.to_string();
    for (cli, mcp) in PHRASES {
        out = out.replace(cli, mcp);
    }
    // `uidrive open ...` and the like: the tool of that name.
    let mut rest = out.as_str();
    let mut done = String::with_capacity(out.len());
    while let Some(at) = rest.find("`uidrive ") {
        let inner = &rest[at + 1..];
        let Some(end) = inner.find('`') else { break };
        let words: Vec<&str> = inner[..end].split_whitespace().collect();
        let tool = words.get(1).copied().unwrap_or("");
        done.push_str(&rest[..at]);
        if registry::find_mcp(tool).is_some() {
            done.push_str(&format!("the `{tool}` tool"));
        } else {
            done.push_str(&rest[at..at + 1 + end + 1]);
        }
        rest = &inner[end + 1..];
    }
    done.push_str(rest);
    // `--flag` is the argument `flag`.
    let mut out = String::with_capacity(done.len());
    let mut chars = done.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let flag = c == '-'
            && done[at..].starts_with("--")
            && done[at + 2..].starts_with(|n: char| n.is_ascii_lowercase())
            && (at == 0 || done[..at].ends_with([' ', '(', '`']));
        if !flag {
            out.push(c);
            continue;
        }
        chars.next();
        let name: String = done[at + 2..]
            .chars()
            .take_while(|n| n.is_ascii_lowercase() || *n == '-')
            .collect();
        for _ in 0..name.chars().count() {
            chars.next();
        }
        out.push_str(&name.replace('-', "_"));
    }
    out
}

fn failure_text(e: &CliError) -> String {
    let error = localize(e.error.clone(), Lang::Cli);
    let mut text = e.text.clone();
    text.push_str(&format!(
        "error: {}: {}\nhint: {}",
        error.code, error.message, error.suggestion
    ));
    mcp_terms(&text)
}

/// Runs one tool call in a named session: its state is read, locked for the
/// call, and written back, as a command line's command does.
fn in_session(
    name: &str,
    entry: &'static Entry,
    args: Value,
    children: &Mutex<Vec<std::process::Child>>,
    files: Arc<crate::files::Files>,
) -> Result<crate::output::Output, CliError> {
    let (store, state) = Store::open_file(name)?;
    let mut ctx = Ctx::new(name.to_string(), store, state);
    ctx.mcp = true;
    ctx.files = files;
    let result = (entry.run_json)(args, &mut ctx);
    let saved = ctx.save();
    children
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .append(&mut ctx.children);
    let out = result?;
    saved?;
    Ok(out)
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("uidrive", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(
            offered(self.read_only, self.desktop_tools)
                .map(tool)
                .collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let Some(entry) = registry::find_mcp(&name) else {
            return Err(McpError::invalid_params(format!("no tool `{name}`"), None));
        };
        if entry.mcp_desktop && !self.desktop_tools {
            return Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                "error: unsupported: `{name}` is one of the desktop's tools, not offered in this session\nhint: start the server with `uidrive mcp --desktop-tools` (or UIDRIVE_MCP_DESKTOP_TOOLS=1)"
            ))])
            .into());
        }
        if self.read_only && !entry.hints.read_only {
            return Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                "error: unsupported: `{name}` acts, and this session is observation only\nhint: use the snapshot, windows, wait or screenshot tools"
            ))])
            .into());
        }
        let args = Value::Object(request.arguments.unwrap_or_default());
        let ctx = self.ctx.clone();
        let session = self.session.clone();
        let children = self.children.clone();
        let files = self.files.clone();
        let result = tokio::task::spawn_blocking(move || match session {
            Some(name) => in_session(&name, entry, args, &children, files),
            None => {
                let mut ctx = ctx.lock().unwrap_or_else(|p| p.into_inner());
                (entry.run_json)(args, &mut ctx)
            }
        })
        .await
        .map_err(|e| McpError::internal_error(format!("the tool `{name}` panicked: {e}"), None))?;
        let answer = match result {
            Ok(out) => {
                let mut content = vec![ContentBlock::text(mcp_terms(&out.text))];
                if let Some(png) = out.image {
                    let encoded = base64::engine::general_purpose::STANDARD.encode(png);
                    content.push(ContentBlock::image(encoded, "image/png"));
                }
                CallToolResult::success(content)
            }
            Err(e) => CallToolResult::error(vec![ContentBlock::text(failure_text(&e))]),
        };
        Ok(answer.into())
    }
}

/// The longest message line read from the client; a longer one is answered
/// with a parse error and skipped.
const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// JSON-RPC's answer to a line that is not JSON.
fn parse_error_line(detail: &str) -> Vec<u8> {
    error_line(None, -32700, &format!("Parse error: {detail}"))
}

/// A JSON-RPC error answer, with the request's id as it was written (`None`: null).
fn error_line(raw_id: Option<&[u8]>, code: i64, message: &str) -> Vec<u8> {
    let error = serde_json::json!({"code": code, "message": message});
    let mut line = b"{\"jsonrpc\":\"2.0\",\"id\":".to_vec();
    line.extend_from_slice(raw_id.unwrap_or(b"null"));
    line.extend_from_slice(b",\"error\":");
    line.extend(error.to_string().into_bytes());
    line.extend_from_slice(b"}\n");
    line
}

/// The ids of the client's requests in flight. rmcp takes only strings and
/// 64-bit integers as ids, and would turn a 30-digit id into a float (or
/// refuse it): each request goes to rmcp under a number of this server's
/// own, and its answer goes back with the id the client wrote, verbatim.
#[derive(Default)]
struct Ids {
    next: i64,
    raw: std::collections::HashMap<i64, Vec<u8>>,
}

impl Ids {
    fn lend(&mut self, raw: &[u8]) -> i64 {
        self.next += 1;
        self.raw.insert(self.next, raw.to_vec());
        self.next
    }

    /// The number a request in flight was given, by the id the client wrote.
    fn lent_for(&self, raw: &[u8]) -> Option<i64> {
        self.raw
            .iter()
            .find(|(_, r)| r.as_slice() == raw)
            .map(|(n, _)| *n)
    }
}

type SharedIds = std::sync::Arc<std::sync::Mutex<Ids>>;

fn lock_ids(ids: &SharedIds) -> std::sync::MutexGuard<'_, Ids> {
    ids.lock().unwrap_or_else(|p| p.into_inner())
}

/// What to do with one line from the client.
enum Checked {
    /// A blank line: skipped, as JSON-RPC over stdio has nothing in it.
    Skip,
    /// An answer of this server's own (an error), to write out.
    Answer(Vec<u8>),
    /// The message for rmcp.
    Forward(Vec<u8>),
}

/// Checks one line as JSON-RPC and MCP require, so that every line gets an
/// answer with the right code: rmcp skips what it cannot read without a
/// word (a line that is not UTF-8, nested past serde_json's 128 levels),
/// and answers a malformed `tools/call` as an unknown method.
fn check_line(line: &[u8], ids: &SharedIds) -> Checked {
    use uidrive_core::protocol::wire::raw_id;
    if line.iter().all(u8::is_ascii_whitespace) {
        return Checked::Skip;
    }
    if std::str::from_utf8(line).is_err() {
        return Checked::Answer(parse_error_line("the line is not UTF-8"));
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(e) if e.to_string().contains("recursion limit") => return Checked::Answer(error_line(
            raw_id(line),
            -32600,
            "Invalid Request: the message is nested deeper than the 128 levels this server reads",
        )),
        Err(e) => return Checked::Answer(parse_error_line(&e.to_string())),
    };
    let id = raw_id(line);
    let invalid = |message: &str| {
        Checked::Answer(error_line(
            id,
            -32600,
            &format!("Invalid Request: {message}"),
        ))
    };
    let mut message = match value {
        Value::Object(message) => message,
        Value::Array(_) => return invalid("batches are not taken; send one message a line"),
        _ => return invalid("a message is a JSON object"),
    };
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid("`jsonrpc` must be \"2.0\"");
    }
    let method = match message.get("method") {
        None => {
            // A response to a request of this server's: rmcp's to read.
            let response = message.contains_key("id")
                && (message.contains_key("result") || message.contains_key("error"));
            return match response {
                true => Checked::Forward([line, b"\n"].concat()),
                false => {
                    invalid("a message has a `method`, or is a response with `result` or `error`")
                }
            };
        }
        Some(Value::String(method)) => method.clone(),
        Some(_) => return invalid("`method` must be a string"),
    };
    if let Some(id) = message.get("id") {
        if !(id.is_string() || id.is_number()) {
            return invalid("`id` must be a string or a number");
        }
    }
    if method == "tools/call" {
        if let Err(problem) = check_tool_call(message.get("params")) {
            return Checked::Answer(error_line(
                id,
                -32602,
                &format!("Invalid params: {problem}"),
            ));
        }
    }
    match (message.contains_key("id"), id) {
        (true, Some(raw)) => {
            let lent = lock_ids(ids).lend(raw);
            message.insert("id".into(), Value::from(lent));
        }
        (true, None) => return invalid("`id` is not a JSON value of its own"),
        // A notification; a cancellation names the request by the client's id.
        (false, _) if method == "notifications/cancelled" => {
            use uidrive_core::protocol::wire::raw_member;
            let named = raw_member(line, "params").and_then(|p| raw_member(p, "requestId"));
            let lent = named.and_then(|raw| lock_ids(ids).lent_for(raw));
            if let (Some(lent), Some(Value::Object(params))) = (lent, message.get_mut("params")) {
                params.insert("requestId".into(), Value::from(lent));
            }
        }
        (false, _) => {}
    }
    let mut out = Value::Object(message).to_string().into_bytes();
    out.push(b'\n');
    Checked::Forward(out)
}

/// `tools/call`'s params: an object with the tool's `name` and, if any, its
/// `arguments` as an object.
fn check_tool_call(params: Option<&Value>) -> Result<(), String> {
    let Some(Value::Object(params)) = params else {
        return Err("tools/call takes params, an object with the tool's `name`".into());
    };
    match params.get("name") {
        Some(Value::String(_)) => {}
        Some(_) => return Err("`name` must be a string, a tool's name".into()),
        None => return Err("tools/call needs the tool's `name`".into()),
    }
    match params.get("arguments") {
        None | Some(Value::Null) | Some(Value::Object(_)) => Ok(()),
        Some(_) => Err("`arguments` must be an object".into()),
    }
}

/// rmcp's answer line with the client's own id put back (see [`Ids`]).
fn restore_id(line: Vec<u8>, ids: &SharedIds) -> Vec<u8> {
    let Ok(Value::Object(mut answer)) = serde_json::from_slice::<Value>(&line) else {
        return line;
    };
    let is_answer = !answer.contains_key("method")
        && (answer.contains_key("result") || answer.contains_key("error"));
    let lent = answer.get("id").and_then(Value::as_i64);
    let raw = match (is_answer, lent) {
        (true, Some(lent)) => lock_ids(ids).raw.remove(&lent),
        _ => None,
    };
    let Some(raw) = raw else {
        return line;
    };
    answer.remove("id");
    let rest = Value::Object(answer).to_string();
    let mut out = b"{\"id\":".to_vec();
    out.extend_from_slice(&raw);
    if rest.len() > 2 {
        out.push(b',');
        out.extend_from_slice(&rest.as_bytes()[1..]);
    } else {
        out.push(b'}');
    }
    out.push(b'\n');
    out
}

/// Stdio for rmcp, with the checks JSON-RPC requires ([`check_line`]):
/// every line that is not a good message is answered here, and ids go to
/// rmcp as numbers of this server's own and come back as the client wrote
/// them. One task writes stdout, so answers never interleave. Also answers
/// the writer's task, which ends once every answer is out.
fn checked_stdio() -> (
    (
        tokio::io::ReadHalf<tokio::io::DuplexStream>,
        tokio::io::WriteHalf<tokio::io::DuplexStream>,
    ),
    tokio::task::JoinHandle<()>,
) {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    let (from_rmcp, mut to_rmcp) = tokio::io::split(ours);
    let (out_tx, mut out_rx) = tokio::sync::mpsc::channel::<Vec<u8>>(64);
    let ids = SharedIds::default();

    // The client's lines: checked, then passed on.
    let errors = out_tx.clone();
    let lent = ids.clone();
    tokio::spawn(async move {
        let mut stdin = BufReader::new(tokio::io::stdin());
        loop {
            let mut line = Vec::new();
            let read = (&mut stdin)
                .take(MAX_MESSAGE_BYTES as u64 + 1)
                .read_until(b'\n', &mut line)
                .await;
            match read {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if line.len() > MAX_MESSAGE_BYTES && !line.ends_with(b"\n") {
                // Skip the rest of the long line, then say why.
                let mut rest = Vec::new();
                let _ = stdin.read_until(b'\n', &mut rest).await;
                let detail = format!("the message is longer than {MAX_MESSAGE_BYTES} bytes");
                if errors.send(parse_error_line(&detail)).await.is_err() {
                    break;
                }
                continue;
            }
            if line.ends_with(b"\n") {
                line.pop();
            }
            match check_line(&line, &lent) {
                Checked::Skip => {}
                Checked::Answer(answer) => {
                    if errors.send(answer).await.is_err() {
                        break;
                    }
                }
                Checked::Forward(message) => {
                    if to_rmcp.write_all(&message).await.is_err() {
                        break;
                    }
                }
            }
        }
        // The client closed stdin: rmcp sees the end too.
        let _ = to_rmcp.shutdown().await;
    });

    // rmcp's answers, line by line, with the client's ids, to the one writer.
    tokio::spawn(async move {
        let mut lines = BufReader::new(from_rmcp);
        loop {
            let mut line = Vec::new();
            match lines.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if out_tx.send(restore_id(line, &ids)).await.is_err() {
                        break;
                    }
                }
            }
        }
    });

    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(line) = out_rx.recv().await {
            if stdout.write_all(&line).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
        }
    });

    (tokio::io::split(theirs), writer)
}

/// Serves until the client closes stdin, then stops the app this server's
/// own session launched. With `session` (`UIDRIVE_SESSION` or `--session`),
/// the tools work in that command-line session instead, which outlives the
/// server: its app stays open for the next command or `close`.
pub fn run(args: McpArgs, session: Option<String>) -> Result<(), Error> {
    uidrive_facade::time::env_millis(crate::ctx::ACTION_TIMEOUT_ENV)?;
    if let Some(name) = &session {
        crate::session::Files::of(name)?;
    }
    let own = format!("mcp-{}", std::process::id());
    let state = State {
        target: initial_target(&args)?,
        ..State::default()
    };
    let files = Arc::new(crate::files::Files::under(&args.files_dir)?);
    let mut own_ctx = Ctx::new(own, Store::Memory, state);
    own_ctx.mcp = true;
    own_ctx.files = files.clone();
    let ctx = Arc::new(Mutex::new(own_ctx));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::failed(format!("could not start the MCP runtime: {e}")))?;
    let children = Arc::new(Mutex::new(Vec::new()));
    let server = Server {
        ctx: ctx.clone(),
        session,
        read_only: args.read_only,
        desktop_tools: args.desktop_tools,
        files,
        children: children.clone(),
    };
    let served = runtime.block_on(async move {
        let (stdio, writer) = checked_stdio();
        let service = server
            .serve(stdio)
            .await
            .map_err(|e| Error::failed(format!("MCP initialization failed: {e}")))?;
        let ended = service
            .waiting()
            .await
            .map_err(|e| Error::failed(format!("the MCP session ended badly: {e}")));
        // The last answers are still on their way to stdout.
        let _ = tokio::time::timeout(std::time::Duration::from_secs(5), writer).await;
        ended.map(|_| ())
    });
    let mut ctx = ctx.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(pid) = ctx.state.target.as_ref().and_then(|t| t.daemon) {
        if let Err(e) = daemon::stop(pid, daemon::STOP_GRACE) {
            eprintln!("uidrive mcp: {e}");
        }
    }
    for child in &mut ctx.children {
        let _ = child.wait();
    }
    // A named session's daemons run on: reap only those that have exited.
    for child in children
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter_mut()
    {
        let _ = child.try_wait();
    }
    served
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn command_lines_read_as_tools_and_arguments() {
        assert_eq!(
            mcp_terms("take a new snapshot (`uidrive snapshot -i`)"),
            "take a new snapshot (the `snapshot` tool with interactive: true)"
        );
        assert_eq!(
            mcp_terms("run `uidrive close`, then `uidrive open ...` again"),
            "run the `close` tool, then the `open` tool again"
        );
        assert_eq!(
            mcp_terms("or wait longer with --timeout; use --window ID"),
            "or wait longer with timeout; use `window`"
        );
        // Not a tool: left as it is; a dash inside a word is no flag.
        assert_eq!(
            mcp_terms("see `uidrive trace show FILE`, a built-in"),
            "see `uidrive trace show FILE`, a built-in"
        );
    }

    #[test]
    fn grouped_tools_refuse_unknown_arguments_and_take_their_own() {
        for (tool, good) in [
            ("set-value", json!({"target": "@e1", "steps": -2})),
            (
                "expand",
                json!({"target": "@e1", "collapse": true, "settle": true}),
            ),
            (
                "focus",
                json!({"target": "@e1", "from": 0, "to": 2, "window": 1}),
            ),
            (
                "scroll",
                json!({"target": "@e1", "direction": "down", "notches": 3}),
            ),
            (
                "press",
                json!({"target": "@e1", "settle": true, "window": 2}),
            ),
            ("get", json!({"field": "value", "target": "@e1"})),
        ] {
            let entry = registry::find_mcp(tool).unwrap();
            assert!((entry.check_json)(&good).is_ok(), "{tool} {good}");
            let mut bad = good.clone();
            bad["bogus"] = json!(1);
            let err = (entry.check_json)(&bad).unwrap_err();
            assert!(
                err.error.message.contains("bogus"),
                "{tool}: {}",
                err.error.message
            );
        }
    }

    #[test]
    fn the_desktops_tools_are_offered_on_request() {
        let names =
            |desktop| -> Vec<&str> { offered(false, desktop).map(|e| e.name).collect::<Vec<_>>() };
        assert!(!names(false).contains(&"window"));
        assert!(names(true).contains(&"window"));
        let listed =
            serde_json::to_string(&offered(false, true).map(tool).collect::<Vec<_>>()).unwrap();
        assert!(
            listed.contains("minimize"),
            "the window tool names its actions"
        );
    }

    #[test]
    fn tools_list_is_short_and_names_no_flags() {
        let tools: Vec<Tool> = offered(false, false).map(tool).collect();
        let listed = serde_json::to_string(&tools).unwrap();
        // The desktop's tools (`window`, `desktop`) are offered only with --desktop-tools.
        // Counted as the client reads it: the whole answer, envelope and all
        // (as tests/agent_tasks.rs counts it).
        let answer = serde_json::json!({
            "jsonrpc": "2.0",
            "id": 2,
            "result": ListToolsResult::with_all_items(tools.clone()),
        });
        let chars = answer.to_string().chars().count();
        assert!(chars <= 10_000, "tools/list is {chars} characters");
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        for wanted in [
            "scroll",
            "hover",
            "drag",
            "focus",
            "expand",
            "set-value",
            "get",
            "verify",
            "find",
        ] {
            assert!(names.contains(&wanted), "no `{wanted}` tool in {names:?}");
        }
        for flag in ["--window", "--into", "--settle", " -i "] {
            assert!(!listed.contains(flag), "tools/list says {flag}");
        }
    }
}
