/*
 * The C harness: exercises every function of include/uidrive.h and its error
 * paths against a real `uidrive serve --demo`, linked against libuidrive.
 * run.sh builds it with AddressSanitizer and runs it.
 *
 * usage: harness SOCKET_PATH UIDRIVE_BINARY
 *   SOCKET_PATH     where a `uidrive serve --demo` already listens
 *   UIDRIVE_BINARY  the `uidrive` binary, which ud_launch starts itself
 */
#define _POSIX_C_SOURCE 200809L

#include "uidrive.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* Not in the public header: exported by a libuidrive built with the
 * `test-panic` feature, as run.sh builds it. */
ud_status ud_test_panic(int32_t *out_value);

static int passed, failed;

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (cond) {                                                          \
            passed++;                                                        \
        } else {                                                             \
            failed++;                                                        \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                    \
            fprintf(stderr, " (last error: %s: %s)\n",                      \
                    ud_last_error_code_name(), ud_last_error_message());     \
        }                                                                    \
    } while (0)

/* A status check that names both codes when it fails. */
#define EXPECT(call, want)                                                   \
    do {                                                                     \
        ud_status got_ = (call);                                             \
        CHECK(got_ == (want), "%s: want %s, got %s", #call,                  \
              ud_status_name(want), ud_status_name(got_));                   \
    } while (0)

/* Anything a caller might have left in a variable before a call. */
#define STALE ((void *)0x1)

static const char *socket_path;
static const char *uidrive_binary;

/* The id of the element with `"key":"KEY"` in a tree answer, copied into
 * `id`. Fields may come in any order, so this finds the object around the
 * key, then its own `"id"` (not one of a nested object). Good enough for the
 * demo UI, whose labels hold no braces. */
static int id_of_key(const char *tree, const char *key, char *id, size_t size) {
    char needle[128];
    snprintf(needle, sizeof needle, "\"key\":\"%s\"", key);
    const char *at = strstr(tree, needle);
    if (!at) return 0;
    const char *start = NULL;
    int depth = 0;
    for (const char *p = at; p > tree && !start; p--) {
        if (p[-1] == '}') depth++;
        else if (p[-1] == '{' && depth-- == 0) start = p - 1;
    }
    if (!start) return 0;
    depth = 0;
    for (const char *p = start; *p; p++) {
        if (*p == '{') depth++;
        else if (*p == '}' && --depth == 0) return 0;
        else if (depth == 1 && strncmp(p, "\"id\":\"", 6) == 0) {
            const char *digits = p + 6;
            size_t len = strcspn(digits, "\"");
            if (len + 1 > size) return 0;
            memcpy(id, digits, len);
            id[len] = '\0';
            return 1;
        }
    }
    return 0;
}

/* Whether the default window's tree contains `text`. */
static int tree_has(const ud_app *app, const char *text) {
    char *json = NULL;
    if (ud_tree(app, UD_WINDOW_DEFAULT, &json) != UD_OK) return 0;
    int found = strstr(json, text) != NULL;
    ud_string_free(json);
    return found;
}

static void versions(void) {
    CHECK(ud_abi_version() == UD_ABI_VERSION, "abi %u", ud_abi_version());
    CHECK(strlen(ud_version()) > 0 && strchr(ud_version(), '.'), "version %s", ud_version());
    CHECK(strcmp(ud_status_name(UD_OK), "ok") == 0, "ok");
    CHECK(strcmp(ud_status_name(UD_ERR_NO_WINDOW), "no_window") == 0, "no_window");
    CHECK(strcmp(ud_status_name(UD_ERR_ASSERTION_FAILED), "assertion_failed") == 0, "15");
    CHECK(strcmp(ud_status_name(UD_ERR_OTHER), "other") == 0, "other");
    CHECK(strcmp(ud_status_name(-3), "unknown") == 0, "-3");
    CHECK(strcmp(ud_status_name(4242), "unknown") == 0, "4242");
}

