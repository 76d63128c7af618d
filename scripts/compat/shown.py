"""What a capture shows in an element's box, held against the value uidrive reports:
the compatibility suite's `values` step (compat.py) and its unit test (test_shown.py).

An element that shows text (a text field, a cell, a label) and reads no value must show
nothing in its box but its own label or placeholder; one that reads a value must show that
value. "Shows nothing" is measured on the pixels: after the border is inset, the box is one
colour but for a few pixels (a caret, a focus ring's corner). Where it is not, tesseract reads
the box, and the words it is sure of must be the element's label or placeholder (or part of
it), or fewer than two letters and digits (an icon, a line number, a lone glyph: a one-character
value claimed empty is not caught). A value is held against all tesseract reads in the box: the
same letters and digits, with some slack for OCR (lookalike glyphs count as one, and a ratio).

Only elements on the screen are judged: not offscreen, at least MIN_WIDTH x MIN_HEIGHT pixels,
wholly inside the capture and inside each of their ancestors' boxes (a cell scrolled half out
of its list is clipped by it), and covered by no other window.
"""
import difflib
import os
import re
import subprocess
import tempfile

from PIL import Image, ImageOps

# The roles whose box shows their text (a label is `text`; a spin button is `stepper`).
TEXT_ROLES = {"textField", "cell", "text", "stepper"}
# Narrower boxes hold an icon (a process list's 24-pixel icons read as letters), not text.
MIN_WIDTH, MIN_HEIGHT = 32, 12
# Pixels off each side before the box is measured: a field's or cell's border, grid line or
# focus ring; a label has none, and its glyphs may reach its edge.
INSET = {"text": 1}
BORDER_INSET = 3
# Of the box's ancestors' boxes, an element may stick out this much and still count as inside.
CLIP_SLACK = 4
# A pixel is ink when one of its channels differs this much from the box's background (a
# disabled label's grey text too).
INK_CONTRAST = 40
# A box with this many ink pixels or fewer shows nothing (a caret has fewer; a digit more).
BLANK_PIXELS = 30
# Values held against OCR: plain ASCII letters and digits, two of them at least, one line.
PLAIN_VALUE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 .,:%/+-]*$")
PLAIN_MAX = 40
# How alike OCR and the text must be (difflib's ratio of their letters and digits).
ALIKE = 0.75
# The words tesseract is this sure of (0-100) are the text a box with no value must not show:
# it reads an icon as letters too, less surely.
CONFIDENT = 60


# Glyphs OCR takes for one another: compared as one.
LOOKALIKES = str.maketrans("ouilsbzg|", "001158291")  # u: small zeros ("0.00" read "U.UU")


def folded(text):
    """Letters and digits only, lower case, lookalikes as one: what OCR and a value are
    compared on."""
    return re.sub(r"[^a-z0-9]", "", (text or "").lower().translate(LOOKALIKES))


def alike(seen, text):
    """OCR's reading `seen` shows `text` (both folded): contains it, or is near enough."""
    seen, text = folded(seen), folded(text)
    if not text:
        return not seen
    return text in seen or difflib.SequenceMatcher(None, seen, text).ratio() >= ALIKE


def part_of(seen, text):
    """OCR's reading `seen` is `text` or a part of it (a label cut short, an elided line)."""
    return folded(seen) in folded(text) or alike(seen, text)


def misread(seen, label):
    """OCR's reading `seen` is the short `label` with one glyph misread ("50" read "5a"):
    for a label of a few characters, one glyph off is most of difflib's ratio."""
    seen, label = folded(seen), folded(label)
    return 0 < len(label) <= 4 and len(seen) == len(label) \
        and sum(a != b for a, b in zip(seen, label)) <= 1


def plain(value):
    return bool(value) and len(value) <= PLAIN_MAX and bool(PLAIN_VALUE.match(value)) \
        and len(folded(value)) >= 2


def inner(box, role=None):
    """The box without its border, (left, top, right, bottom)."""
    x, y, w, h = box
    inset = INSET.get(role, BORDER_INSET)
    return (x + inset, y + inset, x + w - inset, y + h - inset)


