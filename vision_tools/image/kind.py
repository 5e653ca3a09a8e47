"""What kind of image this is, as far as the pixel tools care: a drawing on a plain background, or a photograph.

Diagram primitives, shape segmentation and colour-blob search are exact on drawings (flat fills, few inks, crisp
strokes) and meaningless on photographs (texture, noise, thousands of colours), so every tool answer is weighed by
how far the image is the kind the tool was made for. Two cheap measurements on a copy of at most 640 px decide it:

- the share of *flat* pixels (their 3x3 neighbourhood varies by at most 8 levels in every channel): 0.86-0.99 on
  BlindTest diagrams, rendered shapes and charts (JPEG charts included; 0.72 on the densest grids),
  0.04-0.66 on photographs;
- how many colours (4 bits per channel) it takes to cover 95 % of the pixels: 1-5 on drawings and charts, 25-90
  on cluttered synthetic scenes (hundreds of shapes on a textured ground), 90-225 on colour photographs.

Either measurement alone can mislead (a grayscale photo has few colours; a dense grid has many edges), so the
score is the lower of the two.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image

from vision_tools.image import config
from vision_tools.image.loading import require_rgb


@dataclass(frozen=True)
class ImageKind:
    """How far an image is a drawing (1) rather than a photograph (0), and the measurements behind it."""

    drawing: float
    flat_share: float
    colours: int

    @property
    def is_photo(self) -> bool:
        return self.drawing < 0.35

    def summary(self) -> str:
        kind = "a drawing" if self.drawing >= 0.65 else ("a photograph" if self.is_photo else "unclear")
        return (f"image kind: {kind} (drawing score {self.drawing:.2f}; {self.flat_share:.0%} flat pixels, "
                f"{self.colours} colours cover 95%)")

    def to_dict(self) -> dict[str, float | int]:
        return {"drawing": round(self.drawing, 3), "flat_share": round(self.flat_share, 3), "colours": self.colours}


def image_kind(image: Image.Image) -> ImageKind:
    """Measure how far ``image`` is a drawing on a plain background (see the module docstring)."""
    settings = config.CONFIG
    rgb = np.asarray(require_rgb(image))
    height, width = rgb.shape[:2]
    scale = min(1.0, settings.measure_side / max(height, width))
    if scale < 1.0:
        rgb = cv2.resize(rgb, (max(1, round(width * scale)), max(1, round(height * scale))),
                         interpolation=cv2.INTER_AREA)
    gradient = cv2.morphologyEx(rgb, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))  # 3x3 max - min, per channel
    spread = cv2.max(cv2.max(gradient[..., 0], gradient[..., 1]), gradient[..., 2])
    flat = float(np.count_nonzero(spread <= 8)) / spread.size
    sample = rgb[::2, ::2]  # every other pixel: the colour distribution is the same, at a quarter of the cost
    codes = ((sample[..., 0] >> 4).astype(np.uint16) << 8) | ((sample[..., 1] >> 4).astype(np.uint16) << 4) \
        | (sample[..., 2] >> 4)
    counts = np.sort(np.bincount(codes.ravel(), minlength=4096))[::-1]
    colours = int(np.searchsorted(np.cumsum(counts) / counts.sum(), 0.95)) + 1
    photo, drawing = settings.flat_photo, settings.flat_drawing
    flat_score = min(1.0, max(0.0, (flat - photo) / (drawing - photo)))
    few, many = settings.few_colours, settings.many_colours
    colour_score = min(1.0, max(0.0, 1.0 - math.log(max(colours, 1) / few) / math.log(many / few)))
    return ImageKind(min(flat_score, colour_score), flat, colours)
