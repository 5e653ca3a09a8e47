"""Checking one option's statement about named categories against the chart's readings.

The names the option mentions (categories, or series of a multi-series chart) are found first and replaced by
placeholders (``E0``, ``E1`` …), so a handful of sentence shapes cover most statements whatever the names are:
"E0 has a higher share than E1", "E0 and E1 have the same …", "E0 has the (second-)highest …", "E0 is nearly four
times E1", "the value in E0 is above 30 %", "the growth from E0 to E1 is over 4", "more than half … E0", "the
combined share of E0, E1 and E2 exceeds E3", "E0 shows dramatic growth compared to E1". A statement of any other
shape is not judged here (``None``): it is left to the caller, which never answers on a statement it cannot check.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from difflib import SequenceMatcher

from skills.chart.facts import ChartFacts, Reading, all_read, normalise_spaces, summed
from skills.chart.verdict import Verdict, approximately, compare, threshold

NUMBER = r"(\d[\d,]*(?:\.\d+)?)"
_WORD_NUMBERS = {"two": 2.0, "three": 3.0, "four": 4.0, "five": 5.0, "six": 6.0, "ten": 10.0, "twice": 2.0,
                 "double": 2.0, "triple": 3.0}
_FRACTIONS = {"half": 50.0, "one-third": 100 / 3, "one third": 100 / 3, "a third": 100 / 3, "two-thirds": 200 / 3,
              "two thirds": 200 / 3, "a quarter": 25.0, "one-quarter": 25.0, "one quarter": 25.0,
              "three-quarters": 75.0, "three quarters": 75.0}
_MORE = r"higher|larger|greater|more|bigger|above|over|exceeds?|exceeding|outperforms?|surpass(?:es)?"
_LESS = r"lower|smaller|less|fewer|below|under"
_APPROX = r"nearly|about|approximately|roughly|almost|around|close to|some"


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    kind: str  # "category" | "series"
    name: str


def find_mentions(text: str, facts: ChartFacts) -> list[Mention]:
    """The categories and series ``text`` names, in order, longest names first where two overlap."""
    low = normalise_spaces(text).replace("–", "-").replace("—", "-")
    found: list[Mention] = []
    names = [("category", c) for c in facts.categories]
    if len(facts.series) > 1:
        names += [("series", s) for s in facts.series]
    keys = {name: normalise_spaces(name).replace("–", "-") for _, name in names}
    for kind, name in names:
        key = keys[name]
        for m in re.finditer(r"(?<![\w.])" + re.escape(key) + r"(?![\w])", low) if key else []:
            found.append(Mention(m.start(), m.end(), kind, name))
    exact = list(found)
    for kind, name in names:  # OCR slips: only where no name is written exactly, and only a clear best match
        if len(keys[name]) >= 5 and not any(f.name == name for f in exact):
            for guess in _fuzzy(low, keys[name], kind, name):
                window = low[guess.start:guess.end]
                rivals = [SequenceMatcher(None, window, keys[n]).ratio() for _, n in names if n != name]
                mine = SequenceMatcher(None, window, keys[name]).ratio()
                clear = all(mine - r >= 0.05 for r in rivals)
                if clear and all(guess.end <= e.start or guess.start >= e.end for e in exact):
                    found.append(guess)
    found.sort(key=lambda m: (m.start, -(m.end - m.start)))
    kept: list[Mention] = []
    for mention in found:
        if all(mention.end <= k.start or mention.start >= k.end for k in kept):
            kept.append(mention)
    return kept


def _fuzzy(low: str, key: str, kind: str, name: str) -> list[Mention]:
    """OCR slips a letter now and then ("Cherrles"): a window of the option's words that is at least 85 % alike."""
    words = list(re.finditer(r"[\w%-]+", low))
    size = len(key.split())
    out = []
    for i in range(len(words) - size + 1):
        start, end = words[i].start(), words[i + size - 1].end()
        if SequenceMatcher(None, low[start:end], key).ratio() >= 0.85:
            out.append(Mention(start, end, kind, name))
    return out