static void connect_errors(void) {
    ud_app *app = STALE;
    EXPECT(ud_connect("/nonexistent/uidrive.sock", &app), UD_ERR_DISCONNECTED);
    CHECK(app == NULL, "out_app is cleared on failure");
    CHECK(ud_last_error_code() == UD_ERR_DISCONNECTED, "code");
    CHECK(strcmp(ud_last_error_code_name(), "disconnected") == 0, "name");
    CHECK(strstr(ud_last_error_message(), "/nonexistent/uidrive.sock") != NULL, "message");
    CHECK(strlen(ud_last_error_suggestion()) > 0, "suggestion");

    app = STALE;
    EXPECT(ud_connect(NULL, &app), UD_ERR_INVALID_REQUEST);
    CHECK(app == NULL, "cleared");
    EXPECT(ud_connect("", &app), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_connect(socket_path, NULL), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_connect("\xff\xfe", &app), UD_ERR_INVALID_REQUEST);
    CHECK(strstr(ud_last_error_message(), "UTF-8") != NULL, "utf-8: %s", ud_last_error_message());
}

static void reads(ud_app *app) {
    char *json = STALE;
    EXPECT(ud_windows(app, &json), UD_OK);
    CHECK(json && strstr(json, "\"title\":\"Counter\""), "windows: %s", json ? json : "(null)");
    ud_string_free(json);

    json = STALE;
    EXPECT(ud_windows(NULL, &json), UD_ERR_INVALID_REQUEST);
    CHECK(json == NULL, "cleared");
    EXPECT(ud_windows(app, NULL), UD_ERR_INVALID_REQUEST);

    json = NULL;
    EXPECT(ud_tree(app, UD_WINDOW_DEFAULT, &json), UD_OK);
    CHECK(json && strstr(json, "Count: 0"), "tree");
    ud_string_free(json);
    EXPECT(ud_tree(app, 1, &json), UD_OK);
    ud_string_free(json);
    json = STALE;
    EXPECT(ud_tree(app, 99, &json), UD_ERR_NO_WINDOW);
    CHECK(json == NULL, "cleared");
    CHECK(strstr(ud_last_error_message(), "99") != NULL, "%s", ud_last_error_message());
    EXPECT(ud_tree(app, 0, NULL), UD_ERR_INVALID_REQUEST);
}

static void actions(ud_app *app) {
    EXPECT(ud_act_by_key(app, UD_WINDOW_DEFAULT, "add", UD_ACTION_PRESS, NULL), UD_OK);
    CHECK(tree_has(app, "Count: 1"), "press by key");

    char *tree = NULL;
    char name_id[32] = "";
    EXPECT(ud_tree(app, UD_WINDOW_DEFAULT, &tree), UD_OK);
    CHECK(tree && id_of_key(tree, "name", name_id, sizeof name_id), "name's id");
    ud_string_free(tree);

    EXPECT(ud_act(app, 1, name_id, UD_ACTION_SET_VALUE, "Grace"), UD_OK);
    CHECK(tree_has(app, "\"value\":\"Grace\""), "setValue");
    EXPECT(ud_act(app, 1, name_id, UD_ACTION_INSERT_TEXT, " Hopper"), UD_OK);
    CHECK(tree_has(app, "Grace Hopper"), "insertText");
    EXPECT(ud_select_text(app, 1, name_id, 0, 5), UD_OK);
    CHECK(tree_has(app, "\"selection\":[0,5]"), "selectText");
    EXPECT(ud_select_text(app, 1, name_id, 5, 0), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_select_text(app, 1, NULL, 0, 1), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_act(app, 1, name_id, UD_ACTION_FOCUS, NULL), UD_OK);

    /* Error paths: each refused before anything reaches the app. */
    EXPECT(ud_act(app, 1, name_id, UD_ACTION_SET_VALUE, NULL), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_act(app, 1, name_id, -1, NULL), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_act(app, 1, name_id, UD_ACTION_COLLAPSE + 1, NULL), UD_ERR_INVALID_REQUEST);
    CHECK(strstr(ud_last_error_message(), "UD_ACTION_") != NULL, "%s", ud_last_error_message());
    EXPECT(ud_act(app, 1, "not-digits", UD_ACTION_PRESS, NULL), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_act(app, 1, "99999999999999999999999", UD_ACTION_PRESS, NULL), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_act(app, 1, NULL, UD_ACTION_PRESS, NULL), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_act(NULL, 1, name_id, UD_ACTION_PRESS, NULL), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_act(app, 1, name_id, UD_ACTION_SET_VALUE, "\xc3\x28"), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_act_by_key(app, 0, NULL, UD_ACTION_PRESS, NULL), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_act_by_key(app, 0, "add", 1000, NULL), UD_ERR_INVALID_REQUEST);
    /* ...and errors from the app. */
    EXPECT(ud_act(app, 1, "12345", UD_ACTION_PRESS, NULL), UD_ERR_NO_ELEMENT);
    EXPECT(ud_act_by_key(app, 0, "no-such-key", UD_ACTION_PRESS, NULL), UD_ERR_NO_ELEMENT);
    EXPECT(ud_act_by_key(app, 7, "add", UD_ACTION_PRESS, NULL), UD_ERR_NO_WINDOW);
    EXPECT(ud_act_by_key(app, 0, "count", UD_ACTION_INCREMENT, NULL), UD_ERR_UNSUPPORTED);
}

