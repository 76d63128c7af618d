// The end-to-end scenario of the C ABI, from Go through cgo: a private
// headless desktop, gnome-calculator launched on it, 7 × 6 computed through
// locators, 42 read with ud_expect_value, a snapshot printed and one of its
// refs resolved; then everything freed, and nothing of the desktop left
// behind. run.sh builds and runs it.
//
// usage: calculator
package main

/*
#cgo pkg-config: uidrive
#include <stdlib.h>
#include "uidrive.h"
*/
import "C"

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// failure is a failed call with this thread's last error.
type failure struct{ what, code, message, suggestion string }

func (f *failure) Error() string {
	return fmt.Sprintf("%s: %s: %s (hint: %s)", f.what, f.code, f.message, f.suggestion)
}

func check(what string, status C.ud_status) error {
	if status == C.UD_OK {
		return nil
	}
	return &failure{what, C.GoString(C.ud_last_error_code_name()),
		C.GoString(C.ud_last_error_message()), C.GoString(C.ud_last_error_suggestion())}
}

func take(s *C.char) string {
	defer C.ud_string_free(s)
	return C.GoString(s)
}

// cStrings makes a NULL-terminated array of C strings; free with freeStrings.
func cStrings(items []string) []*C.char {
	out := make([]*C.char, 0, len(items)+1)
	for _, item := range items {
		out = append(out, C.CString(item))
	}
	return append(out, nil)
}

func freeStrings(items []*C.char) {
	for _, item := range items {
		if item != nil {
			C.free(unsafe.Pointer(item))
		}
	}
}

func press(app *C.ud_app, name string) error {
	role, cname := C.CString("button"), C.CString(name)
	defer C.free(unsafe.Pointer(role))
	defer C.free(unsafe.Pointer(cname))
	var button *C.ud_locator
	if err := check("get_by_role button "+name, C.ud_app_get_by_role(app, role, cname, C.UD_MATCH_EXACT, &button)); err != nil {
		return err
	}
	defer C.ud_locator_free(button)
	var outcome *C.char
	if err := check("click "+name, C.ud_locator_click(button, &outcome)); err != nil {
		return err
	}
	var parsed struct {
		Route  string `json:"route"`
		Window uint64 `json:"window"`
	}
	if err := json.Unmarshal([]byte(take(outcome)), &parsed); err != nil || parsed.Route == "" {
		return fmt.Errorf("the outcome of clicking %s has no route (%v)", name, err)
	}
	fmt.Printf("pressed %s (%s)\n", name, parsed.Route)
	return nil
}

// scenario runs everything between starting the desktop and freeing it.
func scenario(desktop *C.ud_desktop) (pid uint32, err error) {
	argv := cStrings([]string{"gnome-calculator"})
	defer freeStrings(argv)
	var app *C.ud_app
	if err := check("ud_desktop_launch", C.ud_desktop_launch(desktop, &argv[0], 60000, &app)); err != nil {
		return 0, err
	}
	defer C.ud_app_free(app)
	var cpid C.uint32_t
	C.ud_app_pid(app, &cpid)
	pid = uint32(cpid)
	fmt.Printf("gnome-calculator runs as pid %d\n", pid)

	for _, key := range []string{"7", "×", "6", "="} {
		if err := press(app, key); err != nil {
			return pid, err
		}
	}
	role := C.CString("textField")
	defer C.free(unsafe.Pointer(role))
	var fields, display *C.ud_locator
	if err := check("get_by_role textField", C.ud_app_get_by_role(app, role, nil, C.UD_MATCH_SUBSTRING, &fields)); err != nil {
		return pid, err
	}
	defer C.ud_locator_free(fields)
	if err := check("first", C.ud_locator_first(fields, &display)); err != nil {
		return pid, err
	}
	defer C.ud_locator_free(display)
	want := C.CString("42")
	defer C.free(unsafe.Pointer(want))
	if err := check("ud_expect_value 42", C.ud_expect_value(display, want, C.UD_MATCH_EXACT, false, 10000)); err != nil {
		return pid, err
	}
	fmt.Println("the display reads 42")

	var snapshot *C.char
	if err := check("ud_app_snapshot", C.ud_app_snapshot(app, true, &snapshot)); err != nil {
		return pid, err
	}
	text := take(snapshot)
	fmt.Print("--- snapshot (controls) ---\n", text, "--- end ---\n")
	ref := ""
	for _, line := range strings.Split(text, "\n") {
		if strings.HasSuffix(line, `[button] "="`) {
			ref = strings.Fields(line)[0]
		}
	}
	if ref == "" {
		return pid, fmt.Errorf("no ref for the = button in the snapshot")
	}
	cref := C.CString(ref)
	defer C.free(unsafe.Pointer(cref))
	var equals *C.ud_locator
	if err := check("ud_app_get_by_ref "+ref, C.ud_app_get_by_ref(app, cref, &equals)); err != nil {
		return pid, err
	}
	defer C.ud_locator_free(equals)
	var label *C.char
	if err := check("text of "+ref, C.ud_locator_text(equals, &label)); err != nil {
		return pid, err
	}
	if got := take(label); got != "=" {
		return pid, fmt.Errorf("%s names %q, not the = button", ref, got)
	}
	fmt.Printf("%s is the button \"=\"\n", ref)
	return pid, nil
}

