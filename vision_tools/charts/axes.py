"""The text of a chart: numbers, value-axis calibration from tick labels, category rows and the title.

A value axis is calibrated from the OCR'd numbers of its tick labels: labels of one axis share an alignment (the
right edge for a left y axis, the centre line for an x axis), and their values are linear in their positions. Among
the aligned numbers the largest subset that is linear within a few pixels is kept (a RANSAC over pairs), so a value
label that happens to line up with the ticks, or a misread tick, does not bend the fit.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from PIL import Image

from vision_tools.charts.pixels import chebyshev, cluster_1d
from vision_tools.charts.result import AxisFit
from vision_tools.image.boxes import Box

_NUMBER_RE = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)$")
#: A scale letter after a printed number: "$3.5k" is 3500.
SCALE_SUFFIXES = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9}


@dataclass(eq=False)  # compared and hashed by identity: two labels may read alike
class Text:
    """One OCR'd line in work-image pixels, with its number when it is one."""

    text: str
    box: Box
    confidence: float
    number: float | None = None
    percent: bool = False

    @property
    def style(self) -> str:
        """What is printed round the number ("$ cm" of "$260 cm", "" of "250"): a value label's, or an axis's."""
        return " ".join(re.sub(r"[\d.,\s\-+]+", " ", self.text).split()) if self.number is not None else ""

    @property
    def cx(self) -> float:
        return (self.box.x0 + self.box.x1) / 2

    @property
    def cy(self) -> float:
        return (self.box.y0 + self.box.y1) / 2

    @property
    def height(self) -> float:
        return self.box.height


#: A unit printed after a value label ("26.4 h", "12 kg", "21.8°C"): the number is the value.
_UNIT_AFTER = re.compile(r"(?<=\d)(?:°[CF]?|hrs?|h|mins?|sec|kg|g|km|mi|mm|cm|ml|kwh|mph|pts|yrs?|years|days|hours)$",
                         re.I)


def parse_number(text: str) -> tuple[float, bool] | None:
    """``(value, is_percent)`` for a printed number ("1,200", "−5", "$3.5k", "42%"), else None."""
    s = text.strip().replace("\u2212", "-").replace("\u2013", "-")
    # Tick marks are read as dashes: "800-" and "- 0" (a minus sign is never detached from its number).
    s = re.sub(r"^[-_]\s+|[-_]+$", "", s.strip()).replace(" ", "")
    s = _UNIT_AFTER.sub("", s) if _UNIT_AFTER.search(s) and s[:1] in "+-.0123456789$€£¥" else s
    percent = s.endswith("%")
    s = s.rstrip("%").lstrip("$€£¥").rstrip("$€£¥")
    scale = 1.0
    if re.search(r"\d(?:bn|Bn|BN)$", s):  # "$1.62bn"
        scale, s = 1e9, s[:-2]
    elif s[-1:] in SCALE_SUFFIXES and len(s) > 1 and s[-2].isdigit():
        scale, s = SCALE_SUFFIXES[s[-1]], s[:-1]
    if re.fullmatch(r"[-+]?\d{1,3}(,\d{3})+(\.\d+)?", s):
        s = s.replace(",", "")
    elif re.fullmatch(r"[-+]?\d+,\d{1,2}", s):  # decimal comma
        s = s.replace(",", ".")
    if any(ch.isdigit() for ch in s) and len(s) > 1:
        s = s.replace("O", "0").replace("o", "0")  # OCR reads 0 as O inside numbers
    if not _NUMBER_RE.match(s):
        return None
    return float(s) * scale, percent


