// The Go harness: the main scenario through cgo, linked against libuidrive
// with `#cgo pkg-config: uidrive`. run.sh builds and runs it against a real
// `uidrive serve --demo`.
//
// usage: c_abi SOCKET_PATH
package main

/*
#cgo pkg-config: uidrive
#include <stdlib.h>
#include "uidrive.h"
*/
import "C"

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"unsafe"
)

// udError is a failed call: its status code and this thread's last error.
type udError struct {
	status     C.ud_status
	code       string
	message    string
	suggestion string
}

func (e *udError) Error() string {
	return fmt.Sprintf("%s: %s (hint: %s)", e.code, e.message, e.suggestion)
}

// check turns a status into an error. cgo calls may move between OS threads,
// so the caller must hold its thread (runtime.LockOSThread) for the last error
// to be its own; main does.
func check(status C.ud_status) error {
	if status == C.UD_OK {
		return nil
	}
	return &udError{
		status:     status,
		code:       C.GoString(C.ud_last_error_code_name()),
		message:    C.GoString(C.ud_last_error_message()),
		suggestion: C.GoString(C.ud_last_error_suggestion()),
	}
}

// takeString copies a string uidrive handed out, then frees it.
func takeString(s *C.char) string {
	defer C.ud_string_free(s)
	return C.GoString(s)
}

type app struct{ handle *C.ud_app }

func connect(path string) (*app, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var handle *C.ud_app
	if err := check(C.ud_connect(cpath, &handle)); err != nil {
		return nil, err
	}
	return &app{handle}, nil
}

func (a *app) tree(window uint64) (string, error) {
	var out *C.char
	if err := check(C.ud_tree(a.handle, C.uint64_t(window), &out)); err != nil {
		return "", err
	}
	return takeString(out), nil
}

func (a *app) call(method, params string) (string, error) {
	cmethod := C.CString(method)
	defer C.free(unsafe.Pointer(cmethod))
	var cparams *C.char
	if params != "" {
		cparams = C.CString(params)
		defer C.free(unsafe.Pointer(cparams))
	}
	var out *C.char
	if err := check(C.ud_call(a.handle, cmethod, cparams, &out)); err != nil {
		return "", err
	}
	return takeString(out), nil
}

func (a *app) actByKey(key string, action C.int32_t, text *string) error {
	ckey := C.CString(key)
	defer C.free(unsafe.Pointer(ckey))
	var ctext *C.char
	if text != nil {
		ctext = C.CString(*text)
		defer C.free(unsafe.Pointer(ctext))
	}
	return check(C.ud_act_by_key(a.handle, C.UD_WINDOW_DEFAULT, ckey, action, ctext))
}

func (a *app) menu(path ...string) error {
	// A NULL-terminated array of C strings, in C memory.
	size := C.size_t(unsafe.Sizeof((*C.char)(nil)))
	array := (*[1 << 20]*C.char)(C.malloc(size * C.size_t(len(path)+1)))
	defer C.free(unsafe.Pointer(array))
	for i, label := range path {
		array[i] = C.CString(label)
		defer C.free(unsafe.Pointer(array[i]))
	}
	array[len(path)] = nil
	return check(C.ud_menu(a.handle, C.UD_WINDOW_DEFAULT, &array[0]))
}

func (a *app) capture() ([]byte, uint32, uint32, error) {
	var png *C.uint8_t
	var length C.size_t
	var width, height C.uint32_t
	if err := check(C.ud_capture(a.handle, C.UD_WINDOW_DEFAULT, &png, &length, &width, &height)); err != nil {
		return nil, 0, 0, err
	}
	defer C.ud_bytes_free(png)
	return C.GoBytes(unsafe.Pointer(png), C.int(length)), uint32(width), uint32(height), nil
}

func (a *app) close() error { return check(C.ud_app_close(a.handle)) }
func (a *app) free()        { C.ud_app_free(a.handle) }

type harness struct{ passed, failed int }

func (h *harness) expect(ok bool, what string, args ...interface{}) {
	if ok {
		h.passed++
		return
	}
	h.failed++
	fmt.Fprintf(os.Stderr, "FAIL: "+what+"\n", args...)
}

func (h *harness) noErr(err error, what string) {
	h.expect(err == nil, "%s: %v", what, err)
}