// leftovers lists the processes whose command line or environment names the
// desktop's runtime folder, and this process's children. The runtime folder
// is this desktop's alone; its display number is not (another desktop, of
// this machine's other tests, may take it up once this one lets it go).
func leftovers(runtimeDir string) []string {
	var found []string
	entries, _ := os.ReadDir("/proc")
	me := os.Getpid()
	for _, entry := range entries {
		pid, err := strconv.Atoi(entry.Name())
		if err != nil || pid == me {
			continue
		}
		dir := filepath.Join("/proc", entry.Name())
		cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
		environ, _ := os.ReadFile(filepath.Join(dir, "environ"))
		stat, _ := os.ReadFile(filepath.Join(dir, "stat"))
		mine := bytes.Contains(cmdline, []byte(runtimeDir)) || bytes.Contains(environ, []byte(runtimeDir))
		if at := bytes.LastIndexByte(stat, ')'); at >= 0 {
			fields := strings.Fields(string(stat[at+1:]))
			if len(fields) > 1 && fields[1] == strconv.Itoa(me) {
				mine = true
			}
		}
		if mine {
			found = append(found, fmt.Sprintf("pid %d: %s", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
		}
	}
	return found
}

// xLockPid is the pid in the X server lock of display (as ":3"): 0 when
// there is no lock, -1 when it cannot be read.
func xLockPid(display string) int {
	text, err := os.ReadFile("/tmp/.X" + display[1:] + "-lock")
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(text)))
	if err != nil {
		return -1
	}
	return pid
}

func run() error {
	if C.ud_abi_version() != C.UD_ABI_VERSION {
		return fmt.Errorf("libuidrive's ABI is %d, built for %d", C.ud_abi_version(), C.UD_ABI_VERSION)
	}
	var desktop *C.ud_desktop
	if err := check("ud_desktop_start", C.ud_desktop_start(0, 0, 0, &desktop)); err != nil {
		return err
	}
	var envJSON *C.char
	if err := check("ud_desktop_env", C.ud_desktop_env(desktop, &envJSON)); err != nil {
		C.ud_desktop_free(desktop)
		return err
	}
	env := map[string]string{}
	if err := json.Unmarshal([]byte(take(envJSON)), &env); err != nil || env["DISPLAY"] == "" || env["XDG_RUNTIME_DIR"] == "" {
		C.ud_desktop_free(desktop)
		return fmt.Errorf("the desktop's env lacks DISPLAY or XDG_RUNTIME_DIR (%v)", err)
	}
	display, runtimeDir := env["DISPLAY"], env["XDG_RUNTIME_DIR"]
	fmt.Printf("desktop %s, runtime folder %s\n", display, runtimeDir)
	xvfb := xLockPid(display)

	pid, err := scenario(desktop)
	C.ud_desktop_free(desktop)
	if err != nil {
		return err
	}

	var left []string
	for i := 0; i < 50; i++ {
		if left = leftovers(runtimeDir); len(left) == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(left) > 0 {
		return fmt.Errorf("left behind: %s", strings.Join(left, "; "))
	}
	paths := []string{runtimeDir}
	// The X server's lock and socket, unless another desktop's X server took
	// the display number since (its lock names another pid).
	if now := xLockPid(display); now == xvfb || now == 0 {
		paths = append(paths, "/tmp/.X11-unix/X"+display[1:], "/tmp/.X"+display[1:]+"-lock")
	}
	for _, path := range paths {
		if _, err := os.Stat(path); err == nil {
			return fmt.Errorf("%s is still there", path)
		}
	}
	if pid != 0 && syscall.Kill(int(pid), 0) == nil {
		return fmt.Errorf("gnome-calculator (pid %d) still runs", pid)
	}
	return nil
}

func main() {
	// The last error is per OS thread: keep this goroutine on one.
	runtime.LockOSThread()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "go calculator:", err)
		fmt.Println("go calculator: FAILED")
		os.Exit(1)
	}
	fmt.Println("go calculator: ok, nothing left behind")
}
