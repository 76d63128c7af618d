//! Pointer actions on visual targets (`ocr=`, `image=`): the box is found on
//! the window's capture by the same ladder as any element (found, visible,
//! one match, steady between two captures), real input goes to its centre,
//! and the effect is looked for in the pixels, as nothing else shows it.

use super::effect::{ActionOutcome, Effect, Route};
use super::ladder::Needs;
use super::matching::{Selector, Step};
use super::Locator;
use crate::error::Result;
use crate::protocol::{CaptureParams, InputEvent, InputParams, WindowId};
use crate::visual::VisualQuery;
use std::time::{Duration, Instant};

/// How long a pointer action on a visual target looks for the pixels to change.
const LOOK_FOR: Duration = Duration::from_millis(1500);

impl Locator {
    /// The visual query this locator starts with, if it is a visual target.
    pub(crate) fn visual_query(&self) -> Option<&VisualQuery> {
        match self.steps.first() {
            Some(Step::Find(Selector::Visual(query))) => Some(query),
            _ => None,
        }
    }

    /// A pointer action at the visual target's centre: `events` made for
    /// that point (window coordinates). `looks` says whether a change of
    /// the window's pixels confirms it (not for a hover).
    pub(crate) fn visual_pointer(
        &self,
        what: &str,
        needs: Needs,
        looks: bool,
        events: impl Fn((f64, f64)) -> Vec<InputEvent>,
    ) -> Result<ActionOutcome> {
        let mut poller = self.poller(self.action_timeout());
        let ready = self.wait_ready(what, needs, &mut poller)?;
        let node = ready.node().clone();
        let window = ready.window();
        let centre = node.bounds.map(|b| b.center()).unwrap_or_default();
        let before = self.pixels(window);
        self.driver.input(&InputParams {
            window: Some(window),
            events: events(centre),
            hold: false,
        })?;
        let at = format!("({}, {})", centre.0, centre.1);
        let effect = if !looks {
            Effect::Unverifiable(format!(
                "the pointer was moved to {at}, the centre of what the capture showed; what hovering shows comes later, if at all"
            ))
        } else if self.pixels_change(window, before) {
            Effect::Confirmed(format!(
                "the window's pixels changed after the {what} at {at}"
            ))
        } else {
            Effect::Unverifiable(format!(
                "the {what} at {at} left the window's pixels as they were for {} ms; an app without a tree shows nothing else to check",
                LOOK_FOR.as_millis()
            ))
        };
        Ok(ActionOutcome {
            route: Route::Input,
            effect,
            element: node,
            window,
            closed: Vec::new(),
        })
    }

    fn pixels(&self, window: WindowId) -> Option<Vec<u8>> {
        self.driver
            .capture(&CaptureParams {
                window: Some(window),
            })
            .ok()
            .map(|c| c.png)
    }

    /// Whether the window's pixels differ from `before` within [`LOOK_FOR`].
    fn pixels_change(&self, window: WindowId, before: Option<Vec<u8>>) -> bool {
        let Some(before) = before else {
            return false;
        };
        let until = Instant::now() + LOOK_FOR;
        while Instant::now() < until {
            if self.pixels(window).is_some_and(|now| now != before) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }
}
