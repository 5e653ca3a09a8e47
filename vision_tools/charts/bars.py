"""Bar charts (vertical, horizontal, grouped) to a table.

Bars are the solid rectangles that share a baseline: the same bottom edge (vertical bars) or the same left edge
(horizontal bars); the larger aligned set wins, which also keeps legend keys and square line markers out. Each bar
is measured against the value axis calibrated from the tick labels, and the number printed at its end, if any,
is used when it agrees. Category labels are the first row of text beyond the baseline, matched to bars by
position; when several bars share one label the chart is grouped, and the legend names the series by colour.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

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
from vision_tools.charts.bar_labels import out_of_line, printed_label, reread_value_labels
from vision_tools.charts.clipping import clipped_marks, spine_top
from vision_tools.charts.legend import find_legend, legend_region
from vision_tools.charts.pixels import Palette, Rect, cluster_1d
from vision_tools.charts.result import DEFAULT_SERIES, AxisFit, ChartMark
from vision_tools.charts.slanted import anchor_slanted, text_height, unlabel_cut
from vision_tools.charts.stacked import is_stacked, read_stacks, stack_chains
from vision_tools.image.boxes import Box


@dataclass
class BarParse:
    """What the bar parser read, in work-image pixels."""

    kind: str  # "bar" | "hbar" | "grouped_bar" | "stacked_bar" | "stacked_hbar"
    series: list[str]
    categories: list[str]
    table: dict[str, dict[str, float]]
    marks: list[ChartMark]
    axis: AxisFit | None
    used_texts: set[int]
    plot_top: float
    warnings: list[str]
    #: A stacked chart's stacks, one mark per category: the whole stack's value (see ``vision_tools.charts.stacked``).
    totals: list[ChartMark] = field(default_factory=list)


def find_bars(rects: list[Rect], shape: tuple[int, ...]) -> tuple[bool, list[Rect]] | None:
    """``(vertical, bars)``: the largest set of rectangles on a common baseline, or None."""
    h_img, w_img = shape[:2]
    best: tuple[tuple[int, int], bool, list[Rect]] | None = None
    for vertical in (True, False):
        keys = [float(r.y1 if vertical else r.x0) for r in rects]
        for group in cluster_1d(keys, 2.0):
            bars = [rects[i] for i in group]
            bars = _drop_overlaps(bars, vertical)
            extent = max((r.height if vertical else r.width) for r in bars)
            thick = min((r.width if vertical else r.height) for r in bars)
            if extent < max(12, 0.05 * (h_img if vertical else w_img)) or thick < 3:
                continue
            # A lone rectangle is a bar only when it is clearly elongated; square blobs are markers or keys.
            if len(bars) == 1 and extent < 2 * thick:
                continue
            score = (len(bars), sum(r.width * r.height for r in bars))
            if best is None or score > best[0]:
                best = (score, vertical, bars)
    if best is None:
        return None
    return best[1], sorted(best[2], key=lambda r: r.cx if best[1] else r.cy)


def _drop_overlaps(bars: list[Rect], vertical: bool) -> list[Rect]:
    """Bars along the baseline never overlap; keep the larger of two that do (e.g. a bar and a legend key)."""
    kept: list[Rect] = []
    for r in sorted(bars, key=lambda r: -(r.width * r.height)):
        lo, hi = (r.x0, r.x1) if vertical else (r.y0, r.y1)
        if all(min(hi, k.x1 if vertical else k.y1) - max(lo, k.x0 if vertical else k.y0) <= 1 for k in kept):
            kept.append(r)
    return kept


def parse_bars(rgb: np.ndarray, palette: Palette, rects: list[Rect], texts: list[Text],
               force: str | None = None, reread: Callable[[Box], list[Text]] | None = None) -> BarParse | None:
    """The bar chart in ``rgb``, or None. ``reread(region)`` OCRs a region again, enlarged: it is used when
    fewer tick or category labels were read than the bars call for (the detector misses small text at times)."""
    found = find_bars(rects, rgb.shape)
    if found is None:
        return None
    vertical, bars = found
    if force == "hbar" and vertical or force in ("bar", "grouped_bar") and not vertical:
        return None
    # A stacked bar read as its first segment alone would be wrong: its segments are read as one stack.
    chains = stack_chains(bars, rects, vertical) if is_stacked(bars, rects, vertical) else []
    if chains is None:
        return BarParse("stacked_bar", [], [], {}, [], None, set(), 0.0,
                        ["stacked bars whose segments could not be told apart are not read by the tools"])
    segments = [s for chain in chains for s in chain] or bars
    warnings: list[str] = []
    text_h = text_height(texts)
    lo = min(r.x0 for r in bars) if vertical else min(r.y0 for r in bars)
    hi = max(r.x1 for r in bars) if vertical else max(r.y1 for r in bars)
    base = float(np.median([r.y1 if vertical else r.x0 for r in bars]))
    slots = len(_slot_groups(bars, vertical))
    pitch = (hi - lo) / max(1, slots)
    h_img, w_img = rgb.shape[:2]
    if vertical:
        tick_strip = Box(0, 0, lo - 1, min(h_img, base + 1.5 * text_h))
        label_strip = Box(max(0, lo - 2 * pitch), base - 2, min(w_img, hi + pitch / 2), min(h_img, base + 10 * text_h))
    else:
        bottom = max(r.y1 for r in bars)
        tick_strip = Box(max(0, base - 3 * text_h), bottom + 1, w_img, min(h_img, bottom + 3.5 * text_h))
        label_strip = Box(0, max(0, lo - pitch / 2), base + 2, min(h_img, hi + pitch / 2))

    for attempt in range(2):
        # Text printed on a bar is a value label, never a tick, category or legend entry.
        outside = [t for t in texts if not any(_covers(r, t) for r in segments)]
        # Value axis: numbers beside the bars (left/right for vertical bars, below for horizontal ones).
        if vertical:
            side = [t for t in outside if t.box.x1 <= lo + 2 or t.box.x0 >= hi - 2]
        else:
            side = [t for t in outside if t.box.y0 >= max(r.y1 for r in bars) - 2]
        fitted = fit_axis(side, "y" if vertical else "x")
        axis, ticks = (fitted if fitted else (None, []))
        tick_ids = {id(t) for t in ticks}

        legend = find_legend([t for t in outside if id(t) not in tick_ids], rgb, palette)
        legend_ids = {id(t) for t, _ in legend}
        free = [t for t in texts if id(t) not in tick_ids and id(t) not in legend_ids]
        labels = _category_labels(free, bars, vertical, base, lo, hi, text_h, rgb)
        # Too few labels, or one read with doubt: the strip is read again, enlarged.
        missing_labels = len(labels) < slots or any(t.confidence < 0.8 for t in labels)
        colours = len({b.colour for b in segments})
        missing_keys = 0 < len(legend) < colours and (slots < len(bars) or bool(chains))  # legend partly read
        if attempt == 1 or reread is None or not (missing_labels or len(ticks) < 3 or missing_keys):
            break
        if missing_keys:
            region = legend_region(legend, colours - len(legend), rgb.shape)
            texts = replace_region(texts, reread(region), region)
        if len(ticks) < 3 and tick_strip.width > 4 and tick_strip.height > 4:
            texts = replace_region(texts, reread(tick_strip), tick_strip)
        if missing_labels and label_strip.width > 4 and label_strip.height > 4:
            texts = replace_region(texts, reread(label_strip), label_strip)

    if reread is not None and len(labels) < slots:
        labels = labels + _read_missing(bars, labels, vertical, base, pitch, text_h, rgb, reread)
    if reread is not None and vertical and len(labels) >= 2:
        labels = reread_doubtful(labels, pitch, reread)
    label_ids = {id(t) for t in labels}
    groups = _assign(bars, labels, vertical)
    if vertical:
        groups = unlabel_cut(groups, pitch, warnings)
    if sum(isinstance(k, str) for k in groups) > len(groups) / 2:
        return BarParse("stacked_bar" if chains else "bar", [], [], {}, [], None, set(), 0.0,
                        ["the category labels were read across one another (slanted labels cut into strips), so "
                         "most bars' labels are not known"])
    orphans = [t.text for t in labels if t not in groups]
    if orphans:
        warnings.append(f"no bar read for {len(orphans)} category label(s) ({', '.join(orphans[:4])}): a bar may "
                        "be missing")
    grouped = any(len(g) > 1 for g in groups.values())
    if chains:
        if grouped:
            return BarParse("stacked_bar", [], [], {}, [], None, set(), 0.0,
                            ["stacks grouped side by side under one label are not read by the tools"])
        stacks_of, names = _series(segments, legend, palette, True)
        read = read_stacks(chains, groups, stacks_of, axis, base,
                           [t for t in free if t.number is not None and id(t) not in label_ids], text_h, palette,
                           vertical)
        if vertical and axis is not None:
            top_tick = max(v for _, v in axis.ticks)
            for mark in clipped_marks(read.totals, axis, spine_top(rgb, ticks, lo, base)):
                if abs(mark.value - top_tick) > 0.005 * axis.span:  # a stack to 100 % ends at the "100%" tick
                    read.drop(mark.category, "clipped at the top of the plot (the stack is taller than what is drawn)")
        return BarParse("stacked_bar" if vertical else "stacked_hbar", names, read.categories, read.table, read.marks,
                        axis, tick_ids | legend_ids | label_ids | read.used, _plot_top(segments, axis, vertical),
                        warnings + read.warnings, read.totals)
    if force == "grouped_bar" and not grouped:
        warnings.append("asked for a grouped bar chart but every category has one bar")

    series_of, series = _series(bars, legend, palette, grouped)
    span = _span(axis)
    # The zero line is the spine's: under a bottom spine the bars' last row is the spine's (``base`` is that row
    # already); a left spine covers the horizontal bars' first column, so their base is one column further left.
    zero = axis.value_at(base if vertical or not _left_spine(rgb, bars) else base - 1) if axis else 0.0
    numbers = [t for t in free if t.number is not None and id(t) not in label_ids]
    if reread is not None:
        numbers += reread_value_labels(bars, numbers, vertical, text_h, rgb.shape, reread)
    table: dict[str, dict[str, float]] = {}
    categories: list[str] = []
    marks: list[ChartMark] = []
    used = tick_ids | legend_ids | label_ids
    for label_key, members in groups.items():
        category = label_key if isinstance(label_key, str) else label_key.text
        categories.append(category)
        row = table.setdefault(category, {})
        for bar in members:
            end = bar.y0 if vertical else bar.x1
            measured = None
            if axis is not None:
                measured = axis.value_at(end)
                if abs(zero) <= 0.03 * span:  # bars start at zero: cancel any constant label offset
                    measured -= zero
            printed_text = printed_label(numbers, bar, vertical, text_h)
            printed = printed_text.number if printed_text else None
            if measured is None and printed is None:
                warnings.append(f"no axis and no printed value for a bar of {category}")
                continue
            value, source, warning = reconcile(measured, printed, span)
            if warning:
                warnings.append(f"{category}: {warning}")
            if printed_text is not None:
                used.add(id(printed_text))
            name = series_of[bar.colour] if grouped else series[0]
            row[name] = value
            marks.append(ChartMark(category, name, value, source, Box(bar.x0, bar.y0, bar.x1, bar.y1), measured,
                                   printed, palette.rgb(bar.colour)))
    if axis is None:
        warnings.append("no value axis could be calibrated from tick labels")
        warnings += out_of_line(marks, vertical, base)
    elif vertical:
        cut = clipped_marks(marks, axis, spine_top(rgb, ticks, lo, base))
        for mark in cut:
            table.get(mark.category, {}).pop(mark.series, None)
        marks = [m for m in marks if all(m is not c for c in cut)]
        for category in dict.fromkeys(m.category for m in cut):
            warnings.append(f"{category}: clipped at the top of the plot (the value is beyond what is drawn)")
    kind = "grouped_bar" if grouped else ("bar" if vertical else "hbar")
    table = {c: r for c, r in table.items() if r}
    return BarParse(kind, series, [c for c in categories if c in table], table, marks, axis, used,
                    _plot_top(bars, axis, vertical), warnings)


def _plot_top(bars: list[Rect], axis: AxisFit | None, vertical: bool) -> float:
    """The highest row the plot reaches: its tallest bar or, for vertical bars, its highest tick."""
    top: float = min(r.y0 for r in bars)
    return min(top, min(p for p, _ in axis.ticks)) if axis is not None and vertical else top


def _slot_groups(bars: list[Rect], vertical: bool) -> list[list[Rect]]:
    """The bars by category position: bars that touch (a group) share one."""
    groups: list[list[Rect]] = [[bars[0]]]
    for a, b in zip(bars, bars[1:], strict=False):
        gap = (b.x0 - a.x1) if vertical else (b.y0 - a.y1)
        if gap > 2:
            groups.append([])
        groups[-1].append(b)
    return groups


def _read_missing(bars: list[Rect], labels: list[Text], vertical: bool, base: float, pitch: float, text_h: float,
                  rgb: np.ndarray, reread: Callable[[Box], list[Text]]) -> list[Text]:
    """Labels read one at a time under (or beside) the bar positions that have none: the detector that missed a
    short word in a strip of them finds it alone in a small crop."""
    found = []
    h_img, w_img = rgb.shape[:2]
    for group in _slot_groups(bars, vertical):
        centre = float(np.mean([b.cx if vertical else b.cy for b in group]))
        if any(abs((t.cx if vertical else t.cy) - centre) < pitch / 2 for t in labels):
            continue
        if vertical:
            region = Box(centre - pitch / 2, base + 1, centre + pitch / 2, base + 2.5 * text_h)
        else:
            region = Box(max(0.0, base - 12 * text_h), centre - pitch / 2, base - 1, centre + pitch / 2)
        region = region.clamp(w_img, h_img)
        if region.width < 4 or region.height < 4:
            continue
        rows = rows_of(reread(region))
        # The label is the fullest row: a tick mark under the axis may be read as a "1" above it.
        words = merge_words(max(rows, key=lambda r: sum(ch.isalnum() for t in r for ch in t.text))) if rows else []
        if words:
            found.append(min(words, key=lambda t: abs((t.cx if vertical else t.cy) - centre)))
    return found


def _covers(r: Rect, t: Text) -> bool:
    return r.x0 <= t.cx <= r.x1 and r.y0 <= t.cy <= r.y1


def _category_labels(texts: list[Text], bars: list[Rect], vertical: bool, base: float, lo: float, hi: float,
                     text_h: float, rgb: np.ndarray) -> list[Text]:
    """The first row (vertical bars) or column (horizontal bars) of text beyond the baseline."""
    pitch = (hi - lo) / max(1, len(bars))
    if vertical:
        # Each slanted label moved to its tick first, or the row would join their overlapping boxes into one label.
        below = anchor_slanted([t for t in texts if t.box.y0 >= base - 0.5 * t.height and base < t.cy
                                and t.box.y0 <= base + 6 * text_h and lo - pitch <= t.cx <= hi + pitch], text_h)
        rows = rows_of(below)
        # A label sits under its bar: a text wholly left of the first bar is a tick label ("0%") on that row.
        return [t for t in split_by_gaps(merge_words(rows[0]), rgb) if t.box.x1 > lo] if rows else []
    left = [t for t in texts if t.box.x1 <= base + 0.5 * t.height and t.cx < base and lo - pitch <= t.cy <= hi + pitch]
    if not left:
        return []
    # Labels are right-aligned against the axis; an axis title further left is not a label.
    right_edge = max(t.box.x1 for t in left)
    column = [t for t in left if t.box.x1 >= right_edge - 3 * text_h]
    return [merge_words(r)[-1] for r in rows_of(column)]


def _assign(bars: list[Rect], labels: list[Text], vertical: bool) -> dict[Text | str, list[Rect]]:
    """Bars grouped under their category label (nearest by position); unlabelled bars get 'Bar n' names."""
    groups: dict[Text | str, list[Rect]] = {}
    if not labels:
        for i, bar in enumerate(bars):
            groups[f"Bar {i + 1}"] = [bar]
        return groups
    positions = sorted(t.cx if vertical else t.cy for t in labels)
    pitch = float(np.median(np.diff(positions))) if len(positions) > 1 else float("inf")
    orphans = 0
    for bar in bars:
        p = bar.cx if vertical else bar.cy
        label = min(labels, key=lambda t: abs((t.cx if vertical else t.cy) - p))
        if abs((label.cx if vertical else label.cy) - p) > max(0.75 * pitch if pitch < float("inf") else 0,
                                                                bar.width if vertical else bar.height, 40):
            orphans += 1
            groups[f"Bar {orphans}"] = [bar]
            continue
        groups.setdefault(label, []).append(bar)
    # Categories in reading order: left to right, or top to bottom.
    return dict(sorted(groups.items(), key=lambda kv: min(b.cx if vertical else b.cy for b in kv[1])))


def _series(bars: list[Rect], legend: list[tuple[Text, int]], palette: Palette,
            grouped: bool) -> tuple[dict[int, str], list[str]]:
    """Series names by bar colour, from the legend where it names the colour."""
    colours: list[int] = []
    for bar in bars:
        if bar.colour not in colours:
            colours.append(bar.colour)
    names: dict[int, str] = {}
    for text, colour in legend:
        for c in colours:
            if c not in names and np.abs(palette.colours[c] - palette.colours[colour]).max() <= 40:
                names[c] = text.text
                break
    if not grouped:
        only = names[colours[0]] if len(colours) == 1 and colours[0] in names else DEFAULT_SERIES
        return {c: only for c in colours}, [only]
    for i, c in enumerate(colours):
        names.setdefault(c, f"Series {i + 1}")
    ordered = [names[c] for c in colours]
    legend_order = [t.text for t, _ in sorted(legend, key=lambda e: (round(e[0].cy / 8), e[0].cx))]
    ordered.sort(key=lambda n: legend_order.index(n) if n in legend_order else len(legend_order))
    return names, ordered


def _left_spine(rgb: np.ndarray, bars: list[Rect]) -> bool:
    """Whether a dark line runs just left of most horizontal bars (the value axis's spine drawn over their start)."""
    dark = 0
    for bar in bars:
        if bar.x0 < 1:
            continue
        row = (bar.y0 + bar.y1) // 2
        dark += int(rgb[row, bar.x0 - 1].astype(int).sum() < SPINE_DARKNESS)
    return dark > len(bars) / 2


#: The summed RGB under which a pixel counts as a drawn axis line (black or dark grey spines).
SPINE_DARKNESS = 3 * 110


def _span(axis: AxisFit | None) -> float:
    return 0.0 if axis is None else axis.span
