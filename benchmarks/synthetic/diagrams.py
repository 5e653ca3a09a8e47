"""BlindTest-style diagrams with known answers, drawn fresh: overlapping circles and pentagons, nested squares, grids,
crossing lines and touching circles, at line widths from 0.5 to 4 px, several sizes and colours (black, faint gray,
one colour per shape), with the benchmark's wordings and others.

These are held-out images of the *kind* the diagram tools are built for (the tools were tuned on
``blindtest-dev``); nothing here copies a dev item. Rendering is matplotlib's antialiased Agg, as in the original
benchmark, so a 0.5 px stroke is a faint gray line a pixel wide. Geometry is drawn with margins that keep every
answer unambiguous to a careful eye: no near-tangent "touching" circles, no line crossings closer than a few pixels
to a breakpoint, no shapes hidden under others.

``generate(out_dir, n, seed)`` writes PNGs into ``out_dir/images/`` and returns items (``blindtest-dev`` format,
``category`` per kind) with ``meta``: what was drawn (line width in pixels, colours, geometry). Categories cycle.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # headless: no display on the benchmark machines

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Circle, Polygon, Rectangle  # noqa: E402

#: Stroke widths drawn, in pixels of the output image.
WIDTHS_PX = (0.5, 1.0, 1.5, 2.0, 3.0, 4.0)
#: Output sizes (square, pixels), as in BlindTest (384, 769, 1155) plus one in between.
SIZES_PX = (384, 512, 769, 1155)
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#000000")
INKS = {"black": "#000000", "gray": "#8c8c8c", "navy": "#1a2a6c"}
CATEGORIES = ("circles", "pentagons", "nested_squares", "grid", "crossings", "touching")

_COUNT_WORDINGS = (
    "Count the {plural} in the image. Answer with a number in curly brackets e.g. {{3}}.",
    "How many {plural} are there in the image?",
    "How many {plural} are drawn?",
    "What is the number of {plural} in this picture?",
)
_GRID_WORDINGS = {
    "pair": ("How many rows and columns are in the table? Answer with only the numbers in a pair (row, column), "
             "e.g., (5,6)"),
    "rows": "How many rows does this grid have?",
    "columns": "How many columns are in the table?",
}
_TOUCH_WORDINGS = (
    "Are the two circles touching each other? Answer with Yes/No.",
    "Do the two circles touch or overlap? Answer Yes or No.",
)
_CROSS_WORDINGS = (
    "Count the intersection points where the {a} and {b} lines meet. Put your answer in curly brackets, e.g., {{2}}.",
    "How many times do the {a} and {b} lines cross?",
)


def _figure(size_px: int) -> tuple[plt.Figure, plt.Axes]:
    dpi = 100
    fig = plt.figure(figsize=(size_px / dpi, size_px / dpi), dpi=dpi)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig, ax


def _points(width_px: float) -> float:
    """A stroke width in pixels as matplotlib points at 100 dpi."""
    return width_px * 72.0 / 100.0


def _ink(rng: random.Random, n: int) -> tuple[list[str], str]:
    style = rng.choice(("black", "black", "gray", "navy", "colours"))
    if style == "colours":
        return rng.sample(PALETTE[:8], k=min(n, 8)) + [rng.choice(PALETTE[:8]) for _ in range(max(0, n - 8))], style
    return [INKS[style]] * n, style


def _spread(rng: random.Random, n: int, radius: float, min_gap: float) -> list[tuple[float, float]] | None:
    """``n`` centres inside the unit square (shapes of ``radius`` fully inside) that overlap their neighbours but
    never nearly coincide: centres at least ``min_gap`` apart."""
    centres: list[tuple[float, float]] = []
    for _ in range(4000):
        if len(centres) == n:
            return centres
        x, y = rng.uniform(radius + 0.03, 1 - radius - 0.03), rng.uniform(radius + 0.03, 1 - radius - 0.03)
        if all(math.dist((x, y), c) >= min_gap for c in centres):
            centres.append((x, y))
    return None


def _rings(rng: random.Random, n: int) -> tuple[list[tuple[float, float]], float]:
    """Olympic-style rows of overlapping rings: ``n`` centres and one radius."""
    top = (n + 1) // 2
    ratio = rng.uniform(1.6, 2.0)  # centre spacing over radius: neighbours overlap, as in BlindTest
    spans = (top - 1) + (0.5 if n - top == top else 0.0)  # the lower row is shifted by half a step
    radius = min(rng.uniform(0.5, 0.9) / (ratio * spans + 2), 0.2)
    step = radius * ratio
    width = step * spans + 2 * radius
    x0 = (1 - width) / 2 + radius
    y_top, y_bottom = 0.5 + radius * 0.45, 0.5 - radius * 0.45
    centres = [(x0 + i * step, y_top) for i in range(top)]
    centres += [(x0 + step / 2 + i * step, y_bottom) for i in range(n - top)]
    return centres, radius


def _counting(rng: random.Random, ax: plt.Axes, width_px: float, kind: str) -> tuple[str, dict]:
    n = rng.randint(3, 9)
    layout = rng.choice(("rings", "scatter"))
    if layout == "rings":
        centres, radius = _rings(rng, n)
    else:
        radius = rng.uniform(0.08, 0.16)
        found = _spread(rng, n, radius, min_gap=0.6 * radius)
        while found is None:
            radius *= 0.85
            found = _spread(rng, n, radius, min_gap=0.6 * radius)
        centres = found
    colours, style = _ink(rng, n)
    turn = rng.uniform(0, 2 * math.pi / 5) if rng.random() < 0.5 else math.pi / 2
    for (x, y), colour in zip(centres, colours, strict=True):
        if kind == "circle":
            ax.add_patch(Circle((x, y), radius, fill=False, edgecolor=colour, linewidth=_points(width_px)))
        else:
            vertices = [(x + radius * math.cos(turn + 2 * math.pi * k / 5), y + radius * math.sin(turn + 2 * math.pi * k / 5))
                        for k in range(5)]
            ax.add_patch(Polygon(vertices, closed=True, fill=False, edgecolor=colour, linewidth=_points(width_px)))
    question = rng.choice(_COUNT_WORDINGS).format(plural=kind + "s")
    return question, {"answer": str(n), "layout": layout, "ink": style}


def _nested_squares(rng: random.Random, ax: plt.Axes, width_px: float) -> tuple[str, dict]:
    n = rng.randint(2, 5)
    colours, style = _ink(rng, 1)
    side, x, y = rng.uniform(0.7, 0.9), 0.0, 0.0
    x, y = rng.uniform(0.03, 0.97 - side), rng.uniform(0.03, 0.97 - side)
    for _ in range(n):
        ax.add_patch(Rectangle((x, y), side, side, fill=False, edgecolor=colours[0], linewidth=_points(width_px)))
        inner = side * rng.uniform(0.55, 0.8)
        x, y = x + rng.uniform(0.05, 0.95) * (side - inner), y + rng.uniform(0.05, 0.95) * (side - inner)
        side = inner
    question = ("Count total number of squares in the image. Answer with only the number in numerical format in "
                "curly brackets e.g. {3}." if rng.random() < 0.5 else "How many squares are in the image?")
    return question, {"answer": str(n), "ink": style}


def _grid(rng: random.Random, ax: plt.Axes, width_px: float) -> tuple[str, dict]:
    rows, cols = rng.randint(2, 9), rng.randint(2, 9)
    x0, y0 = rng.uniform(0.03, 0.12), rng.uniform(0.03, 0.12)
    x1, y1 = rng.uniform(0.88, 0.97), rng.uniform(0.88, 0.97)
    colours, style = _ink(rng, 1)
    lw = _points(max(1.0, width_px))
    for r in range(rows + 1):
        y = y0 + (y1 - y0) * r / rows
        ax.plot([x0, x1], [y, y], color=colours[0], linewidth=lw, solid_capstyle="projecting")
    for c in range(cols + 1):
        x = x0 + (x1 - x0) * c / cols
        ax.plot([x, x], [y0, y1], color=colours[0], linewidth=lw, solid_capstyle="projecting")
    words = ("cat", "sun", "box", "tree", "pen", "map", "key", "cup")
    for r in range(rows):
        for c in range(cols):
            if rng.random() < 0.3:
                ax.text(x0 + (x1 - x0) * (c + 0.5) / cols, y0 + (y1 - y0) * (r + 0.5) / rows, rng.choice(words),
                        ha="center", va="center", fontsize=max(5, 40 / max(rows, cols)))
    asked = rng.choice(("pair", "pair", "rows", "columns"))
    answer = {"pair": f"({rows},{cols})", "rows": str(rows), "columns": str(cols)}[asked]
    return _GRID_WORDINGS[asked], {"answer": answer, "rows": rows, "columns": cols, "asked": asked, "ink": style}


def _crossings(rng: random.Random, ax: plt.Axes, width_px: float) -> tuple[str, dict]:
    pairs = (("blue", "red"), ("blue", "red"), ("green", "orange"), ("purple", "green"))
    names = rng.choice(pairs)
    hexes = {"blue": "#1f3fd0", "red": "#d62020", "green": "#1a9a30", "orange": "#ff8c00", "purple": "#8030b0"}
    xs = (0.05, 0.5, 0.95)
    while True:
        a = [rng.uniform(0.1, 0.9) for _ in xs]
        b = [rng.uniform(0.1, 0.9) for _ in xs]
        gaps = [ya - yb for ya, yb in zip(a, b, strict=True)]
        # Keep breakpoints clearly apart (a crossing exactly at a vertex would be a judgement call).
        if min(abs(g) for g in gaps) >= 0.06:
            break
    count = sum(1 for g0, g1 in zip(gaps, gaps[1:], strict=False) if (g0 > 0) != (g1 > 0))
    lw = _points(max(1.0, width_px))
    ax.plot(xs, a, color=hexes[names[0]], linewidth=lw)
    ax.plot(xs, b, color=hexes[names[1]], linewidth=lw)
    question = rng.choice(_CROSS_WORDINGS).format(a=names[0], b=names[1])
    return question, {"answer": str(count), "colours": list(names)}


def _touching(rng: random.Random, ax: plt.Axes, width_px: float, size_px: int) -> tuple[str, dict]:
    r1, r2 = rng.uniform(0.12, 0.28), rng.uniform(0.12, 0.28)
    state = rng.choice(("apart", "touching", "overlapping"))
    pixel = 1.0 / size_px
    stroke = max(1.0, width_px) * pixel
    if state == "apart":  # the drawn rims at least 5 px apart
        gap = rng.uniform(stroke + 5 * pixel, 0.12)
    elif state == "touching":
        gap = 0.0  # the strokes' centre lines meet: the drawn rims overlap by a stroke width
    else:
        gap = -rng.uniform(0.04, 0.5) * min(r1, r2)
    angle = rng.uniform(0, 2 * math.pi)
    while True:  # shrink the circles (never the gap) until both lie wholly inside the canvas
        distance = r1 + r2 + gap
        dx, dy = distance * math.cos(angle), distance * math.sin(angle)
        low_x, high_x = min(-r1, dx - r2), max(r1, dx + r2)
        low_y, high_y = min(-r1, dy - r2), max(r1, dy + r2)
        if max(high_x - low_x, high_y - low_y) <= 0.92:
            break
        r1, r2 = r1 * 0.95, r2 * 0.95
        if state == "overlapping":
            gap *= 0.95
    cx = rng.uniform(0.04 - low_x, 0.96 - high_x)
    cy = rng.uniform(0.04 - low_y, 0.96 - high_y)
    c2 = (cx + dx, cy + dy)
    filled = rng.random() < 0.3
    colours, style = _ink(rng, 2)
    lw = _points(max(1.0, width_px))
    for (x, y), r, colour in (((cx, cy), r1, colours[0]), (c2, r2, colours[1])):
        ax.add_patch(Circle((x, y), r, fill=filled, facecolor=colour if filled else "none", edgecolor=colour,
                            linewidth=lw))
    answer = "No" if state == "apart" else "Yes"
    return rng.choice(_TOUCH_WORDINGS), {"answer": answer, "state": state, "gap_px": round(gap * size_px, 1)}


def render(category: str, rng: random.Random, path: Path, widths: tuple[float, ...] = WIDTHS_PX) -> tuple[str, dict]:
    """Draw one ``category`` diagram into ``path`` (PNG) with a stroke width from ``widths``; returns its question
    and ``meta`` (with ``answer``)."""
    size = rng.choice(SIZES_PX)
    width = rng.choice(widths)
    fig, ax = _figure(size)
    makers: dict[str, Callable[[], tuple[str, dict]]] = {
        "circles": lambda: _counting(rng, ax, width, "circle"),
        "pentagons": lambda: _counting(rng, ax, width, "pentagon"),
        "nested_squares": lambda: _nested_squares(rng, ax, width),
        "grid": lambda: _grid(rng, ax, width),
        "crossings": lambda: _crossings(rng, ax, width),
        "touching": lambda: _touching(rng, ax, width, size),
    }
    try:
        question, meta = makers[category]()
        fig.savefig(path, dpi=100, facecolor="white")
    finally:
        plt.close(fig)
    return question, {**meta, "size_px": size, "width_px": width}


def generate(out_dir: Path, n: int, seed: int = 0, categories: tuple[str, ...] = CATEGORIES,
             widths: tuple[float, ...] = WIDTHS_PX) -> list[dict]:
    """Render ``n`` diagrams (categories in turn, stroke widths drawn from ``widths``) into ``out_dir/images/`` and
    return their items."""
    rng = random.Random(seed)
    images = Path(out_dir) / "images"
    images.mkdir(parents=True, exist_ok=True)
    items = []
    for i in range(n):
        category = categories[i % len(categories)]
        name = f"diagram_{category}_{seed}_{i:04d}.png"
        question, meta = render(category, rng, images / name, widths)
        answer = meta.pop("answer")
        items.append({"id": f"diagram_{category}_{seed}_{i:04d}", "image": f"images/{name}", "question": question,
                      "answer": answer, "category": f"diagram_{category}", "meta": meta})
    return items
