"""The detection family's thresholds, in one place: ``CONFIG`` is what ``vision_tools.detection`` reads at every
call.

Its ``compute_hash()`` (``vision_tools.versions``) is the family's tool version: the code of
``vision_tools.detection`` plus these values, so a cached detection output is reused only under the same code and
the same thresholds. Replace ``CONFIG`` (``dataclasses.replace``) to run with other values.
"""

from __future__ import annotations

from dataclasses import dataclass

from vision_tools.versions import ToolConfig


@dataclass(frozen=True)
class DetectionConfig(ToolConfig):
    #: Smallest side an image may have for detection to mean anything.
    min_side: int = 8
    #: Long side, in pixels, the annotated image (boxes and numbers drawn on a copy) is scaled down to.
    annotated_max_side: int = 1600
    #: Closing sizes (working pixels) tried in turn to bridge cuts that other colours make in a colour's outlines.
    bridge_sizes: tuple[int, ...] = (11, 21, 31)
    #: Working resolution (long side) of ``find_shapes``; contours are computed here and scaled back to original
    #: pixels.
    work_side: int = 1280


CONFIG = DetectionConfig()
