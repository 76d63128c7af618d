//! The functions the facade brought to the C ABI, against the in-memory
//! driver: refs, window roots, the new locator operations, names and
//! timeouts checked at once, and the hardening rules for each.

use crate::*;
use std::ffi::{c_char, CStr};
use std::ptr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use uidrive_core::protocol::ElementKey;
use uidrive_core::{App, MemoryDriver};

struct Handle(*mut ud_app);

impl Drop for Handle {
    fn drop(&mut self) {
        unsafe { ud_app_free(self.0) }
    }
}

fn memory() -> (Handle, Arc<MemoryDriver>) {
    let driver = Arc::new(MemoryDriver::new());
    let app = App::new(driver.clone());
    (Handle(crate::app::into_handle(app)), driver)
}

fn last_message() -> String {
    unsafe { CStr::from_ptr(ud_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

fn take_string(ptr: *mut c_char) -> String {
    assert!(!ptr.is_null());
    let text = unsafe { CStr::from_ptr(ptr) }.to_str().unwrap().to_string();
    unsafe { ud_string_free(ptr) };
    text
}

fn stale<T>() -> *mut T {
    ptr::NonNull::dangling().as_ptr()
}

/// Runs a call that makes a locator and answers it (freed by the caller).
fn made(call: impl FnOnce(*mut *mut ud_locator) -> ud_status) -> *mut ud_locator {
    let mut out = stale();
    assert_eq!(call(&mut out), UD_OK, "{}", last_message());
    out
}

#[test]
fn snapshots_and_refs_resolve_at_once_and_fail_closed() {
    let (app, driver) = memory();
    unsafe {
        let mut text = stale();
        assert_eq!(ud_app_snapshot(app.0, false, &mut text), UD_OK);
        let text = take_string(text);
        let line = text
            .lines()
            .find(|l| l.contains("Count"))
            .expect("the count's line");
        let r = line
            .split_whitespace()
            .find(|w| w.starts_with("@e"))
            .unwrap();
        let r = std::ffi::CString::new(r).unwrap();
        let count = made(|out| ud_app_get_by_ref(app.0, r.as_ptr(), out));
        let mut shown = stale();
        assert_eq!(ud_locator_text(count, &mut shown), UD_OK);
        assert!(take_string(shown).starts_with("Count"));
        ud_locator_free(count);

        // The element goes: its ref is stale at once, not after the action timeout.
        driver.edit(|ui| {
            ui.windows[0]
                .nodes
                .retain(|n| n.key != Some(ElementKey::from("count")))
        });
        let started = Instant::now();
        let mut locator = stale();
        assert_eq!(
            ud_app_get_by_ref(app.0, r.as_ptr(), &mut locator),
            UD_ERR_STALE_REF
        );
        assert!(locator.is_null());
        assert!(started.elapsed() < Duration::from_secs(2));
        assert_eq!(
            ud_app_get_by_ref(app.0, c"@e99999".as_ptr(), &mut locator),
            UD_ERR_STALE_REF
        );
        assert_eq!(
            ud_app_get_by_ref(app.0, c"e0".as_ptr(), &mut locator),
            UD_ERR_INVALID_REQUEST
        );
        assert_eq!(
            ud_app_get_by_ref(app.0, ptr::null(), &mut locator),
            UD_ERR_INVALID_REQUEST
        );
        let mut text = stale();
        assert_eq!(
            ud_app_snapshot_window(app.0, 999, true, &mut text),
            UD_ERR_NO_WINDOW
        );
        assert!(text.is_null());
    }
}

#[test]
fn unknown_names_and_bad_timeouts_are_refused_at_once() {
    let (app, _) = memory();
    unsafe {
        let mut locator = stale();
        assert_eq!(
            ud_app_get_by_role(app.0, c"buton".as_ptr(), ptr::null(), 0, &mut locator),
            UD_ERR_INVALID_REQUEST
        );
        assert!(locator.is_null());
        assert!(CStr::from_ptr(ud_last_error_suggestion())
            .to_str()
            .unwrap()
            .contains("\"button\""));
        let add = made(|out| ud_app_get_by_key(app.0, c"add".as_ptr(), out));
        assert_eq!(
            ud_locator_get_by_role(add, c"textfield".as_ptr(), ptr::null(), 0, &mut locator),
            UD_ERR_INVALID_REQUEST
        );
        assert_eq!(
            ud_expect_has_state(add, c"chekced".as_ptr(), false, 100),
            UD_ERR_INVALID_REQUEST
        );
        assert_eq!(
            ud_expect_has_state(add, c"disabled".as_ptr(), true, 2000),
            UD_OK,
            "{}",
            last_message()
        );
        assert_eq!(
            ud_expect_state(add, UD_EXPECT_VISIBLE, false, i64::MAX),
            UD_ERR_INVALID_REQUEST
        );
        assert_eq!(ud_idle(app.0, 0, -5), UD_ERR_INVALID_REQUEST);
        ud_locator_free(add);
    }
}

#[test]
fn windows_are_starting_points_not_elements() {
    let (app, _) = memory();
    unsafe {
        let window = made(|out| ud_app_window(app.0, UD_WINDOW_DEFAULT, out));
        let mut outcome = stale();
        assert_eq!(
            ud_locator_click(window, &mut outcome),
            UD_ERR_INVALID_REQUEST
        );
        assert!(outcome.is_null());
        let add = made(|out| ud_locator_get_by_key(window, c"add".as_ptr(), out));
        let mut pressed = stale();
        assert_eq!(ud_locator_activate(add, &mut pressed), UD_OK);
        assert!(take_string(pressed).contains("\"route\":\"semantic:press\""));
        let titled =
            made(|out| ud_app_window_titled(app.0, c"Counter".as_ptr(), UD_MATCH_EXACT, out));
        let count = made(|out| ud_locator_get_by_key(titled, c"count".as_ptr(), out));
        assert_eq!(
            ud_expect_text(count, c"Count: 1".as_ptr(), UD_MATCH_EXACT, false, 2000),
            UD_OK,
            "{}",
            last_message()
        );
        let mut description = stale();
        assert_eq!(ud_locator_description(titled, &mut description), UD_OK);
        assert_eq!(take_string(description), "a window");
        for l in [window, add, titled, count] {
            ud_locator_free(l);
        }
    }
}

#[test]
fn refinements_reads_and_actions() {
    let (app, _) = memory();
    unsafe {
        let items = made(|out| ud_app_locator(app.0, c"role=listItem".as_ptr(), out));
        let first = made(|out| ud_locator_first(items, out));
        let last = made(|out| ud_locator_last(items, out));
        let mut a = stale();
        let mut b = stale();
        assert_eq!(ud_locator_text(first, &mut a), UD_OK);
        assert_eq!(ud_locator_text(last, &mut b), UD_OK);
        assert_ne!(take_string(a), take_string(b));
        let mut count = 7;
        let one = made(|out| {
            ud_locator_filter(
                items,
                c"cherry".as_ptr(),
                ptr::null(),
                ptr::null(),
                ptr::null(),
                UD_MATCH_SUBSTRING,
                out,
            )
        });
        assert_eq!(ud_locator_count(one, &mut count), UD_OK);
        assert_eq!(count, 1);
        // A freed or made-up locator as a filter is refused, never read.
        let mut refused = stale();
        assert_eq!(
            ud_locator_filter(
                items,
                ptr::null(),
                ptr::null(),
                stale(),
                ptr::null(),
                0,
                &mut refused
            ),
            UD_ERR_INVALID_REQUEST
        );
        assert!(refused.is_null());

        let name = made(|out| ud_app_get_by_key(app.0, c"name".as_ptr(), out));
        assert_eq!(
            ud_locator_fill(name, c"Ada".as_ptr(), ptr::null_mut()),
            UD_OK
        );
        assert_eq!(
            ud_locator_type(name, c" L".as_ptr(), ptr::null_mut()),
            UD_OK,
            "{}",
            last_message()
        );
        // The keyboard types into the focused element: the field, once focused.
        assert_eq!(
            ud_locator_focus(name, ptr::null_mut()),
            UD_OK,
            "{}",
            last_message()
        );
        let mut typed = stale();
        assert_eq!(
            ud_keyboard_type(app.0, 0, c"?".as_ptr(), 0, &mut typed),
            UD_OK,
            "{}",
            last_message()
        );
        let typed = take_string(typed);
        assert!(typed.contains("\"effect\":\"confirmed\""), "{typed}");
        let mut pressed = stale();
        assert_eq!(
            ud_keyboard_press(app.0, 0, c"F5".as_ptr(), &mut pressed),
            UD_OK,
            "{}",
            last_message()
        );
        let pressed = take_string(pressed);
        assert!(pressed.contains("\"effect\":\"unverifiable\""), "{pressed}");
        assert_eq!(
            ud_keyboard_type(app.0, 0, c"".as_ptr(), 20_000, ptr::null_mut()),
            UD_ERR_INVALID_REQUEST
        );
        assert_eq!(
            ud_locator_press_sequentially(name, c"!".as_ptr(), 5, ptr::null_mut()),
            UD_OK,
            "{}",
            last_message()
        );
        let mut has = false;
        let mut value = stale();
        assert_eq!(ud_locator_value(name, &mut has, &mut value), UD_OK);
        assert!(has);
        assert_eq!(take_string(value), "Ada L?!");
        let mut flag = false;
        assert_eq!(ud_locator_is_enabled(name, &mut flag), UD_OK);
        assert!(flag);
        assert_eq!(ud_locator_is_hidden(name, &mut flag), UD_OK);
        assert!(!flag);
        let mut json = stale();
        assert_eq!(ud_locator_states(name, &mut json), UD_OK);
        assert!(take_string(json).starts_with('['));
        let mut json = stale();
        assert_eq!(ud_locator_bounds(name, &mut json), UD_OK);
        assert!(take_string(json).contains("width"));

        let subscribe =
            made(|out| ud_app_get_by_role(app.0, c"checkBox".as_ptr(), ptr::null(), 0, out));
        let mut outcome = stale();
        assert_eq!(
            ud_locator_check(subscribe, &mut outcome),
            UD_OK,
            "{}",
            last_message()
        );
        let outcome = take_string(outcome);
        assert!(outcome.contains("\"route\":"), "{outcome}");
        assert_eq!(ud_locator_is_checked(subscribe, &mut flag), UD_OK);
        assert!(flag);
        let mut outcome = stale();
        assert_eq!(ud_locator_check(subscribe, &mut outcome), UD_OK);
        assert!(take_string(outcome).contains("\"route\":\"not_needed\""));
        assert_eq!(ud_locator_uncheck(subscribe, ptr::null_mut()), UD_OK);
        assert_eq!(
            ud_expect_state(subscribe, UD_EXPECT_CHECKED, true, 2000),
            UD_OK
        );
        for l in [items, first, last, one, name, subscribe] {
            ud_locator_free(l);
        }
    }
}

#[test]
fn out_params_of_the_new_functions_are_zeroed_before_any_check() {
    unsafe {
        let mut app = stale();
        let mut json = stale();
        let mut locator = stale();
        ud_desktop_env(ptr::null(), &mut json);
        assert!(json.is_null());
        ud_desktop_launch(ptr::null(), ptr::null(), 0, &mut app);
        assert!(app.is_null());
        app = stale();
        ud_launch_app(ptr::null(), ptr::null(), 0, &mut app);
        assert!(app.is_null());
        app = stale();
        assert_eq!(
            ud_attach_pid(0, ptr::null(), 0, &mut app),
            UD_ERR_INVALID_REQUEST
        );
        assert!(app.is_null());
        app = stale();
        assert_eq!(
            ud_attach_name(ptr::null(), ptr::null(), 0, &mut app),
            UD_ERR_INVALID_REQUEST
        );
        assert!(app.is_null());
        ud_app_get_by_ref(ptr::null(), c"@e1".as_ptr(), &mut locator);
        assert!(locator.is_null());
        let mut action = 5;
        let mut expect = 5;
        assert_eq!(
            ud_app_timeouts(ptr::null(), &mut action, &mut expect),
            UD_ERR_INVALID_REQUEST
        );
        assert_eq!((action, expect), (0, 0));
        assert_eq!(
            ud_desktop_start(0, 0, 0, ptr::null_mut()),
            UD_ERR_INVALID_REQUEST
        );
        ud_desktop_free(ptr::null_mut());
    }
}

#[test]
fn timeouts_read_back_in_milliseconds() {
    let (app, _) = memory();
    unsafe {
        assert_eq!(ud_app_set_timeouts(app.0, 1234, 0), UD_OK);
        let (mut action, mut expect) = (0, 0);
        assert_eq!(ud_app_timeouts(app.0, &mut action, &mut expect), UD_OK);
        assert_eq!(action, 1234);
        assert_eq!(expect, 5000);
    }
}

/// Issue 30: a timeout of 49 days (`UINT32_MAX` ms) and a 10 MB chord are
/// refused, and the error a caller reads back stays short.
#[test]
fn timeouts_chords_and_error_messages_are_bounded() {
    let (app, _) = memory();
    unsafe {
        assert_eq!(
            ud_app_set_timeouts(app.0, u32::MAX, 0),
            UD_ERR_INVALID_REQUEST
        );
        assert!(last_message().contains("3600000"), "{}", last_message());
        let (mut action, mut expect) = (0, 0);
        assert_eq!(ud_app_timeouts(app.0, &mut action, &mut expect), UD_OK);
        assert_eq!(action, 10_000, "the refused timeout changed nothing");
        assert_eq!(ud_app_set_timeouts(app.0, 3_600_000, 0), UD_OK);
        let huge = std::ffi::CString::new("Ctrl+".repeat(2_000_000) + "a").unwrap();
        assert_eq!(
            ud_press_key(app.0, 0, huge.as_ptr()),
            UD_ERR_INVALID_REQUEST
        );
        let message = last_message();
        assert!(message.len() < 400, "{} bytes", message.len());
        assert!(message.contains("at most 64"), "{message}");
    }
}

#[test]
fn a_launched_process_says_how_it_ended_even_after_close() {
    let child = std::process::Command::new("sh")
        .args(["-c", "exit 3"])
        .spawn()
        .unwrap();
    let app = App::with_process(Arc::new(MemoryDriver::new()), child);
    let app = Handle(crate::app::into_handle(app));
    unsafe {
        let mut code = 7;
        assert_eq!(
            ud_app_wait(app.0, 5000, &mut code),
            UD_OK,
            "{}",
            last_message()
        );
        assert_eq!(code, 3);
        let mut text = stale();
        assert_eq!(
            ud_app_output(app.0, false, &mut text),
            UD_ERR_INVALID_REQUEST
        );
        assert!(text.is_null());
        assert_eq!(ud_app_close(app.0), UD_OK);
        let (mut exited, mut code) = (false, 0);
        assert_eq!(ud_app_exit_code(app.0, &mut exited, &mut code), UD_OK);
        assert!(exited);
        assert_eq!(code, 3);
    }
    // An app uidrive did not launch has no process to ask about.
    let (connected, _) = memory();
    unsafe {
        let (mut exited, mut code) = (true, 5);
        assert_eq!(
            ud_app_exit_code(connected.0, &mut exited, &mut code),
            UD_ERR_INVALID_REQUEST
        );
        assert_eq!((exited, code), (false, 0));
    }
}
