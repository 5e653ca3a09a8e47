"""Multiple-choice chart questions: the option the recovered table supports, or an abstention that says why.

A letter is returned only when the readings make exactly one option true and every other option is false or a
statement the table cannot check; its confidence is the true option's strength (margin over the reading
uncertainty, trust in printed numbers and axis fits) lowered for each option left unchecked. Before any option is
judged, the question is checked against what the chart can support at all:

- the period it asks about must be the period the chart shows ("1960 to 1980" on a chart of 1968-1975 is a
  sample, not the whole: cherry-picked data);
- a chart that says its data is partial ("as of May 2024", "year to date") cannot settle how a period ends or
  what will happen;
- an option saying the chart cannot tell is never chosen by default; it is chosen only on positive evidence of
  what it says is missing (``absence.py``: no numbers on the value axis, no legend naming the colours;
  ``limits.py``: partial data asked about their outcome, a period beyond the one shown, marks cut off at the top).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from skills.answer_form import AnswerForm
from skills.chart.absence import missing_support
from skills.chart.facts import ChartFacts, clipped_categories, facts_from
from skills.chart.limits import (
    LIMIT_STRENGTH,
    VOIDS_VALUES,
    Limit,
    asked_years,
    limit_option,
    limits_seen,
    partial_text,
    period,
    years_shown,
)
from skills.chart.options import judge_options
from skills.chart.verdict import Verdict
from skills.question_text import task_text
from vision_tools.charts import ChartResult

#: Below this the skill abstains rather than answer (risk-coverage on the Misleading ChartQA dev set).
MIN_CONFIDENCE = 0.7
JUDGEMENT = ("this asks for a judgement about the chart (what it implies, or whether it can tell at all); the tools "
             "only check statements against the values the chart shows: configure a VLM expert, see docs/experts.md")
_OUTCOME = re.compile(r"\bwill\b|\bultimately\b|\bfinal\b|\bend (?:higher|lower)\b|\bconclude\b|\blatest\b|\bfull\b",
                      re.IGNORECASE)
#: Trust kept when the table mixes printed and measured values, and when some categories have no printed name.
MIXED_SOURCES = 0.75
UNNAMED_CATEGORIES = 0.6
DISAGREEING_RANKING = 0.6
_RANKING = re.compile(r"#\d+ (?:highest|lowest)")
_PLACEHOLDER = re.compile(r"^(?:slice|bar|point|category|series|item)\s*\d+$", re.IGNORECASE)
_AVERAGE = re.compile(r"\b(?:average|avg|mean)\b", re.IGNORECASE)
#: A note on the plot that marks an average ("Average", "Avg: 325", "Mean = 40"), not an axis title.
_AVERAGE_MARK = re.compile(r"(?:average|avg|mean)(?: line)?\s*[:=]?\s*\$?[\d.,]*\s*%?", re.IGNORECASE)


@dataclass
class ChoiceDecision:
    """The letter chosen (or None), how sure, what is missing when there is no letter, and every option's verdict."""

    letter: str | None
    confidence: float
    missing: str | None
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    #: Evidence features for the calibrator (``SkillResult.features``): see ``choice_features``.
    features: dict[str, float] = field(default_factory=dict)

    def explain(self) -> str:
        lines = [f"{k}: {v.status} ({v.why})" for k, v in self.verdicts.items()]
        head = (f"Answer {self.letter} (confidence {self.confidence:.2f})" if self.letter else
                f"No answer: {self.missing}")
        return "\n".join([head, *lines])


def decide(chart: ChartResult, question: str, form: AnswerForm) -> ChoiceDecision:
    """The option letter ``chart`` supports for ``question`` (whose options are ``form.options``), or why not."""
    stem, _ = task_text(question)
    absent = missing_support(chart, stem, form.options)
    if absent is not None:
        absent.features = choice_features(absent, None, chart)
        return absent
    if not chart.found:
        limited = limit_option(form.options, limits_seen(stem, form.options, chart, None))
        if limited is not None:  # a limit that needs no values (partial data, a 100 % stack) settles it anyway
            decision = _limited(form.options, *limited, verdicts={})
            decision.features = choice_features(decision, None, chart)
            return decision
        return ChoiceDecision(None, 0.0, f"the chart parser could not read values from this chart ({chart.reason}); "
                                         "it reads bar, line and pie charts, not maps, heatmaps or scatter plots")
    facts = facts_from(chart, chart.texts)
    decision = decide_on_facts(stem, form.options, facts, chart)
    if decision.verdicts:  # a question blocked before any option was judged has nothing to rank by
        decision.features = choice_features(decision, facts, chart)
    return decision


