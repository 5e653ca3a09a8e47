"""Guessing the Level-1 skill a question needs, from each skill's keywords and description.

Keywords declared in ``SKILL.md`` are the strong signal (a phrase match scores its length in words, so "bar chart"
beats "chart"); overlap with the description's content words breaks ties. The scores are returned whole so the
step can record why a skill was chosen.

Only what the question is about is matched (``skills.question_text.task_text``: no answer-format instructions).
The options of a multiple-choice question are matched only when its stem names no skill: their words ("above",
"segment", "number of") would otherwise outvote the stem's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from skills.chat import chat_spelled
from skills.question_text import task_text
from skills.spec import SkillSpec

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    ["a", "an", "the", "of", "in", "on", "at", "to", "for", "is", "are", "was", "were", "be", "this", "that", "these", "those", "what", "which", "who", "how", "many", "much", "does", "do", "it", "its", "and", "or", "with", "from", "by", "as", "image", "picture", "photo", "shown", "show", "there", "any", "each", "their", "your", "you", "please", "answer", "question", "put", "e", "g"]
)

#: "where's the hexagon", "whats the total", "wat's on b2": a keyword phrase is written out ("where is").
_CONTRACTED = re.compile(r"\b(where|what|wat|how|who|which)(?:'s|s)\b")
_SPELLED = {"wat": "what"}


@dataclass(frozen=True)
class SkillGuess:
    skill: str  # the skill's protocol name
    score: float
    reason: str
    keyword_score: float = 0.0  # from declared keywords alone: > 0 means the question is plausible for the skill


def infer_skills(question: str, specs: list[SkillSpec]) -> list[SkillGuess]:
    """All skills ranked for ``question``, best first (keyword score, then description overlap, then order)."""
    stem, options = task_text(question)
    stem = chat_spelled(stem)  # "r there fewer circles", "hw many": the keywords as written out
    stem = _CONTRACTED.sub(lambda m: f"{_SPELLED.get(m.group(1), m.group(1))} is", stem.lower().replace("’", "'"))
    fired_in = {spec.name: [kw for kw in spec.keywords if _phrase_in(kw.lower(), stem)] for spec in specs}
    if options and not any(fired_in.values()):  # the stem names nothing: the options are all there is
        text = f"{stem}\n{options.lower()}"
        fired_in = {spec.name: [kw for kw in spec.keywords if _phrase_in(kw.lower(), text)] for spec in specs}
    words = set(_WORD.findall(stem)) - _STOP
    ranked: list[tuple[float, float, int, SkillGuess]] = []
    for order, spec in enumerate(specs):
        fired = fired_in[spec.name]
        keyword_score = sum(1.0 + 0.5 * (len(kw.split()) - 1) for kw in fired)
        described = set(_WORD.findall(spec.description.lower())) - _STOP
        overlap = len(words & described) / (len(words) or 1)
        reason = (f"keywords {', '.join(repr(k) for k in fired)}" if fired else "no keyword") + \
            f"; description overlap {overlap:.2f}"
        ranked.append((keyword_score, overlap, -order,
                       SkillGuess(spec.name, keyword_score + overlap, reason, keyword_score)))
    ranked.sort(key=lambda item: item[:3], reverse=True)
    return [item[3] for item in ranked]


def _phrase_in(phrase: str, text: str) -> bool:
    return re.search(r"(?<![a-z0-9])" + re.escape(phrase) + r"(?![a-z0-9])", text) is not None
