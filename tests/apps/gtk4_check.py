#!/usr/bin/env python3
"""A GTK 4 window with a header bar, a check button, a label that says
whether the last check button toggled is on ("extra on" for the popover's), and a menu button whose popover
holds another check button: the scaled tests click them for real
(GDK_SCALE=2)."""
import gi

gi.require_version("Gtk", "4.0")
from gi.repository import Gtk  # noqa: E402


def toggled(button, label, name=""):
    label.set_text(name + ("on" if button.get_active() else "off"))


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
    # A popover (a surface of its own) with a check button of its own.
    extra = Gtk.CheckButton(label="Extra")
    extra.connect("toggled", toggled, label, "extra ")
    popover = Gtk.Popover(child=extra)
    options = Gtk.MenuButton(label="Options", popover=popover)
    options.set_halign(Gtk.Align.START)
    box.append(check)
    box.append(label)
    box.append(options)
    window.set_child(box)
    window.present()


app = Gtk.Application(application_id="org.uidrive.ScaleTest")
app.connect("activate", activate)
app.run(None)
