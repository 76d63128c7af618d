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
        let service = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| Error::failed(format!("MCP initialization failed: {e}")))?;
        service
            .waiting()
            .await
            .map_err(|e| Error::failed(format!("the MCP session ended badly: {e}")))?;
        Ok::<(), Error>(())
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
