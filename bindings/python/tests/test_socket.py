"""A protocol app over its socket: `uidrive serve --demo`, reached with connect and launch."""

from __future__ import annotations

import re

import pytest
import uidrive
from conftest import DemoFactory

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_connect_lists_windows_and_reads_the_tree(demo: uidrive.App) -> None:
    windows = demo.windows()
    assert [w["title"] for w in windows] == ["Counter"]
    assert windows[0]["contentBounds"]["width"] > 0

    tree = demo.tree()
    assert tree["window"] == windows[0]["id"]
    by_key = {n.get("key"): n for n in tree["nodes"]}
    assert by_key["add"]["role"] == "button"
    assert by_key["add"]["label"] == "Add"
    assert by_key["name"]["value"] == "Ada"
    # ids are 64-bit digit strings, kept as str so nothing rounds them
    assert all(isinstance(n["id"], str) and n["id"].isdigit() for n in tree["nodes"])


def test_press_add_and_expect_the_count(demo: uidrive.App) -> None:
    outcome = demo.get_by_role("button", name="Add").click()
    assert outcome["route"] == "semantic:press"
    assert outcome["element"]["label"] == "Add"
    uidrive.expect(demo.get_by_text("Count:")).to_have_text("Count: 1", exact=True)
    assert demo.get_by_key("count").text() == "Count: 1"
    # A str is the whole text, case counted; a part is to_contain_text.
    count = demo.get_by_key("count")
    with pytest.raises(uidrive.AssertionFailedError):
        uidrive.expect(count, timeout=300).to_have_text("Count")
    with pytest.raises(uidrive.AssertionFailedError):
        uidrive.expect(count, timeout=300).to_have_text("count: 1")
    uidrive.expect(count).to_have_text("count: 1", ignore_case=True)
    uidrive.expect(count).to_contain_text("Count")
    uidrive.expect(count).not_to_contain_text("count", timeout=300)


def test_locator_actions_and_reads(demo: uidrive.App) -> None:
    name = demo.get_by_label("Name")
    name.fill("Grace")
    uidrive.expect(name).to_have_value("Grace", exact=True)
    assert name.value() == "Grace"

    subscribe = demo.get_by_role("checkBox", name="Subscribe")
    assert not subscribe.is_checked()
    subscribe.check()
    uidrive.expect(subscribe).to_be_checked()
    assert subscribe.check()["route"] == "not_needed"
    subscribe.uncheck()
    uidrive.expect(subscribe).not_to_be_checked()

    volume = demo.get_by_role("slider", name="Volume")
    volume.set_value(70)
    assert volume.node()["now"] == 70

    items = demo.get_by_role("listItem")
    assert items.count() == 3
    assert [item.text() for item in items.all()] == ["Apple", "Banana", "Cherry"]
    assert items.nth(1).text() == "Banana"
    assert items.first.text() == "Apple"
    assert items.last.text() == "Cherry"
    assert items.filter(has_text="an").text() == "Banana"
    uidrive.expect(items).to_have_count(3)

    fruits = demo.get_by_key("fruits")
    assert fruits.get_by_text("cherry").text() == "Cherry"
    assert fruits.locator(demo.get_by_role("listItem", name="Apple")).count() == 1

    add = demo.get_by_key("add")
    assert add.is_visible() and add.is_enabled()
    bounds = add.bounds()
    assert bounds is not None and bounds["width"] > 0
    assert "focusable" in add.states()
    assert "add" in add.description or "Add" in repr(add)


def test_text_matching_by_regex_and_exact(demo: uidrive.App) -> None:
    assert demo.get_by_text(re.compile(r"count: \d", re.IGNORECASE)).text() == "Count: 0"
    assert demo.get_by_text(re.compile(r"count: \d")).count() == 0
    assert demo.get_by_text("count: 0").count() == 1
    assert demo.get_by_text("count: 0", exact=True).count() == 0
    uidrive.expect(demo.get_by_key("count")).to_have_text(re.compile(r"^Count: 0$"))


def test_window_scoped_locators(demo: uidrive.App) -> None:
    counter = demo.window("Counter")
    counter.get_by_key("add").click()
    uidrive.expect(counter.get_by_key("count")).to_have_text("Count: 1")
    by_id = demo.window(id=demo.windows()[0]["id"])
    assert by_id.get_by_key("count").text() == "Count: 1"


