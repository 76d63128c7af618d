"""The keyboard on a real app: gtk3-widget-factory's entry, typed into key by
key through a locator, then chords and text into whatever has the focus
through app.keyboard, read back with expect after each step."""

from __future__ import annotations

import pytest
import uidrive
from uidrive.pytest_plugin import AppFactory


def test_keys_typed_one_by_one_and_chords_reach_the_focused_entry(launch_app: AppFactory) -> None:
    factory = launch_app(["gtk3-widget-factory"])
    entry = factory.locator("role=textField[disabled=false] >> nth=2")
    uidrive.expect(entry).to_have_value("entry", exact=True)

    # Select what the entry holds, then type over it key by key.
    entry.press("CmdOrCtrl+A")
    outcome = entry.press_sequentially("größer ✓", delay=5)
    assert outcome["route"] == "input"
    uidrive.expect(entry).to_have_value("größer ✓", exact=True)

    # The app's keyboard types into the element that has the focus: the entry.
    factory.keyboard.press("End")
    typed = factory.keyboard.type("!")
    # Checked against the focused entry: it reads the text.
    assert typed["effect"] == "confirmed", typed
    assert typed["element"]["value"] == "größer ✓!"
    factory.keyboard.type("ab", delay=5)
    uidrive.expect(entry).to_have_value("größer ✓!ab", exact=True)
    factory.keyboard.press("Backspace")
    uidrive.expect(entry).to_have_value("größer ✓!a", exact=True)

    # Refused at once, and nothing typed: a chord that is no key, a delay past the limit.
    with pytest.raises(uidrive.InvalidRequestError):
        factory.keyboard.press("Ctrl+")
    with pytest.raises(uidrive.InvalidRequestError):
        factory.keyboard.type("x", delay=60_000)
    assert entry.value() == "größer ✓!a"
