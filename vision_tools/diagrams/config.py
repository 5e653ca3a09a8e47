"""The diagram family's thresholds, in one place: ``CONFIG`` is what ``vision_tools.diagrams`` reads at every
call.

Its ``compute_hash()`` (``vision_tools.versions``) is the family's tool version: the code of
``vision_tools.diagrams`` plus these values, so a cached diagram output is reused only under the same code and the
same thresholds. Replace ``CONFIG`` (``dataclasses.replace``) to run with other values.
"""

from __future__ import annotations

from dataclasses import dataclass

from vision_tools.versions import ToolConfig


@dataclass(frozen=True)
class DiagramConfig(ToolConfig):
    #: Smallest side a diagram may have; below this nothing can be measured.
    min_side: int = 8
    #: Below this ink level (the 99th percentile of ink strength, 0-1) a drawing's ink is faint and is stretched.
    faint_ink_level: float = 0.6
    #: The annotated evidence image is at most this many pixels on its long side (UI budget).
    annotated_max_side: int = 1600
    #: Perimeters closer than this (pixels, at the image's own resolution) count as touching. Rendering with
    #: antialiasing places an edge to within about half a pixel, so each rim is uncertain by that much.
    touch_tolerance_px: float = 1.0
    #: Colours closer than this (max channel difference) are treated as one colour.
    same_colour: float = 40.0
    #: A colour this close (RGB distance) to the line from the background to another ink is a blend of that ink.
    blend_residual: float = 25.0
    #: A grid line covers at least this fraction of the grid's extent in its direction.
    min_line_span: float = 0.6
    #: Specks smaller than this (pixels) are antialiasing or noise, not part of a line.
    min_speck: int = 4
    #: Fraction of a candidate outline that must lie on ink for the shape to count.
    min_coverage: float = 0.93
    #: A dropped candidate whose outline is drawn by the kept shapes to less than this share may be a real shape.
    doubt_share: float = 0.8
    #: Long side (pixels) of the working view that shape search runs on; larger inputs are cropped and reduced.
    work_side: int = 640
    #: Hough voting costs grow with edge pixels times the radius range; circles are found on a smaller view.
    circle_work_side: int = 420


CONFIG = DiagramConfig()
