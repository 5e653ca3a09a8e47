"""Questions about the steps of a series from one category to the next, rather than about two named points:

- "Did her height ever go down?", "did registrations drop at any point": Yes when some step falls (rises);
- "Did sales go up every month?", "has it always increased": Yes when every step rises (falls);
- "Which month did the bill go down vs the month before?": the one category reached by a fall (rise).

The steps are taken in time order when the categories read as times, or in the order a line chart draws them;
bars named by words (cities, products) have no order to step along and are not answered. A step is a rise or a
fall when it is larger than its two readings' uncertainty (``shape_of``: printed numbers are exact); a step inside
it could go either way, and a question it could settle is not answered.
"""

from __future__ import annotations

import re

from skills.chart.confidence import values_confidence
from skills.chart.directions import FALL, RISE
from skills.chart.facts import all_read, facts_from, time_key
from skills.chart.trends import shape_of
from vision_tools.charts import ChartResult

Answer = tuple[str | None, float | None]

_FALL = re.compile(rf"\b(?:{FALL}|get (?:cheaper|lower|smaller))\b")
_RISE = re.compile(rf"\b(?:{RISE}|get (?:dearer|higher|bigger))\b")
_EVER = re.compile(r"\b(?:ever|at any (?:point|time|stage)|at all|anywhere|any (?:month|year|week|day|quarter))\b")
_EVERY = re.compile(r"\b(?:every|each) (?:single )?(?:month|year|week|day|quarter|time|step|period)\b|\balways\b|"
                    r"\bsteadily\b|\bconsistently\b|\bwithout (?:a )?(?:break|dip|drop|fall)\b")
_WHICH = re.compile(r"^(?:in |on |during )?(?:which|what|when)\b")
#: Words that make the question about sizes of steps or about two named points, which other rules read.
_OTHER_QUESTION = re.compile(r"\b(?:most|least|(?:high|low|bigg|larg|small|great|fast|slow|sharp|steep|strong|weak)est|"
                             r"first|last|how|more|less|than)\b|"
                             r"\bfrom\b.*\bto\b|\bbetween\b.*\band\b")
_YESNO = re.compile(r"^(?:did|does|do|has|have|had|was|were|is|are)\b")
_ORDERED_KINDS = ("line",)


def step_answer(chart: ChartResult, text: str, series: list[str]) -> Answer | None:
    """The answer to a question (``text``, normalised) about the series' steps; (None, None) when the readings
    cannot settle it; None when ``text`` asks no such thing."""
    fall, rise = _FALL.search(text), _RISE.search(text)
    if bool(fall) == bool(rise) or _OTHER_QUESTION.search(text):
        return None
    ever, every, which = _EVER.search(text), _EVERY.search(text), _WHICH.match(text)
    yes_no = _YESNO.match(text) is not None
    if not ((yes_no and (ever or every)) or (which and not ever and not every)):
        return None
    order = _in_order(chart)
    if order is None or (len(chart.series) > 1 and len(series) != 1):
        return None, None  # no order to step along, or a series not named among several
    one = series[0] if series else chart.series[0] if chart.series else None
    facts = facts_from(chart)
    readings = all_read([facts.reading(c, one) for c in order]) if facts.complete else None
    shape = shape_of(readings) if readings else None
    if shape is None:
        return None, None
    way = -1 if fall else 1
    confidence = values_confidence(chart, order, one)
    if which:
        # "Which month did the bill go down?": the one month reached by a fall, with no step in doubt.
        reached = [order[i + 1] for i, sign in enumerate(shape.signs) if sign == way]
        return (reached[0], confidence) if len(reached) == 1 and 0 not in shape.signs else (None, None)
    if ever:
        if way in shape.signs:
            return "Yes", confidence
        return ("No", confidence) if 0 not in shape.signs else (None, None)
    if all(sign == way for sign in shape.signs):
        return "Yes", confidence
    return ("No", confidence) if -way in shape.signs else (None, None)


def _in_order(chart: ChartResult) -> list[str] | None:
    """The categories in time order, or as a line chart draws them; None for categories with no order."""
    keyed = [(key, c) for c in chart.categories if (key := time_key(c)) is not None]
    if len(keyed) == len(chart.categories) and len({key[0] for key, _ in keyed}) == 1:
        return [c for _, c in sorted(keyed)]
    return list(chart.categories) if chart.kind in _ORDERED_KINDS else None
