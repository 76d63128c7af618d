"""An independent witness of what an app shows, for the compatibility suite's
truth step: another accessibility client (Debian's pyatspi) and another
capture path (GDK's own read of the X screen; on Wayland, grim's capture through the
compositor's screencopy), neither of them uidrive's.

usage: /usr/bin/python3 witness.py PID read      one JSON line: the app's window
                                                 titles (all, and those showing), the
                                                 names and texts of its elements, the
                                                 names of those checked
       /usr/bin/python3 witness.py PID capture   one JSON line: a hash of the screen
       /usr/bin/python3 witness.py PID shot FILE one JSON line: the screen's size; its
                                                 capture saved as the PNG FILE
       /usr/bin/python3 witness.py PID inside X Y W H
                                                 one JSON line: the role, name and text of
                                                 every shown element whose screen box lies
                                                 within that box (2 px slack)

The app is the one whose process is PID or a descendant of it; an element
that manages its descendants is walked into only when it has few children
(a text document's paragraphs, not a spreadsheet's cells).
"""
import hashlib
import io
import json
import os
import subprocess
import sys

import pyatspi

from atspi_walk import LIMIT, find_app

TEXTS_AT_MOST = 20000
MANAGED_AT_MOST = 1000


def read(pid):
    app = find_app(pid)
    titles, shown, texts, checked = [], [], [], []

    def visit(node, depth):
        if len(texts) >= TEXTS_AT_MOST:
            return
        states = node.getState()
        if depth > 0 and states.contains(pyatspi.STATE_DEFUNCT):
            return
        name = node.name or ""
        if name:
            texts.append(name)
        try:
            text = node.queryText()
            content = text.getText(0, text.characterCount)
            if content:
                texts.append(content)
        except NotImplementedError:
            pass
        if states.contains(pyatspi.STATE_CHECKED) and name:
            checked.append(name)
        # Into an element that manages its descendants only when it has few
        # (a text document's paragraphs), never into a spreadsheet's cells.
        count = node.childCount
        if count > LIMIT or (states.contains(pyatspi.STATE_MANAGES_DESCENDANTS) and count > MANAGED_AT_MOST):
            return
        for i in range(count):
            child = node.getChildAtIndex(i)
            if child is not None:
                visit(child, depth + 1)

    for window in app:
        if window is None:
            continue
        titles.append(window.name or "")
        if window.getState().contains(pyatspi.STATE_SHOWING):
            shown.append(window.name or "")
        visit(window, 0)
    return {"windows": titles, "shown": shown, "texts": texts, "checked": checked}


def inside(pid, box):
    """What the app exposes within `box` (screen pixels): does any element there hold a name
    or a text? The values step asks it of a box that shows text where uidrive read none."""
    app = find_app(pid)
    x, y, w, h = box
    found = []

    def extents(node):
        try:
            e = node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        except NotImplementedError:
            return None
        return (e.x, e.y, e.width, e.height) if e.width > 0 and e.height > 0 else None

    def visit(node, depth, shift, holder):
        if len(found) >= 200:
            return
        states = node.getState()
        if depth > 0 and (states.contains(pyatspi.STATE_DEFUNCT) or not states.contains(pyatspi.STATE_SHOWING)):
            return
        e = extents(node)
        # LibreOffice's VCL root pane answers its window's top as its place, its holder (of the
        # same size) the place it shows at: what it holds is moved by the difference, as
        # uidrive's driver moves it (crates/atspi/src/office.rs).
        if e and holder and node.getRole() == pyatspi.ROLE_ROOT_PANE and e[2:] == holder[2:] and e[:2] != holder[:2]:
            shift = (holder[0] - e[0], holder[1] - e[1])
        if e is not None:
            e = (e[0] + shift[0], e[1] + shift[1], e[2], e[3])
            if e[0] + e[2] < x or x + w < e[0] or e[1] + e[3] < y or y + h < e[1]:
                return  # children lie inside their parent's box
            if x - 2 <= e[0] and e[0] + e[2] <= x + w + 2 and y - 2 <= e[1] and e[1] + e[3] <= y + h + 2:
                try:
                    text = node.queryText()
                    content = text.getText(0, text.characterCount)
                except NotImplementedError:
                    content = None
                found.append({"role": node.getRoleName(), "name": node.name or "", "text": content,
                              "children": node.childCount})
        count = node.childCount
        if count > LIMIT or (states.contains(pyatspi.STATE_MANAGES_DESCENDANTS) and count > MANAGED_AT_MOST):
            return
        for i in range(count):
            child = node.getChildAtIndex(i)
            if child is not None:
                visit(child, depth + 1, shift, e)

    for window in app:
        if window is not None and window.getState().contains(pyatspi.STATE_SHOWING):
            visit(window, 1, (0, 0), None)
    return {"inside": found}


def on_wayland():
    return "WAYLAND_DISPLAY" in os.environ and "DISPLAY" not in os.environ


def grim_png():
    """The whole output as grim (a wlroots screencopy client from Debian) captures it, as PNG."""
    done = subprocess.run(["grim", "-t", "png", "-l", "0", "-"], capture_output=True, timeout=60, check=False)
    if done.returncode != 0 or not done.stdout:
        raise SystemExit(f"grim failed: {done.stderr.decode(errors='replace').strip()[-300:]}")
    return done.stdout


def screen():
    import gi

    gi.require_version("Gdk", "3.0")
    from gi.repository import Gdk

    root = Gdk.get_default_root_window()
    width, height = root.get_width(), root.get_height()
    return Gdk.pixbuf_get_from_window(root, 0, 0, width, height), [width, height]


def capture():
    if on_wayland():
        from PIL import Image

        image = Image.open(io.BytesIO(grim_png()))
        return {"hash": hashlib.sha1(image.tobytes()).hexdigest(), "size": list(image.size)}
    pixels, size = screen()
    return {"hash": hashlib.sha1(pixels.get_pixels()).hexdigest(), "size": size}


def shot(path):
    if on_wayland():
        from PIL import Image

        data = grim_png()
        with open(path, "wb") as f:
            f.write(data)
        return {"size": list(Image.open(io.BytesIO(data)).size)}
    pixels, size = screen()
    pixels.savev(path, "png", [], [])
    return {"size": size}


def main():
    pid, what = int(sys.argv[1]), sys.argv[2]
    if what == "read":
        print(json.dumps(read(pid)))
    elif what == "shot":
        print(json.dumps(shot(sys.argv[3])))
    elif what == "inside":
        print(json.dumps(inside(pid, [int(v) for v in sys.argv[3:7]])))
    else:
        print(json.dumps(capture()))


if __name__ == "__main__":
    main()
