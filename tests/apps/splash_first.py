#!/usr/bin/env python3
"""An app that shows a splash screen while it starts, as LibreOffice does on
Wayland: a GTK 3 window with the splash screen type hint, then, once GO_FILE
exists, its main window ("Main window") in place of the splash.

usage: splash_first.py SHOWN_FILE GO_FILE
SHOWN_FILE is written once the splash is on screen."""

import os
import sys

import gi

gi.require_version("Gdk", "3.0")
gi.require_version("Gtk", "3.0")
from gi.repository import Gdk, GLib, Gtk

shown_file, go_file = sys.argv[1], sys.argv[2]

splash = Gtk.Window()
splash.set_type_hint(Gdk.WindowTypeHint.SPLASHSCREEN)
splash.set_decorated(False)
splash.set_default_size(400, 150)
splash.add(Gtk.Label(label="Starting..."))


def splash_shown(*_):
    open(shown_file, "w").close()
    return False


def start_when_told():
    if not os.path.exists(go_file):
        return True
    splash.destroy()
    main = Gtk.Window(title="Main window")
    main.add(Gtk.Label(label="started"))
    main.connect("destroy", Gtk.main_quit)
    main.show_all()
    return False


splash.connect("map-event", splash_shown)
splash.show_all()
GLib.timeout_add(20, start_when_told)
Gtk.main()
