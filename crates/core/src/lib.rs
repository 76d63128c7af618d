//! uidrive's core: drive native desktop apps through what they show assistive technology.
//!
//! - [`protocol`]: the automation protocol's types, field for field, and its framing.
//! - [`Driver`]: one method per protocol method; every platform and transport implements it.
//! - [`Error`]: one error type, with a code, a message and a suggestion.

mod driver;
mod error;
pub mod protocol;

pub use driver::{call_json, Driver};
pub use error::{Error, ErrorCode, Result};
