"""Diagram primitives on real BlindTest images (answers from items.jsonl) and on freshly rendered variants with
other thicknesses, resolutions, colours and layouts, plus bad inputs."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from vision_tools.diagrams.letters import (
    TOOL_FOR_CATEGORY,
    circles_touch,
    count_line_crossings,
    count_nested_squares,
    count_overlapping_shapes,
    grid_shape,
    highlighted_letter,
)
from vision_tools.image.loading import load_image

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
SS = 4  # supersampling factor: shapes are drawn large and reduced, which antialiases them like real renderers


def _finish(canvas: Image.Image, size: int) -> Image.Image:
    return canvas.resize((size, size), Image.LANCZOS)


@pytest.fixture(scope="module")
def blind_items(blindtest_dir: Path) -> dict[str, list[dict]]:
    by_category: dict[str, list[dict]] = {}
    for line in (blindtest_dir / "items.jsonl").read_text().splitlines():
        item = json.loads(line)
        by_category.setdefault(item["category"], []).append(item)
    return by_category


# --- real BlindTest images -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "category",
    ["line_intersection", "touching_circles", "counting_circles", "counting_pentagons", "nested_squares",
     "grid_rows_columns"],
)
def test_blindtest_items_answered_exactly(category: str, blind_items: dict, blindtest_dir: Path) -> None:
    items = blind_items[category]
    # Six items per category spread over the answers (every third item), checked against the dataset's truth.
    for item in items[::3][:6]:
        result = TOOL_FOR_CATEGORY[category](load_image(blindtest_dir / item["image"]))
        assert result.answer == item["answer"], (item["id"], result.summary())
        assert isinstance(result.summary(), str) and result.summary()
        json.dumps(result.to_dict())
        assert result.annotated is not None and max(result.annotated.size) <= 1600


def test_crossing_points_lie_on_both_lines(blind_items: dict, blindtest_dir: Path) -> None:
    item = next(it for it in blind_items["line_intersection"] if it["answer"] == "2")
    image = load_image(blindtest_dir / item["image"])
    result = count_line_crossings(image)
    assert result.count == 2 and len(result.points) == 2
    pixels = image.load()
    for x, y in result.points:
        # Within a few pixels of each crossing point there must be both blue and red ink.
        near = [pixels[min(image.width - 1, max(0, round(x) + dx)), min(image.height - 1, max(0, round(y) + dy))]
                for dx in range(-6, 7) for dy in range(-6, 7)]
        assert any(b > 150 and r < 100 for r, _, b in near) and any(r > 150 and b < 100 for r, _, b in near)


# --- rendered line plots ---------------------------------------------------------------------------------------


def _segment_intersections(p: list[tuple[float, float]], q: list[tuple[float, float]]) -> list[tuple[float, float]]:
    found = []
    for (a, b) in zip(p, p[1:], strict=False):
        for (c, d) in zip(q, q[1:], strict=False):
            den = (b[0] - a[0]) * (d[1] - c[1]) - (b[1] - a[1]) * (d[0] - c[0])
            if abs(den) < 1e-9:
                continue
            t = ((c[0] - a[0]) * (d[1] - c[1]) - (c[1] - a[1]) * (d[0] - c[0])) / den
            u = ((c[0] - a[0]) * (b[1] - a[1]) - (c[1] - a[1]) * (b[0] - a[0])) / den
            if 0 <= t <= 1 and 0 <= u <= 1:
                found.append((a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])))
    return found


def _clear_geometry(p: list, q: list, crossings: list, margin: float) -> bool:
    """Cases a person would also find unambiguous: crossings apart, vertices away from the other line."""
    if any(math.dist(a, b) < 4 * margin for i, a in enumerate(crossings) for b in crossings[i + 1:]):
        return False

    def dist_to_polyline(pt: tuple[float, float], line: list) -> float:
        best = math.inf
        for a, b in zip(line, line[1:], strict=False):
            ab = (b[0] - a[0], b[1] - a[1])
            t = max(0.0, min(1.0, ((pt[0] - a[0]) * ab[0] + (pt[1] - a[1]) * ab[1]) / (ab[0] ** 2 + ab[1] ** 2)))
            best = min(best, math.dist(pt, (a[0] + t * ab[0], a[1] + t * ab[1])))
        return best

    return all(dist_to_polyline(v, q) > 2 * margin for v in p) and all(dist_to_polyline(v, p) > 2 * margin for v in q)


def _render_lines(size: int, width: int, p: list, q: list, colours: tuple[str, str]) -> Image.Image:
    canvas = Image.new("RGB", (size * SS, size * SS), "white")
    draw = ImageDraw.Draw(canvas)
    for line, colour in ((p, colours[0]), (q, colours[1])):
        draw.line([(x * SS, y * SS) for x, y in line], fill=colour, width=width * SS, joint="curve")
    return _finish(canvas, size)


@pytest.mark.parametrize(("size", "width", "seed"), [(300, 2, 1), (500, 3, 2), (800, 5, 3), (1000, 8, 4)])
def test_rendered_line_plots_counted_exactly(size: int, width: int, seed: int) -> None:
    rng = random.Random(seed)
    checked = 0
    while checked < 6:
        xs = [0.0, size * rng.uniform(0.3, 0.7), size - 1.0]
        p = [(x, rng.uniform(0.05, 0.95) * size) for x in xs]
        q = [(x, rng.uniform(0.05, 0.95) * size) for x in [0.0, size * rng.uniform(0.3, 0.7), size - 1.0]]
        truth = _segment_intersections(p, q)
        if not _clear_geometry(p, q, truth, margin=2 * width + 2):
            continue
        result = count_line_crossings(_render_lines(size, width, p, q, ("blue", "red")))
        assert result.count == len(truth), (size, width, p, q, result.summary())
        checked += 1


def test_other_colours_and_touching_lines() -> None:
    # A green V whose vertex rests on an orange line touches it without crossing; one orange segment crosses.
    green = [(20, 60), (150, 200), (280, 60)]
    orange = [(0, 200 + 4), (300, 204)]
    touching = _render_lines(300, 4, green, orange, ("green", "orange"))
    result = count_line_crossings(touching, "green", "orange")
    assert result.count == 0 and result.touches == 1
    crossing = _render_lines(300, 4, green, [(0, 120), (300, 130)], ("green", "orange"))
    assert count_line_crossings(crossing, "green", "orange").count == 2


@pytest.mark.parametrize(
    "degrees",
    [
        6.0,
        10.0,
        15.0,
        20.0,
    ],
)
def test_shallow_crossing_counted_once(degrees: float) -> None:
    # At a shallow angle the covered line is hidden for a long stretch; it is still one crossing.
    slope = math.tan(math.radians(degrees))
    red = [(0.0, 300.0), (600.0, 300.0)]
    blue = [(0.0, 300.0 - 300.0 * slope), (600.0, 300.0 + 300.0 * slope)]
    result = count_line_crossings(_render_lines(600, 4, blue, red, ("blue", "red")))
    assert result.count == 1, result.summary()
    (x, y), = result.points
    assert abs(x - 300) < 20 and abs(y - 300) < 6


# --- rendered circles ------------------------------------------------------------------------------------------


def _render_two_circles(size: int, r1: float, r2: float, gap: float, angle: float, colours: tuple, outline: int = 0):
    canvas = Image.new("RGB", (size * SS, size * SS), "white")
    draw = ImageDraw.Draw(canvas)
    cx, cy = size / 2, size / 2
    d = r1 + r2 + gap
    centres = [(cx - d / 2 * math.cos(angle), cy - d / 2 * math.sin(angle)),
               (cx + d / 2 * math.cos(angle), cy + d / 2 * math.sin(angle))]
    for (x, y), r, colour in zip(centres, (r1, r2), colours, strict=True):
        bbox = ((x - r) * SS, (y - r) * SS, (x + r) * SS, (y + r) * SS)
        if outline:
            draw.ellipse(bbox, outline=colour, width=outline * SS)
        else:
            draw.ellipse(bbox, fill=colour)
    return _finish(canvas, size)


@pytest.mark.parametrize(
    ("size", "r1", "r2", "gap", "angle", "colours", "outline", "touching"),
    [
        (400, 50, 50, 0.0, 0.3, ("#0077ff", "#ee00ff"), 0, True),
        (400, 50, 35, 3.0, 1.2, ("#0077ff", "#ee00ff"), 0, False),
        (600, 80, 60, -20.0, 2.0, ("green", "orange"), 0, True),
        (300, 40, 40, 6.0, 0.0, ("red", "blue"), 0, False),
        (900, 120, 90, 0.0, 0.8, ("purple", "teal"), 0, True),
        (500, 70, 70, 8.0, 0.5, ("black", "black"), 0, False),  # same colour, apart
        (500, 70, 60, -15.0, 0.5, ("black", "black"), 0, True),  # same colour, one blob
        (500, 70, 60, 5.0, 1.0, ("red", "blue"), 3, False),  # outlined rings
        (500, 70, 60, -10.0, 1.0, ("red", "blue"), 3, True),
    ],
)
def test_rendered_circles_touch(size, r1, r2, gap, angle, colours, outline, touching) -> None:
    result = circles_touch(_render_two_circles(size, r1, r2, gap, angle, colours, outline))
    assert result.touching is touching, result.summary()
    assert result.answer == ("Yes" if touching else "No")
    assert abs(result.gap_px - gap) < 1.5
    assert sorted(round(c.r) for c in result.circles) == pytest.approx(sorted([r1, r2]), abs=1.5)


def _olympic(n: int, size: int, radius: float, sides: int | None, width: int, coloured: bool) -> Image.Image:
    """n outlines in two staggered rows, each overlapping its neighbours (the BlindTest layout)."""
    canvas = Image.new("RGB", (size * SS, size * SS), "white")
    draw = ImageDraw.Draw(canvas)
    palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"]
    step = 2.1 * radius
    x0 = size / 2 - (n - 1) / 4 * step
    for i in range(n):
        cx, cy = x0 + i * step / 2, size / 2 + (radius * 0.9 if i % 2 else 0)
        colour = palette[i % len(palette)] if coloured else "black"
        if sides is None:
            draw.ellipse(((cx - radius) * SS, (cy - radius) * SS, (cx + radius) * SS, (cy + radius) * SS),
                         outline=colour, width=width * SS)
        else:
            pts = [((cx + radius * math.sin(2 * math.pi * k / sides)) * SS,
                    (cy - radius * math.cos(2 * math.pi * k / sides)) * SS) for k in range(sides)]
            draw.polygon(pts, outline=colour, width=width * SS)
    return _finish(canvas, size)


@pytest.mark.parametrize(
    ("n", "size", "radius", "width", "coloured"),
    [(5, 400, 30, 1, False), (7, 600, 40, 2, True), (9, 900, 45, 3, False), (6, 500, 40, 2, True)],
)
def test_rendered_overlapping_circles(n: int, size: int, radius: float, width: int, coloured: bool) -> None:
    result = count_overlapping_shapes(_olympic(n, size, radius, None, width, coloured), "circle")
    assert result.count == n, result.summary()
    assert len(result.boxes) == n


@pytest.mark.parametrize(
    ("shape", "sides", "n", "size", "radius", "width"),
    [("pentagon", 5, 6, 500, 35, 2), ("pentagon", 5, 8, 800, 45, 3), ("hexagon", 6, 5, 500, 40, 2),
     ("triangle", 3, 7, 600, 45, 2)],
)
def test_rendered_overlapping_polygons(shape: str, sides: int, n: int, size: int, radius: float, width: int) -> None:
    result = count_overlapping_shapes(_olympic(n, size, radius, sides, width, coloured=False), shape)
    assert result.count == n, result.summary()
    assert all(len(outline) == sides for outline in result.outlines)


# --- rendered nested squares and grids -------------------------------------------------------------------------


@pytest.mark.parametrize(("depth", "size", "width", "seed"), [(2, 400, 2, 0), (3, 600, 3, 1), (5, 900, 4, 2), (4, 300, 1, 3)])
def test_rendered_nested_squares(depth: int, size: int, width: int, seed: int) -> None:
    rng = random.Random(seed)
    canvas = Image.new("RGB", (size, size), "white")
    draw = ImageDraw.Draw(canvas)
    x0, y0, side = size * 0.1, size * 0.1, size * 0.75
    for _ in range(depth):
        draw.rectangle((x0, y0, x0 + side, y0 + side), outline="black", width=width)
        inner = side * rng.uniform(0.6, 0.8)
        x0 += rng.uniform(3 * width + 2, side - inner - 3 * width - 2)
        y0 += rng.uniform(3 * width + 2, side - inner - 3 * width - 2)
        side = inner
    result = count_nested_squares(canvas)
    assert result.count == depth, result.summary()


def _render_grid(rows: int, cols: int, size: int, line: int, margin: int, words: bool) -> Image.Image:
    canvas = Image.new("RGB", (size, size), "white")
    draw = ImageDraw.Draw(canvas)
    font = ImageFont.truetype(FONT, max(10, size // (3 * max(rows, cols))))
    ys = [margin + (size - 2 * margin) * i / rows for i in range(rows + 1)]
    xs = [margin + (size - 2 * margin) * j / cols for j in range(cols + 1)]
    for y in ys:
        draw.line((xs[0], y, xs[-1], y), fill="black", width=line)
    for x in xs:
        draw.line((x, ys[0], x, ys[-1]), fill="black", width=line)
    if words:
        for i in range(rows):
            for j in range(cols):
                draw.text(((xs[j] + xs[j + 1]) / 2, (ys[i] + ys[i + 1]) / 2), "word"[: 1 + (i + j) % 4],
                          fill="black", font=font, anchor="mm")
    return canvas


@pytest.mark.parametrize(
    ("rows", "cols", "size", "line", "margin", "words"),
    [(3, 5, 500, 3, 0, False), (7, 4, 800, 6, 20, True), (10, 10, 600, 2, 10, True), (2, 9, 1200, 12, 0, True)],
)
def test_rendered_grids(rows: int, cols: int, size: int, line: int, margin: int, words: bool) -> None:
    result = grid_shape(_render_grid(rows, cols, size, line, margin, words))
    assert (result.rows, result.columns) == (rows, cols), result.summary()
    assert result.consistent and result.answer == f"({rows},{cols})"


# --- highlighted letter (OCR) ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("word", "index"), [("Subdermatoglyphic", 4), ("Acknowledgement", 10), ("tHyUiKaRbNqWeOpXcZ", 2)])
def test_highlighted_letter(word: str, index: int) -> None:
    font = ImageFont.truetype(FONT, 64)
    canvas = Image.new("RGB", (80 + 44 * len(word), 200), "white")
    draw = ImageDraw.Draw(canvas)
    draw.text((40, 60), word, fill="black", font=font)
    left = draw.textbbox((40, 60), word[:index], font=font)[2] if index else 40
    right = draw.textbbox((40, 60), word[: index + 1], font=font)[2]
    draw.ellipse((left - 12, 50, right + 12, 150), outline="red", width=4)
    result = highlighted_letter(canvas)
    assert result.letter == word[index], result.summary()


# --- bad inputs ------------------------------------------------------------------------------------------------


def test_bad_inputs() -> None:
    blank = Image.new("RGB", (200, 200), "white")
    assert count_line_crossings(blank).count == 0
    assert count_overlapping_shapes(blank, "circle").count == 0
    assert count_overlapping_shapes(blank, "pentagon").count == 0
    assert count_nested_squares(blank).count == 0
    with pytest.raises(ValueError, match="too small"):
        count_line_crossings(Image.new("RGB", (1, 1), "white"))
    with pytest.raises(ValueError, match="blank"):
        circles_touch(blank)
    with pytest.raises(ValueError, match="no grid"):
        grid_shape(blank)
    with pytest.raises(ValueError, match="unknown shape"):
        count_overlapping_shapes(blank, "blob")
    with pytest.raises(ValueError, match="unknown colour"):
        count_line_crossings(blank, "chartreuse-ish")
    # Only a red line, no blue one: zero crossings, and the summary says why.
    red_only = _render_lines(300, 3, [(0, 50), (150, 250), (299, 40)], [(0, 5), (1, 5)], ("red", "white"))
    result = count_line_crossings(red_only)
    assert result.count == 0 and result.points == [] and result.touches == 0
    # A single circle cannot answer "do the two circles touch".
    one = Image.new("RGB", (300, 300), "white")
    ImageDraw.Draw(one).ellipse((100, 100, 200, 200), fill="blue")
    with pytest.raises(ValueError, match="one circle"):
        circles_touch(one)
    # Grayscale-converted and palette images are accepted like RGB.
    grid = _render_grid(4, 6, 400, 3, 0, False)
    assert grid_shape(grid.convert("L")).answer == "(4,6)"
    assert grid_shape(grid.convert("P")).answer == "(4,6)"
