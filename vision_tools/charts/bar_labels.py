"""Value labels printed at the end of bars: which printed number is a bar's, the ones a first reading missed read
again, and, on a chart without a value axis, each checked against the bars' lengths."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vision_tools.charts.axes import Text
from vision_tools.charts.pixels import Rect
from vision_tools.charts.result import ChartMark
from vision_tools.image.boxes import Box


def out_of_line(marks: list[ChartMark], vertical: bool, base: float) -> list[str]:
    """Without an axis, the printed values are the only reading: each must sit on the straight line through the
    others' values against their bars' lengths, or it was misread (or matched to the wrong bar)."""
    printed = [m for m in marks if m.printed is not None]
    if len(printed) < 3:
        return []
    lengths = np.array([abs(base - (m.box.y0 if vertical else m.box.x1)) for m in printed])
    values = np.array([m.value for m in printed])
    spread = float(np.ptp(values)) or 1.0
    out = []
    for i, mark in enumerate(printed):
        others = np.arange(len(printed)) != i
        if np.ptp(lengths[others]) == 0:
            continue
        slope, intercept = np.polyfit(lengths[others], values[others], 1)
        if abs(slope * lengths[i] + intercept - mark.value) > 0.1 * spread:
            out.append(f"{mark.category}: the printed {mark.value:g} is out of line with its bar's length")
    return out


def reread_value_labels(bars: list[Rect], numbers: list[Text], vertical: bool, text_h: float,
                         shape: tuple[int, ...], reread: Callable[[Box], list[Text]]) -> list[Text]:
    """The value labels the first reading missed, where the chart prints them on its other bars: each unlabelled
    bar's end is read again, enlarged (a light "26.4 h" beside a read "31.8 h")."""
    missing = [bar for bar in bars if printed_label(numbers, bar, vertical, text_h) is None]
    if not missing or len(missing) == len(bars):
        return []
    found: list[Text] = []
    for bar in missing:
        if vertical:
            region = Box(bar.x0 - 0.5 * bar.width, bar.y0 - 2.5 * text_h, bar.x1 + 0.5 * bar.width, bar.y0 + 1.5 * text_h)
        else:
            region = Box(bar.x1 - 6 * text_h, bar.y0 - 0.25 * bar.height, bar.x1 + 6 * text_h,
                         bar.y1 + 0.25 * bar.height)
        region = region.clamp(shape[1], shape[0])
        if region.width > 4 and region.height > 4:
            read = [t for t in reread(region) if t.number is not None]
            label = printed_label(read, bar, vertical, text_h)
            if label is not None:
                found.append(label)
    return found


def printed_label(numbers: list[Text], bar: Rect, vertical: bool, text_h: float, inside: float = 2.0) -> Text | None:
    """The number printed at the end of ``bar`` (just past it, or up to ``inside`` text heights inside it)."""
    best: tuple[float, Text] | None = None
    for t in numbers:
        if vertical:
            if not bar.x0 - 0.25 * bar.width <= t.cx <= bar.x1 + 0.25 * bar.width:
                continue
            gap = bar.y0 - t.box.y1
        else:
            if not bar.y0 - 0.25 * bar.height <= t.cy <= bar.y1 + 0.25 * bar.height:
                continue
            # Written inside the bar's end ("€412k" in white), a label's right edge is the one near the end.
            gap = t.box.x0 - bar.x1 if t.box.x1 > bar.x1 + 0.5 * text_h else t.box.x1 - bar.x1
        if -inside * text_h <= gap <= 1.5 * text_h and (best is None or abs(gap) < best[0]):
            best = (abs(gap), t)
    return None if best is None else best[1]
