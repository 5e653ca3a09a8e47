"""Judging every option of a multiple-choice chart question against the chart's readings.

The question decides what the options are about: which named category (or series) is highest or lowest, what a
number is (a share, an average, a proportion), which of two periods is larger, how a series moves over time, or
which statement is true. Each option gets a ``Verdict``: true, false, or unknown when the readings cannot settle
it — an option that says the chart cannot tell ("Cannot be determined from the chart") is always unknown here;
only the caller may accept it, and only on positive evidence of what is missing.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from skills.chart.claims import Mention, check_statement, find_mentions, number, templated
from skills.chart.facts import ChartFacts, Reading, all_read, mean_of, normalise_spaces, summed, time_key
from skills.chart.trends import check_trend, shape_of
from skills.chart.verdict import Verdict, approximately, compare

CANNOT = re.compile(r"\bcannot\b|\bcan't\b|\bcan not\b|\bimpossible\b|\bnot possible\b|\binadequate\b|\binsufficient\b|"
                    r"\bnot enough\b|\bunable\b|\bno way to\b|\bdifficult to\b|\bnot (?:be )?(?:reliably )?"
                    r"(?:determined|inferred|assessed|known)\b|\bneed(?:s)? (?:more )?data\b", re.IGNORECASE)
_SUPERLATIVE = re.compile(r"\b(highest|largest|biggest|greatest|most|maximum|peak|top|tallest|longest|lowest|smallest|"
                          r"least|fewest|minimum|shortest|larger|higher|greater|bigger|more|taller|longer|smaller|"
                          r"lower|less|fewer|shorter)\b")
#: "Which day had fewer visitors than the day before?": a comparative measured against what follows "than".
_THAN = re.compile(r"\b(?P<word>larger|higher|greater|bigger|more|taller|longer|smaller|lower|less|fewer|shorter)\b[^?]*?\bthan\s+"
                   r"(?P<ref>[^?]+)")
#: A rank before the superlative: "the second-highest", "3rd largest", "runner-up".
_RANK = re.compile(r"\b(?:second|third|fourth|fifth|\d+(?:st|nd|rd|th)|runner[- ]up|next)\b[- ]*(?:\w+[- ]*)?$")
#: "Which of these days …", "among the following": the extreme among the options, whatever else the chart shows.
_AMONG_OFFERED = re.compile(r"\b(?:of|among)\s+(?:these|the\s+following|the\s+options|the\s+choices|"
                            r"the\s+ones\s+(?:listed|given|below)|those\s+(?:listed|given|below))\b", re.I)
_BEFORE = re.compile(r"\b(?:before|previous|preceding|prior)\b")
_HIGH_WORDS = {"highest", "largest", "biggest", "greatest", "most", "maximum", "peak", "top", "tallest", "longest",
               "larger", "higher", "greater", "bigger", "more", "taller", "longer"}
_TREND_ASK = re.compile(r"\btrend\b|\bhow does\b.*\bchange\b|\bpattern\b|\bchanged? over\b|\bover time\b|"
                        r"\bhow (?:has|have|did)\b.*\bchange|\bdescribes? the\b.*\b(?:change|movement)\b|\bchanged? overall\b|"
                        r"\bthe (?:overall )?change in\b.*\bover the (?:years|period|months|weeks|days)\b")
_FILLER = re.compile(r"^(?:the|about|approximately|around|roughly|nearly|only|just|option)\s+|[.\s]+$")


def judge_options(stem: str, options: dict[str, str], facts: ChartFacts) -> dict[str, Verdict]:
    """A verdict for every option letter."""
    q = normalise_spaces(stem)
    series = _series_in(q, facts)
    wants_total = re.search(r"\btotal\b|\bacross all\b|\boverall\b|\bcombined\b|\bin all\b", q) is not None
    value_of = _value_reader(facts, series, wants_total, _category_in(q, facts))
    verdicts: dict[str, Verdict] = {}
    for letter, text in options.items():
        if CANNOT.search(text):
            verdicts[letter] = Verdict.unknown("says the chart cannot tell", "cannot")
    rest = {k: v for k, v in options.items() if k not in verdicts}
    for judge in (_judge_numbers, _judge_entities, _judge_periods, _judge_trends):
        found = judge(q, rest, facts, value_of)
        if found:
            verdicts.update(found)
            rest = {k: v for k, v in rest.items() if k not in found}
    share_chart = facts.kind == "pie" or "%" in stem
    for letter, text in rest.items():
        verdicts[letter] = check_statement(text, facts, value_of, share_chart) or Verdict.unknown(
            "a statement the table cannot check")
    return {letter: verdicts[letter] for letter in options}


def _series_in(q: str, facts: ChartFacts) -> str | None:
    if len(facts.series) < 2:
        return None
    named = [m.name for m in find_mentions(q, facts) if m.kind == "series"]
    return named[0] if len(set(named)) == 1 else None


def _category_in(q: str, facts: ChartFacts) -> str | None:
    named = {m.name for m in find_mentions(q, facts) if m.kind == "category"}
    return next(iter(named)) if len(named) == 1 else None


def _value_reader(facts: ChartFacts, series: str | None, wants_total: bool,
                  category: str | None) -> Callable[[Mention], Reading | None]:
    """How a named category or series turns into one reading, given what the question fixes."""
    def value_of(m: Mention) -> Reading | None:
        if m.kind == "category":
            if series is not None:
                return facts.reading(m.name, series)
            row = facts.cells.get(m.name, {})
            if len(row) == 1:
                return next(iter(row.values()))
            return facts.column(m.name) if wants_total else None
        if category is not None:
            return facts.reading(category, m.name)
        return facts.total(m.name) if wants_total or len(facts.categories) == 1 else None
    return value_of


def _plain_option(text: str) -> str:
    out = normalise_spaces(text).replace("–", "-")
    for _ in range(3):
        out = _FILLER.sub("", out)
    return out


def _judge_numbers(q: str, options: dict[str, str], facts: ChartFacts,
                   value_of: Callable[[Mention], Reading | None]) -> dict[str, Verdict]:
    """Options that are numbers ("About 45%", "360"): the one nearest the quantity the question asks for."""
    numbers = {}
    for letter, text in options.items():
        m = re.fullmatch(r"\$?(\d[\d,]*(?:\.\d+)?)\s*(%|percent)?(?:\s*\w+)?", _plain_option(text))
        if m:
            numbers[letter] = number(m.group(1))
    if len(numbers) < 2 or len(numbers) < len(options) - 1:
        return {}
    names = {normalise_spaces(n) for n in (*facts.categories, *facts.series)}
    if sum(_plain_option(options[letter]) in names for letter in numbers) >= 2:
        return {}  # "(A) 2017 (B) 2019": the options name the chart's years, they are not values to compare
    target = _asked_quantity(q, facts, value_of)
    if target is None:
        return {letter: Verdict.unknown("the quantity asked for could not be computed from the table", "data")
                for letter in numbers}
    scored = sorted(numbers.items(), key=lambda kv: abs((kv[1] or 0) - target.value))
    best_letter, best = scored[0]
    runner = abs((scored[1][1] or 0) - target.value)
    closeness = approximately(target.value, best or 0.0, target.sigma, target.trust, "nearest option", tol=0.1,
                              far=0.2)
    out = {letter: Verdict("false", target.trust, f"{value:g} is farther from {target.value:.4g}")
           for letter, value in scored[1:]}
    if closeness.status != "true" or runner < 2 * abs((best or 0) - target.value) + target.sigma:
        out = {letter: Verdict.unknown(f"no option is clearly nearest {target.value:.4g}", "data")
               for letter in numbers}
        return out
    out[best_letter] = Verdict("true", closeness.strength, f"{target.value:.4g} ≈ {best:g}")
    return out


def _asked_quantity(q: str, facts: ChartFacts, value_of: Callable[[Mention], Reading | None]) -> Reading | None:
    mentions = find_mentions(q, facts)
    readings = [value_of(m) for m in mentions]
    t = templated(q, mentions)
    if m := re.search(r"\b(?:proportion|percentage|fraction|share|percent)\b.*?\bof E(\d)\b.*?\bdid E(\d)\b", t):
        whole, part = readings[int(m.group(1))], readings[int(m.group(2))]
        if whole is None or part is None or whole.value <= 0:
            return None
        ratio = 100 * part.value / whole.value
        return Reading(ratio, ratio * (part.sigma / max(part.value, 1e-9) + whole.sigma / whole.value), "ratio",
                       min(part.trust, whole.trust))
    if re.search(r"\b(?:average|mean)\b", t):
        values = all_read([value_of(Mention(0, 0, "category", c)) for c in _range_of(t, mentions, facts)])
        return mean_of(values) if values else None
    if re.search(r"\b(?:total|sum|combined)\b", t) and len(mentions) != 1:
        if facts.kind == "pie" and not mentions:
            return None  # every slice of a pie sums to 100 %: no total of a quantity ("48.6 kg") is read from them
        values = all_read([value_of(Mention(0, 0, "category", c)) for c in _range_of(t, mentions, facts)])
        return summed(values) if values else None
    if len({m.name for m in mentions}) == 1 and re.search(r"\bwhat\b|\bhow (?:much|many)\b|\bvalue\b", t):
        return readings[0]
    return None


def _range_of(t: str, mentions: list[Mention], facts: ChartFacts) -> list[str]:
    """The categories "from E0 to E1" covers (in time order), the ones named, or all of them; empty when a
    category of the chart has no value read (a range or "all of them" would silently miss it)."""
    ordered = facts.in_time_order()
    named = [m.name for m in mentions if m.kind == "category"]
    if not facts.complete:
        return named if len(named) >= 2 and not re.search(r"\b(?:from|between) E\d (?:to|and|through|until)", t) \
            else []
    if m := re.search(r"\b(?:from|between) E(\d) (?:to|and|through|until) E(\d)\b", t):
        a, b = mentions[int(m.group(1))].name, mentions[int(m.group(2))].name
        if a in ordered and b in ordered:
            i, j = sorted((ordered.index(a), ordered.index(b)))
            return ordered[i:j + 1]
    return named if len(named) >= 2 else ordered


def _judge_entities(q: str, options: dict[str, str], facts: ChartFacts,
                    value_of: Callable[[Mention], Reading | None]) -> dict[str, Verdict]:
    """"Which X has the highest …?" with options that are names (or ranges "1990–1992"): the extreme one."""
    word = _SUPERLATIVE.search(q)
    if word is None:
        return {}
    if _RANK.search(q[:word.start()]):
        # "the second-highest": a rank among all the chart's categories, which the extreme of the options is not.
        return {k: Verdict.unknown("the question asks for a rank other than the first", "data") for k in options}
    than = _THAN.search(q)
    if than is not None:  # "fewer visitors than the day before": against another value, not among the options
        return _judge_against(than.group("ref"), than.group("word") in _HIGH_WORDS, options, facts, value_of)
    values: dict[str, Reading | None] = {}
    for letter, text in options.items():
        plain = _plain_option(text)
        mentions = find_mentions(plain, facts)
        covered = sum(m.end - m.start for m in mentions)
        if len(mentions) == 1 and covered >= 0.8 * len(plain):
            values[letter] = value_of(mentions[0])
        elif len(mentions) == 2 and re.fullmatch(r"E0\s*(?:-|to)\s*E1", templated(plain, mentions)):
            start, end = value_of(mentions[0]), value_of(mentions[1])
            if start is None or end is None:
                values[letter] = None
                continue
            change = end.value - start.value
            if "absolute" in q or "change" in q:
                change = abs(change)
            values[letter] = Reading(change, start.sigma + end.sigma, "change", min(start.trust, end.trust))
    if len(values) < 2 or len(values) < len(options) - 1:
        return {}
    # An option the table does not name may be a category whose label was misread ("一" for "2019"): it may be
    # passed over only where that category's value is clearly not the extreme.
    unread = _garbled_categories(facts, options) if len(values) < len(options) else []
    read = {k: v for k, v in values.items() if v is not None}
    if len(read) < len(values):
        return {k: Verdict.unknown("an option names something the table has no usable value for", "data")
                for k in values}
    high = word.group(1) in _HIGH_WORDS
    ranked = sorted(read.items(), key=lambda kv: kv[1].value, reverse=high)
    best_letter, best = ranked[0]
    for category in unread:
        reading = facts.reading(category)
        if reading is None or compare(best, reading, high, "extreme").status != "true":
            return {k: Verdict.unknown("an option may be the category whose label could not be read", "data")
                    for k in options}
    mentions = [m for text in options.values() for m in find_mentions(_plain_option(text), facts)]
    singles = all(len(find_mentions(_plain_option(text), facts)) <= 1 for text in options.values())
    if singles and len(facts.series) < 2 and mentions and all(m.kind == "category" for m in mentions) and \
            not _AMONG_OFFERED.search(q):
        # "Which region had the lowest sales? A) North B) Central C) East D) West" where South, offered by no option,
        # is lower still: the lowest of the options is not the lowest region. (Options naming periods, "1990-1992",
        # are changes, not values of one category.)
        named = {m.name for m in mentions}
        for category in (c for c in facts.categories if c not in named and c not in unread):
            reading = facts.reading(category)
            if reading is not None and compare(best, reading, high, "extreme").status != "true":
                return {k: Verdict.unknown(f"{category}, which no option offers, may be the "
                                           f"{word.group(1)}", "data") for k in options}
    out = {}
    for letter, reading in ranked[1:]:
        verdict = compare(best, reading, high, "extreme")
        out[letter] = Verdict("false", verdict.strength, verdict.why) if verdict.status == "true" else \
            Verdict.unknown(verdict.why, "data")
    others = [v for k, v in out.items() if k != best_letter]
    if others and all(v.status == "false" for v in others):
        out[best_letter] = Verdict("true", min(v.strength for v in others), f"the {word.group(1)} of the options")
    else:
        out[best_letter] = Verdict.unknown("too close to the next option to call", "data")
    for letter, text in options.items():  # "All three have about the same total"
        if letter not in out and re.search(r"\b(?:all|both)\b.*\b(?:same|similar|equal)\b", text.lower()):
            top, bottom = ranked[0][1].value, ranked[-1][1].value
            spread = abs(top - bottom) / max(abs(top), abs(bottom), 1e-9)
            out[letter] = Verdict("false", best.trust, f"they differ by {spread:.0%}") if spread > 0.1 else \
                Verdict.unknown("they are close", "data")
    return out


def _garbled_categories(facts: ChartFacts, options: dict[str, str]) -> list[str]:
    """The categories no option names whose label is no readable name (a misread "2019" as "一", "Bar 3")."""
    named = {m.name for text in options.values() for m in find_mentions(_plain_option(text), facts)}
    return [c for c in facts.categories if c not in named and (
        not re.search(r"[A-Za-z0-9]{2}", c) or re.fullmatch(r"(?:slice|bar|point|category|item)\s*\d+", c, re.I))]


def _judge_against(ref: str, high: bool, options: dict[str, str], facts: ChartFacts,
                   value_of: Callable[[Mention], Reading | None]) -> dict[str, Verdict]:
    """Each option against what "than" names: the category before it in time ("than the day before"), or the one
    category it names ("than on Monday"). Anything else ("than usual") is not judged."""
    ordered = facts.in_time_order()
    named = [m for m in find_mentions(ref, facts) if m.kind == "category"]
    before = bool(_BEFORE.search(ref))
    if not before and len(named) != 1:
        return {}
    out: dict[str, Verdict] = {}
    for letter, text in options.items():
        mentions = find_mentions(_plain_option(text), facts)
        if len(mentions) != 1 or mentions[0].kind != "category":
            return {}
        name = mentions[0].name
        if before:
            at = ordered.index(name) if name in ordered else -1
            if at <= 0 or not facts.complete:
                out[letter] = Verdict.unknown(f"no value before {name} is shown to compare with", "data")
                continue
            other = Mention(0, 0, "category", ordered[at - 1])
        else:
            other = named[0]
        a, b = value_of(mentions[0]), value_of(other)
        out[letter] = Verdict.unknown(f"{name} or {other.name} has no usable value", "data") if a is None or \
            b is None else compare(a, b, high, f"{name} against {other.name}")
    return out


def _judge_periods(q: str, options: dict[str, str], facts: ChartFacts,
                   value_of: Callable[[Mention], Reading | None]) -> dict[str, Verdict]:
    """"Higher in the first six months or the last six?": sums of the first and last part, in time order."""
    # The periods may be named in the stem ("first six months or the last six months") or only in the options
    # ("greater during the first 7 days than during the last 7 days").
    said = " ".join([q, *(normalise_spaces(o) for o in options.values())])
    m = re.search(r"\bfirst (half|six months|(\d+|two|three|four|five|six|seven) \w+)", said)
    if m is None or not re.search(r"\b(?:last|second|final|latter) (?:half|six months|\d+ \w+|\w+ \w+)", said):
        return {}
    ordered = facts.in_time_order()
    if not facts.complete:
        return {k: Verdict.unknown("a category of the chart has no value read", "data") for k in options}
    if any(time_key(c) is None for c in ordered):
        return {k: Verdict.unknown("the categories do not read as times, so the periods cannot be told", "data")
                for k in options}
    size = len(ordered) // 2 if m.group(1) in ("half",) else (6 if m.group(1) == "six months" else
                                                             int(number(m.group(2) or "") or 0))
    if size <= 0 or 2 * size != len(ordered):
        return {k: Verdict.unknown(f"the chart has {len(ordered)} periods, not two of {size}", "data") for k in options}
    halves = [all_read([value_of(Mention(0, 0, "category", c)) for c in chosen])
              for chosen in (ordered[:size], ordered[size:])]
    if halves[0] is None or halves[1] is None:
        return {k: Verdict.unknown("a value of a period could not be read", "data") for k in options}
    first, last = summed(halves[0]), summed(halves[1])
    out = {}
    for letter, text in options.items():
        low = text.lower()
        says_first = re.search(r"\bfirst\b", low)
        says_last = re.search(r"\b(?:last|second|final|latter)\b", low)
        if re.search(r"\b(?:equal|same|similar)\b", low):
            out[letter] = approximately(first.value, last.value, first.sigma + last.sigma, first.trust, "periods",
                                        tol=0.005, far=0.03)
        elif says_first and says_last:
            cmp = re.search(r"\b(greater|higher|larger|more|less|lower|smaller|fewer)\b", low)
            if cmp is None:
                continue
            a, b = (first, last) if says_first.start() < says_last.start() else (last, first)
            out[letter] = compare(a, b, cmp.group(1) in ("greater", "higher", "larger", "more"), "periods")
        elif (says_first is None) != (says_last is None):
            a, b = (first, last) if says_first else (last, first)
            out[letter] = compare(a, b, True, "periods")
    return out


def _judge_trends(q: str, options: dict[str, str], facts: ChartFacts,
                  value_of: Callable[[Mention], Reading | None]) -> dict[str, Verdict]:
    """"What is the trend …?": each option's trend wording against the series in time order."""
    if not _TREND_ASK.search(q) or not facts.categories:
        return {}
    if not facts.complete:
        return {k: Verdict.unknown("a category of the chart has no value read", "data") for k in options}
    mentions = find_mentions(q, facts)
    chosen = _range_of(templated(q, mentions), mentions, facts)
    if len(chosen) < 3:
        chosen = facts.in_time_order()
    readings = all_read([value_of(Mention(0, 0, "category", c)) for c in chosen])
    if readings is None:
        return {k: Verdict.unknown("not every value of the series could be read", "data") for k in options}
    shape = shape_of(readings)
    if shape is None:
        return {}
    out = {}
    for letter, text in options.items():
        verdict = check_trend(text, shape)
        if verdict is not None:
            out[letter] = verdict
    return out
