//! The one table of agent commands. The command line and the MCP server are
//! both built from it: each command's argument struct is parsed by clap on the
//! command line and by serde from an MCP tool call, and its JSON Schema (for
//! `tools/list`) comes from the same struct.

use crate::commands::{act, batch, compound, gesture, lifecycle, observe, query};
use crate::ctx::Ctx;
use crate::output::{CliError, Output};
use clap::ArgMatches;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// What a command does to the app, as MCP's tool hints say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hints {
    /// Only reads: safe to call at any time; the only tools an observation-only session gets.
    pub read_only: bool,
    /// May end something that can't be brought back (the app uidrive launched).
    pub destructive: bool,
    /// Calling it twice does what calling it once does.
    pub idempotent: bool,
}

pub const READS: Hints = Hints {
    read_only: true,
    destructive: false,
    idempotent: true,
};
pub const ACTS: Hints = Hints {
    read_only: false,
    destructive: false,
    idempotent: false,
};
pub const SETS: Hints = Hints {
    read_only: false,
    destructive: false,
    idempotent: true,
};
pub const ENDS: Hints = Hints {
    read_only: false,
    destructive: true,
    idempotent: true,
};

/// An agent command: its arguments are the struct, `run` is what it does.
pub trait Command: clap::Args + JsonSchema + DeserializeOwned + 'static {
    const NAME: &'static str;
    /// One line, for `--help` and the MCP tool's description.
    const ABOUT: &'static str;
    const HINTS: Hints;
    /// Offered as an MCP tool.
    const MCP: bool = true;
    /// Offered as a command-line command (a tool that groups several
    /// commands for MCP's short list is not).
    const CLI: bool = true;
    /// Allowed as a step of `batch`.
    const IN_BATCH: bool = true;

    fn run(self, ctx: &mut Ctx) -> Result<Output, CliError>;
}

/// A command with its types erased, as the table holds it.
pub struct Entry {
    pub name: &'static str,
    pub about: &'static str,
    pub hints: Hints,
    pub mcp: bool,
    pub on_cli: bool,
    pub in_batch: bool,
    /// The clap subcommand.
    pub cli: fn() -> clap::Command,
    /// The JSON Schema of its arguments, an object.
    pub schema: fn() -> Map<String, Value>,
    pub run_cli: fn(&ArgMatches, &mut Ctx) -> Result<Output, CliError>,
    pub run_json: fn(Value, &mut Ctx) -> Result<Output, CliError>,
    /// Whether JSON arguments are the command's, without running it.
    pub check_json: fn(&Value) -> Result<(), CliError>,
}

const fn entry<C: Command>() -> Entry {
    Entry {
        name: C::NAME,
        about: C::ABOUT,
        hints: C::HINTS,
        mcp: C::MCP,
        on_cli: C::CLI,
        in_batch: C::IN_BATCH,
        cli: cli_of::<C>,
        schema: schema_of::<C>,
        run_cli: run_cli::<C>,
        run_json: run_json::<C>,
        check_json: check_json::<C>,
    }
}

fn cli_of<C: Command>() -> clap::Command {
    // `about` goes last: a flattened struct's doc comment would replace it.
    C::augment_args(clap::Command::new(C::NAME)).about(C::ABOUT)
}

fn schema_of<C: Command>() -> Map<String, Value> {
    let schema = schemars::schema_for!(C);
    let mut object = match serde_json::to_value(schema) {
        Ok(Value::Object(object)) => object,
        _ => Map::new(),
    };
    object.remove("$schema");
    object.remove("title");
    object.insert("type".into(), Value::String("object".into()));
    object
}

fn run_cli<C: Command>(matches: &ArgMatches, ctx: &mut Ctx) -> Result<Output, CliError> {
    let args = C::from_arg_matches(matches).map_err(|e| CliError::usage(e.to_string()))?;
    // Every command keeps to its time; those with a timeout of their own set it.
    ctx.bound(ctx.action_budget());
    args.run(ctx)
        .map_err(|e| compound::in_callers_terms(C::NAME, ctx, e))
}

fn run_json<C: Command>(args: Value, ctx: &mut Ctx) -> Result<Output, CliError> {
    let args = if args.is_null() {
        Value::Object(Map::new())
    } else {
        args
    };
    let args: C =
        serde_json::from_value(args).map_err(|e| CliError::usage(format!("{}: {e}", C::NAME)))?;
    ctx.bound(ctx.action_budget());
    args.run(ctx)
        .map_err(|e| compound::in_callers_terms(C::NAME, ctx, e))
}

fn check_json<C: Command>(args: &Value) -> Result<(), CliError> {
    serde_json::from_value::<C>(args.clone())
        .map(|_| ())
        .map_err(|e| CliError::usage(format!("{}: {e}", C::NAME)))
}

/// Every agent command, in the order `--help` lists them.
pub static COMMANDS: &[Entry] = &[
    entry::<lifecycle::Open>(),
    entry::<observe::Windows>(),
    entry::<observe::SnapshotCmd>(),
    entry::<act::Press>(),
    entry::<act::Fill>(),
    entry::<act::Click>(),
    entry::<act::Type>(),
    entry::<act::KeyCmd>(),
    entry::<act::Check>(),
    entry::<act::Select>(),
    entry::<act::Menu>(),
    entry::<gesture::Scroll>(),
    entry::<gesture::ScrollIntoView>(),
    entry::<gesture::Hover>(),
    entry::<gesture::Drag>(),
    entry::<gesture::Focus>(),
    entry::<gesture::Expand>(),
    entry::<gesture::Collapse>(),
    entry::<gesture::Increment>(),
    entry::<gesture::Decrement>(),
    entry::<gesture::SetValue>(),
    entry::<gesture::SelectText>(),
    entry::<gesture::ExpandTool>(),
    entry::<gesture::SetValueTool>(),
    entry::<gesture::FocusTool>(),
    entry::<act::KeyTool>(),
    entry::<query::Get>(),
    entry::<query::Is>(),
    entry::<query::FindCmd>(),
    entry::<query::Verify>(),
    entry::<act::Eval>(),
    entry::<observe::Wait>(),
    entry::<observe::Screenshot>(),
    entry::<batch::Batch>(),
    entry::<lifecycle::Close>(),
    entry::<lifecycle::Skills>(),
];

/// The command-line command of that name.
pub fn find_cli(name: &str) -> Option<&'static Entry> {
    COMMANDS.iter().find(|e| e.on_cli && e.name == name)
}

/// The MCP tool of that name.
pub fn find_mcp(name: &str) -> Option<&'static Entry> {
    COMMANDS.iter().find(|e| e.mcp && e.name == name)
}
