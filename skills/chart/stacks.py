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

from dataclasses import replace

from vision_tools.charts import ChartResult

STACKED_KINDS = ("stacked_bar", "stacked_hbar")


def unread_stacks(chart: ChartResult) -> ChartResult:
    """``chart`` with its stacks unread: what a multiple-choice question is judged on (its texts and limits)."""
    return replace(chart, kind=None, series=[], categories=[], table={}, marks=[], stack_totals=[], axis=None,
                   reason="stacked bars are read for questions in words, not for options")


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
