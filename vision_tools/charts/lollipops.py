"""Lollipop charts: a thin stem from the baseline to a round head at the value, read as bars.

Each head is a filled disc; its stem is a straight run of ink from the disc back to a baseline that the stems of
the other heads reach too. A lollipop becomes a bar from the baseline to the head's centre (the value it marks),
as thick as the head, so that the bar parser measures it, matches its category label and its printed number.
Discs without stems (a line chart's markers, a scatter plot's dots, a dot plot) are no lollipops: their rows end
at no common baseline.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision_tools.charts.pixels import Palette, Rect, background_mask, cluster_1d, colour_mask

#: Fewest heads that make a lollipop chart (two dots on stems could be anything).
MIN_HEADS = 3


def lollipop_bars(rgb: np.ndarray, palette: Palette) -> list[Rect]:
    """One bar per lollipop, from the common baseline to the centre of its head; empty when there are fewer than
    ``MIN_HEADS`` heads of one colour and size on stems that end at one baseline."""
    background = background_mask(rgb, palette)
    best: list[Rect] = []
    for index in palette.ink():
        heads = _discs(colour_mask(rgb, palette, index))
        for vertical in (True, False):
            bars = _on_stems(heads, background, vertical, index)
            if len(bars) > len(best):
                best = bars
    return best


def _discs(mask: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Boxes (x0, y0, x1, y1) of the filled discs in ``mask`` of one common size; stems thinner than a third of a
    head are opened away first."""
    found: list[tuple[int, int, int, int]] = []
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    sizes = sorted(int(min(w, h)) for _, _, w, h, _ in stats[1:] if min(w, h) >= 7)
    if not sizes:
        return found
    size = sizes[len(sizes) // 2]
    opener = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (max(3, size // 3), max(3, size // 3)))
    opened = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, opener)
    n, _, stats, _ = cv2.connectedComponentsWithStats(opened, connectivity=8)
    for x, y, w, h, area in stats[1:]:
        if min(w, h) < 7 or abs(int(w) - int(h)) > max(2, 0.15 * max(w, h)):
            continue
        if 0.68 <= area / float(w * h) <= 0.86:  # a disc fills pi/4 of its box; a square fills all of it
            found.append((int(x), int(y), int(x + w), int(y + h)))
    if not found:
        return found
    median = sorted(x1 - x0 for x0, _, x1, _ in found)[len(found) // 2]
    return [b for b in found if abs((b[2] - b[0]) - median) <= max(2, 0.2 * median)]


def _on_stems(heads: list[tuple[int, int, int, int]], background: np.ndarray, vertical: bool,
              colour: int) -> list[Rect]:
    """The heads whose stems (downwards for ``vertical``, leftwards otherwise) end at one common baseline, as
    bars."""
    ends: list[float] = []
    kept: list[tuple[int, int, int, int]] = []
    for x0, y0, x1, y1 in heads:
        diameter = x1 - x0
        if vertical:
            column = ~background[y1:, (x0 + x1) // 2]
            run = _run_length(column)
            end = y1 + run
        else:
            row = ~background[(y0 + y1) // 2, :x0][::-1]
            run = _run_length(row)
            end = x0 - run
        if run >= 1.5 * diameter and _thin(background, (x0, y0, x1, y1), run, vertical):
            ends.append(float(end))
            kept.append((x0, y0, x1, y1))
    if len(kept) < MIN_HEADS:
        return []
    group = max(cluster_1d(ends, 3.0), key=len)
    if len(group) < MIN_HEADS:
        return []
    base = round(float(np.median([ends[i] for i in group])))
    bars = []
    for i in group:
        x0, y0, x1, y1 = kept[i]
        if vertical:
            bars.append(Rect(x0, round((y0 + y1) / 2), x1, base, colour, 1.0))
        else:
            bars.append(Rect(base, y0, round((x0 + x1) / 2), y1, colour, 1.0))
    return bars


def _run_length(line: np.ndarray) -> int:
    """How many leading pixels of ``line`` are ink, a one-pixel gap (an anti-aliased seam) bridged."""
    length, i = 0, 0
    while i < line.size:
        if line[i]:
            i += 1
            length = i
        elif i + 1 < line.size and line[i + 1]:
            i += 1
        else:
            break
    return length


def _thin(background: np.ndarray, head: tuple[int, int, int, int], run: int, vertical: bool) -> bool:
    """Whether the stem is a thin straight line: at a third, a half and two thirds of its length, the ink across
    it is mostly narrower than half the head (a bar or a filled area is as wide as the head; a grid line crossing
    the stem is one place of three)."""
    x0, y0, x1, y1 = head
    size = x1 - x0
    thin = 0
    for share in (3, 2, 1.5):
        if vertical:
            across = ~background[y1 + int(run / share), max(0, x0 - size):x1 + size]
        else:
            across = ~background[max(0, y0 - size):y1 + size, x0 - int(run / share)]
        thin += 0 < int(across.sum()) <= max(2, size // 2)
    return thin >= 2
