"""Colour/shape segmentation: find every drawn shape (filled or outlined), its colour name and its kind.

The pipeline is classical and exact on clean renderings: model the background (a plane fitted to the border, so
gentle gradients work), split the ink into colour clusters, bridge the gaps that other colours' strokes cut into a
cluster, then walk each cluster's contour hierarchy. Even depths are shape boundaries and odd depths are the inner
edges of strokes, so an outlined shape counts once and nested same-colour shapes each count once. Each boundary is
classified (circle, ellipse, triangle, square, rectangle, pentagon, hexagon, star, heart, ...) from its polygon fit.
Same-colour filled shapes that touch are split along their distance-transform ridges when the blob is not convex.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision_tools.detection import config
from vision_tools.detection.hearts import SOLIDITY as HEART_SOLIDITY
from vision_tools.detection.hearts import is_heart
from vision_tools.image.colour import NAMES, canonical_name, classify_pixels

_POLYGON_NAMES = {3: "triangle", 5: "pentagon", 6: "hexagon", 7: "heptagon", 8: "octagon"}


@dataclass
class Shape:
    """One segmented shape in original-image pixels."""

    kind: str
    colour: str
    rgb: tuple[int, int, int]
    contour: np.ndarray  # N x 2 float, original pixels
    filled: bool
    depth: int  # nesting depth among shapes of the same colour (0 = outermost)
    score: float = 1.0
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def bbox(self) -> tuple[float, float, float, float]:
        xs, ys = self.contour[:, 0], self.contour[:, 1]
        return float(xs.min()), float(ys.min()), float(xs.max()) + 1.0, float(ys.max()) + 1.0


def normalise_colour(name: str) -> str:
    """A colour name in the project palette's spelling (``vision_tools.image.colour``), or ValueError."""
    return canonical_name(name)


