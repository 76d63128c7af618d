//! The C ABI of uidrive: `libuidrive.so` / `libuidrive.a` and `include/uidrive.h`.
//!
//! A thin layer: every function marshals C arguments into `uidrive_core`'s
//! types, runs the call inside a panic trap, and marshals the answer back.
//! Reaching apps, timeouts, role and state names, outcomes and refs are
//! `uidrive_facade`'s, as for every other front end.
//! The rules every function keeps are in the header's opening comment and
//! in `docs/c-api.md`.

mod app;
mod convert;
mod desktop;
mod enums;
mod guard;
mod handles;
mod keyboard;
mod last_error;
mod locator;
mod memory;
mod methods;
mod services;
mod status;
mod tracing;
mod version;
mod windows;

pub use app::*;
pub use desktop::*;
pub use enums::*;
pub use keyboard::*;
pub use last_error::*;
pub use locator::*;
pub use memory::*;
pub use methods::*;
pub use services::*;
pub use status::*;
pub use tracing::*;
pub use version::*;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_facade;
