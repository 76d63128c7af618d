//! The one JSON shape of an action's outcome, for every front end (core's
//! `ActionOutcome` writes it; see `uidrive_core::locator` and docs/locators.md):
//!
//! ```json
//! {"route": "semantic:press", "effect": "confirmed", "observed": "window 2 closed",
//!  "window": 1, "element": {"id": "...", "role": "button", ...}, "closed": [2]}
//! ```
//!
//! `route` is `semantic:<action>` (the element's own action, as assistive
//! technology performs it), `input` (real pointer or key input), or
//! `not_needed` (nothing had to be done: already checked, already in view).
//! `effect` is `confirmed` (the tree showed the change the action is for,
//! said in `observed`) or `unverifiable` (nothing the tree shows can prove
//! it; `checked` says what was looked at). `element` is the node acted on,
//! as the protocol's `tree` writes nodes, as last read. `closed` lists the
//! windows that went with the action, when any did.

use serde_json::Value;
use uidrive_core::{ActionOutcome, Error, Result, Route};

/// The route as one word: `semantic:press`, `input` or `not_needed`.
pub fn route(route: &Route) -> String {
    route.as_str()
}

/// The outcome as JSON.
pub fn to_json(outcome: &ActionOutcome) -> Result<Value> {
    serde_json::to_value(outcome)
        .map_err(|e| Error::failed(format!("could not write the outcome as JSON: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidrive_core::protocol::{Action, Node};
    use uidrive_core::Effect;

    #[test]
    fn one_shape() {
        let outcome = ActionOutcome {
            route: Route::Semantic(Action::Press),
            effect: Effect::Confirmed("window 2 closed".into()),
            element: Node::default(),
            window: 3,
            closed: vec![2],
        };
        let json = to_json(&outcome).unwrap();
        assert_eq!(json["route"], "semantic:press");
        assert_eq!(json["effect"], "confirmed");
        assert_eq!(json["observed"], "window 2 closed");
        assert_eq!(json["window"], 3);
        assert_eq!(json["closed"], serde_json::json!([2]));
        assert!(json["element"].is_object());
        assert_eq!(route(&Route::NotNeeded), "not_needed");
        assert_eq!(route(&Route::Input), "input");
    }
}
