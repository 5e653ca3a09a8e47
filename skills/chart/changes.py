"""Which category or series changed, or changed the most, between two points the question names.

"In absolute terms, which region grew its revenue the most between 2022 and 2024?" over grouped bars (a series per
year, a category per region); "which platform lost subscribers between 2022 and 2024?" over lines (a category per
year, a series per platform); "which crop fell the most from 2021 to 2022?". The change of each one is its value at
the second point less its value at the first, as read (``read_value``).

A change is called a rise or a fall only when it is larger than ``CLEAR_GAP_SHARE`` of the value span (the gap
that tells two marks apart), and "the most" only when the first change beats the second by that much. A question
that presumes one ("which platform lost subscribers") is answered only when exactly one did and none is in doubt.
A relative change ("by the largest percentage") is not what these readings give, and is not answered.
"""

from __future__ import annotations

import re

from skills.chart.confidence import CLEAR_GAP_SHARE, largest_value, values_confidence
from skills.chart.directions import FALL, GAIN, LOSS, RISE
from skills.chart.names import mentioned
from skills.chart.precision import read_value
from vision_tools.charts import ChartResult

Answer = tuple[str | None, float | None]

_UP = re.compile(rf"\b(?:{RISE}|{GAIN})\b")
_DOWN = re.compile(rf"\b(?:{FALL}|{LOSS})\b")
_MOST = re.compile(r"\b(?:most|biggest|largest|greatest|highest|strongest|sharpest|steepest)\b")
_LEAST = re.compile(r"\b(?:least|smallest|fewest|lowest|weakest)\b")
_RELATIVE = re.compile(r"\bpercent|%|\brelative|\bproportion|\bin percentage terms\b")
#: The two points: "from 2022 to 2024", "between 2022 and 2024".
_SPAN = re.compile(r"\b(?:from|between)\b(?P<rest>.*)")


def which_changed(chart: ChartResult, text: str) -> Answer | None:
    """The one category or series that rose (fell), or rose (fell) the most, between the two points ``text``
    (normalised) names after "from" or "between"; (None, None) when the readings cannot tell; None when ``text``
    asks no such thing."""
    up, down = _UP.search(text), _DOWN.search(text)
    span = _SPAN.search(text)
    if bool(up) == bool(down) or span is None or len(chart.series) < 2:
        return None
    after = span.group("rest")
    points_as_series = mentioned(chart.series, after)
    points_as_categories = mentioned(chart.categories, after)
    if len(points_as_series) == 2 and not points_as_categories:
        first, second = points_as_series
        changes = {c: _change(chart, c, first, c, second) for c in chart.categories}
        sure = [values_confidence(chart, chart.categories, s) for s in (first, second)]
    elif len(points_as_categories) == 2 and not points_as_series:
        first, second = points_as_categories
        changes = {s: _change(chart, first, s, second, s) for s in chart.series}
        sure = [values_confidence(chart, [first, second], s) for s in chart.series]
    else:
        return None
    if _RELATIVE.search(text):
        return None, None  # a growth rate, which differences of readings are not
    read = {name: c for name, c in changes.items() if c is not None}
    if len(read) < len(changes) or len(read) < 2 or any(s is None for s in sure):
        return None, None  # a value missing: the one not read may be the one asked
    confidence = min(s for s in sure if s is not None)
    sign = -1.0 if down else 1.0
    clear = CLEAR_GAP_SHARE * largest_value(chart)
    if _MOST.search(text) or _LEAST.search(text):
        least = bool(_LEAST.search(text)) and not _MOST.search(text)
        ranked = sorted(read, key=lambda name: sign * read[name], reverse=not least)
        top, runner_up = ranked[0], ranked[1]
        if abs(read[top] - read[runner_up]) <= clear or sign * read[top] <= clear:
            return None, None  # too close to call, or it did not move the way asked at all
        return top, confidence
    moved = [name for name, change in read.items() if sign * change > clear]
    doubtful = [name for name, change in read.items() if abs(change) <= clear]
    return (moved[0], confidence) if len(moved) == 1 and not doubtful else (None, None)


def _change(chart: ChartResult, category_a: str, series_a: str, category_b: str, series_b: str) -> float | None:
    a, b = read_value(chart, category_a, series_a), read_value(chart, category_b, series_b)
    return None if a is None or b is None else b - a
