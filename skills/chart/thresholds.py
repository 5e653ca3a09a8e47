"""Questions that hold values of the chart against a number the question states: Yes/No for one value, or how many
categories lie on one side.

"Did the botanical garden crack 1 million visitors?", "is Central City above 40 beds per 10,000?", "was Q3 under
$2M?": one category (and, on a chart of several series, one series) against a limit. The limit is read in the
chart's own unit: "1 million" against a label "1.02M" (in the table as 1,020,000) or against an axis titled "in
thousands" (1,000 of its units). Where the question's number and the chart's unit cannot be put on one scale (a
bare "900" over an axis in thousands, a percentage over counts), the question is not answered.

A value printed on the chart is compared exactly (its last digit is its uncertainty); a value measured against the
axis only when it clears the limit by ``CLEAR_GAP_SHARE`` of the value span, as for comparing two marks.
"""

from __future__ import annotations

import re

from skills.answer_form import answer_form
from skills.chart.confidence import CLEAR_GAP_SHARE, largest_value, values_confidence
from skills.chart.facts import facts_from
from skills.chart.measure import in_percent, unprinted_measure
from skills.chart.mismatch import unprinted_numbers
from skills.chart.names import counts_the_categories, in_time_order, mentioned, norm
from skills.chart.verdict import threshold
from vision_tools.charts import ChartResult
from vision_tools.charts.axes import parse_number

Answer = tuple[str | None, float | None]

#: "above 40", "more than 1 million", "crack the 1M mark", "under $2.5bn": a relation and the number after it.
_AGAINST = re.compile(
    r"\b(?:(?P<above>above|over|more than|greater than|higher than|bigger than|larger than|exceed(?:s|ed)?|"
    r"at least|crack(?:s|ed)?|pass(?:es|ed)?|surpass(?:es|ed)?|break|broke|reach(?:es|ed)?|hit(?:s)?|top(?:s|ped)?)|"
    r"(?P<below>below|under|less than|fewer than|lower than|smaller than|at most))\s+(?:the\s+|a\s+)?"
    r"(?P<currency>[$€£¥])?\s*(?P<number>\d[\d,]*(?:\.\d+)?)\s*"
    r"(?P<scale>%|percent\b|k\b|thousand\b|m\b|mn\b|million\b|bn\b|billion\b)?", re.I)
_SCALES = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}
#: "ever", "every", "always": over all the categories, which is another question.
_QUANTIFIER = re.compile(r"\b(?:ever|always|every|each|all|any)\b")
#: How a title or axis names the unit its numbers are counted in: "Visitors (thousands)", "Revenue, $M".
_NAMED_SCALE = ((re.compile(r"\bthousands?\b|\(\s*'?000s?\s*\)|\(\s*k\s*\)|[$€£¥]\s*k\b", re.I), 1e3),
                (re.compile(r"\bmillions?\b|\(\s*mn?\s*\)|[$€£¥]\s*mn?\b|\bmn\b", re.I), 1e6),
                (re.compile(r"\bbillions?\b|\(\s*bn?\s*\)|[$€£¥]\s*bn?\b|\bbn\b", re.I), 1e9))
#: A limit this many times beyond every value (or below a tenth of a tenth of the largest) is not on the chart's
#: scale.
_FAR = 10.0
_CURRENCY = re.compile(r"[$€£¥]|\b(?:usd|eur|gbp|dollars?|euros?)\b", re.I)


#: "sushi zen wait vs 25 min - is it more?": the value, the number, then the question about the two.
_VERSUS = re.compile(r"^(?P<value>.+?)\s+(?:vs\.?|versus|against|compared (?:to|with))\s+(?P<number>[$€£¥]?\s*\d[\d,]*"
                     r"(?:\.\d+)?(?:\s*[a-z%]+)?)\s*[-–—:,]+\s*(?:is|was|are|were) (?:it|that|this|they) "
                     r"(?P<relation>more|higher|bigger|greater|longer|over|above|less|lower|smaller|fewer|shorter|"
                     r"under|below)\b[^-–—:,]*$", re.I)
_RELATIONS = {"over": "above", "above": "above", "longer": "more than", "under": "below", "below": "below",
              "shorter": "less than"}


