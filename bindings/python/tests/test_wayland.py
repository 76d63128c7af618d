"""uidrive.headless(backend="wayland"): a headless Wayland desktop (sway, no
X server). An app launched on it is a native Wayland client with no
DISPLAY; reading, real typing, a real click and a capture work through the
compositor (crates/atspi/tests/wayland.rs tests each part in Rust)."""

import os
import struct

import pytest
import uidrive


def test_mousepad_on_the_wayland_desktop() -> None:
    with uidrive.headless(backend="wayland") as desktop:
        assert "DISPLAY" not in desktop.env
        assert desktop.env["WAYLAND_DISPLAY"] == desktop.display
        assert os.path.isabs(desktop.display)
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
            # The clipboard is X11's alone yet, and says so.
            with pytest.raises(uidrive.UnsupportedError, match="Wayland"):
                desktop.clipboard.get()


def test_an_unknown_backend_is_refused() -> None:
    with pytest.raises(uidrive.InvalidRequestError, match="wayland"):
        uidrive.headless(backend="mir")
