"""Bars cut off at the top of the plot: where the value axis line ends, and which bars run into it.

A chart "exceeding its canvas" draws some bars past the top of what it shows: their heights say nothing about the
data. They are seen against the top of the value axis line, or as bars ending flat on one pixel row above it.
"""

from __future__ import annotations

import numpy as np

from vision_tools.charts.axes import Text
from vision_tools.charts.result import AxisFit, ChartMark


def clipped_marks(marks: list[ChartMark], axis: AxisFit, spine_top: float | None) -> list[ChartMark]:
    """The bars that run into the top of the plot, with no value printed on them: their values are beyond what is
    drawn (a chart "exceeding its canvas"), so their heights say nothing about the data. Seen as bars ending
    exactly at the top of the value axis line (the plot ends there), or two or more bars ending flat on one pixel
    row above that line's top (without a line found: above the highest tick). A lone bar above a line that stops
    at its last tick is read as drawn: such axes (trimmed) leave room above."""
    measured = [m for m in marks if m.printed is None and m.measured is not None]
    if not measured or axis.scale == "inverted" or len(axis.ticks) < 2:
        return []
    top = min(m.box.y0 for m in measured)
    flat = [m for m in measured if m.box.y0 - top <= 1.5]
    if spine_top is not None:
        at_end = [m for m in measured if abs(m.box.y0 - spine_top) <= 1.5]
        above = flat if len(flat) >= 2 and top < spine_top - 1.5 else []
        return at_end + [m for m in above if m not in at_end]
    tick_value = min(axis.ticks)[1]  # the tick highest on the page
    above_tick = len(flat) >= 2 and min(m.value for m in flat) > tick_value + 0.005 * axis.span
    return flat if above_tick else []


def spine_top(rgb: np.ndarray, ticks: list[Text], lo: float, base: float) -> float | None:
    """The top row of the value axis line (a dark vertical line between the tick labels and the first bar, running
    up from the baseline), or None when there is none."""
    if not ticks:
        return None
    # Two pixels short of the first bar: a bar's outline is not the axis line.
    x0, x1, bottom = int(max(t.box.x1 for t in ticks)), int(lo) - 2, int(round(base))
    if x1 - x0 < 1 or not 0 < bottom <= rgb.shape[0]:
        return None
    dark = rgb[:bottom, x0:x1].astype(np.int16).mean(axis=2) < 110
    best: tuple[int, int] | None = None  # (run length, top row)
    for column in dark.T:
        upward = column[::-1]  # from the baseline up; the line may start a few rows above it (anti-aliasing)
        start = int(np.argmax(upward[:5])) if upward[:5].any() else -1
        if start < 0:
            continue
        light = np.flatnonzero(~upward[start:])
        run = int(light[0]) if light.size else len(upward) - start
        if run > 3 and (best is None or run > best[0]):
            best = (run, bottom - start - run)
    tick_span = max(t.cy for t in ticks) - min(t.cy for t in ticks)
    return float(best[1]) if best is not None and best[0] >= 0.8 * tick_span else None
