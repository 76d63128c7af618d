#!/usr/bin/env bash
# The C ABI's tests: the Rust boundary tests (with the header drift and
# C99/C++17 compile checks), the C harness under AddressSanitizer against a
# real `uidrive serve`, the Go harness (cgo), pkg-config and static linking,
# and the example of docs/c-api.md.
#
# Uses CARGO_TARGET_DIR when set, else target/; UIDRIVE_PROFILE=release for
# a release build. Ends with `c_abi: N passed, M failed` and exits non-zero
# on any failure.
#
# scripts/test.sh has built the workspace and run `cargo test --workspace`
# (which holds the Rust boundary tests and the header's C99/C++17 compile
# checks) before it calls this script; it sets UIDRIVE_C_ABI_RUST_TESTS=0 so
# they are not run twice, and the cargo build below finds nothing to compile.
set -uo pipefail
export RUST_BACKTRACE=0  # ud_test_panic prints its deliberate panic; keep it short

root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
profile="${UIDRIVE_PROFILE:-debug}"
cargo_profile=()
[ "$profile" = release ] && cargo_profile=(--release)
libdir="$target_dir/$profile"
uidrive_bin="$libdir/uidrive"

work="$(mktemp -d "${TMPDIR:-/tmp}/uidrive-c-abi.XXXXXX")"
serve_pid=""
serve2_pid=""
cleanup() {
    for pid in $serve_pid $serve2_pid; do
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    rm -rf "$work"
}
trap cleanup EXIT

passed=0
failed=0
# step NAME COMMAND...: runs one check, shows its output only when it fails.
step() {
    local name="$1"
    shift
    local log="$work/step.log"
    if "$@" >"$log" 2>&1; then
        passed=$((passed + 1))
        echo "ok   - $name"
        # A harness's own tally, when it prints one.
        grep -E '^(harness|go harness): [0-9]+ passed' "$log" | sed 's/^/       /'
        grep -E '^test result: ' "$log" | sed 's/^/       /'
        true
    else
        failed=$((failed + 1))
        echo "FAIL - $name"
        sed 's/^/       /' "$log"
    fi
}
finish() {
    echo "c_abi: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit $?
}

echo "building libuidrive and uidrive ($profile, $target_dir)"
# Its output is shown (not only on failure) so a log shows any compilation.
# `test-panic` exports ud_test_panic (not in the header) for the harness.
if ! cargo build "${cargo_profile[@]}" -p uidrive -p uidrive-cli --features uidrive/test-panic; then
    failed=$((failed + 1))
    echo "FAIL - cargo build"
    finish
fi

# The header on its own, with the strictest flags, as C99 and as C++17, is
# compiled by ffi/tests/header.rs, part of these tests.
if [ "${UIDRIVE_C_ABI_RUST_TESTS:-1}" != 0 ]; then
    step "cargo test -p uidrive (hardening rules, header drift, C99/C++17 header compile)" \
        cargo test "${cargo_profile[@]}" -p uidrive
fi

tests/c_abi/make-pc.sh "$root/include" "$libdir" "$work/pkgconfig"
export PKG_CONFIG_PATH="$work/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"

# The example of docs/c-api.md: the first ```c block after the run.sh marker.
awk '/tests\/c_abi\/run.sh extracts/ {armed=1; next}
     armed && /^```c$/ {inside=1; next}
     inside && /^```$/ {exit}
     inside {print}' docs/c-api.md >"$work/example.c"
step "docs/c-api.md example compiles with \$(pkg-config --cflags --libs uidrive)" \
    bash -c "test -s '$work/example.c' && cc -std=c99 -Wall -Wextra -Werror '$work/example.c' \$(pkg-config --cflags --libs uidrive) -o '$work/example'"
step "docs/c-api.md example links statically against libuidrive.a" \
    bash -c "cc -std=c99 -Wall -Wextra '$work/example.c' -Iinclude '$libdir/libuidrive.a' -lpthread -ldl -lm -o '$work/example_static'"

# A real `uidrive serve` with the demo UI.
socket="$work/demo.sock"
"$uidrive_bin" serve --demo --socket "$socket" 2>"$work/serve.log" &
serve_pid=$!
for _ in $(seq 1 200); do
    if grep -q UIDRIVE_LISTENING "$work/serve.log" 2>/dev/null || [ -S "$socket" ]; then break; fi
    if ! kill -0 "$serve_pid" 2>/dev/null; then break; fi
    sleep 0.05
