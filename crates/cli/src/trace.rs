//! `uidrive trace show TRACE [--html OUT]`: a trace as text, or as one
//! self-contained HTML page to open in any browser, offline.

use clap::{Args, Subcommand};
use std::path::PathBuf;
use uidrive_core::trace::{html, text, Trace};
use uidrive_core::{Error, Result};

#[derive(Debug, Args)]
pub struct TraceArgs {
    #[command(subcommand)]
    pub command: TraceCommand,
}

#[derive(Debug, Subcommand)]
pub enum TraceCommand {
    /// Show a trace (the zip `open --trace`, tracing.stop or the pytest plugin wrote): its steps as text, or as an HTML page with --html
    Show {
        /// The trace.zip
        #[arg(value_name = "TRACE")]
        trace: PathBuf,
        /// Write one self-contained HTML page here (pictures inlined, nothing fetched) instead of printing text
        #[arg(long, value_name = "OUT.html")]
        html: Option<PathBuf>,
    },
}

pub fn run(args: TraceArgs) -> Result<()> {
    let TraceCommand::Show {
        trace: path,
        html: out,
    } = args.command;
    let bytes = std::fs::read(&path).map_err(|e| {
        Error::invalid_request(format!("trace show: cannot read {}: {e}", path.display()))
            .with_suggestion("give the path of a trace.zip")
    })?;
    let trace = Trace::read(&bytes)?;
    match out {
        None => print!("{}", text(&trace)),
        Some(out) => {
            let page = html(&trace);
            std::fs::write(&out, &page).map_err(|e| {
                Error::failed(format!("trace show: cannot write {}: {e}", out.display()))
                    .with_suggestion("check that the directory exists and is writable")
            })?;
            let failed = trace.steps.iter().filter(|s| s.ok == Some(false)).count();
            println!(
                "wrote {} ({} steps, {failed} failed, {} pictures, {} bytes)",
                out.display(),
                trace.steps.len(),
                trace.pictures.len(),
                page.len()
            );
        }
    }
    Ok(())
}
