"""A shape searched for in every colour at once: "What colour is the hexagon?" on a busy photograph, where the
plain search for the shape scores only weak likenesses, is searched for as a red hexagon, a blue one and so on; the
one colour that holds a clear such shape is the answer's."""

from __future__ import annotations

from dataclasses import replace

from PIL import Image

from vision_tools.image.colour import CHROMATIC
from vision_tools.zoom import SearchResult, find_region

#: A colour's shape counts in a sweep from this search score (the needle's own scored 0.93; clutter 0.6).
SWEEP_SCORE = 0.8


def sweep_colours(image: Image.Image, shape: str) -> SearchResult | None:
    """The search for ``shape`` in each chromatic colour: the one colour holding such shapes scoring at least
    ``SWEEP_SCORE``, or None when no colour or several do."""
    held = []
    for colour in sorted(CHROMATIC):
        result = find_region(image, f"{colour} {shape}", max_results=3)
        strong = [m for m in result.matches if m.score >= SWEEP_SCORE]
        if strong:
            held.append(replace(result, matches=strong))
    return held[0] if len(held) == 1 else None
