"""Finding and zooming: crop, tile, where a box lies (quadrant, position), and a tiled search for a colour, a shape
or a word in large images."""

from vision_tools.zoom.regions import (
    GENERIC_SHAPE_WORDS,
    CropResult,
    RegionMatch,
    SearchResult,
    crop,
    find_region,
    position,
    quadrant,
    tile,
)

__all__ = ["GENERIC_SHAPE_WORDS", "CropResult", "RegionMatch", "SearchResult", "crop", "find_region", "position",
           "quadrant", "tile"]
