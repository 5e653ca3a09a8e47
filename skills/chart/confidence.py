"""How sure a value read from a chart's table is, from how each value was obtained.

A value is surest when a number printed on the chart agrees with the mark's size measured against the axis (two
independent readings); a printed number alone relies on OCR; a measurement alone relies on the axis fit, which is
good when the tick labels sit on one straight line and weak when they do not (a log scale, a misread tick). A
printed number that the geometry contradicts is kept (misleading charts are drawn out of proportion on purpose)
but counted as less sure. Answers built from several values (a difference, a sum, an average) are as sure as their
weakest value; "which is highest" also needs a clear gap between the first and the second.
"""

from __future__ import annotations

from skills.chart.facts import Reading, facts_from
from skills.chart.verdict import MIN_Z
from vision_tools.charts import ChartMark, ChartResult, match_name

#: Confidence of one value by where it came from (``ChartMark.source``), before the checks below.
_BY_SOURCE = {"label": 0.9, "printed": 0.92, "axis": 0.8, "angle": 0.8}
#: Two readings of one value agree within this share of the value scale's span.
AGREE_SHARE = 0.05
#: Sources of a reading that is a number printed on the chart (``facts.Reading.source``).
_PRINTED = ("confirmed", "printed")
#: "Which is highest/lowest" is called surely only when the top two differ by at least this share of the span.
CLEAR_GAP_SHARE = 0.03


def value_confidence(chart: ChartResult, category: str, series: str | None = None) -> float | None:
    """How sure the table's value for ``category`` (in ``series``) is, or None when there is no such mark."""
    mark = _mark(chart, category, series)
    return None if mark is None else _mark_confidence(chart, mark)


def contested(chart: ChartResult, categories: list[str]) -> ChartMark | None:
    """The first mark of ``categories`` whose printed number the parser found at odds with its geometry ("Line 3:
    printed 9870 disagrees with measured 1.097e+04"): one of the two readings is wrong, and which is not known."""
    for mark in chart.marks:
        # The parser kept the measurement (``source`` "axis") over a number printed for the mark.
        if mark.category in categories and mark.printed is not None and mark.measured is not None and \
                mark.source == "axis":
            return mark
    return None


def values_confidence(chart: ChartResult, categories: list[str], series: str | None = None) -> float | None:
    """The weakest of several values (what a difference, sum or average is built from)."""
    found = [value_confidence(chart, c, series) for c in categories]
    return None if not found or any(c is None for c in found) else min(c for c in found if c is not None)


def extreme_confidence(chart: ChartResult, highest: bool, series: str | None = None) -> float | None:
    """How sure "which category is highest (lowest)" is: its readings, and the gap to the runner-up."""
    marks = [m for m in chart.marks if series is None or m.series == series]
    if len(marks) < 2:
        return None
    ranked = sorted(marks, key=lambda m: m.value, reverse=highest)
    first, second = ranked[0], ranked[1]
    sure = min(_mark_confidence(chart, first), _mark_confidence(chart, second))
    gap, needed = abs(first.value - second.value), CLEAR_GAP_SHARE * _span(chart)
    facts = facts_from(chart)
    one, other = facts.reading(first.category, first.series), facts.reading(second.category, second.series)
    if one is not None and other is not None and gap_needed(one, other, needed) == 0.0:
        needed = 0.0 if gap > 0 else needed  # two printed numbers: their order is as printed
    return round(sure if gap >= needed else 0.5 * sure, 3)


def ranked(chart: ChartResult, rank: int, highest: bool, series: str | None = None) -> tuple[str, float] | None:
    """The category ``rank``-th highest (lowest) in ``series`` (the only one when left out) and how sure its readings
    and its neighbours' are. None when the chart has fewer marks, or may miss one ("no bar read for a label", a bar
    clipped at the top), or without a clear gap on both sides of it (a near tie could swap the ranks)."""
    name = chart.series[0] if series is None and len(chart.series) == 1 else (
        match_name(series, chart.series) if series is not None else None)
    marks = [m for m in chart.marks if m.series == name]
    if name is None or len(marks) < rank or any("may be missing" in w or "clipped" in w for w in chart.warnings):
        return None
    order = sorted(marks, key=lambda m: m.value, reverse=highest)
    around = order[max(0, rank - 2):rank + 1]
    sure = min(_mark_confidence(chart, m) for m in around)
    facts = facts_from(chart)
    readings = [facts.reading(m.category, m.series) for m in around]
    for a, b, first, second in zip(around, around[1:], readings, readings[1:], strict=False):
        # Phone and Chat both at 40: "the 2nd most preferred" is either, and a guess is no answer. Printed shares
        # of 23 % and 21 % are told apart as the extreme's are.
        needed = CLEAR_GAP_SHARE * _span(chart)
        if first is not None and second is not None:
            needed = gap_needed(first, second, needed)
        if abs(a.value - b.value) <= needed:
            return None
    return order[rank - 1].category, round(sure, 3)


