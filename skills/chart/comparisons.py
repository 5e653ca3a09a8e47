"""Questions that compare values of a chart's table rather than read one:

- "Were there more visitors on Sunday than on Friday?": Yes or No from the two categories' values;
- "Which sold more, Q2 or Q3?", "Did more kids choose bananas or apples?": the higher (lower) of the two categories
  named;
- "In Q2, which region had higher sales?", "Which was higher in Q3, North or South?": the series higher (lower) in
  the one category named;
- "In which quarter was North higher than South?": the one category where one series is above (below) the other;
- "In how many quarters did North sell more than South?": how many categories that is.

Two measured values closer than the gap that tells an extreme apart (``too_close``) cannot be called from the
pixels, and the question is then not answered; two printed numbers are exact and are called however close.
"Did X go up or down from June to July?" is answered with the direction as the question words it.
"""

from __future__ import annotations

import re

from skills.chart.confidence import too_close, values_confidence
from skills.chart.directions import FALL, RISE, is_rise
from skills.chart.mismatch import SPEED_MEASURE
from skills.chart.names import all_of_kind, mentioned, norm
from skills.chart.precision import read_value
from vision_tools.charts import ChartResult

_COMPARATIVE = re.compile(r"\b(?:higher|more|greater|larger|bigger|above|exceed\w*|beat|outperform\w*|outsold|"
                          r"taller|heavier|longer|lower|less|fewer|smaller|below|shorter)\b")
#: "Did sales go up from March to April?": a move between two values named after "from" (or "between").
_MOVED = re.compile(rf"\b(?:(?P<up>{RISE})|(?P<down>{FALL}))\b.*\b(?:from|between)\b")
#: "go up or down", "increase or decrease", "rise or fall": the question asks for the direction, in its own words.
_DIRECTION = rf"{RISE}|{FALL}|up|down|higher|lower"
_EITHER_WAY = re.compile(rf"\b(?P<a>{_DIRECTION}) or (?P<b>{_DIRECTION})\b")
#: "more than double", "twice as high as", "3 times", "half": a comparison with a multiple of the other value.
_FACTOR = re.compile(r"\b(?:(?P<word>double|twice|triple|thrice|quadruple|half)|(?P<n>\d+(?:\.\d+)?|two|three|"
                     r"four|five|ten)\s*(?:times|x)\b)")
_FACTORS = {"double": 2.0, "twice": 2.0, "triple": 3.0, "thrice": 3.0, "quadruple": 4.0, "half": 0.5, "two": 2.0,
            "three": 3.0, "four": 4.0, "five": 5.0, "ten": 10.0}
#: "Were expenses ever higher than revenue?", "was 2024 above 2023 in every month?": over all the categories.
_QUANTIFIER = re.compile(r"\b(?:ever|at any (?:point|time|stage)|(?P<every>always|every|each|all))\b")
_LOWER = re.compile(r"\b(?:lower|less|fewer|smaller|below|shorter)\b")
_YESNO = re.compile(r"^(?:is|are|was|were|did|does|do|has|have|had)\b")
_WHICH = re.compile(r"\b(?:which|what)\b")
_HOW_MANY = re.compile(r"\bhow many\b")

Answer = tuple[str | None, float | None]