static void input(ud_app *app) {
    /* The Add button's centre is (200, 64) in the window's content. */
    EXPECT(ud_click(app, UD_WINDOW_DEFAULT, 200, 64, UD_BUTTON_LEFT, 1), UD_OK);
    CHECK(tree_has(app, "Count: 2"), "click");
    EXPECT(ud_input(app, 0, "[{\"type\":\"click\",\"x\":200,\"y\":64}]"), UD_OK);
    CHECK(tree_has(app, "Count: 3"), "input click");
    EXPECT(ud_click(app, 0, 200, 64, 3, 1), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_click(app, 0, 200, 64, -1, 1), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_click(app, 0, 200, 64, UD_BUTTON_LEFT, 0), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_input(app, 0, "[{\"type\":\"click\""), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_input(app, 0, "[]"), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_input(app, 0, "[{\"type\":\"teleport\"}]"), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_input(app, 0, NULL), UD_ERR_INVALID_REQUEST);

    /* Typing goes to the focused text field (focused in actions()). */
    EXPECT(ud_type_text(app, 0, "!"), UD_OK);
    EXPECT(ud_press_key(app, 0, "End"), UD_OK);
    EXPECT(ud_press_key(app, 0, "Ctrl+"), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_press_key(app, 0, NULL), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_type_text(app, 0, ""), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_type_text(app, 0, NULL), UD_ERR_INVALID_REQUEST);

    const char *file_new[] = {"File", "New", NULL};
    EXPECT(ud_menu(app, 0, file_new), UD_OK);
    CHECK(tree_has(app, "Count: 0"), "File > New resets the count");
    const char *missing[] = {"File", "Teleport", NULL};
    EXPECT(ud_menu(app, 0, missing), UD_ERR_NO_ELEMENT);
    const char *empty[] = {NULL};
    EXPECT(ud_menu(app, 0, empty), UD_ERR_INVALID_REQUEST);
    const char *bad_utf8[] = {"File", "\xff", NULL};
    EXPECT(ud_menu(app, 0, bad_utf8), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_menu(app, 0, NULL), UD_ERR_INVALID_REQUEST);
}

static void capture_eval_idle(ud_app *app) {
    uint8_t *png = STALE;
    size_t len = 1;
    uint32_t width = 1, height = 1;
    EXPECT(ud_capture(app, UD_WINDOW_DEFAULT, &png, &len, &width, &height), UD_OK);
    CHECK(png && len > 8 && memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0, "a PNG (%zu bytes)", len);
    CHECK(width > 0 && height > 0, "%ux%u", width, height);
    ud_bytes_free(png);

    png = STALE, len = 1, width = 1, height = 1;
    EXPECT(ud_capture(app, 99, &png, &len, &width, &height), UD_ERR_NO_WINDOW);
    CHECK(png == NULL && len == 0 && width == 0 && height == 0, "all four cleared");
    EXPECT(ud_capture(app, 0, &png, NULL, &width, &height), UD_ERR_INVALID_REQUEST);

    char *json = STALE;
    EXPECT(ud_eval(app, 0, "1 + 1", &json), UD_ERR_UNSUPPORTED);
    CHECK(json == NULL, "cleared");
    EXPECT(ud_eval(app, 0, NULL, &json), UD_ERR_INVALID_REQUEST);

    EXPECT(ud_idle(app, 0, UD_TIMEOUT_DEFAULT), UD_OK);
    EXPECT(ud_idle(app, 0, 1000), UD_OK);
    EXPECT(ud_idle(app, 0, -2), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_idle(app, 42, 100), UD_ERR_NO_WINDOW);
}

