"""Counting by detection: every counted object is catalogued with a number and a box, so nothing counts twice.

Public tools (all take a PIL image and return a ``CountResult``):
- ``count_shapes(image, shape=None, colour=None)``: drawn shapes by kind and colour name (colour/shape segmentation
  with contour hierarchy, see ``detect_shapes``); nested shapes each count once, and an outline drawn round a
  filled shape counts with it.
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

from vision_tools.detection import config
from vision_tools.detection.shapes import Shape, find_shapes, normalise_colour
from vision_tools.image.boxes import Box
from vision_tools.image.drawing import label_font
from vision_tools.image.loading import require_rgb
from vision_tools.image.shape_words import normalise_shape

#: Widest rim, as a share of a shape's short side, that an outline drawn round a filled shape may have.
OUTLINE_RIM = 0.05


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
    #: The largest area (pixels) of a piece no kind fits (a heart, a blob, text): a "biggest shape" may be one.
    largest_other: float = 0.0

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
                "others": dict(self.others), "notes": list(self.notes), "largest_other": round(self.largest_other)}


def check_image(image: Image.Image) -> np.ndarray:
    """``image`` as an RGB uint8 array; ValueError for non-images and images too small or too large to use."""
    return np.asarray(require_rgb(image, config.CONFIG.min_side, "count anything in"), dtype=np.uint8)


def nms(boxes: list[Box], scores: list[float], iou_threshold: float = 0.5) -> list[int]:
    """Indices of the boxes kept by greedy non-maximum suppression, best score first (OpenCV's NMSBoxes)."""
    if not boxes:
        return []
    rects = [[float(b.x0), float(b.y0), float(b.width), float(b.height)] for b in boxes]
    low = min(float(s) for s in scores)
    # NMSBoxes wants non-negative scores; only their order matters here, so shift them.
    keep = cv2.dnn.NMSBoxes(rects, [float(s) - low + 1e-6 for s in scores], 0.0, float(iou_threshold))
    return [int(i) for i in np.asarray(keep).reshape(-1)]


def annotate(rgb: np.ndarray, detections: list[Detection], outlines: list[np.ndarray] | None = None) -> Image.Image:
    """The image with each detection's box (and outline where known) and its number, long side at most
    ``config.CONFIG.annotated_max_side`` (1600 px by default)."""
    from PIL import ImageDraw

    h, w = rgb.shape[:2]
    scale = min(1.0, config.CONFIG.annotated_max_side / max(h, w))
    canvas = Image.fromarray(rgb)
    if scale < 1.0:
        canvas = canvas.resize((max(1, round(w * scale)), max(1, round(h * scale))),
                               Image.Resampling.BILINEAR)
    draw = ImageDraw.Draw(canvas)
    lw = max(2, round(max(canvas.size) / 500))
    size = max(11, min(28, round(max(canvas.size) / 45)))
    font = label_font(size)
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


#: Kinds that are convex when whole, and the solidity (area over its convex hull's) below which a filled one at
#: least ``CONVEX_SIDE`` pixels across is not whole: drawn polygons and circles that large measure 0.95 or more,
#: hearts 0.92. Smaller ones lose more to their pixels' steps (a 30-pixel rectangle measures 0.92), so they are
#: not judged.
_CONVEX_KINDS = frozenset({"circle", "ellipse", "triangle", "square", "rectangle", "quadrilateral", "pentagon",
                           "hexagon", "heptagon", "octagon"})
CONVEX = 0.94
CONVEX_SIDE = 80


def _concave(shape: Shape, found: list[Shape]) -> bool:
    """Whether ``shape``, classified as a convex kind, is a filled blob with a notch that no shape of another colour
    overlapping it explains."""
    box = Box(*shape.bbox)
    if not shape.filled or shape.kind not in _CONVEX_KINDS or float(shape.extra.get("solidity", 1.0)) >= CONVEX \
            or min(box.width, box.height) < CONVEX_SIDE:
        return False
    for other in found:
        if other is shape or other.colour == shape.colour or other.kind in ("other", "line"):
            continue
        near = Box(*other.bbox)
        if near.area < 4 * box.area and min(box.x1, near.x1) > max(box.x0, near.x0) and \
                min(box.y1, near.y1) > max(box.y0, near.y0):
            return False
    return True


def count_shapes(image: Image.Image, shape: str | None = None, colour: str | None = None) -> CountResult:
    """Count drawn shapes of kind ``shape`` (e.g. "triangle"; None = any) and colour name ``colour`` (None = any).

    Shapes that could not be classified (text, blobs, lines) are never counted but are reported in ``others``.
    """
    rgb = check_image(image)
    kind = normalise_shape(shape) if shape else None
    want_colour = normalise_colour(colour) if colour else None
    found = find_shapes(rgb)
    unions, rims = _unions(found), _rims_of_fills(found)
    found = [s for n, s in enumerate(found) if n not in unions and n not in rims]
    framed = _outlines_of_fills(found)
    matched: list[Shape] = []
    others: dict[str, int] = {}
    largest_other = 0.0
    for n, s in enumerate(found):
        if n in framed:
            continue
        if s.kind in ("other", "line"):
            others[f"unclassified {s.kind}"] = others.get(f"unclassified {s.kind}", 0) + 1
            largest_other = max(largest_other, float(cv2.contourArea(s.contour)))
            continue
        if _concave(s, found):
            # A heart's notch: its hull has six corners, yet it is no hexagon. A polygon hidden in part by another
            # shape has a notch too, and is still counted.
            others[f"{s.colour} concave shape"] = others.get(f"{s.colour} concave shape", 0) + 1
            largest_other = max(largest_other, float(cv2.contourArea(s.contour)))
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
        extra = {"filled": s.filled, "nesting_depth": s.depth, "rgb": list(s.rgb),
                 "area": round(float(cv2.contourArea(s.contour))),
                 "solidity": float(s.extra.get("solidity", 1.0))}  # under ~0.95: a notch (a shape partly hidden)
        if "points" in s.extra:
            extra["points"] = int(s.extra["points"])
        if s.kind in ("square", "rectangle", "quadrilateral"):
            # 0 for a square on its side, 45 for one on its corner (a diamond, as people name it).
            angle = float(cv2.minAreaRect(s.contour.astype(np.float32))[2]) % 90.0
            extra["tilt"] = round(min(angle, 90.0 - angle), 1)
        detections.append(Detection(n, s.kind, boxes[i], 1.0, s.colour, extra))
        outlines.append(s.contour)
    notes = []
    if len(keep) < len(matched):
        notes.append(f"{len(matched) - len(keep)} duplicate outline(s) merged")
    if framed or rims:
        notes.append(f"{len(framed) + len(rims)} outline(s) drawn round a filled shape counted with it")
    if unions:
        notes.append(f"{len(unions)} blob(s) of two or more touching shapes counted as those shapes")
    return CountResult(_describe(kind, want_colour), len(detections), detections, "colour/shape segmentation",
                       (rgb.shape[1], rgb.shape[0]), others, notes, annotate(rgb, detections, outlines), largest_other)


def _contains(outer: tuple[float, float, float, float], inner: tuple[float, float, float, float],
              slack: float = 3.0) -> bool:
    return (inner[0] >= outer[0] - slack and inner[1] >= outer[1] - slack and inner[2] <= outer[2] + slack
            and inner[3] <= outer[3] + slack)


def _unions(shapes: list[Shape]) -> set[int]:
    """Indices of shapes whose box holds two or more others side by side: two touching hexagons segmented as
    one blob as well as apart are two hexagons, not three. (Nested outlines hold a chain, never two apart.)"""
    out = set()
    for i, outer in enumerate(shapes):
        # Of the blob's colour, or any when the blob is the dark rim drawn round the two.
        inside = [s.bbox for j, s in enumerate(shapes) if j != i and s.kind == outer.kind
                  and (s.colour == outer.colour or not outer.filled) and _contains(outer.bbox, s.bbox)
                  and _area(s.bbox) < 0.8 * _area(outer.bbox)]
        pairs = [(a, b) for n, a in enumerate(inside) for b in inside[n + 1:] if _apart(a, b)]
        # The blob is just the two together: a frame drawn round two shapes leaves a margin round them.
        rim = max(3.0, OUTLINE_RIM * min(outer.bbox[2] - outer.bbox[0], outer.bbox[3] - outer.bbox[1]))
        if any(_contains(_joined(a, b), outer.bbox, rim) for a, b in pairs):
            out.add(i)
    return out


def _joined(a: tuple[float, float, float, float],
            b: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _area(box: tuple[float, float, float, float]) -> float:
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


def _apart(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    overlap = max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    return overlap <= 0.05 * min(_area(a), _area(b))


def _rims_of_fills(shapes: list[Shape]) -> set[int]:
    """Indices of shapes that only frame a filled shape of the same kind a rim's width inside them (a dark outline
    segmented as a shape of its own, in the fill's colour or not): one shape."""
    out = set()
    for i, ring in enumerate(shapes):
        x0, y0, x1, y1 = ring.bbox
        # Twice the rim of ``_outlines_of_fills``: a star's outline juts out past the fill at each sharp tip.
        rim = max(3.0, 2 * OUTLINE_RIM * min(x1 - x0, y1 - y0))
        for j, fill in enumerate(shapes):
            if j == i or j in out or not fill.filled or fill.kind != ring.kind:
                continue
            fx0, fy0, fx1, fy1 = fill.bbox
            gaps = (fx0 - x0, fy0 - y0, x1 - fx1, y1 - fy1)
            if all(-1.0 <= gap <= rim for gap in gaps) and _area(fill.bbox) < _area(ring.bbox):
                out.add(i)
                break
    return out


def _outlines_of_fills(shapes: list[Shape]) -> set[int]:
    """Indices of hollow outlines drawn round a filled shape of the same kind in another colour (a purple disc with
    a black rim): the rim and the fill are one shape. Nested outlines (squares in squares) are all hollow and stay."""
    framed = set()
    for i, ring in enumerate(shapes):
        if ring.filled:
            continue
        x0, y0, x1, y1 = ring.bbox
        rim = max(3.0, OUTLINE_RIM * min(x1 - x0, y1 - y0))
        for fill in shapes:
            if not fill.filled or fill.kind != ring.kind or fill.colour == ring.colour:
                continue
            fx0, fy0, fx1, fy1 = fill.bbox
            gaps = (fx0 - x0, fy0 - y0, x1 - fx1, y1 - fy1)
            if all(-1.0 <= gap <= rim for gap in gaps):
                framed.add(i)
                break
    return framed


def count_round_objects(
    image: Image.Image, min_radius: int | None = None, max_radius: int | None = None
) -> CountResult:
    """Count round things (coins, balls, cells, rings, drawn circles) with OpenCV's Hough circle transform.

    Radii are in original pixels; by default anything from 1% to 50% of the short side. Circles whose boxes
    overlap by more than half are one object (NMS), so a ring's inner and outer edges count once.
    """
    rgb = check_image(image)
    h0, w0 = rgb.shape[:2]
    scale = min(1.0, 1024 / max(h0, w0))
    gray = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    if scale < 1.0:
        gray = cv2.resize(gray, (round(w0 * scale), round(h0 * scale)), interpolation=cv2.INTER_AREA)
    short = min(gray.shape)
    r_min = max(3, round((min_radius if min_radius is not None else 0.01 * min(h0, w0)) * scale))
    r_max = max(r_min + 1, round((max_radius if max_radius is not None else 0.5 * min(h0, w0)) * scale))
    if r_min >= short:
        raise ValueError(f"min_radius {min_radius} is larger than the image ({w0}x{h0})")
    blurred = cv2.GaussianBlur(gray, (5, 5), 1.2)
    # The "ALT" variant scores how complete each circle is, so it rarely invents circles in texture or text.
    found = cv2.HoughCircles(blurred, cv2.HOUGH_GRADIENT_ALT, dp=1.5, minDist=max(2.0, r_min * 1.5),
                             param1=300, param2=0.8, minRadius=r_min, maxRadius=r_max)
    circles = [] if found is None else [tuple(float(v) / scale for v in c[:3]) for c in found.reshape(-1, 3)]
    boxes = [Box(x - r, y - r, x + r, y + r).clamp(w0, h0) for x, y, r in circles]
    keep = nms(boxes, [r for _, _, r in circles], 0.5)
    # A circle centred inside a bigger one is a detail of that object (a coin's rim, a ring's inner edge).
    keep = [j for j in keep if not any(
        circles[i][2] > circles[j][2]
        and np.hypot(circles[i][0] - circles[j][0], circles[i][1] - circles[j][1]) < 0.8 * circles[i][2]
        for i in keep
    )]
    # Reading order for stable numbering.
    keep.sort(key=lambda i: (round(circles[i][1] / max(circles[i][2], 1.0)), circles[i][0]))
    detections = [
        Detection(n, "round object", boxes[i], 1.0, None,
                  {"center": [round(circles[i][0], 1), round(circles[i][1], 1)], "radius": round(circles[i][2], 1)})
        for n, i in enumerate(keep, 1)
    ]
    notes = [f"{len(circles) - len(keep)} overlapping or nested circle(s) merged"] if len(keep) < len(circles) else []
    return CountResult("round objects", len(detections), detections, "Hough circles", (w0, h0), {}, notes,
                       annotate(rgb, detections))


def detect_objects(
    image: Image.Image, label: str, backend: str = "auto", weights: str | None = None, min_score: float = 0.25
) -> CountResult:
    """Detect and count ``label`` objects: faces (Haar cascade), people (HOG), or any class of a YOLO model.

    See ``vision_tools.detection.objects.detect_objects``; re-exported here so counting has one entry module.
    """
    from vision_tools.detection.objects import detect_objects as _detect

    return _detect(image, label, backend=backend, weights=weights, min_score=min_score)
