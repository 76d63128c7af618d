"""Every uidrive error arrives as the exception class of its code."""

from __future__ import annotations

import builtins
import re
import time
from pathlib import Path

import pytest
import uidrive
import uidrive._errors
from conftest import DemoFactory


def test_error_carries_code_message_and_suggestion(tmp_path: Path) -> None:
    with pytest.raises(uidrive.DisconnectedError) as caught:
        uidrive.connect(tmp_path / "nobody-listens.sock")
    error = caught.value
    assert isinstance(error, uidrive.Error)
    assert isinstance(error, builtins.ConnectionError)
    assert error.code == "disconnected"
    assert "nobody-listens.sock" in error.message
    assert error.suggestion
    assert error.suggestion in str(error)


def test_no_window(demo: uidrive.App) -> None:
    with pytest.raises(uidrive.NoWindowError) as caught:
        demo.tree(window=999)
    assert caught.value.code == "no_window"


def test_no_element(demo: uidrive.App) -> None:
    with pytest.raises(uidrive.NoElementError) as caught:
        demo.act("press", key="no-such-key")
    assert caught.value.code == "no_element"
    with pytest.raises(uidrive.NoElementError):
        demo.menu(["File", "Nothing"])


def test_invalid_request(demo: uidrive.App) -> None:
    with pytest.raises(uidrive.InvalidRequestError):
        demo.input([])
    with pytest.raises(uidrive.InvalidRequestError) as caught:
        demo.input([{"type": "teleport", "x": 1, "y": 2}])
    assert isinstance(caught.value, ValueError)
    with pytest.raises(uidrive.InvalidRequestError):
        demo.act("setValue", key="name")  # setValue needs text
    with pytest.raises(uidrive.InvalidRequestError):
        demo.idle(timeout=-1)
    with pytest.raises(uidrive.InvalidRequestError):
        uidrive.launch([])
    with pytest.raises(uidrive.InvalidRequestError):
        demo.get_by_text(re.compile(b"bytes"))  # type: ignore[arg-type]
    with pytest.raises(uidrive.InvalidRequestError):
        uidrive.attach()


def test_refs_that_are_not_refs_or_are_unknown(demo: uidrive.App) -> None:
    with pytest.raises(uidrive.InvalidRequestError):
        demo.get_by_ref("add")
    with pytest.raises(uidrive.StaleRefError):
        demo.get_by_ref("@e999")


def test_unknown_method(demo: uidrive.App) -> None:
    with pytest.raises(uidrive.UnknownMethodError):
        demo.call("teleport")


def test_unsupported(demo: uidrive.App) -> None:
    with pytest.raises(uidrive.UnsupportedError) as caught:
        demo.eval("document.title")
    assert caught.value.suggestion


def test_ambiguous(demo: uidrive.App) -> None:
    started = time.monotonic()
    with pytest.raises(uidrive.AmbiguousError) as caught:
        demo.get_by_role("listItem").click(timeout=5000)
    # more than one match is refused at once, not waited on
    assert time.monotonic() - started < 4
    for name in ("Apple", "Banana", "Cherry"):
        assert name in caught.value.message


def test_timeout(demo_server: DemoFactory) -> None:
    with demo_server(idle_delay_ms=3000).connect() as app:
        with pytest.raises(uidrive.TimeoutError) as caught:
            app.idle(timeout=200)
    assert isinstance(caught.value, builtins.TimeoutError)
    assert caught.value.code == "timeout"


def test_locator_that_never_matches_times_out(demo: uidrive.App) -> None:
    started = time.monotonic()
    with pytest.raises(uidrive.Error) as caught:
        demo.get_by_key("never-there").click(timeout=500)
    assert caught.value.code in {"timeout", "no_element"}
    assert "never-there" in caught.value.message
    assert time.monotonic() - started < 5


def test_assertion_failed(demo: uidrive.App) -> None:
    with pytest.raises(uidrive.AssertionFailedError) as caught:
        uidrive.expect(demo.get_by_key("count"), timeout=300).to_have_text("Count: 9")
    error = caught.value
    assert isinstance(error, AssertionError)
    assert "Count: 9" in error.message and "Count: 0" in error.message


def test_app_exited(tmp_path: Path) -> None:
    with pytest.raises(uidrive.AppExitedError):
        uidrive.launch(["sh", "-c", "exit 3"], socket_env="UIDRIVE_TEST_SOCKET", timeout=10_000)


def test_every_code_has_its_class() -> None:
    codes = {
        "parse_error": uidrive.ParseError,
        "invalid_request": uidrive.InvalidRequestError,
        "unknown_method": uidrive.UnknownMethodError,
        "no_window": uidrive.NoWindowError,
        "no_element": uidrive.NoElementError,
        "unsupported": uidrive.UnsupportedError,
        "timeout": uidrive.TimeoutError,
        "failed": uidrive.FailedError,
        "disconnected": uidrive.DisconnectedError,
        "protocol_error": uidrive.ProtocolError,
        "ambiguous": uidrive.AmbiguousError,
        "not_actionable": uidrive.NotActionableError,
        "stale_ref": uidrive.StaleRefError,
        "app_exited": uidrive.AppExitedError,
        "assertion_failed": uidrive.AssertionFailedError,
    }
    for code, cls in codes.items():
        assert issubclass(cls, uidrive.Error)
        assert uidrive._errors.ERRORS_BY_CODE[code] is cls


