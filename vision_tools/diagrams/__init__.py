"""Diagram primitives that answer BlindTest-style questions exactly: line crossings, touching circles, nested
squares, grid rows and columns, overlapping outlined shapes, and the letter highlighted in a word.

Each function takes a PIL image and returns a result with structured findings, ``summary()``, ``to_dict()``, an
``annotated`` evidence image and ``answer`` in the dataset's form ("2", "Yes", "(3,4)", "t").
"""

from vision_tools.diagrams.common import (
    HUE_RANGES,
    as_rgb_array,
    ink_mask,
    ink_strength,
    is_line_drawing,
    stretch_faint_ink,
)
from vision_tools.diagrams.contact import circles_touch
from vision_tools.diagrams.grid import grid_shape
from vision_tools.diagrams.letters import TOOL_FOR_CATEGORY, highlighted_letter
from vision_tools.diagrams.lines import count_line_crossings, line_colours
from vision_tools.diagrams.results import (
    Circle,
    ContactResult,
    CountResult,
    CrossingResult,
    GridResult,
    LetterResult,
)
from vision_tools.diagrams.shapes import count_nested_squares, count_overlapping_shapes

__all__ = [
    "is_line_drawing",
    "HUE_RANGES", "TOOL_FOR_CATEGORY", "Circle", "ContactResult", "CountResult", "CrossingResult", "GridResult",
    "LetterResult", "as_rgb_array", "circles_touch", "count_line_crossings", "line_colours", "count_nested_squares",
    "count_overlapping_shapes", "grid_shape", "highlighted_letter", "ink_mask", "ink_strength", "stretch_faint_ink",
]
