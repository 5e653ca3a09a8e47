"""Positive evidence that the chart cannot settle the question, and the one option that says so.

A misleading chart is often misleading by what it leaves out: its data stop before the period asked about ("as of
week 3" while the question is about who will win), it shows a few years of a longer period (cherry-picked data),
its marks run past the top of the plot so that their heights say nothing, it stacks every bar to 100 % so that it
shows shares and never amounts, or it maps totals where the question asks for a rate per person. When the tools
*see* such a limit, an option stating it ("Cannot be determined", "This 1968-1975 segment alone cannot reliably indicate …", "The chart
does not display the full value for 2022 …") is the right answer, and the options claiming an outcome are not.

An option of that kind is chosen only when all of these hold:
- the tools found the limit (the chart's own words, the period its categories cover, marks cut off at the top,
  segments stacked on a 100 % axis, totals where a rate per person is asked), whether or not the chart's values
  could be read;
- exactly one option states a limit (the chart "cannot", "does not show", "unclear"…), and it speaks of the one
  found (``_ABOUT``): an outcome that cannot be known yet, the period or a year outside what is shown, the values
  cut off (by name, or by visibility; their order or equality when several are cut off), or amounts behind
  shares. A rate per person is simply not on a chart of totals, so any statement of a limit speaks of it;
- no other option is shown true by the values read (except for a rate per person: the values answer another
  question, so what they say of the options does not count).
Without the tools' evidence such an option is never chosen (``absence.py`` covers a missing scale or legend).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from skills.chart.facts import ChartFacts, clipped_categories, time_key
from skills.chart.verdict import Verdict
from vision_tools.charts import ChartResult

#: Strength of a limit the tools saw: the chart's own words or geometry, not a measurement with a margin.
LIMIT_STRENGTH = 0.85
_STATES_LIMIT = re.compile(
    r"\bcannot\b|\bcan't\b|\bcan ?not\b|\bnot possible to (?:tell|determine|know|say)\b|\bimpossible to\b|"
    r"\bunclear\b|\bnot (?:yet )?(?:be )?(?:determined|known)\b|"
    r"\b(?:chart|graph|plot|figure|map|data|it|visuali[sz]ation)(?: alone)? does not (?:clearly )?"
    r"(?:show|display|allow|indicate|reveal|tell)\b|"
    r"\bnot fully (?:shown|visible|displayed)\b|\binadequate information\b|\bnot enough (?:information|data)\b|"
    r"\binsufficient\b|\btoo early\b", re.IGNORECASE)
_PARTIAL = re.compile(r"\bas of\b|\byear[- ]to[- ]date\b|\bytd\b|\bso far\b|\bpreliminary\b|\bpartial\b|\bto date\b|"
                      r"\binterim\b", re.IGNORECASE)
#: Words in the question itself that say the data are partial ("as of" there dates the question, not the data).
_PARTIAL_ASKED = re.compile(r"\byear[- ]to[- ]date\b|\bytd\b|\bso far\b|\bpreliminary\b|\bpartial\b|\binterim\b",
                            re.IGNORECASE)
_OUTCOME = re.compile(r"\bwill\b|\bultimately\b|\bfinal\b|\bend (?:higher|lower)\b|\bconclude\b|"
                      r"\bends? (?:on|in|at|after)\b|\bclos(?:e|es|ing)\b|\blatest year\b|\bselected\b|\bwinner\b|"
                      r"\bwins?\b", re.IGNORECASE)
#: What a limit option must speak of, per limit: the outcome, the period covered, or the values cut off.
_ABOUT = {
    "partial": re.compile(r"\bdetermine|\bfinal\b|\bwill\b|\byet\b|\bpartial\b|\bend\b|\bwinner\b|\bselected\b|"
                          r"\bfull\b|\bearly\b|\bonly cover|\bso far\b", re.IGNORECASE),
    "period": re.compile(r"\bsample\b|\bsegment\b|\balone\b|\blimited\b|\bfull\b|\bentire\b|\bwhole\b|\bspan\b|"
                         r"\bperiod\b|\bvisible\b|\bbeyond\b|\bexceed", re.IGNORECASE),
    "shares": re.compile(r"\babsolute\b|\bactual (?:number|amount|count|value)|\bunderlying totals?\b|"
                         r"\bquantit", re.IGNORECASE),
    "per_person": re.compile(r".", re.DOTALL),  # any statement of the limit: the rate is simply not on the chart
    "clipped": re.compile(r"\bvisible\b|\bbeyond\b|\bexceed|\bfully\b|\bclipped\b|\bcut off\b|\btop of the "
                          r"(?:chart|plot|graph)\b|\bplotted range\b", re.IGNORECASE),
}
#: With several marks cut off, their order and equality are beyond the chart too: an option may speak of those.
_ABOUT_SEVERAL_CLIPPED = re.compile(r"\bhighest\b|\blast\b|\bfinal\b|\bexact\b|\bequal\b|\bsame\b|\bcompar",
                                    re.IGNORECASE)
_PER_PERSON = re.compile(r"\bper[- ](?:person|capita|head|resident|inhabitant|people)\b|"
                         r"\bper [\d,.]+ ?(?:k|thousand|million)? ?(?:people|persons|residents|inhabitants|population)\b|"
                         r"\bper (?:1,?000|10,?000|100,?000|1,?000,?000)\b(?! ?[a-z])", re.IGNORECASE)
_TOTAL = re.compile(r"\btotals?\b", re.IGNORECASE)
#: Limits under which the values read do not answer the question at all, whatever they say of the options.
VOIDS_VALUES = frozenset({"per_person"})
_SAMPLE_SETTLES = re.compile(r"^\s*(?:yes|no)\b|\bat least (?:one|once)\b|\bever\b|\bany (?:year|month|point|time)\b|"
                             r"\bat (?:some|one) point\b|\bin (?:some|one) (?:year|month)\b|\bonce\b", re.IGNORECASE)
_ASKS_SHARE = re.compile(r"\bshares?\b|\bpercent(?:age)?s?\b|\bproportions?\b|\bfractions?\b|\bhow much of\b",
                         re.IGNORECASE)
_ASKS_HIGHEST = re.compile(r"\bmost\b(?!\s+(?:accurate|appropriate|likely|supported|reasonable|valid|correct|reliable|"
                           r"plausible|consistent|true))|\b(?:highest|largest|biggest|greatest|tallest|peak(?:ed)?|"
                           r"maximum|top)\b", re.IGNORECASE)
_HUNDRED = re.compile(r"100(?:\.0+)?\s?%")
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")
#: A year as the question uses one: after "in", "from", "between", "by"… or in a range ("1960-1980", "1960 to").
_ASKED_YEAR = re.compile(r"(?:\b(?:in|from|to|between|and|since|until|through|till|during|before|after|by|of)\s+|"
                         r"[-–]\s*)(1[5-9]\d\d|20\d\d)(?!\d)|(?<!\d)(1[5-9]\d\d|20\d\d)(?=\s*(?:[-–]|to\b|through\b))",
                         re.IGNORECASE)


@dataclass(frozen=True)
class Limit:
    """A limit of the chart the tools saw: ``kind`` is "partial", "period", "clipped", "shares" or "per_person";
    ``why`` says it to the user."""

    kind: str
    why: str
    years_outside: tuple[int, ...] = ()
    #: The categories it hides (the ones cut off at the top), which an option may name instead of the limit.
    names: tuple[str, ...] = ()
    #: The question itself is about what the limit hides (it names a category cut off): any statement of a limit
    #: then speaks of it.
    asked: bool = False


def limits_seen(stem: str, options: dict[str, str], chart: ChartResult, facts: ChartFacts | None) -> list[Limit]:
    """The limits of ``chart`` that bear on the question: partial data asked about their outcome (in the stem or
    the options), a period asked about beyond the one shown (by more than one step of the categories), values cut
    off at the top of the plot, shares of a 100 % stacked chart asked about as amounts. ``facts`` (the readings)
    is None when the chart's values could not be read; the limits that need no values are still seen."""
    found: list[Limit] = []
    texts = [chart.title, *chart.texts]  # the readings' texts are the chart's (``facts_from``)
    partial = partial_text(texts) or (stem if _PARTIAL_ASKED.search(stem) else None)
    if partial is not None and any(_OUTCOME.search(t) for t in [stem, *options.values()]):
        found.append(Limit("partial", f"the chart's data are partial ('{partial}'), so the outcome is not shown"))
    clipped = clipped_categories(chart.warnings)
    shown = years_shown([*(facts.categories if facts is not None else []), *clipped])
    asked = asked_years(stem)
    if shown and asked:
        step = min((b - a for a, b in zip(shown, shown[1:], strict=False) if b > a), default=1)
        outside = tuple(y for y in asked if y < shown[0] - step or y > shown[-1] + step)
        if outside and not _settled_by_sample(options):
            found.append(Limit("period", f"the question is about {period(asked)} but the chart shows only "
                                         f"{period(shown)}", outside))
    # One mark cut off is still the tallest: "which is highest" is not beyond the chart, only its value is.
    if len(clipped) > 1 or (clipped and not _ASKS_HIGHEST.search(stem)):
        found.append(Limit("clipped", f"the marks of {', '.join(clipped)} run past the top of the plot: their "
                                      "values are beyond what is drawn", names=tuple(clipped),
                           asked=any(_names(n, stem) for n in clipped)))
    if _PER_PERSON.search(stem) and not any(_PER_PERSON.search(t) for t in texts if t) and \
            any(_TOTAL.search(t) for t in texts if t):
        found.append(Limit("per_person", "the question asks for a rate per person, but the chart shows totals and no "
                                         "population to divide them by"))
    stacked = "stacked" in (chart.reason or "") or (chart.kind or "").startswith("stacked") or chart.whole_stacks
    if stacked and any(_HUNDRED.fullmatch(t.strip()) for t in chart.texts) and not _ASKS_SHARE.search(stem):
        found.append(Limit("shares", "the bars are stacked to 100 %: they show each part's share, not amounts"))
    return found


