"""Unit tests of the values step's checker (shown.py) on pictures drawn here: it passes true
claims and catches false ones, a filled field claimed empty first of all.

usage: /usr/bin/python3 -m unittest scripts/compat/test_shown.py   (run.sh runs it first)
"""
import os
import sys
import unittest

from PIL import Image, ImageDraw, ImageFont

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shown

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"  # fonts-dejavu-core


def field(draw, box, text="", ink=(0, 0, 0), paper=(255, 255, 255)):
    """A text field as toolkits draw one: a grey border, then the text inset from the left."""
    x, y, w, h = box
    draw.rectangle([x, y, x + w - 1, y + h - 1], fill=paper, outline=(150, 150, 150))
    if text:
        draw.text((x + 6, y + (h - 15) // 2 - 1), text, fill=ink, font=ImageFont.truetype(FONT, 14))


def node(role="textField", value=None, label=None, **more):
    return {"id": "1", "role": role, "value": value, "label": label, **more}


class Checker(unittest.TestCase):
    def setUp(self):
        self.image = Image.new("RGB", (400, 200), (240, 240, 240))
        draw = ImageDraw.Draw(self.image)
        self.filled, self.empty, self.dark, self.cell = (10, 10, 160, 28), (10, 50, 160, 28), \
            (10, 90, 160, 28), (200, 10, 80, 20)
        field(draw, self.filled, "Hello compat")
        field(draw, self.empty)
        field(draw, self.dark, "Bestellung", ink=(230, 230, 230), paper=(40, 40, 40))
        field(draw, self.cell, "42")

    def untrue(self, claims):
        return shown.judge(self.image, claims)["untrue"]

    def test_a_filled_field_claimed_empty_is_caught(self):
        found = self.untrue([(node(), self.filled)])
        self.assertEqual(len(found), 1)
        self.assertIn("Hello", found[0])

    def test_a_cell_showing_42_claimed_empty_is_caught(self):
        self.assertEqual(len(self.untrue([(node("cell", label="B1"), self.cell)])), 1)

    def test_an_empty_field_claimed_to_read_a_value_is_caught(self):
        self.assertEqual(len(self.untrue([(node(value="uidrive42"), self.empty)])), 1)

    def test_a_wrong_value_is_caught(self):
        self.assertEqual(len(self.untrue([(node(value="Goodbye world"), self.filled)])), 1)
        self.assertEqual(len(self.untrue([(node("cell", value="17"), self.cell)])), 1)

    def test_true_claims_pass(self):
        claims = [(node(value="Hello compat"), self.filled), (node(), self.empty),
                  (node(value="Bestellung"), self.dark), (node("cell", value="42", label="B1"), self.cell)]
        seen = shown.judge(self.image, claims)
        self.assertEqual(seen["untrue"], [])
        self.assertEqual((seen["empty_blank"], seen["valued_read"]), (1, 3))

    def test_an_icon_is_no_text(self):
        draw = ImageDraw.Draw(self.image)
        field(draw, (200, 50, 40, 24))
        draw.ellipse([212, 56, 224, 68], fill=(30, 120, 30))
        self.assertEqual(self.untrue([(node("cell"), (200, 50, 40, 24))]), [])

    def test_an_element_may_show_its_label(self):
        self.assertEqual(self.untrue([(node("text", label="Hello compat"), self.filled)]), [])

    def test_one_misread_glyph_of_a_short_label_is_the_label(self):
        self.assertTrue(shown.misread("5a", "50"))
        self.assertFalse(shown.misread("507", "50"), "other lengths are not one glyph off")
        self.assertFalse(shown.misread("6a", "50"), "two glyphs off")
        self.assertFalse(shown.misread("Nane", "Name!x"), "long labels go by difflib's ratio")

    def test_only_whole_shown_text_elements_are_judged(self):
        def at(box, **more):
            x, y, w, h = box
            return {"role": "textField", "bounds": {"x": x, "y": y, "width": w, "height": h}, **more}

        nodes = [
            {"id": "0", "role": "list", "bounds": {"x": 0, "y": 0, "width": 300, "height": 100}},
            {"id": "1", "parent": "0", **at((10, 10, 100, 20))},
            {"id": "2", "parent": "0", **at((10, 90, 100, 20))},  # half out of its list
            {"id": "3", "parent": "0", **at((10, 40, 100, 20), states=["offscreen"])},
            {"id": "4", "parent": "0", **at((10, 60, 8, 8))},  # too small
            {"id": "5", "parent": "0", **at((150, 10, 100, 20), role="button")},
            {"id": "6", "parent": "0", **at((150, 40, 100, 20))},  # under another window
            {"id": "7", "parent": "0", **at((150, 70, 100, 20), role="columnHeader")},
            {"id": "8", "parent": "0", **at((160, 80, 60, 20), role="cell")},  # half under the header
            {"id": "9", "parent": "0", **at((390, 10, 40, 20))},  # past the capture's right edge
        ]
        dropped = {}
        found = shown.on_screen(nodes, (5, 5), (400, 200), covered=[(140, 30, 200, 50)], dropped=dropped)
        self.assertEqual([(n["id"], box) for n, box in found], [("1", (15, 15, 100, 20))])
        self.assertEqual(dropped, {"clipped by an ancestor": 1, "offscreen": 1, "smaller than a word": 1,
                                   "under another window": 1, "under a column header": 1,
                                   "not inside the capture": 1})


if __name__ == "__main__":
    unittest.main()
