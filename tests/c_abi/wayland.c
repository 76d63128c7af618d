/*
 * The headless Wayland desktop through the C ABI: ud_desktop_start_with
 * refuses a backend that is none and Xwayland on X11; it starts sway
 * (UD_BACKEND_WAYLAND), whose environment names no X display; mousepad
 * launched on it is a native Wayland client, text typed with real keys
 * reads back, and ud_app_close ends another when its window is asked to
 * close.
 * With xwayland, mousepad told GDK_BACKEND=x11 runs as an X client of
 * Xwayland and takes typed text the same way. run.sh builds it with
 * AddressSanitizer (leak detection on).
 *
 * usage: wayland
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

/* Launches mousepad (with `env`, a NULL-terminated NAME=VALUE list, or
 * NULL), types `text` into its editor and reads it back; then closes a
 * fresh one, which has nothing to save. */
static void type_into_mousepad(const ud_desktop *desktop, const char *const *env, const char *text) {
    const char *argv[] = {"mousepad", NULL};
    ud_app *app = NULL;
    check(ud_desktop_launch_env(desktop, argv, env, 60000, &app) == UD_OK, "ud_desktop_launch_env(mousepad)");
    if (!app) {
        return;
    }
    ud_locator *editor = NULL;
    check(ud_app_locator(app, "role=textField >> nth=0", &editor) == UD_OK, "ud_app_locator(its editor)");
    if (editor) {
        char *outcome = NULL;
        check(ud_locator_click(editor, &outcome) == UD_OK, "ud_locator_click on the editor (a real click)");
        ud_string_free(outcome);
        outcome = NULL;
        check(ud_keyboard_type(app, UD_WINDOW_DEFAULT, text, 0, &outcome) == UD_OK, "ud_keyboard_type");
        check(outcome && strstr(outcome, "\"effect\":\"confirmed\"") != NULL,
              "its outcome says the editor reads the text");
        ud_string_free(outcome);
        check(ud_expect_value(editor, text, UD_MATCH_EXACT, false, 10000) == UD_OK, "the editor reads it back");
    }
    ud_locator_free(editor);
    ud_app_free(app);

    /* One with nothing to save closes when sway asks its window to. */
    app = NULL;
    check(ud_desktop_launch_env(desktop, argv, env, 60000, &app) == UD_OK, "ud_desktop_launch_env(mousepad) again");
    int32_t step = 0;
    check(ud_app_close(app) == UD_OK, "ud_app_close");
    check(ud_app_closed_by(app, &step) == UD_OK && step == UD_CLOSED_WINDOWS,
          "it closed when its window was asked to (through sway)");
    ud_app_free(app);
}

int main(void) {
    ud_desktop *desktop = (ud_desktop *)&failures; /* zeroed on failure */
    check(ud_desktop_start_with(0, 0, 0, 7, false, &desktop) == UD_ERR_INVALID_REQUEST && desktop == NULL,
          "backend 7: invalid_request, out zeroed");
    check(strstr(ud_last_error_message(), "UD_BACKEND_WAYLAND") != NULL, "the message names the backends");
    check(ud_desktop_start_with(0, 0, 0, UD_BACKEND_X11, true, &desktop) == UD_ERR_INVALID_REQUEST,
          "xwayland on X11: invalid_request");
    check(ud_desktop_start_with(0, 0, 0, UD_BACKEND_WAYLAND, false, NULL) == UD_ERR_INVALID_REQUEST,
          "no out-param: invalid_request");

    if (ud_desktop_start_with(0, 0, 0, UD_BACKEND_WAYLAND, false, &desktop) != UD_OK) {
        fprintf(stderr, "ud_desktop_start_with(UD_BACKEND_WAYLAND): %s\n", ud_last_error_message());
        return 1;
    }
    char *env = NULL;
    check(ud_desktop_env(desktop, &env) == UD_OK, "ud_desktop_env");
    check(env && strstr(env, "\"WAYLAND_DISPLAY\":\"/") != NULL, "its environment names sway's socket");
    check(env && strstr(env, "\"DISPLAY\"") == NULL, "and no X display");
    ud_string_free(env);
    type_into_mousepad(desktop, NULL, "typed from C on Wayland");
    ud_desktop_free(desktop);

    desktop = NULL;
    if (ud_desktop_start_with(0, 0, 0, UD_BACKEND_WAYLAND, true, &desktop) != UD_OK) {
        fprintf(stderr, "ud_desktop_start_with(UD_BACKEND_WAYLAND, xwayland): %s\n", ud_last_error_message());
        return 1;
    }
    env = NULL;
    check(ud_desktop_env(desktop, &env) == UD_OK, "ud_desktop_env with Xwayland");
    check(env && strstr(env, "\"DISPLAY\":\":") != NULL, "its environment names Xwayland's display");
    ud_string_free(env);
    const char *x_client[] = {"GDK_BACKEND=x11", NULL};
    type_into_mousepad(desktop, x_client, "typed from C into an X client on Xwayland");
    ud_desktop_free(desktop);

    printf("wayland: %d failed\n", failures);
    return failures == 0 ? 0 : 1;
}