def templated(text: str, mentions: list[Mention]) -> str:
    """``text`` (normalised) with each mention replaced by ``E<i>``."""
    low = normalise_spaces(text).replace("–", "-").replace("—", "-")
    out, last = [], 0
    for i, m in enumerate(mentions):
        out.append(low[last:m.start])
        out.append(f"E{i}")
        last = m.end
    out.append(low[last:])
    return "".join(out)


def number(text: str) -> float | None:
    text = text.replace(",", "")
    try:
        return float(text)
    except ValueError:
        return _WORD_NUMBERS.get(text)


def check_statement(option: str, facts: ChartFacts, value_of: Callable[[Mention], Reading | None],
                    share_chart: bool) -> Verdict | None:
    """What the readings say about ``option``, or None when its shape is not one checked here."""
    mentions = find_mentions(option, facts)
    if not mentions:
        return None
    t = templated(option, mentions)
    readings = [value_of(m) for m in mentions]

    def r(index: str) -> Reading | None:
        return readings[int(index)]

    def missing() -> Verdict:
        names = ", ".join(m.name for m, v in zip(mentions, readings, strict=True) if v is None)
        return Verdict.unknown(f"no usable value for {names}", "data")

    if re.search(r"\bwill\b|\bgoing to\b|\bultimately\b|\bfinal\b|\bpredict", t):
        return Verdict.unknown("a claim about the future: the chart shows only what has happened", "judgement")
    if m := re.search(r"combined|together|total of|sum of", t):
        return _combined(t, readings, share_chart)
    if m := re.search(r"\bE(\d)\b[^E]*?\b(?:(dramatic|sharp|significant|huge|steep|substantial)\s+"
                      r"(growth|increase|rise|jump|drop|decline|decrease|fall))\b[^E]*?\bE(\d)\b", t):
        a, b = r(m.group(1)), r(m.group(4))
        if a is None or b is None:
            return missing()
        return _big_change(a, b, m.group(3) in ("growth", "increase", "rise", "jump"))
    if m := re.search(r"\bE(\d)\b.*?\b(" + _APPROX + r")?\s*(\d+(?:\.\d+)?|two|three|four|five|twice|double|triple)"
                      r"\s*(?:times|x)\b.*?\bE(\d)\b", t) or re.search(
                          r"\bE(\d)\b.*?\b(" + _APPROX + r")?\s*(twice|double|triple)\b.*?\bE(\d)\b", t):
        a, b = r(m.group(1)), r(m.group(4))
        factor = number(m.group(3))
        if a is None or b is None or factor is None:
            return missing()
        if b.value <= 0:
            return Verdict.unknown("a ratio to a value of zero or less", "data")
        ratio = a.value / b.value
        sigma = ratio * (a.sigma / max(abs(a.value), 1e-9) + b.sigma / max(abs(b.value), 1e-9))
        return approximately(ratio, factor, sigma, min(a.trust, b.trust), "ratio", tol=0.12, far=0.25)
    if m := re.search(r"\b(?:growth|increase|change|rise|decline|drop|decrease|difference|gain)\b.*?\bfrom E(\d) to "
                      r"E(\d)\b.*?\b(over|above|more than|at least|under|below|less than|about|approximately|around|"
                      r"roughly|is|was|of|by|equals?)\s+\$?" + NUMBER, t):
        a, b = r(m.group(1)), r(m.group(2))
        limit = number(m.group(4))
        if a is None or b is None or limit is None:
            return missing()
        change = Reading(b.value - a.value, a.sigma + b.sigma, a.source, min(a.trust, b.trust))
        if m.group(3) in ("about", "approximately", "around", "roughly"):
            return approximately(change.value, limit, change.sigma, change.trust, "change")
        if m.group(3) in ("is", "was", "of", "by", "equal", "equals"):  # "the growth ... is 17 points": as stated
            after = t[m.end():m.end() + 24]
            if re.match(r"\s*(?:%(?! ?points?)|percent(?!age ?points?| ?points?)|times\b|x\b|st\b|nd\b|rd\b|th\b)", after):
                return None  # a relative change or a rank: not a difference of values
            falling = re.match(r"\s*(?:decline|drop|decrease)", t[m.start():]) is not None
            size = Reading(-change.value if falling else change.value, change.sigma, change.source, change.trust)
            return approximately(size.value, limit, size.sigma, size.trust, "change", tol=0.01, far=0.05)
        return threshold(change, limit, m.group(3) in ("over", "above", "more than", "at least"), "change")
    if m := re.search(r"\bE(\d)\b.*?\b(" + _MORE + "|" + _LESS + r")\b(?:\s+\w+){0,6}?\s+than\s+(?:in\s+|that\s+(?:in|of)\s+|"
                      r"during\s+|for\s+|of\s+|at\s+)?(?:the\s+)?(?:\w+\s+)?E(\d)\b", t) or re.search(
                          r"\bE(\d)\b\s+(exceeds|outperforms|surpasses)\s+(?:\w+\s+){0,3}?E(\d)\b", t):
        a, b = r(m.group(1)), r(m.group(3))
        if a is None or b is None:
            return missing()
        return compare(a, b, re.fullmatch(_MORE, m.group(2)) is not None, f"{mentions[int(m.group(1))].name} vs "
                       f"{mentions[int(m.group(3))].name}")
    if m := re.search(r"\bE(\d)\b\s+and\s+E(\d)\b.*?\b(?:(exactly|approximately|about|roughly|nearly|almost)\s+)?"
                      r"(?:the\s+)?(same|equal|identical|similar)\b", t):
        a, b = r(m.group(1)), r(m.group(2))
        if a is None or b is None:
            return missing()
        exact = m.group(3) == "exactly" or (m.group(3) is None and m.group(4) in ("same", "identical", "equal"))
        return _equal(a, b, exact)
    if m := re.search(r"\bE(\d)\b(?:\s+\w+){0,4}?\s+(?:the\s+)?(?:(second|third)[- ])?(highest|largest|biggest|greatest|"
                      r"most|top|lowest|smallest|least|fewest|dominant)\b", t):
        a = r(m.group(1))
        if a is None:
            return missing()
        rank = {"second": 2, "third": 3}.get(m.group(2) or "", 1)
        return _rank(mentions[int(m.group(1))], facts, value_of, rank,
                     m.group(3) in ("highest", "largest", "biggest", "greatest", "most", "top", "dominant"))
    if share_chart and (m := re.search(r"\b(more than|over|fewer than|less than|under|around|about|approximately|"
                                       r"nearly|roughly|exactly)\s+(half|one[- ]third|a third|two[- ]thirds|a quarter|"
                                       r"one[- ]quarter|three[- ]quarters)\b", t)):
        if len(mentions) != 1 or readings[0] is None:
            return missing() if len(mentions) == 1 else None
        return _against(readings[0], _FRACTIONS[m.group(2).replace("-", " ") if m.group(2) not in _FRACTIONS
                                                else m.group(2)], m.group(1), "share")
    if len(mentions) == 1 and (m := re.search(r"\b(above|over|more than|at least|greater than|exceeds|under|below|"
                                              r"less than|fewer than|at most|about|approximately|around|roughly|"
                                              r"nearly|of|is|was|at|reaches|equals)\s+\$?" + NUMBER +
                                              r"\s*(%|percent)?", t)):
        if readings[0] is None:
            return missing()
        limit = number(m.group(2))
        return None if limit is None else _against(readings[0], limit, m.group(1), "value")
    return None


