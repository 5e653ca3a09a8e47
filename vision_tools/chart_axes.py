"""The text of a chart: numbers, value-axis calibration from tick labels, category rows, legend and title.

A value axis is calibrated from the OCR'd numbers of its tick labels: labels of one axis share an alignment (the
right edge for a left y axis, the centre line for an x axis), and their values are linear in their positions. Among
the aligned numbers the largest subset that is linear within a few pixels is kept (a RANSAC over pairs), so a value
label that happens to line up with the ticks, or a misread tick, does not bend the fit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from PIL import Image

from vision_tools.boxes import Box
from vision_tools.chart_pixels import Palette, chebyshev, cluster_1d
from vision_tools.chart_result import AxisFit

_NUMBER_RE = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)$")
_SUFFIX = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9}


@dataclass(eq=False)  # compared and hashed by identity: two labels may read alike
class Text:
    """One OCR'd line in work-image pixels, with its number when it is one."""

    text: str
    box: Box
    confidence: float
    number: float | None = None
    percent: bool = False

    @property
    def cx(self) -> float:
        return (self.box.x0 + self.box.x1) / 2

    @property
    def cy(self) -> float:
        return (self.box.y0 + self.box.y1) / 2

    @property
    def height(self) -> float:
        return self.box.height


def parse_number(text: str) -> tuple[float, bool] | None:
    """``(value, is_percent)`` for a printed number ("1,200", "−5", "$3.5k", "42%"), else None."""
    s = text.strip().replace("\u2212", "-").replace("\u2013", "-").replace(" ", "")
    percent = s.endswith("%")
    s = s.rstrip("%").lstrip("$€£¥").rstrip("$€£¥")
    scale = 1.0
    if s[-1:] in _SUFFIX and len(s) > 1 and s[-2].isdigit():
        scale, s = _SUFFIX[s[-1]], s[:-1]
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
    """OCR lines (original pixels) as ``Text`` in work pixels; tall narrow boxes (rotated axis titles) dropped."""
    texts = []
    for line in lines:
        box = Box(line.box.x0 * scale, line.box.y0 * scale, line.box.x1 * scale, line.box.y1 * scale)
        if box.height > 2.5 * box.width and len(line.text) >= 3:
            continue
        parsed = parse_number(line.text)
        texts.append(Text(line.text, box, float(line.confidence), None if parsed is None else parsed[0],
                          bool(parsed and parsed[1])))
    return texts


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
    best: tuple[int, float, AxisFit, list[Text]] | None = None
    for group in groups:
        fit = _ransac(group, orientation, height)
        if fit is None:
            continue
        axis, used = fit
        key = (len(used), -axis.residual)
        if best is None or key > (best[0], best[1]):
            best = (len(used), -axis.residual, axis, used)
    return None if best is None else (best[2], best[3])


def _ransac(group: list[Text], orientation: str, height: float) -> tuple[AxisFit, list[Text]] | None:
    pos = np.array([t.cy if orientation == "y" else t.cx for t in group])
    val = np.array([t.number for t in group], dtype=np.float64)
    tol_px = max(3.0, 0.35 * height)
    best: np.ndarray | None = None
    for i, j in combinations(range(len(group)), 2):
        if abs(pos[i] - pos[j]) < 2 * tol_px or val[i] == val[j]:
            continue
        slope = (val[j] - val[i]) / (pos[j] - pos[i])
        if (orientation == "y") != (slope < 0):  # y values grow upwards (pixel y grows downwards)
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
    return AxisFit(orientation, float(slope), float(intercept), ticks, residual), used


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
            if gap < 0.6 * max(last.height, t.height) and (last.number is None or t.number is None):
                box = Box(last.box.x0, min(last.box.y0, t.box.y0), t.box.x1, max(last.box.y1, t.box.y1))
                merged[-1] = Text(f"{last.text} {t.text}", box, min(last.confidence, t.confidence))
                continue
        merged.append(t)
    return merged


def find_legend(texts: list[Text], rgb: np.ndarray, palette: Palette) -> list[tuple[Text, int]]:
    """``(text, colour index)`` for texts with a short patch (or line sample) of one ink colour just to their left.

    The key must be compact: within the text's height (a bar beside or under a label reaches beyond it) and
    within a few character heights of the text (a bar ending before a value label extends further left).
    """
    entries = []
    h_img = rgb.shape[0]
    ink = [i for i in palette.ink() if palette.chroma(i) >= 25]  # greys are text and axes; grey keys unsupported
    for t in texts:
        h = max(4.0, t.height)
        ya, yb = int(max(0, t.box.y0 - 0.6 * h)), int(min(h_img, t.box.y1 + 0.6 * h + 1))
        xa, xb = int(max(0, t.box.x0 - 7 * h)), int(t.box.x0) - 1
        if xb - xa < 4 or yb - ya < 2:
            continue
        band = rgb[ya:yb, xa:xb]
        best, best_count = -1, 0
        for index in ink:
            hit = chebyshev(band, palette.colours[index]) <= 40
            count = int(hit.sum())
            if count < 0.25 * h or count <= best_count:
                continue
            rows = np.flatnonzero(hit.any(axis=1)) + ya
            cols = np.flatnonzero(hit.any(axis=0)) + xa
            if rows.min() < t.box.y0 - 1 or rows.max() > t.box.y1 + 1:
                continue
            if cols.min() < t.box.x0 - 4.5 * h or cols.max() < t.box.x0 - 1.5 * h:
                continue
            best, best_count = index, count
        if best >= 0:
            entries.append((t, best))
    return entries


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
    disagree by more than 10 % (and 4 % of the axis span) the OCR is more likely wrong than the pixels.
    """
    if printed is None and measured is None:
        raise ValueError("reconcile needs at least one value")
    if printed is None:
        return float(measured), "axis", None  # type: ignore[arg-type]
    if measured is None:
        return printed, "label", None
    if abs(printed - measured) <= max(0.1 * abs(measured), 0.04 * abs(span)):
        return printed, "label", None
    return measured, "axis", f"printed {printed:g} disagrees with measured {measured:.4g}; kept the measurement"
