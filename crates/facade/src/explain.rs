//! Errors that say more than the call that failed could: a locator that
//! found nothing in one window names the app's windows, so a test that looks
//! in the old window after a new one opened (a dialog, gtk4-demo's Run) sees
//! at once that there is another.

use uidrive_core::{App, Error, ErrorCode, Term};

const MARK: &str = "; the app's windows:";

/// `error`, and for a `no_element` whose windows were not named yet
/// ([`uidrive_core::Details::windows`]), the windows of `app` (the focused
/// one marked), with a suggestion to search another when there are several.
pub fn name_windows(mut error: Error, app: &App) -> Error {
    if error.code != ErrorCode::NoElement || error.details.windows.is_some() {
        return error;
    }
    let Ok(list) = app.windows() else {
        return error;
    };
    error.details.windows = Some(list.windows.iter().map(|w| w.id).collect());
    let windows: Vec<String> = list
        .windows
        .iter()
        .map(|w| {
            let focused = if w.focused { ", focused" } else { "" };
            format!("{} {:?} ({}{focused})", w.id, w.title, w.kind)
        })
        .collect();
    if windows.is_empty() {
        error.message.push_str(&format!("{MARK} none"));
        return error;
    }
    error
        .message
        .push_str(&format!("{MARK} {}", windows.join(", ")));
    if list.windows.len() > 1 {
        error.suggestion = format!(
            "the element may be in another window: search it with App::window(id) or by its title; {}",
            error.suggestion
        );
        error = error.mentioning(Term::AppWindow);
    }
    error
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use uidrive_core::MemoryDriver;

    #[test]
    fn a_locator_that_found_nothing_names_the_windows() {
        let app = App::new(Arc::new(MemoryDriver::new()));
        let err = Error::no_element(
            "click: no element matches get_by_key(\"x\") in the focused window after 1 s",
        );
        let named = name_windows(err, &app);
        assert!(
            named.message.contains("the app's windows: "),
            "{}",
            named.message
        );
        let ids: Vec<u64> = app
            .windows()
            .unwrap()
            .windows
            .iter()
            .map(|w| w.id)
            .collect();
        assert_eq!(named.details.windows, Some(ids), "the details say so");
        let again = name_windows(named.clone(), &app);
        assert_eq!(again.message, named.message, "named once");
        // Whether they were named is read from the details, not the words.
        let mut told = Error::no_element("x; the app's windows: 1 \"A\"");
        assert!(name_windows(told.clone(), &app).details.windows.is_some());
        told.details.windows = Some(vec![1]);
        assert_eq!(name_windows(told.clone(), &app), told);
        let other = name_windows(Error::timeout("t"), &app);
        assert_eq!(other.message, "t");
    }
}
