"""Facts of named drawn shapes that a person reads at a glance: whether one is filled or only an outline ("is the
pentagon filled in or just an outline?"), which half of the image it is in ("is the yellow triangle in the left
half or the right half?"), and which of two is bigger ("which is bigger, the hexagon or the diamond?").

Each shape the question names is found by segmentation (``count_shapes``, which measures each shape's own area
and says whether it is filled), by its kind and, when given, its colour, and must be the only such shape: "the
circle" among three circles is none of them. A side is called only when the shape's centre is clearly off the
middle (``CLEAR_SHARE`` of the image), a size only when one area is ``CLEAR_RATIO`` times the other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from PIL import Image

from skills.base import ToolTrace
from skills.common import COLOUR_WORDS, colours_in, shape_in
from vision_tools.detection import CountResult, Detection, count_shapes
from vision_tools.image.shape_words import DIAMOND_TILT

#: How far off the middle (share of the image's width or height) a centre must be to lie in one half.
CLEAR_SHARE = 0.05
#: How many times the smaller area the bigger of two shapes must have to be called bigger.
CLEAR_RATIO = 1.5
#: How sure a reading of one clear shape is (the shape's own score may lower it).
SURE = 0.9

_THING = rf"(?:the\s+)?(?P<{{name}}>(?:(?:{'|'.join(COLOUR_WORDS)})\s+)?[a-z]+)"
#: "is the heart filled in or just an outline", "Is the blue star filled or outline? (A) filled (B) outline"
_FILL_Q = re.compile(r"\b(?:is|are)\s+" + _THING.format(name="a") + r"\s+(?:shape\s+)?(?:filled(?:\s+in)?|solid|"
                     r"colou?red\s+in|hollow|outlined|an?\s+outline|just\s+an?\s+outline)\s*,?\s+or\s+(?:just\s+|only\s+)?"
                     r"(?:an?\s+)?(?:filled|solid|hollow|outline|outlined|unfilled|not\s+filled|shaded)\b", re.I)
_OUTLINE_WORD = re.compile(r"\b(?:outline|outlined|hollow|empty|unfilled)\b", re.I)
_FILLED_WORD = re.compile(r"\b(?:filled|solid|shaded)\b", re.I)
#: "is the orange rectangle on the left or the right side?", "in the top half or bottom half of the picture"
_SIDE_Q = re.compile(r"\b(?:is|are)\s+" + _THING.format(name="a") + r"\s+(?:shape\s+)?(?:on|in|at|towards?)\s+"
                     r"(?:the\s+)?(?P<first>left|right|top|bottom|upper|lower)\b[^?]*?\bor\b[^?]*?"
                     r"\b(?P<second>left|right|top|bottom|upper|lower)\b", re.I)
#: "which is bigger, the hexagon or the diamond?", "which one is smaller: the red circle or the blue star"
_BIGGER_Q = re.compile(r"\bwhich\s+(?:one\s+|shape\s+)?(?:is|looks|appears)\s+(?P<rel>bigger|larger|smaller)\b[,:]?\s*"
                       + _THING.format(name="a") + r"\s+or\s+" + _THING.format(name="b") + r"\b", re.I)
_SIDES = {"left": "left", "right": "right", "top": "top", "bottom": "bottom", "upper": "top", "lower": "bottom"}


@dataclass(frozen=True)
class ShapeFact:
    """The answer (in the question's own words where it offers them), how sure, or what is missing."""

    answer: str | None
    confidence: float
    missing: str | None
    found: list[CountResult]


def asks_shape_fact(question: str) -> bool:
    """Whether ``question`` asks one of this module's facts about shapes it names (cheap: its words only)."""
    return any(_names_shapes(match) for match in (_FILL_Q.search(question), _SIDE_Q.search(question),
                                                  _BIGGER_Q.search(question)))


def shape_fact(question: str, image: Image.Image, trace: ToolTrace) -> ShapeFact:
    """Whether the named shape is filled, which half it is in, or which of two is bigger; or why not."""
    if (fill := _FILL_Q.search(question)) is not None and _names_shapes(fill):
        return _fill(question, fill.group("a"), image, trace)
    if (side := _SIDE_Q.search(question)) is not None and _names_shapes(side):
        return _side(side, question[side.end():], image, trace)
    if (bigger := _BIGGER_Q.search(question)) is not None and _names_shapes(bigger):
        return _bigger(bigger, image, trace)
    return ShapeFact(None, 0.0, "the question asks nothing of a named shape that the tools read", [])


#: Words for a drawn thing of any kind, which its colour alone picks out ("the red thing").
_ANY_KIND = frozenset(["thing", "shape", "one", "object", "blob"])


def _names_shapes(match: re.Match[str] | None) -> bool:
    return match is not None and all(_a_shape(match.group(g)) for g in ("a", "b") if g in match.groupdict())


def _a_shape(name: str) -> bool:
    """Whether ``name`` picks a drawn shape: by its kind ("the star"), or by its colour ("the red thing")."""
    return shape_in(name) is not None or (bool(colours_in(name)) and name.split()[-1] in _ANY_KIND)


def one_shape(name: str, image: Image.Image, trace: ToolTrace) -> tuple[Detection | None, CountResult, str | None]:
    """The one shape ``name`` ("the blue star", "the diamond") names, the count that found it, or what is missing."""
    shape = shape_in(name)
    colours = colours_in(name)
    found = trace.call("counting.count_shapes", count_shapes, image, shape=shape,
                       colour=colours[0] if colours else None)
    shapes = found.detections
    if re.search(r"\bdiamonds?\b", name, re.I):
        # A diamond is a square on its corner: the classifier names it a square and measures its tilt.
        shapes = [d for d in shapes if float(d.extra.get("tilt", 0.0)) >= DIAMOND_TILT]
    if not shapes:
        return None, found, f"no {name} was found"
    if len(shapes) > 1:
        return None, found, f"{len(shapes)} shapes could be the {name}, and the question does not say which"
    return shapes[0], found, None


def _fill_word(question: str, filled: bool) -> str:
    """The question's own word for how the shape is drawn ("solid", "hollow"), else "filled" or "outline"."""
    said = (_FILLED_WORD if filled else _OUTLINE_WORD).search(question)
    return said.group(0).lower() if said else ("filled" if filled else "outline")


def _fill(question: str, name: str, image: Image.Image, trace: ToolTrace) -> ShapeFact:
    shape, found, missing = one_shape(name, image, trace)
    if shape is None:
        return ShapeFact(None, 0.0, missing, [found])
    filled = shape.extra.get("filled")
    if not isinstance(filled, bool):
        return ShapeFact(None, 0.0, f"whether the {name} is filled was not measured", [found])
    return ShapeFact(_fill_word(question, filled), min(SURE, shape.score), None, [found])


def _side(match: re.Match[str], after: str, image: Image.Image, trace: ToolTrace) -> ShapeFact:
    """Which half the one named shape's centre lies in; ``after`` is the question's rest after the match."""
    name = match.group("a")
    first, second = _SIDES[match.group("first").lower()], _SIDES[match.group("second").lower()]
    offered = re.findall(r"\b(?:left|right|top|bottom|upper|lower)\b", match.group(0) + " " + after[:20], re.I)
    if {first, second} not in ({"left", "right"}, {"top", "bottom"}) or len(offered) != 2 or \
            re.match(r"\s*(?:(?:hand\s+)?side\s+|half\s+)?of\b(?!\s+(?:the|this)\s+(?:picture|image|pic|photo|"
                     r"drawing|page|screen)\b)", after):
        # "in the upper right or the lower left corner", "on the left or the right of the square": no halves.
        return ShapeFact(None, 0.0, "the two places the question offers are not the two halves of the image", [])
    shape, found, missing = one_shape(name, image, trace)
    if shape is None:
        return ShapeFact(None, 0.0, missing, [found])
    across = first in ("left", "right")
    centre = shape.box.center[0 if across else 1]
    middle = (image.width if across else image.height) / 2
    if abs(centre - middle) < CLEAR_SHARE * (image.width if across else image.height):
        return ShapeFact(None, 0.0, f"the {name} lies about the middle of the image", [found])
    if across:
        return ShapeFact("left" if centre < middle else "right", min(SURE, shape.score), None, [found])
    return ShapeFact("top" if centre < middle else "bottom", min(SURE, shape.score), None, [found])


def _bigger(match: re.Match[str], image: Image.Image, trace: ToolTrace) -> ShapeFact:
    names = [match.group("a"), match.group("b")]
    shapes: list[Detection] = []
    counts: list[CountResult] = []
    for name in names:
        shape, found, missing = one_shape(name, image, trace)
        counts.append(found)
        if shape is None:
            return ShapeFact(None, 0.0, missing, counts)
        shapes.append(shape)
    if shapes[0].box == shapes[1].box:
        return ShapeFact(None, 0.0, f"the {names[0]} and the {names[1]} were found as one shape", counts)
    areas = [_area(s) for s in shapes]
    if max(areas) < CLEAR_RATIO * min(areas):
        return ShapeFact(None, 0.0, f"the {names[0]} and the {names[1]} are too near in size to tell", counts)
    bigger = areas[0] > areas[1]
    first = bigger if match.group("rel").lower() in ("bigger", "larger") else not bigger
    return ShapeFact(f"the {names[0] if first else names[1]}", min(SURE, *(s.score for s in shapes)), None, counts)


def _area(shape: Detection) -> float:
    area = shape.extra.get("area")
    return float(area) if isinstance(area, int | float) else float(shape.box.area)
