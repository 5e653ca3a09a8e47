"""Geometric skill: measure the figure's primitives (segments, circles, angles, point labels, printed numbers) and
hand them to a reasoning expert (paper S1.1: tool-derived structure cross-checked with the model's reasoning).

Figures in geometry problems are rarely to scale and the question needs deduction, so the tools expert reports the
primitives and declines to answer; the evidence still makes every measurement visible on replay.
"""

from __future__ import annotations

from skills.base import SkillContext, SkillResult
from skills.common import conclude
from skills.evidence import EXPERTS_DOC
from vision_tools.geometry import geometry_primitives


def run(ctx: SkillContext) -> SkillResult:
    primitives = ctx.trace.call("geometry.primitives", geometry_primitives, ctx.image)
    measured = (f"{len(primitives.lines)} segment(s), {len(primitives.circles)} circle(s), "
                f"{len(primitives.angles)} angle(s) and {len(primitives.labels)} point label(s)")
    return conclude(ctx, [primitives], None, missing=(
        f"the tools cannot settle a geometry question: it needs a deduction from the figure, which is rarely drawn "
        f"to scale; configure a VLM expert (see {EXPERTS_DOC})"), note=f"The tools measured {measured}.")
