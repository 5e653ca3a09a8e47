"""Synthetic shape-counting images with known counts: shapes x colours at random sizes, rotations and positions.

Each image holds 3-12 shapes (circles, triangles, squares, rectangles, pentagons, hexagons, five-pointed stars),
filled, outlined or mixed, on one of several backgrounds (white, light gray, cream, dark slate, a soft gradient).
Most shapes stand apart; about a quarter are placed touching an earlier shape (always one of another colour, as a
same-colour touching pair is one blob to any eye). Rendering is 2x supersampled so edges are antialiased.

``generate(out_dir, n, seed)`` writes PNGs into ``out_dir/images/`` and returns items in the evaluation format
``{"id", "image", "question", "answer", "category"}`` plus ``target`` (the shape/colour asked about) and
``objects`` (every shape drawn: kind, colour, box) so benchmarks can check the tool against more than one question.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw

COLOURS: dict[str, tuple[int, int, int]] = {
    "red": (220, 30, 30),
    "orange": (255, 140, 0),
    "yellow": (240, 200, 0),
    "green": (40, 160, 60),
    "blue": (30, 90, 220),
    "purple": (130, 50, 180),
    "pink": (255, 105, 180),
    "brown": (140, 80, 30),
    "black": (20, 20, 20),
    "gray": (128, 128, 128),
}
KINDS = ("circle", "triangle", "square", "rectangle", "pentagon", "hexagon", "star")
PLURAL = {k: k + "s" for k in KINDS}
BACKGROUNDS = ("white", "lightgray", "cream", "dark", "gradient")
_SIZES = ((512, 512), (640, 480), (800, 600), (1024, 768), (768, 1024))
SS = 2  # supersampling factor


def _background(kind: str, size: tuple[int, int]) -> tuple[Image.Image, tuple[int, int, int]]:
    w, h = size
    if kind == "gradient":
        top, bottom = np.array([255, 255, 255], float), np.array([205, 222, 240], float)
        t = np.linspace(0, 1, h)[:, None, None]
        arr = (top * (1 - t) + bottom * t).repeat(w, axis=1).astype(np.uint8)
        return Image.fromarray(arr), (230, 238, 248)
    colour = {"white": (255, 255, 255), "lightgray": (232, 232, 232), "cream": (250, 244, 226),
              "dark": (32, 34, 44)}[kind]
    return Image.new("RGB", size, colour), colour


def _contrast_ok(colour: tuple[int, int, int], bg: tuple[int, int, int]) -> bool:
    c, b = np.array(colour, float), np.array(bg, float)
    return float(np.abs(c - b).max()) > 90


def _outline(kind: str, cx: float, cy: float, r: float, angle: float, rng: random.Random) -> list[tuple[float, float]]:
    """Polygon vertices (or an empty list for circles) of a shape with circumradius ``r``."""
    if kind == "circle":
        return []
    if kind == "star":
        pts = []
        for i in range(10):
            rad = r if i % 2 == 0 else r * 0.45
            a = angle + i * math.pi / 5
            pts.append((cx + rad * math.cos(a), cy + rad * math.sin(a)))
        return pts
    if kind == "rectangle":
        ratio = rng.uniform(1.7, 2.3)
        half_w, half_h = r * math.cos(math.atan(1 / ratio)), r * math.sin(math.atan(1 / ratio))
        corners = [(-half_w, -half_h), (half_w, -half_h), (half_w, half_h), (-half_w, half_h)]
        ca, sa = math.cos(angle), math.sin(angle)
        return [(cx + x * ca - y * sa, cy + x * sa + y * ca) for x, y in corners]
    sides = {"triangle": 3, "square": 4, "pentagon": 5, "hexagon": 6}[kind]
    return [(cx + r * math.cos(angle + 2 * math.pi * i / sides), cy + r * math.sin(angle + 2 * math.pi * i / sides))
            for i in range(sides)]


def _draw(draw: ImageDraw.ImageDraw, shape: dict, width: int | None) -> None:
    s = SS
    colour = COLOURS[shape["colour"]]
    fill, outline = (colour, None) if width is None else (None, colour)
    if shape["kind"] == "circle":
        cx, cy, r = shape["cx"] * s, shape["cy"] * s, shape["r"] * s
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill, outline=outline, width=(width or 0) * s)
    else:
        pts = [(x * s, y * s) for x, y in shape["points"]]
        draw.polygon(pts, fill=fill, outline=outline, width=(width or 1) * s)


def _mask(shape: dict, size: tuple[int, int]) -> np.ndarray:
    img = Image.new("L", size, 0)
    d = ImageDraw.Draw(img)
    if shape["kind"] == "circle":
        cx, cy, r = shape["cx"], shape["cy"], shape["r"]
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=255)
    else:
        d.polygon(shape["points"], fill=255)
    return np.asarray(img) > 0


def _box(shape: dict) -> list[int]:
    if shape["kind"] == "circle":
        cx, cy, r = shape["cx"], shape["cy"], shape["r"]
        return [round(cx - r), round(cy - r), round(cx + r), round(cy + r)]
    xs, ys = [p[0] for p in shape["points"]], [p[1] for p in shape["points"]]
    return [round(min(xs)), round(min(ys)), round(max(xs)), round(max(ys))]


def _make_shape(kind: str, colour: str, cx: float, cy: float, r: float, rng: random.Random) -> dict:
    angle = rng.uniform(0, 2 * math.pi)
    return {"kind": kind, "colour": colour, "cx": cx, "cy": cy, "r": r,
            "points": _outline(kind, cx, cy, r, angle, rng)}


def _place(rng: random.Random, size: tuple[int, int], colours: list[str], count: int) -> list[dict]:
    w, h = size
    shapes: list[dict] = []
    occupied = np.zeros((h, w), dtype=bool)
    attempts = 0
    while len(shapes) < count and attempts < 400:
        attempts += 1
        kind, colour = rng.choice(KINDS), rng.choice(colours)
        r = rng.uniform(0.035, 0.1) * min(w, h)
        touching = bool(shapes) and rng.random() < 0.3
        if touching:
            anchor = rng.choice(shapes)
            if colour == anchor["colour"]:
                others = [c for c in colours if c != colour]
                if not others:
                    continue
                colour = rng.choice(others)
            theta = rng.uniform(0, 2 * math.pi)
            # Walk the new shape towards the anchor until their pixels first meet: that is "touching".
            placed = None
            for dist in np.arange(anchor["r"] + r + 2, 0.3 * (anchor["r"] + r), -1.0):
                cx, cy = anchor["cx"] + dist * math.cos(theta), anchor["cy"] + dist * math.sin(theta)
                if not (r + 3 < cx < w - r - 3 and r + 3 < cy < h - r - 3):
                    break
                cand = _make_shape(kind, colour, cx, cy, r, rng) if placed is None else {**placed, **_moved(placed, cx, cy)}
                placed = cand
                mask = _mask(cand, size)
                if (mask & _mask(anchor, size)).any():
                    others_mask = occupied & ~_mask(anchor, size)
                    if not (cv_dilate(mask) & others_mask).any():
                        shapes.append(cand)
                        occupied |= mask
                    break
            continue
        cx, cy = rng.uniform(r + 4, w - r - 4), rng.uniform(r + 4, h - r - 4)
        cand = _make_shape(kind, colour, cx, cy, r, rng)
        mask = _mask(cand, size)
        if (cv_dilate(mask, 6) & occupied).any():
            continue
        shapes.append(cand)
        occupied |= mask
    return shapes


def _moved(shape: dict, cx: float, cy: float) -> dict:
    dx, dy = cx - shape["cx"], cy - shape["cy"]
    return {"cx": cx, "cy": cy, "points": [(x + dx, y + dy) for x, y in shape["points"]]}


def cv_dilate(mask: np.ndarray, radius: int = 2) -> np.ndarray:
    """``mask`` grown by ``radius`` pixels."""
    return cv2.dilate(mask.astype(np.uint8), np.ones((2 * radius + 1, 2 * radius + 1), np.uint8)) > 0


def _question(rng: random.Random, shapes: list[dict], colours: list[str]) -> tuple[str, str, dict, str]:
    present = [(s["colour"], s["kind"]) for s in shapes]
    mode = rng.choice(("colour_shape", "colour_shape", "shape", "colour", "total"))
    if mode == "colour_shape":
        colour, kind = rng.choice(present) if rng.random() < 0.85 else (rng.choice(colours), rng.choice(KINDS))
        n = sum(1 for p in present if p == (colour, kind))
        q = f"How many {colour} {PLURAL[kind]} are there?"
        return q, str(n), {"shape": kind, "colour": colour}, "shapes_colour_shape"
    if mode == "shape":
        kind = rng.choice([k for _, k in present])
        n = sum(1 for _, k in present if k == kind)
        return f"How many {PLURAL[kind]} are in the image?", str(n), {"shape": kind, "colour": None}, "shapes_shape"
    if mode == "colour":
        colour = rng.choice([c for c, _ in present])
        n = sum(1 for c, _ in present if c == colour)
        q = f"How many {colour} shapes are there in the picture?"
        return q, str(n), {"shape": None, "colour": colour}, "shapes_colour"
    return "How many shapes are there in total?", str(len(shapes)), {"shape": None, "colour": None}, "shapes_total"


def generate(out_dir: Path, n: int, seed: int = 0) -> list[dict]:
    """Write ``n`` shape images into ``out_dir/images/`` and return their evaluation items."""
    out_dir = Path(out_dir)
    (out_dir / "images").mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    items = []
    for i in range(n):
        size = rng.choice(_SIZES)
        bg_kind = rng.choice(BACKGROUNDS)
        canvas, bg = _background(bg_kind, size)
        colours = [c for c, rgb in COLOURS.items() if _contrast_ok(rgb, bg)]
        colours = rng.sample(colours, k=rng.randint(2, min(5, len(colours))))
        shapes = _place(rng, size, colours, rng.randint(3, 12))
        style = rng.choice(("filled", "outlined", "mixed"))
        big = canvas.resize((size[0] * SS, size[1] * SS), Image.NEAREST)
        draw = ImageDraw.Draw(big)
        for shape in shapes:
            outlined = style == "outlined" or (style == "mixed" and rng.random() < 0.5)
            shape["filled"] = not outlined
            _draw(draw, shape, rng.randint(2, 5) if outlined else None)
        image = big.resize(size, Image.LANCZOS)
        name = f"shapes_{seed}_{i:04d}.png"
        image.save(out_dir / "images" / name)
        question, answer, target, category = _question(rng, shapes, colours)
        items.append({
            "id": f"shapes_{seed}_{i:04d}", "image": f"images/{name}", "question": question, "answer": answer,
            "category": category, "target": target, "background": bg_kind, "style": style,
            "objects": [{"kind": s["kind"], "colour": s["colour"], "filled": s["filled"], "box": _box(s)}
                        for s in shapes],
        })
    return items


if __name__ == "__main__":
    import sys

    target = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/shapes")
    rows = generate(target, int(sys.argv[2]) if len(sys.argv) > 2 else 20, int(sys.argv[3]) if len(sys.argv) > 3 else 0)
    (target / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(f"{len(rows)} items in {target}")
