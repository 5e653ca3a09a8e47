"""Image basics every tool shares: safe loading, boxes, colour naming and the shape vocabulary.

``load_image`` checks size and format before decoding; ``Box`` is the one box type (original-image pixels);
``name_colour`` names a region's colour from a fixed palette; ``shape_words`` maps question words onto shapes;
``image_kind`` says how far an image is a drawing (what the pixel tools are made for) rather than a photograph.
"""

from vision_tools.image.boxes import Box, BoxFrame, tile_boxes, to_pixels
from vision_tools.image.colour import (
    ALIASES,
    NAMES,
    PALETTE,
    ColourResult,
    canonical_name,
    name_background,
    name_colour,
    spoken_name,
)
from vision_tools.image.kind import CLEAR_DRAWING, Degrained, ImageKind, degrain, image_kind
from vision_tools.image.loading import (
    MAX_BYTES,
    MAX_PIXELS,
    ImageError,
    load_image,
    require_rgb,
    shrink,
    to_rgb,
)
from vision_tools.image.shape_words import SEARCHABLE, SHAPES, first_shape, normalise_shape, shape_name

__all__ = [
    "ALIASES", "CLEAR_DRAWING", "Degrained", "degrain", "MAX_BYTES", "MAX_PIXELS", "NAMES", "PALETTE", "SEARCHABLE", "SHAPES", "Box", "BoxFrame",
    "ColourResult", "ImageError", "ImageKind", "canonical_name", "first_shape", "image_kind", "load_image", "name_background", "name_colour", "normalise_shape",
    "require_rgb", "shape_name", "shrink", "spoken_name", "tile_boxes", "to_pixels", "to_rgb",
]