def against_a_number(chart: ChartResult, question: str) -> Answer | None:
    """"Yes" or "No" and its confidence for a Yes/No question that holds one named value against a number; (None,
    None) when it does so but the chart cannot settle it; None when ``question`` is no such question."""
    if versus := _VERSUS.match(question.strip()):
        relation = versus.group("relation").lower()
        question = f"is {versus.group('value')} {_RELATIONS.get(relation, relation + ' than')} " \
                   f"{versus.group('number')}?"
    if answer_form(question).kind != "yesno" or (match := _AGAINST.search(question)) is None:
        return None
    text = norm(question)
    number = match.group("number")
    categories = mentioned(chart.categories, text)
    if any(norm(c) == number.replace(",", "") for c in categories):
        return None  # "was 2024 higher than 2019": two categories, no limit
    if _QUANTIFIER.search(text) or len(categories) != 1:
        return None
    rate = {m.group(1) for m in re.finditer(r"\bper\s+(\d[\d,]*(?:\.\d+)?)", question, re.I)}
    if [n for n in unprinted_numbers(chart, question) if n not in rate and n != number]:
        return None, None  # "above 30 beds in 2019": a year the chart does not show
    series = mentioned(chart.series, text) if len(chart.series) > 1 else []
    if len(chart.series) > 1 and len(series) != 1:
        return None, None  # which series' value the question means is not said
    one_series = series[0] if series else None
    limit = _limit_in_table_units(chart, match)
    if limit is None or unprinted_measure(chart, question) is not None:
        return None, None
    reading = facts_from(chart).reading(categories[0], one_series)
    if reading is None:
        return None, None
    span = largest_value(chart)
    if reading.source == "axis" and abs(reading.value - limit) < CLEAR_GAP_SHARE * span:
        return None, None  # a measured mark this near the limit may be either side of it
    verdict = threshold(reading, limit, claim_above=match.group("above") is not None, what=categories[0])
    if verdict.status == "unknown":
        return None, None
    confidence = values_confidence(chart, categories, one_series)
    return ("Yes" if verdict.status == "true" else "No"), confidence


#: "In how many months was it below 0 °C?", "number of days over 30": the categories counted, by their noun.
#: "how many training weeks", "how many tomato varieties": the noun after a word or two that narrow it.
_COUNTED = re.compile(r"\b(?:how many|number of)\s+(?:(?!(?:more|fewer|less|extra|additional|other)\b)"
                      r"(?![a-z]+s\b)[a-z]+\s+){0,2}(?P<noun>[a-z]+s)\b")
#: "below zero", "below freezing": a limit said in words.
_ZERO = re.compile(r"\b(?:(?P<above>above|over)|(?P<below>below|under))\s+(?:zero|freezing)\b", re.I)


def count_against(chart: ChartResult, question: str) -> Answer | None:
    """How many categories ("months", "days", "years", or the noun the chart prints for them) have a value on the
    side of a stated number the question asks: "In how many months was the mean temperature below 0 °C?". (None,
    None) when some value is unread or too near the limit to tell; None when ``question`` is no such count."""
    text = norm(question)
    counted = _COUNTED.search(text)
    match = _AGAINST.search(question)
    zero = _ZERO.search(question)
    if answer_form(question).kind != "count" or counted is None or (match is None and zero is None):
        return None
    series = mentioned(chart.series, text) if len(chart.series) > 1 else []
    if len(series) > 1 or not counts_the_categories(counted.group("noun"), chart, one_series=bool(series)):
        return None
    if len(chart.series) > 1 and not series:
        return None, None  # which line's values are counted is not said
    one_series = series[0] if series else None
    limit = 0.0 if match is None else _limit_in_table_units(chart, match)
    number = "0" if match is None else match.group("number")
    if limit is None or [n for n in unprinted_numbers(chart, question) if n != number]:
        return None, None
    above = (match.group("above") if match is not None else zero.group("above") if zero else None) is not None
    facts = facts_from(chart)
    if not facts.complete:
        return None, None  # a category without its value may be one of those counted
    span = largest_value(chart)
    count = 0
    for category in chart.categories:
        reading = facts.reading(category, one_series)
        if reading is None or (reading.source == "axis" and abs(reading.value - limit) < CLEAR_GAP_SHARE * span):
            return None, None
        verdict = threshold(reading, limit, claim_above=above, what=category)
        if verdict.status == "unknown":
            return None, None
        count += verdict.status == "true"
    return str(count), values_confidence(chart, chart.categories, one_series)


#: "the first month the hotel hit 90%", "in which year did users pass 1 million for the first time".
_FIRST = re.compile(r"\bfirst\b|\bearliest\b")


