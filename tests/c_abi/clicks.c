/*
 * Mouse buttons and click counts through the C ABI on a real app: start a
 * private headless desktop, launch gtk3-widget-factory, right-click its entry
 * with ud_locator_click_button (GTK opens the entry's context menu, which
 * Escape closes), then double-click it (the word is selected, so typed text
 * replaces it); a button or count out of range is refused before anything is
 * looked for; free everything. run.sh builds it with AddressSanitizer (leak
 * detection on).
 *
 * usage: clicks
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

/* Clicks `button` `clicks` times; the outcome says real input was used. */
static void click(const ud_locator *locator, int32_t button, uint32_t clicks, const char *what) {
    char *outcome = NULL;
    check(ud_locator_click_button(locator, button, clicks, &outcome) == UD_OK, what);
    check(outcome && strstr(outcome, "\"route\":\"input\"") != NULL, "its outcome says input");
    ud_string_free(outcome);
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
    ud_locator *entry = NULL, *select_all = NULL, *paste = NULL, *missing = NULL;
    check(ud_app_locator(app, "role=textField[disabled=false] >> nth=2", &entry) == UD_OK,
          "ud_app_locator(the third enabled text field)");
    check(ud_app_get_by_role(app, "menuItem", "Select All", UD_MATCH_EXACT, &select_all) == UD_OK,
          "a locator for the menu item Select All");
    check(ud_app_get_by_role(app, "menuItem", "Paste", UD_MATCH_EXACT, &paste) == UD_OK,
          "a locator for the menu item Paste");
    check(ud_app_get_by_key(app, "no-such-key", &missing) == UD_OK, "a locator that finds nothing");
    if (entry && select_all && paste && missing) {
        check(ud_expect_value(entry, "entry", UD_MATCH_EXACT, false, 10000) == UD_OK, "the entry reads \"entry\"");

        /* A right click is the pointer's, never the entry's own action: GTK
         * opens the entry's context menu, a popup of its own. */
        click(entry, UD_BUTTON_RIGHT, 1, "ud_locator_click_button(UD_BUTTON_RIGHT, 1)");
        check(ud_expect_state(select_all, UD_EXPECT_VISIBLE, false, 10000) == UD_OK, "Select All shows");
        check(ud_expect_count(paste, 1, false, 10000) == UD_OK, "so does Paste");
        check(ud_press_key(app, UD_WINDOW_DEFAULT, "Escape") == UD_OK, "ud_press_key Escape");
        check(ud_expect_state(select_all, UD_EXPECT_HIDDEN, false, 10000) == UD_OK, "Escape closed the menu");

        /* Two clicks in a row select the word under the pointer, so typed
         * text replaces it. */
        click(entry, UD_BUTTON_LEFT, 2, "ud_locator_click_button(UD_BUTTON_LEFT, 2)");
        check(ud_keyboard_type(app, UD_WINDOW_DEFAULT, "X", 0, NULL) == UD_OK, "ud_keyboard_type X");
        check(ud_expect_value(entry, "X", UD_MATCH_EXACT, false, 10000) == UD_OK, "the word was replaced");

        /* Refused before anything is looked for: a locator that finds nothing
         * says invalid_request, not no_element; the outcome is zeroed. */
        int32_t bad_buttons[] = {-1, 3, 1000};
        for (size_t i = 0; i < sizeof bad_buttons / sizeof bad_buttons[0]; i++) {
            char *outcome = (char *)"stale";
            check(ud_locator_click_button(missing, bad_buttons[i], 1, &outcome) == UD_ERR_INVALID_REQUEST &&
                      outcome == NULL,
                  "a button out of range: invalid_request, outcome zeroed");
            check(strstr(ud_last_error_message(), "UD_BUTTON_RIGHT") != NULL, "the message names the buttons");
        }
        uint32_t bad_clicks[] = {0, 4, 4000000000u};
        for (size_t i = 0; i < sizeof bad_clicks / sizeof bad_clicks[0]; i++) {
            char *outcome = (char *)"stale";
            check(ud_locator_click_button(missing, UD_BUTTON_RIGHT, bad_clicks[i], &outcome) ==
                          UD_ERR_INVALID_REQUEST &&
                      outcome == NULL,
                  "a click count out of range: invalid_request, outcome zeroed");
            check(strstr(ud_last_error_message(), "1 to 3") != NULL, "the message gives the range");
        }
        check(ud_locator_click_button(NULL, UD_BUTTON_LEFT, 1, NULL) == UD_ERR_INVALID_REQUEST,
              "no locator: invalid_request");
    }

    ud_locator *all[] = {entry, select_all, paste, missing};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) ud_locator_free(all[i]);
    ud_app_free(app);
    ud_desktop_free(desktop);
    printf("clicks: %d failed\n", failures);
    return failures == 0 ? 0 : 1;
}
