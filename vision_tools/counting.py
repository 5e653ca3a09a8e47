"""Counting by detection: every counted object is catalogued with a number and a box, so nothing counts twice.

Public tools (all take a PIL image and return a ``CountResult``):
- ``count_shapes(image, shape=None, colour=None)``: drawn shapes by kind and colour name (colour/shape segmentation
  with contour hierarchy, see ``detect_shapes``); nested shapes each count once.
- ``count_round_objects(image)``: round things (coins, balls, cells, rings) by Hough circles.
- ``detect_objects(image, label, backend=...)``: faces (Haar cascade), people (HOG), or any label a user-configured
  YOLO model knows (see ``detect_objects``).
Overlapping detections are merged by non-maximum suppression (``nms``) before they are numbered.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from PIL import Image

from vision_tools.boxes import Box
from vision_tools.detect_shapes import find_shapes, normalise_colour, normalise_shape

#: Smallest side an image may have for detection to mean anything.
MIN_SIDE = 8
#: Largest image accepted (pixels); bigger ones must be downscaled or tiled first.
MAX_PIXELS = 40_000_000
ANNOTATED_MAX_SIDE = 1600
_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"


@dataclass
class Detection:
    """One catalogued object: its number on the annotated image, what it is, where, and how sure."""

    index: int
    label: str
    box: Box
    score: float = 1.0
    colour: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"index": self.index, "label": self.label, "box": self.box.as_list(),
                               "score": round(float(self.score), 3)}
        if self.colour is not None:
            out["colour"] = self.colour
        out.update({k: v for k, v in self.extra.items() if isinstance(v, (int, float, str, bool, list))})
        return out


@dataclass
class CountResult:
    """How many objects matched ``target`` and the catalogue of each one (numbered as on ``annotated``)."""

    target: str
    count: int
    detections: list[Detection]
    method: str
    image_size: tuple[int, int]
    others: dict[str, int] = field(default_factory=dict)  # what else was seen, by label, for context
    notes: list[str] = field(default_factory=list)
    annotated: Image.Image | None = field(default=None, repr=False)

    @property
    def answer(self) -> str:
        return str(self.count)

    def summary(self) -> str:
        text = f"{self.count} {self.target} found ({self.method})"
        if self.detections:
            listed = "; ".join(
                f"#{d.index} {(d.colour + ' ') if d.colour else ''}{d.label} at {d.box.as_list()}"
                for d in self.detections[:15]
            )
            text += f": {listed}" + ("; ..." if len(self.detections) > 15 else "")
        if self.others:
            text += "; also seen: " + ", ".join(f"{n} {k}" for k, n in sorted(self.others.items()))
        if self.notes:
            text += " [" + "; ".join(self.notes) + "]"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {"target": self.target, "count": self.count, "method": self.method,
                "image_size": list(self.image_size), "detections": [d.to_dict() for d in self.detections],
                "others": dict(self.others), "notes": list(self.notes)}


def check_image(image: Image.Image) -> np.ndarray:
    """``image`` as an RGB uint8 array; ValueError for non-images and images too small or too large to use."""
    if not isinstance(image, Image.Image):
        raise ValueError(f"expected a PIL image, got {type(image).__name__}")
    w, h = image.size
    if min(w, h) < MIN_SIDE:
        raise ValueError(f"image too small to count anything in: {w}x{h} pixels (need {MIN_SIDE} per side)")
    if w * h > MAX_PIXELS:
        raise ValueError(f"image too large: {w}x{h} exceeds {MAX_PIXELS / 1e6:.0f} MP; downscale or tile it first")
    if image.mode != "RGB":
        image = image.convert("RGBA").convert("RGB") if "A" in image.mode or image.mode == "P" else image.convert("RGB")
    return np.asarray(image, dtype=np.uint8)


def nms(boxes: list[Box], scores: list[float], iou_threshold: float = 0.5) -> list[int]:
    """Indices of the boxes kept by greedy non-maximum suppression, best score first (OpenCV's NMSBoxes)."""
    if not boxes:
        return []
    rects = [[float(b.x0), float(b.y0), float(b.width), float(b.height)] for b in boxes]
    keep = cv2.dnn.NMSBoxes(rects, [float(s) for s in scores], -1e9, float(iou_threshold))
    return [int(i) for i in np.asarray(keep).reshape(-1)]


def annotate(rgb: np.ndarray, detections: list[Detection], outlines: list[np.ndarray] | None = None) -> Image.Image:
    """The image with each detection's box (and outline where known) and its number, long side <= 1600 px."""
    from PIL import ImageDraw, ImageFont

    h, w = rgb.shape[:2]
    scale = min(1.0, ANNOTATED_MAX_SIDE / max(h, w))
    canvas = Image.fromarray(rgb)
    if scale < 1.0:
        canvas = canvas.resize((max(1, round(w * scale)), max(1, round(h * scale))), Image.BILINEAR)
    draw = ImageDraw.Draw(canvas)
    lw = max(2, round(max(canvas.size) / 500))
    size = max(11, min(28, round(max(canvas.size) / 45)))
    try:
        font: ImageFont.FreeTypeFont | ImageFont.ImageFont = ImageFont.truetype(_FONT, size)
    except OSError:
        font = ImageFont.load_default()
    marks = ((230, 0, 120), (0, 140, 60), (255, 110, 0), (20, 90, 230), (140, 0, 200), (0, 150, 160))
    for i, det in enumerate(detections):
        colour = marks[i % len(marks)]
        b = det.box
        draw.rectangle((b.x0 * scale, b.y0 * scale, b.x1 * scale, b.y1 * scale), outline=colour, width=lw)
        if outlines is not None and i < len(outlines) and len(outlines[i]) > 2:
            pts = [(float(x) * scale, float(y) * scale) for x, y in outlines[i][:: max(1, len(outlines[i]) // 200)]]
            draw.line([*pts, pts[0]], fill=colour, width=max(1, lw - 1))
        text = str(det.index)
        x, y = b.x0 * scale + lw, b.y0 * scale + lw
        tb = draw.textbbox((x, y), text, font=font)
        draw.rectangle((tb[0] - 2, tb[1] - 1, tb[2] + 2, tb[3] + 1), fill=(255, 255, 255), outline=colour)
        draw.text((x, y), text, fill=colour, font=font)
    return canvas


def _describe(shape: str | None, colour: str | None, plural: bool = True) -> str:
    noun = (shape + ("s" if plural else "")) if shape else "shapes"
    return f"{colour} {noun}" if colour else noun


def count_shapes(image: Image.Image, shape: str | None = None, colour: str | None = None) -> CountResult:
    """Count drawn shapes of kind ``shape`` (e.g. "triangle"; None = any) and colour name ``colour`` (None = any).

    Shapes that could not be classified (text, blobs, lines) are never counted but are reported in ``others``.
    """
    rgb = check_image(image)
    kind = normalise_shape(shape) if shape else None
    want_colour = normalise_colour(colour) if colour else None
    found = find_shapes(rgb)
    matched, others = [], {}
    for s in found:
        if s.kind in ("other", "line"):
            others[f"unclassified {s.kind}"] = others.get(f"unclassified {s.kind}", 0) + 1
            continue
        if (kind is None or s.kind == kind) and (want_colour is None or s.colour == want_colour):
            matched.append(s)
        else:
            key = f"{s.colour} {s.kind}"
            others[key] = others.get(key, 0) + 1
    # Catalogue in reading order (top-to-bottom, left-to-right) so numbers are easy to follow.
    matched.sort(key=lambda s: (round(s.bbox[1] / 20), s.bbox[0]))
    boxes = [Box(*s.bbox) for s in matched]
    # A shape seen twice (e.g. an outline split into two colour clusters) has near-identical boxes: keep one.
    keep = sorted(nms(boxes, [float(cv2.contourArea(s.contour)) for s in matched], 0.9))
    detections = []
    outlines = []
    for n, i in enumerate(keep, 1):
        s = matched[i]
        extra = {"filled": s.filled, "nesting_depth": s.depth, "rgb": list(s.rgb)}
        if "points" in s.extra:
            extra["points"] = int(s.extra["points"])
        detections.append(Detection(n, s.kind, boxes[i], 1.0, s.colour, extra))
        outlines.append(s.contour)
    notes = []
    if len(keep) < len(matched):
        notes.append(f"{len(matched) - len(keep)} duplicate outline(s) merged")
    return CountResult(_describe(kind, want_colour), len(detections), detections, "colour/shape segmentation",
                       (rgb.shape[1], rgb.shape[0]), others, notes, annotate(rgb, detections, outlines))