def test_unknown_role_and_state_fail_at_once(demo: uidrive.App) -> None:
    start = time.monotonic()
    with pytest.raises(uidrive.InvalidRequestError) as caught:
        demo.get_by_role("buton")
    assert '"button"' in caught.value.suggestion
    with pytest.raises(uidrive.InvalidRequestError):
        demo.window().get_by_role("textfield", name="x")
    with pytest.raises(uidrive.InvalidRequestError) as caught:
        uidrive.expect(demo.get_by_key("add")).to_have_state("chekced")
    assert '"checked"' in caught.value.suggestion
    assert time.monotonic() - start < 1.0, "refused at once, not after a wait"


# 3 600 500 ms (an hour and half a second) is past the longest timeout uidrive takes (an hour).
@pytest.mark.parametrize("bad", [1e22, -1.0, float("nan"), float("inf"), 3_600_500.0])
def test_numbers_that_are_no_timeout_are_refused(demo: uidrive.App, bad: float) -> None:
    with pytest.raises(uidrive.InvalidRequestError):
        demo.get_by_key("add").with_timeout(bad)
    with pytest.raises(uidrive.InvalidRequestError):
        demo.get_by_key("add").click(timeout=bad)


def test_a_huge_key_chord_is_refused_in_a_short_message(demo: uidrive.App) -> None:
    with pytest.raises(uidrive.InvalidRequestError) as caught:
        demo.keyboard.press("Ctrl+" * 2_000_000 + "a")
    assert len(str(caught.value)) < 400, len(str(caught.value))
    assert "at most 64" in str(caught.value)


def test_is_visible_honours_its_timeout(demo: uidrive.App) -> None:
    missing = demo.get_by_text("no element shows this text")
    start = time.monotonic()
    assert missing.is_visible() is False
    assert time.monotonic() - start < 0.4
    start = time.monotonic()
    assert missing.is_visible(timeout=500) is False
    assert time.monotonic() - start >= 0.5
    assert demo.get_by_key("add").is_visible(timeout=5000) is True
    assert missing.is_hidden(timeout=5000) is True


def test_get_by_text_takes_include_hidden(demo: uidrive.App) -> None:
    assert demo.get_by_text("Subscribe", include_hidden=True).count() >= 1
    assert demo.get_by_label("name", include_hidden=True).count() >= 1


def test_outcome_has_one_shape(demo: uidrive.App) -> None:
    outcome = demo.get_by_key("add").click()
    # What it did, and what the tree showed of it (the count beside the button changed).
    assert set(outcome) == {"route", "effect", "observed", "window", "element"}
    assert outcome["route"] == "semantic:press"
    assert outcome["effect"] == "confirmed"
    assert outcome["observed"].startswith("the window changed: 1 element(s) changed name or state")
    assert isinstance(outcome["element"], dict)
    assert demo.get_by_key("add").activate()["route"] == "semantic:press"


def test_click_takes_a_button_and_a_click_count(demo: uidrive.App) -> None:
    add = demo.get_by_key("add")
    # Any other button or count is always the real pointer's (the demo's
    # button presses only on the primary button).
    assert add.click(button="right")["route"] == "input"
    assert add.click(button="middle", click_count=3)["route"] == "input"
    assert add.click(click_count=2)["route"] == "input"
    assert add.click(button="left", click_count=1)["route"] == "semantic:press"

    # One it cannot send is refused before anything is looked for: a locator
    # that finds nothing says invalid_request, not no_element.
    missing = demo.get_by_key("no-such-key")
    with pytest.raises(uidrive.InvalidRequestError) as caught:
        missing.click(button="back")  # type: ignore[arg-type]
    assert '"left", "right" or "middle"' in caught.value.message
    with pytest.raises(uidrive.InvalidRequestError):
        missing.click(button="Right")  # type: ignore[arg-type]
    for bad in [0, -1, 4, 2**40]:
        with pytest.raises(uidrive.InvalidRequestError) as caught:
            missing.click(button="right", click_count=bad)
        assert f"click_count={bad}" in caught.value.message
        assert "1 to 3" in caught.value.message


def test_a_locator_that_finds_nothing_names_the_windows(demo: uidrive.App) -> None:
    title = demo.windows()[0]["title"]
    with pytest.raises(uidrive.NoElementError) as caught:
        demo.get_by_key("no-such-key").click(timeout=300)
    assert "the app's windows: " in caught.value.message
    assert repr(title).strip("'") in caught.value.message


def test_snapshot_gives_attributes_and_mapping_access(demo: uidrive.App) -> None:
    snap = demo.snapshot(interactive=True)
    assert snap["text"] == snap.text
    assert snap["window"] == snap.window
    assert snap["elements"] == snap.elements
    assert "text" in snap
    assert set(snap.keys()) == {"window", "elements", "text"}
    with pytest.raises(KeyError):
        snap["nothing"]


def test_press_sequentially_types_key_by_key(demo: uidrive.App) -> None:
    name = demo.get_by_key("name")
    name.fill("Ada")
    outcome = name.press_sequentially("!?", delay=10)
    assert outcome["route"] == "input"
    uidrive.expect(name).to_have_value("Ada!?", exact=True)
    with pytest.raises(uidrive.InvalidRequestError):
        name.press_sequentially("x", delay=-1)


def test_the_keyboard_types_into_the_focused_element(demo: uidrive.App) -> None:
    name = demo.get_by_key("name")
    name.fill("Ada")
    name.focus()
    demo.keyboard.type("!", delay=10)
    demo.keyboard.type("?")
    uidrive.expect(name).to_have_value("Ada!?", exact=True)
    with pytest.raises(uidrive.InvalidRequestError):
        demo.keyboard.type("x", delay=1e22)
    with pytest.raises(uidrive.InvalidRequestError):
        demo.keyboard.press("NoSuchKey+")
