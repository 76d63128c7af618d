/*
 * The desktop's clipboard through the C ABI on a real app: start a private
 * headless desktop, launch mousepad, put text on the clipboard with
 * ud_clipboard_set and paste it (Ctrl+V), reading the editor back; then copy
 * in mousepad (Ctrl+A, Ctrl+C) and read it with ud_clipboard_get; clear it;
 * the refused arguments; free everything. run.sh builds it with
 * AddressSanitizer (leak detection on).
 *
 * usage: desktop_services
 */
#define _POSIX_C_SOURCE 200809L

#include "uidrive.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static int failures;

static void check(int ok, const char *what) {
    if (ok) {
        printf("ok   %s\n", what);
    } else {
        failures++;
        fprintf(stderr, "FAIL %s: %s: %s\n", what, ud_last_error_code_name(), ud_last_error_message());
    }
}

static void pause_ms(long ms) {
    struct timespec pause = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&pause, NULL);
}

/* Reads the clipboard until it holds `want` (an app's copy is asynchronous), up to 15 s. */
static int clipboard_reads(const ud_desktop *desktop, const char *want) {
    for (int tries = 0; tries < 150; tries++) {
        char *text = NULL;
        if (ud_clipboard_get(desktop, false, &text) != UD_OK) {
            return 0;
        }
        int same = text && strcmp(text, want) == 0;
        ud_string_free(text);
        if (same) {
            return 1;
        }
        pause_ms(100);
    }
    return 0;
}

int main(void) {
    ud_desktop *desktop = NULL;
    if (ud_desktop_start(0, 0, 0, &desktop) != UD_OK) {
        fprintf(stderr, "ud_desktop_start: %s\n", ud_last_error_message());
        return 1;
    }
    const char *argv[] = {"mousepad", NULL};
    ud_app *app = NULL;
    if (ud_desktop_launch(desktop, argv, 60000, &app) != UD_OK) {
        fprintf(stderr, "ud_desktop_launch: %s\n", ud_last_error_message());
        ud_desktop_free(desktop);
        return 1;
    }
    ud_locator *editor = NULL;
    check(ud_app_locator(app, "role=textField >> nth=0", &editor) == UD_OK, "ud_app_locator(the editor)");

    const char *set = "Pasted from C ✓";
    check(ud_clipboard_set(desktop, set, false) == UD_OK, "ud_clipboard_set");
    char *text = NULL;
    check(ud_clipboard_get(desktop, false, &text) == UD_OK && text && strcmp(text, set) == 0,
          "ud_clipboard_get reads what was set");
    ud_string_free(text);
    check(ud_press_key(app, UD_WINDOW_DEFAULT, "Ctrl+v") == UD_OK, "ud_press_key Ctrl+V");
    if (editor) {
        check(ud_expect_value(editor, set, UD_MATCH_EXACT, false, 15000) == UD_OK, "mousepad pasted it");
    }

    /* Empty: NULL text, and the call succeeds. */
    check(ud_clipboard_clear(desktop, false) == UD_OK, "ud_clipboard_clear");
    text = (char *)1;
    check(ud_clipboard_get(desktop, false, &text) == UD_OK && text == NULL, "an empty clipboard reads NULL");

    /* Copied in mousepad: mousepad holds the clipboard now. */
    check(ud_keyboard_type(app, UD_WINDOW_DEFAULT, " and typed", 0, NULL) == UD_OK, "ud_keyboard_type");
    check(ud_press_key(app, UD_WINDOW_DEFAULT, "Ctrl+a") == UD_OK, "ud_press_key Ctrl+A");
    check(ud_press_key(app, UD_WINDOW_DEFAULT, "Ctrl+c") == UD_OK, "ud_press_key Ctrl+C");
    check(clipboard_reads(desktop, "Pasted from C ✓ and typed"), "ud_clipboard_get reads what mousepad copied");

    /* Refused arguments. */
    check(ud_clipboard_set(desktop, NULL, false) == UD_ERR_INVALID_REQUEST, "ud_clipboard_set refuses NULL text");
    check(ud_clipboard_get(NULL, false, &text) == UD_ERR_INVALID_REQUEST && text == NULL,
          "ud_clipboard_get refuses a NULL desktop, and zeroes its out-param");
    check(ud_clipboard_get(desktop, false, NULL) == UD_ERR_INVALID_REQUEST, "ud_clipboard_get refuses a NULL out-param");

    ud_locator_free(editor);
    ud_app_free(app);
    ud_desktop_free(desktop);
    if (failures) {
        fprintf(stderr, "desktop_services.c: %d failed\n", failures);
        return 1;
    }
    printf("desktop_services.c: all passed\n");
    return 0;
}
