"""Embodied Scene skill: zoom into the focal interaction area and read any labels, for a reasoning expert.

Which action a robot should take is a judgement no pixel tool settles, so the tools expert reports the evidence
and declines. The focal area is the most salient (highest-contrast) tile of the scene, upscaled; for the pointing
and part-localisation sub-skill the labels near it are read too.
"""

from __future__ import annotations

import numpy as np

from skills.base import SkillContext, SkillResult
from skills.common import conclude
from skills.evidence import EXPERTS_DOC
from vision_tools.image import Box, tile_boxes
from vision_tools.text import read_text
from vision_tools.zoom import crop


def run(ctx: SkillContext) -> SkillResult:
    image, trace = ctx.image, ctx.trace
    focus = _salient_box(image)
    zoomed = trace.call("zoom.crop", crop, image, focus, pad=0.15)
    results: list = [zoomed]
    if ctx.level2.id == "part_localization":
        results.append(trace.call("ocr.read_text", read_text, image))
    outcome = conclude(ctx, results, None, missing=(
        "the tools cannot settle what a robot should do or what an action leads to: that is a judgement about the "
        "scene (they zoomed into its most detailed region, shown as evidence); configure a VLM expert "
        f"(see {EXPERTS_DOC})"))
    outcome.extra_images = [zoomed.image]
    return outcome


def _salient_box(image) -> Box:
    """The tile (a quarter of the short side, half-overlapping) with the most local contrast."""
    gray = np.asarray(image.convert("L"), dtype=np.float32)
    side = max(32, min(image.size) // 2)
    best, best_score = Box(0, 0, image.width, image.height), -1.0
    for box in tile_boxes(image.size, tile_size=side, overlap=side // 2):
        x0, y0, x1, y1 = box.as_list()
        score = float(gray[y0:y1, x0:x1].std())
        if score > best_score:
            best, best_score = box, score
    return best
