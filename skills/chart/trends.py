"""Trends over an ordered series: the direction, steadiness and turns a trend option claims, checked on readings.

Values are taken in time order when the categories read as times (a chart may scramble its years on purpose).
An option's wording is mapped to a claim about the series: increasing or decreasing (overall, "mostly", "with some
fluctuations", "steadily"), constant, fluctuating without a clear direction, a sequence of turns ("decreasing,
then increasing, and finally decreasing"), or the latest change. Small changes inside the reading uncertainty count
as flat; a direction is "overall" when the net change is at least a fifth of the series' range and most steps go
that way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from skills.chart.directions import FALL, GAIN, LOSS, RISE, SLUMP, SURGE
from skills.chart.facts import Reading
from skills.chart.verdict import Verdict

_UP = rf"\b(?:{RISE}|{GAIN}|{SURGE})\b"
_DOWN = rf"\b(?:{FALL}|{LOSS}|{SLUMP})\b"
_FLAT = r"constant|stable|flat|unchanged|the same|similar"
_WAVY = r"fluctuat\w*|volatil\w*|no clear|without a (?:consistent|clear)|random|erratic|up[- ](?:and[- ])?down"
_BIG = r"\b(?:major|significant\w*|dramatic\w*|sharp\w*|steep\w*|huge|massive|large|big|substantial\w*|rapid\w*)\b"
_SMALL = r"\b(?:slight\w*|small|minor|modest\w*|little|marginal\w*|gentle|gradual\w*)\b"
#: "stayed within a narrow range": every value close to every other, whichever way it wanders.
_NARROW = r"\bnarrow (?:range|band)\b|\bwithin a (?:very )?(?:narrow|small|tight) (?:range|band)\b"


@dataclass(frozen=True)
class Shape:
    """The steps of an ordered series, with flat steps (inside the uncertainty) marked 0."""

    values: list[float]
    signs: list[int]  # +1, -1 or 0 per step
    net: float
    spread: float
    trust: float

    @property
    def direction(self) -> int:
        """+1 or -1 when the series clearly goes one way overall, 0 when it does not."""
        if self.spread <= 0 or abs(self.net) < 0.2 * self.spread:
            return 0
        way = 1 if self.net > 0 else -1
        agreeing = sum(1 for s in self.signs if s == way)
        against = sum(1 for s in self.signs if s == -way)
        return way if agreeing > against else 0


def shape_of(readings: list[Reading]) -> Shape | None:
    if len(readings) < 3:
        return None
    values = [r.value for r in readings]
    signs = []
    for a, b in zip(readings, readings[1:], strict=False):
        gap = b.value - a.value
        signs.append(0 if abs(gap) <= 1.5 * (a.sigma + b.sigma) else (1 if gap > 0 else -1))
    return Shape(values, signs, values[-1] - values[0], max(values) - min(values), min(r.trust for r in readings))


def runs(signs: list[int]) -> list[int]:
    """The directions of the series' legs: consecutive equal signs merged, flat steps dropped."""
    out: list[int] = []
    for s in signs:
        if s != 0 and (not out or out[-1] != s):
            out.append(s)
    return out


