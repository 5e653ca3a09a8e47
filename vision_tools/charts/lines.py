"""Line charts to a table: one series per line colour, one row per category label on the x axis.

Each coloured polyline is traced as a column-wise centre line (the median row of its pixels in each column, which
is the true centre of a straight stroke at any slope). The value at a category is read where the label's centre
meets the line: the segments on either side of that column are fitted a few pixels away from it and extended to
it, so markers and the corner at a peak do not bias the reading. Tick labels calibrate the y axis; numbers printed
next to the points are used when they agree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision_tools.charts.axes import (
    Text,
    find_legend,
    fit_axis,
    legend_region,
    merge_words,
    reconcile,
    replace_region,
    rows_of,
    split_by_gaps,
)
from vision_tools.charts.pixels import Palette, colour_mask
from vision_tools.charts.result import DEFAULT_SERIES, AxisFit, ChartMark
from vision_tools.image.boxes import Box

#: Line colours must be clearly coloured: grey and black are text, axes and grids.
MIN_CHROMA = 40


@dataclass
class LineParse:
    """What the line parser read, in work-image pixels."""

    series: list[str]
    categories: list[str]
    table: dict[str, dict[str, float]]
    marks: list[ChartMark]
    axis: AxisFit | None
    used_texts: set[int]
    plot_top: float
    warnings: list[str]


@dataclass
class _Trace:
    colour: int
    centre: np.ndarray  # per column: centre row of the line, NaN where the line is absent
    x0: int
    x1: int
    top: float
    bottom: float


def trace_lines(rgb: np.ndarray, palette: Palette, keys: list[Box] = ()) -> list[_Trace]:
    """Every coloured polyline spanning a good part of the image width; pieces inside ``keys`` (legend samples)
    are left out, every other piece is kept (a line crossed by another one is cut into several)."""
    h, w = rgb.shape[:2]
    traces = []
    joiner = cv2.getStructuringElement(cv2.MORPH_RECT, (7, 7))
    # Anti-aliased grey text comes within tolerance of dull colours (brown): lines are never grey.
    coloured = rgb.max(axis=2).astype(np.int16) - rgb.min(axis=2) >= 20
    for index in palette.ink():
        if palette.chroma(index) < MIN_CHROMA:
            continue
        mask = (colour_mask(rgb, palette, index, tol=40) & coloured).astype(np.uint8)
        # Components of the dilated mask: dashes, markers and the gaps where another line crosses stay together.
        n, labels, stats, _ = cv2.connectedComponentsWithStats(cv2.dilate(mask, joiner), connectivity=8)
        if n <= 1:
            continue
        spans = stats[1:, cv2.CC_STAT_WIDTH]
        longest = int(spans.max())
        if longest < 0.2 * w:
            continue
        keep = np.zeros(n, dtype=bool)
        for k in range(1, n):
            x, y, bw, bh, area = stats[k]
            cx, cy = x + bw / 2, y + bh / 2
            keep[k] = area > 80 and not any(b.x0 <= cx <= b.x1 and b.y0 <= cy <= b.y1 for b in keys)
        line = (mask > 0) & keep[labels]
        # A filled area (bars, a pie slice) is not a line: lines cover little of their bounding box.
        ys, xs = np.nonzero(line)
        if len(xs) == 0 or len(xs) > 0.25 * (np.ptp(xs) + 1) * (np.ptp(ys) + 1):
            continue
        centre = np.full(w, np.nan)
        order = np.argsort(xs, kind="stable")
        xs, ys = xs[order], ys[order]
        cols, starts = np.unique(xs, return_index=True)
        for col, group in zip(cols, np.split(ys, starts[1:]), strict=True):
            centre[col] = float(np.median(group))
        traces.append(_Trace(index, centre, int(cols.min()), int(cols.max()), float(ys.min()), float(ys.max())))
    return traces


def value_row(trace: _Trace, x: float, near: int, far: int) -> float | None:
    """The line's row at column ``x``, from straight fits of the segments on either side of it."""
    xi = int(round(x))
    estimates = []
    for sign in (-1, 1):
        cols = np.arange(xi + sign * near, xi + sign * far + sign, sign)
        cols = cols[(cols >= 0) & (cols < len(trace.centre))]
        rows = trace.centre[cols] if len(cols) else np.array([])
        ok = ~np.isnan(rows)
        if ok.sum() >= 3:
            slope, intercept = np.polyfit(cols[ok], rows[ok], 1)
            estimates.append(slope * x + intercept)
    if estimates:
        return float(np.mean(estimates))
    window = trace.centre[max(0, xi - 2):xi + 3]
    window = window[~np.isnan(window)]
    return float(np.median(window)) if len(window) else None


