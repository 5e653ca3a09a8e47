"""Which skill recognises an image by its pixels alone, for the routing policies.

A skill may define ``image_prior(image) -> (score, reason)`` in its ``skill.py`` (Chart's quick look for axes and
flat colour areas: milliseconds, no OCR). A question's words may not name the kind of image ("Which day had the
most visitors?" under a bar chart), so the policies use the best such score of at least ``IMAGE_PRIOR_MIN``: first
for a multiple-choice question (its options say nothing about the image), and otherwise as one more plausible
skill after the skills the words name (one more try when they name two). A weaker look (at least ``IMAGE_PRIOR_FALLBACK``: a rendered graphic, not a
photograph, that the skill cannot place, such as a map with a colour scale) makes the skill one more plausible
pair for a multiple-choice question only, after the skills its words name. The recognising skill still answers
only what its tools settle.

Each look is a traced tool call (``skills.base.ToolTrace``, tool ``<skill>.image_prior``): under a rerun with
``--tools cached`` its stored output is reused like any tool's, so a rerun need not decode the image to route.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PIL import Image

from skills.base import ToolTrace

if TYPE_CHECKING:
    from agents.registry import Registry
    from storage.trace import Step

#: Smallest ``image_prior`` score that makes a skill plausible on the image's looks alone.
IMAGE_PRIOR_MIN = 0.7
#: Smallest score that makes a skill a last resort for a multiple-choice question (Chart: any rendered graphic).
IMAGE_PRIOR_FALLBACK = 0.3
#: Pairs a policy tries per question: the skills the words name first (and one fallback).
MAX_SEARCHES = 2


@dataclass(frozen=True)
class Recognised:
    """The skill that recognises the image, how strongly (0-1), and why."""

    skill: str
    score: float
    reason: str

    @property
    def weak(self) -> bool:
        """Below ``IMAGE_PRIOR_MIN``: plausible only as a last resort for a multiple-choice question."""
        return self.score < IMAGE_PRIOR_MIN

    def describe(self) -> str:
        return f"the image looks like its kind ({self.reason}, score {self.score:.2f})"


def recognised_skill(registry: Registry, image: Image.Image | None,
                     trace: ToolTrace | None = None) -> Recognised | None:
    """The skill whose ``image_prior`` scores ``image`` highest, when that score is at least
    ``IMAGE_PRIOR_FALLBACK`` (``Recognised.weak`` below ``IMAGE_PRIOR_MIN``).

    The looks run through ``trace`` (a fresh one if not given), which reuses stored outputs under a rerun and
    records each call, so a caller with a store can keep their outputs (``agents.replay.tool_cache.save_call_outputs``)."""
    if image is None:
        return None
    trace = trace if trace is not None else ToolTrace()
    best: Recognised | None = None
    for loaded in registry.skills:
        prior = loaded.image_prior
        if prior is None:
            continue
        score, why = trace.call(f"{loaded.spec.name}.image_prior", prior, image)
        if score >= IMAGE_PRIOR_FALLBACK and (best is None or score > best.score):
            best = Recognised(loaded.spec.name, float(score), str(why))
    return best


def search_limit(recognised: Recognised | None, searches: Sequence[Step], limit: int = MAX_SEARCHES) -> int:
    """How many pairs a question may try: ``limit``, and one more while the skill that plainly recognises the
    image (not a weak look) is untried, so two skills the words name ("How many books were read in Feb?": Counting,
    and OCR by "read") do not keep the chart's own skill from the question."""
    if recognised is None or recognised.weak or any(s.skill == recognised.skill for s in searches):
        return limit
    return limit + 1
