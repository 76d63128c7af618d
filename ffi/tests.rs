//! The hardening rules, each with its own test, against the in-memory driver.
//! (End-to-end tests against a real `uidrive serve` are in tests/c_abi.)

use crate::*;
use std::ffi::{c_char, CStr, CString};
use std::ptr;
use std::sync::Arc;
use uidrive_core::memory::Faults;
use uidrive_core::{App, Error, ErrorCode, MemoryDriver};

/// A handle freed when the test ends.
struct Handle(*mut ud_app);

impl Handle {
    fn memory() -> (Handle, Arc<MemoryDriver>) {
        let driver = Arc::new(MemoryDriver::new());
        let app = App::new(driver.clone());
        (Handle(crate::app::into_handle(app)), driver)
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        unsafe { ud_app_free(self.0) }
    }
}

// The handle is shared by reference between threads in the concurrency test.
unsafe impl Send for Handle {}
unsafe impl Sync for Handle {}

fn last_message() -> String {
    unsafe { CStr::from_ptr(ud_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

fn last_code_name() -> String {
    unsafe { CStr::from_ptr(ud_last_error_code_name()) }
        .to_string_lossy()
        .into_owned()
}

fn take_string(ptr: *mut c_char) -> String {
    assert!(!ptr.is_null());
    let text = unsafe { CStr::from_ptr(ptr) }.to_str().unwrap().to_string();
    unsafe { ud_string_free(ptr) };
    text
}

/// A pointer value the caller might have left in its variable.
fn stale<T>() -> *mut T {
    ptr::NonNull::dangling().as_ptr()
}

#[test]
fn a_panic_inside_is_trapped_and_reported_as_failed() {
    let mut value = 7;
    let status = unsafe { ud_test_panic(&mut value) };
    assert_eq!(status, UD_ERR_FAILED);
    assert_eq!(value, 0, "the out-param is zeroed before the panic");
    assert_eq!(ud_last_error_code(), UD_ERR_FAILED);
    assert!(last_message().contains("panicked"), "{}", last_message());
    assert!(last_message().contains("deliberate"));
    // NULL out-param: still trapped.
    assert_eq!(unsafe { ud_test_panic(ptr::null_mut()) }, UD_ERR_FAILED);
}

#[test]
fn out_params_are_zeroed_before_any_check() {
    // Every check fails here (NULL app or NULL path), yet each out-param is cleared.
    let mut json: *mut c_char = stale();
    assert_eq!(
        unsafe { ud_windows(ptr::null(), &mut json) },
        UD_ERR_INVALID_REQUEST
    );
    assert!(json.is_null());

    let mut json: *mut c_char = stale();
    assert_eq!(
        unsafe { ud_tree(ptr::null(), 0, &mut json) },
        UD_ERR_INVALID_REQUEST
    );
    assert!(json.is_null());

    let mut json: *mut c_char = stale();
    let status = unsafe { ud_call(ptr::null(), ptr::null(), ptr::null(), &mut json) };
    assert_eq!(status, UD_ERR_INVALID_REQUEST);
    assert!(json.is_null());

    let mut json: *mut c_char = stale();
    let status = unsafe { ud_eval(ptr::null(), 0, ptr::null(), &mut json) };
    assert_eq!(status, UD_ERR_INVALID_REQUEST);
    assert!(json.is_null());

    let mut app: *mut ud_app = stale();
    assert_eq!(
        unsafe { ud_connect(ptr::null(), &mut app) },
        UD_ERR_INVALID_REQUEST
    );
    assert!(app.is_null());

    let mut app: *mut ud_app = stale();
    let status = unsafe { ud_launch(ptr::null(), ptr::null(), ptr::null(), 0, &mut app) };
    assert_eq!(status, UD_ERR_INVALID_REQUEST);
    assert!(app.is_null());

    let mut pid = 99u32;
    assert_eq!(
        unsafe { ud_app_pid(ptr::null(), &mut pid) },
        UD_ERR_INVALID_REQUEST
    );
    assert_eq!(pid, 0);

    let (mut png, mut len, mut width, mut height) = (stale::<u8>(), 5usize, 6u32, 7u32);
    let status = unsafe { ud_capture(ptr::null(), 0, &mut png, &mut len, &mut width, &mut height) };
    assert_eq!(status, UD_ERR_INVALID_REQUEST);
    assert!(png.is_null());
    assert_eq!((len, width, height), (0, 0, 0));
}

#[test]
fn a_null_out_param_is_refused() {
    let (app, _) = Handle::memory();
    assert_eq!(
        unsafe { ud_windows(app.0, ptr::null_mut()) },
        UD_ERR_INVALID_REQUEST
    );
    assert!(last_message().contains("out_json"), "{}", last_message());
    let mut len = 0usize;
    let status = unsafe {
        ud_capture(
            app.0,
            0,
            ptr::null_mut(),
            &mut len,
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    assert_eq!(status, UD_ERR_INVALID_REQUEST);
    assert!(last_message().contains("out_png"));
}

#[test]
fn null_pointers_are_refused_with_invalid_request() {
    let (app, _) = Handle::memory();
    let add = c"add";
    let cases: Vec<(&str, ud_status)> = unsafe {
        vec![
            (
                "app",
                ud_act_by_key(ptr::null(), 0, add.as_ptr(), UD_ACTION_PRESS, ptr::null()),
            ),
            (
                "key",
                ud_act_by_key(app.0, 0, ptr::null(), UD_ACTION_PRESS, ptr::null()),
            ),
            (
                "element_id",
                ud_act(app.0, 0, ptr::null(), UD_ACTION_PRESS, ptr::null()),
            ),
            ("element_id", ud_select_text(app.0, 0, ptr::null(), 0, 1)),
            ("events_json", ud_input(app.0, 0, ptr::null())),
            ("text", ud_type_text(app.0, 0, ptr::null())),
            ("chord", ud_press_key(app.0, 0, ptr::null())),
            ("path", ud_menu(app.0, 0, ptr::null())),
            (
                "method",
                ud_call(app.0, ptr::null(), ptr::null(), &mut ptr::null_mut()),
            ),
            ("app", ud_idle(ptr::null(), 0, 10)),
            ("app", ud_app_close(ptr::null())),
            ("app", ud_click(ptr::null(), 0, 1.0, 1.0, UD_BUTTON_LEFT, 1)),
        ]
    };
    for (what, status) in cases {
        assert_eq!(status, UD_ERR_INVALID_REQUEST, "NULL {what}");
    }
    let path = [ptr::null::<c_char>()];
    assert_eq!(
        unsafe { ud_menu(app.0, 0, path.as_ptr()) },
        UD_ERR_INVALID_REQUEST
    );
    assert!(last_message().contains("menu.path"), "{}", last_message());
}

#[test]
fn invalid_utf8_is_refused_with_invalid_request() {
    let (app, _) = Handle::memory();
    let bad = CString::new(vec![b'a', 0xff, 0xfe]).unwrap();
    let mut out: *mut c_char = stale();
    let bad = bad.as_ptr();
    let app = app.0;
    let out = &mut out;
    type Call<'a> = Box<dyn Fn() -> ud_status + 'a>;
    let cases: Vec<(&str, Call)> = vec![
        (
            "socket_path",
            Box::new(|| unsafe { ud_connect(bad, &mut ptr::null_mut()) }),
        ),
        (
            "key",
            Box::new(|| unsafe { ud_act_by_key(app, 0, bad, UD_ACTION_PRESS, ptr::null()) }),
        ),
        (
            "text",
            Box::new(|| unsafe {
                ud_act_by_key(app, 0, c"name".as_ptr(), UD_ACTION_SET_VALUE, bad)
            }),
        ),
        ("text", Box::new(|| unsafe { ud_type_text(app, 0, bad) })),
        (
            "method",
            Box::new(|| unsafe { ud_call(app, bad, ptr::null(), &mut ptr::null_mut()) }),
        ),
        (
            "params_json",
            Box::new(|| unsafe { ud_call(app, c"windows".as_ptr(), bad, &mut ptr::null_mut()) }),
        ),
        (
            "script",
            Box::new(|| unsafe { ud_eval(app, 0, bad, &mut ptr::null_mut()) }),
        ),
    ];
    for (what, call) in cases {
        assert_eq!(call(), UD_ERR_INVALID_REQUEST, "{what}");
        assert!(last_message().contains(what), "{what}: {}", last_message());
        assert!(
            last_message().contains("UTF-8"),
            "{what}: {}",
            last_message()
        );
    }
    assert_eq!(unsafe { ud_eval(app, 0, bad, out) }, UD_ERR_INVALID_REQUEST);
    assert!(out.is_null());
    let path = [c"File".as_ptr(), bad, ptr::null()];
    assert_eq!(
        unsafe { ud_menu(app, 0, path.as_ptr()) },
        UD_ERR_INVALID_REQUEST
    );
    assert!(last_message().contains("path[1]"), "{}", last_message());
}

#[test]
fn out_of_range_enum_integers_are_refused_with_invalid_request() {
    let (app, driver) = Handle::memory();
    for action in [-1, 10, 1000, i32::MIN, i32::MAX] {
        let status = unsafe { ud_act_by_key(app.0, 0, c"add".as_ptr(), action, ptr::null()) };
        assert_eq!(status, UD_ERR_INVALID_REQUEST, "action {action}");
        assert!(last_message().contains("UD_ACTION_"));
    }
    for button in [-1, 3, i32::MAX] {
        let status = unsafe { ud_click(app.0, 0, 10.0, 10.0, button, 1) };
        assert_eq!(status, UD_ERR_INVALID_REQUEST, "button {button}");
        assert!(last_message().contains("UD_BUTTON_"));
    }
    assert_eq!(unsafe { ud_idle(app.0, 0, -2) }, UD_ERR_INVALID_REQUEST);
    // Nothing reached the app.
    assert!(driver.edit(|ui| ui.log.is_empty()));
}

#[test]
fn malformed_json_is_refused_with_invalid_request() {
    let (app, driver) = Handle::memory();
    let mut out: *mut c_char = stale();
    let cases = [
        (c"windows", c"{not json"),
        (c"windows", c"[1, 2]"),
        (c"tree", c"\"window\""),
    ];
    for (method, params) in cases {
        let status = unsafe { ud_call(app.0, method.as_ptr(), params.as_ptr(), &mut out) };
        assert_eq!(status, UD_ERR_INVALID_REQUEST, "{params:?}");
        assert!(last_message().contains("params_json"), "{}", last_message());
        assert!(out.is_null());
    }
    for events in [
        c"{not json",
        c"{\"type\":\"click\"}",
        c"[{\"type\":\"teleport\"}]",
        c"[]",
    ] {
        assert_eq!(
            unsafe { ud_input(app.0, 0, events.as_ptr()) },
            UD_ERR_INVALID_REQUEST,
            "{events:?}"
        );
    }
    assert!(driver.edit(|ui| ui.log.is_empty()));
}

#[test]
fn last_error_is_per_thread_and_outlives_successful_calls() {
    let (app, _) = Handle::memory();
    let app = &app;
    std::thread::scope(|scope| {
        let no_window = scope.spawn(move || {
            let mut json = ptr::null_mut();
            assert_eq!(unsafe { ud_tree(app.0, 42, &mut json) }, UD_ERR_NO_WINDOW);
            let message = ud_last_error_message();
            let suggestion = ud_last_error_suggestion();
            // Successful calls on this thread leave the last error and its pointers alone.
            for _ in 0..3 {
                assert_eq!(unsafe { ud_windows(app.0, &mut json) }, UD_OK);
                unsafe { ud_string_free(json) };
            }
            assert_eq!(ud_last_error_code(), UD_ERR_NO_WINDOW);
            assert_eq!(ud_last_error_message(), message);
            let message = unsafe { CStr::from_ptr(message) }
                .to_str()
                .unwrap()
                .to_string();
            let suggestion = unsafe { CStr::from_ptr(suggestion) }
                .to_str()
                .unwrap()
                .to_string();
            assert!(message.contains("42"), "{message}");
            assert!(suggestion.contains("windows"), "{suggestion}");
            assert_eq!(last_code_name(), "no_window");
        });
        let invalid = scope.spawn(move || {
            assert_eq!(
                ud_last_error_code(),
                UD_OK,
                "a new thread starts with no error"
            );
            assert_eq!(last_message(), "");
            let status = unsafe { ud_act_by_key(app.0, 0, c"add".as_ptr(), 77, ptr::null()) };
            assert_eq!(status, UD_ERR_INVALID_REQUEST);
            assert_eq!(ud_last_error_code(), UD_ERR_INVALID_REQUEST);
            assert_eq!(last_code_name(), "invalid_request");
            assert!(last_message().contains("77"));
        });
        no_window.join().unwrap();
        invalid.join().unwrap();
    });
    // The next failing call replaces the record.
    assert_eq!(
        unsafe { ud_tree(app.0, 43, &mut ptr::null_mut()) },
        UD_ERR_NO_WINDOW
    );
    assert!(last_message().contains("43"));
    assert_eq!(unsafe { ud_idle(app.0, 0, -5) }, UD_ERR_INVALID_REQUEST);
    assert_eq!(ud_last_error_code(), UD_ERR_INVALID_REQUEST);
}

#[test]
fn a_code_this_build_does_not_know_keeps_its_name() {
    let (app, driver) = Handle::memory();
    driver.set_faults(Faults {
        fail_all: Some(Error::new(
            ErrorCode::Other("brand_new".into()),
            "from the future",
        )),
        ..Faults::default()
    });
    assert_eq!(
        unsafe { ud_windows(app.0, &mut ptr::null_mut()) },
        UD_ERR_OTHER
    );
    assert_eq!(last_code_name(), "brand_new");
    assert_eq!(last_message(), "from the future");
}

#[test]
fn freeing_null_does_nothing() {
    unsafe {
        ud_string_free(ptr::null_mut());
        ud_bytes_free(ptr::null_mut());
        ud_app_free(ptr::null_mut());
    }
}

#[test]
fn every_typed_call_reaches_the_app() {
    let (app, driver) = Handle::memory();
    let mut json = ptr::null_mut();
    unsafe {
        assert_eq!(ud_windows(app.0, &mut json), UD_OK);
        assert!(take_string(json).contains("\"Counter\""));

        assert_eq!(
            ud_act_by_key(app.0, 0, c"add".as_ptr(), UD_ACTION_PRESS, ptr::null()),
            UD_OK
        );
        assert_eq!(ud_tree(app.0, 1, &mut json), UD_OK);
        let tree: serde_json::Value = serde_json::from_str(&take_string(json)).unwrap();
        let nodes = tree["nodes"].as_array().unwrap();
        assert!(nodes.iter().any(|n| n["label"] == "Count: 1"), "{tree}");
        let name_id = nodes.iter().find(|n| n["key"] == "name").unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string();
        let name_id = CString::new(name_id).unwrap();

        let text = c"Grace";
        assert_eq!(
            ud_act(
                app.0,
                0,
                name_id.as_ptr(),
                UD_ACTION_SET_VALUE,
                text.as_ptr()
            ),
            UD_OK
        );
        assert_eq!(ud_select_text(app.0, 0, name_id.as_ptr(), 0, 2), UD_OK);
        assert_eq!(
            ud_select_text(app.0, 0, name_id.as_ptr(), 3, 2),
            UD_ERR_INVALID_REQUEST
        );
        assert_eq!(
            ud_act(app.0, 0, c"12x".as_ptr(), UD_ACTION_PRESS, ptr::null()),
            UD_ERR_INVALID_REQUEST
        );
        assert_eq!(
            ud_act(app.0, 0, c"5".as_ptr(), UD_ACTION_PRESS, ptr::null()),
            UD_ERR_NO_ELEMENT
        );
        // setValue without its text is refused before it leaves.
        assert_eq!(
            ud_act(app.0, 0, name_id.as_ptr(), UD_ACTION_SET_VALUE, ptr::null()),
            UD_ERR_INVALID_REQUEST
        );

        assert_eq!(ud_click(app.0, 0, 200.0, 64.0, UD_BUTTON_LEFT, 1), UD_OK);
        assert_eq!(
            ud_input(
                app.0,
                0,
                c"[{\"type\":\"click\",\"x\":200,\"y\":64}]".as_ptr()
            ),
            UD_OK
        );
        assert_eq!(ud_type_text(app.0, 0, c"!".as_ptr()), UD_OK);
        assert_eq!(ud_press_key(app.0, 0, c"Ctrl+A".as_ptr()), UD_OK);
        assert_eq!(
            ud_press_key(app.0, 0, c"Ctrl+".as_ptr()),
            UD_ERR_INVALID_REQUEST
        );

        let path = [c"File".as_ptr(), c"New".as_ptr(), ptr::null()];
        assert_eq!(ud_menu(app.0, 0, path.as_ptr()), UD_OK);

        let (mut png, mut len, mut width, mut height) = (ptr::null_mut(), 0, 0, 0);
        assert_eq!(
            ud_capture(app.0, 0, &mut png, &mut len, &mut width, &mut height),
            UD_OK
        );
        assert!(len > 8 && width > 0 && height > 0);
        assert_eq!(std::slice::from_raw_parts(png, 8), b"\x89PNG\r\n\x1a\n");
        ud_bytes_free(png);

        assert_eq!(
            ud_eval(app.0, 0, c"1 + 1".as_ptr(), &mut json),
            UD_ERR_UNSUPPORTED
        );
        assert!(json.is_null());
        assert_eq!(ud_idle(app.0, 0, UD_TIMEOUT_DEFAULT), UD_OK);
        assert_eq!(ud_idle(app.0, 0, 500), UD_OK);

        assert_eq!(
            ud_call(app.0, c"hello".as_ptr(), ptr::null(), &mut json),
            UD_OK
        );
        assert!(take_string(json).contains("\"methods\""));
        assert_eq!(
            ud_call(
                app.0,
                c"tree".as_ptr(),
                c"{\"window\":1}".as_ptr(),
                &mut json
            ),
            UD_OK
        );
        assert!(take_string(json).contains("\"nodes\""));
        assert_eq!(
            ud_call(app.0, c"teleport".as_ptr(), ptr::null(), &mut json),
            UD_ERR_UNKNOWN_METHOD
        );
    }
    let log = driver.edit(|ui| ui.log.clone());
    assert!(log.len() >= 7, "{log:?}");
}

#[test]
fn one_handle_serves_several_threads_at_once() {
    let (app, _) = Handle::memory();
    let app = &app;
    const THREADS: usize = 8;
    const PRESSES: usize = 25;
    std::thread::scope(|scope| {
        for _ in 0..THREADS {
            scope.spawn(move || {
                for _ in 0..PRESSES {
                    let status = unsafe {
                        ud_act_by_key(app.0, 0, c"add".as_ptr(), UD_ACTION_PRESS, ptr::null())
                    };
                    assert_eq!(status, UD_OK);
                    let mut json = ptr::null_mut();
                    assert_eq!(unsafe { ud_tree(app.0, 0, &mut json) }, UD_OK);
                    unsafe { ud_string_free(json) };
                }
            });
        }
    });
    let mut json = ptr::null_mut();
    assert_eq!(unsafe { ud_tree(app.0, 0, &mut json) }, UD_OK);
    let expected = format!("Count: {}", THREADS * PRESSES);
    assert!(take_string(json).contains(&expected), "{expected}");
}

#[test]
fn a_closed_handle_answers_disconnected() {
    let (app, _) = Handle::memory();
    assert_eq!(unsafe { ud_app_close(app.0) }, UD_OK);
    assert_eq!(
        unsafe { ud_app_close(app.0) },
        UD_OK,
        "closing twice is fine"
    );
    let mut json = ptr::null_mut();
    assert_eq!(unsafe { ud_windows(app.0, &mut json) }, UD_ERR_DISCONNECTED);
    assert!(last_message().contains("ud_app_close"));
}

#[test]
fn connect_to_nothing_is_disconnected_and_launch_checks_its_arguments() {
    let mut app = ptr::null_mut();
    let path = c"/nonexistent/uidrive-test.sock";
    assert_eq!(
        unsafe { ud_connect(path.as_ptr(), &mut app) },
        UD_ERR_DISCONNECTED
    );
    assert!(app.is_null());
    assert_eq!(
        unsafe { ud_connect(c"".as_ptr(), &mut app) },
        UD_ERR_INVALID_REQUEST
    );

    let empty = [ptr::null::<c_char>()];
    let status = unsafe { ud_launch(empty.as_ptr(), ptr::null(), c"SOCK".as_ptr(), 100, &mut app) };
    assert_eq!(status, UD_ERR_INVALID_REQUEST);
    let argv = [c"true".as_ptr(), ptr::null()];
    let bad_env = [c"NOEQUALS".as_ptr(), ptr::null()];
    let status = unsafe {
        ud_launch(
            argv.as_ptr(),
            bad_env.as_ptr(),
            c"SOCK".as_ptr(),
            100,
            &mut app,
        )
    };
    assert_eq!(status, UD_ERR_INVALID_REQUEST);
    assert!(last_message().contains("env[0]"));
    let status = unsafe { ud_launch(argv.as_ptr(), ptr::null(), c"A=B".as_ptr(), 100, &mut app) };
    assert_eq!(status, UD_ERR_INVALID_REQUEST);
    // `true` exits at once without listening.
    let status = unsafe { ud_launch(argv.as_ptr(), ptr::null(), c"SOCK".as_ptr(), 2000, &mut app) };
    assert_eq!(status, UD_ERR_APP_EXITED, "{}", last_message());
    assert!(app.is_null());
}

#[test]
fn versions_agree() {
    assert_eq!(ud_abi_version(), UD_ABI_VERSION);
    let version = unsafe { CStr::from_ptr(ud_version()) }.to_str().unwrap();
    assert_eq!(version, env!("CARGO_PKG_VERSION"));
}

mod header;

mod locators {
    use super::*;

    fn locator(make: impl FnOnce(*mut *mut ud_locator) -> ud_status) -> *mut ud_locator {
        let mut out = stale();
        assert_eq!(make(&mut out), UD_OK, "{}", last_message());
        assert!(!out.is_null());
        out
    }

    #[test]
    fn locators_find_act_read_and_expect() {
        let (app, _) = Handle::memory();
        let app = app.0;
        unsafe {
            let add = locator(|out| {
                ud_app_get_by_role(
                    app,
                    c"button".as_ptr(),
                    c"add".as_ptr(),
                    UD_MATCH_SUBSTRING,
                    out,
                )
            });
            let count = locator(|out| ud_app_get_by_key(app, c"count".as_ptr(), out));
            let name =
                locator(|out| ud_app_get_by_label(app, c"Name".as_ptr(), UD_MATCH_EXACT, out));
            let fruits = locator(|out| ud_app_locator(app, c"role=listItem".as_ptr(), out));
            let cherry = locator(|out| ud_locator_nth(fruits, 2, out));
            let subscribe =
                locator(|out| ud_app_get_by_text(app, c"^Sub".as_ptr(), UD_MATCH_REGEX, out));

            let mut outcome = stale();
            assert_eq!(
                ud_locator_click(add, &mut outcome),
                UD_OK,
                "{}",
                last_message()
            );
            assert!(take_string(outcome).contains("\"route\":\"semantic:press\""));
            assert_eq!(
                ud_locator_click(add, ptr::null_mut()),
                UD_OK,
                "the outcome is optional"
            );
            assert_eq!(
                ud_expect_text(count, c"Count: 2".as_ptr(), UD_MATCH_EXACT, false, 2000),
                UD_OK
            );
            let mut text = stale();
            assert_eq!(ud_locator_text(count, &mut text), UD_OK);
            assert_eq!(take_string(text), "Count: 2");

            assert_eq!(
                ud_locator_fill(name, c"Grace".as_ptr(), ptr::null_mut()),
                UD_OK,
                "{}",
                last_message()
            );
            assert_eq!(
                ud_expect_value(
                    name,
                    c"grace".as_ptr(),
                    UD_MATCH_SUBSTRING,
                    false,
                    UD_TIMEOUT_DEFAULT
                ),
                UD_OK
            );
            assert_eq!(
                ud_expect_state(name, UD_EXPECT_EDITABLE, false, 1000),
                UD_OK
            );

            let mut n = 99usize;
            assert_eq!(ud_locator_count(fruits, &mut n), UD_OK);
            assert_eq!(n, 3);
            assert_eq!(ud_expect_count(fruits, 3, false, 1000), UD_OK);
            let mut json = stale();
            assert_eq!(ud_locator_node(cherry, &mut json), UD_OK);
            assert!(take_string(json).contains("Cherry"));

            assert_eq!(
                ud_locator_set_checked(subscribe, true, ptr::null_mut()),
                UD_OK,
                "{}",
                last_message()
            );
            assert_eq!(
                ud_expect_state(subscribe, UD_EXPECT_CHECKED, false, 1000),
                UD_OK
            );
            assert_eq!(
                ud_expect_state(subscribe, UD_EXPECT_CHECKED, true, 200),
                UD_ERR_ASSERTION_FAILED
            );
            let mut visible = false;
            assert_eq!(ud_locator_is_visible(subscribe, &mut visible), UD_OK);
            assert!(visible);

            // Failures: ambiguous, missing (after a short wait), a failed assertion.
            let quick = locator(|out| ud_locator_with_timeout(fruits, 200, out));
            assert_eq!(ud_locator_click(quick, ptr::null_mut()), UD_ERR_AMBIGUOUS);
            let nothing = locator(|out| ud_app_get_by_key(app, c"nothing".as_ptr(), out));
            let nothing_quick = locator(|out| ud_locator_with_timeout(nothing, 200, out));
            let mut text = stale();
            assert_eq!(
                ud_locator_text(nothing_quick, &mut text),
                UD_ERR_NO_ELEMENT,
                "{}",
                last_message()
            );
            assert!(text.is_null());
            assert_eq!(
                ud_expect_text(count, c"Count: 9".as_ptr(), UD_MATCH_EXACT, false, 200),
                UD_ERR_ASSERTION_FAILED
            );
            assert!(
                last_message().contains("Count: 2"),
                "says what it saw: {}",
                last_message()
            );

            for made in [
                add,
                count,
                name,
                fruits,
                cherry,
                subscribe,
                quick,
                nothing,
                nothing_quick,
            ] {
                ud_locator_free(made);
            }
        }
    }

    #[test]
    fn locator_arguments_are_checked() {
        let (handle, _) = Handle::memory();
        let app = handle.0;
        unsafe {
            let mut out = stale();
            assert_eq!(
                ud_app_get_by_role(app, c"butn".as_ptr(), ptr::null(), 0, &mut out),
                UD_ERR_INVALID_REQUEST
            );
            assert!(out.is_null());
            assert!(last_message().contains("butn"));
            assert_eq!(
                ud_app_get_by_role(app, c"button".as_ptr(), c"x".as_ptr(), 3, &mut out),
                UD_ERR_INVALID_REQUEST
            );
            assert!(last_message().contains("UD_MATCH_"));
            assert_eq!(
                ud_app_get_by_text(app, c"(".as_ptr(), UD_MATCH_REGEX, &mut out),
                UD_ERR_INVALID_REQUEST
            );
            assert_eq!(
                ud_app_get_by_key(app, ptr::null(), &mut out),
                UD_ERR_INVALID_REQUEST
            );
            assert_eq!(
                ud_app_get_by_key(ptr::null(), c"add".as_ptr(), &mut out),
                UD_ERR_INVALID_REQUEST
            );
            assert_eq!(
                ud_app_get_by_key(app, c"add".as_ptr(), ptr::null_mut()),
                UD_ERR_INVALID_REQUEST
            );
            assert_eq!(
                ud_locator_click(ptr::null(), ptr::null_mut()),
                UD_ERR_INVALID_REQUEST
            );
            let mut n = 5usize;
            assert_eq!(
                ud_locator_count(ptr::null(), &mut n),
                UD_ERR_INVALID_REQUEST
            );
            assert_eq!(n, 0);
            let mut visible = true;
            assert_eq!(
                ud_locator_is_visible(ptr::null(), &mut visible),
                UD_ERR_INVALID_REQUEST
            );
            assert!(!visible);

            let add = locator(|out| ud_app_get_by_key(app, c"add".as_ptr(), out));
            assert_eq!(ud_expect_state(add, 7, false, 100), UD_ERR_INVALID_REQUEST);
            assert_eq!(ud_expect_state(add, -1, false, 100), UD_ERR_INVALID_REQUEST);
            assert_eq!(
                ud_expect_state(add, UD_EXPECT_VISIBLE, false, -9),
                UD_ERR_INVALID_REQUEST
            );
            assert_eq!(
                ud_expect_text(add, ptr::null(), 0, false, 100),
                UD_ERR_INVALID_REQUEST
            );
            assert_eq!(
                ud_locator_fill(add, ptr::null(), ptr::null_mut()),
                UD_ERR_INVALID_REQUEST
            );
            let bad = locator(|out| ud_app_locator(app, c"role=[[".as_ptr(), out));
            assert_eq!(
                ud_locator_click(bad, ptr::null_mut()),
                UD_ERR_INVALID_REQUEST
            );
            // A mouse button and a click count: real clicks at the centre
            // (the memory app's button presses only on the primary button).
            let mut outcome = stale();
            assert_eq!(
                ud_locator_click_button(add, UD_BUTTON_RIGHT, 1, &mut outcome),
                UD_OK,
                "{}",
                last_message()
            );
            assert!(take_string(outcome).contains("\"route\":\"input\""));
            // Out of range: refused before anything is looked for (not
            // no_element), the outcome zeroed.
            let missing = locator(|out| ud_app_get_by_key(app, c"no-such-key".as_ptr(), out));
            for (button, clicks, says) in [
                (-1, 1, "UD_BUTTON_RIGHT"),
                (3, 1, "UD_BUTTON_RIGHT"),
                (i32::MIN, 2, "UD_BUTTON_RIGHT"),
                (UD_BUTTON_LEFT, 0, "1 to 3"),
                (UD_BUTTON_RIGHT, 4, "1 to 3"),
                (UD_BUTTON_MIDDLE, u32::MAX, "1 to 3"),
            ] {
                let mut outcome = stale();
                assert_eq!(
                    ud_locator_click_button(missing, button, clicks, &mut outcome),
                    UD_ERR_INVALID_REQUEST,
                    "{button} {clicks}"
                );
                assert!(outcome.is_null());
                assert!(last_message().contains(says), "{}", last_message());
            }
            assert_eq!(
                ud_locator_click_button(ptr::null(), UD_BUTTON_LEFT, 1, ptr::null_mut()),
                UD_ERR_INVALID_REQUEST
            );
            ud_locator_free(missing);
            // A cell's row and column count from 1: 0 fails at first use.
            let mut cell = stale();
            assert_eq!(
                ud_locator_cell(ptr::null(), 1, 1, &mut cell),
                UD_ERR_INVALID_REQUEST
            );
            assert!(cell.is_null());
            assert_eq!(
                ud_locator_cell(add, 1, 1, ptr::null_mut()),
                UD_ERR_INVALID_REQUEST
            );
            let no_row = locator(|out| ud_locator_cell(add, 0, 1, out));
            let mut text = stale();
            assert_eq!(ud_locator_text(no_row, &mut text), UD_ERR_INVALID_REQUEST);
            assert!(text.is_null());
            assert!(
                last_message().contains("cell(0, 1): rows and columns count from 1"),
                "{}",
                last_message()
            );
            ud_locator_free(no_row);

            // A locator outlives its app handle; once the app is closed it says so.
            std::mem::forget(handle);
            ud_app_free(app);
            assert_eq!(ud_locator_click(add, ptr::null_mut()), UD_ERR_DISCONNECTED);
            ud_locator_free(add);
            ud_locator_free(bad);
            ud_locator_free(ptr::null_mut());
        }
    }
}

/// Freed and made-up handles are refused with `invalid_request` instead of
/// being read (issue 14, finding 7).
mod freed_handles {
    use super::*;

    fn refused(status: ud_status, what: &str) {
        assert_eq!(status, UD_ERR_INVALID_REQUEST, "{what}: {}", last_message());
        assert_eq!(last_code_name(), "invalid_request");
        assert!(
            last_message().contains("not a live"),
            "{what}: {}",
            last_message()
        );
    }

    #[test]
    fn an_app_used_or_freed_after_its_free_is_refused() {
        let (app, _) = Handle::memory();
        let app = std::mem::ManuallyDrop::new(app).0;
        let mut json = stale();
        unsafe {
            assert_eq!(ud_windows(app, &mut json), UD_OK);
            ud_string_free(json);
            ud_app_free(app);
            let mut json = stale();
            refused(ud_windows(app, &mut json), "windows after free");
            assert!(json.is_null(), "the out-param is cleared first");
            refused(
                ud_call(app, c"tree".as_ptr(), ptr::null(), &mut json),
                "call after free",
            );
            refused(ud_app_close(app), "close after free");
            let mut locator = stale();
            refused(
                ud_app_get_by_key(app, c"count".as_ptr(), &mut locator),
                "a locator of a freed app",
            );
            assert!(locator.is_null());
            // A second free does nothing but say why.
            ud_app_free(app);
            assert_eq!(ud_last_error_code(), UD_ERR_INVALID_REQUEST);
            assert!(last_message().contains("ud_app"), "{}", last_message());
        }
    }

    #[test]
    fn a_locator_used_or_freed_after_its_free_is_refused() {
        let (app, _) = Handle::memory();
        unsafe {
            let mut locator = stale();
            assert_eq!(
                ud_app_get_by_key(app.0, c"count".as_ptr(), &mut locator),
                UD_OK
            );
            let mut count = 7;
            assert_eq!(ud_locator_count(locator, &mut count), UD_OK);
            assert_eq!(count, 1);
            ud_locator_free(locator);
            refused(ud_locator_count(locator, &mut count), "count after free");
            assert_eq!(count, 0, "the out-param is cleared first");
            let mut derived = stale();
            refused(
                ud_locator_nth(locator, 0, &mut derived),
                "a locator of a freed one",
            );
            assert!(derived.is_null());
            ud_locator_free(locator);
            assert_eq!(ud_last_error_code(), UD_ERR_INVALID_REQUEST);
            assert!(last_message().contains("ud_locator"), "{}", last_message());
        }
    }

    #[test]
    fn made_up_pointers_and_handles_of_another_kind_are_refused() {
        let (app, _) = Handle::memory();
        unsafe {
            // Never read: the registry answers before the pointer is followed.
            let mut json = stale();
            refused(ud_windows(stale(), &mut json), "a dangling app");
            let mut count = 0;
            refused(ud_locator_count(stale(), &mut count), "a dangling locator");
            ud_locator_free(stale());
            assert_eq!(ud_last_error_code(), UD_ERR_INVALID_REQUEST);
            // An app is not a locator, nor the other way round.
            refused(
                ud_locator_count(app.0.cast::<ud_locator>(), &mut count),
                "an app as a locator",
            );
            let mut locator = stale();
            assert_eq!(
                ud_app_get_by_key(app.0, c"count".as_ptr(), &mut locator),
                UD_OK
            );
            refused(
                ud_windows(locator.cast::<ud_app>(), &mut json),
                "a locator as an app",
            );
            ud_locator_free(locator);
            // NULL is still a plain no-op for the free functions.
            ud_app_free(ptr::null_mut());
            ud_locator_free(ptr::null_mut());
        }
    }
}
