"""Text printed in one colour among clutter: the word a question picks by its colour ("what does the red word
say?", "where is the coloured word?") on a large, busy image, where reading every line would drown it.

The pixels of the colour (for "the coloured word", of any vivid colour) are grouped into glyph-sized blobs, and
blobs side by side on one line into clusters; a cluster of ``MIN_GLYPHS`` or more is a word. The largest word is
read by OCR in a crop around it that keeps only the pixels of its colour. ``words`` says how many such clusters were seen, so a caller can refuse when the
question's "the red word" could be either of two.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image

from vision_tools.image.boxes import Box
from vision_tools.image.colour import CHROMATIC, NAMES, canonical_name, classify_pixels
from vision_tools.image.loading import require_rgb
from vision_tools.text.ocr import read_text

#: Long side of the copy the colour clusters are found on.
WORK_SIDE = 1600
#: Blobs a cluster needs to be a word rather than a shape or a speck.
MIN_GLYPHS = 3
#: Saturation and brightness a pixel needs to count as "coloured" when no colour is named.
VIVID_SAT, VIVID_VAL = 0.45, 0.35


@dataclass
class ColouredText:
    """The word found in ``colour`` (or in any vivid colour), where, what it reads, and how many were seen."""

    colour: str | None
    box: Box | None  # original pixels
    text: str
    confidence: float  # the OCR's, 0 when nothing was read
    words: int  # clusters that look like words in that colour
    image_size: tuple[int, int]

    def summary(self) -> str:
        which = f"{self.colour} " if self.colour else "coloured "
        if self.box is None:
            return f"no {which}word found (clusters of {MIN_GLYPHS}+ glyphs on one line)"
        read = f"read {self.text!r} (confidence {self.confidence:.2f})" if self.text else "nothing read"
        return f"{self.words} {which}word(s) found; the largest at {self.box.as_list()}: {read}"

    def to_dict(self) -> dict[str, object]:
        return {"colour": self.colour, "box": None if self.box is None else self.box.as_list(), "text": self.text,
                "confidence": round(self.confidence, 3), "words": self.words, "image_size": list(self.image_size)}


def find_coloured_text(image: Image.Image, colour: str | None = None) -> ColouredText:
    """The largest word printed in ``colour`` (palette name or alias; None: any vivid colour) and its reading."""
    image = require_rgb(image, 8, "hold a coloured word")
    scale = min(1.0, WORK_SIDE / max(image.size))
    work = image if scale == 1.0 else image.resize((round(image.width * scale), round(image.height * scale)),
                                                   Image.Resampling.BILINEAR)
    rgb = np.asarray(work, dtype=np.uint8)
    classes = classify_pixels(rgb)
    if colour is not None:
        mask = classes == NAMES.index(canonical_name(colour))
    else:
        hsv = cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV_FULL)
        vivid = (hsv[..., 1] >= VIVID_SAT * 255) & (hsv[..., 2] >= VIVID_VAL * 255)
        mask = vivid & np.isin(classes, [NAMES.index(n) for n in CHROMATIC if n != "brown"])
    clusters = _word_clusters(mask.astype(np.uint8))
    if not clusters:
        return ColouredText(canonical_name(colour) if colour else None, None, "", 0.0, 0, image.size)
    clusters.sort(key=lambda c: c[1], reverse=True)
    (x0, y0, x1, y1), _ = clusters[0]
    named = colour
    if named is None:
        inside = classes[y0:y1, x0:x1][mask[y0:y1, x0:x1]]
        named = NAMES[int(np.bincount(inside, minlength=len(NAMES)).argmax())] if inside.size else None
    pad = 0.6 * (y1 - y0)
    box = Box(max(0.0, (x0 - pad) / scale), max(0.0, (y0 - pad) / scale), min(image.width, (x1 + pad) / scale),
              min(image.height, (y1 + pad) / scale))
    lines = read_text(_ink_only(image, box, named), annotate=False).lines if named else []
    best = max(lines, key=lambda line: line.box.area, default=None)
    text = best.text.strip() if best is not None else ""
    return ColouredText(canonical_name(named) if named else None, box, text,
                        float(best.confidence) if best is not None else 0.0, len(clusters), image.size)


def _ink_only(image: Image.Image, box: Box, colour: str) -> Image.Image:
    """The crop ``box`` of ``image`` with only the pixels of ``colour`` kept, black on white: the grey words the
    coloured one is printed over are not read into it."""
    crop = np.asarray(image.crop((int(box.x0), int(box.y0), int(box.x1), int(box.y1))), dtype=np.uint8)
    ink = classify_pixels(crop) == NAMES.index(canonical_name(colour))
    page = np.where(ink, 0, 255).astype(np.uint8)
    return Image.fromarray(page).convert("RGB")


def _word_clusters(mask: np.ndarray) -> list[tuple[tuple[int, int, int, int], int]]:
    """``((x0, y0, x1, y1), pixels)`` of each row of glyph-sized blobs of ``mask`` (``MIN_GLYPHS`` or more)."""
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    blobs = [tuple(int(v) for v in stats[i]) for i in range(1, count)
             if stats[i, cv2.CC_STAT_AREA] >= 6 and 5 <= stats[i, cv2.CC_STAT_HEIGHT] <= 160
             and stats[i, cv2.CC_STAT_WIDTH] <= 3 * stats[i, cv2.CC_STAT_HEIGHT]]
    blobs.sort(key=lambda b: b[0])
    groups: list[list[tuple[int, ...]]] = []
    for blob in blobs:
        x, y, w, h, _ = blob
        for group in groups:
            gx, gy, gw, gh, _ = group[-1]
            overlap = min(y + h, gy + gh) - max(y, gy)
            gap = x - (gx + gw)
            if overlap >= 0.5 * min(h, gh) and gap <= 0.8 * max(h, gh) and max(h, gh) <= 2.5 * min(h, gh):
                group.append(blob)
                break
        else:
            groups.append([blob])
    out = []
    for group in groups:
        if len(group) < MIN_GLYPHS:
            continue
        x0 = min(b[0] for b in group)
        y0 = min(b[1] for b in group)
        x1 = max(b[0] + b[2] for b in group)
        y1 = max(b[1] + b[3] for b in group)
        out.append(((x0, y0, x1, y1), sum(b[4] for b in group)))
    return out