def parse_lines(rgb: np.ndarray, palette: Palette, texts: list[Text],
                reread: Callable[[Box], list[Text]] | None = None) -> LineParse | None:
    """The line chart in ``rgb``, or None. ``reread(region)`` OCRs a region again, enlarged, when the tick labels
    or the category labels read look incomplete."""
    legend = find_legend(texts, rgb, palette)
    keys = [Box(t.box.x0 - 5 * t.height, t.box.y0, t.box.x0, t.box.y1) for t, _ in legend]
    traces = trace_lines(rgb, palette, keys)
    if reread is not None and 0 < len(legend) < len(traces):
        region = legend_region(legend, len(traces) - len(legend), rgb.shape)
        texts = replace_region(texts, reread(region), region)
        legend = find_legend(texts, rgb, palette)
        keys = [Box(t.box.x0 - 5 * t.height, t.box.y0, t.box.x0, t.box.y1) for t, _ in legend]
        traces = trace_lines(rgb, palette, keys)
    if not traces:
        return None
    warnings: list[str] = []
    h_img, w_img = rgb.shape[:2]
    text_h = float(np.median([t.height for t in texts])) if texts else 12.0
    left = min(t.x0 for t in traces)
    right = max(t.x1 for t in traces)
    bottom = max(t.bottom for t in traces)
    top = min(t.top for t in traces)
    pitch_guess = max(20.0, (right - left) / 10)
    tick_strip = Box(0, 0, max(1, left - 1), min(h_img, bottom + 3 * text_h))
    label_strip = Box(max(0, left - pitch_guess), bottom + 1, min(w_img, right + pitch_guess),
                      min(h_img, bottom + 5 * text_h))

    for attempt in range(2):
        side = [t for t in texts if t.box.x1 <= left + 2 or t.box.x0 >= right - 2]
        fitted = fit_axis(side, "y")
        axis, ticks = fitted if fitted else (None, [])
        legend = [(t, c) for t, c in legend if t not in ticks]
        used = {id(t) for t in ticks} | {id(t) for t, _ in legend}
        below = [t for t in texts if id(t) not in used and t.box.y0 >= bottom - 2
                 and left - pitch_guess <= t.cx <= right + pitch_guess]
        labels: list[Text] = []
        for row in rows_of(below):
            row = split_by_gaps(merge_words(row), rgb)
            if len(row) >= 2 or (len(row) == 1 and right - left < 3 * text_h):
                labels = row
                break
        xs = sorted(t.cx for t in labels)
        gaps = np.diff(xs) if len(xs) > 1 else np.array([])
        # Evenly spaced labels with one missing leave a double gap.
        missing_labels = len(labels) < 2 or bool(len(gaps) and gaps.max() > 1.6 * gaps.min()) or any(
            t.confidence < 0.8 for t in labels)
        if attempt == 1 or reread is None or not (missing_labels or len(ticks) < 3):
            break
        if len(ticks) < 3 and tick_strip.width > 4:
            texts = replace_region(texts, reread(tick_strip), tick_strip)
        if missing_labels and label_strip.height > 4:
            texts = replace_region(texts, reread(label_strip), label_strip)
    if not labels:
        return None
    used |= {id(t) for t in labels}
    xs = sorted(t.cx for t in labels)
    pitch = float(np.median(np.diff(xs))) if len(xs) > 1 else 4 * text_h
    near = int(max(5, round(0.7 * text_h)))
    far = int(min(near + max(6, round(0.8 * text_h)), max(near + 3, pitch / 2 - 1)))

    names = _series_names(traces, legend, palette)
    numbers = [t for t in texts if t.number is not None and id(t) not in used]
    points: dict[tuple[int, int], tuple[float, float]] = {}  # (trace, label) -> (x, row)
    for ti, trace in enumerate(traces):
        for li, label in enumerate(labels):
            if not trace.x0 - 3 <= label.cx <= trace.x1 + 3:
                continue
            row = value_row(trace, label.cx, near, far)
            if row is not None:
                points[(ti, li)] = (label.cx, row)
    printed = _printed(numbers, points, text_h, axis)
    if axis is None and not printed:
        return None
    span = 0.0 if axis is None else max(v for _, v in axis.ticks) - min(v for _, v in axis.ticks)
    table: dict[str, dict[str, float]] = {}
    marks: list[ChartMark] = []
    for (ti, li), (x, row) in sorted(points.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        measured = axis.value_at(row) if axis else None
        label_text = printed.get((ti, li))
        if measured is None and label_text is None:
            continue
        value, source, warning = reconcile(measured, label_text.number if label_text else None, span)
        category = labels[li].text
        if warning:
            warnings.append(f"{category}: {warning}")
        if label_text is not None:
            used.add(id(label_text))
        table.setdefault(category, {})[names[ti]] = value
        marks.append(ChartMark(category, names[ti], value, source, Box(x - 4, row - 4, x + 4, row + 4), measured,
                               label_text.number if label_text else None, palette.rgb(traces[ti].colour)))
    if axis is None:
        warnings.append("no value axis could be calibrated from tick labels; printed values only")
    plot_top = min([top] + ([min(p for p, _ in axis.ticks)] if axis else []))
    categories = [t.text for t in sorted(labels, key=lambda t: t.cx) if t.text in table]
    series = list(dict.fromkeys(names[ti] for ti in range(len(traces))))
    return LineParse(series, categories, table, marks, axis, used, plot_top, warnings)


def _series_names(traces: list[_Trace], legend: list[tuple[Text, int]], palette: Palette) -> list[str]:
    names = []
    for i, trace in enumerate(traces):
        name = None
        for text, colour in legend:
            if np.abs(palette.colours[colour] - palette.colours[trace.colour]).max() <= 40:
                name = text.text
                break
        names.append(name or (DEFAULT_SERIES if len(traces) == 1 else f"Series {i + 1}"))
    return names


def _printed(numbers: list[Text], points: dict[tuple[int, int], tuple[float, float]], text_h: float,
             axis: AxisFit | None) -> dict[tuple[int, int], Text]:
    """Each printed number given to a point beside it (one number per point). Where lines run close, several
    points are beside a number: the one whose measured value is nearest the number wins."""
    found: dict[tuple[int, int], tuple[float, Text]] = {}
    for t in numbers:
        best: tuple[float, tuple[int, int]] | None = None
        for key, (x, row) in points.items():
            dx = max(0.0, abs(t.cx - x) - t.box.width / 2)
            dy = max(0.0, t.box.y0 - row, row - t.box.y1)
            if float(np.hypot(dx, dy)) > 2.0 * text_h:
                continue
            score = abs(axis.value_at(row) - t.number) if axis is not None else float(np.hypot(dx, dy))
            if best is None or score < best[0]:
                best = (score, key)
        if best is not None and (best[1] not in found or best[0] < found[best[1]][0]):
            found[best[1]] = (best[0], t)
    return {key: t for key, (_, t) in found.items()}
