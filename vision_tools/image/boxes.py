"""Axis-aligned boxes in original-image pixels, and the one place where other coordinate frames are converted.

Models answer in different frames: Qwen2.5-VL in pixels of its resized input, Qwen3-VL in 0-1000 relative units,
others in 0-1 relative units. Everything inside the project uses original-image pixels; ``to_pixels`` converts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum


class BoxFrame(StrEnum):
    """The coordinate frame a box was expressed in."""

    PIXELS = "pixels"  # original-image pixels
    RELATIVE_1 = "relative_1"  # 0-1 of width/height
    RELATIVE_1000 = "relative_1000"  # 0-1000 of width/height (Qwen3-VL)
    RESIZED_PIXELS = "resized_pixels"  # pixels of the model's resized input (Qwen2.5-VL)


@dataclass(frozen=True)
class Box:
    """A box ``(x0, y0)``-``(x1, y1)`` in original-image pixels, x0 <= x1 and y0 <= y1."""

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def area(self) -> float:
        return max(0.0, self.width) * max(0.0, self.height)

    @property
    def center(self) -> tuple[float, float]:
        return ((self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2)

    def as_list(self) -> list[int]:
        return [round(self.x0), round(self.y0), round(self.x1), round(self.y1)]

    def as_tuple(self) -> tuple[int, int, int, int]:
        """The rounded corners as PIL's ``Image.crop`` takes them."""
        return (round(self.x0), round(self.y0), round(self.x1), round(self.y1))

    def iou(self, other: Box) -> float:
        ix = max(0.0, min(self.x1, other.x1) - max(self.x0, other.x0))
        iy = max(0.0, min(self.y1, other.y1) - max(self.y0, other.y0))
        inter = ix * iy
        union = self.area + other.area - inter
        return inter / union if union > 0 else 0.0

    def clamp(self, width: int, height: int) -> Box:
        """The box clipped to an image of ``width`` x ``height``; coordinates are re-ordered if reversed."""
        x0, x1 = sorted((self.x0, self.x1))
        y0, y1 = sorted((self.y0, self.y1))
        return Box(min(max(x0, 0.0), width), min(max(y0, 0.0), height), min(max(x1, 0.0), width), min(max(y1, 0.0), height))


def to_pixels(
    coords: Sequence[float],
    frame: BoxFrame | str,
    image_size: tuple[int, int],
    resized_size: tuple[int, int] | None = None,
) -> Box:
    """Convert ``coords`` given in ``frame`` into an original-pixel ``Box`` for an image of ``image_size`` (w, h).

    ``resized_size`` (w, h) is the model's input size and is required for ``RESIZED_PIXELS``.
    """
    frame = BoxFrame(frame)
    width, height = image_size
    x0, y0, x1, y1 = (float(c) for c in coords)
    if frame is BoxFrame.PIXELS:
        sx = sy = 1.0
    elif frame is BoxFrame.RELATIVE_1:
        sx, sy = width, height
    elif frame is BoxFrame.RELATIVE_1000:
        sx, sy = width / 1000.0, height / 1000.0
    else:
        if resized_size is None:
            raise ValueError("resized_size is required to convert boxes given in resized-input pixels")
        sx, sy = width / resized_size[0], height / resized_size[1]
    return Box(x0 * sx, y0 * sy, x1 * sx, y1 * sy).clamp(width, height)


def tile_boxes(size: tuple[int, int], tile_size: int = 1024, overlap: int = 128) -> list[Box]:
    """Boxes of overlapping ``tile_size`` tiles covering an image of ``size`` (w, h); edge tiles are shifted
    inwards rather than shrunk, so every tile (of an image at least that big) has the full size."""
    if tile_size < 1 or not 0 <= overlap < tile_size:
        raise ValueError(f"need tile_size >= 1 and 0 <= overlap < tile_size; got {tile_size}, {overlap}")
    width, height = size
    return [Box(x, y, min(x + tile_size, width), min(y + tile_size, height))
            for y in _tile_starts(height, tile_size, overlap) for x in _tile_starts(width, tile_size, overlap)]


def _tile_starts(length: int, tile_size: int, overlap: int) -> list[int]:
    if length <= tile_size:
        return [0]
    step = tile_size - overlap
    starts = list(range(0, length - tile_size, step))
    starts.append(length - tile_size)
    return starts
