"""Detection and counting: every instance catalogued with its box (shapes by colour, round objects, faces, people,
YOLO labels when weights are configured), overlapping detections merged, then counted.
"""

from vision_tools.detection.counting import (
    CountResult,
    Detection,
    count_round_objects,
    count_shapes,
    detect_objects,
    nms,
)
from vision_tools.detection.shapes import Shape, find_shapes

__all__ = ["CountResult", "Detection", "Shape", "count_round_objects", "count_shapes", "detect_objects",
           "find_shapes", "nms"]
