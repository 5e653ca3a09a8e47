"""Diagram Reasoning skill: pixel-exact answers to low-level diagram questions (VLMs-are-blind style).

Each Level-2 sub-skill runs one diagram primitive from ``vision_tools.diagrams.letters``; its ``answer`` is exact, so the
tools expert settles the question, and a neural expert gets the measurement and the marked image to check.
"""

from __future__ import annotations

from skills.base import SkillContext, SkillResult
from skills.common import colours_in, conclude, shape_in
from vision_tools.diagrams import (
    circles_touch,
    count_line_crossings,
    count_nested_squares,
    count_overlapping_shapes,
    grid_shape,
    highlighted_letter,
)


def run(ctx: SkillContext) -> SkillResult:
    level2, question, image, trace = ctx.level2.id, ctx.question, ctx.image, ctx.trace
    if level2 == "circle_contact":
        result = trace.call("diagram.circles_touch", circles_touch, image)
    elif level2 == "intersection_counting":
        colours = (colours_in(question) + ["blue", "red"])[:2] if len(set(colours_in(question))) >= 2 \
            else ["blue", "red"]
        result = trace.call("diagram.count_line_crossings", count_line_crossings, image, colours[0], colours[1])
    elif level2 == "grid":
        result = trace.call("diagram.grid_shape", grid_shape, image)
    elif level2 == "highlighted_character":
        result = trace.call("diagram.highlighted_letter", highlighted_letter, image)
    else:
        shape = shape_in(question) or "circle"
        if shape in ("square", "rectangle"):
            result = trace.call("diagram.count_nested_squares", count_nested_squares, image)
        else:
            result = trace.call("diagram.count_overlapping_shapes", count_overlapping_shapes, image, shape=shape)
    return conclude(ctx, [result], getattr(result, "answer", None))
