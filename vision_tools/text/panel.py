"""The colour of the panel a text is printed on: "What colour is the sign?", "the background colour of the label".

A sign is the board its words are painted on, so its colour is the colour around its words: a thin ring of pixels
just outside each line of text the reader read surely (a third of the line's height wide), never the glyphs
themselves. Every line's ring must be mostly one palette colour, and all lines must agree; a neutral panel (white,
gray, black) also needs the image, and the text's surroundings, free of a large coloured part: a white disc inside
a red ring is a "red and white" sign, and a white name strip on a green board a green one. Otherwise there is no answer and the colours found are listed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from PIL import Image

from vision_tools.image.colour import CHROMATIC, NAMES, classify_pixels
from vision_tools.image.loading import require_rgb
from vision_tools.text.ocr import OcrLine

#: Lines read at least this surely are the sign's words (not a texture the reader took for letters).
SURE_LINE = 0.8
#: The ring's width, in line heights.
RING = 0.35
#: Share of a ring's pixels that must have one colour for it to be the line's panel.
PANEL_SHARE = 0.6
#: A neutral panel is the sign's colour only while no chromatic colour covers this share of the whole image, or
#: of the text's surroundings (``NEARBY`` line heights around the lines).
OTHER_COLOUR_SHARE = 0.12
NEARBY = 1.5


@dataclass
class PanelColour:
    """The panel's palette colour (None: none settled), how much of the rings it covers, and why."""

    name: str | None
    fraction: float
    lines: list[tuple[str, str, float]] = field(default_factory=list)  # (line text, ring colour, its share)
    missing: str | None = None

    def summary(self) -> str:
        found = "; ".join(f"{text!r}: {colour} {share:.0%}" for text, colour, share in self.lines[:6])
        return f"panel {self.name} ({self.fraction:.0%} of the rings)" if self.name else \
            f"no panel colour: {self.missing} ({found})"

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "fraction": round(self.fraction, 3), "missing": self.missing,
                "lines": [list(item) for item in self.lines]}


def panel_colour(image: Image.Image, lines: list[OcrLine]) -> PanelColour:
    """The colour of the panel ``lines`` are printed on (see the module docstring)."""
    rgb = np.asarray(require_rgb(image))
    height, width = rgb.shape[:2]
    sure = [line for line in lines if line.confidence >= SURE_LINE and sum(c.isalnum() for c in line.text) >= 2]
    if not sure:
        return PanelColour(None, 0.0, missing="no text was read surely enough to find the panel it is printed on")
    rings: list[tuple[str, str, float]] = []
    for line in sure:
        band = max(2, int(round(RING * line.box.height)))
        x0, y0, x1, y1 = (int(round(v)) for v in (line.box.x0, line.box.y0, line.box.x1, line.box.y1))
        strips = [rgb[max(0, y0 - band):max(0, y0), max(0, x0):min(width, x1)],
                  rgb[min(height, y1):min(height, y1 + band), max(0, x0):min(width, x1)],
                  rgb[max(0, y0):min(height, y1), max(0, x0 - band):max(0, x0)],
                  rgb[max(0, y0):min(height, y1), min(width, x1):min(width, x1 + band)]]
        pixels = np.concatenate([s.reshape(-1, 3) for s in strips if s.size])
        if len(pixels) < 20:
            continue
        counts = np.bincount(classify_pixels(np.ascontiguousarray(pixels.reshape(-1, 1, 3)))[:, 0],
                             minlength=len(NAMES))
        top = int(counts.argmax())
        rings.append((line.text, NAMES[top], float(counts[top] / counts.sum())))
    if not rings:
        return PanelColour(None, 0.0, missing="the text lines sit at the image's edge, with no panel around them")
    colours = sorted({colour for _, colour, _ in rings})
    if len(colours) > 1 or min(share for _, _, share in rings) < PANEL_SHARE:
        return PanelColour(None, 0.0, rings, missing=f"the text sits on more than one colour ({', '.join(colours)})")
    name = colours[0]
    fraction = min(share for _, _, share in rings)
    if name not in CHROMATIC:
        # A white strip on a green board is a green sign: look at the whole image and around the text.
        height_px = float(np.median([line.box.height for line in sure]))
        x0 = int(max(0, min(line.box.x0 for line in sure) - NEARBY * height_px))
        y0 = int(max(0, min(line.box.y0 for line in sure) - NEARBY * height_px))
        x1 = int(min(width, max(line.box.x1 for line in sure) + NEARBY * height_px))
        y1 = int(min(height, max(line.box.y1 for line in sure) + NEARBY * height_px))
        for where, region in (("the image", rgb), ("around the text", rgb[y0:y1, x0:x1])):
            other, share = _main_chromatic(region)
            if share >= OTHER_COLOUR_SHARE:
                return PanelColour(None, 0.0, rings, missing=f"the text is on {name}, but {other} covers {share:.0%} "
                                                             f"of {where}: the sign may be both")
    return PanelColour(name, fraction, rings)


def _main_chromatic(region: np.ndarray) -> tuple[str, float]:
    """The chromatic palette colour covering most of ``region``, and its share."""
    step = max(1, int(np.sqrt(region.shape[0] * region.shape[1] / 40000)))
    counts = np.bincount(classify_pixels(np.ascontiguousarray(region[::step, ::step])).ravel(), minlength=len(NAMES))
    shares = {NAMES[i]: counts[i] / max(1, counts.sum()) for i in range(len(NAMES)) if NAMES[i] in CHROMATIC}
    other = max(shares, key=shares.__getitem__)
    return other, float(shares[other])
