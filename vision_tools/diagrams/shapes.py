"""Shape primitives on drawn diagrams: do two circles touch, how many squares are nested, how many outlined
circles or regular polygons overlap.

Counting overlapping outlines is done by proposing candidate shapes generously (Hough circles; regular polygons
spanned by pairs of detected corners) and keeping only those whose whole outline is covered by ink, best first,
with duplicates suppressed. A shape is therefore counted only when its complete outline is present in the image.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import cv2
import numpy as np
from PIL import Image

from vision_tools.diagrams import config
from vision_tools.diagrams.common import (
    annotate,
    as_rgb_array,
    background_colour,
    disk,
    fit_circle,
    ink_strength,
    stretch_faint_ink,
    stroke_width,
)
from vision_tools.diagrams.results import Circle, CountResult
from vision_tools.image.boxes import Box

#: Regular polygons understood by ``count_overlapping_shapes`` (name -> number of sides).
POLYGON_SIDES = {"triangle": 3, "square": 4, "pentagon": 5, "hexagon": 6, "heptagon": 7, "octagon": 8}


def _working_view(
    rgb: np.ndarray, side: int | None = None, max_up: float = 1.0, threshold: float = 0.2
) -> tuple[np.ndarray, float, float, float] | None:
    """Ink strength cropped to the drawing, resized towards ``side`` (the config's ``work_side`` by default;
    enlarged at most ``max_up`` times), with its scale and crop offset."""
    side = config.CONFIG.work_side if side is None else side
    strength = stretch_faint_ink(np.clip(ink_strength(rgb), 0.0, 1.0).astype(np.float32))
    ys, xs = np.nonzero(strength > threshold)
    if len(xs) == 0:
        return None
    pad = 24
    x0, y0 = max(0, int(xs.min()) - pad), max(0, int(ys.min()) - pad)
    x1, y1 = min(rgb.shape[1], int(xs.max()) + pad + 1), min(rgb.shape[0], int(ys.max()) + pad + 1)
    crop = strength[y0:y1, x0:x1]
    # Small drawings may be enlarged so that corners on thin strokes are located to a fraction of a pixel.
    scale = min(max_up, side / max(crop.shape))
    if scale < 1.0:
        size = (max(1, round(crop.shape[1] * scale)), max(1, round(crop.shape[0] * scale)))
        # Area averaging thins faint strokes; renormalise so a full stroke keeps its strength.
        crop = cv2.resize(crop, size, interpolation=cv2.INTER_AREA)
        crop = np.clip(crop / max(float(crop.max()), 1e-6), 0.0, 1.0)
    elif scale > 1.0:
        size = (max(1, round(crop.shape[1] * scale)), max(1, round(crop.shape[0] * scale)))
        crop = np.clip(cv2.resize(crop, size, interpolation=cv2.INTER_LINEAR), 0.0, 1.0)
    return crop, scale, float(x0), float(y0)


def _bands(strength: np.ndarray, slack: int, threshold: float = 0.2) -> tuple[np.ndarray, np.ndarray, float]:
    """Ink mask, ink dilated by half a stroke plus ``slack`` pixels (for outline checks), and the stroke width."""
    ink = strength > threshold
    thickness = max(1.0, stroke_width(ink))
    band = cv2.dilate(ink.astype(np.uint8), disk(max(1, round(thickness / 2) + slack))).astype(bool)
    return ink, band, thickness


def _coverage(band: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Fraction of the sample points (rows = candidates) that fall on ``band``; points off the image count as 0."""
    height, width = band.shape
    inside = (xs >= 0) & (xs < width) & (ys >= 0) & (ys < height)
    xi = np.clip(np.round(xs).astype(np.int64), 0, width - 1)
    yi = np.clip(np.round(ys).astype(np.int64), 0, height - 1)
    return (band[yi, xi] & inside).mean(axis=-1)


def _suppress(centres: np.ndarray, sizes: np.ndarray, scores: np.ndarray) -> list[int]:
    """Greedy non-maximum suppression: keep the best-scoring candidate among those with nearly the same centre."""
    kept: list[int] = []
    for i in np.argsort(-scores, kind="stable"):
        duplicate = any(
            math.dist(centres[i], centres[k]) < 0.35 * max(sizes[i], sizes[k])
            and abs(sizes[i] - sizes[k]) < 0.35 * max(sizes[i], sizes[k])
            for k in kept
        )
        if not duplicate:
            kept.append(int(i))
    return kept


