"""The fallback skill: one more try when nothing the question or the image named settled an open question.

A sign or a product label with flat colour areas looks like a chart to Chart's quick look, and "What's the speed
limit?" names no skill: Chart is tried, finds no chart, and the text that answers the question is never read. A
skill whose ``SKILL.md`` says ``fallback: true`` (OCR in the default registry) gets one try after every pair the
policy chose has settled nothing, or when the question and the image named no skill at all ("What year is this
wine?"). Its tools still answer only what they settle (a span beside a printed label, the
number after the named word), so the try costs a reading, not trust. A multiple-choice question gets the try too: the
text reader picks a letter only for an option equal to a span it settled ("Mon - Fri" under a speed sign) or the
one option printed when the question asks what is printed. Yes/no questions keep their pairs: a word the text
reader does not find is no "No" to "Does the figure show a circle?".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from skills.answer_form import answer_form

if TYPE_CHECKING:
    from agents.registry import Registry
    from storage.trace import Step

#: Why the fallback pair is tried, for the routing record and the turn's reasoning.
FALLBACK_REASON = "no pair chosen for the question or the image settled it; this skill reads what none named"


def fallback_skill(registry: Registry, searches: Sequence[Step], question: str) -> str | None:
    """The skill to try once more now, or None: a ``fallback`` skill not yet tried, when no search settled an
    answer (or none was made: the words and the image named no skill) and the question is not yes/no."""
    if any(s.settled_answer is not None for s in searches):
        return None
    if answer_form(question).kind == "yesno":
        return None  # "Does the figure show a circle?": a word not printed is no "No"
    tried = {s.skill for s in searches}
    for loaded in registry.skills:
        if loaded.spec.fallback and loaded.spec.name not in tried:
            return loaded.spec.name
    return None
