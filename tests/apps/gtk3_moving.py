#!/usr/bin/env python3
"""A GTK 3 window whose button moves with no accessibility event but its new
box: SIGUSR1 widens the button's left margin by 40 pixels, SIGUSR2 moves the
window by (50, 30). Once the new place is laid out, the app writes `button`
or `window` to the file named by its first argument."""
import signal
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

MARKER = sys.argv[1]
done = {"button": None, "window": None}


def tell(what):
    with open(MARKER, "w") as out:
        out.write(what)
    return False


def on_allocate(widget, allocation):
    if done["button"] is not None and allocation.x == done["button"]:
        done["button"] = None
        GLib.idle_add(tell, "button")


def on_configure(widget, event):
    if done["window"] is not None and (event.x, event.y) != done["window"]:
        done["window"] = None
        GLib.idle_add(tell, "window")


def move_button():
    done["button"] = button.get_allocation().x + 40
    button.set_margin_start(button.get_margin_start() + 40)
    return False


def move_window():
    x, y = window.get_position()
    done["window"] = window.get_window().get_origin()[1:]
    window.move(x + 50, y + 30)
    return False


window = Gtk.Window(title="Moving test")
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
button = Gtk.Button(label="Target")
button.set_halign(Gtk.Align.START)
button.connect("size-allocate", on_allocate)
box.pack_start(button, False, False, 0)
box.pack_start(Gtk.Label(label="A label that stays"), False, False, 0)
window.add(box)
window.set_default_size(300, 120)
window.connect("configure-event", on_configure)
window.connect("destroy", Gtk.main_quit)
GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, move_button)
GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR2, move_window)
window.show_all()
Gtk.main()
