"""Text asked for by the drawn shape around it: "what number is written inside the hexagon?".

The text reader reads the whole image; a question that places the text inside a shape is answered only from the
text inside that shape, found by the drawing tools' shape segmentation. Over a drawing whose hexagon holds no text,
the reader's guess at an edge ("6 X" from the shapes' corners) had been the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from skills.base import SkillContext
from skills.common import colours_in, shape_in
from skills.evidence import drawing_view
from vision_tools.detection import count_shapes
from vision_tools.image import Box
from vision_tools.text import OcrResult, read_text

#: "written inside the hexagon", "the number in the red circle", "printed on the star".
_INSIDE = re.compile(r"\b(?:inside|in|within|on)\s+(?:the|that|this)\s+(?P<what>[a-z]+(?:\s+[a-z]+){0,2})", re.I)
_TEXT_ASKED = re.compile(r"\b(?:written|printed|says?|number|letter|word|text|label(?:led)?)\b", re.I)


@dataclass
class InsideShape:
    """The text read inside the one shape the question names, or what is missing."""

    text: str | None
    reading: OcrResult | None
    missing: str | None = None


def asks_for_text_inside_a_shape(question: str) -> str | None:
    """The shape (with its colour, if named) whose text ``question`` asks for, or None when it asks no such thing."""
    if not _TEXT_ASKED.search(question):
        return None
    for match in _INSIDE.finditer(question):
        words = match.group("what").lower().split()
        for end in range(1, len(words) + 1):  # "the red circle please": up to the shape word
            what = " ".join(words[:end])
            if shape_in(words[end - 1]) not in (None, "shape"):
                return what
    return None


def text_inside_shape(ctx: SkillContext, what: str) -> InsideShape:
    """The text inside the one drawn ``what`` ("red circle"), read in its box."""
    shape = shape_in(what)
    colours = colours_in(what)
    kind, image = drawing_view(ctx)
    if kind.is_photo:
        return InsideShape(None, None, f"the {what} the text is asked inside cannot be found on a photograph")
    found = ctx.trace.call("counting.count_shapes", count_shapes, image, shape=shape,
                           colour=colours[0] if colours else None)
    if not found.detections:
        return InsideShape(None, None, f"no {what} was found in the drawing")
    if len(found.detections) > 1:
        return InsideShape(None, None, f"{len(found.detections)} {what}s are in the drawing, and the question does "
                                       "not say inside which")
    box: Box = found.detections[0].box
    reading = ctx.trace.call("ocr.read_text", read_text, ctx.image, region=box)
    text = reading.text.replace("\n", " ").strip()
    if not re.search(r"[^\W_]", text):
        # "★" read off a star's own outline, or stray marks: no letter or digit is printed inside it.
        return InsideShape(None, reading, f"no text is printed inside the {what}")
    if re.search(r"\bnumber\b", ctx.question, re.I) and not re.search(r"\d", text):
        return InsideShape(None, reading, f"no number is printed inside the {what} (the tools read {text!r})")
    return InsideShape(text, reading)
