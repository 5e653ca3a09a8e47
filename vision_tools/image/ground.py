"""Shapes drawn on a textured ground (cardboard, blotchy paper, a dark noisy board) read as a drawing on a flat one.

A median filter (``kind.degrain``) wipes grain, the fine noise of a ground, but not a texture whose blotches are
as large as the shapes: cardboard or cloudy paper still measures as a photograph. Here the ground is estimated as
the image with every shape filtered out (a median over a window several shapes wide, on a small copy), and a pixel
is a shape's when it differs from the ground under it by more than the texture does. The copy the drawing tools
read keeps those pixels (lightly denoised) on one flat colour of the ground.

It is kept only when it is plainly a drawing: the texture is mild (the threshold it needs stays low), the shapes
cover a modest share of the image in a moderate number of pieces (a page of text or a photograph is hundreds of
pieces), no piece spans half the image (the edge of a sheet of paper, a table top) and the flattened copy measures
as a clear drawing. A photograph's texture is its content and is never flattened away.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image

from vision_tools.image import config
from vision_tools.image.kind import Degrained, image_kind
from vision_tools.image.loading import require_rgb

#: Side (pixels) of the small copy the ground is estimated on, and the share of it the median window spans.
_GROUND_SIDE = 256
_WINDOW_SHARE = 0.25
#: A pixel is a shape's when it differs from the ground by this many levels (0-255, in its most changed channel),
#: or by three times the median pixel's difference when the texture is stronger; past ``_MAX_THRESHOLD`` the
#: texture is too strong to tell shapes from it.
_MIN_THRESHOLD = 40.0
_MAX_THRESHOLD = 60.0
#: How many pieces, and what share of the image, shapes on a ground may make.
_MAX_PIECES = 40
_MAX_SHARE = 0.45
_MIN_SHARE = 0.003
#: Median filter (pixels a side) that takes speckle and noise off the shapes' fills.
_DENOISE = 5


@dataclass
class FlatGround(Degrained):
    """A drawing on a textured ground, with the ground made flat: the copy the drawing tools read (``kernel``: the
    median that denoised the shapes) and its kind."""

    threshold: float
    pieces: int

    def summary(self) -> str:
        return (f"shapes on a textured ground: {self.pieces} piece(s) differ from the ground by more than "
                f"{self.threshold:.0f} levels and are read on a flat ground; flattened {self.kind.summary()}")

    def to_dict(self) -> dict[str, float | int]:
        return {"threshold": round(self.threshold, 1), "pieces": self.pieces, **self.kind.to_dict()}


def flatten_ground(image: Image.Image) -> FlatGround | None:
    """``image`` with its textured ground made one flat colour, when it is a drawing on such a ground (see the
    module docstring); None otherwise."""
    rgb = np.ascontiguousarray(np.asarray(require_rgb(image)))
    height, width = rgb.shape[:2]
    denoised = cv2.medianBlur(rgb, _DENOISE)
    ground = _ground(denoised)
    difference = np.abs(denoised.astype(np.int16) - ground.astype(np.int16)).max(axis=2)
    threshold = max(_MIN_THRESHOLD, 3.0 * float(np.median(difference)))
    if threshold > _MAX_THRESHOLD:
        return None
    shapes = (difference > threshold).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(shapes, connectivity=8)
    areas = stats[:, cv2.CC_STAT_AREA]
    strength = np.bincount(labels.ravel(), weights=difference.ravel(), minlength=count) / np.maximum(areas, 1)
    largest = int(areas[1:].max()) if count > 1 else 0
    # A speck of the texture itself is small and differs little; a shape of the drawing does either less.
    keep = (areas >= max(60.0, 5e-5 * height * width)) & ((strength >= 1.5 * threshold) | (areas >= 0.05 * largest))
    keep[0] = False
    pieces = int(keep.sum())
    spans = np.maximum(stats[:, cv2.CC_STAT_WIDTH] / width, stats[:, cv2.CC_STAT_HEIGHT] / height)
    mask = keep[labels]
    share = float(mask.mean())
    if not 0 < pieces <= _MAX_PIECES or not _MIN_SHARE <= share <= _MAX_SHARE or bool((spans[keep] > 0.5).any()):
        return None
    flat = np.empty_like(rgb)
    flat[:] = np.median(ground.reshape(-1, 3), axis=0).astype(np.uint8)
    flat[mask] = denoised[mask]
    copy = Image.fromarray(flat)
    kind = image_kind(copy)
    if kind.flat_share < config.CONFIG.grain_free_flat or kind.drawing < 0.9:
        return None
    return FlatGround(copy, kind, _DENOISE, threshold, pieces)


def _ground(rgb: np.ndarray) -> np.ndarray:
    """The ground under the shapes: a wide median (twice) on a small copy, back at full size."""
    height, width = rgb.shape[:2]
    scale = _GROUND_SIDE / max(height, width)
    small = cv2.resize(rgb, (max(1, round(width * scale)), max(1, round(height * scale))),
                       interpolation=cv2.INTER_AREA)
    window = int(_WINDOW_SHARE * _GROUND_SIDE) | 1
    for _ in range(2):
        small = cv2.medianBlur(small, window)
    return cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR)
