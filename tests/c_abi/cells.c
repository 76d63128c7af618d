/*
 * A table's cells by their place through the C ABI on a real app: start a
 * private headless desktop, launch gtk3-widget-factory, and read the cells of
 * its tree view (GTK gives each cell its row and column) with
 * ud_locator_cell and the string form `cell=ROW,COLUMN`; a place with no cell,
 * and 0, which is no row; free everything. run.sh builds it with
 * AddressSanitizer (leak detection on).
 *
 * usage: cells
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

/* The cell reads exactly `want` (waiting for it, as expect does), and its
 * text says so too. */
static void cell_reads(const ud_locator *cell, const char *want, const char *what) {
    check(ud_expect_text(cell, want, UD_MATCH_EXACT, false, 10000) == UD_OK, what);
    char *text = NULL;
    check(ud_locator_text(cell, &text) == UD_OK && text && strcmp(text, want) == 0, what);
    ud_string_free(text);
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

    /* Page 1's tree view: columns Cool, Icon, Name, Nick. */
    ud_locator *table = NULL, *otto = NULL, *company = NULL, *orville = NULL, *checked = NULL,
               *none = NULL, *no_row = NULL, *no_column = NULL;
    check(ud_app_get_by_role(app, "table", NULL, UD_MATCH_SUBSTRING, &table) == UD_OK, "the table");
    check(ud_locator_cell(table, 2, 3, &otto) == UD_OK, "ud_locator_cell(2, 3)");
    check(ud_locator_cell(table, 4, 4, &company) == UD_OK, "ud_locator_cell(4, 4)");
    check(ud_app_locator(app, "role=table >> cell=3,3", &orville) == UD_OK, "the string form cell=3,3");
    check(ud_locator_cell(table, 1, 1, &checked) == UD_OK, "ud_locator_cell(1, 1)");
    check(ud_locator_cell(table, 5, 3, &none) == UD_OK, "ud_locator_cell(5, 3)");
    check(ud_locator_cell(table, 0, 1, &no_row) == UD_OK, "ud_locator_cell(0, 1) is made");
    check(ud_locator_cell(table, 1, 0, &no_column) == UD_OK, "ud_locator_cell(1, 0) is made");
    if (otto && company && orville && checked && none && no_row && no_column) {
        cell_reads(otto, "Otto", "row 2, column 3 reads Otto");
        cell_reads(company, "Company", "row 4, column 4 reads Company");
        cell_reads(orville, "Orville", "cell=3,3 reads Orville");
        check(ud_expect_state(checked, UD_EXPECT_CHECKED, false, 10000) == UD_OK,
              "row 1's toggle (column 1) is checked");

        /* No fifth row: nothing there. */
        size_t n = 7;
        check(ud_locator_count(none, &n) == UD_OK && n == 0, "no cell at row 5");

        /* Rows and columns count from 1: refused at first use. */
        char *text = (char *)"stale";
        check(ud_locator_text(no_row, &text) == UD_ERR_INVALID_REQUEST && text == NULL,
              "cell(0, 1): invalid_request, text zeroed");
        check(strstr(ud_last_error_message(), "count from 1") != NULL, "the message says rows count from 1");
        check(ud_locator_click(no_column, NULL) == UD_ERR_INVALID_REQUEST, "cell(1, 0): invalid_request");
    }

    ud_locator *all[] = {table, otto, company, orville, checked, none, no_row, no_column};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) ud_locator_free(all[i]);
    ud_app_free(app);
    ud_desktop_free(desktop);
    printf("cells: %d failed\n", failures);
    return failures == 0 ? 0 : 1;
}
