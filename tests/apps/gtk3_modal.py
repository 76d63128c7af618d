#!/usr/bin/env python3
"""A GTK 3 window whose button (and File > Ask... menu item) runs a modal
dialog in a nested main loop (Gtk.Dialog.run), as many GTK 3 apps do; the
label reads the answer. A field to type into."""
import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402


def ask(_widget, label):
    dialog = Gtk.MessageDialog(
        transient_for=window, modal=True, message_type=Gtk.MessageType.QUESTION,
        buttons=Gtk.ButtonsType.OK_CANCEL, text="Go on?")
    answer = dialog.run()
    dialog.destroy()
    label.set_text("answered OK" if answer == Gtk.ResponseType.OK else "answered Cancel")


window = Gtk.Window(title="Modal test")
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
label = Gtk.Label(label="not asked")
menu_bar = Gtk.MenuBar()
file_item = Gtk.MenuItem(label="File")
file_menu = Gtk.Menu()
ask_item = Gtk.MenuItem(label="Ask...")
ask_item.connect("activate", ask, label)
file_menu.append(ask_item)
file_item.set_submenu(file_menu)
menu_bar.append(file_item)
button = Gtk.Button(label="Ask")
button.connect("clicked", ask, label)
entry = Gtk.Entry()
for widget in (menu_bar, button, label, entry):
    box.pack_start(widget, False, False, 0)
window.add(box)
window.connect("destroy", Gtk.main_quit)
window.show_all()
Gtk.main()
