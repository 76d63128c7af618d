//! Role and state names, checked at once with the closest known names:
//! core's rule (`uidrive_core::names`), which its selector parser uses too.

pub use uidrive_core::names::{role, state};
