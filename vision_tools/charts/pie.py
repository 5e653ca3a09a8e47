"""Pie (and donut) charts to shares: slices from angles, cross-checked against printed percentages.

The pie is the largest non-background blob that is round (its area fills at least 85 % of the circle of the same
centre through its far edge). Colours are sampled around three circles, at 70, 80 and 90 % of the radius, clear of
labels outside; a percentage printed on a slice covers at most one of them, so the colour most circles see wins.
Runs of one colour are the slices, and background-coloured samples on every circle (white separators) split runs
of the same colour. Each slice's share is its angle over
360 degrees; a percentage printed inside it replaces the measurement when the two agree within 2.5 points (or
15 %). Labels are matched to slices by angle (text around the pie) or by colour (a legend).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision_tools.charts import config
from vision_tools.charts.axes import Text, merge_words, replace_region, rows_of
from vision_tools.charts.legend import find_legend, legend_region
from vision_tools.charts.pixels import Palette, background_mask, chebyshev
from vision_tools.charts.result import PIE_SERIES, SEVERAL_MARKS, ChartMark
from vision_tools.image.boxes import Box

# A slice's name and share written together inside it: "Nuclear (45%)", "Nuclear: 45%", "Nuclear 45 %".
_NAMED_PERCENT = re.compile(r"([^\d()%:]*[A-Za-z][^\d()%:]*?)\s*[(:\-]?\s*(\d+(?:[.,]\d+)?)\s*%\s*\)?")


@dataclass
class PieParse:
    categories: list[str]
    table: dict[str, dict[str, float]]
    marks: list[ChartMark]
    used_texts: set[int]
    top: float  # top of the pie, work pixels: the title is above it
    warnings: list[str]


@dataclass
class _Slice:
    start: int  # sample index, inclusive
    length: int  # samples
    colour: int

    def mid_angle(self) -> float:
        return (self.start + self.length / 2) * 360.0 / config.CONFIG.pie_samples % 360.0


def find_disk(rgb: np.ndarray, palette: Palette) -> tuple[float, float, float] | None:
    """``(cx, cy, r)`` of the round blob of slices, or None."""
    h, w = rgb.shape[:2]
    mask: np.ndarray = (~background_mask(rgb, palette)).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, contours, -1, 1, thickness=cv2.FILLED)
    # Text touching the rim would spoil the roundness test; a wide opening strips it and keeps the disk.
    k = max(5, int(min(h, w) * 0.03) | 1)
    filled = cv2.morphologyEx(filled, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    contours, _ = cv2.findContours(filled, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    best = None
    for contour in contours:
        area = cv2.contourArea(contour)
        (ex, ey), er = cv2.minEnclosingCircle(contour)
        if er < 0.12 * min(h, w) or area < 0.85 * math.pi * er * er:
            continue
        if best is None or area > best[0]:
            m = cv2.moments(contour)
            best = (area, m["m10"] / m["m00"], m["m01"] / m["m00"], math.sqrt(area / math.pi))
    return None if best is None else best[1:]


def slices(rgb: np.ndarray, palette: Palette, cx: float, cy: float, r: float) -> list[_Slice]:
    """Runs of one colour around the circle, sampled at 70, 80 and 90 % of the radius."""
    label = _ring_labels(rgb, palette, cx, cy, r)
    runs = _runs(label)
    if all(value < 0 for value, _, _ in runs):
        return []
    # Start at a hard or colour boundary so the wrap-around needs no special case.
    first = next(i for i, (value, _, _) in enumerate(runs) if value >= 0)
    runs = runs[first:] + runs[:first]
    out: list[_Slice] = []
    pending_soft = 0
    separated = True
    for value, start, length in runs:
        if value == -1 or (value >= 0 and length < 2):
            pending_soft += length  # shared out between the neighbours below
            continue
        if value == -2:
            if out:
                out[-1].length += pending_soft
            pending_soft, separated = 0, True
            continue
        if out and not separated and out[-1].colour == value:
            out[-1].length += pending_soft + length
        else:
            if out:
                out[-1].length += pending_soft // 2
            out.append(_Slice(start - (pending_soft - pending_soft // 2) if out else start,
                              length + (pending_soft - pending_soft // 2 if out else 0), int(value)))
        pending_soft, separated = 0, False
    if out:
        out[-1].length += pending_soft
        if len(out) > 1 and out[0].colour == out[-1].colour and not _hard_between(runs):
            out[0].start, out[0].length = out[-1].start, out[0].length + out[-1].length
            out.pop()
    return out


def _ring_labels(rgb: np.ndarray, palette: Palette, cx: float, cy: float, r: float) -> np.ndarray:
    """The palette colour at each angle: -1 for a blend at an edge (soft), -2 for a background separator (hard).

    Three circles, because a percentage printed on a slice (white on a donut's ring) covers one of them at that
    angle and would split the slice in two; a white separator between slices crosses all three. The colour most
    of the circles see wins, the middle one on a tie."""
    h, w = rgb.shape[:2]
    samples = config.CONFIG.pie_samples
    theta = np.arange(samples) * 2 * np.pi / samples
    ink = palette.ink()
    per_radius = []
    for share in (0.8, 0.7, 0.9):  # the middle circle first: it wins ties
        xs = np.clip(np.round(cx + share * r * np.cos(theta)).astype(int), 0, w - 1)
        ys = np.clip(np.round(cy - share * r * np.sin(theta)).astype(int), 0, h - 1)
        ring = rgb[ys, xs].reshape(1, samples, 3)
        label = np.full(samples, -1)
        if ink:
            dist = np.stack([chebyshev(ring, palette.colours[i])[0] for i in ink])
            nearest = dist.argmin(axis=0)
            ok = dist.min(axis=0) <= 40
            label[ok] = np.array(ink)[nearest[ok]]
        bg = background_mask(ring, palette, tol=20)[0]
        label[bg & (label < 0)] = -2
        per_radius.append(label)
    middle, inner, outer = per_radius
    # Two circles agreeing on a colour win; else the middle circle's colour, else any colour seen; else a blend.
    return np.select([(inner >= 0) & (inner == outer), middle >= 0, inner >= 0, outer >= 0,
                      (np.stack(per_radius) == -1).any(axis=0)], [inner, middle, inner, outer, -1], -2)


def _hard_between(runs: list[tuple[int, int, int]]) -> bool:
    """Whether a background separator lies between the last colour run and the first (across the wrap)."""
    for value, _, _ in reversed(runs):
        if value == -2:
            return True
        if value >= 0:
            return False
    return False


def _runs(label: np.ndarray) -> list[tuple[int, int, int]]:
    runs: list[tuple[int, int, int]] = []
    start = 0
    for i in range(1, len(label) + 1):
        if i == len(label) or label[i] != label[start]:
            runs.append((int(label[start]), start, i - start))
            start = i
    return runs


def parse_pie(rgb: np.ndarray, palette: Palette, texts: list[Text],
              reread: Callable[[Box], list[Text]] | None = None) -> PieParse | None:
    """The pie in ``rgb``, or None. ``reread(region)`` OCRs a region again, enlarged: used where a slice's label
    should be (just outside the rim, in the direction of its middle) when none was read there."""
    disk = find_disk(rgb, palette)
    if disk is None:
        return None
    cx, cy, r = disk
    found = slices(rgb, palette, cx, cy, r)
    total = sum(s.length for s in found)
    found = [s for s in found if s.length >= 2]
    if len(found) < 2 or total == 0:
        return None
    warnings: list[str] = []
    used: set[int] = set()

    percents: dict[int, Text] = {}
    names: dict[int, str] = {}
    for t in texts:
        # Beyond the rim a label names its slice; in the middle ("€2,400 total spent" in a donut's hole) it names
        # none of them.
        if not 0.4 * r <= math.hypot(t.cx - cx, t.cy - cy) <= r:
            continue
        k = _slice_at(found, _angle(t.cx - cx, t.cy - cy))
        if k is None:
            continue
        named = _NAMED_PERCENT.fullmatch(t.text.strip())
        if t.number is None and named is not None:  # "Nuclear (45%)" written inside its slice
            names.setdefault(k, named.group(1).strip())
            used.add(id(t))
            percents[k] = Text(named.group(2), t.box, t.confidence, float(named.group(2)), True)
            continue
        if t.number is not None and (t.percent or k not in percents):
            percents[k] = t
    greys = [s.colour for s in found if palette.chroma(s.colour) < 25]
    legend = find_legend([t for t in texts if math.hypot(t.cx - cx, t.cy - cy) > r], rgb, palette, greys)
    if reread is not None and 0 < len(legend) < len(found):
        region = legend_region(legend, len(found) - len(legend), rgb.shape)
        texts = replace_region(texts, reread(region), region)
        legend = find_legend([t for t in texts if math.hypot(t.cx - cx, t.cy - cy) > r], rgb, palette, greys)
    # Nearest colours pair first: a light cyan key lies within the tolerance of a grey slice too, and the first
    # slice within it need not be the key's own.
    pairs = sorted((int(np.abs(palette.colours[s.colour] - palette.colours[colour]).max()), k, n)
                   for n, (_, colour) in enumerate(legend) for k, s in enumerate(found))
    keyed: set[int] = set()
    for distance, k, n in pairs:
        if distance <= 40 and k not in names and n not in keyed:
            names[k] = legend[n][0].text
            used.add(id(legend[n][0]))
            keyed.add(n)
    if not names:
        names = _labels_around(texts, found, cx, cy, r, used)
        if names and reread is not None:
            for k, s in enumerate(found):
                if k not in names:
                    label = _reread_label(s, cx, cy, r, rgb.shape, reread)
                    if label is not None:
                        names[k] = label

    _percents_around(texts, found, cx, cy, r, percents)

    table: dict[str, dict[str, float]] = {}
    marks: list[ChartMark] = []
    categories: list[str] = []
    for k in sorted(range(len(found)), key=lambda k: (90 - found[k].mid_angle()) % 360):  # clockwise from 12
        s = found[k]
        measured = 100.0 * s.length / total
        name = names.get(k, f"Slice {k + 1}")
        if name in table and not any(w == SEVERAL_MARKS + name for w in warnings):
            warnings.append(SEVERAL_MARKS + name)
        while name in table:
            name += "'"  # the table needs a key of its own; the warning above says the two are one label
        printed_text = percents.get(k)
        printed = printed_text.number if printed_text else None
        value, source = measured, "angle"
        if printed is not None:
            used.add(id(printed_text))
            if abs(printed - measured) <= max(2.5, 0.15 * measured):
                value, source = printed, "printed"
            else:
                warnings.append(f"{name}: printed {printed:g}% disagrees with the angle's {measured:.1f}%; "
                                "kept the angle")
        categories.append(name)
        table[name] = {PIE_SERIES: value}
        marks.append(ChartMark(name, PIE_SERIES, value, source, _slice_box(s, cx, cy, r), measured, printed,
                               palette.rgb(s.colour)))
    if not names:
        warnings.append("no slice labels found (neither around the pie nor in a legend)")
    return PieParse(categories, table, marks, used, cy - r, warnings)


def _angle(dx: float, dy: float) -> float:
    return math.degrees(math.atan2(-dy, dx)) % 360.0


def _slice_at(found: list[_Slice], angle: float) -> int | None:
    for k, s in enumerate(found):
        start = s.start * 360.0 / config.CONFIG.pie_samples
        if (angle - start) % 360.0 < s.length * 360.0 / config.CONFIG.pie_samples:
            return k
    return None


def _labels_around(texts: list[Text], found: list[_Slice], cx: float, cy: float, r: float,
                   used: set[int]) -> dict[int, str]:
    """Names written just outside the rim, each given to the slice whose middle points at it (closest first)."""
    candidates = []
    heights = sorted(t.height for t in texts)
    typical = heights[len(heights) // 2] if heights else 0.0
    # A title is set larger than the labels: it is never a slice's name.
    words = [t for t in texts if (t.number is None or not t.percent) and t.height <= 1.3 * typical]
    for row in rows_of(words):
        for t in merge_words(row):
            dx = max(t.box.x0 - cx, 0.0, cx - t.box.x1)
            dy = max(t.box.y0 - cy, 0.0, cy - t.box.y1)
            gap = math.hypot(dx, dy)  # nearest point of the text to the centre
            if 0.9 * r <= gap <= 1.2 * r:  # matplotlib puts labels at 1.1 r; a title sits beyond 1.25 r
                candidates.append(t)
    pairs = []
    for t in candidates:
        angle = _angle(t.cx - cx, t.cy - cy)
        for k, s in enumerate(found):
            diff = abs((angle - s.mid_angle() + 180) % 360 - 180)
            inside = _slice_at([s], angle) is not None
            pairs.append((diff - (10 if inside else 0), k, t))
    names: dict[int, str] = {}
    taken: set[int] = set()
    for _, k, t in sorted(pairs, key=lambda p: p[0]):
        if k in names or id(t) in taken:
            continue
        names[k] = t.text
        taken.add(id(t))
    used |= taken
    return names


def _percents_around(texts: list[Text], found: list[_Slice], cx: float, cy: float, r: float,
                     percents: dict[int, Text]) -> None:
    """Percentages written just outside the rim ("Rent" over "38%"), each given to the slice whose middle points
    at it, for slices with none printed inside; the angle then confirms or rejects each (``parse_pie``)."""
    pairs = []
    for t in texts:
        if t.number is None or not t.percent or not r < math.hypot(t.cx - cx, t.cy - cy) <= 1.45 * r:
            continue
        angle = _angle(t.cx - cx, t.cy - cy)
        for k, s in enumerate(found):
            if k not in percents:
                pairs.append((abs((angle - s.mid_angle() + 180) % 360 - 180), k, t))
    taken: set[int] = set()
    for _, k, t in sorted(pairs, key=lambda p: p[0]):
        if k not in percents and id(t) not in taken:
            percents[k] = t
            taken.add(id(t))


def _reread_label(s: _Slice, cx: float, cy: float, r: float, shape: tuple[int, ...],
                  reread: Callable[[Box], list[Text]]) -> str | None:
    """The word read again just outside the rim in the direction of the slice's middle."""
    theta = math.radians(s.mid_angle())
    ax, ay = cx + 1.15 * r * math.cos(theta), cy - 1.15 * r * math.sin(theta)
    # Labels on the right start at the rim and run right; on the left they end at it.
    x0, x1 = (ax - 0.2 * r, ax + 0.8 * r) if math.cos(theta) >= 0 else (ax - 0.8 * r, ax + 0.2 * r)
    region = Box(x0, ay - 0.2 * r, x1, ay + 0.2 * r).clamp(shape[1], shape[0])
    if region.width < 8 or region.height < 8:
        return None
    words = [t for t in reread(region) if t.number is None or not t.percent]
    words = [t for t in words if math.hypot(t.cx - cx, t.cy - cy) > r]
    if not words:
        return None
    return min(words, key=lambda t: math.hypot(t.cx - ax, t.cy - ay)).text


def _slice_box(s: _Slice, cx: float, cy: float, r: float) -> Box:
    """A small box around the slice's middle at 75 % of the radius (printed percentages sit at about 60 %)."""
    theta = math.radians(s.mid_angle())
    x, y = cx + 0.75 * r * math.cos(theta), cy - 0.75 * r * math.sin(theta)
    return Box(x - 6, y - 6, x + 6, y + 6)
