"""Counting where two coloured polylines cross, with a topological test that tells crossings from mere touches.

Where two strokes meet, one is drawn over the other, so pixel overlap alone cannot say whether they cross. Around
each place where the strokes come into contact we walk the border of a window and read the colours met in order:
two curves that cross alternate (A B A B), two that only touch do not (A A B B). The window grows until that
reading is clean, which also copes with very shallow crossing angles.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import cv2
import numpy as np
from PIL import Image

from vision_tools.diagrams import config
from vision_tools.diagrams.common import (
    HUE_RANGES,
    annotate,
    as_rgb_array,
    background_colour,
    colour_mask,
    disk,
    ink_strength,
    stroke_width,
)
from vision_tools.diagrams.results import CrossingResult
from vision_tools.image.boxes import Box


def _clean(mask: np.ndarray) -> np.ndarray:
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    keep = np.zeros(n, dtype=bool)
    keep[1:] = stats[1:, cv2.CC_STAT_AREA] >= config.CONFIG.min_speck
    return keep[labels]


def _perimeter(x0: int, y0: int, x1: int, y1: int) -> tuple[np.ndarray, np.ndarray]:
    """Pixel coordinates around the rectangle [x0, x1] x [y0, y1] (inclusive), clockwise from the top-left."""
    top_x = np.arange(x0, x1 + 1)
    right_y = np.arange(y0 + 1, y1 + 1)
    bottom_x = np.arange(x1 - 1, x0 - 1, -1)
    left_y = np.arange(y1 - 1, y0, -1)
    xs = np.concatenate([top_x, np.full(len(right_y), x1), bottom_x, np.full(len(left_y), x0)])
    ys = np.concatenate([np.full(len(top_x), y0), right_y, np.full(len(bottom_x), y1), left_y])
    return xs, ys


def _border_sequence(labels: np.ndarray) -> list[int]:
    """The cyclic sequence of colour labels (1 or 2) met along the window border, repeats merged."""
    seq: list[int] = []
    for value in labels:
        if value and (not seq or seq[-1] != value):
            seq.append(int(value))
    while len(seq) > 1 and seq[0] == seq[-1]:
        seq.pop()
    return seq


def _border_runs(labels: np.ndarray) -> list[int]:
    """The colour of each separate run of ink met along the window border, in cyclic order."""
    runs: list[int] = []
    previous = 0
    for value in labels:
        if value and value != previous:
            runs.append(int(value))
        previous = int(value)
    if len(runs) > 1 and labels[0] and labels[0] == labels[-1]:
        runs.pop()  # the run that wraps around the starting corner was counted twice
    return runs


def _classify_contact(
    a: np.ndarray,
    b: np.ndarray,
    contact: np.ndarray,
    box: tuple[int, int, int, int],
    thickness: float,
    all_contacts: np.ndarray,
    ink: Callable[[int, int, int, int], np.ndarray],
    strict: bool = False,
) -> tuple[int | None, tuple[int, int, int, int]]:
    """1 when the curves cross inside this contact region, 0 when they only touch, None when undecidable; and the
    window (x0, y0, x1, y1) whose border reading decided it."""
    height, width = a.shape
    x, y, w, h = box
    for factor in (2.0, 4.0, 8.0, 16.0):
        margin = int(factor * thickness + 3)
        x0, y0 = max(0, x - margin), max(0, y - margin)
        x1, y1 = min(width - 1, x + w - 1 + margin), min(height - 1, y + h - 1 + margin)
        if x1 - x0 < 2 or y1 - y0 < 2:
            continue
        win_a, win_b = a[y0 : y1 + 1, x0 : x1 + 1], b[y0 : y1 + 1, x0 : x1 + 1]
        win_c = contact[y0 : y1 + 1, x0 : x1 + 1]
        # Only ink connected to this contact counts: other parts of the polylines may pass through the window.
        # Any ink joins: where thin strokes cross, the covered pixels are blends of both colours, of neither mask.
        union = (win_a | win_b | win_c | ink(x0, y0, x1, y1)).astype(np.uint8)
        _, comp = cv2.connectedComponents(union, connectivity=8)
        ids = np.unique(comp[win_c])
        linked = np.isin(comp, ids[ids > 0])
        xs, ys = _perimeter(0, 0, x1 - x0, y1 - y0)
        if all_contacts[y0 : y1 + 1, x0 : x1 + 1][ys, xs].any():
            continue  # the border cuts through a place where the lines meet: its reading would be meaningless
        lab = np.where(linked[ys, xs] & win_a[ys, xs], 1, 0) + np.where(linked[ys, xs] & win_b[ys, xs], 2, 0)
        lab[lab == 3] = 0  # both colours at once: ambiguous pixel, ignore
        if strict:
            # Each line must pass through the window exactly once (in and out): four separate border runs.
            runs = _border_runs(lab)
            if len(runs) == 4:
                return (1 if runs[0] != runs[1] == runs[3] != runs[2] else 0), (x0, y0, x1, y1)
            continue
        seq = _border_sequence(lab)
        if len(seq) == 4:
            return 1, (x0, y0, x1, y1)
        runs = _border_runs(lab)
        if len(seq) == 2 and min(runs.count(1), runs.count(2)) == 1:
            continue  # one line ends inside the window: "A A B" says nothing about crossing
        if len(seq) == 2:
            return 0, (x0, y0, x1, y1)
    return None, (x, y, x + w - 1, y + h - 1)


def _merge_shallow_crossings(
    a: np.ndarray, b: np.ndarray, labels: np.ndarray, contact: np.ndarray,
    ink: Callable[[int, int, int, int], np.ndarray], thickness: float,
    points: list[tuple[float, float]], boxes: list[Box], members: list[list[int]],
) -> None:
    """Merge, in place, two crossings that are one: at a very shallow crossing the covered line is hidden for a
    long stretch, leaving a contact at each end too far apart for one window. One window around both reads the
    border again: an odd reading (A B A B) means one crossing inside, so they merge; an even one (two real
    crossings close together, or none) keeps them as they are."""
    reach = 2 * (16 * thickness + 3)
    merged = True
    while merged and len(points) > 1:
        merged = False
        pairs = sorted((math.dist(points[i], points[j]), i, j) for i in range(len(points))
                        for j in range(i + 1, len(points)))
        for distance, i, j in pairs:
            if distance > reach:
                break
            joined = Box(min(boxes[i].x0, boxes[j].x0), min(boxes[i].y0, boxes[j].y0),
                         max(boxes[i].x1, boxes[j].x1), max(boxes[i].y1, boxes[j].y1))
            both = np.isin(labels, members[i] + members[j])
            box = (int(joined.x0), int(joined.y0), int(joined.width), int(joined.height))
            verdict, _ = _classify_contact(a, b, both, box, thickness, contact, ink, strict=True)
            if verdict == 1:
                boxes[i], members[i] = joined, members[i] + members[j]
                points[i] = joined.center
                del points[j], boxes[j], members[j]
                merged = True
                break


def count_line_crossings(
    image: Image.Image, colour_a: str | Sequence[int] = "blue", colour_b: str | Sequence[int] = "red"
) -> CrossingResult:
    """Count the points where the ``colour_a`` and ``colour_b`` lines cross (touching without crossing is not one)."""
    rgb = as_rgb_array(image)
    name_a, name_b = str(colour_a), str(colour_b)
    a, b = _clean(colour_mask(rgb, colour_a)), _clean(colour_mask(rgb, colour_b))
    if not a.any() or not b.any():
        absent = [name for name, mask in ((name_a, a), (name_b, b)) if not mask.any()]
        return CrossingResult(0, [], [], name_a, name_b, absent=absent,
                              annotated=annotate(rgb, caption=f"no {' or '.join(absent)} line found"))
    thickness = max(1.0, stroke_width(a), stroke_width(b))
    background = background_colour(rgb[::8, ::8])

    def inked(x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
        """Any ink inside the window (inclusive bounds), whatever its colour."""
        return ink_strength(rgb[y0 : y1 + 1, x0 : x1 + 1], background) > 0.25

    # Strokes that cross are adjacent where one covers the other; a small dilation joins them.
    kernel = disk(round(thickness / 2) + 2)
    contact = cv2.dilate(a.astype(np.uint8), kernel).astype(bool) & cv2.dilate(b.astype(np.uint8), kernel).astype(bool)
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(contact.astype(np.uint8), connectivity=8)
    # Specks of contact (a pixel or two where antialiased edges brush) carry no reading of their own.
    specks = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] < max(3.0, thickness))
    contact &= ~np.isin(labels, specks[specks > 0])
    points: list[tuple[float, float]] = []
    boxes: list[Box] = []
    windows: list[tuple[int, int, int, int]] = []
    members: list[list[int]] = []  # the contact labels of each crossing
    touches = undecided = 0
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if i in specks:
            continue
        verdict, window = _classify_contact(a, b, labels == i, (x, y, w, h), thickness, contact, inked)
        if verdict is None:
            # Undecidable border reading (e.g. a line ending inside the contact): an overlap covering most of
            # the thinner stroke's width is taken as a crossing.
            verdict = 1 if area >= 2 * thickness * thickness else 0
            undecided += 1
        if not verdict:
            touches += 1
            continue
        cx, cy = float(centroids[i][0]), float(centroids[i][1])
        # At a shallow crossing the covered line is hidden for a long stretch and the crossing leaves a contact at
        # each end; the window that reads one of them clean then holds the other too: one crossing, not two.
        same = next(
            (k for k, (wx0, wy0, wx1, wy1) in enumerate(windows)
             if (wx0 <= cx <= wx1 and wy0 <= cy <= wy1)
             or (window[0] <= points[k][0] <= window[2] and window[1] <= points[k][1] <= window[3])),
            None,
        )
        if same is not None:
            old = boxes[same]
            boxes[same] = Box(min(old.x0, x), min(old.y0, y), max(old.x1, x + w), max(old.y1, y + h))
            points[same] = boxes[same].center
            members[same].append(i)
            continue
        points.append((cx, cy))
        boxes.append(Box(float(x), float(y), float(x + w), float(y + h)))
        windows.append(window)
        members.append([i])
    _merge_shallow_crossings(a, b, labels, contact, inked, thickness, points, boxes, members)
    order = np.argsort([p[0] for p in points])
    points = [points[k] for k in order]
    boxes = [boxes[k] for k in order]
    caption = f"{len(points)} crossing(s) of {name_a} and {name_b}"
    result = CrossingResult(len(points), points, boxes, name_a, name_b, touches=touches, undecided=undecided)
    result.annotated = annotate(rgb, points=points, caption=caption)
    return result


def line_colours(image: Image.Image) -> list[str]:
    """The hues (``HUE_RANGES`` names) that draw something line-sized in ``image``: at least 0.8 × the short side in
    pixels, a stroke of 4 px a fifth of the side long. "How many points where two lines cross?" is a question about two lines only when two
    colours are drawn."""
    rgb = as_rgb_array(image)
    least = 4 * min(rgb.shape[:2]) // 5
    return [name for name in HUE_RANGES if name != "pink" and int(_clean(colour_mask(rgb, name)).sum()) >= least]
