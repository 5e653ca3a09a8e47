"""Groups of categories a question names: "the weekend", "weekdays", "which of Mon, Tue and Wed".

"the weekend" and "weekdays" over a chart whose categories are the days of the week:
"total minutes walked at the weekend" asks for Saturday and Sunday; read without them, a total over every day was
answered. Over weekday categories the words are spelled out as the days they name, so every rule that reads the
days a question names (a total, an average, a comparison) reads these. A chart that prints "weekend" itself (a
series "Weekend" beside "Weekday") keeps the words, as its own names.
"""

from __future__ import annotations

import re
from dataclasses import replace

from skills.chart.facts import time_key
from skills.chart.names import all_of_kind, in_time_order, mentioned, norm, spellings
from vision_tools.charts import ChartResult

_GROUPS = {
    re.compile(r"\b(?:the\s+)?week-?ends?\b"): ("sat", "sun"),
    re.compile(r"\b(?:the\s+)?week-?days\b|\bworking days\b|\bmon(?:day)?\s*(?:-|–|to|through|thru)\s*fri(?:day)?\b"):
        ("mon", "tue", "wed", "thu", "fri"),
}


def spell_out_day_groups(chart: ChartResult, question: str) -> str:
    """``question`` with "the weekend" and "weekdays" spelled out as the days the chart prints, over weekday
    categories; unchanged otherwise."""
    if not all_of_kind("days", chart.categories):
        return question
    printed = norm(" ".join([chart.title, *chart.series, *chart.legend, *chart.texts]))
    if re.search(r"\bweek-?(?:ends?|days)\b", printed):
        return question
    for pattern, days in _GROUPS.items():
        names = [c for c in chart.categories if any(norm(c) in spellings(day) or norm(c).startswith(day)
                                                    for day in days)]
        if len(names) == len(days):
            question = pattern.sub(", ".join(names[:-1]) + " and " + names[-1], question)
    return question


#: "mon-sat", "Jan to Jun", "weeks 3 through 7": a span of categories named by its ends.
_SPAN = re.compile(r"\b(?P<a>[A-Za-z0-9]+)\s*(?:-|–|—|\bto\b|\bthrough\b|\bthru\b|\btill\b|\buntil\b)\s*"
                   r"(?P<b>[A-Za-z0-9]+)\b", re.I)
#: A total or a mean over what the question names: the only questions whose span is every category in it.
_TOTAL = re.compile(r"\b(?:total|sum|altogether|combined|in all|overall|together|average|mean|avg)\b", re.I)
#: A change between two points ("grow from Jan to Jun"): its ends are the points, no span to spell out.
_MOVES = re.compile(r"\b(?:gr[eo]w\w*|increas\w*|decreas\w*|ris\w*|rose|fell|fall\w*|drop\w*|chang\w*|"
                    r"differ\w*|gain\w*|lost|declin\w*|jump\w*|climb\w*|go\s+(?:up|down)|went)\b", re.I)


def spell_out_spans(chart: ChartResult, question: str) -> str:
    """``question`` with a span of categories in time order ("total … mon-sat") written as every category in it
    ("Mon, Tue, Wed, Thu, Fri and Sat"), for a total or a mean; unchanged for a change between its two ends."""
    if not _TOTAL.search(question) or _MOVES.search(question) or not in_time_order(chart.categories):
        return question
    for match in reversed(list(_SPAN.finditer(question))):
        a, b = mentioned(chart.categories, norm(match.group("a"))), mentioned(chart.categories, norm(match.group("b")))
        if len(a) == 1 and len(b) == 1:
            i, j = chart.categories.index(a[0]), chart.categories.index(b[0])
            if i < j:
                names = chart.categories[i:j + 1]
                question = question[:match.start()] + ", ".join(names[:-1]) + " and " + names[-1] + \
                    question[match.end():]
    return question


def clipped_into(chart: ChartResult, categories: list[str], text: str) -> str | None:
    """A category outside ``categories`` whose label is part of what the question names: "atcha latte", the label
    read clipped, inside "which of espresso, matcha latte and mocha"; "Model X2" inside "Model X2 Max". The group
    may then miss one of its own."""
    for other in chart.categories:
        plain = norm(other)
        if other not in categories and len(plain) >= 3 and plain in text:
            return other
    return None


def among(chart: ChartResult, categories: list[str]) -> ChartResult:
    """``chart`` with only ``categories``: "which of Mon, Tue and Wed had the longest walk" is the longest of those
    three, not of the week."""
    kept = set(categories)
    return replace(chart, categories=[c for c in chart.categories if c in kept],
                   table={c: row for c, row in chart.table.items() if c in kept},
                   marks=[m for m in chart.marks if m.category in kept])


def within_named(chart: ChartResult, categories: list[str], text: str) -> ChartResult | None:
    """The chart a "which … highest" question ranks: all of it when it names no category; those it names, two or
    more ("which of mon, tue and wed"); None when it names one ("which podcast had the most listeners in June" asks
    for a series within June, not the highest category) or a label outside the group is part of what it names."""
    if not categories:
        return chart
    if len(categories) == 1 or clipped_into(chart, categories, text) is not None:
        return None
    return among(chart, categories)


#: "who practised the least", "who scored most": asks for a category, when the categories can be who.
_WHO = re.compile(r"^(?:so |and |ok )?who\b")


def asks_who(chart: ChartResult, text: str) -> bool:
    """Whether ``text`` (normalised) asks "who …" over categories that can name someone: words, not times or
    numbers (over months "who sold the most" asks about someone the chart does not show)."""
    return bool(_WHO.search(text)) and bool(chart.categories) and not any(
        time_key(c) is not None or not re.search(r"[a-z]{2}", norm(c)) for c in chart.categories)

