//! JavaScript arguments to core types: milliseconds, window ids, environment maps, protocol JSON.

use crate::error::invalid_argument;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::HashMap;
use std::time::Duration;
use uidrive_core::protocol::WindowId;
use uidrive_core::Result as CoreResult;

/// Milliseconds from JavaScript as a `Duration`: the facade's conversion,
/// which refuses negative, non-finite and too-large numbers (1e22) instead of
/// panicking.
pub fn millis(what: &str, ms: f64) -> CoreResult<Duration> {
    uidrive_facade::time::millis(what, ms)
}

pub fn millis_opt(what: &str, ms: Option<f64>) -> CoreResult<Option<Duration>> {
    ms.map(|ms| millis(what, ms)).transpose()
}

/// A window id from JavaScript: a whole number of 0 or more.
pub fn window_id(what: &str, id: Option<f64>) -> CoreResult<Option<WindowId>> {
    match id {
        None => Ok(None),
        Some(n) if n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= u64::MAX as f64 => {
            Ok(Some(n as WindowId))
        }
        Some(n) => Err(invalid_argument(
            what,
            format!("{n} is not a window id (a whole number from `windows()`)"),
        )),
    }
}

/// `{NAME: value}` as the ordered pairs the core takes.
pub fn env_pairs(env: Option<HashMap<String, String>>) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = env.unwrap_or_default().into_iter().collect();
    pairs.sort();
    pairs
}

/// A protocol type from a plain JavaScript value, with the field that did not fit.
pub fn from_json<T: DeserializeOwned>(what: &str, value: Value) -> CoreResult<T> {
    serde_json::from_value(value).map_err(|e| invalid_argument(what, e))
}

/// A protocol value as plain JSON for JavaScript.
pub fn to_json<T: serde::Serialize>(value: &T) -> CoreResult<Value> {
    serde_json::to_value(value)
        .map_err(|e| uidrive_core::Error::failed(format!("could not convert the answer: {e}")))
}
