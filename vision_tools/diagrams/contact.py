"""Do two drawn circles touch? Each circle is fitted to its own visible rim, to a fraction of a pixel, and the gap
between perimeters is measured from the fits.

Circles of different colours are separated by colour (k-means on the solid pixels, then every pixel, antialiased
edges included, goes to the colour it is a blend of). Where one circle covers part of the other, only the rim that
meets the background is used, so the hidden part does not bias the fit. Same-coloured circles are separated by
fitting one circle at a time to the outer contour with RANSAC.
"""

from __future__ import annotations

import cv2
import numpy as np
from PIL import Image

from vision_tools.diagrams import config
from vision_tools.diagrams.common import annotate, as_rgb_array, background_colour, disk, fit_circle
from vision_tools.diagrams.results import Circle, ContactResult


def _rim_points(mask: np.ndarray, exclude: np.ndarray | None = None) -> np.ndarray:
    """Points on the outer contour of the largest region of ``mask``, leaving out those next to ``exclude``."""
    contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return np.zeros((0, 2))
    largest = max(contours, key=cv2.contourArea)
    if len(largest) >= 0.6 * sum(len(c) for c in contours):
        pts = largest[:, 0, :].astype(np.float64)
    else:
        # A thin or pale stroke falls apart into many short arcs at the half-contrast threshold: all of them are
        # the rim (specks of a few pixels are not).
        pts = np.concatenate([c[:, 0, :] for c in contours if len(c) >= 6]).astype(np.float64)
    if exclude is not None and exclude.any():
        near = cv2.dilate(exclude.astype(np.uint8), disk(2)).astype(bool)
        pts = pts[~near[pts[:, 1].astype(int), pts[:, 0].astype(int)]]
    return pts


def _fit(points: np.ndarray) -> Circle:
    cx, cy, r = fit_circle(points)
    # Contour points are centres of the outermost ink pixels, half a pixel inside the drawn edge.
    return Circle(cx, cy, r + 0.5)


def _ransac_circle(points: np.ndarray, rng: np.random.Generator, tol: float = 1.5) -> tuple[Circle, np.ndarray]:
    """The circle through the most ``points`` (within ``tol``), and the mask of its inliers."""
    best = np.zeros(len(points), dtype=bool)
    for _ in range(300):
        sample = points[rng.choice(len(points), 3, replace=False)]
        (x1, y1), (x2, y2), (x3, y3) = sample
        d = 2 * (x1 * (y2 - y3) + x2 * (y3 - y1) + x3 * (y1 - y2))
        if abs(d) < 1e-6:
            continue
        ux = ((x1**2 + y1**2) * (y2 - y3) + (x2**2 + y2**2) * (y3 - y1) + (x3**2 + y3**2) * (y1 - y2)) / d
        uy = ((x1**2 + y1**2) * (x3 - x2) + (x2**2 + y2**2) * (x1 - x3) + (x3**2 + y3**2) * (x2 - x1)) / d
        r = np.hypot(x1 - ux, y1 - uy)
        inliers = np.abs(np.hypot(points[:, 0] - ux, points[:, 1] - uy) - r) < tol
        if inliers.sum() > best.sum():
            best = inliers
    if best.sum() < 8:
        raise ValueError("no circle could be fitted to the drawing")
    return _fit(points[best]), best


def _split_by_colour(rgb: np.ndarray, ink: np.ndarray) -> list[np.ndarray] | None:
    """Two masks, one per circle colour, or None when the drawing has a single colour."""
    bg = background_colour(rgb)
    solid = cv2.erode(ink.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    if solid.sum() < 20:
        solid = ink
    pixels = rgb[solid].astype(np.float32)
    if len(pixels) > 20000:
        pixels = pixels[np.random.default_rng(0).choice(len(pixels), 20000, replace=False)]
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.5)
    # OpenCV takes None for bestLabels (an output here); its stubs want an array.
    _, _, centres = cv2.kmeans(  # type: ignore[call-overload]
        pixels, 2, None, criteria, 3, cv2.KMEANS_PP_CENTERS)
    same_colour = np.abs(centres[0] - centres[1]).max() < config.CONFIG.same_colour
    if same_colour or _one_ink(centres[0], centres[1], bg):
        return None
    # Each ink pixel is a blend of the background and one circle colour: assign it to the colour whose blend line
    # it lies closest to, so antialiased rims are kept with their own circle.
    diff = rgb[ink].astype(np.float32) - bg
    residuals = []
    for centre in centres:
        direction = centre - bg
        alpha = np.clip(diff @ direction / max(float(direction @ direction), 1e-6), 0.0, 1.0)
        residuals.append(np.linalg.norm(diff - alpha[:, None] * direction[None, :], axis=1))
    owner = np.argmin(np.stack(residuals), axis=0)
    masks = []
    for k in range(2):
        mask = np.zeros(ink.shape, dtype=bool)
        mask[np.nonzero(ink)[0][owner == k], np.nonzero(ink)[1][owner == k]] = True
        masks.append(mask)
    return masks


