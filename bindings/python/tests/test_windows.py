"""Window management on uidrive's headless desktop, whose window manager
(openbox) does what it is asked: each operation is confirmed by reading the
window back; the window an action opens is found by its appearance; the
desktop's apps and its whole screen."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
import uidrive
from uidrive.pytest_plugin import AppFactory


def test_widget_factory_is_resized_moved_maximized_minimized_and_restored(
    launch_app: AppFactory,
) -> None:
    factory = launch_app(["gtk3-widget-factory"])
    window = factory.window()
    assert "focused" in window.states()

    # Below the app's own minimum (WM_NORMAL_HINTS), it fails and says so.
    with pytest.raises(uidrive.FailedError, match="smallest size is"):
        window.resize(900, 700)

    resized = window.resize(1500, 900)
    assert resized["effect"] == "confirmed"
    assert (resized["bounds"]["width"], resized["bounds"]["height"]) == (1500, 900)
    moved = window.move(100, 60)
    assert (moved["bounds"]["x"], moved["bounds"]["y"]) == (100, 60)
    assert window.bounds() == {"x": 100, "y": 60, "width": 1500, "height": 900}

    window.maximize()
    listed = factory.windows()[0]
    assert "maximized" in listed["states"], listed
    assert (listed["bounds"]["width"], listed["bounds"]["height"]) == (1920, 1200)

    window.minimize()
    assert "minimized" in window.states()
    assert "focused" not in window.states()

    restored = window.restore()
    assert not {"minimized", "maximized"} & set(restored["states"]), restored
    assert window.bounds() == {"x": 100, "y": 60, "width": 1500, "height": 900}
    assert "focused" in window.focus()["states"]
    assert factory.windows()[0]["zIndex"] == 0

    # Every app on the accessibility bus, this one with its window.
    apps = {a["name"]: a for a in factory.apps()}
    assert apps["gtk3-widget-factory"]["toolkit"] == "gtk"
    assert apps["gtk3-widget-factory"]["pid"] == factory.pid
    assert apps["gtk3-widget-factory"]["windows"] == ["gtk3-widget-factory"]

    # The whole screen: its header says 1920x1200, and it is not one colour.
    png = factory.capture_screen()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", png[16:24]) == (1920, 1200)
    assert len(png) > 40_000, "a blank screen compresses to a few KiB"

    # One element alone, as big as its box says.
    check = factory.get_by_role("checkBox", name="checkbutton").first
    box = check.bounds()
    assert box is not None
    shot = check.screenshot()
    assert shot[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", shot[16:24])
    assert abs(width - box["width"]) <= 1 and abs(height - box["height"]) <= 1


def test_mousepad_is_resized_to_900x700(launch_app: AppFactory, tmp_path: Path) -> None:
    """The size the widget factory refuses, taken by an app that allows it."""
    factory = launch_app(["mousepad"], env={"XDG_CONFIG_HOME": str(tmp_path)})
    resized = factory.window().resize(900, 700)
    assert resized["effect"] == "confirmed"
    assert (resized["bounds"]["width"], resized["bounds"]["height"]) == (900, 700)
    listed = factory.windows()[0]
    assert (listed["contentBounds"]["width"], listed["contentBounds"]["height"]) == (900, 700)


def test_the_window_an_action_opens_is_found_by_its_appearance(
    desktop: uidrive.Desktop,
) -> None:
    """gtk4-demo's Run opens the demo in a second window, titled as the main
    one may be: it is found because its id is new, not by its title."""
    with desktop.launch(["gtk4-demo"]) as demo:
        demo.get_by_text("Builder", exact=True).click()
        run = demo.get_by_role("button", name="Run", exact=True)
        uidrive.expect(run).to_be_enabled()
        before = {w["id"] for w in demo.windows()}
        with demo.expect_window() as info:
            run.click()
        opened = info.value
        assert opened["id"] not in before
        assert opened["id"] in {w["id"] for w in demo.windows()}
        # Nothing opens: a timeout that lists the windows there are.
        with pytest.raises(uidrive.TimeoutError, match="no new window"):
            with demo.expect_window(timeout=300):
                pass
        # The new window is managed like any other, and closes when asked.
        assert demo.window(id=opened["id"]).close()["closed"] is True
