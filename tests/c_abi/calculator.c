/*
 * The C ABI's end-to-end scenario, using nothing but uidrive.h: start a
 * private headless desktop, launch gnome-calculator on it, compute 7 × 6
 * through locators, read 42 with ud_expect_value, print a snapshot, resolve
 * one of its refs, free everything, and check that no process and no folder
 * of the desktop is left behind. run.sh builds it with AddressSanitizer
 * (leak detection on) and runs it.
 *
 * usage: calculator
 */
#define _POSIX_C_SOURCE 200809L

#include "uidrive.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int fail(const char *what) {
    fprintf(stderr, "calculator: %s failed: %s: %s\n  hint: %s\n", what,
            ud_last_error_code_name(), ud_last_error_message(),
            ud_last_error_suggestion());
    return 1;
}

/* Copies the string value of "NAME":"..." in a flat JSON object (the
 * desktop's env has no escapes in these two values). */
static int json_value(const char *json, const char *name, char *out, size_t size) {
    char needle[64];
    snprintf(needle, sizeof needle, "\"%s\":\"", name);
    const char *at = strstr(json, needle);
    if (!at) return 0;
    at += strlen(needle);
    const char *end = strchr(at, '"');
    if (!end || (size_t)(end - at) >= size) return 0;
    memcpy(out, at, (size_t)(end - at));
    out[end - at] = '\0';
    return 1;
}

/* Reads a /proc file whole (NULs kept); the caller frees it. */
static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *bigger = realloc(buf, cap *= 2);
            if (!bigger) { free(buf); buf = NULL; }
            else buf = bigger;
        }
    }
    fclose(f);
    if (buf) *len = n;
    return buf;
}

static int contains(const char *buf, size_t len, const char *needle) {
    size_t n = strlen(needle);
    for (size_t i = 0; n <= len && i <= len - n; i++)
        if (memcmp(buf + i, needle, n) == 0) return 1;
    return 0;
}

/* How many processes other than this one belong to the desktop: their
 * command line or environment names its runtime folder (unique to this
 * desktop: a display number is not, another desktop may take it up as
 * soon as this one lets it go). Prints each one found. */
static int leftovers(const char *runtime_dir) {
    int found = 0;
    DIR *proc = opendir("/proc");
    if (!proc) return 0;
    struct dirent *entry;
    while ((entry = readdir(proc))) {
        char *end;
        long pid = strtol(entry->d_name, &end, 10);
        if (*end || pid <= 0 || pid == (long)getpid()) continue;
        char path[64];
        size_t len = 0;
        int mine = 0;
        snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
        char *cmdline = slurp(path, &len);
        if (cmdline && contains(cmdline, len, runtime_dir)) mine = 1;
        snprintf(path, sizeof path, "/proc/%ld/environ", pid);
        char *environ_ = slurp(path, &len);
        if (environ_ && contains(environ_, len, runtime_dir)) mine = 1;
        /* A child of this process (a zombie too) is left behind as well. */
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        size_t stat_len = 0;
        char *stat_text = slurp(path, &stat_len);
        if (stat_text && stat_len > 0) {
            stat_text[stat_len - 1] = '\0';
            const char *after = strrchr(stat_text, ')');
            char state;
            long ppid;
            if (after && sscanf(after + 1, " %c %ld", &state, &ppid) == 2 && ppid == (long)getpid())
                mine = 1;
        }
        free(stat_text);
        if (mine) {
            found++;
            fprintf(stderr, "calculator: left behind: pid %ld: %s\n", pid,
                    cmdline ? cmdline : "?");
        }
        free(cmdline);
        free(environ_);
    }
    closedir(proc);
    return found;
}

/* The pid in the X server lock of `display` (as ":3"); 0 if there is none,
 * -1 if it cannot be read. */
static long x_lock_pid(const char *display) {
    char path[64];
    snprintf(path, sizeof path, "/tmp/.X%s-lock", display + 1);
    size_t len = 0;
    char *text = slurp(path, &len);
    if (!text) return 0;
    char line[32] = {0};
    memcpy(line, text, len < sizeof line - 1 ? len : sizeof line - 1);
    free(text);
    long pid = -1;
    if (sscanf(line, " %ld", &pid) != 1) pid = -1;
    return pid;
}

static void sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* Clicks the calculator button named exactly `name`. */
static int press(ud_app *app, const char *name) {
    ud_locator *button = NULL;
    if (ud_app_get_by_role(app, "button", name, UD_MATCH_EXACT, &button) != UD_OK)
        return fail("ud_app_get_by_role(button)");
    char *outcome = NULL;
    ud_status status = ud_locator_click(button, &outcome);
    ud_locator_free(button);
    if (status != UD_OK) return fail("ud_locator_click");
    printf("pressed %s: %.60s...\n", name, outcome);
    int ok = strstr(outcome, "\"route\":\"") != NULL;
    ud_string_free(outcome);
    if (!ok) {
        fprintf(stderr, "calculator: the outcome has no route\n");
        return 1;
    }
    return 0;
}