def first_past(chart: ChartResult, question: str) -> Answer | None:
    """The first category, in time order, whose value is past the number the question states: "What was the first
    year admissions fell below 100 million?". (None, None) when a value before it is unread or too near the limit,
    or none is past it; None when ``question`` is no such question."""
    text = norm(question)
    match = _AGAINST.search(question)
    if match is None or not _FIRST.search(text) or not in_time_order(chart.categories):
        return None
    series = mentioned(chart.series, text) if len(chart.series) > 1 else []
    if len(chart.series) > 1 and len(series) != 1:
        return None, None  # which line's values are meant is not said
    one_series = series[0] if series else None
    limit = _limit_in_table_units(chart, match)
    if limit is None or [n for n in unprinted_numbers(chart, question) if n != match.group("number")]:
        return None, None
    facts, span = facts_from(chart), largest_value(chart)
    for category in chart.categories:
        reading = facts.reading(category, one_series)
        if reading is None or (reading.source == "axis" and abs(reading.value - limit) < CLEAR_GAP_SHARE * span):
            return None, None
        verdict = threshold(reading, limit, claim_above=match.group("above") is not None, what=category)
        if verdict.status == "unknown":
            return None, None
        if verdict.status == "true":
            return category, values_confidence(chart, chart.categories[: chart.categories.index(category) + 1],
                                               one_series)
    return None, None


def _limit_in_table_units(chart: ChartResult, match: re.Match[str]) -> float | None:
    """The question's number in the unit of the chart's table; None when the two cannot be put on one scale."""
    number = float(match.group("number").replace(",", ""))
    scale_word = (match.group("scale") or "").lower()
    percent = scale_word in ("%", "percent")
    largest = largest_value(chart)
    if percent:  # "above 40%" over counts is no question of this chart's
        return number if in_percent(chart) or any("%" in t for t in chart.texts) else None
    if in_percent(chart) or any("%" in t for t in chart.texts):
        # "under 0.4" over shares printed as "38%": a fraction, or 0.4 %? Not said.
        return None if scale_word or (number < 1.0 < largest) else number
    printed = " ".join([chart.title, *chart.texts])
    if match.group("currency") and not _CURRENCY.search(printed):
        return None  # "under $500" over a chart that prints no money
    signs = set(re.findall(r"[$€£¥]", printed))
    if match.group("currency") and signs and match.group("currency") not in signs:
        return None  # "above €1.5bn" over dollars
    unit = _table_unit(chart)
    asked = _SCALES.get(scale_word, 1.0)
    if unit is None or (asked == 1.0 and unit != 1.0):
        return None  # a bare "900" over an axis in thousands: 900 of which?
    limit = number * asked / unit
    if limit > _FAR * largest or 0 < _FAR * limit < largest / _FAR:
        # "1 million" over values of 415 to 2,410, "$1,500" over bars of "$1.62bn": the two are not on one scale
        # (a unit the chart names where the tools did not read it); no verdict.
        return None
    return limit


def _table_unit(chart: ChartResult) -> float | None:
    """What one unit of the chart's table is worth: 1 for plain numbers (and for labels "1.02M", read as
    1,020,000), 1,000 for an axis "in thousands" or labels "412k" read in an axis's own unit; None when the chart
    says two different things."""
    scaled = [t for t in chart.texts if re.search(r"\d(?:[kKMB]|bn)$", t.strip()) and parse_number(t) is not None]
    if scaled:
        labelled = [m for m in chart.marks if m.printed is not None and m.value and m.source == "label"]
        if not labelled:
            return 1.0  # ticks alone ("500k", "1.0M") are parsed with their letter: the axis is in units
        # Labels "870k", "2.1M" over an axis in millions are in the table as 0.87 and 2.1: each label says what a
        # unit of the table is worth, and they must agree.
        worth = {_nearest_scale(m.printed / m.value) for m in labelled if m.printed is not None}
        return worth.pop() if len(worth) == 1 and None not in worth else None
    words = " ".join(t for t in [chart.title, *chart.texts] if parse_number(t) is None)
    named = {scale for pattern, scale in _NAMED_SCALE if pattern.search(words)}
    if len(named) > 1:
        return None
    return named.pop() if named else 1.0


def _nearest_scale(ratio: float) -> float | None:
    """1, 1,000, a million or a billion when ``ratio`` is one of them (to 1 %), else None."""
    return next((scale for scale in (1.0, 1e3, 1e6, 1e9) if abs(ratio / scale - 1.0) <= 0.01), None)
