#!/usr/bin/python3
"""A small tray item for uidrive's tests: a StatusNotifierItem with a
com.canonical.dbusmenu menu, registered with the session bus's
org.kde.StatusNotifierWatcher. It writes what is done to it, one line
each, to the file named first on its command line:
`registered`, `activate X Y`, `clicked ID LABEL`.

Run with Debian's python3 (python3-dbus, python3-gi).
"""

import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

ITEM = "org.kde.StatusNotifierItem"
MENU = "com.canonical.dbusmenu"
PROPS = "org.freedesktop.DBus.Properties"

LOG = open(sys.argv[1], "a", buffering=1)  # noqa: SIM115 - open for the process's life


def log(line: str) -> None:
    LOG.write(line + "\n")
    LOG.flush()


# id -> (label, enabled); 0 is the root.
ENTRIES = {1: ("_Open Window", True), 2: ("", True), 3: ("Quit", True), 4: ("Disabled", False)}


class Item(dbus.service.Object):
    def __init__(self, bus: dbus.SessionBus) -> None:
        super().__init__(bus, "/StatusNotifierItem")

    def props(self) -> dict:
        return {
            "Category": "ApplicationStatus",
            "Id": "uidrive-test-tray",
            "Title": "uidrive test tray",
            "Status": "Active",
            "IconName": "dialog-information",
            "ToolTip": dbus.Struct(
                ("dialog-information", dbus.Array([], signature="(iiay)"), "Test tray", "All is well"),
                signature="sa(iiay)ss",
            ),
            "ItemIsMenu": False,
            "Menu": dbus.ObjectPath("/MenuBar"),
        }

    @dbus.service.method(PROPS, in_signature="ss", out_signature="v")
    def Get(self, interface: str, name: str):  # noqa: N802 - D-Bus names
        return self.props()[name]

    @dbus.service.method(PROPS, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface: str):  # noqa: N802
        return self.props() if interface == ITEM else {}

    @dbus.service.method(ITEM, in_signature="ii")
    def Activate(self, x: int, y: int) -> None:  # noqa: N802
        log(f"activate {x} {y}")

    @dbus.service.method(ITEM, in_signature="ii")
    def SecondaryActivate(self, x: int, y: int) -> None:  # noqa: N802
        log(f"secondary {x} {y}")


class Menu(dbus.service.Object):
    def __init__(self, bus: dbus.SessionBus) -> None:
        super().__init__(bus, "/MenuBar")

    @staticmethod
    def node(entry_id: int):
        label, enabled = ENTRIES[entry_id]
        props = {"label": label, "enabled": enabled}
        if label == "":
            props = {"type": "separator"}
        return dbus.Struct(
            (dbus.Int32(entry_id), dbus.Dictionary(props, signature="sv"), dbus.Array([], signature="v")),
            signature="ia{sv}av",
        )

    @dbus.service.method(MENU, in_signature="iias", out_signature="u(ia{sv}av)")
    def GetLayout(self, parent: int, depth: int, names):  # noqa: N802
        children = dbus.Array([self.node(i) for i in sorted(ENTRIES)], signature="v")
        root = dbus.Struct(
            (dbus.Int32(0), dbus.Dictionary({"children-display": "submenu"}, signature="sv"), children),
            signature="ia{sv}av",
        )
        return (dbus.UInt32(1), root)

    @dbus.service.method(MENU, in_signature="i", out_signature="b")
    def AboutToShow(self, entry_id: int) -> bool:  # noqa: N802
        return False

    @dbus.service.method(MENU, in_signature="isvu")
    def Event(self, entry_id: int, event: str, data, timestamp: int) -> None:  # noqa: N802
        if event == "clicked":
            log(f"clicked {entry_id} {ENTRIES.get(entry_id, ('?', True))[0]}")

    @dbus.service.method(PROPS, in_signature="ss", out_signature="v")
    def Get(self, interface: str, name: str):  # noqa: N802
        return {"Version": dbus.UInt32(3), "Status": "normal"}[name]


def main() -> None:
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    name = dbus.service.BusName("org.uidrive.TestTray", bus)
    Item(bus)
    Menu(bus)
    watcher = bus.get_object("org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher")
    watcher.RegisterStatusNotifierItem(
        "org.uidrive.TestTray", dbus_interface="org.kde.StatusNotifierWatcher"
    )
    log("registered")
    _ = name
    GLib.MainLoop().run()


if __name__ == "__main__":
    main()
