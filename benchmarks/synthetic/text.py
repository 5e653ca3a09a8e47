"""Rendered text with known transcriptions: signs, small labels and multi-line notices in DejaVu fonts.

Three categories, cycled: ``sign`` (one to three words, 26-64 px, on a coloured board in a simple scene),
``label`` (small 12-16 px text on a product-style label, the case the OCR upscaling exists for) and ``multiline``
(a notice of two or three lines, 16-30 px). Fonts vary over the DejaVu family (sans, serif, mono, condensed, bold,
oblique); colours vary, always with readable contrast. The answer is the exact text, lines joined by single spaces.
Items carry ``meta`` with the lines, font, size and text box.
"""

from __future__ import annotations

import random
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter, ImageFont

from benchmarks.synthetic import FONT_DIR

FONTS = (
    "DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf", "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf",
    "DejaVuSerif-Italic.ttf", "DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf", "DejaVuSansCondensed.ttf",
    "DejaVuSansCondensed-Bold.ttf", "DejaVuSerifCondensed.ttf",
)
WORDS = (
    "exit", "entrance", "parking", "station", "platform", "museum", "library", "garden", "market", "bakery",
    "pharmacy", "hotel", "office", "closed", "open", "welcome", "danger", "caution", "stop", "slow", "school",
    "north", "south", "east", "west", "river", "bridge", "harbor", "airport", "terminal", "tickets", "coffee",
    "fresh", "bread", "apples", "organic", "sale", "today", "only", "private", "road", "lane", "avenue", "street",
    "center", "city", "hall", "park", "zone", "area", "floor", "room", "gate", "level", "block", "wing", "staff",
    "visitors", "delivery", "lift", "stairs", "quiet", "please", "thank", "you", "keep", "left", "right", "push",
    "pull", "emergency", "fire", "water", "power", "lab", "kitchen", "storage", "archive", "studio", "gallery",
    "cinema", "theatre", "post", "bank", "bus", "tram", "metro", "taxi", "bicycle", "check", "in", "out", "lost",
    "found", "information", "toilets", "restaurant", "menu", "soup", "salad", "pizza", "tea", "juice", "ice",
    "cream", "bakehouse", "florist", "books", "music", "sports", "tennis", "pool", "gym", "yoga", "dance",
    "Maple", "Oak", "Cedar", "Willow", "Harbour", "Kingsway", "Riverside", "Hillcrest", "Lakeview", "Meadow",
)
BOARDS = ((20, 90, 170), (30, 120, 60), (180, 30, 30), (250, 200, 30), (245, 245, 240), (40, 40, 45), (120, 60, 150))
SCENES = ((200, 220, 235), (225, 215, 200), (190, 200, 190), (235, 235, 235))


def generate(out_dir: Path, n: int, seed: int = 0) -> list[dict]:
    """Render ``n`` text images into ``out_dir/images`` and return their items."""
    rng = random.Random(seed)
    images = Path(out_dir) / "images"
    images.mkdir(parents=True, exist_ok=True)
    makers = (_sign, _label, _multiline)
    items = []
    for i in range(n):
        category = ("sign", "label", "multiline")[i % 3]
        image, lines, meta, question = makers[i % 3](rng)
        name = f"text_{category}_{i:04d}.png"
        image.save(images / name, optimize=False, compress_level=1)
        items.append({
            "id": f"text_{category}_{i:04d}",
            "image": f"images/{name}",
            "question": question,
            "answer": " ".join(lines),
            "category": f"text_{category}",
            "meta": {"lines": lines, **meta},
        })
    return items


def _phrase(rng: random.Random, words: int) -> str:
    chosen = [rng.choice(WORDS) for _ in range(words)]
    if rng.random() < 0.25:
        chosen.append(str(rng.randint(1, 999)))
    style = rng.random()
    text = " ".join(chosen)
    if style < 0.4:
        return text.upper()
    if style < 0.75:
        return text.title()
    return text[0].upper() + text[1:]