func main() {
	// Keep every cgo call on one OS thread, so the thread-local last error
	// read after a failure is that failure's.
	lockThread()
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: c_abi SOCKET_PATH")
		os.Exit(2)
	}
	h := &harness{}
	h.expect(C.ud_abi_version() == C.UD_ABI_VERSION, "abi version %d", C.ud_abi_version())

	_, err := connect("/nonexistent/uidrive.sock")
	ue, isUd := err.(*udError)
	h.expect(isUd && ue.status == C.UD_ERR_DISCONNECTED && ue.suggestion != "", "connect to nothing: %v", err)

	a, err := connect(os.Args[1])
	h.noErr(err, "connect")
	if a == nil {
		os.Exit(1)
	}
	defer a.free()

	windows, err := a.call("windows", "")
	h.noErr(err, "windows")
	h.expect(strings.Contains(windows, `"title":"Counter"`), "windows: %s", windows)

	h.noErr(a.menu("File", "New"), "File > New")
	h.noErr(a.actByKey("add", C.UD_ACTION_PRESS, nil), "press add")
	h.noErr(a.actByKey("add", C.UD_ACTION_PRESS, nil), "press add again")
	tree, err := a.tree(C.UD_WINDOW_DEFAULT)
	h.noErr(err, "tree")
	h.expect(strings.Contains(tree, "Count: 2"), "two presses counted: %s", tree)

	name := "Grace"
	h.noErr(a.actByKey("name", C.UD_ACTION_SET_VALUE, &name), "fill name")
	tree, _ = a.tree(1)
	h.expect(regexp.MustCompile(`"key":"name"[^}]*"value":"Grace"`).MatchString(tree), "name filled: %s", tree)

	// Locators: found afresh and waited for at each use.
	role, label := C.CString("button"), C.CString("Add")
	defer C.free(unsafe.Pointer(role))
	defer C.free(unsafe.Pointer(label))
	var add *C.ud_locator
	h.noErr(check(C.ud_app_get_by_role(a.handle, role, label, C.UD_MATCH_EXACT, &add)), "get_by_role")
	defer C.ud_locator_free(add)
	var outcome *C.char
	h.noErr(check(C.ud_locator_click(add, &outcome)), "locator click")
	if outcome != nil {
		h.expect(strings.Contains(takeString(outcome), `"route":"semantic:press"`), "click pressed the button")
	}
	countKey, want := C.CString("count"), C.CString("Count: 3")
	defer C.free(unsafe.Pointer(countKey))
	defer C.free(unsafe.Pointer(want))
	var count *C.ud_locator
	h.noErr(check(C.ud_app_get_by_key(a.handle, countKey, &count)), "get_by_key")
	defer C.ud_locator_free(count)
	h.noErr(check(C.ud_expect_text(count, want, C.UD_MATCH_EXACT, false, 2000)), "expect Count: 3")

	png, width, height, err := a.capture()
	h.noErr(err, "capture")
	h.expect(bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) && width > 0 && height > 0,
		"capture is a PNG (%d bytes, %dx%d)", len(png), width, height)

	hello, err := a.call("hello", "")
	h.noErr(err, "hello")
	h.expect(strings.Contains(hello, `"protocol":1`), "hello: %s", hello)

	_, err = a.tree(99)
	ue, isUd = err.(*udError)
	h.expect(isUd && ue.status == C.UD_ERR_NO_WINDOW && strings.Contains(ue.message, "99"), "no window 99: %v", err)
	err = a.actByKey("add", 99, nil)
	ue, isUd = err.(*udError)
	h.expect(isUd && ue.status == C.UD_ERR_INVALID_REQUEST, "action 99 refused: %v", err)
	_, err = a.call("tree", "{not json")
	ue, isUd = err.(*udError)
	h.expect(isUd && ue.code == "invalid_request", "malformed JSON refused: %v", err)

	h.noErr(a.close(), "close")
	_, err = a.tree(0)
	ue, isUd = err.(*udError)
	h.expect(isUd && ue.status == C.UD_ERR_DISCONNECTED, "closed: %v", err)

	fmt.Printf("go harness: %d passed, %d failed\n", h.passed, h.failed)
	if h.failed > 0 {
		os.Exit(1)
	}
}
