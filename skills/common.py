"""Helpers every skill shares: reading what a question names (colours, shapes, targets) and concluding a call.

``conclude`` is the one place that decides between the two expert kinds: a neural expert gets the tools' evidence
and annotated images with the skill's prompt; the tools expert returns the tools' answer, or says plainly that
the tools cannot settle the question.
"""

from __future__ import annotations

import re
from typing import Any

from skills.answer_format import format_answer
from skills.base import SkillContext, SkillResult
from skills.runner import ask_expert

COLOUR_WORDS = ("red", "orange", "yellow", "green", "blue", "purple", "pink", "brown", "black", "white", "gray",
                "grey", "cyan", "violet", "magenta")
SHAPE_WORDS = {"circle": "circle", "circles": "circle", "triangle": "triangle", "triangles": "triangle",
               "square": "square", "squares": "square", "rectangle": "rectangle", "rectangles": "rectangle",
               "pentagon": "pentagon", "pentagons": "pentagon", "hexagon": "hexagon", "hexagons": "hexagon",
               "star": "star", "stars": "star", "ellipse": "ellipse", "ellipses": "ellipse", "oval": "ellipse",
               "ovals": "ellipse", "octagon": "octagon", "octagons": "octagon", "heptagon": "heptagon",
               "heptagons": "heptagon"}
CANNOT_SETTLE = "The tools cannot settle this question without a reasoning expert."


def colours_in(text: str) -> list[str]:
    """Colour words in ``text``, in order of appearance (grey → gray)."""
    found = re.findall(r"\b(" + "|".join(COLOUR_WORDS) + r")\b", text.lower())
    return ["gray" if c == "grey" else c for c in found]


def shape_in(text: str) -> str | None:
    """The first shape word in ``text``, singular."""
    for word in re.findall(r"[a-z]+", text.lower()):
        if word in SHAPE_WORDS:
            return SHAPE_WORDS[word]
    return None


def evidence_of(results: list[Any]) -> str:
    return "\n".join(f"- {r.summary()}" for r in results if r is not None) or "(no tool evidence)"


def conclude(ctx: SkillContext, results: list[Any], answer: str | None, *, note: str = "") -> SkillResult:
    """Finish a skill call: ask the neural expert with the evidence, or settle (or decline) with the tools."""
    evidence = evidence_of(results)
    if note:
        evidence += f"\n{note}"
    if getattr(ctx.expert, "neural", False):
        images = [r.annotated for r in results if getattr(r, "annotated", None) is not None]
        return ask_expert(ctx, evidence, extra_images=images[:3])
    data = {"tools": [r.to_dict() for r in results if r is not None and hasattr(r, "to_dict")]}
    if answer is None:
        return SkillResult(observation=f"{evidence}\n{CANNOT_SETTLE}", evidence=data)
    formatted = format_answer(ctx.question, answer)
    return SkillResult(observation=f"{evidence}\nAnswer from the tools: {formatted}", answer=formatted, evidence=data)
