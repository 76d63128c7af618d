"""Acts on an app and reads the effect back the way users of uidrive's peers
write it, for bench/atspi_tree.py. Run with Debian's python3 (pyatspi and
dogtail come from scripts/install-bench-deps.sh).

usage: /usr/bin/python3 bench/peer_act.py PEER APP_NAME RUNS (click | type TEXT | cap)

  PEER  pyatspi: `click` runs the control's action (doAction) and polls the
        tree until the change shows; `type` sends one generateKeyboardEvent
        per character and polls the field until it reads TEXT.
        dogtail: `click` is dogtail's Node.click() (a pointer click at the
        centre, then its default actionDelay) and `type` its Node.typeText()
        (a key per character, each followed by its default typingDelay);
        both then poll until the change shows.
  cap   (PEER is ignored) times what the app itself takes to answer: one
        org.a11y.atspi.Cache.GetItems call (the whole cache in one answer),
        over the accessibility bus and, when the app offers one, over its
        direct peer socket (as uidrive reads it), and one GetRole call (a
        single round trip over the bus).

Each run prints `ms M` (the action through the change read back); `click`
and `type` first print `route ...` naming what they act on.
"""
import statistics
import sys
import time

import pyatspi

POLL_LIMIT_S = 10.0


def find_app(name):
    for app in pyatspi.Registry.getDesktop(0):
        if app is not None and app.name == name:
            return app
    raise SystemExit(f"no app named {name}")


def nodes(node):
    """Every element under `node`, in document order."""
    yield node
    for child in node:
        if child is not None:
            yield from nodes(child)


def text_of(node):
    text = node.queryText()
    return text.getText(0, text.characterCount)


def state(node, which):
    return node.getState().contains(which)


def poll(check):
    deadline = time.perf_counter() + POLL_LIMIT_S
    while not check():
        if time.perf_counter() > deadline:
            raise SystemExit("the change did not show within the poll limit")


def calculator(app):
    """Button 7; the equation field gains a 7."""
    window = app[0]
    button = display = None
    for node in nodes(window):
        role = node.getRole()
        if button is None and role == pyatspi.ROLE_PUSH_BUTTON and node.name.split(" ")[0] == "7":
            button = node
        if display is None and role in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY) and not state(node, pyatspi.STATE_READ_ONLY):
            display = node
    before = [None]

    def arm():
        before[0] = text_of(display)

    return button, button, arm, lambda: text_of(display) == before[0] + "7"


def flips(target, clicked, which):
    before = [None]

    def arm():
        before[0] = state(target, which)

    return clicked, target, arm, lambda: state(target, which) != before[0]


def widget_factory(app):
    """The toggle button `togglebutton`; its checked state flips."""
    for node in nodes(app[0]):
        if node.getRole() == pyatspi.ROLE_TOGGLE_BUTTON and node.name == "togglebutton":
            return flips(node, node, pyatspi.STATE_CHECKED)
    raise SystemExit("no toggle button named togglebutton")


def gtk4_demo(app):
    """The demo list's row `Benchmark`: its expander button (clicked by
    dogtail; it has no action) and its row (whose toggle-expand action pyatspi
    runs); the row's expanded state flips."""
    for node in nodes(app[0]):
        if node.getRole() == pyatspi.ROLE_PANEL and node.name == "Benchmark" and state(node, pyatspi.STATE_EXPANDABLE):
            expander = next(c for c in node if c is not None and c.getRole() == pyatspi.ROLE_PUSH_BUTTON)
            return flips(node, expander, pyatspi.STATE_EXPANDED)
    raise SystemExit("no expandable row named Benchmark")


CLICKS = {"gnome-calculator": calculator, "gtk3-widget-factory": widget_factory, "gtk4-demo": gtk4_demo}


def do_action(node, preferred):
    action = node.queryAction()
    names = [action.getName(i) for i in range(action.nActions)]
    index = next((names.index(n) for n in preferred if n in names), 0)
    return lambda: action.doAction(index), names[index] if names else None


def click(peer, app, runs):
    clicked, target, arm, shows = CLICKS[app.name](app)
    if peer == "pyatspi":
        # pyatspi has no pointer click of its own: the control's action it is.
        acted_on = target if clicked.queryAction().nActions == 0 else clicked
        act, name = do_action(acted_on, ["click", "press", "listitem.toggle-expand", "activate"])
        print(f"route doAction {name} on {acted_on.getRoleName()} {acted_on.name!r}")
    else:
        act = clicked.click
        print(f"route dogtail click on {clicked.getRoleName()} {clicked.name!r}")
    for _ in range(runs):
        arm()
        started = time.perf_counter()
        act()
        poll(shows)
        print(f"ms {(time.perf_counter() - started) * 1000:.2f}", flush=True)