def compare_values(chart: ChartResult, text: str, categories: list[str], series: list[str]) -> Answer | None:
    """The comparison's answer and confidence; (None, None) when the table cannot settle it; None when ``text``
    (normalised: lower case, words) compares nothing."""
    # A name may hold a comparative ("Lower School", "Less than 1 hour"): only the question's own words compare.
    asking = text
    for name in sorted((*chart.categories, *chart.series), key=len, reverse=True):
        plain = norm(name)
        if plain:
            asking = re.sub(rf"(?<![a-z0-9]){re.escape(plain)}(?![a-z0-9])", " ", asking)
    asking = _price_as_value(chart, _speed_as_value(chart, asking))
    either_way = _either_way(asking)
    # "From Feb to Mar, did adoptions rise or fall?": the points may come first when the direction is asked.
    moved = _MOVED.search(asking) or (_MOVED.search(f"{asking} from") if either_way else None)
    if (_YESNO.match(text) or either_way) and moved:
        down = moved.group("down") is not None
        points = re.search(r"\b(?:from|between)\b.*", text)
        answer, confidence = _moved(chart, points.group() if points else "", categories, series, down=down)
        if either_way is None or answer is None:
            return answer, confidence
        went_up = (answer == "Yes") != down
        return either_way[0 if went_up else 1], confidence
    if not _COMPARATIVE.search(asking):
        return None
    lower = bool(_LOWER.search(asking))
    if _YESNO.match(text) and re.search(r"\bor not\b|\bor no\b", text):
        text = re.sub(r",?\s*\bor not\b|,?\s*\bor no\b", "", text)  # "…higher than Q2, or not?" is Yes or No
    named_series = series[0] if len(series) == 1 else None
    if (factor := _FACTOR.search(asking)) is not None:
        # "Was A more than double B?": A against twice B, as a Yes or No only; any other shape is not settled.
        times = _FACTORS.get(factor.group("word") or factor.group("n") or "") or float(factor.group("n") or 0)
        if _YESNO.match(text) and times > 0 and len(categories) == 2 and len(series) <= 1:
            return _yes_no(chart, [(categories[0], named_series), (categories[1], named_series)], lower, times)
        if _YESNO.match(text) and times > 0 and len(categories) == 1 and len(series) == 2:
            return _yes_no(chart, [(categories[0], series[0]), (categories[0], series[1])], lower, times)
        return None, None
    if _YESNO.match(text) and " or " in f" {text} " and len(categories) == 2 and len(series) <= 1:
        # "Did more kids choose bananas or apples?" asks which, not Yes or No.
        return _pick(chart, {c: (c, named_series) for c in categories}, lower)
    if _YESNO.match(text) and len(categories) == 2 and len(series) <= 1:
        return _yes_no(chart, [(categories[0], named_series), (categories[1], named_series)], lower)
    if _YESNO.match(text) and " or " in f" {text} " and len(categories) == 1 and len(series) == 2:
        # "were there more tenors or basses in October?" asks which of the two, not Yes or No.
        return _pick(chart, {s: (categories[0], s) for s in series}, lower)
    if _YESNO.match(text) and len(categories) == 1 and len(series) == 2:
        return _yes_no(chart, [(categories[0], series[0]), (categories[0], series[1])], lower)
    if _WHICH.search(text) and len(categories) == 2 and len(series) <= 1 and not _HOW_MANY.search(text):
        return _pick(chart, {c: (c, named_series) for c in categories}, lower)
    if _WHICH.search(text) and len(categories) == 1 and not series and len(chart.series) == 2:
        return _pick(chart, {s: (categories[0], s) for s in chart.series}, lower)
    if _WHICH.search(text) and len(categories) == 1 and len(series) == 2:  # "Which was higher in Q3, North or South?"
        return _pick(chart, {s: (categories[0], s) for s in series}, lower)
    if _YESNO.match(text) and len(series) == 2 and not categories and (quantifier := _QUANTIFIER.search(text)):
        return _ever_or_always(chart, series, lower, every=quantifier.group("every") is not None)
    if len(series) == 2 and not categories and (_WHICH.search(text) or _HOW_MANY.search(text)):
        return _where_above(chart, series, lower, count=bool(_HOW_MANY.search(text)))
    return None


def _either_way(asking: str) -> tuple[str, str] | None:
    """The two directions ``asking`` offers, rise first, as it words them ("up", "down"); None unless it offers one
    of each."""
    pair = _EITHER_WAY.search(asking)
    if pair is None:
        return None
    a, b = pair.group("a"), pair.group("b")
    if is_rise(a) != is_rise(b):
        return (a, b) if is_rise(a) else (b, a)
    return None


#: "cheaper", "dearer": lower and higher over prices; a chart of prices names its money or says "price".
_PRICE_WORDS = re.compile(r"\b(?P<low>cheaper)\b|\b(?P<high>dearer|pricier|more expensive|costlier)\b")
_PRICES = re.compile(r"[$€£¥]|\b(?:prices?|costs?|fares?|fees?|pence|cents?|dollars?|pounds?|euros?|usd|gbp|eur)\b",
                     re.I)


