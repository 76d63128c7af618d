"""uidrive.headless(backend="wayland"): a headless Wayland desktop (sway, no
X server). An app launched on it is a native Wayland client with no
DISPLAY; reading, real typing, a real click and a capture work through the
compositor (crates/atspi/tests/wayland.rs tests each part in Rust)."""

import os
import socket
import struct

import pytest
import uidrive


def listener(path: str) -> int:
    """The pid of the process listening on the Unix socket at `path`, as the kernel says."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(path)
        cred = s.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid: int = struct.unpack("3i", cred)[0]
    return pid


def test_mousepad_on_the_wayland_desktop() -> None:
    with uidrive.headless(backend="wayland") as desktop:
        assert "DISPLAY" not in desktop.env
        # As in a person's session: a name in the desktop's own runtime
        # directory; `display` is that socket's absolute path, and it is sway's.
        name = desktop.env["WAYLAND_DISPLAY"]
        assert name.startswith("wayland-") and "/" not in name, name
        socket_path = os.path.join(desktop.env["XDG_RUNTIME_DIR"], name)
        assert desktop.display == socket_path
        with open(f"/proc/{listener(socket_path)}/comm") as f:
            assert f.read().strip() == "sway"
        with desktop.launch(["mousepad"]) as app:
            with open(f"/proc/{app.pid}/environ", "rb") as f:
                names = {v.split(b"=", 1)[0] for v in f.read().split(b"\0") if v}
            assert b"WAYLAND_DISPLAY" in names and b"DISPLAY" not in names
            editor = app.get_by_role("textField").first
            editor.click()
            app.keyboard.type("typed on Wayland")
            uidrive.expect(editor).to_have_value("typed on Wayland")
            png = app.capture()
            width, height = struct.unpack(">II", png[16:24])
            assert png[1:4] == b"PNG"
            assert (width, height) == (1920, 1200)
            # The clipboard is sway's (wlr-data-control, docs/wayland.md).
            desktop.clipboard.set("copied on Wayland ✓")
            assert desktop.clipboard.get() == "copied on Wayland ✓"
            desktop.clipboard.clear()
            assert desktop.clipboard.get() is None
    # Closing removed the runtime directory, the socket's name in it too.
    assert not os.path.lexists(socket_path)
    assert not os.path.exists(os.path.dirname(socket_path))


def test_an_unknown_backend_is_refused() -> None:
    with pytest.raises(uidrive.InvalidRequestError, match="wayland"):
        uidrive.headless(backend="mir")  # type: ignore[arg-type]


def _type_into_mousepad(desktop: uidrive.Desktop, env: dict[str, str], text: str) -> set[bytes]:
    """mousepad's environment names; a real click, typed text read back, a capture."""
    with desktop.launch(["mousepad"], env=env) as app:
        with open(f"/proc/{app.pid}/environ", "rb") as f:
            names = {v.split(b"=", 1)[0] for v in f.read().split(b"\0") if v}
        editor = app.get_by_role("textField").first
        editor.click()
        app.keyboard.type(text)
        uidrive.expect(editor).to_have_value(text)
        png = app.capture()
        assert png[1:4] == b"PNG"
    return names


def test_an_x_client_runs_through_xwayland_beside_wayland_ones() -> None:
    with uidrive.headless(backend="wayland", xwayland=True) as desktop:
        assert desktop.env["DISPLAY"].startswith(":")
        # Apps still start as native Wayland clients.
        assert desktop.env["GDK_BACKEND"] == "wayland"
        names = _type_into_mousepad(desktop, {"GDK_BACKEND": "x11"}, "typed into an X client")
        assert b"DISPLAY" in names
        _type_into_mousepad(desktop, {}, "typed into a Wayland client beside it")
        with desktop.launch(["mousepad"], env={"GDK_BACKEND": "x11"}) as app:
            window = app.window()
            # sway tiles every window, an X client's too: no moving it.
            with pytest.raises(uidrive.UnsupportedError, match="sway"):
                window.move(10, 10)
            assert "maximized" not in window.restore()["states"]
            assert "maximized" in window.maximize()["states"]
            # Its window is asked to close through sway (WM_DELETE_WINDOW).
            assert app.close() == "windows"


def test_xwayland_on_the_x11_desktop_is_refused() -> None:
    with pytest.raises(uidrive.InvalidRequestError, match="Xwayland"):
        uidrive.headless(xwayland=True)


def test_an_x_only_app_with_no_tree_runs_through_xwayland() -> None:
    """Tk speaks only X11 and shows no accessibility tree: its window, keys
    (seen in its pixels) and a capture from the compositor work."""
    entry = (
        "import tkinter as tk; r = tk.Tk(); r.title('tk on Xwayland'); "
        "e = tk.Entry(r); e.pack(); e.focus_set(); r.mainloop()"
    )
    with uidrive.headless(backend="wayland", xwayland=True) as desktop:
        with desktop.launch(["python3", "-c", entry]) as app:
            assert [w["title"] for w in app.windows()] == ["tk on Xwayland"]
            typed = app.keyboard.type("abc")
            assert typed["effect"] == "confirmed", typed
            png = app.capture()
            assert png[1:4] == b"PNG"
            assert app.close() == "windows"


def test_qt_on_xcb_runs_through_xwayland() -> None:
    """kcalc told QT_QPA_PLATFORM=xcb is an X client: it finds the
    accessibility bus on Xwayland's root window, and keys typed through
    XTest compute 42."""
    with uidrive.headless(backend="wayland", xwayland=True) as desktop:
        with desktop.launch(["kcalc"], env={"QT_QPA_PLATFORM": "xcb"}) as app:
            app.keyboard.type("6*7=")
            uidrive.expect(app.get_by_role("group", name="42", exact=True)).to_be_visible()
