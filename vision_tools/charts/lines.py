"""Line charts to a table: one series per line colour, one row per category label on the x axis.

Each coloured polyline is traced as a column-wise centre line (the median row of its pixels in each column, which
is the true centre of a straight stroke at any slope). The value at a category is read where the label's centre
meets the line: the segments on either side of that column are fitted a few pixels away from it and extended to
it, so markers and the corner at a peak do not bias the reading. Tick labels calibrate the y axis; numbers printed
next to the points are used when they agree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision_tools.charts import config
from vision_tools.charts.axes import (
    Text,
    fit_axis,
    merge_words,
    reconcile,
    replace_region,
    reread_doubtful,
    rows_of,
    split_by_gaps,
)
from vision_tools.charts.legend import find_legend, legend_region
from vision_tools.charts.pixels import Palette, chroma_map, colour_mask
from vision_tools.charts.result import DEFAULT_SERIES, LEVEL_LINES, AxisFit, ChartMark
from vision_tools.charts.slanted import anchor_slanted, text_height
from vision_tools.image.boxes import Box


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
    centre: np.ndarray  # per column: centre row of the line (top row of an area), NaN where it is absent
    x0: int
    x1: int
    top: float
    bottom: float
    area: bool = False  # the top edge of a filled area
    clipped: list[tuple[int, int]] = field(default_factory=list)  # column runs cut off by the plot's top
    on_base: bool = True  # an area standing on a flat baseline (not a band of a stack)


def trace_lines(rgb: np.ndarray, palette: Palette, keys: Sequence[Box] = ()) -> list[_Trace]:
    """Every coloured polyline spanning a good part of the image width; pieces inside ``keys`` (legend samples)
    are left out, every other piece is kept (a line crossed by another one is cut into several)."""
    h, w = rgb.shape[:2]
    traces = []
    joiner = cv2.getStructuringElement(cv2.MORPH_RECT, (7, 7))
    # Anti-aliased grey text comes within tolerance of dull colours (brown): lines are never grey.
    coloured = chroma_map(rgb) >= 20
    for index in palette.ink():
        if palette.chroma(index) < config.CONFIG.min_line_chroma:
            continue
        mask = (colour_mask(rgb, palette, index, tol=40) & coloured).astype(np.uint8)
        # Components of the dilated mask: dashes, markers and the gaps where another line crosses stay together.
        n, labels, stats, _ = cv2.connectedComponentsWithStats(cv2.dilate(mask, joiner), connectivity=8)
        if n <= 1:
            continue
        keep = np.zeros(n, dtype=bool)
        for k in range(1, n):
            x, y, bw, bh, area = stats[k]
            cx, cy = x + bw / 2, y + bh / 2
            keep[k] = area > 80 and not any(b.x0 <= cx <= b.x1 and b.y0 <= cy <= b.y1 for b in keys)
        line = (mask > 0) & keep[labels]
        # Markers of another colour drawn over the line cut it into pieces: the pieces together must span a good
        # part of the width (a single one need not).
        if int(line.any(axis=0).sum()) < 0.2 * w:
            continue
        ys, xs = np.nonzero(line)
        if len(xs) == 0:
            continue
        if len(xs) > 0.25 * (np.ptp(xs) + 1) * (np.ptp(ys) + 1):
            # Filled: bars and pie slices are not lines, but an area chart's fill is one, read along its top edge.
            area = _area(line, index)
            if area is not None:
                traces.append(area)
            continue
        centre = np.full(w, np.nan)
        order = np.argsort(xs, kind="stable")
        xs, ys = xs[order], ys[order]
        cols, starts = np.unique(xs, return_index=True)
        for col, group in zip(cols, np.split(ys, starts[1:]), strict=True):
            centre[col] = float(np.median(group))
        traces.append(_Trace(index, centre, int(cols.min()), int(cols.max()), float(ys.min()), float(ys.max())))
    return _merge_same_line(traces)


def _area(filled: np.ndarray, colour: int) -> _Trace | None:
    """A filled area as a trace of its top edge, or None when ``filled`` is not one fill without gaps (bars have
    gaps between them); ``on_base`` says whether it stands on a flat baseline (a band of a stack does not). Where
    the top edge runs flat
    along the highest row the fill reaches, the area was cut off by the top of the plot: those columns are kept
    in ``clipped``, and no value is read there."""
    h, w = filled.shape
    present = filled.any(axis=0)
    cols = np.flatnonzero(present)
    if len(cols) < 0.2 * w or len(cols) < 0.97 * (cols[-1] - cols[0] + 1):
        return None
    tops = np.argmax(filled[:, cols], axis=0).astype(float)
    bottoms = (h - 1 - np.argmax(filled[::-1, cols], axis=0)).astype(float)
    base = float(np.median(bottoms))
    if np.median(bottoms - tops) < 0.02 * h:
        return None
    centre = np.full(w, np.nan)
    centre[cols] = tops
    ceiling = tops.min()
    flat = np.flatnonzero(tops <= ceiling + 1)
    clipped = [(int(cols[flat[a]]), int(cols[flat[b]])) for a, b in _runs_of(flat)
               if cols[flat[b]] - cols[flat[a]] >= 0.03 * w]
    on_base = bool(np.mean(np.abs(bottoms - base) <= 3) >= 0.85)  # a band of a stack has a wavy bottom
    return _Trace(colour, centre, int(cols[0]), int(cols[-1]), float(ceiling), base, True, clipped, on_base)


def _runs_of(index: np.ndarray) -> list[tuple[int, int]]:
    """``(first, last)`` positions in ``index`` of its runs of consecutive values."""
    if len(index) == 0:
        return []
    breaks = np.flatnonzero(np.diff(index) > 1)
    starts = np.concatenate([[0], breaks + 1])
    ends = np.concatenate([breaks, [len(index) - 1]])
    return list(zip(starts.tolist(), ends.tolist(), strict=True))


def _level_line(trace: _Trace) -> bool:
    """Whether ``trace`` is a dashed horizontal line, drawn level across the plot to mark a goal or an average
    ("Goal: 10,000"): no series of values, which would not be drawn dashed and dead flat."""
    if trace.area:
        return False
    span = trace.centre[trace.x0:trace.x1 + 1]
    drawn = ~np.isnan(span)
    if drawn.sum() < 10:
        return False
    # Most of it within 2 px of one row: text of the line's colour printed on it ("Goal: 10,000") moves a few columns.
    level = float(np.mean(np.abs(span[drawn] - np.median(span[drawn])) <= 2.0))
    return level >= 0.8 and float(drawn.mean()) < 0.85


def _merge_same_line(traces: list[_Trace]) -> list[_Trace]:
    """One line drawn in two colours (dots a darker red than the line; an area's fill and its outline) gives two
    traces along the same path: they are one series. Two traces are one when their centre lines coincide (within
    3 px) over at least half the columns of the shorter one."""
    merged: list[_Trace] = []
    for trace in sorted(traces, key=lambda t: -(t.x1 - t.x0)):
        for kept in merged:
            both = ~np.isnan(kept.centre) & ~np.isnan(trace.centre)
            shorter = min(int((~np.isnan(kept.centre)).sum()), int((~np.isnan(trace.centre)).sum()))
            if both.sum() >= max(10, 0.5 * shorter) and np.median(np.abs(kept.centre[both] - trace.centre[both])) <= 3:
                # The longer trace (the line) keeps its centre; the other fills the columns it lacks.
                gaps = np.isnan(kept.centre) & ~np.isnan(trace.centre)
                kept.centre[gaps] = trace.centre[gaps]
                kept.area, kept.clipped = kept.area or trace.area, kept.clipped + trace.clipped
                kept.x0, kept.x1 = min(kept.x0, trace.x0), max(kept.x1, trace.x1)
                kept.top, kept.bottom = min(kept.top, trace.top), max(kept.bottom, trace.bottom)
                break
        else:
            merged.append(trace)
    return merged


def value_row(trace: _Trace, x: float, near: int, far: int) -> float | None:
    """The line's row at column ``x``, from straight fits of the segments on either side of it."""
    xi = int(round(x))
    estimates, slopes = [], []
    for sign in (-1, 1):
        cols = np.arange(xi + sign * near, xi + sign * far + sign, sign)
        cols = cols[(cols >= 0) & (cols < len(trace.centre))]
        rows = trace.centre[cols] if len(cols) else np.array([])
        ok = ~np.isnan(rows)
        if ok.sum() >= 3:
            slope, intercept = np.polyfit(cols[ok], rows[ok], 1)
            estimates.append(slope * x + intercept)
            slopes.append(slope)
    if len(estimates) == 2 and abs(estimates[0] - estimates[1]) > max(4.0, 0.6 * near) \
            and max(abs(s) for s in slopes) < 0.05:
        # A step at this column (flat before, flat after at another level): no one value is drawn here. A sharp
        # peak's two slopes are steep, and their fits may miss each other by a few pixels without any step.
        return None
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
    warnings: list[str] = []
    if len(legend) < len(traces):
        level = [t for t in traces if _level_line(t)][:len(traces) - len(legend)]
        kept = [t for t in traces if not any(t is other for other in level)]
        if kept and len(kept) < len(traces):
            warnings.append(f"{LEVEL_LINES}: {len(traces) - len(kept)} across the plot (a goal, a target, an "
                            "average), not read as a series")
            traces = kept
    if not traces:
        return None
    if sum(t.area for t in traces) >= 2 or any(t.area and not t.on_base for t in traces):
        # Each fill's top edge is a running total of the ones below it, or hides part of another.
        return LineParse([], [], {}, [], None, set(), 0.0,
                         ["stacked or overlapping areas (fills of several colours) are not read by the tools"])
    h_img, w_img = rgb.shape[:2]
    text_h = text_height(texts)
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
        for line in rows_of(below):
            words = anchor_slanted(split_by_gaps(merge_words(line), rgb), text_h)
            if len(words) >= 2 or (len(words) == 1 and right - left < 3 * text_h):
                labels = words
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
    if reread is not None and len(labels) >= 3:
        labels = labels + _read_gaps(labels, bottom, text_h, rgb.shape, reread,
                                     (min(t.x0 for t in traces), max(t.x1 for t in traces)))
    if reread is not None and len(labels) >= 2:
        labels = reread_doubtful(labels, float(np.median(np.diff(sorted(t.cx for t in labels)))), reread)
    used |= {id(t) for t in labels}
    xs = sorted(t.cx for t in labels)
    pitch = float(np.median(np.diff(xs))) if len(xs) > 1 else 4 * text_h
    if len(xs) > 2 and max(np.diff(xs)) > 1.6 * pitch:
        warnings.append("the category labels read leave a gap: a label (and its point) may be missing")
    near = int(max(5, round(0.7 * text_h)))
    far = int(min(near + max(6, round(0.8 * text_h)), max(near + 3, pitch / 2 - 1)))

    names = _series_names(traces, legend, palette)
    numbers = [t for t in texts if t.number is not None and id(t) not in used and not _in_tick_column(t, ticks, text_h)]
    points: dict[tuple[int, int], tuple[float, float]] = {}  # (trace, label) -> (x, row)
    # A marker drawn over a line's first and last points hides its ends: reach a little beyond them.
    reach = max(3.0, min(0.15 * pitch, 1.5 * text_h))
    for ti, trace in enumerate(traces):
        for li, label in enumerate(labels):
            if not trace.x0 - reach <= label.cx <= trace.x1 + reach:
                continue
            row = value_row(trace, label.cx, near, far)
            if row is not None:
                points[(ti, li)] = (label.cx, row)
    if len(xs) > 1 and (min(t.x0 for t in traces) < xs[0] - 0.6 * pitch or max(t.x1 for t in traces) > xs[-1] + 0.6 * pitch):
        warnings.append("a line runs on beyond the category labels read: a label (and its point) may be missing")
    unread = [label.text for li, label in enumerate(labels) if not any((ti, li) in points for ti in range(len(traces)))]
    if unread:
        warnings.append(f"no point read for {len(unread)} category label(s) ({', '.join(unread[:4])}): a point may "
                        "be missing")
    printed = _printed(numbers, points, text_h, axis)
    if axis is None and not printed:
        return None
    span = 0.0 if axis is None else max(v for _, v in axis.ticks) - min(v for _, v in axis.ticks)
    table: dict[str, dict[str, float]] = {}
    marks: list[ChartMark] = []
    for (ti, li), (x, row) in sorted(points.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        measured = axis.value_at(row) if axis else None
        if any(a - reach <= x <= b + reach for a, b in traces[ti].clipped):
            warnings.append(f"{labels[li].text}: clipped at the top of the plot (the value is beyond what is drawn)")
            measured = None
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


def _read_gaps(labels: list[Text], bottom: float, text_h: float, shape: tuple[int, ...],
               reread: Callable[[Box], list[Text]], span: tuple[float, float]) -> list[Text]:
    """Labels read one at a time where an evenly spaced row has a hole — a double gap, or an end short of where
    the lines (``span``) begin or end: the detector that missed a short word ("Jul") or a slanted one in the
    whole row finds it alone in a small crop."""
    ordered = sorted(labels, key=lambda t: t.cx)
    xs = [t.cx for t in ordered]
    pitch = float(np.median(np.diff(xs)))
    reach = 2 * max(t.box.width for t in ordered)  # a slanted label runs left of its tick by its width
    deep = max(t.box.y1 for t in ordered) + 0.5 * text_h
    expected = [a + k * pitch for a, b in zip(xs, xs[1:], strict=False)
                for k in range(1, round((b - a) / pitch)) if round((b - a) / pitch) <= 4]
    expected += [x for x in (xs[0] - pitch, xs[0] - 2 * pitch) if x >= span[0] - 0.3 * pitch]
    expected += [x for x in (xs[-1] + pitch, xs[-1] + 2 * pitch) if x <= span[1] + 0.3 * pitch]
    found: list[Text] = []
    for x in expected:
        region = Box(x - max(0.5 * pitch, reach), bottom + 1, x + 0.5 * pitch, deep).clamp(shape[1], shape[0])
        if region.width < 4 or region.height < 4:
            continue
        words = anchor_slanted([t for row in rows_of(reread(region)) for t in merge_words(row)], text_h)
        near = [t for t in words if abs(t.cx - x) < 0.4 * pitch]
        if near:
            found.append(min(near, key=lambda t: abs(t.cx - x)))
    return found


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


def _in_tick_column(t: Text, ticks: list[Text], text_h: float) -> bool:
    """Whether ``t`` is printed like the ticks and in their column: a tick the fit left out (on a broken scale, the
    "250" beside the first point), not a point's label ("$260 cm" above it)."""
    if not ticks or t.style != ticks[0].style:
        return False
    tol = max(4.0, 0.5 * text_h)
    return any(abs(t.box.x0 - u.box.x0) <= tol or abs(t.box.x1 - u.box.x1) <= tol for u in ticks)


def _printed(numbers: list[Text], points: dict[tuple[int, int], tuple[float, float]], text_h: float,
             axis: AxisFit | None) -> dict[tuple[int, int], Text]:
    """Each printed number given to a point beside it (one number per point). Where lines run close, several
    points are beside a number: the one whose measured value is nearest the number wins."""
    found: dict[tuple[int, int], tuple[float, Text]] = {}
    for t in numbers:
        best: tuple[float, tuple[int, int]] | None = None
        if len(t.text.strip()) == 1 and any(t.box.x0 <= x <= t.box.x1 and t.box.y0 <= row <= t.box.y1
                                            for x, row in points.values()):
            continue  # a round marker read as "0": one glyph on a point itself, where no label is printed
        for key, (x, row) in points.items():
            dx = max(0.0, abs(t.cx - x) - t.box.width / 2)
            dy = max(0.0, t.box.y0 - row, row - t.box.y1)
            if float(np.hypot(dx, dy)) > 2.0 * text_h:
                continue
            if axis is not None and t.number is not None:
                score = abs(axis.value_at(row) - t.number)
            else:
                score = float(np.hypot(dx, dy))
            if best is None or score < best[0]:
                best = (score, key)
        if best is not None and (best[1] not in found or best[0] < found[best[1]][0]):
            found[best[1]] = (best[0], t)
    return {key: t for key, (_, t) in found.items()}
