"""Reads an app's window the way pyatspi users do: role, name, states and
bounds of every element, one D-Bus round trip per property. Prints
`nodes N ms M` per run. Used by bench/atspi_tree.py; run with Debian's python3
(pyatspi comes from scripts/install-bench-deps.sh).

With --turns, after RUNS reads it reads once more for each line `read` on
stdin, until stdin ends: one process, so one connection to the app, for all
of a benchmark's turns.

usage: /usr/bin/python3 bench/pyatspi_walk.py APP_NAME [RUNS] [--turns]
"""
import sys
import time

import pyatspi


def find_window(name):
    desktop = pyatspi.Registry.getDesktop(0)
    for app in desktop:
        if app is not None and app.name == name:
            for window in app:
                states = window.getState()
                if states.contains(pyatspi.STATE_ACTIVE) or states.contains(pyatspi.STATE_SHOWING):
                    return window
            return app[0]
    raise SystemExit(f"no app named {name}")


def walk(node):
    count = 1
    node.getRole()
    node.name
    node.getState()
    try:
        node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
    except NotImplementedError:
        pass
    for child in node:
        if child is not None:
            count += walk(child)
    return count


def main():
    name = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    window = find_window(name)
    def timed_walk():
        started = time.perf_counter()
        nodes = walk(window)
        print(f"nodes {nodes} ms {(time.perf_counter() - started) * 1000:.2f}", flush=True)

    for _ in range(runs):
        timed_walk()
    if "--turns" in sys.argv:
        for line in sys.stdin:
            if line.strip() != "read":
                raise SystemExit(f"--turns: {line.strip()!r} is not 'read'")
            timed_walk()


if __name__ == "__main__":
    main()
