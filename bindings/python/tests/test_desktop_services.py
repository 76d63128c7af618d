"""The headless desktop's services from Python, on real programs: the
clipboard pastes into mousepad and reads what it copied; `notify-send -A`
is listed, its action invoked (notify-send prints it) and it is gone
after; a tray item (tests/apps/tray_item.py) is listed, activated and its
menu clicked, each read back from what the app wrote."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import uidrive
from uidrive.pytest_plugin import AppFactory

REPO = Path(__file__).resolve().parents[3]
T = TypeVar("T")


def until(read: Callable[[], T], wanted: object, timeout: float = 15.0) -> T:
    """Reads until it answers `wanted` or `timeout` passes; the last answer."""
    deadline = time.monotonic() + timeout
    while True:
        got = read()
        if got == wanted or time.monotonic() > deadline:
            return got
        time.sleep(0.1)


def desktop_env(desktop: uidrive.Desktop) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "WAYLAND_DISPLAY"}
    env.update(desktop.env)
    return env


def test_the_clipboard_pastes_into_mousepad_and_reads_what_it_copied(
    launch_app: AppFactory, desktop: uidrive.Desktop
) -> None:
    pad = launch_app(["mousepad"])
    editor = pad.get_by_role("textField").first
    clipboard = desktop.clipboard
    text = "Pasted from Python ✓"
    clipboard.set(text)
    assert clipboard.get() == text
    pad.keyboard.press("Ctrl+v")
    uidrive.expect(editor).to_have_value(text)

    clipboard.clear()
    assert clipboard.get() is None
    pad.keyboard.type(" and typed")
    whole = text + " and typed"
    uidrive.expect(editor).to_have_value(whole)
    pad.keyboard.press("Ctrl+a")
    pad.keyboard.press("Ctrl+c")
    assert until(clipboard.get, whole) == whole
    assert until(lambda: clipboard.get(primary=True), whole) == whole
    # mousepad offers no image.
    assert clipboard.get_image() is None


def test_notify_send_is_listed_its_action_invoked_and_gone_after(
    desktop: uidrive.Desktop,
) -> None:
    sender = subprocess.Popen(
        ["notify-send", "-A", "open=Open", "Build finished", "All green"],
        env=desktop_env(desktop),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        note = desktop.wait_for_notification(summary="Build finished", timeout=20_000)
        assert note.body == "All green"
        assert note.app_name == "notify-send"
        assert note.actions == [("open", "Open")]
        assert note.urgency == "normal"
        assert abs(note.time - time.time()) < 120
        assert note.id in [n.id for n in desktop.notifications()]
        note.invoke("open")
        out, _ = sender.communicate(timeout=30)
        assert out.strip() == "open"
        assert note.id not in [n.id for n in desktop.notifications()]
    finally:
        if sender.poll() is None:
            sender.kill()
            sender.communicate()


def test_a_tray_item_is_listed_activated_and_its_menu_clicked(
    desktop: uidrive.Desktop, tmp_path: Path
) -> None:
    log = tmp_path / "tray.log"
    item_app = subprocess.Popen(
        ["/usr/bin/python3", str(REPO / "tests/apps/tray_item.py"), str(log)],
        env=desktop_env(desktop),
    )

    def lines() -> list[str]:
        return log.read_text().splitlines() if log.exists() else []

    def seen(line: str) -> bool:
        return until(lambda: line in lines(), True, timeout=30)

    try:
        assert seen("registered")
        items = [i for i in desktop.tray() if i.id == "uidrive-test-tray"]
        assert len(items) == 1
        item = items[0]
        assert (item.title, item.tooltip, item.status) == (
            "uidrive test tray",
            "Test tray\nAll is well",
            "Active",
        )
        item.activate()
        assert seen("activate 0 0")
        menu = item.menu()
        assert [e.label for e in menu] == ["Open Window", "", "Quit", "Disabled"]
        entry = next(e for e in menu if e.label == "Open Window")
        entry.click()
        assert seen("clicked 1 _Open Window")
    finally:
        item_app.kill()
        item_app.wait()