static void generic_call(ud_app *app) {
    char *json = STALE;
    EXPECT(ud_call(app, "hello", NULL, &json), UD_OK);
    CHECK(json && strstr(json, "\"protocol\":1") && strstr(json, "\"idle\""), "hello: %s", json ? json : "");
    ud_string_free(json);

    EXPECT(ud_call(app, "tree", "{\"window\": 1}", &json), UD_OK);
    CHECK(json && strstr(json, "\"nodes\""), "tree");
    ud_string_free(json);

    EXPECT(ud_call(app, "act", "{\"key\":\"add\",\"action\":\"press\"}", &json), UD_OK);
    CHECK(json && strcmp(json, "{}") == 0, "act answers {}: %s", json ? json : "");
    ud_string_free(json);
    CHECK(tree_has(app, "Count: 1"), "act through ud_call");

    json = STALE;
    EXPECT(ud_call(app, "teleport", NULL, &json), UD_ERR_UNKNOWN_METHOD);
    CHECK(json == NULL, "cleared");
    EXPECT(ud_call(app, "tree", "{\"window\":", &json), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_call(app, "tree", "[1]", &json), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_call(app, "tree", "{\"window\": \"one\"}", &json), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_call(app, "tree", "{\"windw\": 1}", &json), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_call(app, NULL, NULL, &json), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_call(app, "tree", NULL, NULL), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_call(app, "tr\xe9", NULL, &json), UD_ERR_INVALID_REQUEST);
    CHECK(json == NULL, "still cleared");
}

static void panics_and_frees(void) {
    int32_t value = 7;
    EXPECT(ud_test_panic(&value), UD_ERR_FAILED);
    CHECK(value == 0, "zeroed before the panic");
    CHECK(strstr(ud_last_error_message(), "panicked") != NULL, "%s", ud_last_error_message());
    EXPECT(ud_test_panic(NULL), UD_ERR_FAILED);

    ud_string_free(NULL);
    ud_bytes_free(NULL);
    ud_app_free(NULL);
    CHECK(1, "freeing NULL did nothing");
    EXPECT(ud_app_close(NULL), UD_ERR_INVALID_REQUEST);
    uint32_t pid = 5;
    EXPECT(ud_app_pid(NULL, &pid), UD_ERR_INVALID_REQUEST);
    CHECK(pid == 0, "cleared");
}

/* ---- freed handles: refused, never read (issue 14) ---- */

static void freed_handles(void) {
    ud_app *app = NULL;
    EXPECT(ud_connect(socket_path, &app), UD_OK);
    if (!app) return;
    ud_locator *count = NULL;
    EXPECT(ud_app_get_by_key(app, "count", &count), UD_OK);
    size_t n = 9;
    EXPECT(ud_locator_count(count, &n), UD_OK);
    CHECK(n == 1, "one count: %zu", n);

    /* A locator used and freed again after its free. */
    ud_locator_free(count);
    n = 9;
    EXPECT(ud_locator_count(count, &n), UD_ERR_INVALID_REQUEST);
    CHECK(n == 0, "cleared");
    CHECK(strstr(ud_last_error_message(), "not a live ud_locator") != NULL, "%s",
          ud_last_error_message());
    CHECK(strlen(ud_last_error_suggestion()) > 0, "suggestion");
    ud_locator_free(count);
    CHECK(ud_last_error_code() == UD_ERR_INVALID_REQUEST, "second locator free refused");

    /* An app used and freed again after its free. */
    ud_app_free(app);
    char *json = STALE;
    EXPECT(ud_windows(app, &json), UD_ERR_INVALID_REQUEST);
    CHECK(json == NULL, "cleared");
    CHECK(strstr(ud_last_error_message(), "not a live ud_app") != NULL, "%s",
          ud_last_error_message());
    EXPECT(ud_call(app, "tree", NULL, &json), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_app_close(app), UD_ERR_INVALID_REQUEST);
    ud_locator *derived = STALE;
    EXPECT(ud_app_get_by_key(app, "count", &derived), UD_ERR_INVALID_REQUEST);
    CHECK(derived == NULL, "cleared");
    ud_app_free(app);
    CHECK(ud_last_error_code() == UD_ERR_INVALID_REQUEST, "second app free refused");

    /* Pointers uidrive never made. */
    EXPECT(ud_windows((const ud_app *)STALE, &json), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_locator_count((const ud_locator *)STALE, &n), UD_ERR_INVALID_REQUEST);
}

/* ---- threads ---- */

struct error_thread {
    const ud_app *app;
    int ok;
};

/* Fails with no_window, then makes successful calls: the record and its
 * pointers must not change. */