def _explain_away(
    outlines: list[np.ndarray], scores: np.ndarray, sizes: np.ndarray, canvas_shape: tuple[int, int],
    draw: Callable[[int, np.ndarray], None],
) -> tuple[list[int], int]:
    """Greedy selection: best candidates first; one whose outline is mostly drawn by shapes already kept is a
    duplicate or an illusion made of their pieces, and is dropped. ``draw(k, canvas)`` paints candidate k's
    outline, widened by the tolerance, onto a uint8 canvas. Returns the kept candidates and how many dropped ones
    are doubtful (``_doubtful``)."""
    drawn = np.zeros(canvas_shape, dtype=np.uint8)
    height, width = canvas_shape

    def explained(k: int, canvas: np.ndarray) -> float:
        pts = outlines[k]
        xi = np.clip(np.round(pts[:, 0]).astype(np.int64), 0, width - 1)
        yi = np.clip(np.round(pts[:, 1]).astype(np.int64), 0, height - 1)
        return float((canvas[yi, xi] > 0).mean())

    kept: list[int] = []
    dropped: dict[int, float] = {}  # candidate -> share of its outline drawn by the shapes kept
    order = sorted(range(len(outlines)), key=lambda k: (-round(float(scores[k]), 2), -float(sizes[k])))
    for k in order:
        share = explained(k, drawn) if kept else 0.0
        if share > 0.5:
            dropped[k] = share
            continue
        kept.append(k)
        draw(k, drawn)
    # Second pass, smallest first: a small shape sitting in a thick junction fits the ink perfectly and is picked
    # early, but its outline is drawn entirely by the larger shapes kept after it.
    for k in sorted(kept, key=lambda k: float(sizes[k])):
        others = np.zeros(canvas_shape, dtype=np.uint8)
        for o in kept:
            if o != k:
                draw(o, others)
        share = explained(k, others)
        if len(kept) > 1 and share > 0.5:
            kept.remove(k)
            dropped[k] = share
    return kept, _doubtful(dropped, kept, outlines, sizes)


def _doubtful(dropped: dict[int, float], kept: list[int], outlines: list[np.ndarray], sizes: np.ndarray) -> int:
    """How many dropped candidates might still be real shapes: complete outlines on the ink, not a copy of a
    kept shape (another centre), and only partly drawn by the kept ones (a shape hidden in a dense cluster looks
    like that; an illusion made of other shapes' pieces is drawn by them almost entirely)."""
    centres = {k: outlines[k].mean(axis=0) for k in [*dropped, *kept]}
    seen: list[int] = []
    for k, share in sorted(dropped.items(), key=lambda item: item[1]):
        if share >= config.CONFIG.doubt_share:
            continue
        near = [o for o in [*kept, *seen] if math.dist(centres[k], centres[o]) < 0.35 * max(sizes[k], sizes[o])]
        if not near:
            seen.append(k)
    return len(seen)