def test_protocol_methods_directly(demo: uidrive.App) -> None:
    hello = demo.hello()
    assert "tree" in hello["methods"]
    demo.act("press", key="add")
    demo.act("setValue", key="name", text="Lin")
    add_id = next(n["id"] for n in demo.tree()["nodes"] if n.get("key") == "add")
    demo.act("press", id=add_id)
    demo.idle(timeout=5000)
    assert demo.get_by_key("count").text() == "Count: 2"
    assert demo.get_by_key("name").value() == "Lin"

    demo.menu(["File", "New"])
    assert demo.get_by_key("count").text() == "Count: 0"

    png = demo.capture()
    assert png.startswith(PNG_MAGIC)

    demo.input([{"type": "click", "x": 200, "y": 64}])
    uidrive.expect(demo.get_by_key("count")).to_have_text("Count: 1")

    answer = demo.call("windows")
    assert answer["windows"][0]["title"] == "Counter"


def test_launch_a_socket_app_by_env_var(uidrive_bin: str) -> None:
    # The app learns its socket path from the variable socket_env names, as MyGo apps do.
    serve = 'exec "$0" serve --demo --socket "$UIDRIVE_TEST_SOCKET"'
    app = uidrive.launch(["sh", "-c", serve, uidrive_bin], socket_env="UIDRIVE_TEST_SOCKET")
    with app:
        assert isinstance(app.pid, int)
        app.get_by_key("add").click()
        uidrive.expect(app.get_by_key("count")).to_have_text("Count: 1")
    # closed: the process uidrive launched is gone, and calls now fail cleanly
    try:
        app.windows()
    except uidrive.Error as error:
        assert error.code in {"disconnected", "app_exited"}
    else:
        raise AssertionError("a call after close() should fail")


def test_two_connections_to_one_app(demo_server: DemoFactory) -> None:
    server = demo_server()
    with server.connect() as first, server.connect() as second:
        first.get_by_key("add").click()
        uidrive.expect(second.get_by_key("count")).to_have_text("Count: 1")


def test_snapshot_refs_last_and_drive_locators(demo: uidrive.App) -> None:
    first = demo.snapshot(interactive=True)
    assert first.window == demo.windows()[0]["id"]
    add = next(e for e in first.elements if e.get("key") == "add")
    assert add["ref"].startswith("@e") and add["role"] == "button"
    assert add["ref"] in first.text and '"Add"' in first.text
    # controls only: the plain text "Count: 0" is left out
    assert "Count: 0" not in first.text
    full = demo.snapshot()
    assert "Count: 0" in str(full)

    demo.get_by_ref(add["ref"]).click()
    uidrive.expect(demo.get_by_key("count")).to_have_text("Count: 1")
    again = demo.snapshot(interactive=True)
    assert next(e for e in again.elements if e.get("key") == "add")["ref"] == add["ref"]


def test_every_locator_action_reaches_the_app(demo: uidrive.App) -> None:
    add, name = demo.get_by_key("add"), demo.get_by_key("name")
    assert add.hover()["route"] == "input"
    assert add.dblclick()["route"] == "input"
    assert add.scroll_into_view()["route"] in {"not_needed", "semantic:scrollIntoView"}

    assert name.focus()["route"] == "semantic:focus"
    uidrive.expect(name).to_be_focused()
    assert name.type("!")["route"] == "semantic:insertText"
    uidrive.expect(name).to_have_value("Ada!", exact=True)
    assert name.press("Backspace")["route"] == "input"
    uidrive.expect(name).to_have_value("Ada", exact=True)

    demo.get_by_key("fruits").select_option("Banana")
    uidrive.expect(demo.get_by_role("listItem", name="Banana")).to_have_state("selected")

    subscribe = demo.get_by_key("subscribe")
    subscribe.set_checked(True)
    uidrive.expect(subscribe).to_be_checked()
    subscribe.set_checked(False)
    uidrive.expect(subscribe).not_to_be_checked()

    assert add.drag_to(name)["route"] == "input"
    assert demo.locator('role=button[name="Add"]').count() == 1
    assert demo.get_by_placeholder("nothing has this").count() == 0
