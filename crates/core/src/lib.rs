//! uidrive's core: drive native desktop apps through what they show assistive technology.
//!
//! - [`protocol`]: the automation protocol's types, field for field, and its framing.
//! - [`Driver`]: one method per protocol method; every platform and transport implements it.
//! - [`SocketDriver`]: the client of an app (or `uidrive serve`) that speaks the protocol.
//! - [`serve`]: the protocol's server over any driver.
//! - [`App`]: a target to drive: a driver, plus the process uidrive launched.
//! - [`locator`], [`mod@expect`]: elements found the way a user names them, with auto-wait,
//!   the actionability ladder, and assertions retried until they hold.
//! - [`MemoryDriver`]: a small fixed UI in memory, for unit tests and fault injection.
//! - [`conformance`]: checks that a server speaks the protocol, for every driver.
//! - [`naming`]: labels as a person reads them, for toolkits that name elements poorly.
//! - [`trace`]: every step of a run recorded with pictures, and the trace viewer.
//! - [`Keyboard`]: real key and text input into the focused element.
//! - [`text_check`]: whether set or typed text landed, the one check of every layer.
//! - [`Error`]: one error type, with a code, a message and a suggestion.
//! - [`children`]: processes started for the life of this one, and reaped as they end.

#![deny(missing_docs)]

mod app;
pub mod children;
pub mod conformance;
pub mod defaults;
mod driver;
mod error;
pub mod expect;
mod keyboard;
pub mod locator;
pub mod memory;
pub mod names;
pub mod naming;
mod png;
pub mod protocol;
mod server;
pub mod snapshot;
mod socket;
pub mod text_check;
pub mod trace;
pub mod visual;
mod wait_event;

pub use app::{App, Timeouts};
pub use driver::{call_json, Driver};
pub use error::{Details, Error, ErrorCode, Result, Subject, Term, MAX_MESSAGE_BYTES};
pub use expect::{expect, Expect, ExpectedText};
pub use keyboard::{Keyboard, MAX_KEY_DELAY};
pub use locator::{
    ActionOutcome, Effect, Filter, Find, Locator, RoleQuery, Route, ScrollDirection, TextMatch,
    WindowRef,
};
pub use memory::MemoryDriver;
pub use server::{
    check_socket_dir, check_socket_path, serve, serve_with, Limits, Server, MAX_SOCKET_PATH_BYTES,
};
pub use socket::{SocketDriver, SocketOptions};

/// The Rust examples of the README and docs/locators.md, compiled and run
/// as this crate's doctests, so that no example in the docs fails.
#[cfg(doctest)]
mod doc_examples {
    #[doc = include_str!("../../../README.md")]
    struct Readme;
    #[doc = include_str!("../../../docs/locators.md")]
    struct Locators;
}