def check_trend(option: str, shape: Shape) -> Verdict | None:
    """What ``shape`` says about a trend ``option`` ("Mostly decreasing with some fluctuations"), or None when the
    option is not a trend statement this can check."""
    text = " ".join(option.lower().split())
    if re.search(r"cannot|can't|impossible|not enough|inadequate|insufficient|\bwill\b", text):
        return None
    legs = [1 if up else -1 for up, _ in re.findall(r"(" + _UP + r")|(" + _DOWN + r")", text)]
    if len(legs) >= 2 and re.search(r"\bthen\b|\bfinally\b|\bafterwards?\b", text):
        actual = runs(shape.signs)
        holds = actual == legs
        return Verdict("true" if holds else "false", shape.trust * (0.95 if holds else 0.97),
                       f"the legs go {_legs(actual)}, the option says {_legs(legs)}")
    up, down = re.search(_UP, text) is not None, re.search(_DOWN, text) is not None
    wavy, flat = re.search(_WAVY, text) is not None, re.search(_FLAT, text) is not None
    big = re.search(_BIG, text) is not None
    small = re.search(_SMALL, text) is not None
    strict = re.search(r"\bsteadily\b|\bsteady\b|\bconsistent\w*\b|\bevery\b|\bthroughout\b|\bperfectly\b|"
                       r"\bexactly\b|\bcontinuous\w*\b|\bsustained\b", text) is not None
    relative = _relative_change(shape)
    direction = shape.direction
    if up != down:
        way = 1 if up else -1
        if direction != way:
            why = "the series has no clear overall direction" if direction == 0 else "the series goes the other way"
            return Verdict("false", shape.trust * (0.9 if direction == 0 else 1.0), why)
        if strict and not wavy and any(s == -way for s in shape.signs):
            return Verdict("false", shape.trust * 0.9, "the series does not move that way at every step")
        if big or small:
            return _magnitude(relative, big, shape.trust, "overall change")
        return Verdict("true", shape.trust * 0.95, "the series goes that way overall")
    if up or down:
        return None
    if re.search(_NARROW, text) and not big:
        return _narrow(shape)
    if flat and not wavy:
        if re.search(r"\bexactly\b|\bidentical\b|\bperfectly\b", text):
            same = not any(shape.signs) and shape.spread == 0
            return Verdict("true" if same else "false", shape.trust * 0.95,
                           "the values are the same" if same else "the values differ")
        if relative is None:
            return None
        spread = shape.spread / max(abs(v) for v in shape.values)
        if spread <= 0.05:
            return Verdict("true", shape.trust * 0.85, f"the values stay within {spread:.0%} of each other")
        if direction != 0 and relative >= 0.15:
            return Verdict("false", shape.trust, f"the series changes by {relative:.0%} overall")
        return None
    if wavy and small:  # "fluctuated slightly, overall changes small"
        return None if relative is None else _magnitude(relative, False, shape.trust * 0.9, "overall change")
    if wavy and not flat:
        if all(s == shape.signs[0] != 0 for s in shape.signs):
            return Verdict("false", shape.trust * 0.9, "the series moves the same way at every step")
        return None  # whether ups and downs have "no clear pattern" is a judgement
    if small and re.search(r"\bchanges?\b|\bvariations?\b|\bdifferences?\b", text):  # "only small changes overall"
        # Judged on how far the values spread, not on where they end: 10, 50, 10, 11 did not change "a little".
        return None if relative is None else _magnitude(shape.spread / (sum(shape.values) / len(shape.values)),
                                                        False, shape.trust * 0.9, "spread of the values")
    return None


def _narrow(shape: Shape) -> Verdict | None:
    """"Stayed within a narrow range": the spread of the values is at most 5 % of their size (false from 25 %)."""
    if min(shape.values) <= 0:
        return None
    spread = shape.spread / max(shape.values)
    if spread <= 0.05:
        return Verdict("true", shape.trust * 0.9, f"the values stay within {spread:.0%} of each other")
    if spread >= 0.25:
        return Verdict("false", shape.trust * 0.9, f"the values spread over {spread:.0%} of their size")
    return Verdict.unknown(f"a spread of {spread:.0%} is neither clearly narrow nor wide", "data")


def _relative_change(shape: Shape) -> float | None:
    """The net change as a share of the values' size (None when values are not all positive)."""
    if min(shape.values) <= 0:
        return None
    return abs(shape.net) / (sum(shape.values) / len(shape.values))


def _magnitude(relative: float | None, big: bool, trust: float, what: str) -> Verdict:
    """A "major" change is at least 25 % of the values' size, a "slight" one at most 10 %."""
    if relative is None:
        return Verdict.unknown("the size of a change of values around zero is a judgement", "data")
    if relative >= 0.25:
        return Verdict("true" if big else "false", trust * 0.9, f"{what} {relative:.0%} of the values' size")
    if relative <= 0.1:
        return Verdict("false" if big else "true", trust * 0.9, f"{what} {relative:.0%} of the values' size")
    return Verdict.unknown(f"{what} of {relative:.0%} is neither clearly small nor large", "data")


def _legs(legs: list[int]) -> str:
    return ", then ".join("up" if s > 0 else "down" for s in legs) or "nowhere"
