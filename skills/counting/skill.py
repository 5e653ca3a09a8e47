"""Counting skill: catalogue every instance with its box (so nothing is counted twice), then count.

The detector is chosen by what the question names and what the image is: faces and people go to OpenCV's
detectors; other objects go to YOLO when the expert entry configures weights (``options: {yolo_weights: PATH}``);
a named shape or colour goes to shape segmentation; an outline drawing of overlapping shapes (circles
or polygons drawn as thin strokes, nested squares) goes to the diagram primitives that trace outlines exactly.
"""

from __future__ import annotations

import re

import numpy as np

from skills.base import SkillContext, SkillResult
from skills.common import colours_in, conclude, shape_in
from vision_tools import detection, diagrams
from vision_tools.diagrams import as_rgb_array, ink_mask

_PEOPLE = re.compile(r"\b(people|persons?|pedestrians?|humans?|men|women|players)\b", re.IGNORECASE)
_FACES = re.compile(r"\bfaces?\b", re.IGNORECASE)


def run(ctx: SkillContext) -> SkillResult:
    question, image, trace = ctx.question, ctx.image, ctx.trace
    options = getattr(ctx.expert, "options", None) or {}
    if _FACES.search(question) or _PEOPLE.search(question):
        label = "face" if _FACES.search(question) else "person"
        result = trace.call("counting.detect_objects", detection.detect_objects, image, label)
        return conclude(ctx, [result], result.answer)
    shape, colours = shape_in(question), colours_in(question)
    noun = _counted_noun(question)
    if shape is None and noun and options.get("yolo_weights"):
        # A user who configured YOLO weights on this expert gets detection of any label the weights know.
        result = trace.call("counting.detect_objects", detection.detect_objects, image, noun, backend="yolo",
                            weights=options["yolo_weights"])
        return conclude(ctx, [result], result.answer)
    colour = colours[0] if colours else None
    result = trace.call("counting.count_shapes", detection.count_shapes, image, shape=shape, colour=colour)
    mixed_scene = any(not label.startswith("unclassified") for label in result.others)
    if shape is not None and colour is None and not mixed_scene and is_line_drawing(image):
        # One kind of outline, drawn overlapping (Olympic rings, nested squares): segmentation merges touching
        # outlines, so the diagram primitive that verifies each outline on the ink decides.
        if shape in ("square", "rectangle"):
            traced = trace.call("diagram.count_nested_squares", diagrams.count_nested_squares, image)
        else:
            traced = trace.call("diagram.count_overlapping_shapes", diagrams.count_overlapping_shapes, image,
                                shape=shape)
        return conclude(ctx, [result, traced], traced.answer,
                        note="Outline drawing of one kind of shape: the outline tracer's count is used.")
    if shape is None and colour is None:
        # "How many objects?" with nothing named: the catalogue is evidence, but what counts is a judgement call.
        return conclude(ctx, [result], result.answer if result.count else None,
                        note="No shape or colour was named; every classified shape was counted.")
    return conclude(ctx, [result], result.answer)


def _counted_noun(question: str) -> str | None:
    """The thing counted in "how many X ..." (singular), e.g. "cars" -> "car"."""
    match = re.search(r"\bhow many ([a-z]+)", question.lower())
    if not match:
        return None
    word = match.group(1)
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def is_line_drawing(image) -> bool:
    """Whether the image is thin outlines on a plain background (drawn shapes, not filled ones)."""
    rgb = as_rgb_array(image)
    ink = ink_mask(rgb)
    inked = int(ink.sum())
    if inked == 0 or inked > 0.35 * ink.size:
        return False
    import cv2  # local: only needed here

    core = cv2.erode(ink.astype(np.uint8), np.ones((9, 9), np.uint8))
    return int(core.sum()) < 0.15 * inked
