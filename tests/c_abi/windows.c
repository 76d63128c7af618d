/*
 * Window management through the C ABI on uidrive's headless desktop (its
 * window manager, openbox, does what it is asked): gtk3-widget-factory's
 * window resized and maximized with ud_window_*, each answer read back;
 * ud_window_states, ud_apps and ud_capture_screen; a bad `before_json` is
 * refused. run.sh builds it with AddressSanitizer (leak detection on).
 *
 * usage: windows
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

static int has(const char *json, const char *part) { return json && strstr(json, part) != NULL; }

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

    char *json = NULL;
    check(ud_window_resize(app, UD_WINDOW_DEFAULT, 1500, 900, &json) == UD_OK, "ud_window_resize");
    check(has(json, "\"width\":1500") && has(json, "\"height\":900") && has(json, "\"confirmed\""),
          "the answer reads the new size back, confirmed");
    ud_string_free(json);

    json = NULL;
    check(ud_window_bounds(app, UD_WINDOW_DEFAULT, &json) == UD_OK && has(json, "\"width\":1500"),
          "ud_window_bounds reads it too");
    ud_string_free(json);

    json = NULL;
    check(ud_window_maximize(app, UD_WINDOW_DEFAULT, &json) == UD_OK && has(json, "\"maximized\""),
          "ud_window_maximize: maximized");
    ud_string_free(json);

    json = NULL;
    check(ud_window_states(app, UD_WINDOW_DEFAULT, &json) == UD_OK && has(json, "\"maximized\""),
          "ud_window_states says maximized");
    ud_string_free(json);

    json = NULL;
    check(ud_window_restore(app, UD_WINDOW_DEFAULT, &json) == UD_OK && !has(json, "\"maximized\""),
          "ud_window_restore: no longer maximized");
    ud_string_free(json);

    /* Below the app's own smallest size: refused, and said so. */
    json = (char *)"stale";
    check(ud_window_resize(app, UD_WINDOW_DEFAULT, 900, 700, &json) == UD_ERR_FAILED && json == NULL,
          "900x700: failed, out-param zeroed");
    check(strstr(ud_last_error_message(), "smallest size") != NULL, "the message names the app's smallest size");

    json = NULL;
    check(ud_apps(app, &json) == UD_OK && has(json, "\"gtk3-widget-factory\""), "ud_apps lists the app");
    ud_string_free(json);

    uint8_t *png = NULL;
    size_t len = 0;
    uint32_t width = 0, height = 0;
    check(ud_capture_screen(app, &png, &len, &width, &height) == UD_OK && width == 1920 && height == 1200 &&
              len > 8 && memcmp(png, "\x89PNG", 4) == 0,
          "ud_capture_screen: the whole 1920x1200 screen as PNG");
    ud_bytes_free(png);

    ud_locator *check_box = NULL;
    check(ud_app_locator(app, "role=checkBox name=checkbutton >> nth=0", &check_box) == UD_OK, "a check box");
    png = NULL;
    width = height = 0;
    check(ud_locator_screenshot(check_box, &png, &len, &width, &height) == UD_OK && width > 0 && width < 400 &&
              height > 0 && height < 200 && memcmp(png, "\x89PNG", 4) == 0,
          "ud_locator_screenshot: the check box alone");
    ud_bytes_free(png);
    ud_locator_free(check_box);

    json = NULL;
    check(ud_app_window_ids(app, &json) == UD_OK && json && json[0] == '[', "ud_app_window_ids: a JSON array");
    ud_string_free(json);
    json = (char *)"stale";
    check(ud_app_wait_for_new_window(app, "not json", 100, &json) == UD_ERR_INVALID_REQUEST && json == NULL,
          "a bad before_json is refused before any wait");

    ud_app_free(app);
    ud_desktop_free(desktop);
    printf("windows: %d failed\n", failures);
    return failures == 0 ? 0 : 1;
}