def _against(value: Reading, limit: float, relation: str, what: str) -> Verdict:
    if relation in ("above", "over", "more than", "at least", "greater than", "exceeds"):
        return threshold(value, limit, True, what)
    if relation in ("under", "below", "less than", "fewer than", "at most"):
        return threshold(value, limit, False, what)
    if relation in ("about", "approximately", "around", "roughly", "nearly"):
        return approximately(value.value, limit, value.sigma, value.trust, what)
    return approximately(value.value, limit, value.sigma, value.trust, what, tol=0.01, far=0.05)  # "is 13.2"


def _equal(a: Reading, b: Reading, exact: bool) -> Verdict:
    gap = abs(a.value - b.value)
    if exact:
        if gap <= a.sigma + b.sigma:
            return Verdict("true", min(a.trust, b.trust) * 0.95, f"{a.value:g} = {b.value:g}")
        z = gap / max(a.sigma + b.sigma, 1e-9)
        return Verdict("false", min(a.trust, b.trust) * min(1.0, 0.8 + 0.04 * z), f"{a.value:g} ≠ {b.value:g}") \
            if z >= 2 else Verdict.unknown("too close to call", "data")
    return approximately(a.value, b.value, a.sigma + b.sigma, min(a.trust, b.trust), "about the same",
                         tol=0.05, far=0.15)