def background(region):
    """The region's most common colour, and how many pixels differ from it by INK_CONTRAST."""
    pixels = list(region.getdata())
    counts = {}
    for p in pixels:
        key = (p[0] >> 3, p[1] >> 3, p[2] >> 3)
        counts[key] = counts.get(key, 0) + 1
    top = max(counts, key=counts.get)
    base = tuple(c * 8 + 4 for c in top)
    ink = sum(1 for p in pixels if max(abs(p[0] - base[0]), abs(p[1] - base[1]), abs(p[2] - base[2])) > INK_CONTRAST)
    return base, ink


def blank(image, box, role=None):
    """(shows nothing, ink pixels) for the inside of the box of an element of `role` in
    `image` (RGB)."""
    region = image.crop(inner(box, role))
    _, ink = background(region)
    return ink <= BLANK_PIXELS, ink


def prepared(image, box, role):
    """The box's inside for tesseract: grey, dark text on light, upscaled, with a margin."""
    region = image.crop(inner(box, role))
    base, _ = background(region)
    grey = ImageOps.grayscale(region)
    if sum(base) / 3 < 128:  # light text on a dark background (a dark style)
        grey = ImageOps.invert(grey)
    scale = 3 if region.height < 60 else 2
    grey = grey.resize((grey.width * scale, grey.height * scale), Image.LANCZOS)
    return ImageOps.expand(grey, border=20, fill=255)


def ocr(image, boxes):
    """tesseract's reading of the inside of each (box, role), in order, as (all the words it
    read, those it is CONFIDENT of): one tesseract per layout (one line, or a block), each given
    all its boxes as pages (loading tesseract's model takes longest)."""
    words = [[] for _ in boxes]
    with tempfile.TemporaryDirectory(prefix="uidrive-ocr-") as folder:
        layouts = {}
        for i, (box, role) in enumerate(boxes):
            path = os.path.join(folder, f"{i}.png")
            prepared(image, box, role).save(path)
            one_line = box[3] < 42
            layouts.setdefault("7" if one_line else "6", []).append((i, path))
        for psm, pages in layouts.items():
            listing = os.path.join(folder, f"pages-{psm}.txt")
            with open(listing, "w") as f:
                f.write("".join(path + "\n" for _, path in pages))
            done = subprocess.run(["tesseract", listing, "-", "--psm", psm, "tsv"], capture_output=True, check=False,
                                  text=True, timeout=60 + 10 * len(pages),
                                  env={**os.environ, "OMP_THREAD_LIMIT": "1"})
            if done.returncode != 0:
                raise RuntimeError(f"tesseract failed: {done.stderr.strip()[-300:]}")
            # level, page, block, paragraph, line, word, left, top, width, height, confidence, text
            for row in done.stdout.splitlines()[1:]:
                cols = row.split("\t")
                if len(cols) == 12 and cols[0] == "5" and cols[11].strip():
                    words[pages[int(cols[1]) - 1][0]].append((cols[11].strip(), float(cols[10])))
    return [(" ".join(w for w, _ in found), " ".join(w for w, conf in found if conf >= CONFIDENT))
            for found in words]


def inside(box, outer):
    x, y, w, h = box
    ox, oy, ow, oh = outer
    return x >= ox and y >= oy and x + w <= ox + ow and y + h <= oy + oh


def grown(box, by):
    x, y, w, h = box
    return (x - by, y - by, w + 2 * by, h + 2 * by)


def overlaps(box, other):
    x, y, w, h = box
    ox, oy, ow, oh = other
    return x < ox + ow and ox < x + w and y < oy + oh and oy < y + h


