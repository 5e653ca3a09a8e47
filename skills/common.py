"""Helpers every skill shares: reading what a question names (colours, shapes, targets) and concluding a call.

``conclude`` is the one place that decides between the two expert kinds: a neural expert gets the tools' evidence
and annotated images with the skill's prompt; the tools expert returns the tools' answer, or says plainly that
the tools cannot settle the question.
"""

from __future__ import annotations

import re
from typing import Any

from skills.answer_form import format_answer
from skills.base import SkillContext, SkillResult
from skills.runner import ask_expert
from vision_tools.diagrams import HUE_RANGES
from vision_tools.image import ALIASES, PALETTE, canonical_name, first_shape

#: Colour words a question may use: the palette's names and their aliases (``vision_tools.image.colour``).
COLOUR_WORDS: tuple[str, ...] = (*PALETTE, *ALIASES)
CANNOT_SETTLE = "The tools cannot settle this question without a reasoning expert."


def colours_in(text: str) -> list[str]:
    """Colour words in ``text``, in order of appearance, as palette names (grey → gray, violet → purple), except
    the hues the diagram tools tell apart more finely than the palette (cyan, magenta), which stay as written."""
    found = re.findall(r"\b(" + "|".join(COLOUR_WORDS) + r")\b", text.lower())
    return [word if word in HUE_RANGES else canonical_name(word) for word in found]


def shape_in(text: str) -> str | None:
    """The first shape word in ``text``, as the shape classifier names it (``vision_tools.image.shape_words``)."""
    return first_shape(text)


def evidence_of(results: list[Any]) -> str:
    return "\n".join(f"- {r.summary()}" for r in results if r is not None) or "(no tool evidence)"


def conclude(ctx: SkillContext, results: list[Any], answer: str | None, *, note: str = "",
             confidence: float | None = None, missing: str | None = None,
             images: list[Any] | None = None) -> SkillResult:
    """Finish a skill call: ask the neural expert with the evidence, or settle (or decline) with the tools.

    ``confidence`` is how far the evidence supports ``answer`` (0-1); ``missing`` says what is missing when there
    is no answer (``note`` is used when it is not given); ``images`` replaces the results' annotated images as
    what the neural expert is shown besides the question's image (a zoomed crop)."""
    evidence = evidence_of(results)
    if note:
        evidence += f"\n{note}"
    if getattr(ctx.expert, "neural", False):
        if images is None:
            images = [r.annotated for r in results if getattr(r, "annotated", None) is not None]
        reply = ask_expert(ctx, evidence, extra_images=images[:3])
        if answer is not None:  # the tools' own reading travels with the expert's reply, to be checked against it
            reply.answer, reply.confidence = format_answer(ctx.question, answer), confidence
        return reply
    data = {"tools": [r.to_dict() for r in results if r is not None and hasattr(r, "to_dict")]}
    if answer is None:
        # A note can be long evidence (a data table); only a one-line note says what is missing.
        short_note = note if note and "\n" not in note and len(note) <= 200 else None
        why = missing or short_note or CANNOT_SETTLE
        return SkillResult(observation=f"{evidence}\n{CANNOT_SETTLE if not missing else why}", evidence=data,
                           missing=why)
    formatted = format_answer(ctx.question, answer)
    return SkillResult(observation=f"{evidence}\nAnswer from the tools: {formatted}", answer=formatted,
                       evidence=data, confidence=confidence)
