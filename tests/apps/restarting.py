#!/usr/bin/env python3
"""An app that starts again as a new process, as LibreOffice does on its first
start with a new profile (its soffice.bin exits with status 81 and oosplash,
which stays, starts another).

usage: restarting.py [--exec] GO_FILE

This process is the launcher: it shows nothing and starts the app's first
instance, a GTK 3 window titled "Instance 1". Once GO_FILE exists, that
instance exits with status 81 and the launcher starts the second ("Instance
2"), waits for it and exits with its status. With --exec the first instance
instead replaces itself (exec) with the second: the same process, a new
registration on the accessibility bus.
"""

import os
import subprocess
import sys

RESTART = 81


def instance(number, go, replace):
    import gi

    gi.require_version("Gtk", "3.0")
    from gi.repository import GLib, Gtk

    window = Gtk.Window(title=f"Instance {number}")
    window.add(Gtk.Label(label=f"instance {number}, process {os.getpid()}"))
    window.connect("destroy", Gtk.main_quit)
    window.show_all()

    def restart_when_told():
        if not os.path.exists(go):
            return True
        if replace:
            os.execv(sys.executable, [sys.executable, __file__, "--instance", "2", go])
        os._exit(RESTART)

    if number == 1:
        GLib.timeout_add(20, restart_when_told)
    Gtk.main()


def main():
    args = sys.argv[1:]
    if args[0] == "--instance":
        instance(int(args[1]), args[2], "--exec" in args[3:])
        return
    go = args[-1]
    replace = ["--exec"] if "--exec" in args else []
    command = [sys.executable, __file__, "--instance"]
    status = subprocess.call(command + ["1", go] + replace)
    if status == RESTART:
        status = subprocess.call(command + ["2", go])
    sys.exit(status if status >= 0 else 128 - status)


main()