def on_screen(nodes, origin, size, covered, dropped=None):
    """The text-bearing nodes wholly shown: (node, screen box) in tree order.

    `origin` is the window's content on the screen (node bounds are relative to it), `size`
    the capture's, `covered` the screen boxes of the app's other windows. `dropped`, a dict,
    is given a count of the text-bearing nodes left out, by why."""
    dropped = {} if dropped is None else dropped

    def drop(why):
        dropped[why] = dropped.get(why, 0) + 1

    by_id = {n["id"]: n for n in nodes}

    def box_of(n):
        b = n.get("bounds")
        if not b or b["width"] <= 0 or b["height"] <= 0:
            return None
        return (origin[0] + b["x"], origin[1] + b["y"], b["width"], b["height"])

    # A table's column headers cover the rows scrolled beneath them (GTK 3 tree views).
    headers = {}
    for n in nodes:
        if n.get("role") == "columnHeader" and box_of(n):
            headers.setdefault(n.get("parent"), []).append(box_of(n))
    shown = []
    for n in nodes:
        if n.get("role") not in TEXT_ROLES:
            continue
        if "offscreen" in (n.get("states") or []):
            drop("offscreen")
            continue
        box = box_of(n)
        if box is None or box[2] < MIN_WIDTH or box[3] < MIN_HEIGHT:
            drop("smaller than a word")
            continue
        if not inside(box, (0, 0, size[0], size[1])):
            drop("not inside the capture")
            continue
        if any(overlaps(box, c) for c in covered):
            drop("under another window")
            continue
        if any(overlaps(box, h) for h in headers.get(n.get("parent"), ())):
            drop("under a column header")
            continue
        parent, clipped = by_id.get(n.get("parent")), False
        while parent is not None and not clipped:
            outer = box_of(parent)
            clipped = outer is not None and not inside(box, grown(outer, CLIP_SLACK))
            parent = by_id.get(parent.get("parent"))
        if clipped:
            drop("clipped by an ancestor")
        else:
            shown.append((n, box))
    return shown


def describe(node):
    text = f"{node.get('role')} {node.get('label')!r}"
    return text + (f" value={node['value']!r}" if node.get("value") else " (no value)")


def judge(image, shown, sample=8, ocr_at_most=40, must=()):
    """Holds each shown node's value against the capture `image` (PIL, RGB).

    Every node without a value is measured for ink; those with ink are read by OCR (at most
    `ocr_at_most`, spread over the list). Of the nodes with a plain value, `sample` (spread
    over the list) and every node in `must` are read by OCR. Answers a dict: counts, a few
    examples, `untrue`, a line for each node the capture contradicts, and `contradicted`, those
    nodes: (node, box, line, whether the node claimed to be empty); `read_back`, the nodes
    whose value OCR read."""
    empty = [(n, b) for n, b in shown if not n.get("value")]
    valued = [(n, b) for n, b in shown if n.get("value") and plain(n["value"])]
    result = {"empty": len(empty), "empty_blank": 0, "empty_read": 0, "empty_unread": 0,
              "valued": len(valued), "valued_read": 0, "untrue": [], "examples": [], "contradicted": [],
              "read_back": []}
    inked = []
    for n, b in empty:
        is_blank, ink = blank(image, b, n.get("role"))
        if is_blank:
            result["empty_blank"] += 1
        else:
            inked.append((n, b, ink))
    read_empty = spread(inked, ocr_at_most)
    chosen = spread(valued, sample)
    chosen += [(n, b) for n, b in valued if any(n is m for m in must) and not any(n is c for c, _ in chosen)]
    readings = ocr(image, [(b, n.get("role")) for n, b, _ in read_empty] + [(b, n.get("role")) for n, b in chosen])
    for (n, b, ink), (_, seen) in zip(read_empty, readings):
        allowed = [t for t in (n.get("label"), n.get("placeholder")) if t]
        if len(folded(seen)) >= 2 and not any(part_of(seen, t) or misread(seen, t) for t in allowed):
            result["untrue"].append(f"{describe(n)} at {b}: the capture shows {seen!r} ({ink} ink pixels)")
            result["contradicted"].append((n, b, result["untrue"][-1], True))
    result["empty_read"] = len(read_empty)
    result["empty_unread"] = len(inked) - len(read_empty)
    for (n, b), (seen, _) in zip(chosen, readings[len(read_empty):]):
        result["valued_read"] += 1
        if not alike(seen, n["value"]):
            result["untrue"].append(f"{describe(n)} at {b}: the capture shows {seen!r}")
            result["contradicted"].append((n, b, result["untrue"][-1], False))
        else:
            result["read_back"].append(n)
            if len(result["examples"]) < 3:
                result["examples"].append(f"{n['value']!r} reads {seen!r}")
    return result


def spread(items, count):
    """At most `count` of `items`, evenly spread over the list (all of them when few)."""
    if len(items) <= count:
        return list(items)
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]
