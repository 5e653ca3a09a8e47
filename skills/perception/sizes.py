"""Which drawn shape is the biggest or the smallest: "Which shape is the biggest?", "what colour is the largest
shape?", "which is the smallest shape and what colour is it?", "the biggest circle, what colour?".

The shapes are those the counting tools find on a drawing (``count_shapes``), measured by the area inside their
outline, as a person judges size (a triangle fills half its box). An extreme is named only when it is clear: at
least ``CLEAR_RATIO`` times the runner-up's area (or a ``CLEAR_RATIO``-th of it, for the smallest), and, for the
biggest, no piece the tools could not name (a heart, a blob) as large, which might be the shape meant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from PIL import Image

from skills.base import ToolTrace
from skills.common import colours_in, shape_in
from vision_tools.detection import CountResult, Detection, count_shapes

#: How many times the runner-up's area the extreme must have (or the runner-up the extreme's, for the smallest).
CLEAR_RATIO = 1.6
#: Confidence of a clear extreme (the shapes' own scores may lower it).
SURE = 0.9
#: A "shape" whose box covers this share of the image is the ground.
GROUND_SHARE = 0.8

_SIZE = re.compile(r"\b(?:(?P<big>biggest|largest|hugest)|(?P<small>smallest|tiniest|littlest))\b", re.I)
#: What is asked of the extreme: its kind ("which shape", "what kind of shape"), its colour, or both.
_ASKS_KIND = re.compile(r"\b(?:which|what)\s+(?:kind of |type of |sort of )?shape\b|\bwhich (?:one|is)\b|"
                        r"\bwhat(?:'s|s|\s+is)\s+the (?:biggest|largest|smallest|tiniest)\b", re.I)
_ASKS_COLOUR = re.compile(r"\bcolou?r\b", re.I)
_WHICH_ONE = re.compile(r"\bwhich\s+(?P<noun>[a-z]+?)s?\s+(?:is|was|looks)\s+(?:the\s+)?(?:biggest|largest|hugest|"
                        r"smallest|tiniest|littlest)\b", re.I)
#: Shape names that are no answer to "which shape": the classifier's names for what it could not tell apart.
_NO_KIND = {"quadrilateral", "polygon", "other", "line", "shape"}
_FOUR_SIDED = {"square", "rectangle", "quadrilateral"}
#: The generic words for "a shape": the question names no kind with them.
_GENERIC = {"shape", "shapes", "object", "objects", "thing", "things", "one", "figure", "item"}


@dataclass(frozen=True)
class SizeAnswer:
    """The extreme's kind and/or colour, how sure, or what is missing."""

    answer: str | None
    confidence: float
    missing: str | None
    result: CountResult | None


def asks_about_size(question: str) -> bool:
    """Whether ``question`` asks which shape is the biggest (smallest), or that shape's colour."""
    size = _SIZE.search(question)
    if size is None:
        return False
    if (which := _WHICH_ONE.search(question)) is not None and shape_in(which.group("noun")) is not None:
        return True  # "Which circle is the largest?": one of the circles, by its colour or its place
    after = question[size.end():size.end() + 30].lower().split()
    named = bool(after) and (after[0].strip("?.,!") in _GENERIC or shape_in(after[0]) is not None)
    return bool(_ASKS_KIND.search(question) or _ASKS_COLOUR.search(question)) and (
        named or re.search(r"\b(?:shape|one)\b", question, re.I) is not None)


def size_answer(question: str, image: Image.Image, trace: ToolTrace, by_colour: bool = False) -> SizeAnswer:
    """The biggest (smallest) shape's kind, colour, or both, as ``question`` asks (``by_colour``: its colour, which
    the options offer); or why not."""
    size = _SIZE.search(question)
    if size is None:
        return SizeAnswer(None, 0.0, "the question asks for no size", None)
    biggest = size.group("big") is not None
    kind = shape_in(question)
    colours = [c for c in colours_in(question)]
    found = trace.call("counting.count_shapes", count_shapes, image, kind, colours[0] if len(colours) == 1 else None)
    ground = GROUND_SHARE * image.width * image.height
    # A textured ground may be traced as one huge rectangle: it is where the shapes are, not one of them.
    shapes = [d for d in found.detections if _area(d) > 0 and d.box.area < ground]
    word = size.group(0).lower()
    if len(shapes) < 2:
        return SizeAnswer(None, 0.0, f"fewer than two shapes{' of that kind' if kind else ''} were found, so none "
                                     f"is the {word}", found)
    ranked = sorted(shapes, key=_area, reverse=biggest)
    first, second = ranked[0], ranked[1]
    ratio = _area(first) / _area(second) if biggest else _area(second) / _area(first)
    if ratio < CLEAR_RATIO:
        return SizeAnswer(None, 0.0, f"the {word} two shapes ({_name(first)}, {_name(second)}) are too near in size "
                                     "to tell which is meant", found)
    if biggest and found.largest_other >= _area(first) / CLEAR_RATIO:
        return SizeAnswer(None, 0.0, "a piece of the drawing that the tools cannot name is about as large, and "
                                     "may be the shape meant", found)
    # "Which circle is the largest?" names the kind: which one is told by its colour.
    which = _WHICH_ONE.search(question)
    asks_colour = by_colour or bool(_ASKS_COLOUR.search(question)) or (
        which is not None and shape_in(which.group("noun")) is not None)
    asks_kind = bool(_ASKS_KIND.search(question)) and kind is None
    if asks_colour and first.colour is None:
        return SizeAnswer(None, 0.0, f"the {word} shape's colour has no name in the palette", found)
    if (asks_kind or not asks_colour) and first.label in _NO_KIND:
        # A rhombus named "quadrilateral" had been the answer to "whats the smallest shape" (a diamond).
        return SizeAnswer(None, 0.0, f"the {word} shape is a {first.label}, which names no kind a person would",
                          found)
    label = first.label
    tilt = first.extra.get("tilt")
    if label in _FOUR_SIDED and isinstance(tilt, int | float) and tilt >= 15:
        # A four-sided shape on its corner is a "diamond" to a person; a rhombus had been named "rectangle".
        if label == "square" and tilt >= 35:
            label = "diamond"
        elif asks_kind or not asks_colour:
            return SizeAnswer(None, 0.0, f"the {word} shape is four-sided and tilted ({tilt:.0f}°): whether a person "
                                         "would call it a diamond, a rhombus or a rectangle cannot be told", found)
    parts = [first.colour if asks_colour else None, label if asks_kind or not asks_colour else None]
    return SizeAnswer(" ".join(p for p in parts if p), min(SURE, first.score), None, found)


def _area(detection: Detection) -> float:
    area = detection.extra.get("area")
    return float(area) if isinstance(area, int | float) else float(detection.box.area)


def _name(detection: Detection) -> str:
    return f"{detection.colour or ''} {detection.label}".strip()
