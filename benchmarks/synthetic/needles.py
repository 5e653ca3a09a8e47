"""Needles in 4K haystacks: a small coloured shape, a small coloured label with a word, or a short printed word,
placed at random in a cluttered 3840x2160 image.

Clutter is hundreds of shapes, strokes and gray distractor words over a textured background. Clutter never uses the
needle's colour family, except (in half the shape items) a few same-colour decoys of *other* shapes, so that "the
red star" must be told from red circles and squares. Needles stay 120 px clear of the centre lines so that the
quadrant answer is unambiguous. Categories, cycled:

- ``needle_shape``: "Where is the red star? Answer with the quadrant: ..." -> "top-left"
- ``needle_label``: "What word is written on the small yellow label?" -> the word
- ``needle_word``: "In which quadrant is the word 'HARBOR' written? ..." -> "bottom-right"

Items carry ``meta``: ``kind``, ``target`` (what a search tool is asked for), ``box`` (the needle, original pixels).
"""

from __future__ import annotations

import math
import random
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter, ImageFont

from benchmarks.synthetic import FONT_DIR
from benchmarks.synthetic.text import WORDS

SIZE = (3840, 2160)
QUADRANT_HINT = "Answer with the quadrant: top-left, top-right, bottom-left or bottom-right."
#: Needle colours and the clutter colours allowed with each (other hue families, far from the needle's).
NEEDLE_COLOURS: dict[str, tuple[int, int, int]] = {
    "red": (220, 25, 25), "blue": (25, 70, 225), "green": (30, 170, 50), "purple": (135, 40, 185),
    "orange": (250, 130, 10), "yellow": (250, 220, 20),
}
FAMILIES: dict[str, tuple[str, ...]] = {  # colours too close to tell apart at a glance: kept out of the clutter
    "red": ("red", "orange", "pink", "brown", "purple"), "blue": ("blue", "purple"), "green": ("green", "yellow"),
    "purple": ("purple", "blue", "pink", "red"), "orange": ("orange", "red", "yellow", "brown"),
    "yellow": ("yellow", "orange", "green", "brown"),
}
CLUTTER_COLOURS: dict[str, tuple[int, int, int]] = {
    **NEEDLE_COLOURS, "pink": (240, 120, 180), "brown": (120, 75, 35), "gray": (120, 120, 120), "black": (20, 20, 20),
    "white": (250, 250, 250),
}
SHAPES = ("star", "circle", "triangle", "square")
LABEL_COLOURS = ("yellow", "green", "orange")