def field(app):
    """gtk3-widget-factory's entry that reads `entry`."""
    for node in nodes(app[0]):
        if node.getRole() == pyatspi.ROLE_TEXT and state(node, pyatspi.STATE_EDITABLE) and state(node, pyatspi.STATE_ENABLED):
            if text_of(node) == "entry":
                return node
    raise SystemExit("no enabled field reading `entry`")


def type_into(peer, app, runs, text):
    entry = field(app)
    editable = entry.queryEditableText()
    print(f"route {'generateKeyboardEvent per character' if peer == 'pyatspi' else 'dogtail typeText'} into {entry.getRoleName()}")
    for _ in range(runs):
        editable.setTextContents("")
        poll(lambda: text_of(entry) == "")
        entry.queryComponent().grabFocus()
        poll(lambda: state(entry, pyatspi.STATE_FOCUSED))
        started = time.perf_counter()
        if peer == "pyatspi":
            for char in text:
                pyatspi.Registry.generateKeyboardEvent(ord(char), None, pyatspi.KEY_SYM)
        else:
            entry.typeText(text)
        poll(lambda: text_of(entry) == text)
        print(f"ms {(time.perf_counter() - started) * 1000:.2f}", flush=True)
    editable.setTextContents("entry")


def cap(name, runs):
    """The app's own answer time: one Cache.GetItems and one GetRole, over the bus."""
    from gi.repository import Gio

    session = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    address = session.call_sync(
        "org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress", None, None, Gio.DBusCallFlags.NONE, -1, None
    ).unpack()[0]
    flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
    bus = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)

    def call(dest, path, iface, method, args=None):
        return bus.call_sync(dest, path, iface, method, args, None, Gio.DBusCallFlags.NONE, 60_000, None).unpack()

    (apps,) = call("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root", "org.a11y.atspi.Accessible", "GetChildren")
    from gi.repository import GLib

    for dest, path in apps:
        try:
            (app_name,) = call(dest, path, "org.freedesktop.DBus.Properties", "Get", GLib.Variant("(ss)", ("org.a11y.atspi.Accessible", "Name")))
        except GLib.Error:
            continue
        if app_name == name:
            break
    else:
        raise SystemExit(f"no app named {name}")
    # uidrive reads over the app's own peer socket when it offers one (GTK 3's
    # bridge, LibreOffice's): time GetItems there too, the way uidrive makes it.
    peer = None
    try:
        (peer_address,) = call(dest, path, "org.a11y.atspi.Application", "GetApplicationBusAddress")
        if peer_address:
            peer = Gio.DBusConnection.new_for_address_sync(
                peer_address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT, None, None
            )
    except GLib.Error:
        pass
    items, peer_items, trips = [], [], []
    for _ in range(runs):
        started = time.perf_counter()
        (cache,) = call(dest, "/org/a11y/atspi/cache", "org.a11y.atspi.Cache", "GetItems")
        items.append((time.perf_counter() - started) * 1000)
        if peer is not None:
            started = time.perf_counter()
            peer.call_sync(
                None, "/org/a11y/atspi/cache", "org.a11y.atspi.Cache", "GetItems", None, None,
                Gio.DBusCallFlags.NONE, 60_000, None,
            )
            peer_items.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        call(dest, path, "org.a11y.atspi.Accessible", "GetRole")
        trips.append((time.perf_counter() - started) * 1000)
    over_peer = f" over its peer socket ms {statistics.median(peer_items):.2f}" if peer_items else ""
    print(
        f"cache items {len(cache)} getitems over the bus ms {statistics.median(items):.2f}{over_peer}"
        f" roundtrip ms {statistics.median(trips):.3f}"
    )


def main():
    peer, name, runs, what = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    if what == "cap":
        return cap(name, runs)
    if peer == "dogtail":
        from dogtail.config import config

        config.checkForA11y = False  # the headless session has no gsettings switch; the bus is on
        config.logDebugToFile = False
        config.logDebugToStdOut = False
        import dogtail.tree  # noqa: F401  (gives accessibles click() and typeText())
    app = find_app(name)
    if what == "click":
        click(peer, app, runs)
    elif what == "type":
        type_into(peer, app, runs, sys.argv[5])
    else:
        raise SystemExit(f"unknown work {what}")


if __name__ == "__main__":
    main()