def _count_circles(rgb: np.ndarray) -> tuple[list[Circle], int]:
    """The circles whose whole outline is on the ink, and how many doubtful candidates were dropped."""
    view = _working_view(rgb, side=config.CONFIG.circle_work_side)
    if view is None:
        return [], 0
    strength, scale, ox, oy = view
    # Circles are refitted to the ink below, so their outlines must lie on the stroke itself.
    ink, band, thickness = _bands(strength, slack=0)
    extent = max(ink.shape)
    gray = cv2.GaussianBlur((255 - 255 * strength).astype(np.uint8), (5, 5), 1.0)
    min_r = max(4, int(2 * thickness))
    # The "ALT" gradient variant proposes fewer, better-centred circles than the classic one, at half the cost;
    # its modest perfectness threshold (0.5) still lets circles with parts hidden by crossings through.
    found = cv2.HoughCircles(
        gray, cv2.HOUGH_GRADIENT_ALT, dp=1.5, minDist=max(3, min_r // 2), param1=300, param2=0.5,
        minRadius=min_r, maxRadius=max(min_r + 1, int(extent / 2)),
    )
    if found is None:
        return [], 0
    cand = found[0][:, :3].astype(np.float64)
    angles = np.linspace(0, 2 * np.pi, 180, endpoint=False)
    # Cheap screen before refitting: a loose band and a few radii; Hough proposes thousands of circles.
    loose = cv2.dilate(ink.astype(np.uint8), disk(round(thickness / 2) + 3)).astype(bool)
    few = angles[::3]
    radii = cand[:, 2:3] + np.array([-2.0, 0.0, 2.0])[None, :]
    screen = _coverage(
        loose,
        cand[:, 0, None, None] + radii[:, :, None] * np.cos(few)[None, None, :],
        cand[:, 1, None, None] + radii[:, :, None] * np.sin(few)[None, None, :],
    ).max(axis=1)
    cand = cand[screen >= 0.85]
    # Near-identical proposals refit to the same circle; keep one per 2-pixel cell of (x, y, r).
    _, first = np.unique(np.round(cand / 2.0), axis=0, return_index=True)
    cand = cand[np.sort(first)]
    ys, xs = np.nonzero(ink)
    refined: list[tuple[float, float, float]] = []
    for cx, cy, r in cand:
        # Refit the circle to the ink lying along the Hough proposal: Hough centres and radii are coarse.
        near = np.abs(np.hypot(xs - cx, ys - cy) - r) <= thickness + 2
        if near.sum() < 12:
            continue
        try:
            refined.append(fit_circle(np.column_stack([xs[near], ys[near]])))
        except (ValueError, np.linalg.LinAlgError):
            continue
    if not refined:
        return [], 0
    circ = np.asarray(refined)
    rings_x = circ[:, 0:1] + circ[:, 2:3] * np.cos(angles)[None, :]
    rings_y = circ[:, 1:2] + circ[:, 2:3] * np.sin(angles)[None, :]
    score = _coverage(band, rings_x, rings_y)
    good = np.nonzero((score >= config.CONFIG.min_coverage) & (circ[:, 2] >= min_r))[0]
    outlines = [np.column_stack([rings_x[g], rings_y[g]]) for g in good]

    tol = round(thickness / 2 + 1.5)

    def draw(k: int, canvas: np.ndarray) -> None:
        cx, cy, r = circ[good[k]]
        cv2.circle(canvas, (round(cx), round(cy)), round(r), 255, thickness=2 * tol + 1)

    kept, doubts = _explain_away(outlines, score[good], circ[good, 2], ink.shape, draw)
    return [Circle(circ[good[k], 0] / scale + ox, circ[good[k], 1] / scale + oy, circ[good[k], 2] / scale)
            for k in kept], doubts


def _regular_polygons(p: np.ndarray, q: np.ndarray, sides: int, span: int = 1) -> np.ndarray:
    """Both regular ``sides``-gons having p and q as vertices ``span`` steps apart (1 = an edge, 2 = a short
    diagonal, ...): array 2C x sides x 2 of vertices, starting at p."""
    mid = (p + q) / 2
    chord = q - p
    length = np.linalg.norm(chord, axis=1, keepdims=True)
    normal = np.column_stack([-chord[:, 1], chord[:, 0]]) / length
    half_angle = math.pi * span / sides
    radius = length[:, 0] / (2 * math.sin(half_angle))
    offset = radius * math.cos(half_angle)
    step = 2 * math.pi / sides
    polys = []
    for sign in (1.0, -1.0):
        centre = mid + sign * normal * offset[:, None]
        start = np.arctan2(p[:, 1] - centre[:, 1], p[:, 0] - centre[:, 0])
        # Walking from p towards q fixes the direction of rotation for this side of the chord.
        cross = (p[:, 0] - centre[:, 0]) * (q[:, 1] - centre[:, 1]) - (p[:, 1] - centre[:, 1]) * (q[:, 0] - centre[:, 0])
        direction = np.where(cross >= 0, 1.0, -1.0)
        ang = start[:, None] + direction[:, None] * step * np.arange(sides)[None, :]
        polys.append(np.stack([centre[:, 0:1] + radius[:, None] * np.cos(ang),
                               centre[:, 1:2] + radius[:, None] * np.sin(ang)], axis=-1))
    return np.concatenate(polys, axis=0)


def _count_polygons(rgb: np.ndarray, sides: int) -> tuple[list[np.ndarray], int]:
    """The regular polygons whose whole outline is on the ink, and how many doubtful candidates were dropped."""
    view = _working_view(rgb, max_up=3.0)
    if view is None:
        return [], 0
    strength, scale, ox, oy = view
    # Polygons are spanned by detected corners, which sit a pixel or so off the true vertices.
    ink, band, thickness = _bands(strength, slack=2)
    corners = cv2.goodFeaturesToTrack(
        strength, maxCorners=600, qualityLevel=0.03, minDistance=2.0,
        blockSize=max(3, int(2 * round(thickness) + 1)),
    )
    if corners is None or len(corners) < 2:
        return [], 0
    pts = corners[:, 0, :].astype(np.float64)
    extent = max(ink.shape)
    i, j = np.triu_indices(len(pts), k=1)
    dist = np.linalg.norm(pts[i] - pts[j], axis=1)
    ok = (dist >= max(6.0, 3 * thickness)) & (dist <= extent)
    i, j = i[ok], j[ok]
    if len(i) == 0:
        return [], 0
    polys = np.concatenate([_regular_polygons(pts[i], pts[j], sides, span) for span in range(1, sides // 2 + 1)])
    # Cheap first test: every vertex of a real shape lies on ink. It removes most candidates before edge sampling.
    polys = polys[_coverage(band, polys[..., 0], polys[..., 1]) == 1.0]
    if len(polys) == 0:
        return [], 0
    per_edge = 16
    t = (np.arange(per_edge) + 0.5) / per_edge
    start, end = polys, np.roll(polys, -1, axis=1)
    samples = start[:, :, None, :] + (end - start)[:, :, None, :] * t[None, None, :, None]  # C x n x m x 2
    samples = samples.reshape(len(polys), -1, 2)
    score = _coverage(band, samples[..., 0], samples[..., 1])
    good = np.nonzero(score >= config.CONFIG.min_coverage)[0]
    if len(good) == 0:
        return [], 0
    # Many near-copies of each shape pass the coverage test; the one lying closest to the stroke centres wins.
    off_ink = cv2.distanceTransform((~ink).astype(np.uint8), cv2.DIST_L2, 3)
    height, width = ink.shape
    sx = np.clip(np.round(samples[good, :, 0]).astype(np.int64), 0, width - 1)
    sy = np.clip(np.round(samples[good, :, 1]).astype(np.int64), 0, height - 1)
    misfit = np.minimum(off_ink[sy, sx], 4.0).mean(axis=1)
    centres = polys[good].mean(axis=1)
    sizes = np.linalg.norm(polys[good, 0] - centres, axis=1)

    tol = round(thickness + 3)

    def draw(k: int, canvas: np.ndarray) -> None:
        poly = np.round(polys[good[k]]).astype(np.int32)
        cv2.polylines(canvas, [poly], isClosed=True, color=255, thickness=2 * tol + 1)

    kept, doubts = _explain_away([samples[g] for g in good], -misfit, sizes, ink.shape, draw)
    kept = [kept[k] for k in _suppress(centres[kept], sizes[kept], -misfit[kept])]
    return [polys[good[k]] / scale + np.array([ox, oy]) for k in kept], doubts


def count_overlapping_shapes(image: Image.Image, shape: str = "circle") -> CountResult:
    """Count outlined, possibly overlapping ``shape``s ("circle" or a regular polygon name such as "pentagon")."""
    rgb = as_rgb_array(image)
    kind = shape.strip().lower().rstrip("s")
    if kind == "circle":
        circles, doubts = _count_circles(rgb)
        circles.sort(key=lambda c: (round(c.cy / max(c.r, 1.0)), c.cx))
        boxes = [c.box.clamp(rgb.shape[1], rgb.shape[0]) for c in circles]
        result = CountResult(len(circles), "circle", boxes, [], doubtful=doubts)
        result.annotated = annotate(rgb, circles=[(c.cx, c.cy, c.r) for c in circles], caption=f"{len(circles)} circles")
        return result
    if kind not in POLYGON_SIDES:
        raise ValueError(f"unknown shape {shape!r}; use 'circle' or one of {', '.join(POLYGON_SIDES)}")
    polys, doubts = _count_polygons(rgb, POLYGON_SIDES[kind])
    polys.sort(key=lambda p: (p[:, 0].mean()))
    outlines = [[(float(x), float(y)) for x, y in poly] for poly in polys]
    boxes = [
        Box(float(p[:, 0].min()), float(p[:, 1].min()), float(p[:, 0].max()), float(p[:, 1].max())).clamp(
            rgb.shape[1], rgb.shape[0]
        )
        for p in polys
    ]
    result = CountResult(len(polys), kind, boxes, outlines, doubtful=doubts)
    result.annotated = annotate(rgb, polygons=outlines, caption=f"{len(polys)} {kind}s")
    return result


def count_nested_squares(image: Image.Image) -> CountResult:
    """Count nested outlined squares: every closed outline encloses its own region of background."""
    rgb = as_rgb_array(image)
    ink = stretch_faint_ink(ink_strength(rgb, background_colour(rgb))) > 0.3
    thickness = max(1.0, stroke_width(ink))
    # Close hairline gaps so an outline with an antialiasing gap still encloses its region.
    closed = cv2.morphologyEx(ink.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats((closed == 0).astype(np.uint8), connectivity=4)
    height, width = ink.shape
    min_area = max(16.0, (2 * thickness) ** 2)
    holes: list[Box] = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if x == 0 or y == 0 or x + w == width or y + h == height or area < min_area:
            continue  # the outer background, or a speck
        pad = thickness
        holes.append(Box(x - pad, y - pad, x + w + pad, y + h + pad).clamp(width, height))
    boxes = sorted(holes, key=lambda b: -b.area)
    # Each outline should be a square inside the one before it; any other enclosed region makes the count doubtful.
    doubtful = sum(1 for k, b in enumerate(boxes)
                   if not 0.85 <= b.width / max(b.height, 1.0) <= 1.18
                   or (k and not (boxes[k - 1].x0 <= b.x0 and boxes[k - 1].y0 <= b.y0
                                  and b.x1 <= boxes[k - 1].x1 and b.y1 <= boxes[k - 1].y1)))
    result = CountResult(len(boxes), "square", boxes, [], doubtful=doubtful)
    result.annotated = annotate(rgb, boxes=boxes, caption=f"{len(boxes)} nested squares")
    return result