def make_texts(lines: list, scale: float) -> list[Text]:
    """OCR lines (``scale`` times their pixels) as ``Text`` in work pixels; tall narrow boxes (rotated axis
    titles) and giant ones (shapes read as letters) dropped."""
    texts = []
    heights = sorted(line.box.height for line in lines)
    typical = heights[len(heights) // 2] if heights else 0.0
    for line in lines:
        if line.box.height > max(3 * typical, 40 / scale):
            continue  # a whole shape read as one giant letter (a pie as "O")
        if not any(ch.isalnum() for ch in line.text):
            continue  # markers and tick marks read as "!", "-", "●"
        box = Box(line.box.x0 * scale, line.box.y0 * scale, line.box.x1 * scale, line.box.y1 * scale)
        if box.height > 2.5 * box.width and len(line.text) >= 3:
            continue
        text = re.sub(r"^(?:[-_|]+\s+)+|(?:\s+[-_|]+)+$", "", line.text)  # tick marks beside labels
        parsed = parse_number(text)
        texts.append(Text(text, box, float(line.confidence), None if parsed is None else parsed[0],
                          bool(parsed and parsed[1])))
    return texts


def replace_region(texts: list[Text], new: list[Text], region: Box) -> list[Text]:
    """``texts`` merged with ``new``, a second reading of ``region``: where two readings cover the same words the
    more confident one stays; a text only one reading found stays too (each reading misses different words)."""
    fresh = [t for t in new if region.x0 <= t.cx <= region.x1 and region.y0 <= t.cy <= region.y1]
    out = list(fresh)
    for old in texts:
        clashes = [t for t in fresh if _shared(old.box, t.box) > 0.5]
        if not clashes:
            out.append(old)
        elif all(old.box.iou(t.box) > 0.5 and old.confidence > t.confidence for t in clashes):
            out = [t for t in out if t not in clashes] + [old]
    return out


def _shared(a: Box, b: Box) -> float:
    """Overlap as a share of the smaller box."""
    ix = max(0.0, min(a.x1, b.x1) - max(a.x0, b.x0))
    iy = max(0.0, min(a.y1, b.y1) - max(a.y0, b.y0))
    smaller = min(a.area, b.area)
    return ix * iy / smaller if smaller > 0 else 0.0


def fit_axis(texts: list[Text], orientation: str) -> tuple[AxisFit, list[Text]] | None:
    """Calibrate a value axis from aligned numeric labels; ``orientation`` "y" (values grow upwards) or "x"."""
    numbers = [t for t in texts if t.number is not None]
    if len(numbers) < 2:
        return None
    height = float(np.median([t.height for t in numbers]))
    groups: list[list[Text]] = []
    if orientation == "y":
        for key in (lambda t: t.box.x1, lambda t: t.box.x0):  # right-aligned left axis, left-aligned right axis
            values = [key(t) for t in numbers]
            groups += [[numbers[i] for i in g] for g in cluster_1d(values, max(4.0, 0.5 * height)) if len(g) >= 2]
    else:
        values = [t.cy for t in numbers]
        groups += [[numbers[i] for i in g] for g in cluster_1d(values, max(3.0, 0.4 * height)) if len(g) >= 2]
    # Ticks are printed alike: "$260 cm" over a point beside the "250" of the axis is a value label.
    groups = [kept for kept in (_one_style(g) for g in groups) if len(kept) >= 2]
    best: tuple[int, float, AxisFit, list[Text]] | None = None
    for group in groups:
        for inverted in (False, True):
            fit = _ransac(group, orientation, height, inverted)
            if fit is None or (inverted and len(fit[1]) < 3):
                continue
            axis, used = fit
            rank = (len(used), -axis.residual)
            if best is None or rank > (best[0], best[1]):
                best = (len(used), -axis.residual, axis, used)
    if best is None:
        return None
    axis, used = best[2], best[3]
    if _off_the_line(groups, axis, used, height):
        axis.scale = "nonlinear"
    axis.twin = orientation == "y" and _twin_axis(groups, axis, used, height)
    return axis, used


def _twin_axis(groups: list[list[Text]], axis: AxisFit, used: list[Text], height: float) -> bool:
    """Whether another column of tick labels, at least three, away from the axis fitted, makes an axis of its own
    that gives other values at the same heights: a dual-axis chart."""
    chosen = {id(t) for t in used}
    column = float(np.median([t.cx for t in used]))
    low, high = min(p for p, _ in axis.ticks), max(p for p, _ in axis.ticks)
    span = abs(axis.value_at(high) - axis.value_at(low))
    for group in groups:
        if any(id(t) in chosen for t in group) or abs(float(np.median([t.cx for t in group])) - column) < 10 * height:
            continue
        fit = _ransac(group, "y", height)
        if fit is None or len(fit[1]) < 3:
            continue
        other = fit[0]
        if max(abs(other.value_at(p) - axis.value_at(p)) for p in (low, high)) > 0.05 * span:
            return True
    return False


def _one_style(group: list[Text]) -> list[Text]:
    """The texts of ``group`` printed in its most common style (ties: the plainest)."""
    counts: dict[str, int] = {}
    for t in group:
        counts[t.style] = counts.get(t.style, 0) + 1
    style = max(counts, key=lambda k: (counts[k], -len(k)))
    return [t for t in group if t.style == style]


def _off_the_line(groups: list[list[Text]], axis: AxisFit, used: list[Text], height: float) -> bool:
    """Whether two or more other labels of the fitted group sit well off the fitted line *in order* with the
    ticks used (each between its neighbours' values): the axis is a log or power scale. A misread label ("60"
    read as "09") is out of order, and is ignored."""
    group = next((g for g in groups if all(u in g for u in used)), [])
    spread = max(v for _, v in axis.ticks) - min(v for _, v in axis.ticks)
    ticks = sorted(axis.ticks)
    off = 0
    for t in group:
        if t in used or t.number is None:
            continue
        pos = t.cy if axis.orientation == "y" else t.cx
        if abs(axis.value_at(pos) - t.number) <= max(0.05 * spread, 1e-9):
            continue
        before = [v for p, v in ticks if p < pos]
        after = [v for p, v in ticks if p > pos]
        rising = axis.slope > 0  # values grow with the pixel position
        lower, upper = (before[-1] if before else None), (after[0] if after else None)
        if not rising:
            lower, upper = upper, lower
        if (lower is None or t.number > lower) and (upper is None or t.number < upper):
            off += 1
    return off >= 2


def _ransac(group: list[Text], orientation: str, height: float,
            inverted: bool = False) -> tuple[AxisFit, list[Text]] | None:
    pos = np.array([t.cy if orientation == "y" else t.cx for t in group])
    val = np.array([t.number for t in group], dtype=np.float64)
    tol_px = max(3.0, 0.35 * height)
    best: np.ndarray | None = None
    for i, j in combinations(range(len(group)), 2):
        if abs(pos[i] - pos[j]) < 2 * tol_px or val[i] == val[j]:
            continue
        slope = (val[j] - val[i]) / (pos[j] - pos[i])
        if ((orientation == "y") != (slope < 0)) != inverted:  # y values grow upwards (pixel y grows downwards)
            continue
        intercept = val[i] - slope * pos[i]
        inliers = np.abs((val - intercept) / slope - pos) <= tol_px
        if best is None or inliers.sum() > best.sum():
            best = inliers
    if best is None or best.sum() < 2:
        return None
    slope, intercept = np.polyfit(pos[best], val[best], 1)
    residual = float(np.abs(slope * pos[best] + intercept - val[best]).max())
    used = [t for t, ok in zip(group, best, strict=True) if ok]
    ticks = sorted((float(p), float(v)) for p, v, ok in zip(pos, val, best, strict=True) if ok)
    return AxisFit(orientation, float(slope), float(intercept), ticks, residual,
                   "inverted" if inverted else "linear"), used


def rows_of(texts: list[Text]) -> list[list[Text]]:
    """Texts grouped into visual rows (vertical overlap of at least half the smaller height), top to bottom."""
    rows: list[list[Text]] = []
    for t in sorted(texts, key=lambda t: t.cy):
        for row in rows:
            top = min(r.box.y0 for r in row)
            bottom = max(r.box.y1 for r in row)
            if min(bottom, t.box.y1) - max(top, t.box.y0) >= 0.5 * min(bottom - top, t.height):
                row.append(t)
                break
        else:
            rows.append([t])
    return [sorted(r, key=lambda t: t.box.x0) for r in rows]


def merge_words(row: list[Text]) -> list[Text]:
    """Neighbouring texts of one row joined when the gap is word-sized (OCR splits "Team A" at times)."""
    merged: list[Text] = []
    for t in sorted(row, key=lambda t: t.box.x0):
        if merged:
            last = merged[-1]
            gap = t.box.x0 - last.box.x1
            if gap < 0.35 * max(last.height, t.height) and (last.number is None or t.number is None):
                box = Box(last.box.x0, min(last.box.y0, t.box.y0), t.box.x1, max(last.box.y1, t.box.y1))
                merged[-1] = Text(f"{last.text} {t.text}", box, min(last.confidence, t.confidence))
                continue
        merged.append(t)
    return merged


def reread_doubtful(labels: list[Text], pitch: float, reread: Callable[[Box], list[Text]],
                    doubt: float = 0.97) -> list[Text]:
    """Each level label read with a confidence under ``doubt`` read again alone, in a crop one category wide: in a
    whole row the recogniser at times clips or merges short words ("Wed" read "ed", "Thu" read "4l"), which it
    reads whole on their own, and a clipped word can still score 0.92. The second reading replaces the first only
    when it is more confident."""
    out = []
    # The row's band, not the word's own box: a word found alone in a small crop has a tighter box than its row.
    top, bottom = float(np.median([t.box.y0 for t in labels])), float(np.median([t.box.y1 for t in labels]))
    for t in labels:
        if t.confidence >= doubt or t.box.width < 4:  # a slanted label's box is its tick: no crop to read
            out.append(t)
            continue
        half = max(pitch / 2 - 1, t.box.width / 2 + 0.5 * t.height)
        y0, y1 = min(top, t.box.y0), max(bottom, t.box.y1)
        # Three margins: how much blank the recogniser sees around a short word sways it ("Fri" or "Fi").
        words = [w for pad in (0.0, 0.15, 0.4)
                 for row in rows_of(reread(Box(t.cx - half, y0 - pad * (y1 - y0), t.cx + half, y1 + pad * (y1 - y0))))
                 for w in merge_words(row) if w.text.strip()]
        # The crop's margins can reach an axis title or a tick number: only a word on the label's own row counts.
        better = [w for w in words if abs(w.cx - t.cx) < 0.4 * max(pitch, t.box.width)
                  and abs(w.cy - (y0 + y1) / 2) < 0.35 * (y1 - y0) and w.confidence > t.confidence]
        out.append(max(better, key=lambda w: w.confidence) if better else t)
    return out


def split_by_gaps(texts: list[Text], rgb: np.ndarray) -> list[Text]:
    """Texts that OCR read across neighbouring labels ("Apples BananasCherries") split at the wide blank gaps
    inside their boxes: a gap over 0.6 of the text height is no word space. Words go to the pieces by count when
    the counts agree, else characters are shared out by the pieces' widths."""
    out: list[Text] = []
    h_img, w_img = rgb.shape[:2]
    for t in texts:
        x0, x1 = int(max(0, t.box.x0)), int(min(w_img, t.box.x1))
        y0, y1 = int(max(0, t.box.y0)), int(min(h_img, t.box.y1))
        if x1 - x0 < 2 * t.height or y1 - y0 < 4:
            out.append(t)
            continue
        patch = rgb[y0:y1, x0:x1]
        edge = np.concatenate([patch[0], patch[-1]])
        ink_cols = np.asarray((chebyshev(patch, np.median(edge, axis=0)) > 60).any(axis=0))
        pieces = _ink_runs(ink_cols, int(0.6 * t.height))
        if len(pieces) < 2:
            out.append(t)
            continue
        chunks = _share_text(t.text, [b - a for a, b in pieces])
        for (a, b), chunk in zip(pieces, chunks, strict=True):
            if not chunk:
                continue
            parsed = parse_number(chunk)
            out.append(Text(chunk, Box(x0 + a, t.box.y0, x0 + b, t.box.y1), t.confidence,
                            parsed[0] if parsed else None, bool(parsed and parsed[1])))
    return out


def _ink_runs(ink: np.ndarray, min_gap: int) -> list[tuple[int, int]]:
    """``(start, end)`` column ranges of ink separated by blank gaps of at least ``min_gap`` columns."""
    idx = np.flatnonzero(ink)
    if len(idx) == 0:
        return []
    runs = [[int(idx[0]), int(idx[0]) + 1]]
    for i in idx[1:]:
        if i - runs[-1][1] >= min_gap:
            runs.append([int(i), int(i) + 1])
        else:
            runs[-1][1] = int(i) + 1
    return [(a, b) for a, b in runs]


def _share_text(text: str, widths: list[int]) -> list[str]:
    words = text.split()
    if len(words) == len(widths):
        return words
    compact = text.replace(" ", "")
    total = float(sum(widths))
    chunks, start, acc = [], 0, 0.0
    for i, width in enumerate(widths):
        acc += width
        end = len(compact) if i == len(widths) - 1 else round(len(compact) * acc / total)
        chunks.append(compact[start:end])
        start = end
    return chunks


def find_title(texts: list[Text], plot_top: float, image_height: int, skip: set[int]) -> tuple[str, list[Text]]:
    """The topmost row of words above the plot (and in the top third), skipping texts whose ids are in ``skip``."""
    limit = min(plot_top, image_height / 3)
    candidates = [t for t in texts if id(t) not in skip and t.box.y1 <= limit + 2 and t.number is None]
    if not candidates:
        return "", []
    row = rows_of(candidates)[0]
    return " ".join(t.text for t in row), row


def to_image_box(box: Box, scale: float, size: tuple[int, int]) -> Box:
    """A work-image box back in original-image pixels."""
    return Box(box.x0 / scale, box.y0 / scale, box.x1 / scale, box.y1 / scale).clamp(*size)


def image_array(image: Image.Image) -> np.ndarray:
    return np.asarray(image.convert("RGB"), dtype=np.uint8)


def reconcile(measured: float | None, printed: float | None, span: float) -> tuple[float, str, str | None]:
    """Choose between a measured and a printed value: ``(value, source, warning or None)``.

    A printed number wins when it agrees with the geometry (it is what the author wrote, exactly); when they
    disagree by more than 5 % (and 2 % of the axis span; measurements are good to about 1 %) the OCR is more likely wrong than the pixels.
    """
    if printed is None and measured is None:
        raise ValueError("reconcile needs at least one value")
    if printed is None:
        return float(measured), "axis", None  # type: ignore[arg-type]
    if measured is None:
        return printed, "label", None
    tolerance = max(0.05 * abs(measured), 0.02 * abs(span))
    if abs(printed - measured) <= tolerance:
        return printed, "label", None
    for scale in (1e3, 1e6, 1e9):
        # "41.7M" over an axis of millions (ticks 0, 10, 20…): the label in the axis's own units.
        if abs(printed / scale - measured) <= tolerance:
            return printed / scale, "label", None
    return measured, "axis", f"printed {printed:g} disagrees with measured {measured:.4g}; kept the measurement"
