/*
 * The negative control of the AddressSanitizer step: this program leaks the
 * answers it gets on purpose, and run.sh checks that LeakSanitizer reports
 * them, so a clean harness run means something.
 */
#include "uidrive.h"

#include <stdio.h>
#include <string.h>

static size_t leak_one(const ud_app *app) {
    char *json = NULL;
    if (ud_windows(app, &json) != UD_OK) return 0;
    size_t len = strlen(json);
    json = NULL; /* the only pointer to the answer is gone: a leak */
    return len;
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    ud_app *app = NULL;
    if (ud_connect(argv[1], &app) != UD_OK) return 2;
    size_t total = 0;
    for (int i = 0; i < 3; i++) total += leak_one(app);
    ud_app_free(app);
    printf("read %zu bytes\n", total);
    return 0;
}
