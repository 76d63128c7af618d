//! The defaults every front end and driver uses, written once. A front end
//! that documents a default names the constant here; the operation table
//! (crates/facade/operations.json) gives the same numbers in milliseconds.

use std::time::Duration;

/// How long `launch`, `attach` and a headless desktop's start wait for the
/// app (or the desktop) to be up.
pub const LAUNCH: Duration = Duration::from_secs(30);

/// How long an action waits for its element to be there and ready.
pub const ACTION: Duration = Duration::from_secs(10);

/// How long an `expect` assertion keeps trying.
pub const EXPECT: Duration = Duration::from_secs(5);

/// How long `idle` (and the command line's `wait`) waits when the caller
/// gives no timeout: the protocol's `idle` without one never answers for a
/// window that never settles.
pub const IDLE: Duration = Duration::from_secs(10);

/// How long waiting for a launched process to end waits.
pub const PROCESS_WAIT: Duration = Duration::from_secs(30);

/// A click's presses when the caller gives no count: one.
pub const CLICKS: u32 = 1;

/// Wheel notches of a `scroll` when the caller gives none.
pub const NOTCHES: u32 = 1;

/// Steps of an `increment` or `decrement` when the caller gives none.
pub const STEPS: u32 = 1;

/// How long the command line's `verify` keeps looking.
pub const VERIFY: Duration = Duration::from_secs(2);

/// How long waiting for an accessibility event (`App::wait_for_event`)
/// waits when the caller gives no timeout.
pub const EVENT: Duration = Duration::from_secs(10);
