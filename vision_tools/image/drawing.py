"""What the tools draw their evidence with: the one label font (DejaVu Sans Bold, Debian's fonts-dejavu-core),
falling back to Pillow's built-in bitmap font where it is not installed."""

from __future__ import annotations

from functools import lru_cache

from PIL import ImageFont

LABEL_FONT_PATH = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@lru_cache(maxsize=32)
def label_font(size: int) -> Font:
    """The label font at ``size`` pixels (loaded once per size)."""
    try:
        return ImageFont.truetype(LABEL_FONT_PATH, size)
    except OSError:
        return ImageFont.load_default()
