"""Counting the coloured shapes that stand out of a busy picture: "theres some coloured shapes hidden in this, how
many are there", "how many brightly coloured shapes can you find (ignore the grey stuff)".

On a photograph or a cluttered ground the shape-counting tools, which segment drawings, would count the clutter.
A person counts what stands out instead: the vivid blobs, each plainly unlike the ground. The tiled search for any
vivid shape (``zoom.find_region``) scores every blob; the count is of those scoring at least ``STANDOUT_SCORE``,
and only when a clear gap (``STANDOUT_GAP``) parts the weakest of them from the best of the rest. Blobs of the
clutter scoring near the counted ones, or more stand-outs than a search returns, leave the count open.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from PIL import Image

from skills.base import ToolTrace
from skills.common import colours_in, shape_in
from vision_tools.zoom import SearchResult, find_region

#: The least search score of a counted stand-out (a flat needle on gravel scores 0.93-0.96; clutter up to 0.76).
STANDOUT_SCORE = 0.85
#: How far below the weakest stand-out the best of the rest must score.
STANDOUT_GAP = 0.1
#: How many candidates the search returns; as many stand-outs as that may be more still.
MOST = 16
#: Confidence of a count with a clear gap.
SURE = 0.9

_STANDOUTS = re.compile(r"\b(?:colou?r(?:ed|ful)|bright(?:ly)?(?:\s+colou?red)?|vivid(?:ly)?(?:\s+colou?red)?)\s+"
                        r"(?:shapes?|blobs?|spots?|needles?)\b|\b(?:shapes?|needles?)\s+(?:hidden|hiding)\b", re.I)
_IGNORING = re.compile(r"\bignor(?:e|ing)\s+(?:the\s+|all\s+the\s+)?(?:grey|gray|brown|dull|background|clutter)\b"
                       r"[^.?!)]*", re.I)
#: What narrows the shapes counted ("… are triangles", "besides the stars", "that are red"): a count of some.
_NARROWED = re.compile(r"\b(?:besides|except|other than|apart from|not|which|that|are\s+(?:red|blue|green|yellow|"
                       r"orange|purple|pink)|are\s+\w+s\b)", re.I)


@dataclass(frozen=True)
class StandoutCount:
    count: int | None
    confidence: float
    missing: str | None
    search: SearchResult


def asks_for_standouts(question: str) -> bool:
    """Whether ``question`` counts the coloured shapes of a picture, whatever their kind or colour: a count asked,
    naming no kind, colour or exception."""
    # "(ignore the grey stuff)": the clutter the stand-outs are counted apart from, which is what they do anyway.
    rest = _IGNORING.sub(" ", _STANDOUTS.sub(" ", question))
    return _STANDOUTS.search(question) is not None and re.search(r"\bhow many\b|\bcount\b|\bnumber of\b", question,
                                                                 re.I) is not None \
        and shape_in(rest) is None and not colours_in(rest) and not _NARROWED.search(rest)


def count_standouts(image: Image.Image, trace: ToolTrace) -> StandoutCount:
    """How many vivid shapes stand out of ``image``, or why that cannot be told."""
    search = trace.call("zoom.find_region", find_region, image, "shape", max_results=MOST)
    # The score holds how vivid a blob is: a grey or dull blob of the ground scores low whatever its label.
    scores = sorted((m.score for m in search.matches), reverse=True)
    standing = [s for s in scores if s >= STANDOUT_SCORE]
    if not standing:
        return StandoutCount(None, 0.0, "no coloured shape stands out of the picture", search)
    if len(search.matches) >= MOST and all(m.score >= STANDOUT_SCORE for m in search.matches):
        return StandoutCount(None, 0.0, f"at least {MOST} coloured shapes stand out: more than the search returns",
                             search)
    rest = [s for s in scores if s < STANDOUT_SCORE]
    if rest and standing[-1] - rest[0] < STANDOUT_GAP:
        return StandoutCount(None, 0.0, (
            f"a blob of the picture scores {rest[0]:.2f}, near the weakest coloured shape counted ({standing[-1]:.2f}):"
            " whether it is one cannot be told"), search)
    return StandoutCount(len(standing), SURE, None, search)
