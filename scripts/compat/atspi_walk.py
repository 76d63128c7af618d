"""Walks one window of an app with pyatspi, as a screen reader's client would:
role, name, states and extents of every element, one D-Bus call per property.
It is the peer the compatibility suite compares uidrive's node count with.

usage: /usr/bin/python3 atspi_walk.py PID [--title TITLE] [--dump] [--repeat N]

The app is the one whose process is PID or a descendant of it. The window is
the one named TITLE, else the only showing one. Prints one JSON line:
{"nodes": N, "ms": M, "window": NAME, "limited": K}. The children of an
element that manages its descendants or reports more than LIMIT children (a
spreadsheet's cells, a big list) are not read, as screen readers do not read
them and uidrive reads only the visible ones; "limited" counts such elements.
An element below the window that the app marks defunct (gone; LibreOffice
Calc's formula bar "Input line" says so of itself) is not counted, with what
is below it, as uidrive leaves such elements out; "defunct" counts them.
--repeat N walks the window N times over one connection, as one client
reading again and again does (the last walk is printed).
"""
import json
import os
import sys
import time

import pyatspi

LIMIT = 5000


def descendants(pid):
    """pid and every process below it."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = set(), [pid]
    while todo:
        p = todo.pop()
        if p not in found:
            found.add(p)
            todo.extend(children.get(p, []))
    return found


def find_app(pid):
    pids = descendants(pid)
    for app in pyatspi.Registry.getDesktop(0):
        if app is not None and app.get_process_id() in pids:
            return app
    raise SystemExit(f"no app of process {pid} on the accessibility bus")


def find_window(app, title):
    windows = [w for w in app if w is not None]
    for w in windows:
        if w.name == title:
            return w
    # Some toolkits (Qt) leave the window's accessible name empty: take the
    # one showing window, as uidrive does when it names it by its X title.
    showing = [w for w in windows if w.getState().contains(pyatspi.STATE_SHOWING)]
    if len(showing) == 1:
        return showing[0]
    raise SystemExit(f"no window {title!r}; the app has {[w.name for w in windows]}")


class Walk:
    def __init__(self, dump):
        self.dump = dump
        self.nodes = 0
        self.limited = 0
        self.defunct = 0
        # An object listed under two parents (Qt lists a menu's shared actions in the
        # toolbar button's menu too) is one element: counted once, as uidrive reads it
        # (paths: an embedded page's are its process's own, WebKit's unique ids).
        self.seen = set()

    def visit(self, node, depth):
        if node.path in self.seen:
            return
        self.seen.add(node.path)
        states = node.getState()
        if depth > 0 and states.contains(pyatspi.STATE_DEFUNCT):
            self.defunct += 1
            return
        self.nodes += 1
        role = node.getRoleName()
        name = node.name
        try:
            node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        except NotImplementedError:
            pass
        count = node.childCount
        if self.dump:
            print(f"{'  ' * depth}[{role}] {name!r} ({count})")
        if states.contains(pyatspi.STATE_MANAGES_DESCENDANTS) or count > LIMIT:
            self.limited += 1
            return
        for i in range(count):
            child = node.getChildAtIndex(i)
            if child is not None:
                self.visit(child, depth + 1)


def main():
    args = sys.argv[1:]
    dump = "--dump" in args
    title = args[args.index("--title") + 1] if "--title" in args else None
    repeat = int(args[args.index("--repeat") + 1]) if "--repeat" in args else 1
    app = find_app(int(args[0]))
    window = find_window(app, title)
    for _ in range(repeat):
        walk = Walk(dump)
        started = time.perf_counter()
        walk.visit(window, 0)
    ms = (time.perf_counter() - started) * 1000
    print(json.dumps({"nodes": walk.nodes, "ms": round(ms, 1), "window": window.name,
                      "limited": walk.limited, "defunct": walk.defunct}))


if __name__ == "__main__":
    main()
