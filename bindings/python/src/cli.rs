//! The `uidrive` command line inside the extension: the wheel's `uidrive`
//! console script and `python -m uidrive` call it, so the command comes from
//! the same compiled core as the library, with no second binary in the wheel.

use pyo3::prelude::*;
use std::ffi::OsString;

/// Runs the command line on `argv` (the program name first) and answers its
/// exit status. `self_command` is the argv that starts `uidrive` again (the
/// session daemon `open` leaves running).
#[pyfunction]
#[pyo3(signature = (argv, self_command))]
pub fn cli_main(py: Python<'_>, argv: Vec<String>, self_command: Vec<String>) -> u8 {
    let argv: Vec<OsString> = argv.into_iter().map(OsString::from).collect();
    let again: Vec<OsString> = self_command.into_iter().map(OsString::from).collect();
    py.detach(move || uidrive_cli::run_embedded(argv, again))
}
