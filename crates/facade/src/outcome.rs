//! The one JSON shape of an action's outcome, for every front end:
//!
//! ```json
//! {"route": "semantic:press", "window": 1, "element": {"id": "...", "role": "button", ...}}
//! ```
//!
//! `route` is `semantic:<action>` (the element's own action, as assistive
//! technology performs it), `input` (real pointer or key input), or
//! `not_needed` (nothing had to be done: already checked, already in view).
//! `element` is the node acted on, as the protocol's `tree` writes nodes.

use serde_json::{json, Value};
use uidrive_core::{ActionOutcome, Error, Result, Route};

/// The route as one word: `semantic:press`, `input` or `not_needed`.
pub fn route(route: &Route) -> String {
    match route {
        Route::Semantic(action) => format!("semantic:{action}"),
        Route::Input => "input".to_string(),
        Route::NotNeeded => "not_needed".to_string(),
    }
}

/// The outcome as JSON.
pub fn to_json(outcome: &ActionOutcome) -> Result<Value> {
    let element = serde_json::to_value(&outcome.element)
        .map_err(|e| Error::failed(format!("could not write the element as JSON: {e}")))?;
    Ok(json!({
        "route": route(&outcome.route),
        "window": outcome.window,
        "element": element,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidrive_core::protocol::{Action, Node};

    #[test]
    fn one_shape() {
        let outcome = ActionOutcome {
            route: Route::Semantic(Action::Press),
            element: Node::default(),
            window: 3,
        };
        let json = to_json(&outcome).unwrap();
        assert_eq!(json["route"], "semantic:press");
        assert_eq!(json["window"], 3);
        assert!(json["element"].is_object());
        assert_eq!(route(&Route::NotNeeded), "not_needed");
        assert_eq!(route(&Route::Input), "input");
    }
}
