"""Visual targets from Python: a Tk app (no accessibility tree) driven by the
text OCR reads on its window and by a picture of its button."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest
import uidrive
from uidrive.pytest_plugin import AppFactory

TK_APP = Path(__file__).resolve().parents[3] / "tests" / "apps" / "tk_press.py"


def _unfilter(rows: bytes, width: int, height: int, bpp: int) -> list[bytearray]:
    stride = width * bpp
    out: list[bytearray] = []
    prev = bytearray(stride)
    at = 0
    for _ in range(height):
        kind, line = rows[at], bytearray(rows[at + 1 : at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up, up_left = prev[i], (prev[i - bpp] if i >= bpp else 0)
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else up_left
                line[i] = (line[i] + pred) & 0xFF
        out.append(line)
        prev = line
    return out


def crop_png(png: bytes, box: uidrive.Bounds) -> bytes:
    """The part of an 8-bit RGB or RGBA PNG inside ``box``, as a PNG."""
    at, data, header = 8, b"", b""
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, body = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            data += body
        at += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", header[:10])
    assert depth == 8 and colour in (2, 6), (depth, colour)
    bpp = 3 if colour == 2 else 4
    rows = _unfilter(zlib.decompress(data), width, height, bpp)
    x, y = int(box["x"]), int(box["y"])
    w, h = int(box["width"]), int(box["height"])
    raw = b"".join(b"\0" + bytes(row[x * bpp : (x + w) * bpp]) for row in rows[y : y + h])

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    ihdr = struct.pack(">IIBBBBB", w, h, 8, colour, 0, 0, 0)
    body = chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + body


def test_a_tk_app_is_driven_by_what_it_shows(launch_app: AppFactory, tmp_path: Path) -> None:
    tk = launch_app(["/usr/bin/python3", str(TK_APP)])
    with pytest.raises(uidrive.UnsupportedError, match="no accessibility tree"):
        tk.tree()

    outcome = tk.get_by_ocr("Press me", exact=True).click()
    assert outcome["effect"] == "confirmed", outcome
    uidrive.expect(tk.get_by_ocr("Pressed 1", exact=True)).to_be_visible()
    uidrive.expect(tk.get_by_ocr("Not pressed", exact=True)).to_be_hidden()

    # A capture of the button, used as a picture, clicks it again.
    box = tk.get_by_ocr("Press me", exact=True).bounds()
    assert box is not None
    template = tmp_path / "press-me.png"
    template.write_bytes(crop_png(tk.capture(), box))
    button = tk.get_by_image(str(template), threshold=0.95)
    assert button.bounds() == box
    assert button.click()["effect"] == "confirmed"
    uidrive.expect(tk.get_by_ocr("Pressed 2", exact=True)).to_be_visible()

    # Absent text: the assertion runs out of time and says what it looked for.
    with pytest.raises(uidrive.AssertionFailedError, match="Nothing like this"):
        uidrive.expect(tk.get_by_ocr("Nothing like this"), timeout=1500).to_be_visible()
    with pytest.raises(uidrive.InvalidRequestError, match="threshold"):
        tk.get_by_image(str(template), threshold=1.5).count()
    with pytest.raises(uidrive.InvalidRequestError, match="cannot be read"):
        tk.get_by_image(str(tmp_path / "missing.png")).count()

    # The visual idle: the label changes on its own 1.5 s after this click.
    tk.get_by_ocr("Change later").click()
    region = tk.wait_changed(timeout=20_000)
    assert region["width"] > 0 and region["height"] > 0
    uidrive.expect(tk.get_by_ocr("Done later", exact=True)).to_be_visible()
    with pytest.raises(uidrive.TimeoutError, match="did not change"):
        tk.wait_changed(timeout=1000)