def limit_option(options: dict[str, str], limits: list[Limit], verdicts: dict[str, Verdict] | None = None
                 ) -> tuple[str, Limit] | None:
    """The one option that states a limit the tools saw, when no other option is shown true; else None. A limit
    that makes the values beside the point (totals where a rate per person is asked) is chosen whatever the
    values say of the other options: they were judged on the wrong quantity."""
    stating = [k for k, text in options.items() if _STATES_LIMIT.search(text)]
    if len(stating) != 1 or not limits:
        return None
    letter = stating[0]
    text = options[letter]
    for limit in limits:
        if verdicts and limit.kind not in VOIDS_VALUES and any(
                v.status == "true" for k, v in verdicts.items() if k != letter):
            continue
        years = {int(y) for y in _YEAR.findall(text)}
        named = limit.asked or any(_names(n, text) for n in limit.names)
        several = len(limit.names) > 1 and _ABOUT_SEVERAL_CLIPPED.search(text) is not None
        if _ABOUT[limit.kind].search(text) or years.intersection(limit.years_outside) or named or several:
            return letter, limit
    return None


def partial_text(texts: list[str]) -> str | None:
    """The first of ``texts`` saying the chart's data are partial ("as of May 2024", "year to date"), or None."""
    return next((t for t in texts if t and _PARTIAL.search(t)), None)