static void *no_window_thread(void *arg) {
    struct error_thread *t = arg;
    char *json = NULL;
    t->ok = ud_tree(t->app, 77, &json) == UD_ERR_NO_WINDOW;
    const char *message = ud_last_error_message();
    for (int i = 0; i < 20; i++) {
        t->ok &= ud_windows(t->app, &json) == UD_OK;
        ud_string_free(json);
    }
    t->ok &= ud_last_error_code() == UD_ERR_NO_WINDOW;
    t->ok &= ud_last_error_message() == message;
    t->ok &= strstr(message, "77") != NULL;
    t->ok &= strcmp(ud_last_error_code_name(), "no_window") == 0;
    return NULL;
}

/* A fresh thread has no error; then it fails with invalid_request. */
static void *invalid_thread(void *arg) {
    struct error_thread *t = arg;
    t->ok = ud_last_error_code() == UD_OK && strcmp(ud_last_error_message(), "") == 0;
    for (int i = 0; i < 20; i++) {
        t->ok &= ud_act_by_key(t->app, 0, "add", 555, NULL) == UD_ERR_INVALID_REQUEST;
    }
    t->ok &= ud_last_error_code() == UD_ERR_INVALID_REQUEST;
    t->ok &= strstr(ud_last_error_message(), "555") != NULL;
    return NULL;
}

