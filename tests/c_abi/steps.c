/*
 * Scrolling, expanding, stepping, selecting text and held keys through the C
 * ABI on real apps: start a private headless desktop; on gtk4-demo, turn the
 * wheel over the demo list with ud_locator_scroll (later demos get their
 * names), fold and unfold the Benchmark row with ud_locator_collapse and
 * ud_locator_expand; on gtk3-widget-factory, step the spin button with
 * ud_locator_increment and ud_locator_decrement, select the entry's text with
 * ud_locator_select_text and hold Shift with ud_keyboard_down/ud_keyboard_up;
 * arguments out of range, bad strings and NULLs are refused before anything
 * is looked for; free everything. run.sh builds it with AddressSanitizer (leak
 * detection on).
 *
 * usage: steps
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

/* Whether `outcome` holds `part`; frees it. */
static int says(char *outcome, const char *part) {
    int found = outcome != NULL && strstr(outcome, part) != NULL;
    if (!found) fprintf(stderr, "     the outcome lacks %s: %s\n", part, outcome ? outcome : "(none)");
    ud_string_free(outcome);
    return found;
}

/* A call refused with UD_ERR_INVALID_REQUEST that zeroed its outcome (read
 * once the call, an argument, has run). */
static void refused(ud_status status, char *const *outcome, const char *what) {
    check(status == UD_ERR_INVALID_REQUEST && *outcome == NULL, what);
}

static ud_locator *find(const ud_app *app, const char *selector) {
    ud_locator *found = NULL;
    if (ud_app_locator(app, selector, &found) != UD_OK) {
        check(0, selector);
    }
    return found;
}

static void on_gtk4_demo(const ud_app *demo) {
    ud_locator *list = find(demo, "role=list[name=\"Demo list\"]");
    ud_locator *entry_row = find(demo, "role=list[name=\"Demo list\"] >> role=listItem[name=\"Entry\"]");
    ud_locator *benchmark = find(demo, "role=list[name=\"Demo list\"] >> role=group[name=\"Benchmark\"]");
    ud_locator *folded = find(demo, "role=list[name=\"Demo list\"] >> role=group[name=\"Benchmark\"][expanded=false]");
    ud_locator *fishbowl = find(demo, "role=list[name=\"Demo list\"] >> role=listItem[name=\"Fishbowl\"]");
    if (list && entry_row && benchmark && folded && fishbowl) {
        /* GTK 4 names only the rows it shows: Entry has none before the scroll. */
        size_t count = 99;
        check(ud_locator_count(entry_row, &count) == UD_OK && count == 0, "no row is named Entry yet");
        char *outcome = NULL;
        check(ud_locator_scroll(list, "down", 10, &outcome) == UD_OK, "ud_locator_scroll(down, 10)");
        check(says(outcome, "\"effect\":\"confirmed\""), "the scroll showed in the tree");
        check(ud_expect_count(entry_row, 0, true, 10000) == UD_OK, "rows named Entry came into view");
        outcome = NULL;
        check(ud_locator_scroll(list, "UP", 10, &outcome) == UD_OK, "ud_locator_scroll(UP, 10): any case");
        check(says(outcome, "\"route\":\"input\""), "the wheel is real input");

        outcome = NULL;
        check(ud_locator_collapse(benchmark, &outcome) == UD_OK, "ud_locator_collapse(Benchmark)");
        check(says(outcome, "\"effect\":\"confirmed\""), "it reads collapsed");
        check(ud_expect_count(folded, 1, false, 10000) == UD_OK, "Benchmark reads expanded=false");
        check(ud_expect_count(fishbowl, 0, false, 10000) == UD_OK, "its child Fishbowl went");
        outcome = NULL;
        check(ud_locator_collapse(benchmark, &outcome) == UD_OK, "ud_locator_collapse again");
        check(says(outcome, "\"route\":\"not_needed\""), "nothing was needed");
        outcome = NULL;
        check(ud_locator_expand(benchmark, &outcome) == UD_OK, "ud_locator_expand(Benchmark)");
        check(says(outcome, "\"effect\":\"confirmed\""), "it reads expanded");
        check(ud_expect_count(folded, 0, false, 10000) == UD_OK, "Benchmark no longer reads expanded=false");
        check(ud_expect_state(fishbowl, UD_EXPECT_VISIBLE, false, 10000) == UD_OK, "Fishbowl shows again");

        /* Refused before anything is looked for. */
        outcome = (char *)"stale";
        refused(ud_locator_scroll(list, "sideways", 1, &outcome), &outcome, "a direction that is none: invalid_request");
        check(strstr(ud_last_error_message(), "up, down, left or right") != NULL, "the message names the directions");
        outcome = (char *)"stale";
        refused(ud_locator_scroll(list, NULL, 1, &outcome), &outcome, "no direction: invalid_request");
        outcome = (char *)"stale";
        refused(ud_locator_scroll(list, "down", 0, &outcome), &outcome, "0 notches: invalid_request");
        outcome = (char *)"stale";
        refused(ud_locator_scroll(list, "down", 1001, &outcome), &outcome, "1001 notches: invalid_request");
        check(ud_locator_scroll(NULL, "down", 1, NULL) == UD_ERR_INVALID_REQUEST, "no locator: invalid_request");
        check(ud_locator_expand(NULL, NULL) == UD_ERR_INVALID_REQUEST, "ud_locator_expand(NULL)");
        check(ud_locator_collapse(NULL, NULL) == UD_ERR_INVALID_REQUEST, "ud_locator_collapse(NULL)");
    }
    ud_locator *all[] = {list, entry_row, benchmark, folded, fishbowl};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) ud_locator_free(all[i]);
}

