"""The shared scenario: real GTK apps on a private headless desktop, driven
only through locators and expect (the `desktop` and `launch_app` fixtures come from
the wheel's pytest plugin)."""

from __future__ import annotations

import re
from collections import Counter

import pytest
import uidrive
from uidrive.pytest_plugin import AppFactory


def test_calculator_computes_7_times_6(launch_app: AppFactory) -> None:
    calculator = launch_app(["gnome-calculator"])
    for label in ["7", "\N{MULTIPLICATION SIGN}", "6", "="]:
        outcome = calculator.get_by_role("button", name=label).click()
        assert outcome["route"] in {"semantic:press", "input"}
        assert outcome["effect"] in {"confirmed", "unverifiable"}
    display = calculator.get_by_role("textField").first
    uidrive.expect(display).to_have_value("42", exact=True)
    assert display.value() == "42"


@pytest.mark.uidrive_app(["gnome-calculator"])
def test_playwright_shapes_and_units(app: uidrive.App) -> None:
    """issue 33: the `app` fixture from a marker, `.first` as a property,
    `not_to_...` methods, and timeouts in milliseconds (400 is 400 ms)."""
    for label in ["7", "\N{MULTIPLICATION SIGN}", "6", "="]:
        app.get_by_role("button", name=label, exact=True).click()
    display = app.get_by_role("textbox").first  # the ARIA name of textField
    assert isinstance(display, uidrive.Locator)
    uidrive.expect(display).to_have_value("42")
    uidrive.expect(display).not_to_have_value("43", timeout=400)
    with pytest.raises(uidrive.AssertionFailedError, match=r"\(waited 400 ms\)"):
        uidrive.expect(display).not_to_have_value("42", timeout=400)
    # The deprecated spelling still works.
    uidrive.expect(display).not_.to_have_value("43", timeout=400)
    # A suite-wide default, as Playwright's expect.set_options sets it.
    uidrive.expect.set_options(timeout=300)
    try:
        with pytest.raises(uidrive.AssertionFailedError, match=r"\(waited 300 ms\)"):
            uidrive.expect(display).to_have_value("43")
    finally:
        uidrive.expect.set_options(timeout=None)
    assert app.timeouts["expect"] == 5000
    assert app.get_by_role("button", name="7", exact=True).last.text() == "7"


def test_a_string_is_the_whole_value_as_in_playwright(launch_app: AppFactory) -> None:
    """issue 28: ``to_have_value("4")`` passed while the display read 144."""
    calculator = launch_app(["gnome-calculator"])
    for label in ["1", "2", "\N{MULTIPLICATION SIGN}", "1", "2", "="]:
        calculator.get_by_role("button", name=label, exact=True).click()
    display = calculator.get_by_role("textField").first
    uidrive.expect(display).to_have_value("144")
    with pytest.raises(uidrive.AssertionFailedError, match='last observed value "144"'):
        uidrive.expect(display, timeout=500).to_have_value("4")
    uidrive.expect(display).not_to_have_value("4", timeout=500)
    uidrive.expect(display).to_contain_text("4")
    uidrive.expect(display).to_have_value(re.compile(r"^1\d4$"))
    with pytest.raises(uidrive.InvalidRequestError, match="to_contain_text"):
        uidrive.expect(display).to_have_value("4", exact=False)


def test_widget_factory_tree(launch_app: AppFactory) -> None:
    factory = launch_app(["gtk3-widget-factory"])
    windows = factory.windows()
    assert len(windows) >= 1
    assert windows[0]["contentBounds"]["width"] > 0
    tree = factory.tree()
    roles = Counter(node["role"] for node in tree["nodes"])
    assert len(tree["nodes"]) > 150
    assert roles["checkBox"] >= 6 and roles["slider"] >= 3 and roles["textField"] >= 3
    ids = [node["id"] for node in tree["nodes"]]
    assert len(ids) == len(set(ids))


