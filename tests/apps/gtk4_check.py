#!/usr/bin/env python3
"""A GTK 4 window with a header bar, a check button and a label that says
whether it is on: the scaled tests click the check button for real
(GDK_SCALE=2)."""
import gi

gi.require_version("Gtk", "4.0")
from gi.repository import Gtk  # noqa: E402


def toggled(button, label):
    label.set_text("on" if button.get_active() else "off")


def activate(app):
    window = Gtk.ApplicationWindow(application=app, title="Scale test")
    window.set_default_size(360, 240)
    # A header bar, as most GTK 4 apps have: the window then draws its own
    # frame, and its X window is larger than its content by a resize border.
    window.set_titlebar(Gtk.HeaderBar())
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=12)
    box.set_margin_top(40)
    box.set_margin_start(60)
    label = Gtk.Label(label="off")
    check = Gtk.CheckButton(label="Remember me")
    check.connect("toggled", toggled, label)
    box.append(check)
    box.append(label)
    window.set_child(box)
    window.present()


app = Gtk.Application(application_id="org.uidrive.ScaleTest")
app.connect("activate", activate)
app.run(None)