def generate(out_dir: Path, n: int, seed: int = 0) -> list[dict]:
    """Render ``n`` 4K needle images into ``out_dir/images`` and return their items."""
    rng = random.Random(seed)
    images = Path(out_dir) / "images"
    images.mkdir(parents=True, exist_ok=True)
    items = []
    for i in range(n):
        kind = ("shape", "label", "word")[i % 3]
        if kind == "shape":
            colour, shape = rng.choice(list(NEEDLE_COLOURS)), rng.choice(SHAPES)
            image = _haystack(rng, avoid=FAMILIES[colour])
            if rng.random() < 0.5:  # same-colour decoys of other shapes
                for _ in range(rng.randint(1, 3)):
                    _draw_shape(ImageDraw.Draw(image), rng.choice([s for s in SHAPES if s != shape]),
                                _free_spot(rng, 60), rng.randint(28, 60), NEEDLE_COLOURS[colour], rng)
            cx, cy = _free_spot(rng, 120)
            radius = rng.randint(18, 34)
            _draw_shape(ImageDraw.Draw(image), shape, (cx, cy), radius, NEEDLE_COLOURS[colour], rng)
            box = [cx - radius, cy - radius, cx + radius, cy + radius]
            question = f"Where is the {colour} {shape}? {QUADRANT_HINT}"
            answer, target = _quadrant(cx, cy), f"{colour} {shape}"
        elif kind == "label":
            colour = rng.choice(LABEL_COLOURS)
            image = _haystack(rng, avoid=FAMILIES[colour])
            word = rng.choice(WORDS).upper() if rng.random() < 0.6 else rng.choice(WORDS).title()
            font = ImageFont.truetype(str(FONT_DIR / rng.choice(("DejaVuSans-Bold.ttf", "DejaVuSans.ttf",
                                                                  "DejaVuSerif-Bold.ttf"))), rng.randint(22, 34))
            left, top, right, bottom = font.getbbox(word)
            w, h = right - left + 24, bottom - top + 20
            cx, cy = _free_spot(rng, 120 + w // 2)
            x0, y0 = cx - w // 2, cy - h // 2
            draw = ImageDraw.Draw(image)
            draw.rectangle([x0, y0, x0 + w, y0 + h], fill=NEEDLE_COLOURS[colour], outline=(60, 60, 60), width=2)
            draw.text((x0 + 12 - left, y0 + 10 - top), word, font=font, fill=(15, 15, 15))
            box = [x0, y0, x0 + w, y0 + h]
            question = f"What word is written on the small {colour} label?"
            answer, target = word, f"{colour} label"
        else:
            word = rng.choice([w for w in WORDS if len(w) >= 4]).upper()
            image = _haystack(rng, avoid=(), banned_word=word)
            font = ImageFont.truetype(str(FONT_DIR / "DejaVuSans-Bold.ttf"), rng.randint(30, 44))
            left, top, right, bottom = font.getbbox(word)
            cx, cy = _free_spot(rng, 120 + (right - left) // 2)
            x0, y0 = cx - (right - left) // 2, cy - (bottom - top) // 2
            draw = ImageDraw.Draw(image)
            draw.rectangle([x0 - 8, y0 - 8, x0 + right - left + 8, y0 + bottom - top + 8], fill=(250, 250, 250))
            draw.text((x0 - left, y0 - top), word, font=font, fill=(10, 10, 10))
            box = [x0, y0, x0 + right - left, y0 + bottom - top]
            question = f"In which quadrant is the word '{word}' written? {QUADRANT_HINT}"
            answer, target = _quadrant(cx, cy), word
        name = f"needle_{kind}_{i:04d}.png"
        image.save(images / name, compress_level=1)
        items.append({"id": f"needle_{kind}_{i:04d}", "image": f"images/{name}", "question": question,
                      "answer": answer, "category": f"needle_{kind}",
                      "meta": {"kind": kind, "target": target, "box": box}})
    return items


def _quadrant(cx: float, cy: float) -> str:
    return f"{'top' if cy < SIZE[1] / 2 else 'bottom'}-{'left' if cx < SIZE[0] / 2 else 'right'}"


def _free_spot(rng: random.Random, margin: int) -> tuple[int, int]:
    """A point at least ``margin`` px from the image edges and from both centre lines."""
    while True:
        x, y = rng.randint(margin, SIZE[0] - margin), rng.randint(margin, SIZE[1] - margin)
        if abs(x - SIZE[0] / 2) > margin and abs(y - SIZE[1] / 2) > margin:
            return x, y


def _haystack(rng: random.Random, avoid: tuple[str, ...], banned_word: str = "") -> Image.Image:
    # Texture: a coarse random field blown up and blurred, so the background is not a flat colour.
    coarse = Image.effect_noise((SIZE[0] // 32, SIZE[1] // 32), 40).convert("RGB")
    base = Image.new("RGB", coarse.size, rng.choice(((225, 225, 220), (205, 210, 215), (235, 230, 215))))
    image = Image.blend(base, coarse, 0.15).resize(SIZE, Image.Resampling.BILINEAR).filter(ImageFilter.GaussianBlur(4))
    draw = ImageDraw.Draw(image)
    palette = [rgb for name, rgb in CLUTTER_COLOURS.items() if name not in avoid]
    for _ in range(rng.randint(180, 300)):
        base = rng.choice(palette)
        # Grays vary in lightness only; per-channel jitter would tint them into faint greens and blues.
        jitter = [rng.randint(-20, 20)] * 3 if len(set(base)) == 1 else [rng.randint(-20, 20) for _ in range(3)]
        colour = tuple(max(0, min(255, c + j)) for c, j in zip(base, jitter, strict=True))
        x, y = rng.randrange(SIZE[0]), rng.randrange(SIZE[1])
        roll = rng.random()
        if roll < 0.5:
            _draw_shape(draw, rng.choice(SHAPES + ("rect",)), (x, y), rng.randint(15, 110), colour, rng)
        elif roll < 0.8:
            draw.line([x, y, x + rng.randint(-400, 400), y + rng.randint(-400, 400)], fill=colour,
                      width=rng.randint(2, 8))
        else:
            draw.ellipse([x, y, x + rng.randint(40, 300), y + rng.randint(20, 120)], outline=colour,
                         width=rng.randint(2, 6))
    font = ImageFont.truetype(str(FONT_DIR / "DejaVuSans.ttf"), 20)
    for _ in range(rng.randint(15, 30)):  # gray distractor text
        # Never the needle word itself, in any case: the question would have two answers.
        distractor = rng.choice([w for w in WORDS if w.casefold() != banned_word.casefold()])
        draw.text((rng.randrange(SIZE[0] - 200), rng.randrange(SIZE[1] - 40)), distractor, font=font,
                  fill=(90, 90, 90))
    return image


def _draw_shape(draw: ImageDraw.ImageDraw, shape: str, centre: tuple[int, int], radius: int,
                colour: tuple[int, ...], rng: random.Random) -> None:
    cx, cy = centre
    if shape == "circle":
        draw.ellipse([cx - radius, cy - radius, cx + radius, cy + radius], fill=colour)
    elif shape == "square":
        draw.regular_polygon((cx, cy, radius), 4, rotation=rng.choice((0, 45 / 2, 45)), fill=colour)
    elif shape == "triangle":
        draw.regular_polygon((cx, cy, radius), 3, rotation=rng.uniform(0, 120), fill=colour)
    elif shape == "star":
        offset = rng.uniform(0, math.pi)
        points = [(cx + (radius if k % 2 == 0 else radius * 0.42) * math.cos(offset + k * math.pi / 5),
                   cy + (radius if k % 2 == 0 else radius * 0.42) * math.sin(offset + k * math.pi / 5))
                  for k in range(10)]
        draw.polygon(points, fill=colour)
    else:  # "rect": a long bar
        draw.rectangle([cx - radius, cy - radius // 3, cx + radius, cy + radius // 3], fill=colour)
