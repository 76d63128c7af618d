//! The integer enums of the ABI. C passes plain integers; each is checked
//! here and turned into core's type, or refused with `invalid_request`.

use uidrive_core::protocol::{Action, MouseButton};
use uidrive_core::{Error, Result};
use uidrive_facade::Backend;

/// `act`'s `press`: what a click or Enter does.
pub const UD_ACTION_PRESS: i32 = 0;
/// `act`'s `focus`.
pub const UD_ACTION_FOCUS: i32 = 1;
/// `act`'s `increment` (a slider or stepper one step up).
pub const UD_ACTION_INCREMENT: i32 = 2;
/// `act`'s `decrement`.
pub const UD_ACTION_DECREMENT: i32 = 3;
/// `act`'s `setValue`: replaces the value with the text given.
pub const UD_ACTION_SET_VALUE: i32 = 4;
/// `act`'s `insertText`: inserts the text given at the caret.
pub const UD_ACTION_INSERT_TEXT: i32 = 5;
/// `act`'s `selectText` (use `ud_select_text`, which takes the range).
pub const UD_ACTION_SELECT_TEXT: i32 = 6;
/// `act`'s `scrollIntoView`.
pub const UD_ACTION_SCROLL_INTO_VIEW: i32 = 7;
/// `act`'s `expand`.
pub const UD_ACTION_EXPAND: i32 = 8;
/// `act`'s `collapse`.
pub const UD_ACTION_COLLAPSE: i32 = 9;

/// The left mouse button.
pub const UD_BUTTON_LEFT: i32 = 0;
/// The right mouse button.
pub const UD_BUTTON_RIGHT: i32 = 1;
/// The middle mouse button.
pub const UD_BUTTON_MIDDLE: i32 = 2;

/// `ud_app_closed_by`: the handle is not closed yet.
pub const UD_CLOSED_NOT_YET: i32 = 0;
/// It closed when its windows were asked to close (`WM_DELETE_WINDOW`).
pub const UD_CLOSED_WINDOWS: i32 = 1;
/// It ended on SIGTERM after its windows were asked and the grace period passed.
pub const UD_CLOSED_TERMINATED: i32 = 2;
/// It ignored both and was killed (SIGKILL).
pub const UD_CLOSED_KILLED: i32 = 3;
/// It had already exited.
pub const UD_CLOSED_EXITED: i32 = 4;
/// uidrive did not launch it: only the connection was closed.
pub const UD_CLOSED_DETACHED: i32 = 5;

/// `ud_desktop_start_with`: an X server (Xvfb) with a window manager, the default.
pub const UD_BACKEND_X11: i32 = 0;
/// `ud_desktop_start_with`: a Wayland compositor (sway, headless).
pub const UD_BACKEND_WAYLAND: i32 = 1;

const ACTIONS: [(i32, Action); 10] = [
    (UD_ACTION_PRESS, Action::Press),
    (UD_ACTION_FOCUS, Action::Focus),
    (UD_ACTION_INCREMENT, Action::Increment),
    (UD_ACTION_DECREMENT, Action::Decrement),
    (UD_ACTION_SET_VALUE, Action::SetValue),
    (UD_ACTION_INSERT_TEXT, Action::InsertText),
    (UD_ACTION_SELECT_TEXT, Action::SelectText),
    (UD_ACTION_SCROLL_INTO_VIEW, Action::ScrollIntoView),
    (UD_ACTION_EXPAND, Action::Expand),
    (UD_ACTION_COLLAPSE, Action::Collapse),
];

pub(crate) fn action(value: i32) -> Result<Action> {
    ACTIONS
        .iter()
        .find(|(number, _)| *number == value)
        .map(|(_, action)| action.clone())
        .ok_or_else(|| {
            Error::invalid_request(format!(
                "`action` is {value}; use a UD_ACTION_* value from {} to {}",
                UD_ACTION_PRESS, UD_ACTION_COLLAPSE
            ))
        })
}

pub(crate) fn button(value: i32) -> Result<MouseButton> {
    match value {
        UD_BUTTON_LEFT => Ok(MouseButton::Left),
        UD_BUTTON_RIGHT => Ok(MouseButton::Right),
        UD_BUTTON_MIDDLE => Ok(MouseButton::Middle),
        _ => Err(Error::invalid_request(format!(
            "`button` is {value}; use UD_BUTTON_LEFT, UD_BUTTON_RIGHT or UD_BUTTON_MIDDLE"
        ))),
    }
}

pub(crate) fn backend(value: i32) -> Result<Backend> {
    match value {
        UD_BACKEND_X11 => Ok(Backend::X11),
        UD_BACKEND_WAYLAND => Ok(Backend::Wayland),
        _ => Err(Error::invalid_request(format!(
            "`backend` is {value}; use UD_BACKEND_X11 or UD_BACKEND_WAYLAND"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_core_action_has_a_number_and_out_of_range_is_refused() {
        assert_eq!(ACTIONS.len(), Action::ALL.len());
        for known in Action::ALL {
            assert!(
                ACTIONS.iter().any(|(_, a)| a == known),
                "{known} has no UD_ACTION_*"
            );
        }
        for (number, expected) in &ACTIONS {
            assert_eq!(&action(*number).unwrap(), expected);
        }
        for bad in [-1, 10, i32::MAX, i32::MIN] {
            let err = action(bad).unwrap_err();
            assert_eq!(err.code, uidrive_core::ErrorCode::InvalidRequest);
        }
        for bad in [-1, 3, i32::MIN] {
            assert!(button(bad).is_err());
        }
        assert_eq!(button(UD_BUTTON_RIGHT).unwrap(), MouseButton::Right);
        assert_eq!(backend(UD_BACKEND_WAYLAND).unwrap(), Backend::Wayland);
        for bad in [-1, 2, i32::MAX] {
            assert!(backend(bad).is_err());
        }
    }
}
