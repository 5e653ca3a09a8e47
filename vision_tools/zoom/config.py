"""The zoom family's thresholds, in one place: ``CONFIG`` is what ``vision_tools.zoom`` reads at every call.

Its ``compute_hash()`` (``vision_tools.versions``) is the family's tool version: the code of ``vision_tools.zoom``
plus these values, so a cached crop or region search is reused only under the same code and the same thresholds.
Replace ``CONFIG`` (``dataclasses.replace``) to run with other values.
"""

from __future__ import annotations

from dataclasses import dataclass

from vision_tools.versions import ToolConfig


@dataclass(frozen=True)
class ZoomConfig(ToolConfig):
    #: Long side of the downscaled copy that colour and shape searches scan first.
    search_side: int = 1600


CONFIG = ZoomConfig()
