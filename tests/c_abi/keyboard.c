/*
 * The keyboard through the C ABI on a real app: start a private headless
 * desktop, launch gtk3-widget-factory, type key by key into its entry with
 * ud_locator_press_sequentially, then press chords and type into whatever has
 * the focus with ud_press_key and ud_keyboard_type, reading the entry back
 * with ud_expect_value after each step; error paths of the new calls; free
 * everything. run.sh builds it with AddressSanitizer (leak detection on).
 *
 * usage: keyboard
 */
#define _POSIX_C_SOURCE 200809L

#include "uidrive.h"

#include <stdio.h>
#include <string.h>

static int failures;

static void check(int ok, const char *what) {
    if (ok) {
        printf("ok   %s\n", what);
    } else {
        failures++;
        fprintf(stderr, "FAIL %s: %s: %s\n", what, ud_last_error_code_name(), ud_last_error_message());
    }
}

/* The entry reads exactly `text` (waiting for it, as expect does). */
static void reads(const ud_locator *entry, const char *text) {
    char what[128];
    snprintf(what, sizeof what, "the entry reads \"%s\"", text);
    check(ud_expect_value(entry, text, UD_MATCH_EXACT, false, 10000) == UD_OK, what);
}

int main(void) {
    ud_desktop *desktop = NULL;
    if (ud_desktop_start(0, 0, 0, &desktop) != UD_OK) {
        fprintf(stderr, "ud_desktop_start: %s\n", ud_last_error_message());
        return 1;
    }
    const char *argv[] = {"gtk3-widget-factory", NULL};
    ud_app *app = NULL;
    if (ud_desktop_launch(desktop, argv, 60000, &app) != UD_OK) {
        fprintf(stderr, "ud_desktop_launch: %s\n", ud_last_error_message());
        ud_desktop_free(desktop);
        return 1;
    }

    /* The third enabled text field is the factory's entry that reads "entry". */
    ud_locator *entry = NULL;
    check(ud_app_locator(app, "role=textField[disabled=false] >> nth=2", &entry) == UD_OK,
          "ud_app_locator(the third enabled text field)");
    if (entry) {
        reads(entry, "entry");

        /* Select what it holds, then type over it key by key. */
        char *outcome = NULL;
        check(ud_locator_press(entry, "CmdOrCtrl+A", &outcome) == UD_OK, "ud_locator_press CmdOrCtrl+A");
        ud_string_free(outcome);
        outcome = NULL;
        check(ud_locator_press_sequentially(entry, "größer ✓", 5, &outcome) == UD_OK,
              "ud_locator_press_sequentially");
        check(outcome && strstr(outcome, "\"route\":\"input\"") != NULL, "its outcome says input");
        ud_string_free(outcome);
        reads(entry, "größer ✓");

        /* The app's keyboard types into the element that has the focus: the entry. */
        check(ud_press_key(app, UD_WINDOW_DEFAULT, "End") == UD_OK, "ud_press_key End");
        outcome = NULL;
        check(ud_keyboard_type(app, UD_WINDOW_DEFAULT, "!", 0, &outcome) == UD_OK, "ud_keyboard_type, one text event");
        check(outcome && strstr(outcome, "\"effect\":\"confirmed\"") != NULL,
              "its outcome says the focused entry reads the text");
        ud_string_free(outcome);
        check(ud_keyboard_type(app, UD_WINDOW_DEFAULT, "ab", 5, NULL) == UD_OK, "ud_keyboard_type, key by key");
        reads(entry, "größer ✓!ab");
        outcome = NULL;
        check(ud_keyboard_press(app, UD_WINDOW_DEFAULT, "Backspace", &outcome) == UD_OK, "ud_keyboard_press Backspace");
        check(outcome && strstr(outcome, "\"effect\":\"confirmed\"") != NULL,
              "its outcome says the focused entry changed");
        ud_string_free(outcome);
        reads(entry, "größer ✓!a");

        /* Refused at once: no text, a delay over the limit, a chord that is no key. */
        outcome = (char *)"stale";
        check(ud_locator_press_sequentially(entry, NULL, 0, &outcome) == UD_ERR_INVALID_REQUEST && outcome == NULL,
              "press_sequentially without text: invalid_request, outcome zeroed");
        check(ud_keyboard_type(app, UD_WINDOW_DEFAULT, NULL, 0, NULL) == UD_ERR_INVALID_REQUEST,
              "ud_keyboard_type without text: invalid_request");
        check(ud_keyboard_type(app, UD_WINDOW_DEFAULT, "x", 20000, NULL) == UD_ERR_INVALID_REQUEST,
              "ud_keyboard_type with a 20 s delay: invalid_request");
        check(ud_keyboard_type(NULL, UD_WINDOW_DEFAULT, "x", 0, NULL) == UD_ERR_INVALID_REQUEST,
              "ud_keyboard_type on no app: invalid_request");
        check(ud_press_key(app, UD_WINDOW_DEFAULT, "Ctrl+") == UD_ERR_INVALID_REQUEST,
              "ud_press_key Ctrl+: invalid_request");
        reads(entry, "größer ✓!a");
    }

    ud_locator_free(entry);
    ud_app_free(app);
    ud_desktop_free(desktop);
    printf("keyboard: %d failed\n", failures);
    return failures == 0 ? 0 : 1;
}
