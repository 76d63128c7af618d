#!/usr/bin/python3
"""Puts a 7 x 5 red image on the clipboard (GTK 3 offers it as image/png
among others), prints `ready`, and keeps serving it until killed: an app
whose copy is an image, for uidrive's clipboard tests. Debian's python3-gi
and gir1.2-gtk-3.0."""

import gi

gi.require_version("Gdk", "3.0")
gi.require_version("Gtk", "3.0")
from gi.repository import Gdk, GdkPixbuf, GLib, Gtk  # noqa: E402


def main() -> None:
    pixbuf = GdkPixbuf.Pixbuf.new(GdkPixbuf.Colorspace.RGB, False, 8, 7, 5)
    pixbuf.fill(0xFF0000FF)
    clipboard = Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD)
    clipboard.set_image(pixbuf)
    GLib.idle_add(lambda: print("ready", flush=True) and False)
    Gtk.main()


if __name__ == "__main__":
    main()