def _lab(rgb: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(rgb.astype(np.float32) / 255.0, cv2.COLOR_RGB2Lab)


def colour_name(rgb: tuple[int, int, int] | np.ndarray) -> str:
    """The project palette's name for one colour (the same naming ``vision_tools.image.colour`` uses everywhere)."""
    pixel = np.asarray(rgb, dtype=np.float64).clip(0, 255).round().astype(np.uint8).reshape(1, 1, 3)
    return NAMES[int(classify_pixels(pixel)[0, 0])]


def background_model(lab: np.ndarray) -> np.ndarray:
    """Per-pixel background colour (Lab): a plane per channel fitted robustly to a 3-pixel border strip."""
    h, w = lab.shape[:2]
    strip = np.zeros((h, w), dtype=bool)
    b = max(1, min(3, min(h, w) // 4))
    strip[:b], strip[-b:], strip[:, :b], strip[:, -b:] = True, True, True, True
    ys, xs = np.nonzero(strip)
    values = lab[ys, xs].astype(np.float64)
    design = np.column_stack([np.ones(len(xs)), xs / w, ys / h])
    keep = np.ones(len(xs), dtype=bool)
    # Start from the median so shapes that touch the border cannot drag the first fit.
    resid = np.linalg.norm(values - np.median(values, axis=0), axis=1)
    keep = resid < max(8.0, float(np.percentile(resid, 60)) * 2)
    coef = np.zeros((3, 3))
    for _ in range(3):
        if keep.sum() < 3:
            keep = np.ones(len(xs), dtype=bool)
        coef, *_ = np.linalg.lstsq(design[keep], values[keep], rcond=None)
        resid = np.linalg.norm(values - design @ coef, axis=1)
        keep = resid < max(6.0, 3.0 * float(np.median(resid)))
    coef = coef.astype(np.float32)
    ramp_x = (np.arange(w, dtype=np.float32) / w)[None, :, None] * coef[1]
    ramp_y = (np.arange(h, dtype=np.float32) / h)[:, None, None] * coef[2]
    return (coef[0] + ramp_x) + ramp_y


#: How far (RGB) from an ink's mixing line with the background a pixel may lie and still be that ink.
_ASSIGNED = 30.0


def _colour_clusters(
    rgb: np.ndarray, lab: np.ndarray, bg_rgb: np.ndarray, fg: np.ndarray, min_pixels: int
) -> list[np.ndarray]:
    """RGB centres of the distinct ink colours: greedy mode seeking on a coarse Lab histogram of the ink."""
    pts, pix = lab[fg], rgb[fg]
    if len(pts) == 0:
        return []
    if len(pts) > 80_000:  # a fixed subsample keeps the histogram cheap on big fills
        pick = np.random.default_rng(0).choice(len(pts), 80_000, replace=False)
        pts, pix = pts[pick], pix[pick]
    q = np.floor(pts / 6.0).astype(np.int64) + 64  # Lab/6 fits in 0..127 per channel: one integer key per bin
    keys, inverse, counts = np.unique(q[:, 0] * 16384 + q[:, 1] * 128 + q[:, 2], return_inverse=True,
                                      return_counts=True)
    bins = np.column_stack([keys // 16384, (keys // 128) % 128, keys % 128]) - 64
    centres_q = (bins.astype(np.float32) + 0.5) * 6.0
    order = np.argsort(-counts)
    used = np.zeros(len(bins), dtype=bool)
    centres: list[tuple[np.ndarray, int]] = []
    for i in order:
        if used[i] or counts[i] * 4 < min_pixels:
            continue
        near = (~used) & (np.linalg.norm(centres_q - centres_q[i], axis=1) < 16.0)
        total = int(counts[near].sum())
        used |= near
        if total < min_pixels:
            continue
        # The exact colour is the median of the modal bin's pixels (Lab bins are coarse in RGB terms for blues).
        centres.append((np.median(pix[inverse == i].astype(np.float32), axis=0), total))
    # Near-identical colours (ringing/halo overshoot at edges, a thin stroke's blend with the ground) are one ink:
    # fold each into a bigger near one. Only one whose pixels ``_assign`` then gives to that ink: a purple near a
    # blue in Lab, but off the blue's line from the ground, would be folded and assigned to neither, and its shapes
    # would vanish.
    ground = bg_rgb.reshape(-1, 3).mean(axis=0)
    kept: list[tuple[np.ndarray, int]] = []
    for centre, total in sorted(centres, key=lambda c: -c[1]):
        lab_c = _lab(np.clip(centre, 0, 255).astype(np.uint8).reshape(1, 1, 3))[0, 0]
        if not any(np.linalg.norm(lab_c - _lab(np.clip(o, 0, 255).astype(np.uint8).reshape(1, 1, 3))[0, 0]) < 22.0
                   and _off_mixing_line(centre, o, ground) < _ASSIGNED for o, _ in kept):
            kept.append((centre, total))
    return [c for c, _ in kept]


def _off_mixing_line(colour: np.ndarray, ink: np.ndarray, ground: np.ndarray) -> float:
    """How far (RGB) ``colour`` lies from the line mixing ``ground`` into ``ink``, as ``_assign`` measures it."""
    v = ink.astype(np.float32) - ground
    d = colour.astype(np.float32) - ground
    a = float(np.clip(np.dot(d, v) / max(float(np.dot(v, v)), 1e-6), 0.0, 1.2))
    return float(np.linalg.norm(d - a * v))


def _assign(rgb: np.ndarray, bg_rgb: np.ndarray, fg: np.ndarray, centres: list[np.ndarray]) -> np.ndarray:
    """Label per pixel (-1 = none): the centre whose background-to-colour mixing line passes closest."""
    labels = np.full(fg.shape, -1, dtype=np.int32)
    ys, xs = np.nonzero(fg)
    if not len(ys) or not centres:
        return labels
    p = rgb[ys, xs].astype(np.float32)
    b = bg_rgb[ys, xs]
    d = p - b
    best = np.full(len(ys), np.inf, dtype=np.float32)
    best_k = np.full(len(ys), -1, dtype=np.int32)
    for k, c in enumerate(centres):
        v = c[None, :].astype(np.float32) - b
        a = np.clip((d * v).sum(axis=1) / np.maximum((v * v).sum(axis=1), 1e-6), 0.0, 1.2)
        resid = np.linalg.norm(d - a[:, None] * v, axis=1)
        resid[a < 0.4] = np.inf  # too faint to say which colour it belongs to
        # A pixel that is the colour itself beats one that is merely on its way from the background.
        cost = resid + 0.15 * (1.0 - np.minimum(a, 1.0)) * np.linalg.norm(v, axis=1)
        better = (cost < best) & (resid < _ASSIGNED)
        best[better], best_k[better] = cost[better], k
    labels[ys, xs] = best_k
    return _absorb_edges(labels, centres, bg_rgb.reshape(-1, 3).mean(axis=0), fg)


def _is_blend(colour: np.ndarray, of: np.ndarray, bg: np.ndarray) -> bool:
    """Whether ``colour`` lies on the sRGB mixing line between background ``bg`` and ink ``of``."""
    v = of - bg
    a = float(np.dot(colour - bg, v) / max(float(np.dot(v, v)), 1e-6))
    return 0.1 < a < 0.92 and float(np.linalg.norm(colour - bg - a * v)) < 18.0


def _absorb_edges(labels: np.ndarray, centres: list[np.ndarray], bg: np.ndarray, fg: np.ndarray) -> np.ndarray:
    """Give antialiased rims back to their ink: a pixel whose colour is a background blend of an ink it touches,
    and which also touches the background, is that ink's rim. Decided on the first labelling, so one colour's rim
    cannot drag a real ink that merely happens to be such a blend (brown beside orange on dark, gray beside black).
    """
    first = labels.copy()
    ring = np.ones((3, 3), np.uint8)
    by_bg = cv2.dilate((~fg).astype(np.uint8), ring) > 0
    near = [cv2.dilate((first == j).astype(np.uint8), ring) > 0 for j in range(len(centres))]
    for k in range(len(centres)):
        rim = (first == k) & by_bg
        if not rim.any():
            continue
        for j in range(len(centres)):
            if j != k and _is_blend(centres[k], centres[j], bg):
                move = rim & near[j] & (labels == k)
                labels[move] = j
    return labels


def _corners(hull: np.ndarray) -> np.ndarray:
    """Corner points of a convex outline: a polygon fit, then nearly straight vertices (turn < 25 deg) dropped."""
    poly = cv2.approxPolyDP(hull, 0.02 * float(cv2.arcLength(hull, True)), True).reshape(-1, 2).astype(np.float64)
    while len(poly) > 3:
        prev, nxt = np.roll(poly, 1, axis=0), np.roll(poly, -1, axis=0)
        a, b = poly - prev, nxt - poly
        cos = (a * b).sum(axis=1) / np.maximum(np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1), 1e-9)
        turn = np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))
        i = int(np.argmin(turn))
        if turn[i] >= 25.0:
            break
        poly = np.delete(poly, i, axis=0)
    # A bevelled corner of a thick stroke shows as two vertices joined by a very short edge: merge them where
    # the neighbouring edges meet.
    while len(poly) > 3:
        nxt = np.roll(poly, -1, axis=0)
        lengths = np.linalg.norm(nxt - poly, axis=1)
        i = int(np.argmin(lengths))
        if lengths[i] >= 0.35 * float(np.median(lengths)):
            break
        j = (i + 1) % len(poly)
        meet = _line_meet(poly[i - 1], poly[i], poly[j], poly[(j + 1) % len(poly)])
        poly[i] = meet if meet is not None else (poly[i] + poly[j]) / 2
        poly = np.delete(poly, j, axis=0)
    return poly


def _line_meet(a0: np.ndarray, a1: np.ndarray, b0: np.ndarray, b1: np.ndarray) -> np.ndarray | None:
    """Where line a0-a1 meets line b0-b1 (None when parallel)."""
    da, db = a1 - a0, b1 - b0
    den = da[0] * db[1] - da[1] * db[0]
    if abs(den) < 1e-9:
        return None
    t = ((b0[0] - a0[0]) * db[1] - (b0[1] - a0[1]) * db[0]) / den
    return a0 + t * da


def _classify(contour: np.ndarray, own_hull: np.ndarray | None = None) -> tuple[str, dict[str, float]]:
    """Kind of a closed boundary (work-scale contour); ``own_hull`` is the convex hull of the shape's own pixels,
    which ignores bridged gaps and whatever other colours glued on, so convex kinds are judged from it."""
    area = float(cv2.contourArea(contour))
    perim = float(cv2.arcLength(contour, True))
    if area <= 0 or perim <= 0:
        return "other", {}
    hull = cv2.convexHull(contour)
    solidity = area / max(float(cv2.contourArea(hull)), 1e-6)
    (_, _), (rw, rh), _ = cv2.minAreaRect(contour)
    info = {"solidity": round(solidity, 3)}
    if min(rw, rh) / max(rw, rh, 1e-6) < 0.12 and min(rw, rh) < 8:
        return "line", info
    if HEART_SOLIDITY[0] <= solidity <= HEART_SOLIDITY[1] and is_heart(contour):
        return "heart", info  # convex but for one notch: told apart before the polygon fit calls it a heptagon
    if solidity < 0.85:
        approx = cv2.approxPolyDP(contour, 0.02 * perim, True)
        points = len(_corners(hull))
        if 0.3 < solidity < 0.8 and len(approx) == 2 * points and 4 <= points <= 8:
            info["points"] = points
            return "star", info
        return "other", info
    own = own_hull if own_hull is not None and len(own_hull) >= 3 else hull
    own_area = max(float(cv2.contourArea(own)), 1e-6)
    corners = _corners(own)
    n = len(corners)
    poly_fill = float(cv2.contourArea(corners.astype(np.float32))) / own_area
    info.update({"vertices": n, "polygon_fill": round(poly_fill, 3)})
    if 3 <= n <= 6 and poly_fill >= 0.9:
        return _polygon_kind(corners, own_area), info
    ellipse_fill, axis_ratio = 0.0, 1.0
    dense = _densify(own)
    if len(dense) >= 5:
        (_, _), axes, _ = cv2.fitEllipse(dense)
        ellipse_fill = own_area / (math.pi * axes[0] * axes[1] / 4 + 1e-6)
        axis_ratio = min(axes) / max(max(axes), 1e-6)
        info["ellipse_fill"] = round(ellipse_fill, 3)
    # An ellipse explains a round outline almost exactly; hexagons reach only ~0.92 of their fitted ellipse.
    if 0.955 < ellipse_fill < 1.05:
        return ("circle" if axis_ratio > 0.88 else "ellipse"), info
    if 3 <= n <= 8 and poly_fill >= 0.85:
        return _polygon_kind(corners, own_area), info
    return "other", info


def _polygon_kind(corners: np.ndarray, area: float) -> str:
    if len(corners) != 4:
        return _POLYGON_NAMES[len(corners)]
    (_, _), (qw, qh), _ = cv2.minAreaRect(corners.astype(np.float32))
    if area / max(qw * qh, 1e-6) > 0.9:
        return "square" if min(qw, qh) / max(qw, qh) > 0.88 else "rectangle"
    return "quadrilateral"


def _densify(hull: np.ndarray, step: float = 2.0) -> np.ndarray:
    """Points every ``step`` pixels along a closed polygon, so fits are not biased to where vertices cluster."""
    pts = hull.reshape(-1, 2).astype(np.float32)
    out = []
    for a, b in zip(pts, np.roll(pts, -1, axis=0), strict=True):
        k = max(1, int(np.linalg.norm(b - a) / step))
        out.append(a + (b - a) * (np.arange(k, dtype=np.float32)[:, None] / k))
    return np.concatenate(out).astype(np.float32)


def _split_touching(blob: np.ndarray) -> list[np.ndarray]:
    """Masks of the parts of a non-convex filled blob, split at the necks between distance-transform peaks."""
    dist = cv2.distanceTransform(blob, cv2.DIST_L2, 5)
    peak = float(dist.max())
    if peak < 4:
        return [blob]
    markers_mask = (dist > 0.6 * peak).astype(np.uint8)
    n, markers = cv2.connectedComponents(markers_mask)
    if n <= 2:
        return [blob]
    markers = markers + 1
    markers[blob == 0] = 0
    markers[(blob > 0) & (markers_mask == 0)] = 0
    markers[blob == 0] = 1
    rgb = cv2.cvtColor(blob * 255, cv2.COLOR_GRAY2BGR)
    cv2.watershed(rgb, markers)
    return [((markers == k) & (blob > 0)).astype(np.uint8) for k in range(2, n + 1)]


def find_shapes(rgb: np.ndarray, min_area_frac: float = 1.5e-4) -> list[Shape]:
    """Every shape in the RGB array, outermost first within each colour; coordinates in original pixels."""
    h0, w0 = rgb.shape[:2]
    scale = min(1.0, config.CONFIG.work_side / max(h0, w0))
    work: np.ndarray = rgb if scale >= 1.0 else cv2.resize(
        rgb, (max(1, round(w0 * scale)), max(1, round(h0 * scale))), interpolation=cv2.INTER_AREA)
    h, w = work.shape[:2]
    lab = _lab(work)
    bg = background_model(lab)
    fg = np.linalg.norm(lab - bg, axis=2) > 15.0
    min_area = max(30.0, min_area_frac * h * w)
    bg_rgb = cv2.cvtColor(bg, cv2.COLOR_Lab2RGB) * 255.0
    centres = _colour_clusters(work, lab, bg_rgb, fg, int(min_area // 3))
    labels = _assign(work, bg_rgb, fg, centres)
    shapes: list[Shape] = []
    fg_u8 = fg.astype(np.uint8)
    sizes = np.bincount(labels.reshape(-1) + 1, minlength=len(centres) + 1)[1:]
    for k, centre in enumerate(centres):
        if sizes[k] < min_area / 3:
            continue
        mask = _drop_specks((labels == k).astype(np.uint8))
        if int(mask.sum()) < min_area / 3:
            continue
        # A real ink has many pixels of exactly its colour; a cluster made only of transitions (rims of
        # antialiasing, halos) has almost none and draws no shapes of its own.
        on = mask > 0
        if np.mean(np.linalg.norm(work[on].astype(np.float32) - centre, axis=1) < 15.0) < 0.06:
            continue
        red, green, blue = (int(round(float(c))) for c in np.clip(centre, 0, 255))
        rgb_t = (red, green, blue)
        name = colour_name(rgb_t)
        # Strokes of other colours drawn on top cut this colour's outlines; close only across those cuts, and
        # only as wide as needed: a wider closing than necessary would glue neighbours' strokes onto a shape.
        others: np.ndarray = cv2.dilate(fg_u8 & (1 - mask), np.ones((3, 3), np.uint8))
        best: list[Shape] = []
        bridge_sizes = config.CONFIG.bridge_sizes
        for size in (bridge_sizes if others.any() else bridge_sizes[:1]):
            kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
            bridged = mask | (cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel) & others)
            found = _shapes_of_mask(bridged, mask, name, rgb_t, min_area, scale)
            if not best or _quality(found) > _quality(best):
                best = found
            if all(s.kind not in ("other", "line") for s in best):
                break
        shapes.extend(best)
    return shapes


def _drop_specks(mask: np.ndarray, min_pixels: int = 8) -> np.ndarray:
    """``mask`` without its tiny components: stray edge pixels of other inks that happen to match this colour."""
    n, cc, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return mask
    keep = stats[:, cv2.CC_STAT_AREA] >= min_pixels
    keep[0] = False
    return keep[cc].astype(np.uint8)


def _quality(shapes: list[Shape]) -> int:
    return sum(1 if s.kind not in ("other", "line") else -1 for s in shapes)


def _own_hull(contour: np.ndarray, own: np.ndarray) -> np.ndarray | None:
    """Convex hull of the pixels of ``own`` inside ``contour`` (None when too few)."""
    x, y, w, h = cv2.boundingRect(contour)
    roi = np.zeros((h, w), dtype=np.uint8)
    cv2.drawContours(roi, [contour - np.array([x, y], dtype=contour.dtype)], -1, 1, thickness=-1)
    pts = cv2.findNonZero(roi & own[y:y + h, x:x + w])
    if pts is None or len(pts) < 3:
        return None
    return cv2.convexHull(pts + np.array([x, y], dtype=pts.dtype))


def _shapes_of_mask(
    mask: np.ndarray, own: np.ndarray, name: str, rgb_t: tuple[int, int, int], min_area: float, scale: float
) -> list[Shape]:
    """Shapes of one colour from its bridged mask; ``own`` is the unbridged mask (the colour's real pixels)."""
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_TREE, cv2.CHAIN_APPROX_NONE)
    if hierarchy is None:
        return []
    parents = hierarchy[0][:, 3]
    out: list[Shape] = []
    for i, contour in enumerate(contours):
        depth, p = 0, parents[i]
        while p >= 0:
            depth, p = depth + 1, parents[p]
        if depth % 2 or cv2.contourArea(contour) < min_area:
            continue
        children = [j for j in range(len(contours)) if parents[j] == i]
        hole_area = sum(cv2.contourArea(contours[j]) for j in children)
        filled = hole_area < 0.3 * cv2.contourArea(contour)
        own_hull = _own_hull(contour, own)
        # Made mostly of bridged pixels (other colours' strokes between two shapes of this colour): not a shape.
        if own_hull is None or cv2.contourArea(own_hull) < 0.5 * cv2.contourArea(contour):
            continue
        kind, info = _classify(contour, own_hull)
        parts: list[tuple[np.ndarray, str, dict[str, float]]] = [(contour, kind, info)]
        # A filled blob that is not convex may be same-colour shapes touching: split it at the necks and keep the
        # split only when every piece is then a recognisable shape.
        if filled and kind != "star" and info.get("solidity", 1.0) < 0.93:
            blob = np.zeros_like(mask)
            cv2.drawContours(blob, [contour], -1, 1, thickness=-1)
            pieces = _split_touching(blob)
            if len(pieces) > 1:
                split = []
                for piece in pieces:
                    cs = cv2.findContours(piece, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0]
                    if not cs:
                        continue
                    part = max(cs, key=cv2.contourArea)
                    if cv2.contourArea(part) >= min_area:
                        p_kind, p_info = _classify(part, _own_hull(part, own))
                        split.append((part, p_kind, {**p_info, "split": 1.0}))
                if len(split) > 1 and all(k not in ("other", "line") for _, k, _ in split):
                    parts = split
        for part, kind, info in parts:
            pts = part.reshape(-1, 2).astype(np.float32) / scale
            out.append(Shape(kind=kind, colour=name, rgb=rgb_t, contour=pts, filled=filled,
                             depth=depth // 2, extra=info))
    return out
