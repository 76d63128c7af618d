/*
 * The headless Wayland desktop through the C ABI: ud_desktop_start_with
 * refuses a backend that is none and Xwayland on X11; it starts sway
 * (UD_BACKEND_WAYLAND), whose environment names sway's socket by a name in
 * the desktop's own XDG_RUNTIME_DIR and no X display; mousepad
 * launched on it is a native Wayland client, text typed with real keys
 * reads back, and ud_app_close ends another when its window is asked to
 * close.
 * With xwayland, mousepad told GDK_BACKEND=x11 runs as an X client of
 * Xwayland and takes typed text the same way. run.sh builds it with
 * AddressSanitizer (leak detection on).
 *
 * usage: wayland
 */
#define _GNU_SOURCE /* struct ucred */

#include "uidrive.h"

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
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

/* Copies the value of `name` in the desktop's environment (JSON, with no
 * escapes in these values) into `buf`; 0 when it is not there. */
static int env_value(const char *json, const char *name, char *buf, size_t size) {
    char key[64];
    snprintf(key, sizeof key, "\"%s\":\"", name);
    const char *at = json ? strstr(json, key) : NULL;
    if (!at) {
        return 0;
    }
    at += strlen(key);
    const char *end = strchr(at, '"');
    if (!end || (size_t)(end - at) >= size) {
        return 0;
    }
    memcpy(buf, at, (size_t)(end - at));
    buf[end - at] = '\0';
    return 1;
}

/* Copies the name of the process listening on the Unix socket at `path`
 * (the kernel's SO_PEERCRED on a connection to it) into `comm`. */
static int listener_name(const char *path, char *comm, size_t size) {
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path) {
        return 0;
    }
    strcpy(addr.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct ucred cred = {0};
    socklen_t len = sizeof cred;
    int ok = fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0 &&
             getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.pid > 0;
    if (fd >= 0) {
        close(fd);
    }
    if (!ok) {
        return 0;
    }
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/%d/comm", (int)cred.pid);
    FILE *f = fopen(proc, "r");
    if (!f) {
        return 0;
    }
    int got = fgets(comm, (int)size, f) != NULL;
    fclose(f);
    comm[strcspn(comm, "\n")] = '\0';
    return got;
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
    /* As in a person's session: the socket by its name in the desktop's own runtime directory. */
    char name[256] = "", runtime[512] = "", socket_path[1024] = "", comm[32] = "";
    check(env_value(env, "WAYLAND_DISPLAY", name, sizeof name) && strncmp(name, "wayland-", 8) == 0 &&
              strchr(name, '/') == NULL,
          "WAYLAND_DISPLAY is a name, not a path");
    check(env_value(env, "XDG_RUNTIME_DIR", runtime, sizeof runtime) && runtime[0] == '/',
          "XDG_RUNTIME_DIR is the desktop's directory");
    snprintf(socket_path, sizeof socket_path, "%s/%s", runtime, name);
    check(listener_name(socket_path, comm, sizeof comm) && strcmp(comm, "sway") == 0,
          "the socket they name is sway's");
    check(env && strstr(env, "\"DISPLAY\"") == NULL, "and no X display");
    ud_string_free(env);
    type_into_mousepad(desktop, NULL, "typed from C on Wayland");
    ud_desktop_free(desktop);
    struct stat st;
    check(lstat(socket_path, &st) != 0 && lstat(runtime, &st) != 0,
          "freeing the desktop removed its runtime directory, the socket's name in it too");

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
