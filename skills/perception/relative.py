"""Which of two named things is higher, lower, further left or right: "which one is higher up in the image, the
blue square or the orange triangle?", "is the red circle left or right of the green star?".

Each thing is found by the tiled search (``zoom.find_region``) for its colour and shape, and must be one clear
match (no rival nearly as good elsewhere). The two centres must differ by ``CLEAR_SHARE`` of the image's height
(width) for "higher" ("left") to be called: two things on one level are neither.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from PIL import Image

from skills.base import ToolTrace
from skills.common import COLOUR_WORDS
from vision_tools.image import Box
from vision_tools.zoom import SearchResult, find_region

#: How far apart (share of the image's height or width) two centres must be to call one higher or further left.
CLEAR_SHARE = 0.05
#: The best match's least score, and the share of it a rival elsewhere must reach to make the thing ambiguous.
SURE_SCORE, RIVAL_SHARE = 0.8, 0.8

_THING = rf"(?:the\s+)?(?P<{{name}}>(?:(?:{'|'.join(COLOUR_WORDS)})\s+)?[a-z]+)"
_WHICH = re.compile(r"\bwhich\s+(?:one|shape|object|thing)?\s*(?:is|sits|lies|appears)?\s*(?P<rel>higher|lower|"
                    r"further\s+(?:up|down|left|right)|more\s+to\s+the\s+(?:left|right)|on\s+top|nearer\s+the\s+top|"
                    r"nearer\s+the\s+bottom)\b[^,?]*?[,:]?\s*" + _THING.format(name="a") + r"\s+or\s+"
                    + _THING.format(name="b"), re.I)
_SIDE = re.compile(r"\bis\s+" + _THING.format(name="a") + r"\s+(?:to\s+the\s+)?(?:left|right)\s+or\s+(?:to\s+the\s+)?"
                   r"(?:left|right)\s+of\s+" + _THING.format(name="b"), re.I)
_UP = {"higher", "further up", "on top", "nearer the top"}


@dataclass(frozen=True)
class RelativeAnswer:
    answer: str | None
    confidence: float
    missing: str | None
    found: list[SearchResult]


def asks_relative_position(question: str) -> bool:
    return bool(_WHICH.search(question) or _SIDE.search(question))


def relative_answer(question: str, image: Image.Image, trace: ToolTrace) -> RelativeAnswer:
    """The one of the two named things that is higher (lower, further left or right), or the side the first is on
    of the second; or what is missing."""
    which, side = _WHICH.search(question), _SIDE.search(question)
    match = which or side
    if match is None:
        return RelativeAnswer(None, 0.0, "the question names no two things to place against each other", [])
    names = [match.group("a").lower(), match.group("b").lower()]
    boxes: list[Box] = []
    found: list[SearchResult] = []
    for name in names:
        search = trace.call("zoom.find_region", find_region, image, name)
        found.append(search)
        best = search.matches[0] if search.matches else None
        if best is None or best.score < SURE_SCORE or best.label.split()[-1] == "region":
            return RelativeAnswer(None, 0.0, f"no clear {name} was found", found)
        rivals = [m for m in search.matches[1:] if m.score >= RIVAL_SHARE * best.score and m.box.iou(best.box) < 0.3]
        if rivals:
            return RelativeAnswer(None, 0.0, f"{len(rivals) + 1} things like the {name} are in the image", found)
        boxes.append(best.box)
    (ax, ay), (bx, by) = boxes[0].center, boxes[1].center
    width, height = image.size
    if side is not None:
        if abs(ax - bx) < CLEAR_SHARE * width:
            return RelativeAnswer(None, 0.0, f"the {names[0]} and the {names[1]} are about level across", found)
        return RelativeAnswer("left" if ax < bx else "right", 0.9, None, found)
    relation = re.sub(r"\s+", " ", match.group("rel").lower())
    vertical = relation in _UP or "down" in relation or "lower" in relation or "bottom" in relation
    gap = (ay - by) if vertical else (ax - bx)
    if abs(gap) < CLEAR_SHARE * (height if vertical else width):
        return RelativeAnswer(None, 0.0, f"the {names[0]} and the {names[1]} are about level", found)
    # Smaller y is higher; smaller x is further left.
    first_wins = gap < 0 if relation in _UP or "left" in relation else gap > 0
    return RelativeAnswer(f"the {names[0] if first_wins else names[1]}", 0.9, None, found)
