"""The part of the image a question narrows its object to: "what colour is the small thing in the top left?",
"the shape on the right", "the circle at the bottom".

A question naming such a part picks, among the matches the search found, those whose centre lies in it (a half of
the image for a side, a quarter for a corner). A question asking where something is names no part: it asks for one, and ``name_place`` answers it. "To the left of the square" places it beside
another thing, which is no part of the image either.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from vision_tools.image import Box
from vision_tools.zoom import position, quadrant

_ZONE = re.compile(r"\b(?:in|at|on|near|towards?|to)\s+(?:the\s+)?(?:very\s+)?"
                   r"(?P<vertical>top|upper|bottom|lower)?[- ]?(?P<horizontal>left|right)?"
                   r"(?:[- ]?hand)?(?:\s+(?:corner|side|part|half|edge|area))?\b"
                   # "to the left of the square" places it beside another thing, not in a part of the image
                   r"(?!\s+of\b)", re.I)
_VERTICAL = {"top": "top", "upper": "top", "bottom": "bottom", "lower": "bottom"}


class Zone(NamedTuple):
    """A part of the image: "top" or "bottom" (or None: either), "left" or "right" (or None)."""

    vertical: str | None
    horizontal: str | None

    def holds(self, box: Box, size: tuple[int, int]) -> bool:
        """Whether the centre of ``box`` lies in this part of an image of ``size``."""
        cx, cy = box.center
        if self.vertical is not None and (cy < size[1] / 2) != (self.vertical == "top"):
            return False
        return self.horizontal is None or (cx < size[0] / 2) == (self.horizontal == "left")

    def __str__(self) -> str:
        return "-".join(part for part in self if part)


def named_zone(question: str) -> Zone | None:
    """The part of the image ``question`` narrows its object to, or None when it names none."""
    for match in _ZONE.finditer(question):
        vertical, horizontal = match.group("vertical"), match.group("horizontal")
        if vertical or horizontal:
            return Zone(_VERTICAL[vertical.lower()] if vertical else None,
                        horizontal.lower() if horizontal else None)
    return None


def name_place(box: Box, rivals: list[Box], size: tuple[int, int], quadrants: bool) -> tuple[str | None, str | None]:
    """Where ``box`` is (a quadrant when ``quadrants``, else a corner, a side or the centre as people name them), or
    (None, why not): one of the ``rivals`` (matches as good) in another place, or a centre on a border between
    parts. A doubt is no
    answer rather than a lower score: a kind whose labelled answers were all right is calibrated to one P whatever
    the score (docs/trust.md §3), so "×0.4 for a rival" had still answered at 0.99."""
    def named(b: Box) -> str:
        return quadrant(b, size) if quadrants else position(b, size)[0]

    answer = named(box)
    if (elsewhere := next((named(r) for r in rivals if named(r) != answer), None)) is not None:
        return None, f"two as good are in different places ({answer}, {elsewhere}), and the question does not " \
                     "single one out"
    if (quadrants and _quadrant_margin(box, size) < 1.0) or (not quadrants and not position(box, size)[1]):
        return None, "it lies on a border between parts of the image, which no one names alike"
    return answer, None


def _quadrant_margin(box: Box, size: tuple[int, int]) -> float:
    """1 when the box's centre is clearly inside one quadrant; less when it sits near a dividing line."""
    cx, cy = box.center
    distance = min(abs(cx - size[0] / 2) / size[0], abs(cy - size[1] / 2) / size[1])
    return min(1.0, 0.5 + distance / 0.04)
