"""Geometry primitives of a drawn figure, as structured data an expert can reason on.

``geometry_primitives(image)`` returns the straight lines (LSD segments merged: both edges of a thick stroke and
the pieces of a broken one become one line), the circles (Hough), the angles where two lines meet (with the
vertex), and single capital-letter point labels read by OCR and attached to the nearest vertex. OCR is optional:
without ``vision_tools.text.ocr`` (or with ``read_labels=False``) labels are simply left out and a note says so.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from PIL import Image

from vision_tools.detection.counting import annotate as _annotate_boxes
from vision_tools.detection.counting import check_image, count_round_objects
from vision_tools.geometry import config

_LABEL_RE = re.compile(r"^[A-Z]['′]?$")
_PointLabel = tuple[str, float, float, tuple[float, float, float, float]]  # text, centre x, y, box


@dataclass(frozen=True)
class Segment:
    """A straight line segment in original-image pixels."""

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def length(self) -> float:
        return math.hypot(self.x1 - self.x0, self.y1 - self.y0)

    @property
    def angle(self) -> float:
        """Direction in degrees, 0-180 (0 = horizontal, 90 = vertical; image y points down)."""
        return math.degrees(math.atan2(-(self.y1 - self.y0), self.x1 - self.x0)) % 180.0

    def to_list(self) -> list[int]:
        return [round(self.x0), round(self.y0), round(self.x1), round(self.y1)]


@dataclass
class Angle:
    """Two lines meeting at ``vertex``; ``degrees`` is the angle between them measured through the segments."""

    line_a: int
    line_b: int
    vertex: tuple[float, float]
    degrees: float
    label: str | None = None  # the point label at the vertex, when one was read


@dataclass
class GeometryResult:
    """Lines, circles, angles and point labels found in a figure (all in original-image pixels)."""

    lines: list[Segment]
    circles: list[tuple[float, float, float]]
    angles: list[Angle]
    labels: list[dict[str, Any]]  # {"text", "x", "y", "vertex": [x, y] | None}
    image_size: tuple[int, int]
    notes: list[str] = field(default_factory=list)
    annotated: Image.Image | None = field(default=None, repr=False)

    def summary(self) -> str:
        parts = [f"{len(self.lines)} line(s)", f"{len(self.circles)} circle(s)", f"{len(self.angles)} angle(s)"]
        text = "Geometry: " + ", ".join(parts)
        if self.labels:
            text += ", point labels " + " ".join(lab["text"] for lab in self.labels)
        named = [f"angle at {a.label or f'({a.vertex[0]:.0f},{a.vertex[1]:.0f})'} = {a.degrees:.1f} deg"
                 for a in self.angles[:8]]
        if named:
            text += "; " + "; ".join(named)
        if self.notes:
            text += " [" + "; ".join(self.notes) + "]"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "image_size": list(self.image_size),
            "lines": [{"index": i + 1, "points": s.to_list(), "length": round(s.length, 1),
                       "angle": round(s.angle, 1) % 180.0} for i, s in enumerate(self.lines)],
            "circles": [{"cx": round(x, 1), "cy": round(y, 1), "r": round(r, 1)} for x, y, r in self.circles],
            "angles": [{"lines": [a.line_a + 1, a.line_b + 1], "vertex": [round(a.vertex[0], 1), round(a.vertex[1], 1)],
                        "degrees": round(a.degrees, 1), "label": a.label} for a in self.angles],
            "labels": list(self.labels),
            "notes": list(self.notes),
        }


def _merge(segments: list[np.ndarray], angle_tol: float, dist_tol: float, gap_tol: float) -> list[np.ndarray]:
    """Greedy merge of segments that are parallel, close and overlapping or nearly touching along their line."""
    segs = sorted(segments, key=lambda s: -math.hypot(s[2] - s[0], s[3] - s[1]))
    merged: list[np.ndarray] = []
    for s in segs:
        p, q = s[:2], s[2:]
        for i, m in enumerate(merged):
            a, b = m[:2], m[2:]
            d = b - a
            length = float(np.linalg.norm(d))
            if length < 1e-6:
                continue
            u = d / length
            n = np.array([-u[1], u[0]])
            ds = q - p
            cos = abs(float(np.dot(ds, u))) / max(float(np.linalg.norm(ds)), 1e-6)
            if cos < math.cos(math.radians(angle_tol)):
                continue
            if max(abs(float(np.dot(p - a, n))), abs(float(np.dot(q - a, n)))) > dist_tol:
                continue
            tp, tq = float(np.dot(p - a, u)), float(np.dot(q - a, u))
            lo, hi = min(tp, tq), max(tp, tq)
            if lo > length + gap_tol or hi < -gap_tol:
                continue
            t0, t1 = min(0.0, lo), max(length, hi)
            merged[i] = np.concatenate([a + t0 * u, a + t1 * u])
            break
        else:
            merged.append(s.astype(np.float64))
    return merged


def _meet(a: Segment, b: Segment, tol: float) -> tuple[float, float] | None:
    """Where the lines of ``a`` and ``b`` cross, if that point lies on (or within ``tol`` of) both segments."""
    p, r = np.array([a.x0, a.y0]), np.array([a.x1 - a.x0, a.y1 - a.y0])
    q, s = np.array([b.x0, b.y0]), np.array([b.x1 - b.x0, b.y1 - b.y0])
    den = r[0] * s[1] - r[1] * s[0]
    if abs(den) < 1e-9:
        return None
    t = ((q - p)[0] * s[1] - (q - p)[1] * s[0]) / den
    u = ((q - p)[0] * r[1] - (q - p)[1] * r[0]) / den
    la, lb = max(a.length, 1e-6), max(b.length, 1e-6)
    if -tol / la <= t <= 1 + tol / la and -tol / lb <= u <= 1 + tol / lb:
        x = p + t * r
        return float(x[0]), float(x[1])
    return None


def _angle_at(a: Segment, b: Segment, vertex: tuple[float, float]) -> float:
    """Angle between the two rays from ``vertex`` along each segment (towards its far end)."""
    def ray(s: Segment) -> np.ndarray:
        ends = [np.array([s.x0, s.y0]), np.array([s.x1, s.y1])]
        far = max(ends, key=lambda e: float(np.hypot(*(e - vertex))))
        return far - np.array(vertex)

    ra, rb = ray(a), ray(b)
    cos = float(np.dot(ra, rb) / max(np.linalg.norm(ra) * np.linalg.norm(rb), 1e-9))
    return math.degrees(math.acos(max(-1.0, min(1.0, cos))))


def _stroke_width(gray: np.ndarray) -> float:
    """Thickness of the thicker strokes: twice the 90th-percentile distance-to-edge along the ink ridges."""
    border = np.concatenate([gray[0], gray[-1], gray[:, 0], gray[:, -1]])
    ink = (np.abs(gray.astype(np.int16) - int(np.median(border))) > 60).astype(np.uint8)
    if not ink.any():
        return 0.0
    dist = cv2.distanceTransform(ink, cv2.DIST_L2, 3)
    ridge = (dist >= cv2.dilate(dist, np.ones((3, 3), np.uint8))) & (dist > 0)
    return float(2.0 * np.percentile(dist[ridge], 90))


def _on_circle(seg: np.ndarray, circles: list[tuple[float, float, float]], tol: float) -> bool:
    for cx, cy, r in circles:
        pts = [seg[:2], seg[2:], (seg[:2] + seg[2:]) / 2]
        if all(abs(math.hypot(p[0] - cx, p[1] - cy) - r) < tol for p in pts):
            return True
    return False


def _read_labels(image: Image.Image) -> tuple[list[_PointLabel], str | None]:
    try:
        from vision_tools.text.ocr import read_text
    except ImportError:
        return [], "no OCR available: point labels not read"
    try:
        result = read_text(image, annotate=False)
    except Exception as exc:  # OCR back ends raise their own errors; the figure is still useful without labels
        return [], f"OCR failed ({type(exc).__name__}): point labels not read"
    out = []
    for line in result.lines:
        for token in line.text.split():
            if _LABEL_RE.match(token):
                cx, cy = line.box.center
                out.append((token, cx, cy, (line.box.x0, line.box.y0, line.box.x1, line.box.y1)))
    return out, None


def geometry_primitives(image: Image.Image, read_labels: bool = True, min_length: float | None = None) -> GeometryResult:
    """Lines, circles, angles and point labels of a geometry figure; ``min_length`` in original pixels
    (default 4% of the short side) drops tick marks and letter strokes."""
    rgb = check_image(image)
    h0, w0 = rgb.shape[:2]
    scale = min(1.0, config.CONFIG.work_side / max(h0, w0))
    gray = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    if scale < 1.0:
        gray = cv2.resize(gray, (round(w0 * scale), round(h0 * scale)), interpolation=cv2.INTER_AREA)
    min_len = (min_length if min_length is not None else 0.04 * min(h0, w0)) * scale
    notes: list[str] = []
    found: list[_PointLabel] = []
    if read_labels:
        found, note = _read_labels(image)
        if note:
            notes.append(note)
    # Letter strokes are not lines and round letters are not circles: ignore whatever lies in a label's box.
    text_boxes = [tuple(v * scale for v in box) for *_, box in found]

    def in_text(x: float, y: float) -> bool:
        return any(b[0] - 2 <= x <= b[2] + 2 and b[1] - 2 <= y <= b[3] + 2 for b in text_boxes)

    raw = cv2.createLineSegmentDetector(cv2.LSD_REFINE_STD).detect(gray)[0]
    segs = [] if raw is None else [s.reshape(4).astype(np.float64) for s in raw]
    segs = [s for s in segs if not in_text((s[0] + s[2]) / 2, (s[1] + s[3]) / 2)]
    round_things = count_round_objects(image, min_radius=max(4, round(0.03 * min(h0, w0)))).detections
    circles = [(float(d.extra["center"][0]), float(d.extra["center"][1]), float(d.extra["radius"]))
               for d in round_things if not in_text(d.extra["center"][0] * scale, d.extra["center"][1] * scale)]
    circles_w = [(x * scale, y * scale, r * scale) for x, y, r in circles]
    # Short LSD pieces along a circle are the circle, not lines.
    segs = [s for s in segs if not _on_circle(s, circles_w, max(3.0, 0.03 * min(gray.shape)))]
    # Both edges of a stroke are ~stroke-width apart; pieces of one line are collinear with small gaps.
    near = max(5.0, 0.01 * max(gray.shape), 1.5 * _stroke_width(gray))
    merged = _merge(segs, angle_tol=3.0, dist_tol=near, gap_tol=max(4.0, 2 * min_len / 3))
    merged = _merge(merged, angle_tol=2.0, dist_tol=near, gap_tol=max(4.0, min_len))
    lines = [Segment(*(float(v) / scale for v in m)) for m in merged
             if math.hypot(m[2] - m[0], m[3] - m[1]) >= min_len]
    lines.sort(key=lambda s: -s.length)
    tol = max(4.0, 0.015 * max(h0, w0))
    angles = []
    for i in range(len(lines)):
        for j in range(i + 1, len(lines)):
            diff = abs(lines[i].angle - lines[j].angle)
            if min(diff, 180 - diff) < 5.0:
                continue
            vertex = _meet(lines[i], lines[j], tol)
            if vertex is not None:
                angles.append(Angle(i, j, vertex, _angle_at(lines[i], lines[j], vertex)))
    labels: list[dict[str, Any]] = []
    if found:
        vertices = [a.vertex for a in angles] + [(s.x0, s.y0) for s in lines] + [(s.x1, s.y1) for s in lines]
        reach = 0.08 * max(h0, w0)
        for text, x, y, _ in found:
            near = min(vertices, key=lambda v: math.hypot(v[0] - x, v[1] - y), default=None)
            attached = near if near is not None and math.hypot(near[0] - x, near[1] - y) <= reach else None
            labels.append({"text": text, "x": round(x, 1), "y": round(y, 1),
                           "vertex": [round(attached[0], 1), round(attached[1], 1)] if attached else None})
            for a in angles:
                if attached and math.hypot(a.vertex[0] - attached[0], a.vertex[1] - attached[1]) < tol:
                    a.label = text
    return GeometryResult(lines, circles, angles, labels, (w0, h0), notes, _draw(rgb, lines, circles, angles))


def _draw(rgb: np.ndarray, lines: list[Segment], circles: list[tuple[float, float, float]],
          angles: list[Angle]) -> Image.Image:
    from PIL import ImageDraw

    canvas = _annotate_boxes(rgb, [])
    s = canvas.size[0] / rgb.shape[1]
    draw = ImageDraw.Draw(canvas)
    width = max(2, round(max(canvas.size) / 500))
    for i, seg in enumerate(lines, 1):
        draw.line((seg.x0 * s, seg.y0 * s, seg.x1 * s, seg.y1 * s), fill=(255, 110, 0), width=width)
        draw.text(((seg.x0 + seg.x1) / 2 * s + 3, (seg.y0 + seg.y1) / 2 * s + 3), f"L{i}", fill=(200, 0, 90))
    for x, y, r in circles:
        draw.ellipse(((x - r) * s, (y - r) * s, (x + r) * s, (y + r) * s), outline=(0, 140, 220), width=width)
    for a in angles:
        x, y = a.vertex
        draw.ellipse((x * s - 4, y * s - 4, x * s + 4, y * s + 4), outline=(0, 150, 60), width=2)
        draw.text((x * s + 6, y * s - 14), f"{a.degrees:.0f}°", fill=(0, 120, 40))
    return canvas