/* Visual targets: text OCR reads on the capture, and the visual idle. */
static void by_what_it_shows(const ud_app *factory) {
    ud_locator *toggle = NULL;
    check(ud_app_get_by_ocr(factory, "togglebutton", UD_MATCH_EXACT, &toggle) == UD_OK, "ud_app_get_by_ocr");
    size_t count = 0;
    check(toggle && ud_locator_count(toggle, &count) == UD_OK && count >= 2, "OCR reads the toggle buttons' text");
    ud_locator *first = NULL;
    char *box = NULL;
    check(toggle && ud_locator_nth(toggle, 0, &first) == UD_OK && ud_locator_bounds(first, &box) == UD_OK, "the first one's box");
    check(says(box, "\"width\""), "with a width");
    ud_locator_free(first);
    ud_locator_free(toggle);
    char *region = (char *)"stale";
    check(ud_app_wait_changed(factory, UD_WINDOW_DEFAULT, "{\"x\":0,\"y\":0,\"width\":40,\"height\":40}", 500, &region) == UD_ERR_TIMEOUT, "a still corner does not change: timeout");
    check(region == NULL, "its out-param zeroed");
}

static void on_widget_factory(const ud_app *factory) {
    by_what_it_shows(factory);
    ud_locator *spin = find(factory, "role=stepper[disabled=false] >> nth=0");
    ud_locator *entry = find(factory, "role=textField[disabled=false] >> nth=2");
    ud_locator *check_box = find(factory, "role=checkBox[name=\"checkbutton\"][disabled=false] >> nth=0");
    if (spin && entry && check_box) {
        check(ud_expect_value(spin, "50", UD_MATCH_EXACT, false, 10000) == UD_OK, "the spin button reads 50");
        char *outcome = NULL;
        check(ud_locator_increment(spin, 3, &outcome) == UD_OK, "ud_locator_increment(3)");
        check(says(outcome, "\"route\":\"semantic:increment\""), "by its own increment action");
        check(ud_expect_value(spin, "53", UD_MATCH_EXACT, false, 10000) == UD_OK, "it reads 53");
        outcome = NULL;
        check(ud_locator_decrement(spin, 1, &outcome) == UD_OK, "ud_locator_decrement(1)");
        check(says(outcome, "\"effect\":\"confirmed\""), "confirmed");
        check(ud_expect_value(spin, "52", UD_MATCH_EXACT, false, 10000) == UD_OK, "it reads 52");
        check(ud_locator_set_value(spin, 1000, NULL) == UD_OK, "ud_locator_set_value(1000), its maximum");
        outcome = NULL;
        check(ud_locator_increment(spin, 1, &outcome) == UD_OK, "ud_locator_increment at the maximum");
        check(says(outcome, "\"route\":\"not_needed\""), "nothing was needed (nor sent)");
        outcome = (char *)"stale";
        refused(ud_locator_increment(spin, 0, &outcome), &outcome, "0 steps: invalid_request");
        outcome = (char *)"stale";
        refused(ud_locator_decrement(spin, 1001, &outcome), &outcome, "1001 steps: invalid_request");
        check(ud_locator_increment(check_box, 1, NULL) == UD_ERR_UNSUPPORTED, "a check box has no steps: unsupported");
        check(ud_locator_decrement(NULL, 1, NULL) == UD_ERR_INVALID_REQUEST, "ud_locator_decrement(NULL)");

        check(ud_expect_value(entry, "entry", UD_MATCH_EXACT, false, 10000) == UD_OK, "the entry reads \"entry\"");
        outcome = NULL;
        check(ud_locator_select_text(entry, 1, 4, &outcome) == UD_OK, "ud_locator_select_text(1, 4)");
        check(says(outcome, "\"selection\":[1,4]"), "the selection reads 1 to 4");
        outcome = (char *)"stale";
        refused(ud_locator_select_text(entry, 4, 1, &outcome), &outcome, "from after to: invalid_request");
        check(ud_locator_select_text(NULL, 0, 1, NULL) == UD_ERR_INVALID_REQUEST, "ud_locator_select_text(NULL)");

        /* Shift held over two presses of Left selects the two characters before the caret. */
        check(ud_locator_fill(entry, "hello", NULL) == UD_OK, "ud_locator_fill(hello)");
        /* The fill's value event, from the app's event stream, names the entry's text. */
        char *event = NULL;
        check(ud_app_wait_for_event(factory, "value", entry, 10000, &event) == UD_OK, "ud_app_wait_for_event(value, entry)");
        check(says(event, "\"value\":\"hello\""), "the value event carries what the entry reads");
        event = (char *)"stale";
        refused(ud_app_wait_for_event(factory, "blur", NULL, 100, &event), &event, "a kind that is none: invalid_request");
        check(ud_locator_press(entry, "End", NULL) == UD_OK, "ud_locator_press(End)");
        outcome = NULL;
        check(ud_keyboard_down(factory, UD_WINDOW_DEFAULT, "Shift", &outcome) == UD_OK, "ud_keyboard_down(Shift)");
        check(says(outcome, "\"effect\":\"unverifiable\""), "a held key shows nothing by itself");
        check(ud_press_key(factory, UD_WINDOW_DEFAULT, "Left") == UD_OK, "ud_press_key Left");
        check(ud_press_key(factory, UD_WINDOW_DEFAULT, "Left") == UD_OK, "ud_press_key Left");
        check(ud_keyboard_up(factory, UD_WINDOW_DEFAULT, "Shift", NULL) == UD_OK, "ud_keyboard_up(Shift)");
        char *node = NULL;
        check(ud_locator_node(entry, &node) == UD_OK, "ud_locator_node(entry)");
        check(says(node, "\"selection\":[3,5]"), "Shift+Left twice selected \"lo\"");
        check(ud_press_key(factory, UD_WINDOW_DEFAULT, "Left") == UD_OK, "ud_press_key Left, Shift released");
        node = NULL;
        check(ud_locator_node(entry, &node) == UD_OK, "ud_locator_node(entry)");
        check(says(node, "\"selection\":[3,3]"), "the selection dropped to the caret");

        outcome = (char *)"stale";
        refused(ud_keyboard_down(factory, UD_WINDOW_DEFAULT, "Hyper", &outcome), &outcome, "a chord that is none: invalid_request");
        outcome = (char *)"stale";
        refused(ud_keyboard_up(factory, UD_WINDOW_DEFAULT, NULL, &outcome), &outcome, "no chord: invalid_request");
        check(ud_keyboard_down(NULL, UD_WINDOW_DEFAULT, "Shift", NULL) == UD_ERR_INVALID_REQUEST, "no app: invalid_request");
    }
    ud_locator *all[] = {spin, entry, check_box};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) ud_locator_free(all[i]);
}

int main(void) {
    ud_desktop *desktop = NULL;
    if (ud_desktop_start(0, 0, 0, &desktop) != UD_OK) {
        fprintf(stderr, "ud_desktop_start: %s\n", ud_last_error_message());
        return 1;
    }
    const char *demo_argv[] = {"gtk4-demo", NULL};
    ud_app *demo = NULL;
    if (ud_desktop_launch(desktop, demo_argv, 60000, &demo) == UD_OK) {
        on_gtk4_demo(demo);
        ud_app_free(demo);
    } else {
        check(0, "ud_desktop_launch(gtk4-demo)");
    }
    const char *factory_argv[] = {"gtk3-widget-factory", NULL};
    ud_app *factory = NULL;
    if (ud_desktop_launch(desktop, factory_argv, 60000, &factory) == UD_OK) {
        on_widget_factory(factory);
        ud_app_free(factory);
    } else {
        check(0, "ud_desktop_launch(gtk3-widget-factory)");
    }
    ud_desktop_free(desktop);
    printf("steps: %d failed\n", failures);
    return failures == 0 ? 0 : 1;
}
