//! `uidrive._native`: the Rust half of the `uidrive` Python package.
//!
//! It marshals and nothing more: every decision is made in `uidrive_facade`,
//! `uidrive_core` and the drivers. Blocking calls run with the GIL released.

mod app;
mod cli;
mod convert;
mod desktop;
mod errors;
mod expect;
mod keyboard;
mod launch;
mod locator;
mod matching;
mod process;
mod services;
mod tracing;
mod windows;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<app::PyApp>()?;
    m.add_class::<app::PySnapshot>()?;
    m.add_class::<locator::PyWindow>()?;
    m.add_class::<locator::PyLocator>()?;
    m.add_class::<expect::PyExpect>()?;
    m.add_class::<desktop::PyDesktop>()?;
    m.add_class::<keyboard::PyKeyboard>()?;
    m.add_class::<process::PyProcess>()?;
    m.add_class::<tracing::PyTracing>()?;
    m.add_class::<services::PyClipboard>()?;
    m.add_class::<services::PyNotification>()?;
    m.add_class::<services::PyTrayItem>()?;
    m.add_class::<services::PyTrayMenuItem>()?;
    m.add_class::<windows::PyExpectWindow>()?;
    m.add_function(wrap_pyfunction!(launch::connect, m)?)?;
    m.add_function(wrap_pyfunction!(launch::launch, m)?)?;
    m.add_function(wrap_pyfunction!(launch::attach, m)?)?;
    m.add_function(wrap_pyfunction!(desktop::headless, m)?)?;
    m.add_function(wrap_pyfunction!(expect::expect, m)?)?;
    m.add_function(wrap_pyfunction!(cli::cli_main, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
