"""Diagram Reasoning skill: pixel-exact answers to low-level diagram questions (VLMs-are-blind style).

Each Level-2 sub-skill runs one diagram primitive from ``vision_tools.diagrams``. The answer takes the form the
question asks ("How many rows?" is one number; the ``(rows,columns)`` pair only when both are asked) and carries a
confidence from the tool's own evidence (the gap's distance from the touching threshold, undecided contacts,
cells that disagree with the lines, doubtful candidates, the OCR score), capped by how far the image is a drawing
at all: on a photograph the tools settle nothing and say so. When a tool finds nothing to measure (no grid, no
line of a named colour, no complete outline) the step says what is missing instead of answering.
"""

from __future__ import annotations

import re

from skills.answer_form import answer_form
from skills.base import SkillContext, SkillResult
from skills.common import colours_in, conclude, shape_in
from skills.evidence import check_kind, photo_missing, weighed
from skills.question_text import asks_about_relation, names_a_part
from vision_tools.diagrams import (
    ContactResult,
    CountResult,
    CrossingResult,
    GridResult,
    LetterResult,
    circles_touch,
    count_line_crossings,
    count_nested_squares,
    count_overlapping_shapes,
    grid_shape,
    highlighted_letter,
    is_line_drawing,
    line_colours,
)

_ROWS = re.compile(r"\brows?\b", re.IGNORECASE)
_ASKS_COUNT = re.compile(r"\bhow many\b|\bcount\b|\bnumber of\b", re.IGNORECASE)
_COLUMNS = re.compile(r"\bcol(?:umn)?s?\b", re.IGNORECASE)
#: Shapes the outline tracer counts; other named shapes are left to the Counting skill's segmentation.
_TRACED = ("circle", "ellipse", "triangle", "square", "rectangle", "pentagon", "hexagon", "heptagon", "octagon")
_DiagramResult = ContactResult | CrossingResult | GridResult | LetterResult | CountResult
_WHAT = {"circle_contact": "two circles", "intersection_counting": "two coloured lines", "grid": "a ruled grid",
         "highlighted_character": "a circled letter", "shape_counting": "outlined shapes"}


def run(ctx: SkillContext) -> SkillResult:
    kind = check_kind(ctx)
    level2 = ctx.level2.id
    if kind.is_photo:
        return conclude(ctx, [kind], None, missing=photo_missing("diagram tools", kind))
    picked = asks_about_relation(ctx.question) or names_a_part(ctx.question)
    if picked and level2 == "shape_counting":
        return conclude(ctx, [kind], None, missing=(f"the question counts only some shapes ('{picked}'); the outline "
                                                    "tracer counts every outline in the image"))
    try:
        result, answer, missing = _measure(ctx, level2)
    except ValueError as exc:  # the tool found nothing it can measure; the failed call stays in the trace
        return conclude(ctx, [kind], None,
                        missing=f"the diagram tools found no {_WHAT.get(level2, 'diagram')} to measure: {exc}")
    if answer is None:
        return conclude(ctx, [kind, result], None, missing=missing)
    return conclude(ctx, [kind, result], answer, confidence=weighed(result.confidence, kind))


def _measure(ctx: SkillContext, level2: str) -> tuple[_DiagramResult, str | None, str | None]:
    """Run the sub-skill's tool: (result, answer in the question's form or None, what is missing)."""
    question, image, trace = ctx.question, ctx.image, ctx.trace
    if level2 == "circle_contact":
        contact = trace.call("diagram.circles_touch", circles_touch, image)
        others = [word for word in _TRACED if word not in ("circle", "ellipse")
                  and re.search(rf"\b{word}s?\b", question, re.IGNORECASE)]
        if others:
            # "Does the green triangle touch the blue square?": the tool measures two circles, not those shapes.
            return contact, None, (f"the question is about a {' and a '.join(others)}; the contact tool measures "
                                   "the gap between two circles")
        return contact, contact.answer, None
    if level2 == "intersection_counting":
        named = list(dict.fromkeys(colours_in(question)))
        colours = named[:2] if len(named) >= 2 else ["blue", "red"]
        crossings = trace.call("diagram.count_line_crossings", count_line_crossings, image,
                               colours[0], colours[1])
        if len(named) < 2:
            drawn = trace.call("diagram.line_colours", line_colours, image)
            if set(drawn) - {"blue", "red"}:
                # Four lines of four colours: "where two lines cross" is every pair's crossings, not blue and red's.
                return crossings, None, (f"the question names no two lines, and lines of {len(drawn)} colours "
                                         f"({', '.join(drawn)}) are drawn; the tools count where two named lines "
                                         "cross")
        if crossings.absent:
            return crossings, None, f"no {' or '.join(crossings.absent)} line was found in the image"
        return crossings, crossings.answer, None
    if level2 == "grid":
        grid = trace.call("diagram.grid_shape", grid_shape, image)
        if not (_ROWS.search(question) or _COLUMNS.search(question) or answer_form(question).kind == "grid"):
            # "which quarter did we pull the least from the grid?" over a chart: the electricity grid, not a table's
            # rows and columns, which is all this tool counts.
            return grid, None, "the question asks about neither the rows nor the columns of a grid or table"
        if answer_form(question).kind not in ("count", "grid") and not _ASKS_COUNT.search(question):
            # "how far apart do the rows go" over a seed packet: a distance between rows, not how many there are.
            return grid, None, "the question asks something about the rows or columns other than how many there are"
        return grid, _grid_answer(question, grid), None
    if level2 == "highlighted_character":
        letter = trace.call("diagram.highlighted_letter", highlighted_letter, image)
        if not letter.letter:
            return letter, None, ("no circled letter was found (no coloured ring around a word, "
                                  "or no word read)")
        return letter, letter.answer, None
    shape = shape_in(question)
    if shape is None or shape not in _TRACED:
        what = f"a {shape}" if shape else "no shape"
        raise ValueError(f"the question names {what}; the outline tracer counts circles, squares and regular "
                         "polygons (triangle to octagon)")
    if colours := colours_in(question):
        # "How many blue pentagons?": the tracer follows outlines of every colour, and had counted a grey one too.
        raise ValueError(f"the question counts {colours[0]} {shape}s; the outline tracer counts outlines of any "
                         "colour")
    if not trace.call("image.is_line_drawing", is_line_drawing, image):
        # Round 39: "how many pentagons" was 5 over filled shapes, their edges traced as outlines.
        raise ValueError("the outline tracer counts shapes drawn as outlines, and these shapes are filled")
    if shape in ("square", "rectangle"):
        counted = trace.call("diagram.count_nested_squares", count_nested_squares, image)
    else:
        counted = trace.call("diagram.count_overlapping_shapes", count_overlapping_shapes, image,
                             shape="circle" if shape == "ellipse" else shape)
    if counted.count == 0:
        return counted, None, f"no complete {shape} outline was found in the image"
    if counted.doubtful > 1:
        # A grid of filled squares read as nested outlines: 7 kept and 6 doubtful is no count of 20.
        return counted, None, (f"{counted.doubtful} candidate {shape} outlines were doubtful beside the "
                               f"{counted.count} kept; the count cannot be trusted")
    return counted, counted.answer, None


def _grid_answer(question: str, grid: GridResult) -> str:
    """The count the question asks for: rows, columns, or the (rows,columns) pair when it asks for both."""
    rows, columns = bool(_ROWS.search(question)), bool(_COLUMNS.search(question))
    if answer_form(question).kind == "grid" or (rows and columns):
        return grid.answer
    return str(grid.rows if rows else grid.columns)