done
if ! [ -S "$socket" ]; then
    echo "FAIL - uidrive serve did not listen on $socket within 10 s:"
    cat "$work/serve.log"
    failed=$((failed + 1))
    finish
fi

step "docs/c-api.md example runs against uidrive serve" \
    bash -c "'$work/example' '$socket' | grep -q 'Count: 1'"

# The C harness: every function and error path, under AddressSanitizer with
# leak detection. It needs a fresh demo UI, so it gets a server of its own.
socket2="$work/harness.sock"
"$uidrive_bin" serve --demo --socket "$socket2" 2>"$work/serve2.log" &
serve2_pid=$!
for _ in $(seq 1 200); do [ -S "$socket2" ] && break; sleep 0.05; done
step "C harness builds with -fsanitize=address" \
    bash -c "cc -std=c99 -g -fsanitize=address -fno-omit-frame-pointer -Wall -Wextra -Werror tests/c_abi/harness.c \$(pkg-config --cflags --libs uidrive) -lpthread -o '$work/harness'"
step "C harness under AddressSanitizer (no errors, no leaks)" \
    timeout 600 env ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1 \
    "$work/harness" "$socket2" "$uidrive_bin"
step "LeakSanitizer catches a leaked answer (negative control for the step above)" \
    bash -c "cc -std=c99 -g -fsanitize=address tests/c_abi/leak_control.c \$(pkg-config --cflags --libs uidrive) -o '$work/leak_control' &&
             ! ASAN_OPTIONS=detect_leaks=1 '$work/leak_control' '$socket2' 2>'$work/leak.log' &&
             grep -q 'LeakSanitizer: detected memory leaks' '$work/leak.log' &&
             grep -q 'leak_control.c' '$work/leak.log'"
kill "$serve2_pid" 2>/dev/null
wait "$serve2_pid" 2>/dev/null
serve2_pid=""

# The Go harness (cgo), against the first server.
step "Go harness (cgo, pkg-config) runs the main scenario" \
    env GOCACHE="$work/gocache" GOPATH="$work/gopath" GOFLAGS=-mod=mod GOPROXY=off GO111MODULE=on \
    bash -c "cd tests/c_abi/go && go build -o '$work/go_harness' . && timeout 300 '$work/go_harness' '$socket'"

# The end-to-end scenario from C and from Go: a private headless desktop,
# gnome-calculator, 7 × 6 = 42 through locators, a snapshot and a ref; then
# nothing of the desktop may be left (processes, runtime folder, X files).
step "calculator.c under AddressSanitizer: headless desktop, gnome-calculator 7 × 6 = 42, nothing left behind" \
    bash -c "cc -std=c99 -g -fsanitize=address -fno-omit-frame-pointer -Wall -Wextra -Werror tests/c_abi/calculator.c \$(pkg-config --cflags --libs uidrive) -o '$work/calculator' &&
             ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 timeout 300 '$work/calculator'"
# The keyboard on a real app: gtk3-widget-factory's entry, typed into key by
# key through a locator, then chords and text into the focused element.
step "keyboard.c under AddressSanitizer: gtk3-widget-factory's entry through ud_locator_press_sequentially, ud_keyboard_type and ud_press_key" \
    bash -c "cc -std=c99 -g -fsanitize=address -fno-omit-frame-pointer -Wall -Wextra -Werror tests/c_abi/keyboard.c \$(pkg-config --cflags --libs uidrive) -o '$work/keyboard' &&
             ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 timeout 300 '$work/keyboard'"
# A table's cells by their place: gtk3-widget-factory's tree view.
step "cells.c under AddressSanitizer: gtk3-widget-factory's tree view through ud_locator_cell and cell=ROW,COLUMN" \
    bash -c "cc -std=c99 -g -fsanitize=address -fno-omit-frame-pointer -Wall -Wextra -Werror tests/c_abi/cells.c \$(pkg-config --cflags --libs uidrive) -o '$work/cells' &&
             ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 timeout 300 '$work/cells'"
# Mouse buttons and click counts: a right click opens gtk3-widget-factory's
# entry menu, a double click selects its word.
step "clicks.c under AddressSanitizer: gtk3-widget-factory's entry through ud_locator_click_button (right: its context menu; 2 clicks: its word)" \
    bash -c "cc -std=c99 -g -fsanitize=address -fno-omit-frame-pointer -Wall -Wextra -Werror tests/c_abi/clicks.c \$(pkg-config --cflags --libs uidrive) -o '$work/clicks' &&
             ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 timeout 300 '$work/clicks'"
