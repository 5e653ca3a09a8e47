"""Weighing tool evidence into a confidence, shared by the skills whose tools are made for drawings.

Pixel tools (diagram primitives, shape segmentation, colour-blob search) are exact on drawings and meaningless on
photographs, so a skill first asks what kind of image it has (``vision_tools.image.image_kind``, recorded as a tool
call): on a photograph it settles nothing and says why; on a drawing the tool's own confidence stands; in between
the confidence is capped. Reasons for missing evidence are written for the user: what the tools can do, and what
to configure for the rest.
"""

from __future__ import annotations

from PIL import Image

from skills.base import SkillContext
from vision_tools.image import CLEAR_DRAWING, ImageKind, degrain, image_kind
from vision_tools.image.ground import flatten_ground

#: Where a user learns how to add a neural expert; every "configure a VLM expert" hint points there.
EXPERTS_DOC = "docs/experts.md"


def check_kind(ctx: SkillContext) -> ImageKind:
    """Measure (and record) how far the image is a drawing."""
    return ctx.trace.call("image.kind", image_kind, ctx.image)


def drawing_view(ctx: SkillContext) -> tuple[ImageKind, Image.Image]:
    """The kind of image and the pixels the drawing tools read: the image itself, or for a drawing under grain
    (shapes on a noisy ground) its median-filtered copy, or for shapes on a textured ground a copy with the ground
    made flat, and that copy's kind (both recorded)."""
    kind = check_kind(ctx)
    if kind.drawing >= CLEAR_DRAWING:
        return kind, ctx.image
    clean = ctx.trace.call("image.degrain", degrain, ctx.image)
    if clean is not None:
        return clean.kind, clean.image
    # Blotches as large as the shapes (cardboard, cloudy paper) outlast the median filter: the ground is flattened.
    flat = ctx.trace.call("image.flatten_ground", flatten_ground, ctx.image)
    return (kind, ctx.image) if flat is None else (flat.kind, flat.image)


def kind_cap(kind: ImageKind) -> float:
    """The most confidence a drawing tool's answer can have on an image of this kind: 1 on clear drawings,
    falling to 0.4 on photographs (below the default answering threshold of 0.5)."""
    return min(1.0, 0.4 + kind.drawing)


def weighed(confidence: float, kind: ImageKind) -> float:
    """A tool's own ``confidence`` weighed by how far the image is the kind the tool was made for."""
    return round(min(confidence, kind_cap(kind)), 3)


def photo_missing(tools: str, kind: ImageKind) -> str:
    """The reason a drawing tool does not answer on a photograph."""
    return (f"this looks like a photograph ({kind.flat_share:.0%} flat pixels, {kind.colours} colours), not a "
            f"drawing: the {tools} measure drawn lines and outlines on plain backgrounds; configure a VLM expert "
            f"(see {EXPERTS_DOC})")
