"""Geometry primitives on rendered figures: merged lines, circles, angles at vertices, OCR point labels."""

from __future__ import annotations

import json
import math

import pytest
from PIL import Image, ImageDraw, ImageFont

from vision_tools.geometry.primitives import geometry_primitives

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def _triangle(width: int = 4) -> Image.Image:
    """Right triangle A(100,400) B(500,400) C(100,100): angles 90 at A, atan(3/4)=36.87 at B, 53.13 at C."""
    img = Image.new("RGB", (600, 500), "white")
    d = ImageDraw.Draw(img)
    a, b, c = (100, 400), (500, 400), (100, 100)
    for p, q in ((a, b), (b, c), (c, a)):
        d.line([p, q], fill="black", width=width)
    font = ImageFont.truetype(FONT, 30)
    for text, xy in (("A", (66, 405)), ("B", (510, 405)), ("C", (66, 66))):
        d.text(xy, text, font=font, fill="black")
    return img


def test_triangle_lines_angles_and_labels() -> None:
    result = geometry_primitives(_triangle())
    assert len(result.lines) == 3
    assert sorted(round(s.length / 10) for s in result.lines) == [30, 40, 50]
    by_label = {a.label: a.degrees for a in result.angles}
    assert set(by_label) == {"A", "B", "C"}
    assert by_label["A"] == pytest.approx(90.0, abs=1.5)
    assert by_label["B"] == pytest.approx(math.degrees(math.atan2(3, 4)), abs=1.5)
    assert by_label["C"] == pytest.approx(math.degrees(math.atan2(4, 3)), abs=1.5)
    assert sorted(lab["text"] for lab in result.labels) == ["A", "B", "C"]
    assert all(lab["vertex"] is not None for lab in result.labels)
    data = json.loads(json.dumps(result.to_dict()))
    assert len(data["lines"]) == 3 and len(data["angles"]) == 3
    assert "angle at A = 90" in result.summary()
    assert result.annotated is not None and result.annotated.size == (600, 500)


def test_thick_and_broken_strokes_become_one_line_each() -> None:
    img = Image.new("RGB", (800, 600), "white")
    d = ImageDraw.Draw(img)
    d.line([(50, 100), (750, 100)], fill=(20, 20, 20), width=9)  # thick: two LSD edges
    for x0 in (50, 300, 550):  # one line in three pieces with small gaps
        d.line([(x0, 400), (x0 + 230, 400)], fill=(20, 20, 20), width=3)
    d.line([(100, 550), (700, 200)], fill=(200, 0, 0), width=5)  # diagonal, crosses the lower line
    result = geometry_primitives(img, read_labels=False)
    assert len(result.lines) == 3
    horizontal = sorted((s for s in result.lines if s.angle < 2 or s.angle > 178), key=lambda s: s.y0)
    assert len(horizontal) == 2 and horizontal[1].length > 700
    crossing = [a for a in result.angles if abs(a.vertex[1] - 400) < 5]
    assert len(crossing) == 1
    slope = math.degrees(math.atan2(350, 600))
    assert min(crossing[0].degrees, 180 - crossing[0].degrees) == pytest.approx(slope, abs=1.5)
    assert result.labels == [] and result.notes == []


def test_circle_with_chord() -> None:
    img = Image.new("RGB", (600, 600), "white")
    d = ImageDraw.Draw(img)
    d.ellipse((150, 150, 450, 450), outline="black", width=3)
    d.line([(150, 300), (450, 300)], fill="black", width=3)  # a diameter
    result = geometry_primitives(img, read_labels=False)
    assert len(result.circles) == 1
    cx, cy, r = result.circles[0]
    assert abs(cx - 300) < 4 and abs(cy - 300) < 4 and abs(r - 150) < 5
    assert len(result.lines) == 1 and result.lines[0].length == pytest.approx(300, abs=12)


def test_blank_and_bad_inputs() -> None:
    blank = geometry_primitives(Image.new("RGB", (200, 200), "white"), read_labels=False)
    assert blank.lines == [] and blank.circles == [] and blank.angles == []
    for bad in ("figure.png", Image.new("RGB", (1, 1)), Image.new("RGB", (4, 500))):
        with pytest.raises(ValueError):
            geometry_primitives(bad)  # type: ignore[arg-type]
    gray = geometry_primitives(_triangle().convert("L"))
    assert len(gray.lines) == 3 and len(gray.angles) == 3
