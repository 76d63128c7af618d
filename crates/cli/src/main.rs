//! The `uidrive` binary: the command line of the `uidrive_cli` library.

use std::process::ExitCode;

fn main() -> ExitCode {
    uidrive_cli::run(std::env::args_os())
}