def _price_as_value(chart: ChartResult, asking: str) -> str:
    """``asking`` with "cheaper" and "dearer" written "lower" and "higher" over a chart of prices."""
    if not _PRICES.search(" ".join([chart.title, chart.value_title, *chart.texts])):
        return asking
    return _PRICE_WORDS.sub(lambda m: "lower" if m.group("low") else "higher", asking)


#: "faster", "slower": higher or lower over speeds (over times, "asks_another_question" leaves them unanswered).
_SPEED_WORDS = re.compile(r"\b(?P<fast>faster|quicker)\b|\b(?P<slow>slower)\b")


def _speed_as_value(chart: ChartResult, asking: str) -> str:
    """``asking`` with "faster" and "slower" written "higher" and "lower" over a chart of speeds (Mbps, km/h)."""
    if not SPEED_MEASURE.search(" ".join([chart.title, chart.value_title, *chart.texts])):
        return asking
    return _SPEED_WORDS.sub(lambda m: "higher" if m.group("fast") else "lower", asking)


def _moved(chart: ChartResult, after: str, categories: list[str], series: list[str], down: bool) -> Answer:
    """"Did sales go up from March to April?", "Did Q2 revenue fall from 2023 to 2024?": Yes when the second value
    named after "from" is above (below) the first; (None, None) when the question does not name two of them there."""
    def named_after(names: list[str]) -> bool:
        return len(mentioned(names, after)) == len(names)

    if len(categories) == 2 and len(series) <= 1 and named_after(categories):
        one = series[0] if series else None
        return _yes_no(chart, [(categories[1], one), (categories[0], one)], lower=down)
    if len(categories) == 1 and len(series) == 2 and named_after(series):
        return _yes_no(chart, [(categories[0], series[1]), (categories[0], series[0])], lower=down)
    return None, None


def _yes_no(chart: ChartResult, sides: list[tuple[str, str | None]], lower: bool, times: float = 1.0) -> Answer:
    """Whether the first side is above (below) the second, or ``times`` the second."""
    (a_cat, a_series), (b_cat, b_series) = sides
    a, b = read_value(chart, a_cat, a_series), read_value(chart, b_cat, b_series)
    b = None if b is None else times * b
    if a is None or b is None or too_close(chart, sides, a, b):
        return None, None
    holds = a < b if lower else a > b
    confidence = values_confidence(chart, [a_cat, b_cat], a_series if a_series == b_series else None)
    return ("Yes" if holds else "No"), confidence


def _pick(chart: ChartResult, sides: dict[str, tuple[str, str | None]], lower: bool) -> Answer:
    """The name of the side with the higher (lower) value, when it is clearly so."""
    values = {name: read_value(chart, category, series) for name, (category, series) in sides.items()}
    read = {name: v for name, v in values.items() if v is not None}
    if len(read) != len(values) or len(read) < 2:
        return None, None
    ranked = sorted(read, key=read.__getitem__, reverse=not lower)
    if too_close(chart, [sides[ranked[0]], sides[ranked[1]]], read[ranked[0]], read[ranked[1]]):
        return None, None
    categories = list(dict.fromkeys(category for category, _ in sides.values()))
    same_series = {series for _, series in sides.values()}
    return ranked[0], values_confidence(chart, categories, same_series.pop() if len(same_series) == 1 else None)


#: "which carrier", "which one": the noun a "which" question asks for (never "what": "what was the highest …"
#: asks a value).
_WHICH_NOUN = re.compile(r"\bwhich\s+(?P<noun>[a-z]+)")
_ANY_SERIES = frozenset(["one", "series", "line", "lines", "bar", "bars", "group"])
#: Words after "which" that are the asking, not a noun: "which had the most …", "which sold the least …".
_VERB_AFTER_WHICH = frozenset(["had", "has", "have", "was", "were", "is", "are", "did", "does", "sold", "got", "made",
                               "received", "scored", "saw", "recorded", "took"])
