//! Timeouts as each language writes them, turned into `Duration`s here and
//! nowhere else. A number that is no timeout (negative, NaN, infinite, or
//! beyond what a `Duration` holds) is an `invalid_request` naming the
//! parameter; nothing here panics, whatever the caller passes.

use std::time::Duration;
use uidrive_core::{Error, Result};

/// How long `launch` and `attach` wait for an app by default (core's).
pub const LAUNCH: Duration = uidrive_core::defaults::LAUNCH;

/// The longest timeout accepted, in every front end: one hour (core's
/// [`uidrive_core::protocol::MAX_TIMEOUT_MS`], which `idle` keeps too). Far
/// beyond any test; `UINT32_MAX` milliseconds (49 days) is refused.
pub const MAX: Duration = Duration::from_millis(uidrive_core::protocol::MAX_TIMEOUT_MS);

fn refuse(what: &str, shown: &str, unit: &str) -> Error {
    Error::invalid_request(format!(
        "{what} is {shown}; give a number of {unit} from 0 to {}",
        match unit {
            "milliseconds" => format!("{}", MAX.as_millis()),
            _ => format!("{}", MAX.as_secs()),
        }
    ))
}

fn bounded(what: &str, shown: &str, unit: &str, seconds: f64) -> Result<Duration> {
    match Duration::try_from_secs_f64(seconds) {
        Ok(duration) if duration <= MAX => Ok(duration),
        _ => Err(refuse(what, shown, unit)),
    }
}

/// Seconds as Python writes them (a float).
pub fn seconds(what: &str, seconds: f64) -> Result<Duration> {
    bounded(what, &seconds.to_string(), "seconds", seconds)
}

/// Optional seconds: `None` keeps the default.
pub fn opt_seconds(what: &str, value: Option<f64>) -> Result<Option<Duration>> {
    value.map(|v| self::seconds(what, v)).transpose()
}

/// Milliseconds as JavaScript writes them (a double).
pub fn millis(what: &str, ms: f64) -> Result<Duration> {
    bounded(what, &ms.to_string(), "milliseconds", ms / 1000.0)
}

/// Optional milliseconds: `None` keeps the default.
pub fn opt_millis(what: &str, value: Option<f64>) -> Result<Option<Duration>> {
    value.map(|v| millis(what, v)).transpose()
}

/// Whole milliseconds as C passes them where 0 means "the default".
pub fn millis_or(what: &str, ms: u32, default: Duration) -> Result<Duration> {
    if ms == 0 {
        Ok(default)
    } else {
        whole_millis(what, ms.into())
    }
}

/// Whole milliseconds, as the command line and MCP take them.
pub fn whole_millis(what: &str, ms: u64) -> Result<Duration> {
    match Duration::from_millis(ms) {
        duration if duration <= MAX => Ok(duration),
        _ => Err(refuse(what, &ms.to_string(), "milliseconds")),
    }
}

/// Milliseconds from the environment variable `name`: `None` when it is
/// unset or empty, `invalid_request` naming it when it is no whole number of
/// milliseconds in range (a typo must not silently mean the default).
pub fn env_millis(name: &str) -> Result<Option<Duration>> {
    let Ok(text) = std::env::var(name) else {
        return Ok(None);
    };
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let ms: u64 = text
        .parse()
        .map_err(|_| refuse(name, &format!("{text:?}"), "milliseconds"))?;
    whole_millis(name, ms).map(Some)
}

/// C's signed milliseconds where `default` (the ABI's `UD_TIMEOUT_DEFAULT`,
/// -1) means "the default": `None`; other negatives are refused.
pub fn signed_millis(what: &str, ms: i64, default: i64) -> Result<Option<Duration>> {
    if ms == default {
        return Ok(None);
    }
    match u64::try_from(ms) {
        Ok(ms) if Duration::from_millis(ms) <= MAX => Ok(Some(Duration::from_millis(ms))),
        _ => Err(Error::invalid_request(format!(
            "{what} is {ms}; give milliseconds from 0 to {}, or {default} for the default",
            MAX.as_millis()
        ))),
    }
}

#[cfg(test)]
mod env_tests {
    #[test]
    fn a_bad_environment_timeout_is_refused_by_name() {
        std::env::set_var("UIDRIVE_TEST_MS_A", "5s");
        let err = super::env_millis("UIDRIVE_TEST_MS_A").unwrap_err();
        assert!(err.message.contains("UIDRIVE_TEST_MS_A"), "{}", err.message);
        std::env::set_var("UIDRIVE_TEST_MS_B", " 2500 ");
        assert_eq!(
            super::env_millis("UIDRIVE_TEST_MS_B").unwrap(),
            Some(std::time::Duration::from_millis(2500))
        );
        assert_eq!(super::env_millis("UIDRIVE_TEST_MS_UNSET").unwrap(), None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidrive_core::ErrorCode;

    #[test]
    fn numbers_that_are_no_timeout_are_refused_not_panicked_on() {
        for bad in [1e22, -1.0, f64::NAN, f64::INFINITY, -0.5, f64::MAX] {
            let err = millis("timeout", bad).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidRequest, "{bad}");
            assert!(err.message.contains("timeout is"), "{}", err.message);
            assert!(seconds("timeout", bad).is_err(), "{bad}");
        }
        assert_eq!(millis("t", 1500.0).unwrap(), Duration::from_millis(1500));
        assert_eq!(seconds("t", 0.25).unwrap(), Duration::from_millis(250));
        assert_eq!(millis("t", 0.0).unwrap(), Duration::ZERO);
        assert_eq!(opt_millis("t", None).unwrap(), None);
    }

    #[test]
    fn c_timeouts() {
        assert_eq!(millis_or("t", 0, LAUNCH).unwrap(), LAUNCH);
        assert_eq!(
            millis_or("t", 20, LAUNCH).unwrap(),
            Duration::from_millis(20)
        );
        // The UINT32_MAX, 49 days: refused, saying the longest.
        let err = millis_or("`action_ms`", u32::MAX, LAUNCH).unwrap_err();
        assert!(
            err.message.contains("`action_ms` is 4294967295"),
            "{}",
            err.message
        );
        assert!(err.message.contains("3600000"), "{}", err.message);
        assert_eq!(millis_or("t", 3_600_000, LAUNCH).unwrap(), MAX);
        assert!(whole_millis("t", 3_600_001).is_err());
        assert!(seconds("t", 3600.5).is_err());
        assert_eq!(signed_millis("t", -1, -1).unwrap(), None);
        assert_eq!(
            signed_millis("t", 7, -1).unwrap(),
            Some(Duration::from_millis(7))
        );
        assert!(signed_millis("t", -2, -1).is_err());
        assert!(signed_millis("t", i64::MAX, -1).is_err());
    }
}
