"""Science skill: read the figure's labels and printed text (OCR), then hand them to a reasoning expert.

Scientific questions need domain knowledge, so the tools expert only reports what the figure says and states that
it cannot settle the question; a neural expert gets the labels with their positions next to the image.
"""

from __future__ import annotations

from skills.base import SkillContext, SkillResult
from skills.common import conclude
from skills.evidence import EXPERTS_DOC
from vision_tools.text import read_text


def run(ctx: SkillContext) -> SkillResult:
    labels = ctx.trace.call("ocr.read_text", read_text, ctx.image)
    return conclude(ctx, [labels], None, missing=(
        f"the tools cannot settle a science question: it needs domain knowledge (they read {len(labels.lines)} "
        f"text label(s) from the figure, shown as evidence); configure a VLM expert (see {EXPERTS_DOC})"))
