"""What the tools draw their evidence with: the one label font (DejaVu Sans Bold, Debian's fonts-dejavu-core),
falling back to Pillow's built-in bitmap font where it is not installed; and labelled boxes on a copy of an image."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw, ImageFont

if TYPE_CHECKING:
    from vision_tools.image.boxes import Box

LABEL_FONT_PATH = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@lru_cache(maxsize=32)
def label_font(size: int) -> Font:
    """The label font at ``size`` pixels (loaded once per size)."""
    try:
        return ImageFont.truetype(LABEL_FONT_PATH, size)
    except OSError:
        return ImageFont.load_default()


def draw_boxes(image: Image.Image, boxes: list[tuple[Box, str]], *, max_side: int = 1600,
               colour: tuple[int, int, int] = (0, 170, 255)) -> Image.Image:
    """A copy of ``image`` (downscaled to ``max_side``) with each (box in its pixels, label) outlined and numbered,
    so the evidence viewer shows where a model said things are."""
    scale = min(1.0, max_side / max(image.size))
    out = image.convert("RGB")
    if scale < 1.0:
        out = out.resize((max(1, round(out.width * scale)), max(1, round(out.height * scale))))
    else:
        out = out.copy()
    draw = ImageDraw.Draw(out)
    font = label_font(max(12, round(max(out.size) / 50)))
    for n, (box, label) in enumerate(boxes, 1):
        rect = [box.x0 * scale, box.y0 * scale, box.x1 * scale, box.y1 * scale]
        draw.rectangle(rect, outline=colour, width=max(2, round(max(out.size) / 300)))
        top = max(0.0, rect[1] - getattr(font, "size", 10) - 2)  # the label sits above its box
        draw.text((rect[0] + 3, top), f"{n} {label}" if label else str(n), fill=colour, font=font)
    return out