def largest_value(chart: ChartResult) -> float:
    """The largest magnitude in the chart's table: the scale a gap or a limit is judged against."""
    return max((abs(v) for row in chart.table.values() for v in row.values()), default=0.0)


def clear_extreme(chart: ChartResult, highest: bool, series: str | None = None) -> bool:
    """Whether the highest (lowest) mark beats the runner-up by a clear gap: a near tie is no extreme to name,
    however sure each reading is (the calibration, fit where ties were rare, cannot see a lowered score)."""
    readings = [r for row in facts_from(chart).cells.values() for name, r in row.items() if series in (None, name)]
    if len(readings) >= 2:
        # Printed numbers are exact (40 against 41 is called); measured ones by their uncertainty, or by the gap
        # that tells two marks apart by eye, whichever is less.
        first, second = sorted(readings, key=lambda r: r.value, reverse=highest)[:2]
        return abs(first.value - second.value) > gap_needed(first, second, CLEAR_GAP_SHARE * _span(chart))
    values = sorted((v for row in chart.table.values() for name, v in row.items() if series in (None, name)),
                    reverse=highest)
    return len(values) >= 2 and abs(values[0] - values[1]) >= CLEAR_GAP_SHARE * _span(chart)


def too_close(chart: ChartResult, sides: list[tuple[str, str | None]], a: float, b: float) -> bool:
    """Whether values ``a`` and ``b`` of the two ``sides`` (category, series) are too close to tell which is higher.
    Printed numbers are exact (71 against 69 is called); measured ones are judged by their uncertainty, or by the
    gap that tells two marks apart by eye, whichever is less."""
    facts = facts_from(chart)
    first, second = (facts.reading(category, series) for category, series in sides)
    needed = CLEAR_GAP_SHARE * largest_value(chart)
    if first is not None and second is not None:
        needed = gap_needed(first, second, needed)
    return abs(a - b) <= needed


def gap_needed(first: Reading, second: Reading, by_eye: float) -> float:
    """The gap two readings must exceed to tell which is higher. Two printed numbers are exact: rounding keeps
    their order, so "8%" and "9%" are told apart (what can go wrong is the OCR, which their trust stands for).
    Measured ones are judged by their uncertainty, or by the gap ``by_eye`` that tells two marks apart, whichever
    is less."""
    if first.source in _PRINTED and second.source in _PRINTED:
        return 0.0
    return min(MIN_Z * (first.sigma + second.sigma), by_eye)


def count_confidence(chart: ChartResult) -> float:
    """How sure the number of categories is: every mark needs a readable label of its own."""
    labelled = len(chart.categories) == len({m.category for m in chart.marks})
    return 0.9 if labelled and not chart.doubts else 0.6


def _mark(chart: ChartResult, category: str, series: str | None) -> ChartMark | None:
    name = match_name(category, chart.categories)
    wanted = None if series is None else match_name(series, chart.series)
    for mark in chart.marks:
        if mark.category == name and (wanted is None or mark.series == wanted):
            return mark
    return None


def _mark_confidence(chart: ChartResult, mark: ChartMark) -> float:
    confidence = _BY_SOURCE.get(mark.source, 0.6)
    if mark.printed is not None and mark.measured is not None:
        agree = abs(mark.printed - mark.measured) <= AGREE_SHARE * _span(chart)
        confidence = 0.95 if agree else 0.7
    elif mark.source == "axis" and chart.axis is not None and (
            chart.axis.scale != "linear" or chart.axis.residual > AGREE_SHARE * _span(chart)):
        confidence = 0.55  # measured against an axis whose ticks do not sit on one straight line
    confidence -= 0.1 * len(chart.doubts)
    return round(max(0.3, confidence), 3)


def _span(chart: ChartResult) -> float:
    """The range of the value scale: the axis ticks' values, else the values themselves (a pie: 100)."""
    if chart.axis is not None and len(chart.axis.ticks) >= 2:
        values = [v for _, v in chart.axis.ticks]
        return max(values) - min(values) or 1.0
    if chart.kind == "pie":
        return 100.0
    values = [m.value for m in chart.marks]
    return (max(values) - min(values)) if len(values) >= 2 and max(values) != min(values) else 1.0
