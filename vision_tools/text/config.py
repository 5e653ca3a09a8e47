"""The OCR family's thresholds, in one place: ``CONFIG`` is what ``vision_tools.text`` reads at every call.

Its ``compute_hash()`` (``vision_tools.versions``) is the family's tool version: the code of ``vision_tools.text``
plus these values, so a cached OCR output is reused only under the same code and the same thresholds. Replace
``CONFIG`` (``dataclasses.replace``) to run with other values; the environment variables give the defaults.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from vision_tools.versions import ToolConfig


def _env_int(name: str, default: int) -> int:
    return int(os.environ.get(name, str(default)))


@dataclass(frozen=True)
class OcrConfig(ToolConfig):
    #: Inputs whose long side is below this are upscaled (at most ``max_upscale`` x) before OCR.
    upscale_target: int = 640
    max_upscale: float = 2.0
    #: Smallest side, in pixels, of an image or region that can hold a readable character.
    min_side: int = 4
    #: Lines the recogniser reads per batch. A batch is padded to its widest line; one at a time wasted no
    #: padding and read chart labels faster than six (measured with bench_charts, see the README table).
    rec_batch: int = field(default_factory=lambda: _env_int("MAESTRO_OCR_REC_BATCH", 1))
    #: Width every line is padded to at the recogniser's 48 px height; wider lines keep their own width. RapidOCR
    #: pads to 320, so a two-digit tick label cost as much as a sentence. 128 read 480 rendered texts and 210
    #: charts exactly as 320 did, with parse_chart's p50 0.72 s -> 0.61 s (bench_ocr, bench_charts); 96 was
    #: faster still but read a chart's "Wed" as "wed".
    rec_width: int = field(default_factory=lambda: _env_int("MAESTRO_OCR_REC_WIDTH", 128))


CONFIG = OcrConfig()
