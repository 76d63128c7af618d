/*
 * The tray through the C ABI on a real StatusNotifierItem: start a private
 * headless desktop (uidrive is its StatusNotifierWatcher), run the small tray
 * item of tests/apps/tray_item.py with the desktop's environment, list it
 * with ud_desktop_tray, activate it (ud_tray_activate), read its menu
 * (ud_tray_menu) and click an entry (ud_tray_click); the item writes what
 * was done to it to a log, which is read back. Then the refused arguments;
 * free everything. run.sh builds it with AddressSanitizer (leak detection on).
 *
 * usage: tray REPO_ROOT
 */
#define _POSIX_C_SOURCE 200809L

#include "uidrive.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* Whether the log holds the line `want`, read again every 100 ms up to 30 s. */
static int logged(const char *log, const char *want) {
    for (int tries = 0; tries < 300; tries++) {
        FILE *f = fopen(log, "r");
        if (f) {
            char line[256];
            int found = 0;
            while (!found && fgets(line, sizeof line, f)) {
                line[strcspn(line, "\n")] = '\0';
                found = strcmp(line, want) == 0;
            }
            fclose(f);
            if (found) {
                return 1;
            }
        }
        pause_ms(100);
    }
    return 0;
}

/*
 * Sets every variable of the flat JSON object `json` (ud_desktop_env's: string
 * keys and string values) in this process's environment. Enough JSON for that
 * object: \" and \\ escapes; it is only ever called in the child.
 */
static int set_env_from_json(const char *json) {
    char *copy = strdup(json);
    if (!copy) {
        return 0;
    }
    char *strings[2];
    int n = 0;
    char *p = copy;
    while ((p = strchr(p, '"'))) {
        char *start = ++p, *out = start;
        while (*p && *p != '"') {
            if (*p == '\\' && p[1]) {
                p++;
            }
            *out++ = *p++;
        }
        if (!*p) {
            break;
        }
        p++;
        *out = '\0';
        strings[n++] = start;
        if (n == 2) {
            setenv(strings[0], strings[1], 1);
            n = 0;
        }
    }
    free(copy);
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: tray REPO_ROOT\n");
        return 2;
    }
    char app_path[4096], log[64];
    snprintf(app_path, sizeof app_path, "%s/tests/apps/tray_item.py", argv[1]);
    snprintf(log, sizeof log, "/tmp/uidrive-tray-c.%ld.log", (long)getpid());
    unlink(log);

    ud_desktop *desktop = NULL;
    if (ud_desktop_start(0, 0, 0, &desktop) != UD_OK) {
        fprintf(stderr, "ud_desktop_start: %s\n", ud_last_error_message());
        return 1;
    }
    char *env = NULL;
    if (ud_desktop_env(desktop, &env) != UD_OK) {
        fprintf(stderr, "ud_desktop_env: %s\n", ud_last_error_message());
        ud_desktop_free(desktop);
        return 1;
    }
    fflush(stdout);
    pid_t item_pid = fork();
    if (item_pid == 0) {
        set_env_from_json(env);
        unsetenv("WAYLAND_DISPLAY");
        execl("/usr/bin/python3", "python3", app_path, log, (char *)NULL);
        _exit(127);
    }
    ud_string_free(env);
    check(item_pid > 0, "the tray item started");

    check(logged(log, "registered"), "the item registered with the watcher");
    char *json = NULL;
    check(ud_desktop_tray(desktop, &json) == UD_OK && json, "ud_desktop_tray");
    if (json) {
        check(strstr(json, "\"id\":\"uidrive-test-tray\"") != NULL, "the item is listed by its id");
        check(strstr(json, "\"title\":\"uidrive test tray\"") != NULL, "with its title");
        check(strstr(json, "\"tooltip\":\"Test tray\\nAll is well\"") != NULL, "its tooltip");
        check(strstr(json, "\"status\":\"Active\"") != NULL, "and its status");
    }
    ud_string_free(json);

    check(ud_tray_activate(desktop, "uidrive-test-tray") == UD_OK, "ud_tray_activate");
    check(logged(log, "activate 0 0"), "the item was activated");

    json = NULL;
    check(ud_tray_menu(desktop, "uidrive-test-tray", &json) == UD_OK && json, "ud_tray_menu");
    if (json) {
        /* Every entry, in the menu's order. */
        const char *open = strstr(json, "\"label\":\"Open Window\"");
        const char *quit = strstr(json, "\"label\":\"Quit\"");
        const char *disabled = strstr(json, "\"label\":\"Disabled\"");
        check(open && quit && disabled && open < quit && quit < disabled,
              "the menu reads Open Window, Quit, Disabled in order");
        check(strstr(json, "\"separator\":true") != NULL, "and its separator");
        /* The entry's own object: from its '{' to its '}' (no nesting in an entry). */
        int off = 0;
        if (disabled) {
            const char *start = disabled, *end = strchr(disabled, '}');
            while (start > json && *start != '{') {
                start--;
            }
            const char *flag = strstr(start, "\"enabled\":false");
            off = end && flag && flag < end;
        }
        check(off, "Disabled is not enabled");
    }
    ud_string_free(json);
    check(ud_tray_click(desktop, "uidrive-test-tray", "Open Window") == UD_OK, "ud_tray_click(Open Window)");
    check(logged(log, "clicked 1 _Open Window"), "the item got the menu's clicked event");

    /* Refused arguments, and a missing item. */
    json = (char *)1;
    check(ud_desktop_tray(NULL, &json) == UD_ERR_INVALID_REQUEST && json == NULL,
          "ud_desktop_tray refuses a NULL desktop, and zeroes its out-param");
    check(ud_tray_activate(desktop, NULL) == UD_ERR_INVALID_REQUEST, "ud_tray_activate refuses a NULL item");
    check(ud_tray_activate(desktop, "no-such-item") != UD_OK, "ud_tray_activate fails on an item not listed");

    if (item_pid > 0) {
        kill(item_pid, SIGTERM);
        waitpid(item_pid, NULL, 0);
    }
    unlink(log);
    ud_desktop_free(desktop);
    if (failures) {
        fprintf(stderr, "tray.c: %d failed\n", failures);
        return 1;
    }
    printf("tray.c: all passed\n");
    return 0;
}