static void last_error_per_thread(const ud_app *app) {
    /* This thread's own error must survive what the others do. */
    EXPECT(ud_act_by_key(app, 0, "no-such-key", UD_ACTION_PRESS, NULL), UD_ERR_NO_ELEMENT);
    struct error_thread a = {app, 0}, b = {app, 0};
    pthread_t ta, tb;
    pthread_create(&ta, NULL, no_window_thread, &a);
    pthread_create(&tb, NULL, invalid_thread, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    CHECK(a.ok, "thread A kept its no_window");
    CHECK(b.ok, "thread B kept its invalid_request");
    CHECK(ud_last_error_code() == UD_ERR_NO_ELEMENT, "main thread kept no_element");
}

#define PRESS_THREADS 4
#define PRESSES 25

static void *press_thread(void *arg) {
    const ud_app *app = arg;
    long bad = 0;
    for (int i = 0; i < PRESSES; i++) {
        bad += ud_act_by_key(app, 0, "add", UD_ACTION_PRESS, NULL) != UD_OK;
        char *json = NULL;
        bad += ud_tree(app, 0, &json) != UD_OK;
        ud_string_free(json);
    }
    return (void *)bad;
}

static void one_handle_many_threads(const ud_app *app) {
    const char *file_new[] = {"File", "New", NULL};
    EXPECT(ud_menu(app, 0, file_new), UD_OK);
    pthread_t threads[PRESS_THREADS];
    for (int i = 0; i < PRESS_THREADS; i++) pthread_create(&threads[i], NULL, press_thread, (void *)app);
    long bad = 0;
    for (int i = 0; i < PRESS_THREADS; i++) {
        void *result = NULL;
        pthread_join(threads[i], &result);
        bad += (long)result;
    }
    CHECK(bad == 0, "%ld calls failed", bad);
    char want[32];
    snprintf(want, sizeof want, "Count: %d", PRESS_THREADS * PRESSES);
    CHECK(tree_has(app, want), "every press counted (%s)", want);
}

/* ---- locators and expectations ---- */

/* Checks that a call made a locator; `made` is read after the call. */
static void must(ud_status status, ud_locator *const *made, const char *what) {
    CHECK(status == UD_OK && *made != NULL, "%s: %s", what, ud_status_name(status));
}

#define LOCATOR_THREADS 4
#define LOCATOR_CLICKS 10

static void *click_thread(void *arg) {
    const ud_locator *add = arg;
    long bad = 0;
    for (int i = 0; i < LOCATOR_CLICKS; i++) bad += ud_locator_click(add, NULL) != UD_OK;
    return (void *)bad;
}

static void locators(const ud_app *app) {
    const char *file_new[] = {"File", "New", NULL};
    EXPECT(ud_menu(app, 0, file_new), UD_OK);
    EXPECT(ud_app_set_timeouts(app, 3000, 2000), UD_OK);
    EXPECT(ud_app_set_timeouts(NULL, 3000, 2000), UD_ERR_INVALID_REQUEST);

    ud_locator *add = NULL, *count = NULL, *name = NULL, *items = NULL, *banana = NULL,
               *subscribe = NULL, *quick = NULL, *nothing = NULL, *nothing_quick = NULL,
               *unparsable = NULL;
    must(ud_app_get_by_role(app, "button", "Add", UD_MATCH_EXACT, &add), &add, "by role");
    must(ud_app_get_by_key(app, "count", &count), &count, "by key");
    must(ud_app_get_by_label(app, "name", UD_MATCH_SUBSTRING, &name), &name, "by label");
    must(ud_app_locator(app, "role=listItem", &items), &items, "string form");
    must(ud_locator_nth(items, 1, &banana), &banana, "nth");
    must(ud_app_get_by_text(app, "^Subscribe$", UD_MATCH_REGEX, &subscribe), &subscribe, "by text");
    if (!add || !count || !name || !items || !banana || !subscribe) goto done;

    char *outcome = STALE;
    EXPECT(ud_locator_click(add, &outcome), UD_OK);
    CHECK(outcome && strstr(outcome, "\"route\":\"semantic:press\""), "outcome: %s", outcome ? outcome : "");
    ud_string_free(outcome);
    EXPECT(ud_expect_text(count, "Count: 1", UD_MATCH_EXACT, false, UD_TIMEOUT_DEFAULT), UD_OK);
    EXPECT(ud_expect_text(count, "Count: 7", UD_MATCH_EXACT, false, 200), UD_ERR_ASSERTION_FAILED);
    CHECK(strstr(ud_last_error_message(), "Count: 1") != NULL, "says what it saw: %s", ud_last_error_message());
    EXPECT(ud_expect_text(count, "Count: 7", UD_MATCH_EXACT, true, 1000), UD_OK);
    /* UD_MATCH_EXACT is the whole text; a part is ud_expect_contains_text (with its case). */
    EXPECT(ud_expect_text(count, "Count", UD_MATCH_EXACT, false, 200), UD_ERR_ASSERTION_FAILED);
    EXPECT(ud_expect_contains_text(count, "Count", false, 1000), UD_OK);
    EXPECT(ud_expect_contains_text(count, "count", false, 200), UD_ERR_ASSERTION_FAILED);

    EXPECT(ud_locator_fill(name, "Ada Lovelace", NULL), UD_OK);
    EXPECT(ud_expect_value(name, "lovelace", UD_MATCH_SUBSTRING, false, 1000), UD_OK);
    EXPECT(ud_locator_press(name, "End", NULL), UD_OK);
    EXPECT(ud_expect_state(name, UD_EXPECT_EDITABLE, false, 1000), UD_OK);

    size_t n = 99;
    EXPECT(ud_locator_count(items, &n), UD_OK);
    CHECK(n == 3, "3 fruits, got %zu", n);
    EXPECT(ud_expect_count(items, 3, false, 1000), UD_OK);
    char *text = STALE;
    EXPECT(ud_locator_text(banana, &text), UD_OK);
    CHECK(text && strcmp(text, "Banana") == 0, "nth(1): %s", text ? text : "");
    ud_string_free(text);
    char *node = NULL;
    EXPECT(ud_locator_node(banana, &node), UD_OK);
    CHECK(node && strstr(node, "\"role\":\"listItem\""), "node: %s", node ? node : "");
    ud_string_free(node);

    EXPECT(ud_locator_set_checked(subscribe, true, NULL), UD_OK);
    EXPECT(ud_expect_state(subscribe, UD_EXPECT_CHECKED, false, 1000), UD_OK);
    EXPECT(ud_expect_state(subscribe, UD_EXPECT_CHECKED, true, 200), UD_ERR_ASSERTION_FAILED);
    bool visible = false;
    EXPECT(ud_locator_is_visible(subscribe, &visible), UD_OK);
    CHECK(visible, "visible");

    /* Failures from core: more than one match, none at all. */
    must(ud_locator_with_timeout(items, 200, &quick), &quick, "with timeout");
    EXPECT(ud_locator_click(quick, NULL), UD_ERR_AMBIGUOUS);
    must(ud_app_get_by_key(app, "nothing-has-this-key", &nothing), &nothing, "missing");
    must(ud_locator_with_timeout(nothing, 200, &nothing_quick), &nothing_quick, "quick");
    text = STALE;
    EXPECT(ud_locator_text(nothing_quick, &text), UD_ERR_NO_ELEMENT);
    CHECK(text == NULL, "cleared");
    EXPECT(ud_expect_state(nothing, UD_EXPECT_HIDDEN, false, 500), UD_OK);

    /* Refused arguments. */
    ud_locator *refused = STALE;
    EXPECT(ud_app_get_by_role(app, "buton", NULL, UD_MATCH_SUBSTRING, &refused), UD_ERR_INVALID_REQUEST);
    CHECK(refused == NULL, "cleared");
    EXPECT(ud_app_get_by_role(app, "button", "Add", 3, &refused), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_app_get_by_text(app, "(", UD_MATCH_REGEX, &refused), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_app_get_by_key(app, NULL, &refused), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_app_get_by_key(app, "add", NULL), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_app_get_by_key(app, "\xff", &refused), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_locator_nth(NULL, 0, &refused), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_locator_click(NULL, NULL), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_locator_fill(name, NULL, NULL), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_expect_state(add, 7, false, 100), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_expect_state(add, -1, false, 100), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_expect_state(add, UD_EXPECT_VISIBLE, false, -5), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_expect_text(add, "Add", 9, false, 100), UD_ERR_INVALID_REQUEST);
    n = 5;
    EXPECT(ud_locator_count(NULL, &n), UD_ERR_INVALID_REQUEST);
    CHECK(n == 0, "cleared");
    EXPECT(ud_app_locator(app, "role=[[", &unparsable), UD_OK);
    EXPECT(ud_locator_click(unparsable, NULL), UD_ERR_INVALID_REQUEST);
    /* A table's cell: rows and columns count from 1, so 0 fails at first use
     * (the cells of a real table: cells.c, on gtk3-widget-factory). */
    refused = STALE;
    EXPECT(ud_locator_cell(NULL, 1, 1, &refused), UD_ERR_INVALID_REQUEST);
    CHECK(refused == NULL, "cleared");
    EXPECT(ud_locator_cell(items, 1, 1, NULL), UD_ERR_INVALID_REQUEST);
    ud_locator *no_row = NULL, *no_cell = NULL;
    EXPECT(ud_locator_cell(items, 0, 1, &no_row), UD_OK);
    text = STALE;
    EXPECT(ud_locator_text(no_row, &text), UD_ERR_INVALID_REQUEST);
    CHECK(text == NULL, "cleared");
    CHECK(strstr(ud_last_error_message(), "count from 1") != NULL, "says why: %s", ud_last_error_message());
    n = 5;
    EXPECT(ud_locator_count(no_row, &n), UD_ERR_INVALID_REQUEST);
    /* The demo UI gives no element a place: a cell of it is nothing. */
    EXPECT(ud_locator_cell(items, 1, 1, &no_cell), UD_OK);
    n = 5;
    EXPECT(ud_locator_count(no_cell, &n), UD_OK);
    CHECK(n == 0, "no cell in a list without places, got %zu", n);
    ud_locator_free(no_row);
    ud_locator_free(no_cell);

    /* One locator, several threads at once. */
    EXPECT(ud_menu(app, 0, file_new), UD_OK);
    pthread_t threads[LOCATOR_THREADS];
    for (int i = 0; i < LOCATOR_THREADS; i++) pthread_create(&threads[i], NULL, click_thread, add);
    long bad = 0;
    for (int i = 0; i < LOCATOR_THREADS; i++) {
        void *result = NULL;
        pthread_join(threads[i], &result);
        bad += (long)result;
    }
    CHECK(bad == 0, "%ld clicks failed", bad);
    char want[32];
    snprintf(want, sizeof want, "Count: %d", LOCATOR_THREADS * LOCATOR_CLICKS);
    EXPECT(ud_expect_text(count, want, UD_MATCH_EXACT, false, 2000), UD_OK);

done:;
    ud_locator *all[] = {add, count, name, items, banana, subscribe, quick, nothing, nothing_quick, unparsable};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) ud_locator_free(all[i]);
    ud_locator_free(NULL);
}

