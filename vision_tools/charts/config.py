"""The chart family's thresholds, in one place: ``CONFIG`` is what ``vision_tools.charts`` reads at every call.

Its ``compute_hash()`` (``vision_tools.versions``) is the family's tool version: the code of
``vision_tools.charts`` plus these values, so a cached chart output is reused only under the same code and the same
thresholds. Replace ``CONFIG`` (``dataclasses.replace``) to run with other values.
"""

from __future__ import annotations

from dataclasses import dataclass

from vision_tools.versions import ToolConfig


@dataclass(frozen=True)
class ChartConfig(ToolConfig):
    #: Long side the image is reduced to by ``chart_likeness`` (darkest pixel per block).
    likeness_side: int = 480
    #: For ``chart_likeness``, a line is dark when its pixels are darker than this (0-255 grey).
    likeness_dark: int = 110
    #: Line colours must be clearly coloured: grey and black are text, axes and grids.
    min_line_chroma: int = 40
    #: Long side of the image the pixels are analysed at; also the annotated image's limit.
    work_side: int = 1600
    #: Long side the OCR input is enlarged to (see ``parse._read_texts``).
    ocr_side: int = 800
    #: Smallest side that can hold a readable chart.
    min_side: int = 48
    #: Samples taken around a pie's circle to find its slices: two per degree.
    pie_samples: int = 720
    #: Largest per-channel difference for a pixel to count as a given palette colour.
    colour_tol: int = 30
    #: Palette colours with chroma (max - min channel) below ``grey_chroma`` and mean above ``light`` are
    #: background.
    grey_chroma: int = 30
    light: int = 170


CONFIG = ChartConfig()
