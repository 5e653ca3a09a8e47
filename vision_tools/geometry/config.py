"""The geometry family's thresholds, in one place: ``CONFIG`` is what ``vision_tools.geometry`` reads at every
call.

Its ``compute_hash()`` (``vision_tools.versions``) is the family's tool version: the code of
``vision_tools.geometry`` plus these values, so a cached geometry output is reused only under the same code and
the same thresholds. Replace ``CONFIG`` (``dataclasses.replace``) to run with other values.
"""

from __future__ import annotations

from dataclasses import dataclass

from vision_tools.versions import ToolConfig


@dataclass(frozen=True)
class GeometryConfig(ToolConfig):
    #: Long side (pixels) a figure is reduced to before its lines and circles are found; results are scaled back
    #: to original pixels.
    work_side: int = 1024


CONFIG = GeometryConfig()