static void close_and_free(ud_app *app) {
    ud_locator *add = NULL;
    EXPECT(ud_app_get_by_key(app, "add", &add), UD_OK);
    uint32_t pid = 5;
    EXPECT(ud_app_pid(app, &pid), UD_OK);
    CHECK(pid == 0, "no process of ours for a connected app");
    int32_t step = -1;
    EXPECT(ud_app_closed_by(app, &step), UD_OK);
    CHECK(step == UD_CLOSED_NOT_YET, "not closed yet: %d", step);
    EXPECT(ud_app_close(app), UD_OK);
    EXPECT(ud_app_closed_by(app, &step), UD_OK);
    CHECK(step == UD_CLOSED_DETACHED, "a connected app is only let go of: %d", step);
    EXPECT(ud_app_closed_by(app, NULL), UD_ERR_INVALID_REQUEST);
    char *json = STALE;
    EXPECT(ud_windows(app, &json), UD_ERR_DISCONNECTED);
    CHECK(json == NULL, "cleared");
    EXPECT(ud_app_close(app), UD_OK);
    EXPECT(ud_locator_click(add, NULL), UD_ERR_DISCONNECTED);
    ud_app_free(app);
    EXPECT(ud_locator_click(add, NULL), UD_ERR_DISCONNECTED);
    ud_locator_free(add);
}

