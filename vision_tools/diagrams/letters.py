"""Diagram primitives that answer BlindTest-style questions exactly: line crossings, touching circles, nested
squares, grid rows and columns, overlapping outlined shapes, and the letter highlighted in a word.

Each function takes a PIL image and returns a result with structured findings, ``summary()``, ``to_dict()``, an
``annotated`` evidence image and ``answer`` (the dataset's answer format: "2", "Yes", "(3,4)", "t").
``TOOL_FOR_CATEGORY`` maps the BlindTest categories onto the function that answers them.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable

import cv2
import numpy as np
from PIL import Image, ImageFont

from vision_tools.diagrams.common import annotate, as_rgb_array, background_colour, box_of, ink_strength
from vision_tools.diagrams.contact import circles_touch
from vision_tools.diagrams.grid import grid_shape
from vision_tools.diagrams.lines import count_line_crossings
from vision_tools.diagrams.results import (
    LetterResult,
)
from vision_tools.diagrams.shapes import count_nested_squares, count_overlapping_shapes
from vision_tools.image.boxes import Box

_ADVANCE_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

__all__ = ["TOOL_FOR_CATEGORY", "highlighted_letter"]


def highlighted_letter(image: Image.Image, backend: str = "rapidocr") -> LetterResult:
    """The letter of a word that a coloured circle/ellipse is drawn around (BlindTest "circled letter").

    The highlight is the strongly coloured stroke (the text is dark); it is erased before OCR reads the word, and
    the letter under the highlight's centre is picked from the word's glyphs. Needs the OCR back end.
    """
    from vision_tools.text.ocr import read_text  # imported here: OCR models load only when this tool is used

    rgb = as_rgb_array(image)
    hsv = cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV)
    highlight = (hsv[..., 1] > 90) & (hsv[..., 2] > 60)
    highlight = cv2.dilate(highlight.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    ring = box_of(highlight)
    clean = rgb.copy()
    clean[highlight] = np.round(background_colour(rgb)).astype(np.uint8)
    ocr = read_text(Image.fromarray(clean), backend=backend, annotate=False)
    words = [line for line in ocr.lines if any(ch.isalnum() for ch in line.text)]
    if ring is None or not words:
        found = "no highlight" if ring is None else "no word"
        return LetterResult("", ocr.text, -1, ring, annotated=annotate(rgb, caption=f"{found} found"))
    cx, cy = ring.center
    line = min(words, key=lambda w: abs(w.box.center[1] - cy) + max(0.0, w.box.x0 - cx, cx - w.box.x1))
    word = "".join(line.text.split())
    index, by_glyphs = _glyph_index(clean, line.box, cx, word)
    letter = word[index]
    share = ring.area / float(rgb.shape[0] * rgb.shape[1])
    result = LetterResult(letter, word, index, ring, float(line.confidence), by_glyphs, share)
    result.annotated = annotate(rgb, boxes=[ring], caption=f"highlighted: {letter!r} in {word!r}")
    return result


def _glyph_index(rgb: np.ndarray, word_box: Box, x: float, word: str) -> tuple[int, bool]:
    """Which letter of ``word`` lies under ``x``: from the glyphs' columns when they separate cleanly into one
    per letter (second value True), else proportionally along the word box."""
    n_letters = len(word)
    height, width = rgb.shape[:2]
    b = word_box.clamp(width, height)
    crop = rgb[int(b.y0) : int(np.ceil(b.y1)), int(b.x0) : int(np.ceil(b.x1))]
    if crop.size and n_letters > 0:
        columns = (ink_strength(crop, background_colour(rgb)) > 0.4).any(axis=0)
        edges = np.flatnonzero(np.diff(np.concatenate([[0], columns.astype(np.int8), [0]])))
        spans = list(zip(edges[::2] + b.x0, edges[1::2] + b.x0, strict=True))
        if len(spans) == n_letters:
            centres = [(s + e) / 2 for s, e in spans]
            return int(np.argmin([abs(c - x) for c in centres])), True
    # Glyphs touch or were cut by the erased highlight: place x along the word using proportional advance widths
    # (DejaVu Sans as a stand-in for the unknown font; far closer than equal widths for words like "will").
    try:
        font = ImageFont.truetype(_ADVANCE_FONT, 100)
        advances = [font.getlength(word[:k]) for k in range(len(word) + 1)]
    except OSError:
        advances = [float(k) for k in range(len(word) + 1)]
    target = (x - b.x0) / max(b.width, 1.0) * advances[-1]
    return int(min(max(bisect.bisect_right(advances, target) - 1, 0), len(word) - 1)), False


#: BlindTest category -> the function (image -> result with ``answer``) that answers it.
TOOL_FOR_CATEGORY: dict[str, Callable[[Image.Image], object]] = {
    "line_intersection": count_line_crossings,
    "touching_circles": circles_touch,
    "counting_circles": lambda image: count_overlapping_shapes(image, "circle"),
    "counting_pentagons": lambda image: count_overlapping_shapes(image, "pentagon"),
    "nested_squares": count_nested_squares,
    "grid_rows_columns": grid_shape,
    "circled_letter": highlighted_letter,
}
