"""Perception skill: find the thing the question is about (tiled search on large images), zoom in, then look.

The target is what the question names — a colour and/or a shape ("the red star"), or quoted text. Colour questions
name the colour of the found region; position questions report where it is (quadrant and box); "what is written
on the yellow label" reads the text inside the found region. The crops go to a neural expert as extra images.
"""

from __future__ import annotations

import re

from skills.base import SkillContext, SkillResult
from skills.common import colours_in, conclude, shape_in
from vision_tools.detection import count_shapes
from vision_tools.image import SEARCHABLE as SEARCHABLE_SHAPES
from vision_tools.image import name_colour
from vision_tools.text import read_text
from vision_tools.zoom import find_region, quadrant

_QUOTED = re.compile(r"[\"“']([^\"”']{2,40})[\"”']")
_COLOUR_Q = re.compile(r"\bwhat (colou?r)\b|\bwhich colou?r\b|\bcolou?r of\b", re.I)
_WHERE_Q = re.compile(r"\bwhere\b|\bquadrant\b|\bwhich (corner|side|part)\b|\blocated\b", re.I)
_TEXT_Q = re.compile(r"\b(written|say|says|word|text|label reads?)\b", re.I)


def run(ctx: SkillContext) -> SkillResult:
    question, image, trace = ctx.question, ctx.image, ctx.trace
    target = _target(question)
    if target is None:
        whole = trace.call("colour.name_colour", name_colour, image)
        answer = whole.name if _COLOUR_Q.search(question) else None
        return conclude(ctx, [whole], answer, note="No object was named; the whole image was examined.")
    shape = shape_in(target)
    if shape is not None and shape not in SEARCHABLE_SHAPES:
        # The tiled search knows few shapes; the shape classifier knows polygons, so it locates those instead.
        found = trace.call("counting.count_shapes", count_shapes, image, shape=shape,
                           colour=(colours_in(target) or [None])[0])
        boxes = [d.box for d in found.detections]
        crops: list = []
    else:
        found = trace.call("zoom.find_region", find_region, image, target)
        boxes = [m.box for m in found.matches]
        crops = [m.crop for m in found.matches[:2] if m.crop is not None]
    if not boxes:
        return conclude(ctx, [found], None, note=f"Nothing matching {target!r} was found.")
    best = boxes[0]
    results: list = [found]
    answer: str | None = None
    if _COLOUR_Q.search(question):
        colour = trace.call("colour.name_colour", name_colour, image, best)
        results.append(colour)
        answer = colour.name
    elif _WHERE_Q.search(question):  # before text: "in which quadrant is the word 'X' written?" asks where
        answer = quadrant(best, image.size)
    elif _TEXT_Q.search(question):
        text = trace.call("ocr.read_text", read_text, image, region=best)
        results.append(text)
        answer = text.text or None
    outcome = conclude(ctx, results, answer)
    outcome.extra_images = crops
    return outcome


def _target(question: str) -> str | None:
    """What to look for: quoted text, else '<colour> <shape>' (either part may be missing)."""
    quoted = _QUOTED.search(question)
    if quoted:
        return quoted.group(1)
    colours = colours_in(question)
    shape = shape_in(question)
    colour = colours[0] if colours and not _COLOUR_Q.search(question) else None
    words = [w for w in (colour, shape) if w]
    if not words and re.search(r"\blabel\b", question, re.I) and colours:
        words = [colours[0]]
    return " ".join(words) or None
