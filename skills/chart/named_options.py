"""Multiple choice whose options are the chart's own categories: "Which is the smallest slice? A) Weather B) Air
traffic control C) Carrier issues D) Security", "Which hospital has the 2nd shortest wait? A) Northgate …".

The statement checks of ``skills.chart.options`` judge options that say something about the values; an option that
only names a category says nothing until the question says which one is wanted. The open question's look-up
(``skills.chart.skill.answer_from_table`` on the question without its options) finds that category, with all its
guards; this module maps it to the option naming it. Options may shorten a long label ("Carrier issues" for
"Carrier issues (crew, maintenance)"), as long as each option names exactly one category and no two the same one:
otherwise no letter.
"""

from __future__ import annotations

from collections.abc import Callable

from skills.chart.choices import ChoiceDecision, choice_features
from skills.chart.names import norm, spellings
from skills.chart.verdict import Verdict
from vision_tools.charts import ChartResult

#: How the open question is answered from the chart: the answer and its confidence, or (None, None).
Lookup = Callable[[ChartResult, str], tuple[str | None, float | None]]


def by_lookup(chart: ChartResult, stem: str, options: dict[str, str], decision: ChoiceDecision, lookup: Lookup,
              misread: Callable[[str], bool]) -> ChoiceDecision:
    """``decision``, or, when every option names a category, the letter of the one that ``lookup`` finds for the
    question's ``stem``. Only where the statement checks judged every option and settled none: a question they
blocked (a limit of the chart, a period it does not show) or an option they judged false stays unanswered. ``misread`` tells a label read
    wrongly ("Satt" among weekdays), which is no category to name."""
    if not decision.verdicts or any(v.status != "unknown" for v in decision.verdicts.values()):
        return decision  # blocked before the options were judged (a limit, a period not shown), or judged apart
    if chart.slice_against_its_percentage is not None or chart.label_on_several_marks:
        return decision  # the pie's shares are not read reliably
    found, confidence = lookup(chart, stem)
    if found is None and len(options) == 2:
        # "which got more, (A) drama or (B) sci-fi": the stem compares the two options, which it names only there.
        found, confidence = lookup(chart, f"{stem.rstrip(' ,?:')}, {' or '.join(options.values())}?")
    # The look-up may name a series ("which platform lost subscribers between 2022 and 2024?" over lines).
    names = chart.categories if found in chart.categories else chart.series if len(chart.series) > 1 else []
    if found is None or confidence is None or found not in names or misread(found):
        return decision
    letter = option_naming(options, names, found)
    if letter is None:
        return decision
    why = f"the look-up of the question without its options finds {found}, which option {letter} names"
    chosen = ChoiceDecision(letter, round(confidence, 3), None,
                            {**decision.verdicts, letter: Verdict("true", confidence, why, "data")})
    chosen.features = choice_features(chosen, None, chart)
    return chosen


def option_naming(options: dict[str, str], categories: list[str], found: str) -> str | None:
    """The letter of the one option naming category ``found``, when every option names a different category (or
    series: ``categories`` are then the chart's series)."""
    named = {letter: category_named(text, categories) for letter, text in options.items()}
    if any(category is None for category in named.values()) or len(set(named.values())) != len(named):
        return None
    letters = [letter for letter, category in named.items() if category == found]
    return letters[0] if len(letters) == 1 else None


def category_named(option: str, categories: list[str]) -> str | None:
    """The one category ``option`` names: spelled alike (up to case, punctuation, a plural), else the one whose
    label starts with the option's words ("Air traffic control" for "Air traffic control / airspace")."""
    wanted = norm(option.strip().rstrip("."))
    if not wanted:
        return None
    alike = [c for c in categories if wanted in spellings(norm(c)) or norm(c) in spellings(wanted)]
    if alike:
        return alike[0] if len(alike) == 1 else None
    shortened = [c for c in categories if norm(c).startswith(wanted + " ")]
    return shortened[0] if len(shortened) == 1 else None