int main(void) {
    if (ud_abi_version() != UD_ABI_VERSION) {
        fprintf(stderr, "calculator: ABI %u, built for %u\n", ud_abi_version(), UD_ABI_VERSION);
        return 1;
    }

    ud_desktop *desktop = NULL;
    if (ud_desktop_start(0, 0, 0, &desktop) != UD_OK) return fail("ud_desktop_start");

    char *env = NULL;
    if (ud_desktop_env(desktop, &env) != UD_OK) {
        ud_desktop_free(desktop);
        return fail("ud_desktop_env");
    }
    char display[32], runtime_dir[512];
    int have = json_value(env, "DISPLAY", display, sizeof display) &&
               json_value(env, "XDG_RUNTIME_DIR", runtime_dir, sizeof runtime_dir);
    ud_string_free(env);
    if (!have) {
        fprintf(stderr, "calculator: the desktop's env lacks DISPLAY or XDG_RUNTIME_DIR\n");
        ud_desktop_free(desktop);
        return 1;
    }
    printf("desktop %s, runtime folder %s\n", display, runtime_dir);
    long xvfb = x_lock_pid(display);

    const char *argv[] = {"gnome-calculator", NULL};
    ud_app *app = NULL;
    if (ud_desktop_launch(desktop, argv, 60000, &app) != UD_OK) {
        ud_desktop_free(desktop);
        return fail("ud_desktop_launch");
    }
    uint32_t pid = 0;
    ud_app_pid(app, &pid);
    printf("gnome-calculator runs as pid %u\n", pid);

    int failed = 0;
    const char *keys[] = {"7", "×", "6", "="};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0] && !failed; i++)
        failed = press(app, keys[i]);

    /* The first text field is the calculator's editable display. */
    ud_locator *fields = NULL, *result = NULL;
    if (!failed && ud_app_get_by_role(app, "textField", NULL, UD_MATCH_SUBSTRING, &fields) != UD_OK)
        failed = fail("ud_app_get_by_role(textField)");
    if (!failed && ud_locator_first(fields, &result) != UD_OK)
        failed = fail("ud_locator_first");
    if (!failed && ud_expect_value(result, "42", UD_MATCH_EXACT, false, 10000) != UD_OK)
        failed = fail("ud_expect_value 42");
    if (!failed) printf("the display reads 42\n");

    /* An element that is not there: the error names the app's windows. */
    ud_locator *absent = NULL, *absent_quick = NULL;
    if (!failed && ud_app_get_by_role(app, "button", "no such button", UD_MATCH_EXACT, &absent) != UD_OK)
        failed = fail("ud_app_get_by_role(absent)");
    if (!failed && ud_locator_with_timeout(absent, 300, &absent_quick) != UD_OK)
        failed = fail("ud_locator_with_timeout");
    if (!failed) {
        if (ud_locator_click(absent_quick, NULL) != UD_ERR_NO_ELEMENT ||
            !strstr(ud_last_error_message(), "the app's windows: ") ||
            !strstr(ud_last_error_message(), "\"Calculator\"")) {
            fprintf(stderr, "calculator: no_element does not name the windows: %s\n", ud_last_error_message());
            failed = 1;
        } else {
            printf("no_element names the windows: %s\n", strstr(ud_last_error_message(), "the app's"));
        }
    }
    ud_locator_free(absent_quick);
    ud_locator_free(absent);

    /* A role that does not exist is refused at once, not waited for. */
    ud_locator *nothing = NULL;
    if (!failed && ud_app_get_by_role(app, "buton", "7", UD_MATCH_EXACT, &nothing) != UD_ERR_INVALID_REQUEST) {
        fprintf(stderr, "calculator: an unknown role was not refused\n");
        failed = 1;
    }
    ud_locator_free(nothing);

    char *snapshot = NULL;
    if (!failed && ud_app_snapshot(app, true, &snapshot) != UD_OK)
        failed = fail("ud_app_snapshot");
    if (!failed) {
        printf("--- snapshot (controls) ---\n%s--- end ---\n", snapshot);
        /* Resolve the ref of the "=" button: its line is `@eN [button] "="`. */
        const char *line = strstr(snapshot, "[button] \"=\"\n");
        const char *start = line;
        while (start && start > snapshot && start[-1] != '\n') start--;
        char ref[16] = {0};
        if (start && start[0] == '@') {
            size_t n = strcspn(start, " ");
            if (n < sizeof ref) memcpy(ref, start, n);
        }
        ud_locator *by_ref = NULL;
        char *text = NULL;
        if (!ref[0]) {
            fprintf(stderr, "calculator: no ref for the = button in the snapshot\n");
            failed = 1;
        } else if (ud_app_get_by_ref(app, ref, &by_ref) != UD_OK) {
            failed = fail("ud_app_get_by_ref");
        } else if (ud_locator_text(by_ref, &text) != UD_OK) {
            failed = fail("ud_locator_text");
        } else {
            printf("%s is the button \"%s\"\n", ref, text);
        }
        ud_string_free(text);
        ud_locator_free(by_ref);
        /* A ref never given is stale at once. */
        if (!failed && ud_app_get_by_ref(app, "@e99999", &by_ref) != UD_ERR_STALE_REF) {
            fprintf(stderr, "calculator: a ref never given was not stale_ref\n");
            failed = 1;
        }
    }
    ud_string_free(snapshot);
    ud_locator_free(result);
    ud_locator_free(fields);

    /* A dialog that answers on stdout: zenity prints the entry's text and exits 0. */
    const char *entry[] = {"zenity", "--entry", "--title=Name", "--text=Your name", NULL};
    ud_app *dialog = NULL;
    ud_locator *field = NULL, *ok = NULL;
    if (!failed && ud_desktop_launch_captured(desktop, entry, 60000, &dialog) != UD_OK)
        failed = fail("ud_desktop_launch_captured");
    if (!failed && ud_app_get_by_role(dialog, "textField", NULL, UD_MATCH_SUBSTRING, &field) != UD_OK)
        failed = fail("ud_app_get_by_role(dialog textField)");
    if (!failed && ud_locator_fill(field, "Ada", NULL) != UD_OK) failed = fail("ud_locator_fill");
    if (!failed && ud_app_get_by_role(dialog, "button", "OK", UD_MATCH_EXACT, &ok) != UD_OK)
        failed = fail("ud_app_get_by_role(OK)");
    if (!failed && ud_locator_click(ok, NULL) != UD_OK) failed = fail("ud_locator_click(OK)");
    int32_t code = -1;
    if (!failed && ud_app_wait(dialog, 10000, &code) != UD_OK) failed = fail("ud_app_wait");
    char *answer = NULL;
    if (!failed && ud_app_output(dialog, false, &answer) != UD_OK) failed = fail("ud_app_output");
    if (!failed) {
        if (code != 0 || strcmp(answer, "Ada\n") != 0) {
            fprintf(stderr, "calculator: zenity exited %d and printed \"%s\"\n", code, answer);
            failed = 1;
        } else {
            printf("zenity exited 0 and printed Ada\n");
        }
    }
    ud_string_free(answer);
    ud_locator_free(ok);
    ud_locator_free(field);
    ud_app_free(dialog);

    /* The calculator closes when its window is asked to, as a close button asks. */
    int32_t step = -1;
    if (!failed && ud_app_closed_by(app, &step) != UD_OK) failed = fail("ud_app_closed_by");
    if (!failed && step != UD_CLOSED_NOT_YET) {
        fprintf(stderr, "calculator: closed_by %d before the close\n", step);
        failed = 1;
    }
    if (!failed && ud_app_close(app) != UD_OK) failed = fail("ud_app_close");
    if (!failed && ud_app_closed_by(app, &step) != UD_OK) failed = fail("ud_app_closed_by");
    if (!failed && step != UD_CLOSED_WINDOWS) {
        fprintf(stderr, "calculator: closed_by %d, not UD_CLOSED_WINDOWS\n", step);
        failed = 1;
    } else if (!failed) {
        printf("the calculator closed when its window was asked to\n");
    }
    ud_app_free(app);
    ud_desktop_free(desktop);   /* the registry, the buses, Xvfb, the folder */

    /* Nothing of the desktop is left: poll briefly, processes end asynchronously. */
    int left = 0;
    for (int i = 0; i < 50; i++) {
        left = leftovers(runtime_dir);
        if (!left) break;
        sleep_ms(100);
    }
    struct stat st;
    int folder_left = stat(runtime_dir, &st) == 0;
    if (folder_left) fprintf(stderr, "calculator: the runtime folder %s is still there\n", runtime_dir);
    /* The X server's own files, its lock and its socket, unless another
     * desktop's X server took the display number since (its lock says so). */
    long now = x_lock_pid(display);
    if (now == xvfb || now == 0) {
        char x_file[64];
        snprintf(x_file, sizeof x_file, "/tmp/.X%s-lock", display + 1);
        int lock_left = stat(x_file, &st) == 0;
        snprintf(x_file, sizeof x_file, "/tmp/.X11-unix/X%s", display + 1);
        if (lock_left || stat(x_file, &st) == 0) {
            fprintf(stderr, "calculator: the X server's lock or socket (%s) is still there\n", x_file);
            folder_left = 1;
        }
    }
    if (pid && kill((pid_t)pid, 0) == 0) {
        fprintf(stderr, "calculator: gnome-calculator (pid %u) still runs\n", pid);
        failed = 1;
    }
    if (left || folder_left) failed = 1;
    printf("calculator: %s\n", failed ? "FAILED" : "ok, nothing left behind");
    return failed;
}