def _one_ink(a: np.ndarray, b: np.ndarray, bg: np.ndarray) -> bool:
    """Whether the two colour clusters are one ink: the paler is a blend of the other with the background (the
    antialiased rims of thin strokes form a cluster of their own)."""
    for ink, pale in ((a, b), (b, a)):
        direction = ink - bg
        alpha = float(np.dot(pale - bg, direction) / max(float(np.dot(direction, direction)), 1e-6))
        residual = float(np.linalg.norm(pale - bg - alpha * direction))
        if 0.05 < alpha < 1.0 and residual < config.CONFIG.blend_residual:
            return True
    return False


def circles_touch(image: Image.Image, tolerance_px: float | None = None) -> ContactResult:
    """Find the two circles of a drawing and whether their perimeters touch or overlap (gap <= ``tolerance_px``,
    by default the config's ``touch_tolerance_px``).

    Raises ValueError when fewer than two circles can be found.
    """
    tolerance_px = config.CONFIG.touch_tolerance_px if tolerance_px is None else tolerance_px
    rgb = as_rgb_array(image)
    strength = np.abs(rgb.astype(np.float32) - background_colour(rgb)).max(axis=2)
    # Half coverage marks the drawn edge: antialiased rim pixels more than half covered belong to the shape.
    ink = strength > 0.5 * max(float(strength.max()), 1.0)
    if ink.sum() < 20:
        raise ValueError("no circles found: the image is blank")
    masks = _split_by_colour(rgb, ink)
    circles: list[Circle] = []
    rims: list[np.ndarray] = []
    if masks is not None:
        for k in range(2):
            pts = _rim_points(masks[k], exclude=masks[1 - k])
            if len(pts) < 8:
                raise ValueError("only one circle found: the other colour has no visible rim")
            circles.append(_fit(pts))
            rims.append(pts)
    else:
        n, labels, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
        regions = sorted(range(1, n), key=lambda i: -stats[i, cv2.CC_STAT_AREA])
        big = [i for i in regions if stats[i, cv2.CC_STAT_AREA] >= 0.1 * stats[regions[0], cv2.CC_STAT_AREA]]
        if len(big) >= 2:
            rims = [_rim_points(labels == i) for i in big[:2]]
            circles = [_fit(pts) for pts in rims]
        else:
            # One region: two circles of the same colour that touch or overlap, or a single circle.
            pts = _rim_points(ink)
            rng = np.random.default_rng(0)
            first, inliers = _ransac_circle(pts, rng)
            rest = pts[~inliers]
            if len(rest) < 0.15 * len(pts):
                raise ValueError("only one circle found in the image")
            second, more = _ransac_circle(rest, rng)
            circles, rims = [first, second], [pts[inliers], rest[more]]
    a, b = circles
    gap = float(np.hypot(a.cx - b.cx, a.cy - b.cy) - a.r - b.r)
    touching = gap <= tolerance_px
    # How well each rim fits its circle: drawn circles fit to a fraction of a pixel, other outlines do not.
    fit_error = max(float(np.median(np.abs(np.hypot(p[:, 0] - c.cx, p[:, 1] - c.cy) - (c.r - 0.5))))
                    for c, p in zip(circles, rims, strict=True))
    circles.sort(key=lambda c: (c.cy, c.cx))
    result = ContactResult(circles, gap, touching, tolerance_px, fit_error)
    verdict = "touching" if touching else "not touching"
    result.annotated = annotate(
        rgb, circles=[(c.cx, c.cy, c.r) for c in circles], caption=f"gap {gap:.1f} px: {verdict}"
    )
    return result