def test_widget_factory_controls(launch_app: AppFactory) -> None:
    factory = launch_app(["gtk3-widget-factory"])

    # Three enabled check boxes share the label: mixed, unchecked, checked (tree order).
    boxes = factory.get_by_role("checkBox", name="checkbutton", disabled=False)
    uidrive.expect(boxes).to_have_count(3)
    unchecked = boxes.nth(1)
    assert not unchecked.is_checked()
    unchecked.check()
    uidrive.expect(unchecked).to_be_checked()
    assert "checked" in unchecked.states()

    # A disabled one is found, and an action on it fails once its timeout passes.
    disabled = factory.get_by_role("checkBox", name="checkbutton", disabled=True).first
    uidrive.expect(disabled).to_be_disabled()
    assert not disabled.is_enabled()
    with pytest.raises(uidrive.NotActionableError) as caught:
        disabled.click(timeout=500)
    assert "disabled" in caught.value.message

    # An empty entry: replace its text, non-ASCII included, and read it back.
    entry = factory.get_by_role("textField").nth(2)
    entry.fill("héllo wörld ✓")
    uidrive.expect(entry).to_have_value("héllo wörld ✓", exact=True)

    # A slider through its Value interface.
    slider = factory.get_by_role("slider").first
    slider.set_value(75)
    uidrive.expect(slider).to_have_value("75", exact=True)

    # A toggle button pressed on.
    toggle = factory.get_by_role("toggleButton", name="togglebutton").first
    uidrive.expect(toggle).not_to_be_checked()
    toggle.click()
    uidrive.expect(toggle).to_be_checked()


def test_widget_factory_table_cells_by_place(launch_app: AppFactory) -> None:
    factory = launch_app(["gtk3-widget-factory"])

    # Page 1's tree view: columns Cool, Icon, Name, Nick; GTK gives each cell
    # its row and column, counted from 1.
    table = factory.get_by_role("table")
    uidrive.expect(table.cell(2, 3)).to_have_text("Otto", exact=True)
    assert table.cell(4, 4).text() == "Company"
    assert factory.locator("role=table >> cell=3,3").text() == "Orville"
    assert "checked" in table.cell(1, 1).states()
    assert "checked" not in table.cell(2, 1).states()

    # No fifth row: nothing there (asked of GTK itself, the table being one
    # whose read may be partial).
    assert table.cell(5, 3).count() == 0
    assert factory.locator("role=table >> cell=5,3").count() == 0

    # Rows and columns count from 1: 0 fails at first use, a negative number at once.
    for zero in (table.cell(0, 1), table.cell(1, 0)):
        with pytest.raises(uidrive.InvalidRequestError) as caught:
            zero.text()
        assert "count from 1" in caught.value.message
    with pytest.raises(uidrive.InvalidRequestError) as refused:
        table.cell(-1, 3)
    assert "count from 1" in refused.value.message
    with pytest.raises(uidrive.InvalidRequestError):
        factory.locator("role=table >> cell=0,1").count()


def test_widget_factory_right_and_double_click(launch_app: AppFactory) -> None:
    factory = launch_app(["gtk3-widget-factory"])
    # The enabled entries: the combo's, an empty one, "entry", and the text view.
    entry = factory.get_by_role("textField", disabled=False).nth(2)
    uidrive.expect(entry).to_have_value("entry", exact=True)

    # A right click is the pointer's, never the entry's own action: GTK opens
    # the entry's context menu, a popup of its own, and Escape closes it.
    assert entry.click(button="right")["route"] == "input"
    select_all = factory.get_by_role("menuItem", name="Select All", exact=True)
    uidrive.expect(select_all).to_be_visible()
    uidrive.expect(factory.get_by_role("menuItem", name="Paste", exact=True)).to_have_count(1)
    factory.keyboard.press("Escape")
    uidrive.expect(select_all).to_be_hidden()

    # Two clicks in a row select the word under the pointer, so typed text replaces it.
    assert entry.click(click_count=2)["route"] == "input"
    factory.keyboard.type("X")
    uidrive.expect(entry).to_have_value("X", exact=True)


def test_widget_factory_switches_page(launch_app: AppFactory) -> None:
    factory = launch_app(["gtk3-widget-factory"])
    volume = factory.get_by_role("slider", name="Volume")
    uidrive.expect(volume).to_be_hidden()
    page_2 = factory.get_by_role("radio", name="Page 2")
    page_2.click()
    uidrive.expect(page_2).to_be_checked()
    uidrive.expect(volume).to_be_visible()


def test_attach_by_pid_to_a_launched_app(launch_app: AppFactory, desktop: uidrive.Desktop) -> None:
    launched = launch_app(["gnome-calculator"])
    assert launched.pid is not None
    attached = uidrive.attach(pid=launched.pid, env=desktop.env)
    assert attached.windows()[0]["title"] == launched.windows()[0]["title"]
    attached.get_by_role("button", name="9").click()
    uidrive.expect(launched.get_by_role("textField").first).to_have_value("9", exact=True)
    by_name = uidrive.attach(name="gnome-calculator", env=desktop.env)
    uidrive.expect(by_name.get_by_role("textField").first).to_have_value("9", exact=True)


