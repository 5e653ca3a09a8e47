"""Positive evidence that a chart lacks what the question needs: the one way an option such as "Cannot determine
… without a legend" or "… without Y-axis scales" may be chosen.

Such an option is accepted only when (1) it names what is missing, (2) the tools confirm it is missing, and (3)
every other option is a claim that needs exactly that:
- a value scale: the chart has marks and an axis line but no number anywhere along the value axis and no value
  printed on the marks, while the other options claim ratios, amounts or sizes of change;
- a legend: the other options speak of colours ("the purple area (Company B)"), no text on the chart sits beside
  a colour key, and none of the names the options pair with colours is written anywhere on it.
Until the parser can show the absence, nothing is returned and the question goes on to the ordinary checks.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from skills.chart.facts import normalise_spaces
from vision_tools.charts import ChartResult

if TYPE_CHECKING:
    from skills.chart.choices import ChoiceDecision

_NO_LEGEND = re.compile(r"without (?:a |any )?legend|no legend|lack of (?:a )?legend", re.IGNORECASE)
_NO_SCALE = re.compile(r"without (?:the )?(?:y-axis |value |axis )?(?:scales?|values|numbers|tick labels?)|"
                       r"no (?:y-axis |value )?scale|lack of (?:a )?scale", re.IGNORECASE)
_COLOUR = re.compile(r"\b(red|orange|yellow|green|blue|purple|violet|pink|brown|grey|gray|black|teal|cyan|magenta)\b",
                     re.IGNORECASE)
_QUANTITY = re.compile(r"\btimes\b|\bratio\b|\bdouble\b|\bhalf\b|%|\bpercent|\bmagnitude\b|\bexact\b|\bhigher\b|"
                       r"\blower\b|\bgrowth\b|\btrend\b|\bfluctuat|\bsteady\b|\bvolatil", re.IGNORECASE)


def missing_support(chart: ChartResult, stem: str, options: dict[str, str]) -> ChoiceDecision | None:
    """A decision for an option that says the chart lacks a legend or a value scale, when the tools confirm it."""
    from skills.chart.choices import ChoiceDecision
    from skills.chart.verdict import Verdict

    for letter, text in options.items():
        others = {k: v for k, v in options.items() if k != letter}
        if _NO_LEGEND.search(text) and _legend_missing(chart, others):
            verdicts = {k: Verdict("false", 0.85, "pairs a colour with a name the chart never writes")
                        for k in others}
            verdicts[letter] = Verdict("true", 0.85, "no text on the chart names the options' series", "cannot")
            return ChoiceDecision(letter, 0.85, None, verdicts)
        if _NO_SCALE.search(text) and _scale_missing(chart) and all(_QUANTITY.search(o) for o in others.values()):
            verdicts = {k: Verdict("false", 0.85, "needs values the chart does not print") for k in others}
            verdicts[letter] = Verdict("true", 0.85, "no numbers on the value axis or the marks", "cannot")
            return ChoiceDecision(letter, 0.85, None, verdicts)
    return None


def _legend_missing(chart: ChartResult, others: dict[str, str]) -> bool:
    """Every other option speaks of a colour ("the purple area (Company B)"), the chart has marks and texts but no
    text beside a colour key, and no name the options give in brackets is written anywhere on it."""
    if not chart.texts or not chart.shapes or chart.legend:
        return False
    written = normalise_spaces(" ".join(chart.texts))
    for text in others.values():
        if not _COLOUR.search(text):
            return False
        pair = re.search(r"\(([^()]{1,40})\)", text)
        if pair is not None and normalise_spaces(pair.group(1)) in written:
            return False
    return True


def _scale_missing(chart: ChartResult) -> bool:
    """The parser saw marks and an axis line, and read no number on the value axis and none on the marks."""
    return chart.marks_seen and chart.axis is None and not chart.value_numbers
