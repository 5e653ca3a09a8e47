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

Grain (sensor noise, a textured or speckled ground) makes a drawing measure as a photograph: no pixel of it is
flat. ``degrain`` takes such an image through a median filter (twice) and keeps the copy only when the copy is a clear
drawing; the drawing tools then read the copy (a photograph stays a photograph: its texture is not grain).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

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


#: Drawing score from which an image is a clear drawing: no need to look for grain.
CLEAR_DRAWING = 0.65
#: Share of the lightly smoothed image's edges the filtered copy must keep; less: it wiped out strokes or dots.
INK_KEPT = 0.5


@dataclass
class Degrained:
    """A drawing under grain, cleaned: the median-filtered copy the drawing tools read, and that copy's kind."""

    image: Image.Image = field(repr=False)
    kind: ImageKind
    kernel: int

    @property
    def annotated(self) -> Image.Image:
        return self.image  # shown in the trace: the pixels the tools read

    def summary(self) -> str:
        return (f"a drawing under grain (noise or texture): the tools read it through a {self.kernel}x{self.kernel} "
                f"median filter applied twice; filtered {self.kind.summary()}")

    def to_dict(self) -> dict[str, float | int]:
        return {"kernel": self.kernel, **self.kind.to_dict()}


def degrain(image: Image.Image) -> Degrained | None:
    """``image`` through a median filter, when that makes a clear drawing of it (see the module docstring); None
    for a photograph or an image the filter does not make flat."""
    settings = config.CONFIG
    rgb = np.ascontiguousarray(np.asarray(require_rgb(image)))
    size = settings.grain_kernel
    cleaned = cv2.medianBlur(cv2.medianBlur(rgb, size), size)
    clean = Image.fromarray(cleaned)
    kind = image_kind(clean)
    if kind.flat_share < settings.grain_free_flat or kind.drawing < 0.9 or _ink_lost(rgb, cleaned):
        return None
    return Degrained(clean, kind, settings.grain_kernel)


def _ink_lost(raw: np.ndarray, cleaned: np.ndarray) -> bool:
    """Whether the filter wiped out something drawn: under INK_KEPT of the edges of the lightly smoothed image
    (where grain no longer makes edges) have an edge near them in the filtered copy (a thin outline or a small dot
    vanishes under a median; the edges of filled shapes stay)."""
    settings = config.CONFIG
    scale = min(1.0, settings.measure_side / max(raw.shape[:2]))
    size = (max(1, round(raw.shape[1] * scale)), max(1, round(raw.shape[0] * scale)))

    def edges(rgb: np.ndarray) -> np.ndarray:  # in any channel: a red disc on a grey ground has no grey edge
        small = cv2.resize(cv2.GaussianBlur(rgb, (0, 0), 2), size, interpolation=cv2.INTER_AREA)
        return np.logical_or.reduce([cv2.Canny(np.ascontiguousarray(small[..., c]), 50, 150) > 0 for c in range(3)])

    before, after = edges(raw), edges(cleaned)
    if before.sum() == 0:
        return False
    near = cv2.dilate(after.astype(np.uint8), np.ones((7, 7), np.uint8)) > 0
    return float((before & near).sum()) / float(before.sum()) < INK_KEPT
