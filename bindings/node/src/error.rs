//! uidrive's errors as JavaScript `Error` objects with `code`, `message` and `suggestion`.

use napi::bindgen_prelude::{JsObjectValue, ToNapiValue};
use napi::{Env, Status};
use uidrive_core::Error as CoreError;

/// A JavaScript `Error` built from a core error, ready to throw or to reject a Promise with.
pub fn to_js(env: &Env, err: &CoreError) -> napi::Error {
    build(env, err).unwrap_or_else(|fallback| fallback)
}

fn build(env: &Env, err: &CoreError) -> Result<napi::Error, napi::Error> {
    // Suggestions in JavaScript's terms (headless(), not uidrive_x11::Desktop).
    let err = &uidrive_facade::hints::localize(err.clone(), uidrive_facade::hints::Lang::Node);
    let mut object = env.create_error(napi::Error::new(
        Status::GenericFailure,
        err.message.clone(),
    ))?;
    object.set_named_property("code", err.code.as_str())?;
    object.set_named_property("suggestion", err.suggestion.as_str())?;
    Ok(napi::Error::from(object.into_unknown(env)?))
}

/// A core `invalid_request` for arguments JavaScript passed in a shape the API does not take.
pub fn invalid_argument(what: &str, problem: impl std::fmt::Display) -> CoreError {
    CoreError::invalid_request(format!("{what}: {problem}"))
}

/// Runs a synchronous step and throws its error, if any, as a uidrive `Error`.
pub fn sync<T>(env: &Env, result: uidrive_core::Result<T>) -> napi::Result<T> {
    result.map_err(|e| to_js(env, &e))
}
