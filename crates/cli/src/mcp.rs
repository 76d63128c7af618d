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

#[derive(Debug, Args)]
pub struct McpArgs {
    /// Offer only the tools that read (windows, snapshot, wait, screenshot): observation only.
    #[arg(long, env = "UIDRIVE_MCP_READ_ONLY", value_parser = clap::builder::BoolishValueParser::new())]
    pub read_only: bool,
    /// Start with this app: one listening on a protocol socket (a MyGo app, `uidrive serve`).
    #[arg(long, value_name = "PATH")]
    pub socket: Option<PathBuf>,
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
to get refs such as @e3, then act on refs (`press`, `fill`, `key`...) with settle: true to see what changed. \
Refs belong to this MCP session; a ref whose element went is refused as stale_ref: take a new snapshot.";

struct Server {
    ctx: Arc<Mutex<Ctx>>,
    read_only: bool,
}

fn offered(read_only: bool) -> impl Iterator<Item = &'static Entry> {
    registry::COMMANDS
        .iter()
        .filter(move |e| e.mcp && (!read_only || e.hints.read_only))
}

fn tool(entry: &Entry) -> Tool {
    let hints = ToolAnnotations::new()
        .read_only(entry.hints.read_only)
        .destructive(entry.hints.destructive)
        .idempotent(entry.hints.idempotent)
        .open_world(false);
    Tool::new(entry.name, entry.about, Arc::new((entry.schema)())).annotate(hints)
}

fn failure_text(e: &CliError) -> String {
    let mut text = e.text.clone();
    text.push_str(&format!(
        "error: {}: {}\nhint: {}",
        e.error.code, e.error.message, e.error.suggestion
    ));
    text
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
            offered(self.read_only).map(tool).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let Some(entry) = registry::find(&name).filter(|e| e.mcp) else {
            return Err(McpError::invalid_params(format!("no tool `{name}`"), None));
        };
        if self.read_only && !entry.hints.read_only {
            return Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                "error: unsupported: `{name}` acts, and this session is observation only\nhint: use snapshot, windows, wait or screenshot"
            ))])
            .into());
        }
        let args = Value::Object(request.arguments.unwrap_or_default());
        let ctx = self.ctx.clone();
        let result = tokio::task::spawn_blocking(move || {
            let mut ctx = ctx.lock().unwrap_or_else(|p| p.into_inner());
            (entry.run_json)(args, &mut ctx)
        })
        .await
        .map_err(|e| McpError::internal_error(format!("the tool `{name}` panicked: {e}"), None))?;
        let answer = match result {
            Ok(out) => {
                let mut content = vec![ContentBlock::text(out.text)];
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
    let answer = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": -32700, "message": format!("Parse error: {detail}")},
    });
    let mut line = answer.to_string().into_bytes();
    line.push(b'\n');
    line
}

/// Stdio for rmcp, with the parse errors JSON-RPC requires: rmcp skips a line
/// that is not JSON without a word, so lines are checked here first. A line
/// that is not JSON is answered `-32700` (id `null`); every other line goes
/// on to rmcp unchanged. One task writes stdout, so answers never interleave.
/// Also answers the writer's task, which ends once every answer is out.
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

    // The client's lines: checked, then passed on.
    let errors = out_tx.clone();
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
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(&line) {
                if errors.send(parse_error_line(&e.to_string())).await.is_err() {
                    break;
                }
                continue;
            }
            if !line.ends_with(b"\n") {
                line.push(b'\n');
            }
            if to_rmcp.write_all(&line).await.is_err() {
                break;
            }
        }
        // The client closed stdin: rmcp sees the end too.
        let _ = to_rmcp.shutdown().await;
    });

    // rmcp's answers, line by line, to the one writer.
    tokio::spawn(async move {
        let mut lines = BufReader::new(from_rmcp);
        loop {
            let mut line = Vec::new();
            match lines.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if out_tx.send(line).await.is_err() {
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

/// Serves until the client closes stdin, then stops the app this session launched.
pub fn run(args: McpArgs) -> Result<(), Error> {
    let session = format!("mcp-{}", std::process::id());
    let state = State {
        target: initial_target(&args)?,
        ..State::default()
    };
    let ctx = Arc::new(Mutex::new(Ctx::new(session, Store::Memory, state)));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::failed(format!("could not start the MCP runtime: {e}")))?;
    let server = Server {
        ctx: ctx.clone(),
        read_only: args.read_only,
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
        daemon::stop(pid, daemon::STOP_GRACE);
    }
    for child in &mut ctx.children {
        let _ = child.wait();
    }
    served
}