# Scroll, expand/collapse, steps, text selection and held keys: gtk4-demo's
# demo list and tree rows, gtk3-widget-factory's spin button and entry.
step "steps.c under AddressSanitizer: ud_locator_scroll, _expand, _collapse on gtk4-demo; _increment, _decrement, _select_text, ud_keyboard_down/_up, ud_app_wait_for_event on gtk3-widget-factory" \
    bash -c "cc -std=c99 -g -fsanitize=address -fno-omit-frame-pointer -Wall -Wextra -Werror tests/c_abi/steps.c \$(pkg-config --cflags --libs uidrive) -o '$work/steps' &&
             ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 timeout 300 '$work/steps'"
# The desktop's clipboard: text set from C pastes into mousepad, what mousepad copies reads back.
step "desktop_services.c under AddressSanitizer: ud_clipboard_set/_get/_clear with mousepad (Ctrl+V, Ctrl+C)" \
    bash -c "cc -std=c99 -g -fsanitize=address -fno-omit-frame-pointer -Wall -Wextra -Werror tests/c_abi/desktop_services.c \$(pkg-config --cflags --libs uidrive) -o '$work/desktop_services' &&
             ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 timeout 300 '$work/desktop_services'"
# The tray: the small StatusNotifierItem of tests/apps listed, activated, its menu read and clicked.
step "tray.c under AddressSanitizer: ud_desktop_tray, ud_tray_activate, ud_tray_menu, ud_tray_click on tests/apps/tray_item.py" \
    bash -c "cc -std=c99 -g -fsanitize=address -fno-omit-frame-pointer -Wall -Wextra -Werror tests/c_abi/tray.c \$(pkg-config --cflags --libs uidrive) -o '$work/tray' &&
             ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 timeout 300 '$work/tray' '$root'"
# Window management through the window manager: gtk3-widget-factory's window.
step "windows.c under AddressSanitizer: ud_window_resize, _maximize, _restore, _bounds, _states, ud_apps, ud_capture_screen on gtk3-widget-factory" \
    bash -c "cc -std=c99 -g -fsanitize=address -fno-omit-frame-pointer -Wall -Wextra -Werror tests/c_abi/windows.c \$(pkg-config --cflags --libs uidrive) -o '$work/windows' &&
             ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 timeout 300 '$work/windows'"
# The headless Wayland desktop (sway) and Xwayland on request: mousepad as a
# native Wayland client, then as an X client of Xwayland.
step "wayland.c under AddressSanitizer: ud_desktop_start_with(UD_BACKEND_WAYLAND), mousepad typed into and read back, then with Xwayland (GDK_BACKEND=x11)" \
    bash -c "cc -std=c99 -g -fsanitize=address -fno-omit-frame-pointer -Wall -Wextra -Werror tests/c_abi/wayland.c \$(pkg-config --cflags --libs uidrive) -o '$work/wayland' &&
             ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 timeout 300 '$work/wayland'"
step "Go calculator (cgo): the same scenario, nothing left behind" \
    env GOCACHE="$work/gocache" GOPATH="$work/gopath" GOFLAGS=-mod=mod GOPROXY=off GO111MODULE=on \
    bash -c "cd tests/c_abi/go && go build -o '$work/go_calculator' ./calculator && timeout 300 '$work/go_calculator'"
# The Go example of docs/go-example.md: the first ```go block after its
# run.sh marker, as a module of its own, built with cgo and run.
mkdir -p "$work/go-example"
awk '/tests\/c_abi\/run.sh extracts/ {armed=1; next}
     armed && /^```go$/ {inside=1; armed=0; next}
     inside && /^```$/ {exit}
     inside {print}' docs/go-example.md >"$work/go-example/main.go"
printf 'module example.com/calc\n\ngo 1.19\n' >"$work/go-example/go.mod"
step "docs/go-example.md builds with cgo and computes 7 x 6 = 42 on gnome-calculator" \
    env GOCACHE="$work/gocache" GOPATH="$work/gopath" GOFLAGS=-mod=mod GOPROXY=off GO111MODULE=on \
    bash -c "test -s '$work/go-example/main.go' && cd '$work/go-example' && go build -o '$work/go_example' . && '$work/go_example' | grep -qx '7 × 6 = 42'"

finish
