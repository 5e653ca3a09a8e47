"""How many decimals a value read from a chart can honestly carry.

A number printed on the chart is given as printed. A value measured against the value axis is only as precise as
a reader can place a mark between two ticks: a fifth of a tick step. On a whole-number axis with steps of 10 that
is 2 units, so 65.1 is given as 65 (annotators rated "65.1" wrong); with steps of 1 it is 0.2, so one decimal. A
pie share measured from its angle (no percentage printed) is given in whole percent.
"""

from __future__ import annotations

import math

from vision_tools.charts import ChartResult

#: The part of a tick step a reader can resolve by eye.
STEP_FRACTION = 5.0


def decimals_of(number: float) -> int:
    """Decimals of ``number`` as written in its shortest form (65.0 -> 0, 12.25 -> 2)."""
    text = f"{number:.6f}".rstrip("0").rstrip(".")
    return len(text.split(".")[1]) if "." in text else 0


def axis_decimals(chart: ChartResult) -> int | None:
    """The decimals a value measured against the chart's value axis supports; None without a calibrated axis."""
    if chart.axis is None or len(chart.axis.ticks) < 2:
        return None
    values = sorted({value for _, value in chart.axis.ticks})
    steps = [b - a for a, b in zip(values, values[1:], strict=False) if b - a > 0]
    if not steps:
        return None
    resolution = min(steps) / STEP_FRACTION
    from_step = max(0, math.ceil(-math.log10(resolution) - 1e-9))
    return max(from_step, max(decimals_of(v) for v in values))


def value_decimals(chart: ChartResult, categories: list[str], series: str | None) -> int | None:
    """The decimals the values of ``categories`` (in ``series``) support together: the most any of them has
    (a printed 12.5 beside a measured 40 keeps one decimal). None when nothing limits them."""
    wanted = {c.casefold() for c in categories}
    found: list[int] = []
    for mark in chart.marks:
        if mark.category.casefold() not in wanted or (series is not None and mark.series != series):
            continue
        if mark.source in ("label", "printed") and mark.printed is not None:
            found.append(decimals_of(mark.printed))
        elif mark.source == "axis":
            decimals = axis_decimals(chart)
            if decimals is not None:
                found.append(decimals)
        elif mark.source == "angle":
            found.append(0)
    return max(found) if found else None


def formatted(value: float, decimals: int | None) -> str:
    """``value`` at ``decimals`` (at most 2 when not limited), without trailing zeros of a whole number."""
    rounded = round(value, 2 if decimals is None else decimals)
    return str(int(rounded)) if rounded == int(rounded) else f"{rounded:g}"
