"""Two counts compared: "are there more blue circles than green circles?", "more stars or diamonds? (A) stars
(B) diamonds (C) same number".

The two sides are counted as two questions of their own ("how many blue circles", "how many green circles"), each
with every check a count gets, and compared only when both are given: a side the tools cannot count leaves the
comparison open. "Green ones" borrows the shape of the other side ("more red squares than green ones").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from skills.answer_form import answer_form

_SIDE = r"(?:[a-z]+\s+){0,2}?[a-z]+"
_MORE = re.compile(rf"\b(?P<way>more|fewer|less)\s+(?P<a>{_SIDE})\s+(?P<join>than|or)\s+(?:the\s+)?(?P<b>{_SIDE})"
                   r"\s*(?=[?.,(]|$|\s+(?:here|there|drawn|shown)\b)", re.I)
#: An option that says the two counts are equal.
_SAME = re.compile(r"\b(?:same|equal|neither|tie|as many)\b", re.I)


@dataclass(frozen=True)
class CountPair:
    """The two things a question compares by number, as "how many …" questions, and how it compares them."""

    first: str
    second: str
    fewer: bool  # "fewer"/"less" rather than "more"
    which: bool  # "more A or B?" asks which; "more A than B?" asks Yes or No


def compared_counts(question: str) -> CountPair | None:
    """The pair of counts ``question`` compares, or None when it compares none."""
    match = _MORE.search(question)
    if match is None or re.match(r"^\W*how\s+(?:many|much)\b", question, re.I) or match.group("b").lower().split()[-1] \
            in ("left", "right", "top", "bottom", "middle"):
        return None  # "how many more circles than squares": a difference, not Yes or No
    a, b = match.group("a").lower(), match.group("b").lower()
    if b.split()[-1] in ("one", "ones") and len(a.split()) >= 2:
        b = f"{' '.join(b.split()[:-1])} {a.split()[-1]}"  # "more red squares than green ones"
    return CountPair(f"how many {a}", f"how many {b}", match.group("way").lower() != "more",
                     match.group("join").lower() == "or")


def compare(question: str, pair: CountPair, first: int, second: int) -> str | None:
    """The answer ``question`` asks for, given the two counts, or None when its form has no place for it (a
    "same number" answer with no option saying so)."""
    if not pair.which:
        return "Yes" if ((first < second) if pair.fewer else (first > second)) else "No"
    form = answer_form(question)
    if first == second:
        same = [letter for letter, text in form.options.items() if _SAME.search(text)]
        return same[0] if len(same) == 1 else None
    side = pair.first if (first < second) == pair.fewer else pair.second
    return side.removeprefix("how many ")
