"""Hearts: the one drawn shape with a single notch, told apart from polygons and from shapes partly hidden.

A heart's outline is convex but for the notch between its two lobes: one deep convexity defect, all others
shallow. The notch sits halfway between the lobes' tops, the tip lies straight across from it, and the outline is
mirror-symmetric about the line from notch to tip. A polygon with a bite taken out by another shape, or two
blobs of one colour touching (two notches, one each side of the neck), fail one of these.
"""

from __future__ import annotations

import cv2
import numpy as np

#: A heart's solidity (area over its hull's) measured 0.91-0.94 on drawn hearts, filled and outlined.
SOLIDITY = (0.85, 0.965)
#: The notch is at least this deep, and every other defect at most ``SHALLOW``, in units of sqrt(area).
NOTCH = 0.12
SHALLOW = 0.07
#: The outline and its mirror image about the notch-to-tip line overlap at least this much (intersection/union).
SYMMETRY = 0.85


def is_heart(contour: np.ndarray) -> bool:
    """Whether the closed ``contour`` (points, any orientation of the heart) is a heart."""
    points = contour.reshape(-1, 2).astype(np.int32)
    area = float(cv2.contourArea(points))
    if area <= 0 or len(points) < 12:
        return False
    hull_area = float(cv2.contourArea(cv2.convexHull(points)))
    if not SOLIDITY[0] <= area / max(hull_area, 1e-6) <= SOLIDITY[1]:
        return False
    try:
        defects = cv2.convexityDefects(points.reshape(-1, 1, 2), cv2.convexHull(points, returnPoints=False))
    except cv2.error:
        return False  # a self-crossing outline
    if defects is None:
        return False
    size = area ** 0.5
    depths = sorted(((d[0][3] / 256.0 / size, d[0]) for d in defects), key=lambda x: -x[0])
    if depths[0][0] < NOTCH or (len(depths) > 1 and depths[1][0] > SHALLOW):
        return False
    start, end, far = (points[i].astype(np.float64) for i in depths[0][1][:3])
    lobe_a, lobe_b = float(np.linalg.norm(far - start)), float(np.linalg.norm(far - end))
    if not 0.6 <= lobe_a / max(lobe_b, 1e-6) <= 1.67:
        return False
    tip = points[int(np.argmax(np.linalg.norm(points - far, axis=1)))].astype(np.float64)
    axis, chord = tip - far, end - start
    cosine = abs(float(axis @ chord)) / max(float(np.linalg.norm(axis) * np.linalg.norm(chord)), 1e-6)
    return cosine <= 0.5 and _mirror_overlap(points, far, tip) >= SYMMETRY


def _mirror_overlap(points: np.ndarray, far: np.ndarray, tip: np.ndarray) -> float:
    """Intersection over union of the outline's filled area and its mirror image about the line far-tip."""
    direction = (tip - far) / max(float(np.linalg.norm(tip - far)), 1e-6)
    relative = points - far
    along = relative @ direction
    mirrored = far + 2 * np.outer(along, direction) - relative
    low = np.floor(np.minimum(points.min(axis=0), mirrored.min(axis=0))).astype(int) - 1
    shape = (np.ceil(np.maximum(points.max(axis=0), mirrored.max(axis=0))).astype(int) - low + 2)[::-1]
    first, second = np.zeros(shape, np.uint8), np.zeros(shape, np.uint8)
    cv2.fillPoly(first, [(points - low).astype(np.int32)], 1)
    cv2.fillPoly(second, [np.round(mirrored - low).astype(np.int32)], 1)
    union = int((first | second).sum())
    return int((first & second).sum()) / union if union else 0.0