def decide_on_facts(stem: str, options: dict[str, str], facts: ChartFacts, chart: ChartResult | None = None
                    ) -> ChoiceDecision:
    """The option the readings ``facts`` of ``chart`` support, or why not: an option stating a limit the tools
    saw first, then the questions the chart cannot support, then the option the values make the only true one."""
    verdicts = judge_options(stem, options, facts)
    seen = chart if chart is not None else ChartResult(facts.kind, title=facts.title, texts=list(facts.texts))
    limits = limits_seen(stem, options, seen, facts)
    limited = limit_option(options, limits, verdicts)
    if limited is not None:
        return _limited(options, *limited, verdicts=verdicts)
    void = next((limit for limit in limits if limit.kind in VOIDS_VALUES), None)
    if void is not None:  # the values answer another question (totals, not rates): no option is judged on them
        return ChoiceDecision(None, 0.0, void.why)
    blocked = _unsupported_question(stem, options, facts, seen.warnings)
    if blocked is not None:
        return ChoiceDecision(None, 0.0, blocked)
    return _choose(verdicts, facts, chart)


def _limited(options: dict[str, str], letter: str, limit: Limit, verdicts: dict[str, Verdict]) -> ChoiceDecision:
    """The option stating ``limit``, true on the tools' evidence of it; the others keep their verdicts."""
    judged = {k: verdicts.get(k, Verdict.unknown("needs what the chart does not show")) for k in options}
    judged[letter] = Verdict("true", LIMIT_STRENGTH, limit.why, "cannot")
    return ChoiceDecision(letter, LIMIT_STRENGTH, None, judged)


def choice_features(decision: ChoiceDecision, facts: ChartFacts | None, chart: ChartResult) -> dict[str, float]:
    """Numbers about how a letter was chosen, for ranking right answers above wrong ones: the chosen option's
    strength, how many options were ruled out or left unchecked, the margin to the strongest ruled-out option,
    how the chart's values were read (share printed on the chart), and what made some readings unusable."""
    verdicts = list(decision.verdicts.values())
    chosen = decision.verdicts.get(decision.letter) if decision.letter else None
    readings = [r for row in facts.cells.values() for r in row.values()] if facts is not None else []
    printed = sum(r.source in ("confirmed", "printed") for r in readings)
    false = [v.strength for v in verdicts if v.status == "false"]
    return {
        "choice_confidence": round(decision.confidence, 4),
        "chosen_strength": round(chosen.strength, 4) if chosen else 0.0,
        "options": float(len(verdicts)),
        "options_false": float(len(false)),
        "options_unknown_data": float(sum(v.status == "unknown" and v.kind == "data" for v in verdicts)),
        "options_unknown_other": float(sum(v.status == "unknown" and v.kind != "data" for v in verdicts)),
        "weakest_false": round(min(false), 4) if false else 0.0,
        "printed_share": round(printed / len(readings), 4) if readings else 0.0,
        "unnamed_categories": float(sum(bool(_PLACEHOLDER.match(c)) for c in chart.categories)),
        "printed_disagreements": float(_disagreements(chart)),
        "chosen_ranking": float(chosen is not None and bool(_RANKING.search(chosen.why))),
        # "The chart cannot tell" chosen on positive evidence of what is missing (``absence.py``): its own kind.
        "chosen_cannot": float(chosen is not None and chosen.kind == "cannot"),
        "chart_found": float(chart.found),
        "chart_problems": float(len(facts.problems)) if facts is not None else -1.0,
        "chart_complete": float(facts.complete) if facts is not None else -1.0,
        "axis_residual": round(chart.axis.residual, 4) if chart.axis is not None else -1.0,
        "axis_nonlinear": float(chart.axis is not None and chart.axis.scale != "linear"),
        "categories": float(len(chart.categories)),
        "series": float(len(chart.series)),
    }


