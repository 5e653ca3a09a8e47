"""How many decimals a value read from a chart can honestly carry.

A number printed on the chart is given as printed, with the unit printed with it ("$84,500", "51%"). A value measured against the value axis is only as precise as
a reader can place a mark between two ticks: a fifth of a tick step. On a whole-number axis with steps of 10 that
is 2 units, so 65.1 is given as 65 (annotators rated "65.1" wrong); with steps of 1 it is 0.2, so one decimal. A
pie share measured from its angle (no percentage printed) is given in whole percent.

A measurement is also only as good as its pixels: a bar's end or a line's point is placed to a pixel or two (the
tick labels' centres, the spine drawn over the bar's base, anti-aliasing). A measured value is given as the roundest
number within two pixels of it: 148.7 on steps of 100 over 110 pixels is 150, not 149; 14.06 on steps of 2 is 14.
"""

from __future__ import annotations

import math
import re

from vision_tools.charts import ChartResult, match_name
from vision_tools.charts.axes import SCALE_SUFFIXES, parse_number

#: A currency or percent sign printed with a number: the unit its answer is given with.
_UNIT = re.compile(r"[$€£¥%]")

#: The part of a tick step a reader can resolve by eye.
STEP_FRACTION = 5.0
#: How far a bar's end measured against the axis may be off, in pixels (measured: 1-2 on rendered bar charts).
MEASURE_PIXELS = 2.0


def decimals_of(number: float) -> int:
    """Decimals of ``number`` as written in its shortest form (65.0 -> 0, 12.25 -> 2)."""
    text = f"{number:.6f}".rstrip("0").rstrip(".")
    return len(text.split(".")[1]) if "." in text else 0


def _smallest_step(chart: ChartResult) -> float | None:
    """The smallest step between the value axis's tick labels; None without a calibrated axis."""
    if chart.axis is None or len(chart.axis.ticks) < 2:
        return None
    values = sorted({value for _, value in chart.axis.ticks})
    return min((b - a for a, b in zip(values, values[1:], strict=False) if b - a > 0), default=None)


def axis_decimals(chart: ChartResult) -> int | None:
    """The decimals a value measured against the chart's value axis supports; None without a calibrated axis."""
    step = _smallest_step(chart)
    if step is None or chart.axis is None:
        return None
    from_step = max(0, math.ceil(-math.log10(step / STEP_FRACTION) - 1e-9))
    return max(from_step, max(decimals_of(v) for _, v in chart.axis.ticks))


def value_decimals(chart: ChartResult, categories: list[str], series: str | None) -> int | None:
    """The decimals the values of ``categories`` (in ``series``) support together: the most any of them has
    (a printed 12.5 beside a measured 40 keeps one decimal). None when nothing limits them."""
    wanted = {c.casefold() for c in categories}
    found: list[int] = []
    for mark in chart.marks:
        if mark.category.casefold() not in wanted or (series is not None and mark.series != series):
            continue
        if mark.source in ("label", "printed") and mark.printed is not None:
            # The value as the label gives it in the axis's units ("41.7M" over an axis of millions is 41.7).
            found.append(decimals_of(mark.value))
        elif mark.source == "axis":
            decimals = printed_decimals(chart)
            decimals = axis_decimals(chart) if decimals is None else decimals
            if decimals is not None:
                found.append(decimals)
        elif mark.source == "angle":
            found.append(0)
    return max(found) if found else None


def formatted(value: float, decimals: int | None) -> str:
    """``value`` at ``decimals`` (at most 2 when not limited), without trailing zeros of a whole number."""
    rounded = round(value, 2 if decimals is None else decimals)
    return str(int(rounded)) if rounded == int(rounded) else f"{rounded:g}"


