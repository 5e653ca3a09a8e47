"""Shapes marked with a letter or a digit: "what letter is in the hexagon?", "which shape has the M in it?", "what
colour is the shape with the R?".

The shape classifier (``count_shapes``) finds the shapes and OCR reads the marks (one letter or digit each). OCR's
box around one letter is often far larger than the letter, so a mark's holder is told by the shapes alone: the
largest shape whose box holds the mark's centre, other than the glyph itself traced as a shape (inside OCR's box
and well smaller than it), so a letter beside every shape has none. A second shape nearly as large holding the
centre too (shapes nested) makes the holder unclear. A page or a frame (half the image or more, a box holding two
shapes or more, or one a quarter its size) holds no mark. Each answer needs exactly one: one shape of the kind
asked, holding one mark read surely (another such shape may hold a mark OCR missed), or one shape holding the mark
asked; anything else is no answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from PIL import Image

from skills.base import ToolTrace
from skills.common import colours_in, shape_in
from vision_tools.detection import CountResult, Detection, count_shapes
from vision_tools.image import Box
from vision_tools.text import OcrLine, OcrResult, read_text_cached

_MARK = r"(?:the\s+|an?\s+)?(?:letter\s+|number\s+|digit\s+)?['\"]?(?P<mark>[A-Za-z0-9])['\"]?"
#: "what letter is in the hexagon?", "which number is inside the red circle"
_MARK_IN_SHAPE = re.compile(r"\b(?:what|which) (?:letter|number|digit|character)\b.*?\b(?:in|inside|on|within)\s+"
                            r"(?:the\s+)?(?P<target>[a-z][a-z ]*?)\s*\??\s*$", re.I)
#: "which shape has the M in it?", "what shape contains the letter K"
_SHAPE_WITH_MARK = re.compile(rf"\b(?:which|what) shape\b.*?\b(?:has|holds|contains|shows|is marked)\s+{_MARK}"
                              r"(?:\s+(?:in|on|inside)(?:\s+it)?)?\s*\??\s*$", re.I)
#: "what colour is the shape with the R?", "what color is the one containing 7"
_COLOUR_WITH_MARK = re.compile(rf"\bcolou?r\b.*?\b(?:shape|one|thing)\s+(?:with|holding|containing|that has|marked)"
                               rf"\s+{_MARK}(?:\s+(?:in|on|inside)(?:\s+it)?)?\s*\??\s*$", re.I)
#: A second shape holding the mark's centre this large beside the first (share of its area): shapes nested.
NESTED = 0.35
#: Shapes inside a box, each at least this share of its area, that make it a frame when two or more.
FRAMED = 0.05
#: A shape of the kind asked this large beside the holder (share of its area) may hold a mark OCR missed.
RIVAL_AREA = 0.25
#: Shape names the classifier may give one drawn shape: a circle drawn slightly squashed is an ellipse.
_FAMILIES = ({"circle", "ellipse", "oval"}, {"square", "rectangle", "diamond", "rhombus", "parallelogram", "trapezoid"},
             {"pentagon", "hexagon", "heptagon", "octagon", "polygon"})
#: A glyph traced as a shape covers about a third of OCR's box around it; a holder as much or more.
GLYPH_SHARE = 0.6
#: A shape holding the centre of one this share of its area or more is a frame of shapes, not one shape.
LARGE_HELD = 0.25
#: OCR confidence a mark needs to be answered (a "K" read as "R" came at 0.63).
SURE_MARK = 0.9
#: A box covering this share of the image or more is the page, not a shape on it.
PAGE_SHARE = 0.5


@dataclass
class MarkAnswer:
    """The answer (or None and why not), how sure, and the tools' results to show."""

    answer: str | None
    confidence: float
    missing: str | None
    results: list[CountResult | OcrResult]


def asks_about_marks(question: str) -> bool:
    """Whether ``question`` asks which mark a shape holds, or which shape holds a mark."""
    return any(p.search(question) for p in (_MARK_IN_SHAPE, _SHAPE_WITH_MARK, _COLOUR_WITH_MARK))