/* ---- launching ---- */

static void launch(void) {
    char env_entry[4096];
    snprintf(env_entry, sizeof env_entry, "UIDRIVE_BIN=%s", uidrive_binary);
    const char *argv[] = {"/bin/sh", "-c", "exec \"$UIDRIVE_BIN\" serve --demo --socket \"$HARNESS_SOCKET\"", NULL};
    const char *env[] = {env_entry, NULL};
    ud_app *app = STALE;
    EXPECT(ud_launch(argv, env, "HARNESS_SOCKET", 20000, &app), UD_OK);
    if (!app) return;
    uint32_t pid = 0;
    EXPECT(ud_app_pid(app, &pid), UD_OK);
    CHECK(pid > 0 && kill((pid_t)pid, 0) == 0, "the launched process runs (pid %u)", pid);
    EXPECT(ud_act_by_key(app, 0, "add", UD_ACTION_PRESS, NULL), UD_OK);
    CHECK(tree_has(app, "Count: 1"), "a fresh app of its own");
    EXPECT(ud_app_close(app), UD_OK);
    errno = 0;
    CHECK(kill((pid_t)pid, 0) == -1 && errno == ESRCH, "closing ended the process");
    ud_app_free(app);

    /* Freeing without closing ends it too. */
    app = NULL;
    EXPECT(ud_launch(argv, env, "HARNESS_SOCKET", 20000, &app), UD_OK);
    pid = 0;
    EXPECT(ud_app_pid(app, &pid), UD_OK);
    ud_app_free(app);
    errno = 0;
    CHECK(pid > 0 && kill((pid_t)pid, 0) == -1 && errno == ESRCH, "freeing ended the process");

    /* Failures. */
    const char *exits[] = {"/bin/sh", "-c", "exit 3", NULL};
    app = STALE;
    EXPECT(ud_launch(exits, NULL, "HARNESS_SOCKET", 5000, &app), UD_ERR_APP_EXITED);
    CHECK(app == NULL, "cleared");
    const char *sleeps[] = {"sleep", "30", NULL};
    EXPECT(ud_launch(sleeps, NULL, "HARNESS_SOCKET", 300, &app), UD_ERR_TIMEOUT);
    const char *missing[] = {"/nonexistent/uidrive-app", NULL};
    EXPECT(ud_launch(missing, NULL, "HARNESS_SOCKET", 300, &app), UD_ERR_FAILED);
    const char *none[] = {NULL};
    EXPECT(ud_launch(none, NULL, "HARNESS_SOCKET", 300, &app), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_launch(NULL, NULL, "HARNESS_SOCKET", 300, &app), UD_ERR_INVALID_REQUEST);
    const char *bad_env[] = {"NO_EQUALS_SIGN", NULL};
    EXPECT(ud_launch(argv, bad_env, "HARNESS_SOCKET", 300, &app), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_launch(argv, env, "A=B", 300, &app), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_launch(argv, env, NULL, 300, &app), UD_ERR_INVALID_REQUEST);
    EXPECT(ud_launch(argv, env, "HARNESS_SOCKET", 300, NULL), UD_ERR_INVALID_REQUEST);
    CHECK(app == NULL, "still cleared");
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s SOCKET_PATH UIDRIVE_BINARY\n", argv[0]);
        return 2;
    }
    socket_path = argv[1];
    uidrive_binary = argv[2];

    versions();
    connect_errors();
    panics_and_frees();

    ud_app *app = NULL;
    EXPECT(ud_connect(socket_path, &app), UD_OK);
    if (!app) {
        fprintf(stderr, "could not connect to %s; stopping\n", socket_path);
        return 1;
    }
    reads(app);
    actions(app);
    input(app);
    capture_eval_idle(app);
    generic_call(app);
    last_error_per_thread(app);
    one_handle_many_threads(app);
    locators(app);
    close_and_free(app);
    freed_handles();
    launch();

    printf("harness: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