def as_printed(chart: ChartResult, value: float) -> str | None:
    """The chart's own printing of ``value`` when it carries a unit ("$84,500", "51%", "€1.2M"), else None; None
    too when the chart prints that number in two ways, since either could be the one asked about."""
    printed = set()
    for text in chart.texts:
        number = parse_number(text)
        # "$120k" over an axis in thousands prints the value 120 with its scale.
        scale = SCALE_SUFFIXES.get(text.strip()[-1:], 1.0)
        if number is not None and _UNIT.search(text) and \
                any(math.isclose(number[0], value * s, rel_tol=1e-9, abs_tol=1e-9) for s in {1.0, scale}):
            printed.add(text.strip())
    return next(iter(printed)) if len(printed) == 1 else None


#: "in € thousand", "in millions of dollars", "(in $k)": the scale a question wants a total in.
_ASKED_SCALE = re.compile(r"\bin\s+(?:[$€£¥]\s*|(?:us\s+)?dollars?\s+|euros?\s+|pounds?\s+)?"
                          r"(?P<scale>thousands?|millions?|billions?|k|m|bn)\b", re.I)
_SCALE_WORDS = {"thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9}


def in_printed_scale(chart: ChartResult, question: str, value: float, average: bool = False) -> str | None:
    """A value computed from labels printed with a scale letter ("€412k"), written as they are ("€2026k"), or as a
    bare number in the scale the question asks for ("in € thousand": 2026); None when the labels carry no scale
    letter or do not agree on one (then the plain number is the answer)."""
    styles, digits = set(), 0
    for text in chart.texts:
        plain = text.strip()
        if "%" in plain or len(plain) < 2 or plain[-1] not in SCALE_SUFFIXES or not plain[-2].isdigit() or \
                parse_number(plain) is None:
            continue
        currency = re.findall(r"[$€£¥]", plain)
        styles.add((currency[0] if currency else "", plain[-1]))
        digits = max(digits, len(m.group(1)) if (m := re.search(r"\.(\d+)\D*$", plain)) else 0)
    if len(styles) != 1:
        return None
    unit, letter = styles.pop()
    per_unit = _table_scale(chart, SCALE_SUFFIXES[letter])
    if per_unit is None:
        return None
    # The mean of printed whole numbers may fall between them.
    number = formatted(value * per_unit / SCALE_SUFFIXES[letter], digits + 1 if average else digits)
    wanted = _asked_scale(question)
    if wanted is None:
        return f"{unit}{number}{letter}"
    return number if wanted == SCALE_SUFFIXES[letter] else None


def _asked_scale(question: str) -> float | None:
    """The scale the question asks a value in ("in € thousand": 1,000), or None when it asks none."""
    asked = _ASKED_SCALE.search(question)
    if asked is None:
        return None
    word = asked.group("scale").lower()
    return _SCALE_WORDS[word if word in ("bn", "k", "m") else word.rstrip("s")]


def in_tick_style(chart: ChartResult, question: str, value: float) -> str | None:
    """``value`` written as the value axis writes its ticks when they all carry one scale letter and unit ("€10M",
    "€12M": 9,900,000 is "€9.9M"), or as a bare number in that scale when the question asks for it ("in € million":
    9.9); None when the ticks carry no scale letter, or several styles."""
    axis = chart.axis
    if axis is None or len(axis.ticks) < 2:
        return None
    styles = set()
    for text in chart.texts:
        plain = text.strip()
        number = parse_number(plain)
        if number is None or plain[-1:] not in SCALE_SUFFIXES or not plain[-2:-1].isdigit():
            continue
        if any(math.isclose(number[0], tick, rel_tol=1e-9, abs_tol=1e-9) for _, tick in axis.ticks):
            currency = re.findall(r"[$€£¥]", plain)
            styles.add((currency[0] if currency else "", plain[-1]))
    if len(styles) != 1:
        return None
    unit, letter = styles.pop()
    scale = SCALE_SUFFIXES[letter]
    scaled = formatted(value / scale, max(0, decimals_of(round(value / scale, 6))))
    wanted = _asked_scale(question)
    if wanted is None:
        return f"{'-' if value < 0 else ''}{unit}{scaled.lstrip('-')}{letter}"
    return scaled if wanted == scale else None


def _table_scale(chart: ChartResult, scale: float) -> float | None:
    """What one unit of the table is worth: 1 when a label "€412k" is in the table as 412000, ``scale`` when it is
    there as 412 (an axis in thousands reads the labels in its own unit); None when no label says which."""
    worth = set()
    for mark in chart.marks:
        if mark.printed is None or mark.source not in ("label", "printed", "confirmed"):
            continue
        for text in chart.texts:
            number = parse_number(text)
            if number is None or text.strip()[-1:] not in SCALE_SUFFIXES:
                continue
            if math.isclose(number[0], mark.value, rel_tol=1e-6):
                worth.add(1.0)
            elif math.isclose(number[0], mark.value * scale, rel_tol=1e-6):
                worth.add(scale)
    return worth.pop() if len(worth) == 1 else None


def measured_reading(chart: ChartResult, value: float) -> float:
    """``value``, measured against the chart's axis, as a careful reader gives it: the roundest number within
    ``MEASURE_PIXELS`` of it (what a measurement can be off by: tick labels' centres, the spine over a bar's base,
    anti-aliasing), trying multiples of the largest power of ten within a tick step down to the largest within
    that error; otherwise rounded to the latter. 148.7 on steps of 100 over 110 px is 150; 14.06 on steps of
    2 over 39 px is 14; 3.5 on steps of 1 over 50 px stays 3.5; 137.4 on steps of 50 over 200 px is 137."""
    axis, step = chart.axis, _smallest_step(chart)
    if axis is None or step is None or axis.scale == "nonlinear" or axis.slope == 0:
        return value
    error = MEASURE_PIXELS * abs(axis.slope)
    # Never coarser than the error itself: rounding to a unit larger than two pixels would add error of its own.
    finest = 10.0 ** math.floor(math.log10(error) + 1e-9)
    unit = 10.0 ** math.floor(math.log10(step) + 1e-9)
    while unit >= finest * (1 - 1e-9):
        nearest = round(value / unit) * unit
        if abs(value - nearest) <= error:
            return float(nearest)
        unit /= 10
    return float(round(value / finest) * finest)


def read_value(chart: ChartResult, category: str, series: str | None = None) -> float | None:
    """The table's value of ``category``; one measured against the axis (none printed) as ``measured_reading``, or
    at the precision of the values the chart prints on its other bars (their labels went unread: "412" beside a
    printed "$388k", where the roundest number within two pixels would be 410)."""
    value = chart.value(category, series)
    if value is None or not _measured_on_axis(chart, category, series):
        return value
    decimals = printed_decimals(chart)
    return measured_reading(chart, value) if decimals is None else round(value, decimals)


def printed_decimals(chart: ChartResult) -> int | None:
    """The decimals of the values a bar chart prints on its bars; None when it prints none (or is no bar chart)."""
    printed = [m.value for m in chart.marks if m.source in ("label", "printed") and m.printed is not None]
    if chart.kind not in ("bar", "hbar", "grouped_bar") or not printed:
        return None
    return max(decimals_of(v) for v in printed)


def unread_labels(chart: ChartResult) -> list[str]:
    """The bars of a chart that prints its bars' values whose own label went unread, where a measurement against
    the axis cannot reach the printed precision (two pixels are more than half its last digit): their values are
    printed, and a measurement would stand in for them."""
    decimals = printed_decimals(chart)
    if decimals is None:
        return []
    axis = chart.axis
    if axis is not None and axis.scale != "nonlinear" and MEASURE_PIXELS * abs(axis.slope) < 0.5 * 10.0 ** -decimals:
        return []
    return list(dict.fromkeys(m.category for m in chart.marks if m.source == "axis"))

def _measured_on_axis(chart: ChartResult, category: str, series: str | None) -> bool:
    name = match_name(category, chart.categories)
    wanted = None if series is None else match_name(series, chart.series)
    marks = [m for m in chart.marks if m.category == name and (wanted is None or m.series == wanted)]
    return len(marks) == 1 and marks[0].source == "axis"