def test_widget_factory_capture_and_typed_input(launch_app: AppFactory) -> None:
    factory = launch_app(["gtk3-widget-factory"])
    png = factory.capture()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    width = int.from_bytes(png[16:20], "big")
    height = int.from_bytes(png[20:24], "big")
    content = factory.windows()[0]["contentBounds"]
    # the window's content, clipped to the screen (the factory is wider than 1280 px)
    assert 0 < width <= content["width"] + 1 and 0 < height <= content["height"] + 1

    # Real key input: text with characters that are on no key of the keymap.
    entry = factory.get_by_role("textField").nth(2)
    entry.focus()
    uidrive.expect(entry).to_be_focused()
    factory.input([{"type": "text", "text": "Grüße ✓"}])
    uidrive.expect(entry).to_have_value("Grüße ✓", exact=True)


def test_desktop_launch_and_attach(desktop: uidrive.Desktop) -> None:
    with desktop.launch(["gnome-calculator"]) as calculator:
        assert calculator.pid is not None
        attached = desktop.attach(pid=calculator.pid)
        assert attached.windows()[0]["title"] == calculator.windows()[0]["title"]
        by_name = desktop.attach(name="gnome-calculator")
        by_name.get_by_role("button", name="8", exact=True).click()
        uidrive.expect(calculator.get_by_role("textField").first).to_have_value("8", exact=True)
        with pytest.raises(uidrive.InvalidRequestError):
            desktop.attach(pid=calculator.pid, name="gnome-calculator")


def test_a_ref_of_a_gone_element_is_stale_at_once(desktop: uidrive.Desktop) -> None:
    with desktop.launch(["gnome-calculator"]) as calculator:
        calculator.snapshot(interactive=True)
        with pytest.raises(uidrive.StaleRefError):
            calculator.get_by_ref("@e99999")
        with pytest.raises(uidrive.InvalidRequestError):
            calculator.get_by_ref("e0")


def test_no_element_names_the_windows_of_a_real_app(desktop: uidrive.Desktop) -> None:
    with desktop.launch(["gnome-calculator"]) as calculator:
        with pytest.raises(uidrive.NoElementError) as caught:
            calculator.window(title="Calculator").get_by_role(
                "button", name="no such button"
            ).click(timeout=500)
        assert 'the app\'s windows: ' in caught.value.message
        assert '"Calculator"' in caught.value.message


def test_an_element_in_a_new_window_is_pointed_at(desktop: uidrive.Desktop) -> None:
    """gtk4-demo's Run opens the demo in a second window: a search of the first
    one fails, and says which window it searched and which others exist."""
    with desktop.launch(["gtk4-demo"]) as demo:
        demo.get_by_text("Builder", exact=True).click()
        run = demo.get_by_role("button", name="Run", exact=True)
        uidrive.expect(run).to_be_enabled()
        run.click()
        # The demo's window comes second (the main window is the first).
        uidrive.expect(demo.window(id=2).get_by_role("button").first).to_be_visible()
        with pytest.raises(uidrive.NoElementError) as caught:
            demo.window(id=1).get_by_role("button", name="in the other window").click(timeout=1000)
        message, suggestion = caught.value.message, caught.value.suggestion
        assert "in window 1" in message
        assert "the app's windows: 1 " in message and ", 2 " in message
        assert "another window" in suggestion and "app.window(id=...)" in suggestion


def test_a_dialog_answers_on_stdout(desktop: uidrive.Desktop) -> None:
    """zenity prints the entry's text and exits 0: tested without Popen."""
    argv = ["zenity", "--entry", "--title=Name", "--text=Your name"]
    with desktop.launch(argv, capture_output=True) as dialog:
        assert dialog.process is not None
        assert dialog.process.returncode is None
        dialog.get_by_role("textField").fill("Ada")
        dialog.get_by_role("button", name="OK", exact=True).click()
        assert dialog.process.wait(timeout=10) == 0
        assert dialog.process.stdout == "Ada\n"
        assert dialog.process.stderr is not None


def test_a_closed_app_keeps_how_it_ended(desktop: uidrive.Desktop) -> None:
    calculator = desktop.launch(["gnome-calculator"])
    process = calculator.process
    assert process is not None and process.pid == calculator.pid
    assert process.stdout is None, "not captured"
    # It closes when its window is asked to, as a close button asks.
    assert calculator.close() == "windows"
    assert process.returncode is not None
    assert calculator.close() == "exited", "closing twice signals nothing"