def _rank(mention: Mention, facts: ChartFacts, value_of: Callable[[Mention], Reading | None], rank: int,
          highest: bool) -> Verdict:
    """``mention`` holds place ``rank`` (1 = highest, or lowest) among the names of its kind."""
    names = facts.categories if mention.kind == "category" else facts.series
    if mention.kind == "category" and not facts.complete:
        return Verdict.unknown("a category of the chart has no value read, so no rank can be given", "data")
    read = all_read([value_of(Mention(0, 0, mention.kind, n)) for n in names])
    if read is None or len(read) < rank + 1:
        return Verdict.unknown("not every value of the chart could be read", "data")
    ordered = sorted(zip(read, names, strict=True), key=lambda p: p[0].value, reverse=highest)
    place = [n for _, n in ordered].index(mention.name) + 1
    mine = ordered[place - 1][0]
    neighbours = [ordered[i][0] for i in (place - 2, place) if 0 <= i < len(ordered)]
    verdicts = [compare(mine, other, True, "rank") for other in neighbours]
    if any(v.status == "unknown" for v in verdicts):
        return Verdict.unknown(f"{mention.name} is too close to its neighbours to rank", "data")
    strength = min(v.strength for v in verdicts)
    word = "highest" if highest else "lowest"
    return Verdict("true" if place == rank else "false", strength, f"{mention.name} is #{place} {word}")


def _big_change(a: Reading, b: Reading, rising: bool) -> Verdict:
    """``a`` changed dramatically from ``b`` (up when ``rising``): at least 25 % relative; under 10 % is not."""
    if b.value == 0:
        return Verdict.unknown("a change from zero", "data")
    change = (a.value - b.value) / abs(b.value)
    if (change > 0) != rising and abs(change) > 0.02:
        return Verdict("false", min(a.trust, b.trust), f"the change goes the other way ({change:+.0%})")
    if abs(change) >= 0.25:
        return Verdict("true", min(a.trust, b.trust) * 0.9, f"a change of {change:+.0%}")
    if abs(change) <= 0.1:
        return Verdict("false", min(a.trust, b.trust) * 0.95, f"only {change:+.0%}")
    return Verdict.unknown(f"a change of {change:+.0%} is neither clearly small nor dramatic", "data")


def _combined(t: str, readings: list[Reading | None], share_chart: bool) -> Verdict | None:
    """"The combined share of E0, E1 and E2 exceeds (the share of) E3"; "E0 and E1 together account for half"."""
    indices = [int(i) for i in re.findall(r"\bE(\d)\b", t)]
    named = all_read([readings[i] for i in indices])
    if named is None or len(named) < 2:
        return Verdict.unknown("a value of the combination could not be read", "data")
    if m := re.search(r"\b(exceeds?|more than|larger than|greater than|less than|smaller than)\b(?:\s+\w+){0,4}?\s+"
                      r"E(\d)\s*\.?$", t):
        last = indices.index(int(m.group(2)))
        total = summed(named[:last] + named[last + 1:])
        bigger = m.group(1) in ("exceeds", "exceed", "more than", "larger than", "greater than")
        return compare(total, named[last], bigger, "combined")
    if share_chart and (m := re.search(r"account for (?:(about|approximately|roughly|nearly|exactly)\s+)?"
                                       r"(half|one[- ]third|a third|a quarter|" + NUMBER + r"\s*%)", t)):
        total = summed(named)
        target = _FRACTIONS.get(m.group(2)) or number(m.group(3) or "") or 0.0
        return approximately(total.value, target, total.sigma, total.trust, "combined", tol=0.04, far=0.1)
    return None
