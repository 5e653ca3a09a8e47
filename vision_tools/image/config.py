"""The image family's thresholds, in one place: ``CONFIG`` is what ``vision_tools.image`` reads at every call.

Its ``compute_hash()`` (``vision_tools.versions``) is the family's tool version: the code of ``vision_tools.image``
plus these values, so a cached output of an image tool is reused only under the same code and the same thresholds.
Replace ``CONFIG`` (``dataclasses.replace``) to run with other values.
"""

from __future__ import annotations

from dataclasses import dataclass

from vision_tools.versions import ToolConfig


@dataclass(frozen=True)
class ImageConfig(ToolConfig):
    #: Largest image accepted, in pixels (width x height). 8K UHD (7680x4320 = 33.2 MP) fits; 10000x10000 does not.
    max_pixels: int = 40_000_000
    #: Largest encoded file accepted, in bytes.
    max_bytes: int = 50 * 1024 * 1024
    #: An image a question is asked about needs this many pixels a side (an icon or a 1x1 pixel has nothing to
    #: read),
    min_side: int = 16
    #: and at most this ratio of long to short side (30000x10 is a line, not a picture).
    max_aspect: int = 40
    #: Pixels looked at by ``name_colour``; more only costs time, the median does not move.
    max_colour_samples: int = 250_000
    #: Long side of the copy that ``image_kind`` measures.
    measure_side: int = 640
    #: Flat shares at and below which an image counts as a photograph, and at and above which as a drawing.
    flat_photo: float = 0.6
    flat_drawing: float = 0.8
    #: Colour counts (4-bit bins covering 95 % of pixels) up to which an image has the inks of a drawing, and from
    #: which it has the many colours of a photograph.
    few_colours: int = 32
    many_colours: int = 256
    #: Median filter (pixels a side, applied twice) that wipes grain (sensor noise, paper or fabric texture,
    #: speckle) from a drawing's flat fills before the drawing tools read it (``degrain``).
    grain_kernel: int = 9
    #: Flat share from which that filtered copy is a drawing under grain: drawn shapes on grainy (noise up to 30
    #: levels), textured or graded grounds measured 0.96-1.0; reference photographs at most 0.94 (a scanned page
    #: of text), 0.91 (a star field), 0.90 (a portrait), 0.77 and below for colour photographs.
    grain_free_flat: float = 0.95


CONFIG = ImageConfig()
