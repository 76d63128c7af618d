#!/usr/bin/env python3
"""A GTK 3 window whose button runs a modal dialog in a nested main loop
(Gtk.Dialog.run), as many GTK 3 apps do; the label reads the answer."""
import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402


def ask(_button, label):
    dialog = Gtk.MessageDialog(
        transient_for=window, modal=True, message_type=Gtk.MessageType.QUESTION,
        buttons=Gtk.ButtonsType.OK_CANCEL, text="Go on?")
    answer = dialog.run()
    dialog.destroy()
    label.set_text("answered OK" if answer == Gtk.ResponseType.OK else "answered Cancel")


window = Gtk.Window(title="Modal test")
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
label = Gtk.Label(label="not asked")
button = Gtk.Button(label="Ask")
button.connect("clicked", ask, label)
entry = Gtk.Entry()
box.pack_start(button, False, False, 0)
box.pack_start(label, False, False, 0)
box.pack_start(entry, False, False, 0)
window.add(box)
window.connect("destroy", Gtk.main_quit)
window.show_all()
Gtk.main()
