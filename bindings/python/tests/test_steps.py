"""Scrolling, expanding, stepping, selecting text and held keys on real GTK
apps: gtk4-demo's demo list and tree rows, gtk3-widget-factory's spin button
and entry. Each action's effect is read back from the app's tree."""

from __future__ import annotations

from typing import Any

import pytest
import uidrive
from uidrive.pytest_plugin import AppFactory


def shown_rows(app: uidrive.App) -> set[str]:
    """The labels of the list rows on screen now."""
    return {
        node["label"]
        for node in app.tree()["nodes"]
        if node["role"] == "listItem"
        and node.get("label")
        and "offscreen" not in node.get("states", [])
    }


def test_gtk4_demo_scrolls_its_list_and_folds_its_rows(launch_app: AppFactory) -> None:
    demo = launch_app(["gtk4-demo"])
    demos = demo.get_by_role("list", name="Demo list")
    before = shown_rows(demo)
    assert "GTK Demo" in before and "Entry" not in before

    outcome: Any = demos.scroll("down", 10)
    assert outcome["route"] == "input"
    assert outcome["effect"] == "confirmed", outcome
    after = shown_rows(demo)
    assert after - before, f"no row came into view: {sorted(after)}"
    assert "Entry" in after
    # Back up (the rows GTK 4 labelled keep their labels, so the tree may
    # show nothing of it: the outcome may be unverifiable).
    assert demos.scroll("up", notches=10)["route"] == "input"

    # A tree row: GTK 4 offers no action for it, so the keys a tree takes
    # (its GrabFocus is not supported either: a click focuses it, which
    # also shows the Benchmark demo's page beside the list).
    benchmark = demos.get_by_role("group", name="Benchmark")
    fishbowl = demos.get_by_role("listItem", name="Fishbowl")
    assert "expanded" in benchmark.states()
    uidrive.expect(fishbowl).to_be_visible()
    outcome = benchmark.collapse()
    assert outcome["effect"] == "confirmed", outcome
    assert "expanded" not in outcome["element"]["states"]
    assert "expanded" not in benchmark.states()
    assert not benchmark.is_expanded()
    uidrive.expect(fishbowl).to_have_count(0)
    assert benchmark.collapse()["route"] == "not_needed"

    outcome = benchmark.expand()
    assert outcome["effect"] == "confirmed", outcome
    assert "expanded" in benchmark.states()
    assert benchmark.is_expanded()
    uidrive.expect(fishbowl).to_be_visible()
    assert benchmark.expand()["route"] == "not_needed"

    # The window by its title, waited for; one that never shows times out.
    # (gtk4-demo titles its window after the demo chosen: Benchmark, by now.)
    title = demo.windows()[0]["title"]
    assert demo.wait_for_window(title)["title"] == title
    with pytest.raises(uidrive.TimeoutError, match=title):
        demo.wait_for_window("No such dialog", timeout=300)

    # Refused before anything is looked for.
    with pytest.raises(uidrive.InvalidRequestError, match="up, down, left or right"):
        demos.scroll("sideways")  # type: ignore[arg-type]
    for notches in (0, -1):
        with pytest.raises(uidrive.InvalidRequestError):
            demos.scroll("down", notches)


def test_widget_factory_spin_button_steps_up_and_down(launch_app: AppFactory) -> None:
    factory = launch_app(["gtk3-widget-factory"])
    spin = factory.get_by_role("stepper", disabled=False).first
    assert spin.node()["now"] == 50

    outcome: Any = spin.increment(3)
    assert outcome["route"] == "semantic:increment"
    assert outcome["effect"] == "confirmed", outcome
    uidrive.expect(spin).to_have_value("53")
    outcome = spin.decrement()
    assert outcome["route"] == "semantic:decrement"
    uidrive.expect(spin).to_have_value("52")

    # At its end: nothing to step, nothing sent.
    spin.set_value(1000)
    outcome = spin.increment()
    assert outcome["route"] == "not_needed"
    assert "already" in outcome["observed"]
    uidrive.expect(spin).to_have_value("1000")

    for steps in (0, -1, 1001):
        with pytest.raises(uidrive.InvalidRequestError):
            spin.increment(steps)
    # A check box has no steps.
    with pytest.raises(uidrive.UnsupportedError, match="increment"):
        factory.get_by_role("checkBox", name="checkbutton", disabled=False).first.increment()


def test_widget_factory_entry_selects_text_and_holds_shift(launch_app: AppFactory) -> None:
    factory = launch_app(["gtk3-widget-factory"])
    entry = factory.locator("role=textField[disabled=false] >> nth=2")
    uidrive.expect(entry).to_have_value("entry")
    assert entry.is_editable()
    assert not factory.get_by_role("checkBox", name="checkbutton").first.is_editable()

    outcome: Any = entry.select_text(1, 4)
    assert outcome["route"] == "semantic:selectText"
    assert outcome["effect"] == "confirmed", outcome
    assert entry.node()["selection"] == [1, 4]
    with pytest.raises(uidrive.InvalidRequestError, match="after"):
        entry.select_text(4, 1)

    # Shift held across two presses of Left selects the two characters before the caret.
    entry.fill("hello")
    entry.press("End")
    held: Any = factory.keyboard.down("Shift")
    assert held["effect"] == "unverifiable"
    factory.keyboard.press("Left")
    factory.keyboard.press("Left")
    factory.keyboard.up("Shift")
    assert entry.node()["selection"] == [3, 5]
    # Released: Left now moves the caret and drops the selection.
    factory.keyboard.press("Left")
    assert entry.node()["selection"] == [3, 3]

    with pytest.raises(uidrive.InvalidRequestError, match="key down"):
        factory.keyboard.down("Hyper")
