"""app.wait_for_event (issue 31): the events an action made a real app send,
from AT-SPI's event stream, each handed over once."""

from __future__ import annotations

import pytest
import uidrive
from uidrive.pytest_plugin import AppFactory


def test_wait_for_event_returns_the_focus_and_value_events_of_an_entry(
    launch_app: AppFactory,
) -> None:
    factory = launch_app(["gtk3-widget-factory"])
    # The enabled entries: the combo's, an empty one, "entry", and the text view.
    entry = factory.get_by_role("textField", disabled=False).nth(2)
    uidrive.expect(entry).to_have_value("entry", exact=True)
    entry_id = entry.node()["id"]
    stepper = factory.get_by_role("stepper", disabled=False).first

    # The focus goes to the stepper, then to the entry: a wait for the
    # entry's focus answers the entry's event.
    stepper.focus()
    entry.focus()
    focus = factory.wait_for_event("focus", entry)
    assert focus["kind"] == "focus" and focus["detail"] == "focused", focus
    assert focus["element"] == entry_id, focus
    assert focus["value"] == "true", focus
    assert focus["node"]["role"] == "textField", focus

    # A fill: its value event carries the text the entry holds now.
    entry.fill("hello events")
    value = factory.wait_for_event("value", entry, timeout=10_000)
    assert value["kind"] == "value", value
    assert value["element"] == entry_id, value
    assert value["value"] == "hello events", value

    # Each event is handed over once: no focus came since.
    with pytest.raises(uidrive.TimeoutError, match="no focus event"):
        factory.wait_for_event("focus", entry, timeout=700)
    with pytest.raises(uidrive.InvalidRequestError, match="no event kind"):
        factory.wait_for_event("blur")  # type: ignore[arg-type]
