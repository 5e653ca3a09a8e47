"""Deciding whether an answer is right, by task type: the conventions of the benchmarks the paper reports.

``match_answer(prediction, expected)`` picks the rule from the expected answer's shape (or an explicit ``kind``):
``grid`` "(R,C)" needs both counts; ``yesno``; ``choice`` a multiple-choice letter; ``numeric`` relaxed to 5%
relative (exact for 0); ``exact`` normalised string equality; ``contains`` normalised containment. A
prediction's ``{...}`` part, when present, is what is judged (BlindTest asks for answers in curly brackets).
"""

from __future__ import annotations

import re
from typing import Literal

from skills.answer_form import normalise_text

#: How a prediction is compared with the expected answer: a rule of comparison, not an answer kind (those are
#: ``skills.answer_form.AnswerKind``; a "count" or "number" answer is compared by the "numeric" rule).
MatchRule = Literal["grid", "yesno", "choice", "numeric", "exact", "contains"]
RELATIVE_TOLERANCE = 0.05

_NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?|[-+]?\.\d+")
_SCALED = re.compile(r"(?:(k|K|M|B|bn)|\s*(thousand|million|billion))\b")
_SCALES = {"k": 1e3, "m": 1e6, "b": 1e9, "bn": 1e9, "thousand": 1e3, "million": 1e6, "billion": 1e9}
_BRACES = re.compile(r"\{([^{}]*)\}")
_GRID = re.compile(r"\(?\s*(\d+)\s*[,x×]\s*(\d+)\s*\)?")
_GRID_WORDS = re.compile(r"(\d+)\s*rows?\D{0,20}?(\d+)\s*col", re.IGNORECASE)
_GRID_WORDS_REVERSED = re.compile(r"(\d+)\s*col\w*\D{0,20}?(\d+)\s*rows?", re.IGNORECASE)
_WORD_NUMBERS = {w: str(i) for i, w in enumerate(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"])}


def detect_kind(expected: str) -> MatchRule:
    text = expected.strip()
    if re.fullmatch(r"\(\s*\d+\s*,\s*\d+\s*\)", text):
        return "grid"
    if text.lower() in ("yes", "no"):
        return "yesno"
    if re.fullmatch(r"\(?[A-Ha-h]\)?", text):
        return "choice"
    if _parse_number(text) is not None and _NUMBER.fullmatch(text.replace("%", "").strip()):
        return "numeric"
    return "exact"


def match_answer(prediction: str | None, expected: str, kind: MatchRule | None = None) -> bool:
    """True when ``prediction`` answers ``expected`` under the rule for ``kind`` (detected when None)."""
    if prediction is None:
        return False
    kind = kind or detect_kind(expected)
    focus = _focus(prediction)
    if kind == "grid":
        return _grid(focus) == _grid(expected) or _grid(prediction) == _grid(expected)
    if kind == "yesno":
        found = re.findall(r"\b(yes|no)\b", focus.lower())
        return bool(found) and found[0] == expected.strip().lower()
    if kind == "choice":
        return _choice(focus) == expected.strip().strip("()").upper()
    if kind == "numeric":
        # An expected amount may carry its currency as printed ("$8.20", "RM41.45"): read its number.
        want = _parse_number(expected)
        want, got = want if want is not None else _first_number(expected), _first_number(focus)
        if want is None or got is None:
            return False
        return got == want if want == 0 else abs(got - want) <= RELATIVE_TOLERANCE * abs(want)
    if kind == "contains":
        return normalise_text(expected) in normalise_text(prediction)
    return normalise_text(focus) == normalise_text(expected)


def _focus(prediction: str) -> str:
    braces = _BRACES.findall(prediction)
    return braces[-1] if braces else prediction


def _grid(text: str) -> tuple[int, int] | None:
    words = _GRID_WORDS.search(text)
    if words:
        return int(words.group(1)), int(words.group(2))
    reversed_words = _GRID_WORDS_REVERSED.search(text)
    if reversed_words:
        return int(reversed_words.group(2)), int(reversed_words.group(1))
    match = _GRID.search(text)
    return (int(match.group(1)), int(match.group(2))) if match else None


def _choice(text: str) -> str | None:
    match = re.search(r"\(([A-Ha-h])\)", text) or re.match(r"\s*([A-Ha-h])(?:[.):\s]|$)", text) \
        or re.search(r"\b(?:answer|option)\s*(?:is)?\s*:?\s*\(?([A-Ha-h])\b", text, re.IGNORECASE)
    return match.group(1).upper() if match else None


def _parse_number(text: str) -> float | None:
    cleaned = text.strip().rstrip("%").replace(",", "")
    try:
        return float(cleaned)
    except ValueError:
        return None


def _first_number(text: str) -> float | None:
    match = _NUMBER.search(text)
    if match:
        number = _parse_number(match.group(0))
        # "€9.9M", "870k", "2.5 billion": written in a chart's scale. (A lower-case "m" is metres, not millions.)
        scale = _SCALED.match(text, match.end())
        return number if number is None or scale is None else number * _SCALES[(scale.group(1) or scale.group(2)).lower()]
    for word in re.findall(r"[a-z]+", text.lower()):
        if word in _WORD_NUMBERS:
            return float(_WORD_NUMBERS[word])
    return None
