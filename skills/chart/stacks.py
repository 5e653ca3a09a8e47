"""Questions on stacked bar charts: which reading of a stack a question asks for, and when two readings disagree.

A stack is read two ways (``vision_tools.charts.stacked``): by segment, one value per series, and whole, its total.
A question naming no series asks about the whole stacks; one naming a series, about its segments. A segment off
the baseline has a length and a height: "in which year was Brand B highest?" is read by some as its length (its
value) and by others as how high it reaches on the page. Where the two name different categories, the question
has two answers, and the run abstains (a name or Yes/No read both ways must agree; an amount is a length). Multiple-choice questions about stacks keep to what the limits of the chart
settle (a stack to 100 % shows shares, not amounts): a benchmark of misleading stacked charts scored a segment's
reach, not its value.
"""

from __future__ import annotations

import re
from dataclasses import replace

from skills.chart.names import mentioned, norm
from vision_tools.charts import ChartResult

STACKED_KINDS = ("stacked_bar", "stacked_hbar")


def stacked_view(chart: ChartResult, question: str, choice: bool) -> ChartResult:
    """The reading of a stacked ``chart`` that ``question`` is about: its segments where it names a series, its
    whole stacks where it names none ("the busiest month", "the total for May"), and neither for options or over
    stacks all at 100 % (``unread_stacks``). Any other chart as it is."""
    if chart.kind not in STACKED_KINDS:
        return chart
    if choice:
        return unread_stacks(chart, "stacked bars are read for questions in words, not for options")
    if names_a_series(question, chart):
        return chart
    return unread_stacks(chart, LEVEL_STACKS) if level_stacks(chart) else chart.totals_view()


#: Why stacks all at 100 % answer a question naming none of their parts with nothing: said to the user.
LEVEL_STACKS = ("every bar is stacked to the same height (100 %): the chart shows each part's share, and the "
                "question names none of its parts")


def unread_stacks(chart: ChartResult, why: str) -> ChartResult:
    """``chart`` with its stacks unread, saying ``why``: what a multiple-choice question is judged on (its texts
    and limits)."""
    return replace(chart, kind=None, series=[], categories=[], table={}, marks=[], stack_totals=[], axis=None,
                   reason=why)


def names_a_series(question: str, chart: ChartResult) -> bool:
    """Whether ``question`` names one of the stacked series, in any form of its words ("disagreed" for "Disagree",
    "walk-ins" for "Walk-in"): it asks about segments, not whole stacks."""
    if mentioned(chart.series, norm(question)):
        return True
    asked = [w for w in re.findall(r"[a-z]+", norm(question)) if len(w) >= 4]
    for name in chart.series:
        for word in (w for w in re.findall(r"[a-z]+", norm(name)) if len(w) >= 4):
            if any(a.startswith(word) or (len(a) >= 5 and word.startswith(a)) for a in asked):
                return True
    return False


def level_stacks(chart: ChartResult) -> bool:
    """Whether every stack is as tall as the others (shares stacked to 100 %): their totals answer nothing."""
    totals = [m.value for m in chart.stack_totals]
    return len(totals) >= 2 and max(totals) - min(totals) <= 0.005 * max(abs(t) for t in totals)


def reach_view(chart: ChartResult) -> ChartResult:
    """A stacked chart's segments valued by how far each reaches along the value axis (the sum of its stack up to
    and including it) instead of by its length."""
    marks = []
    table: dict[str, dict[str, float]] = {}
    reached: dict[str, float] = {}
    for mark in chart.marks:  # bottom-up within each stack, as the parser read them
        reached[mark.category] = reached.get(mark.category, 0.0) + mark.value
        marks.append(replace(mark, value=reached[mark.category], printed=None, source="axis"))
        table.setdefault(mark.category, {})[mark.series] = reached[mark.category]
    return replace(chart, marks=marks, table=table)


def names_alike(answer: str | None, reach_answer: str | None) -> bool:
    """Whether a name or Yes/No read off the segments' lengths is also what their reach gives. A number (an amount
    of one series) is read off lengths only, and stands."""
    if answer is None or _is_number(answer):
        return True
    return answer == reach_answer


def _is_number(text: str) -> bool:
    try:
        float(text.replace(",", "").rstrip("%"))
    except ValueError:
        return False
    return True
