"""Shared pieces of the diagram tools: input checks, ink and colour masks, stroke width, circle fits, annotation.

Diagrams (BlindTest-style line plots, circles, squares, grids) are drawn on a near-uniform background; every tool
starts from the same two questions — which pixels carry ink, and of which colour — answered here once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np
from PIL import Image, ImageDraw

from vision_tools.diagrams import config
from vision_tools.image.boxes import Box
from vision_tools.image.colour import ALIASES
from vision_tools.image.drawing import label_font
from vision_tools.image.loading import require_rgb

#: Named colours as hue ranges in degrees (HSV); "black"/"gray" are handled by value/saturation instead.
HUE_RANGES: dict[str, tuple[tuple[float, float], ...]] = {
    "red": ((0.0, 15.0), (340.0, 360.0)),
    "orange": ((15.0, 40.0),),
    "yellow": ((40.0, 70.0),),
    "green": ((70.0, 165.0),),
    "cyan": ((165.0, 195.0),),
    "blue": ((195.0, 255.0),),
    "purple": ((255.0, 290.0),),
    "magenta": ((290.0, 340.0),),
    "pink": ((300.0, 345.0),),
}
COLOUR_NAMES = (*HUE_RANGES, "black", "gray")

# Palette for numbered marks on annotated images: visible on white and on most strokes.
_MARK_COLOURS = ((230, 0, 120), (0, 150, 60), (255, 120, 0), (20, 90, 230), (140, 0, 200), (0, 160, 170))


def as_rgb_array(image: Image.Image) -> np.ndarray:
    """``image`` as an HxWx3 uint8 array, any PIL mode accepted; ValueError for images too small to measure."""
    return np.asarray(require_rgb(image, config.CONFIG.min_side, "analyse"), dtype=np.uint8)


def background_colour(rgb: np.ndarray) -> np.ndarray:
    """The background colour: the most frequent colour of the image (the border is not used, because grids and
    frames are often drawn right along it)."""
    step = max(1, int(np.sqrt(rgb.shape[0] * rgb.shape[1] / 250_000)))
    sample = rgb[::step, ::step].reshape(-1, 3)
    # Colours quantised to 4 bits per channel, so antialiasing noise does not split the background.
    codes = (sample[:, 0].astype(np.int32) >> 4) * 256 + (sample[:, 1] >> 4) * 16 + (sample[:, 2] >> 4)
    mode = np.bincount(codes, minlength=4096).argmax()
    return np.median(sample[codes == mode], axis=0).astype(np.float32)


def ink_strength(rgb: np.ndarray, background: np.ndarray | None = None) -> np.ndarray:
    """Per-pixel difference from the background in 0-1 (largest channel difference / 255)."""
    bg = background_colour(rgb) if background is None else background
    # uint8 arithmetic in OpenCV: several times faster than float numpy on multi-megapixel drawings.
    diff = cv2.absdiff(np.ascontiguousarray(rgb), np.full_like(rgb, 0) + np.round(bg).astype(np.uint8))
    return cv2.max(cv2.max(diff[..., 0], diff[..., 1]), diff[..., 2]).astype(np.float32) / 255.0


def stretch_faint_ink(strength: np.ndarray) -> np.ndarray:
    """``strength`` rescaled so that faint ink reaches the contrast of ordinary ink; ordinary ink is unchanged.

    A 0.5 px stroke, or a light-gray or pastel one, never differs from the background by more than a quarter of
    full contrast, so thresholds set for ordinary strokes miss it entirely. The drawing's own ink level (its
    strongest pixels) says which case it is: ordinary ink peaks near full contrast (0.67-1.0 on BlindTest, 0.5 px
    coloured strokes included), faint ink far below."""
    candidates = strength[strength > 0.04]
    if candidates.size < 20:
        return strength
    level = float(np.percentile(candidates, 99))
    if level >= config.CONFIG.faint_ink_level:
        return strength
    return np.clip(strength * (0.95 / max(level, 0.08)), 0.0, 1.0).astype(np.float32)


def ink_mask(rgb: np.ndarray, threshold: float = 0.25) -> np.ndarray:
    """Boolean mask of pixels that differ clearly from the background (strokes, fills, text)."""
    return ink_strength(rgb) > threshold


def colour_mask(rgb: np.ndarray, colour: str | Sequence[int]) -> np.ndarray:
    """Pixels of a named colour (see ``COLOUR_NAMES``) or close to an explicit ``(r, g, b)``."""
    if not isinstance(colour, str):
        target = np.asarray(colour, dtype=np.float32).reshape(1, 1, 3)
        if target.size != 3:
            raise ValueError(f"colour must be a name or an (r, g, b) triple, got {colour!r}")
        return np.abs(rgb.astype(np.float32) - target).max(axis=2) < 60
    name = colour.strip().lower().replace("grey", "gray")
    if name not in HUE_RANGES and name in ALIASES:
        # Diagrams keep two hues finer than the object palette (cyan, magenta); other aliases mean what they
        # mean there ("violet" is purple, "navy" is blue).
        name = ALIASES[name]
    hsv = cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV_FULL).astype(np.float32)
    hue = hsv[..., 0] * (360.0 / 256.0)
    sat, val = hsv[..., 1] / 255.0, hsv[..., 2] / 255.0
    if name == "black":
        return val < 0.35
    if name == "gray":
        return (sat < 0.2) & (val >= 0.25) & (val < 0.8)
    if name not in HUE_RANGES:
        raise ValueError(f"unknown colour {colour!r}; use one of {', '.join(COLOUR_NAMES)} or an (r, g, b) triple")
    in_hue = np.zeros(hue.shape, dtype=bool)
    for low, high in HUE_RANGES[name]:
        in_hue |= (hue >= low) & (hue < high)
    # Antialiased edges fade towards white: keep them while the colour is still clearly saturated.
    return in_hue & (sat > 0.3) & (val > 0.25)


def stroke_width(mask: np.ndarray) -> float:
    """Typical stroke thickness in pixels of the strokes in ``mask`` (twice the ridge distance to the edge)."""
    if not mask.any():
        return 0.0
    dist = cv2.distanceTransform(mask.astype(np.uint8), cv2.DIST_L2, 3)
    # Ridge pixels: local maxima of the distance transform; their median is the half-width.
    ridge = (dist >= cv2.dilate(dist, np.ones((3, 3), np.uint8))) & (dist > 0)
    return float(2.0 * np.median(dist[ridge]) - 1.0) if ridge.any() else 1.0


def disk(radius: int) -> np.ndarray:
    """A filled-disk structuring element of the given radius."""
    size = 2 * max(0, int(radius)) + 1
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))


def fit_circle(points: np.ndarray) -> tuple[float, float, float]:
    """Least-squares circle ``(cx, cy, r)`` through ``points`` (N x 2, x/y); outliers trimmed in a second pass."""
    if len(points) < 3:
        raise ValueError("at least three points are needed to fit a circle")
    pts = points.astype(np.float64)
    for _ in range(2):
        x, y = pts[:, 0], pts[:, 1]
        a = np.column_stack([x, y, np.ones_like(x)])
        b = x * x + y * y
        (c0, c1, c2), *_ = np.linalg.lstsq(a, b, rcond=None)
        cx, cy = c0 / 2, c1 / 2
        r = math.sqrt(max(c2 + cx * cx + cy * cy, 0.0))
        resid = np.abs(np.hypot(pts[:, 0] - cx, pts[:, 1] - cy) - r)
        keep = resid < max(1.5, 3 * float(np.median(resid)))
        if keep.all() or keep.sum() < 3:
            break
        pts = pts[keep]
    return float(cx), float(cy), float(r)


def box_of(mask: np.ndarray) -> Box | None:
    """The bounding box of the true pixels of ``mask``, or None when it is empty."""
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        return None
    return Box(float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1))


def annotate(
    rgb: np.ndarray,
    boxes: Sequence[Box] = (),
    points: Sequence[tuple[float, float]] = (),
    circles: Sequence[tuple[float, float, float]] = (),
    polygons: Sequence[Sequence[tuple[float, float]]] = (),
    lines: Sequence[tuple[tuple[float, float], tuple[float, float]]] = (),
    caption: str = "",
) -> Image.Image:
    """Draw numbered evidence (boxes, points, circles, polygons) on a copy scaled to <= the config's
    ``annotated_max_side``."""
    height, width = rgb.shape[:2]
    scale = min(1.0, config.CONFIG.annotated_max_side / max(width, height))
    canvas = Image.fromarray(rgb)
    if scale < 1.0:
        canvas = canvas.resize((max(1, round(width * scale)), max(1, round(height * scale))),
                               Image.Resampling.BILINEAR, reducing_gap=2.0)
    draw = ImageDraw.Draw(canvas)
    line_w = max(2, round(max(canvas.size) / 400))
    font_size = max(12, round(max(canvas.size) / 40))
    font = label_font(font_size)

    def label(n: int, x: float, y: float, colour: tuple[int, int, int]) -> None:
        text = str(n)
        x0, y0, x1, y1 = draw.textbbox((x, y), text, font=font)
        draw.rectangle((x0 - 2, y0 - 2, x1 + 2, y1 + 2), fill=(255, 255, 255))
        draw.text((x, y), text, fill=colour, font=font)

    for (xa, ya), (xb, yb) in lines:
        draw.line((xa * scale, ya * scale, xb * scale, yb * scale), fill=(255, 120, 0), width=line_w)
    for i, box in enumerate(boxes, 1):
        colour = _MARK_COLOURS[(i - 1) % len(_MARK_COLOURS)]
        draw.rectangle((box.x0 * scale, box.y0 * scale, box.x1 * scale, box.y1 * scale), outline=colour, width=line_w)
        label(i, box.x0 * scale + 2, box.y0 * scale + 2, colour)
    for i, (cx, cy, r) in enumerate(circles, 1):
        colour = _MARK_COLOURS[(i - 1) % len(_MARK_COLOURS)]
        draw.ellipse(((cx - r) * scale, (cy - r) * scale, (cx + r) * scale, (cy + r) * scale), outline=colour, width=line_w)
        label(i, cx * scale, cy * scale, colour)
    for i, poly in enumerate(polygons, 1):
        colour = _MARK_COLOURS[(i - 1) % len(_MARK_COLOURS)]
        pts = [(x * scale, y * scale) for x, y in poly]
        draw.line([*pts, pts[0]], fill=colour, width=line_w)
        cx, cy = sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)
        label(i, cx, cy, colour)
    for i, (x, y) in enumerate(points, 1):
        colour = _MARK_COLOURS[(i - 1) % len(_MARK_COLOURS)]
        rad = 4 * line_w
        draw.ellipse((x * scale - rad, y * scale - rad, x * scale + rad, y * scale + rad), outline=colour, width=line_w)
        label(i, x * scale + rad, y * scale + rad, colour)
    if caption:
        draw.rectangle((0, 0, canvas.size[0], font_size + 8), fill=(255, 255, 255))
        draw.text((4, 2), caption, fill=(0, 0, 0), font=font)
    return canvas


def is_line_drawing(image: Image.Image) -> bool:
    """Whether the image is thin outlines on a plain background (drawn shapes, not filled ones)."""
    rgb = as_rgb_array(image)
    ink = stretch_faint_ink(ink_strength(rgb)) > 0.25  # faint strokes (0.5 px, light gray) are outlines too
    inked = int(ink.sum())
    if inked == 0 or inked > 0.35 * ink.size:
        return False
    core = cv2.erode(ink.astype(np.uint8), np.ones((9, 9), np.uint8))
    return int(core.sum()) < 0.15 * inked