def marked_shape_answer(question: str, image: Image.Image, trace: ToolTrace) -> MarkAnswer:
    """The mark, shape or colour ``question`` asks about, from the shapes and the marks read inside them."""
    shapes = trace.call("counting.count_shapes", count_shapes, image)
    text = trace.call("ocr.read_text", read_text_cached, image)
    results: list[CountResult | OcrResult] = [shapes, text]
    # A mark is one letter or digit: a "3" read as "日" is no mark.
    marks = [line for line in text.lines if re.fullmatch(r"[A-Za-z0-9]", line.text.strip(" .:'\""))]
    held = {id(mark): _holder(mark, shapes.detections, image.size) for mark in marks}
    if (asked := _MARK_IN_SHAPE.search(question)) is not None:
        target = asked.group("target")
        shape, colours = shape_in(target), colours_in(target)
        if shape is None:
            return MarkAnswer(None, 0.0, f"the question names no shape to look inside ({target!r})", results)
        if extra := _other_words(target, shape):
            # "the left circle", "the bigger square": a choice among shapes these tools do not make
            return MarkAnswer(None, 0.0, f"the question picks the {shape} by {' '.join(extra)!r}, which these "
                                         "tools do not tell", results)
        if any(held[id(m)] is None for m in marks if m.confidence >= SURE_MARK):
            # A mark without a clear holder (a half-hidden circle of a Venn diagram) may be in a shape of the kind
            # asked that the classifier did not name.
            return MarkAnswer(None, 0.0, "a mark was read outside every shape the tools found, so a shape of the "
                                         "kind asked may have been missed", results)
        kind = [d for d in shapes.detections if d.label == shape and (not colours or d.colour == colours[0])]
        inside = [m for m in marks if (d := held[id(m)]) is not None and d in kind]
        holder = held[id(inside[0])] if len(inside) == 1 else None
        # A shape the classifier may have named otherwise (an ellipse for a circle) may be the one meant.
        alike = [d for d in shapes.detections if _family(d.label) == _family(shape)
                 and (not colours or d.colour == colours[0])]
        rivals = [d for d in alike if holder is not None and d is not holder
                  and d.box.area >= RIVAL_AREA * holder.box.area]
        if holder is None or rivals or inside[0].confidence < SURE_MARK:
            return MarkAnswer(None, 0.0, f"{len(inside)} mark(s) were read surely inside one of {len(alike)} "
                                         f"{target}(s); the question needs exactly one", results)
        return MarkAnswer(inside[0].text.strip(" .:'\""), min(0.95, inside[0].confidence), None, results)
    asked = _SHAPE_WITH_MARK.search(question) or _COLOUR_WITH_MARK.search(question)
    if asked is None:
        return MarkAnswer(None, 0.0, "the question asks nothing about marked shapes", results)
    wanted = asked.group("mark").casefold()
    same = [m for m in marks if m.text.strip(" .:'\"").casefold() == wanted]
    holder = held[id(same[0])] if len(same) == 1 and same[0].confidence >= SURE_MARK else None
    if holder is None:
        return MarkAnswer(None, 0.0, f"the mark {asked.group('mark')!r} was not read inside exactly one shape "
                                     f"({len(same)} read)", results)
    answer = holder.label if _SHAPE_WITH_MARK.search(question) else holder.colour
    if answer is None:
        return MarkAnswer(None, 0.0, "the shape holding the mark has no colour the palette names", results)
    return MarkAnswer(answer, min(0.95, same[0].confidence, holder.score), None, results)


def _family(label: str) -> str:
    """The family of shape names ``label`` belongs to (itself when it has none)."""
    return next((min(family) for family in _FAMILIES if label in family), label)


def _other_words(target: str, shape: str) -> list[str]:
    """The words of ``target`` other than colours, the shape's name and articles: "left" in "the left circle"."""
    words = re.findall(r"[a-z]+", target.lower())
    named = set(colours_in(target)) | {shape, shape + "s", "shape", "the", "a", "an", "one", "colour", "color"}
    return [w for w in words if w not in named and shape_in(w) != shape and not colours_in(w)]


def _holder(mark: OcrLine, shapes: list[Detection], size: tuple[int, int]) -> Detection | None:
    """The largest shape whose box holds the centre of ``mark``, unless another nearly as large does too; never a
    page or a frame."""
    cx, cy = mark.box.center
    page = PAGE_SHARE * size[0] * size[1]
    # The glyph itself, traced as a shape, lies within OCR's box around it and fills little of it.
    around = sorted((d for d in shapes if _holds(d.box, cx, cy) and d.box.area < page and not _frames(d, shapes)
                     and not _glyph(d.box, mark.box)), key=lambda d: d.box.area, reverse=True)
    if not around or (len(around) > 1 and around[1].box.area >= NESTED * around[0].box.area):
        return None
    return around[0]


def _frames(box_of: Detection, shapes: list[Detection]) -> bool:
    """Whether ``box_of`` holds two shapes or more of some size, or one of a quarter its size or more: a frame, a
    page, or outlines of several shapes traced as one (a circle's and a square's black rims read as a "hexagon"),
    not a shape with a mark."""
    held = [d.box.area / box_of.box.area for d in shapes if d is not box_of and _holds(box_of.box, *d.box.center)
            and d.box.area >= FRAMED * box_of.box.area]
    return len(held) >= 2 or any(share >= LARGE_HELD for share in held)


def _glyph(box: Box, mark: Box) -> bool:
    """Whether ``box`` is the mark's own glyph traced as a shape: inside OCR's box around the mark and well smaller
    (OCR's box around one letter may be as large as the shape holding it)."""
    return _within(box, mark) and box.area < GLYPH_SHARE * mark.area


def _within(inner: Box, outer: Box, slack: float = 0.1) -> bool:
    """Whether ``inner`` lies inside ``outer`` grown by ``slack`` of its size on every side."""
    dx, dy = slack * outer.width, slack * outer.height
    return inner.x0 >= outer.x0 - dx and inner.y0 >= outer.y0 - dy and inner.x1 <= outer.x1 + dx and \
        inner.y1 <= outer.y1 + dy


def _holds(box: Box, x: float, y: float) -> bool:
    return box.x0 <= x <= box.x1 and box.y0 <= y <= box.y1