def _contrast(board: tuple[int, int, int], rng: random.Random) -> tuple[int, int, int]:
    luminance = 0.299 * board[0] + 0.587 * board[1] + 0.114 * board[2]
    if luminance > 140:
        return rng.choice(((10, 10, 10), (30, 30, 80), (90, 20, 20)))
    return rng.choice(((255, 255, 255), (250, 240, 200)))


def _scene(rng: random.Random, size: tuple[int, int]) -> Image.Image:
    base = rng.choice(SCENES)
    image = Image.new("RGB", size, base)
    draw = ImageDraw.Draw(image)
    # Soft background shapes so the text is not alone on a flat field.
    for _ in range(rng.randint(3, 8)):
        x, y = rng.randrange(size[0]), rng.randrange(size[1])
        r = rng.randint(20, 120)
        tone = tuple(max(0, min(255, c + rng.randint(-35, 35))) for c in base)
        draw.ellipse([x - r, y - r, x + r, y + r], fill=tone)
    return image.filter(ImageFilter.GaussianBlur(3))


def _block(lines: list[str], font: ImageFont.FreeTypeFont, spacing: float) -> tuple[int, int, list[int]]:
    widths, heights = [], []
    for line in lines:
        left, top, right, bottom = font.getbbox(line)
        widths.append(right - left)
        heights.append(bottom - top)
    line_height = round(font.size * spacing)
    return max(widths), line_height * (len(lines) - 1) + max(heights[-1], font.size), widths


def _render(rng: random.Random, lines: list[str], size_range: tuple[int, int], canvas: tuple[int, int],
            pad: int, spacing: float = 1.45) -> tuple[Image.Image, dict]:
    size = rng.randint(*size_range)
    font_name = rng.choice(FONTS)
    font = ImageFont.truetype(str(FONT_DIR / font_name), size)
    block_w, block_h, widths = _block(lines, font, spacing)
    board_w, board_h = block_w + 2 * pad, block_h + 2 * pad
    width = max(canvas[0], board_w + 40)
    height = max(canvas[1], board_h + 40)
    image = _scene(rng, (width, height))
    draw = ImageDraw.Draw(image)
    bx = rng.randint(10, width - board_w - 10)
    by = rng.randint(10, height - board_h - 10)
    board = rng.choice(BOARDS)
    ink = _contrast(board, rng)
    draw.rounded_rectangle([bx, by, bx + board_w, by + board_h], radius=max(2, pad // 2), fill=board,
                           outline=tuple(max(0, c - 60) for c in board), width=max(1, size // 12))
    centred = rng.random() < 0.5
    for row, (line, line_w) in enumerate(zip(lines, widths, strict=True)):
        x = bx + pad + ((block_w - line_w) // 2 if centred else 0)
        y = by + pad + round(row * size * spacing)
        left, top, _, _ = font.getbbox(line)
        draw.text((x - left, y - top), line, font=font, fill=ink)
    meta = {"font": font_name, "size": size, "box": [bx, by, bx + board_w, by + board_h]}
    return image, meta


def _sign(rng: random.Random) -> tuple[Image.Image, list[str], dict, str]:
    lines = [_phrase(rng, rng.randint(1, 3))]
    image, meta = _render(rng, lines, (26, 64), (rng.choice((480, 640, 800)), rng.choice((360, 480))), pad=18)
    return image, lines, meta, "What is written on the sign?"


def _label(rng: random.Random) -> tuple[Image.Image, list[str], dict, str]:
    lines = [_phrase(rng, rng.randint(1, 3))]
    image, meta = _render(rng, lines, (12, 16), (rng.choice((240, 320, 400)), rng.choice((120, 180, 240))), pad=6)
    return image, lines, meta, "What is written on the label?"


def _multiline(rng: random.Random) -> tuple[Image.Image, list[str], dict, str]:
    lines = [_phrase(rng, rng.randint(1, 3)) for _ in range(rng.randint(2, 3))]
    image, meta = _render(rng, lines, (16, 30), (rng.choice((520, 640, 800)), rng.choice((360, 480))), pad=14)
    return image, lines, meta, "What is written on the notice? Give all lines in order."