#: A change or a span of time ("grew the most in 2021", "after March"): no one category's values answer it.
_NOT_ONE_POINT = re.compile(r"\b(?:gr[eo]w\w*|increas\w*|decreas\w*|rose|rise\w*|fell|fall\w*|drop\w*|gain\w*|"
                            r"declin\w*|chang\w*|improv\w*|before|after|since|until|till|between|from|during)\b")


def asks_for_a_series(chart: ChartResult, text: str) -> bool:
    """Whether "which …" asks for one of the chart's series: by no noun ("which had the most"), a word for any
    series, or a noun the chart prints as what its series are ("which carrier" over "…, by carrier"); never a
    time, which the categories are."""
    match = _WHICH_NOUN.search(text)
    if match is None or _NOT_ONE_POINT.search(text):
        return False
    if match.group("noun") in _ANY_SERIES or match.group("noun") in _VERB_AFTER_WHICH:
        return True
    printed = norm(" ".join([chart.title, *chart.texts, *chart.legend]))
    return not any(all_of_kind(kind, [match.group("noun")]) for kind in ("months", "days", "years")) and \
        match.group("noun") not in ("day", "week", "month", "year", "quarter", "date", "time") and \
        re.search(rf"\b{re.escape(match.group('noun'))}s?\b", printed) is not None


#: "all carriers", "combined", "together": a total over the series, said in words.
_ALL_SERIES = re.compile(r"\b(?:all|combined|together|altogether|every|both|across)\b")
#: Series that are no part of a whole: a plan, a mean, a forecast, or a year beside another year.
_NO_PART = re.compile(r"\b(?:budget\w*|target\w*|plan\w*|goal\w*|forecast\w*|estimat\w*|average|avg|mean|"
                      r"expected|projected|last year|this year)\b|^(?:19|20)\d\d$")


def summed_series(chart: ChartResult, text: str) -> bool:
    """Whether "the total in March" over several series side by side is their sum: the question says all of them,
    and every series is a part of a whole (no budget beside the actual, no year beside another). A stacked chart's
    total is its stack's own reading, not this sum."""
    return bool(_ALL_SERIES.search(text)) and "stack" not in (chart.kind or "") and \
        not any(_NO_PART.search(norm(name)) for name in chart.series)


def series_at(chart: ChartResult, category: str, lower: bool) -> Answer:
    """The series with the highest (lowest) value in one category, when it is clearly so: "On Thursday, which
    carrier handled the most parcels?" over grouped bars of carriers."""
    return _pick(chart, {s: (category, s) for s in chart.series}, lower)


def _ever_or_always(chart: ChartResult, series: list[str], lower: bool, every: bool) -> Answer:
    """Whether the first series is above (below) the second in some category ("ever") or in every one: settled by
    the categories clearly on one side; a near tie that could settle it leaves it open."""
    first, second = series
    above, below, unclear = 0, 0, 0
    for category in chart.categories:
        a, b = read_value(chart, category, first), read_value(chart, category, second)
        if a is None or b is None:
            return None, None  # a value missing: "every" and "never" cannot be told
        if too_close(chart, [(category, first), (category, second)], a, b):
            unclear += 1
        elif (a < b) == lower:
            above += 1
        else:
            below += 1
    if every:
        holds = None if below == 0 and unclear else below == 0
    else:
        holds = True if above else (None if unclear else False)
    if holds is None:
        return None, None
    return ("Yes" if holds else "No"), values_confidence(chart, chart.categories, None)


def _where_above(chart: ChartResult, series: list[str], lower: bool, count: bool) -> Answer:
    """The one category (or, ``count``, how many) where the first series is above (below) the second."""
    first, second = series
    found: list[str] = []
    for category in chart.categories:
        a, b = read_value(chart, category, first), read_value(chart, category, second)
        if a is None or b is None or too_close(chart, [(category, first), (category, second)], a, b):
            return None, None  # a value missing, or a near tie that could go either way
        if (a < b) == lower:
            found.append(category)
    confidence = values_confidence(chart, chart.categories, None)
    if count:
        return str(len(found)), confidence
    return (found[0], values_confidence(chart, found, first)) if len(found) == 1 else (None, None)
