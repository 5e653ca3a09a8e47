"""Why the chart skill gives no answer, said about the question and the chart: the first reason that applies.

A number the question states that the chart does not print, a period it does not show, a measure it does not plot,
a word it does not account for, printed values left unread, or, last, no reading of the table that matches.
"""

from __future__ import annotations

from skills.chart.measure import unprinted_measure
from skills.chart.mismatch import unprinted_numbers
from skills.chart.names import unread_calendar_names
from skills.chart.precision import unread_labels
from vision_tools.charts import ChartResult


def why_no_answer(chart: ChartResult, question: str, unexplained: list[str], neural: bool) -> str | None:
    """What is missing for ``question`` over ``chart`` (``unexplained``: its words the chart prints nowhere); None
    where a neural expert, not the tools, answers."""
    if (stated := unprinted_numbers(chart, question)) and not neural:
        return (f"the question states {', '.join(stated)}, which the chart prints nowhere: a look-up in its table "
                "answers no calculation from that number, nor a point between its marks")
    if unread := unread_calendar_names(chart.categories, question, [chart.title, *chart.texts]):
        return (f"the question names {', '.join(n.capitalize() for n in unread)}, which the chart does not show (not "
                "among the labels the tools read)")
    if (measure := unprinted_measure(chart, question)) is not None:
        return f"the question asks about {measure}, which the chart prints nowhere: it measures something else"
    if unexplained:
        return (f"the question asks about {', '.join(repr(w) for w in unexplained)}, which the chart prints nowhere "
                "(not in its title, axes, legend or labels), so no value of it answers")
    if unread := unread_labels(chart):
        return (f"the chart prints its bars' values, but those of {', '.join(unread)} could not be read; a "
                "measurement against the axis is no value as printed")
    if neural:
        return None
    return ("the tools could not match the question to a reading of the chart's table (they answer a named "
            "category's value, which category is highest or lowest, a difference between two named categories, a "
            "total or an average)")
