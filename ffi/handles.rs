//! The handles uidrive has handed out and not yet freed, so that a freed or
//! made-up `ud_app`, `ud_locator` or `ud_desktop` is refused with
//! `invalid_request` instead of being read (undefined behaviour).
//!
//! Every handle is registered when it is made and taken out when it is freed;
//! each call checks its handle here before touching it. A second free is
//! refused the same way (the free function records the error and does
//! nothing). The check is by address: if the allocator has already given a
//! freed handle's address to a new handle of the same kind, a stale pointer
//! reaches the new one. It catches the common mistakes cheaply, not every one.

use std::collections::BTreeSet;
use std::sync::Mutex;
use uidrive_core::{Error, Result};

/// What a handle is, so one kind's pointer is never taken for another's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    App,
    Locator,
    Desktop,
}

impl Kind {
    fn type_name(self) -> &'static str {
        match self {
            Kind::App => "ud_app",
            Kind::Locator => "ud_locator",
            Kind::Desktop => "ud_desktop",
        }
    }
}

static LIVE: Mutex<BTreeSet<(Kind, usize)>> = Mutex::new(BTreeSet::new());

fn live() -> std::sync::MutexGuard<'static, BTreeSet<(Kind, usize)>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Hands out a new handle: boxes it and registers its address.
pub(crate) fn register<T>(kind: Kind, value: T) -> *mut T {
    let ptr = Box::into_raw(Box::new(value));
    live().insert((kind, ptr as usize));
    ptr
}

fn not_live(kind: Kind, what: &str) -> Error {
    Error::invalid_request(format!(
        "`{what}` is not a live {}: it was freed already, or was not made by uidrive",
        kind.type_name()
    ))
    .with_suggestion(format!(
        "use a {} only between the call that made it and its free function, and free it once",
        kind.type_name()
    ))
}

/// Borrows a live handle; NULL and a handle that is not live are `invalid_request`.
///
/// # Safety
/// A live `ptr` points to the `T` registered under it, which no other thread frees meanwhile.
pub(crate) unsafe fn get<'a, T>(kind: Kind, ptr: *const T, what: &str) -> Result<&'a T> {
    if ptr.is_null() {
        return Err(Error::invalid_request(format!("`{what}` is NULL")));
    }
    if !live().contains(&(kind, ptr as usize)) {
        return Err(not_live(kind, what));
    }
    Ok(&*ptr)
}

/// Takes a handle back to free it: `None` for NULL (nothing to do), an
/// error for a handle that is not live (freed twice, or never made).
///
/// # Safety
/// A live `ptr` is the `Box` registered under it; it is not used again.
pub(crate) unsafe fn take<T>(kind: Kind, ptr: *mut T, what: &str) -> Result<Option<Box<T>>> {
    if ptr.is_null() {
        return Ok(None);
    }
    if !live().remove(&(kind, ptr as usize)) {
        return Err(not_live(kind, what));
    }
    Ok(Some(Box::from_raw(ptr)))
}