def _unsupported_question(stem: str, options: dict[str, str], facts: ChartFacts, warnings: list[str]) -> str | None:
    """Why the chart cannot support any answer to this question, or None."""
    years = years_shown([*facts.categories, *clipped_categories(warnings)])
    asked = asked_years(stem)
    if years and asked and (asked[0] < years[0] or asked[-1] > years[-1]):
        return (f"the question is about {period(asked)} but the chart shows only {period(years)}: a sample cannot "
                "settle the whole period")
    if _AVERAGE.search(stem) and any(_AVERAGE_MARK.fullmatch(t.strip()) for t in facts.texts):
        return ("the chart marks its own average (a line or note the tools do not read), and the question asks for "
                "an average: the mark and the values may disagree (a misleading annotation), so neither is taken")
    cannot_offered = any(re.search(r"cannot|can't|impossible|inadequate|not enough", o, re.I) for o in options.values())
    partial = partial_text([facts.title, *facts.texts])
    if partial is not None and (cannot_offered or _OUTCOME.search(stem)):
        return (f"the chart says its data is partial ('{partial}'): how the period ends, or what will happen, is a "
                "judgement the values shown cannot settle")
    return None


def _choose(verdicts: dict[str, Verdict], facts: ChartFacts, chart: ChartResult | None = None) -> ChoiceDecision:
    """The option the verdicts support; ``chart`` (the parse, when there is one) adds its warnings as doubts."""
    trues = [k for k, v in verdicts.items() if v.status == "true"]
    if len(trues) > 1:
        return ChoiceDecision(None, 0.0, f"the chart's values support more than one option ({', '.join(trues)})",
                              verdicts)
    if not trues:
        return ChoiceDecision(None, 0.0, _why_none(verdicts, facts), verdicts)
    letter = trues[0]
    confidence = verdicts[letter].strength * _table_doubt(verdicts[letter], facts, chart)
    for other, verdict in verdicts.items():
        if other == letter or verdict.status == "false":
            continue
        confidence *= {"data": 0.95, "cannot": 0.97, "judgement": 0.93}.get(verdict.kind, 0.93)
    return ChoiceDecision(letter, round(confidence, 3), None, verdicts)


def _table_doubt(chosen: Verdict, facts: ChartFacts, chart: ChartResult | None) -> float:
    """How far the table itself can be trusted for the chosen option (1 = fully). Two kinds of table were behind
    the confident wrong answers on the tuning half: one mixing numbers printed on the chart with values measured
    from marks (a chart drawn out of proportion with its labels, whose unread labels left the misleading
    geometry in the table), and one whose categories the parser had to name itself ("Slice 5"), so a ranking over
    them may rank a category the question names against one it could not name. A ranking ("X is the largest")
    on a chart where printed numbers disagree with the marks they were matched to is doubted too: either the
    chart is drawn out of proportion or a label was matched to the wrong mark, and one wrong match reorders it."""
    if chosen.kind != "data":
        return 1.0
    readings = [r for row in facts.cells.values() for r in row.values()]
    printed = sum(r.source in ("confirmed", "printed") for r in readings)
    doubt = MIXED_SOURCES if 0 < printed < len(readings) else 1.0
    if any(_PLACEHOLDER.match(c) for c in facts.categories):
        doubt *= UNNAMED_CATEGORIES
    if _RANKING.search(chosen.why) and _disagreements(chart):
        doubt *= DISAGREEING_RANKING
    return doubt


def _disagreements(chart: ChartResult | None) -> int:
    """Printed numbers that disagree with the geometry of the mark they were matched to."""
    return 0 if chart is None else sum("disagrees" in w for w in chart.warnings)


def _why_none(verdicts: dict[str, Verdict], facts: ChartFacts) -> str:
    data = [v for v in verdicts.values() if v.status == "unknown" and v.kind == "data"]
    if data:
        problems = f" ({'; '.join(facts.problems)})" if facts.problems else ""
        return f"the chart's values do not settle the options: {data[0].why}{problems}"
    if all(v.status == "false" for v in verdicts.values()):
        return "the values read from the chart contradict every option; the reading may be wrong"
    if facts.problems:
        return f"{'; '.join(facts.problems)}; {JUDGEMENT}"
    return JUDGEMENT