def asked_years(stem: str) -> list[int]:
    """The years the question speaks of, sorted: numbers in year context only ("from 1960 to 1980", "in 2010",
    "2018-2022"), so "exceed 1800" is no year."""
    return sorted({int(a or b) for a, b in _ASKED_YEAR.findall(stem)})


def period(years: list[int]) -> str:
    """``[2018, 2022]`` as "2018-2022", a single year as itself."""
    return str(years[0]) if years[0] == years[-1] else f"{years[0]}-{years[-1]}"


def _names(name: str, text: str) -> bool:
    """Whether ``text`` mentions ``name`` as a whole word."""
    return re.search(r"(?<![\w.])" + re.escape(name) + r"(?![\w])", text, re.IGNORECASE) is not None


def _settled_by_sample(options: dict[str, str]) -> bool:
    """Whether an option could be settled by the years shown alone: a Yes/No, or a claim that something happened
    at least once ("fell in at least one year", "was ever above 20"), which one shown year proves or refutes."""
    return any(_SAMPLE_SETTLES.search(text) for text in options.values() if not _STATES_LIMIT.search(text))


def years_shown(categories: list[str]) -> list[int]:
    """The years ``categories`` cover, sorted, when every one reads as a year; else []."""
    keys = [time_key(c) for c in categories]
    if not keys or any(k is None or k[0] != 0 for k in keys):
        return []
    return sorted({int(k[1][0]) for k in keys if k is not None})
