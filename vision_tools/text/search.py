"""Finding one given text in a large image fast: detect every line once, read only the lines that could hold it.

Reading a cluttered 4K image in full costs the detector over the whole image plus the recogniser on every line it
finds. To find one word most lines need never be read: a line box's width-to-height ratio says roughly how many
characters it holds (and its count of ink blobs, how many letters), so the boxes that fit the target are read, a
few at a time, most plausible first. Once one of them is the target (a match of at least ``SURE``), the unread
boxes shaped like it are read too (a copy of the same word, at any size, has the same shape and glyph count) and
the search ends. Otherwise the remaining boxes are read (a detector line that merged the target with its
neighbours is longer than the target). The detector is touchy
about scale, so when its first view yields nothing, a second, larger view is searched the same way, and only then
full-resolution tiles (seconds on a 4K image).

The price of stopping early: a copy of the target inside a merged, longer line, or in a much wider or narrower
font, is not reported once a standalone copy was found. Images no larger than the detector's view, and back ends
that cannot detect without reading (Tesseract, PaddleOCR), are simply read whole.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np
from PIL import Image

from vision_tools.image.boxes import Box, tile_boxes
from vision_tools.text.backends import get_backend
from vision_tools.text.ocr import (
    OcrLine,
    OcrResult,
    Quad,
    detect_lines,
    find_text,
    match_score,
    read_quads,
    read_text,
    result_of,
)

#: Long sides of the detector's views, tried in turn. The detector is touchy about scale: on 50 cluttered 4K
#: needle images (25-44 px words) a view of 1280 found 47 words (two images gave no box at all), 1600 found 49,
#: 1440 and 1536 all 50; a second, larger view catches what the first misses before the costly tiles.
DETECT_SIDES = (1440, 1920)
#: A detector box holding n characters has width/height close to ``CHAR_ASPECT``·n (DejaVu and Liberation words of
#: 3-10 letters: median 0.41, 5-95 % 0.29-0.60); boxes between ``PLAUSIBLE[0]``·n and ``PLAUSIBLE[1]``·n are read first.
CHAR_ASPECT = 0.41
PLAUSIBLE = (0.18, 0.9)
#: A match this good (the target contained, up to spacing) ends the search after the plausible boxes.
SURE = 0.97
#: Plausible boxes are read this many at a time, most plausible first, until one is a sure match.
CHUNK = 2
#: Unread boxes within this log-ratio of a sure hit's shape, with as many glyphs give or take one (possible copies),
#: are read before stopping.
TWIN = 0.2
#: Tiles read when the detector's view found nothing.
TILE_SIDE = 2048
TILE_OVERLAP = 200


@dataclass
class TextSearch:
    """Lines matching the target, best first (boxes in original pixels), and what the search cost."""

    lines: list[OcrLine]
    detected: int  # line boxes the detector views found, each counted once (0 when the image was read whole)
    read: int  # lines the recogniser read
    passes: list[str] = field(default_factory=list)  # "whole", "plausible@1440", "rest@1440", ..., "tiles"

    def effort(self) -> str:
        """What was read, e.g. "read 3 of 21 detected lines (plausible@1440)"."""
        if self.passes == ["whole"]:
            return f"read the whole image ({self.read} lines)"
        return f"read {self.read} of {self.detected} detected lines ({' + '.join(self.passes)})"


def search_text(image: Image.Image, target: str, backend: str = "rapidocr",
                detect_sides: tuple[int, ...] = DETECT_SIDES, threshold: float = 0.8) -> TextSearch:
    """Where ``target`` is written in ``image`` (an RGB image): matching lines as ``find_text`` scores them
    (case, accents, punctuation and spacing ignored; fuzzy down to ``threshold``)."""
    if not target.strip():
        raise ValueError("search_text needs a non-empty target")
    engine = get_backend(backend)
    long_side = max(image.size)
    if long_side <= detect_sides[0] or not hasattr(engine, "detect"):
        whole = read_text(image, backend=backend, max_det_side=max(detect_sides[0], 32), annotate=False)
        return TextSearch(find_text(image, target, ocr=whole, threshold=threshold), 0, len(whole.lines), ["whole"])

    search = TextSearch([], 0, 0)
    lines: list[OcrLine] = []
    read_boxes: list[Box] = []

    def read(group: list[Quad]) -> bool:
        """Read ``group`` too; True when the best match so far is a sure one."""
        nonlocal lines
        lines += read_quads(image, group, backend=backend)
        read_boxes.extend(_bounds(quad) for quad in group)
        search.read += len(group)
        search.lines = find_text(image, target, ocr=_as_result(lines, engine.name, image), threshold=threshold)
        return bool(search.lines) and match_score(search.lines[0].text, target) >= SURE

    for side in sorted({min(side, long_side) for side in detect_sides}):
        # Boxes already read in an earlier view are not read again.
        quads = [quad for quad in detect_lines(image, max_det_side=side, backend=backend)
                 if all(_bounds(quad).iou(done) < 0.5 for done in read_boxes)]
        search.detected += len(quads)
        first, rest = split_by_plausibility(quads, target, image)
        if first:
            search.passes.append(f"plausible@{side}")
            for start in range(0, len(first), CHUNK):
                if read(first[start:start + CHUNK]):
                    # Another copy of the same text, at any size and in a like font, has the same box shape:
                    # read the unread boxes shaped like the hit, so that copies are reported too, and stop.
                    hit = search.lines[0].box
                    shape = hit.width / max(hit.height, 1e-6)
                    letters = sum(ch.isalnum() for ch in search.lines[0].text)
                    twins = [quad for quad in first[start + CHUNK:] if abs(math.log(aspect(quad) / shape)) < TWIN
                             and abs(glyph_count(image, quad) - letters) <= 1]
                    if twins:
                        read(twins)
                    return search
        if rest:
            search.passes.append(f"rest@{side}")
            read(rest)
        if search.lines:
            return search
    search.passes.append("tiles")
    search.lines = _search_tiles(image, target, backend, threshold)
    return search


def aspect(quad: Quad) -> float:
    """Width over height of a line quad (corners clockwise from top-left); 0 for a degenerate one."""
    (ax, ay), (bx, by), _, (dx, dy) = quad[:4]
    height = math.hypot(dx - ax, dy - ay)
    return math.hypot(bx - ax, by - ay) / height if height > 0 else 0.0


def split_by_plausibility(quads: list[Quad], target: str,
                          image: Image.Image | None = None) -> tuple[list[Quad], list[Quad]]:
    """``quads`` whose shape could hold ``target`` on its own, most plausible first, and the rest (too short, much
    longer, or upright) in detector order. With ``image``, plausibility is first how close the box's count of
    glyphs (``glyph_count``) is to the target's letters and digits, then how close its shape is; without, shape
    alone (which cannot tell a wide capital word from a longer lowercase one)."""
    length = max(1, len(" ".join(target.split())))
    letters = max(1, sum(ch.isalnum() for ch in target))
    expected = CHAR_ASPECT * length
    low, high = PLAUSIBLE[0] * length, PLAUSIBLE[1] * length
    ranked = []
    for i, quad in enumerate(quads):
        ratio = aspect(quad)
        if low <= ratio <= high:
            glyph_gap = 0.0 if image is None else abs(glyph_count(image, quad) - letters) / letters
            ranked.append((round(glyph_gap, 2), abs(math.log(ratio / expected)), i))
    ranked.sort()
    chosen = {i for *_, i in ranked}
    return [quads[i] for *_, i in ranked], [quad for i, quad in enumerate(quads) if i not in chosen]


def glyph_count(image: Image.Image, quad: Quad) -> int:
    """Roughly how many characters the line box ``quad`` holds: connected blobs of ink (the minority side of an
    Otsu threshold) at least a quarter of the box's height, so that dots, accents and punctuation do not count.
    Touching letters count as one; cheap (a fraction of a millisecond) next to reading the box."""
    xs, ys = [p[0] for p in quad], [p[1] for p in quad]
    box = (max(0, int(min(xs))), max(0, int(min(ys))), min(image.width, int(max(xs)) + 1),
           min(image.height, int(max(ys)) + 1))
    if box[2] - box[0] < 2 or box[3] - box[1] < 2:
        return 0
    gray = np.asarray(image.crop(box).convert("L"))
    _, ink = cv2.threshold(gray, 0, 1, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    if ink.mean() > 0.5:  # light text on a dark ground
        ink = 1 - ink
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    tall = stats[1:, cv2.CC_STAT_HEIGHT] >= 0.25 * gray.shape[0]
    return int(tall.sum())


def _search_tiles(image: Image.Image, target: str, backend: str, threshold: float) -> list[OcrLine]:
    """Full-resolution tiles read whole (a 4K image is four detector passes at 2048: seconds, hence last)."""
    hits: list[OcrLine] = []
    for box in tile_boxes(image.size, TILE_SIDE, TILE_OVERLAP):
        piece = image.crop(box.as_tuple())
        reading = read_text(piece, backend=backend, max_det_side=TILE_SIDE, annotate=False)
        for line in find_text(piece, target, ocr=reading, threshold=threshold):
            shifted = Box(line.box.x0 + box.x0, line.box.y0 + box.y0, line.box.x1 + box.x0, line.box.y1 + box.y0)
            hits.append(OcrLine(line.text, shifted, line.confidence, line.angle))
    hits.sort(key=lambda line: -match_score(line.text, target) * line.confidence)
    return hits


def _bounds(quad: Quad) -> Box:
    xs, ys = [p[0] for p in quad], [p[1] for p in quad]
    return Box(min(xs), min(ys), max(xs), max(ys))


def _as_result(lines: list[OcrLine], backend: str, image: Image.Image) -> OcrResult:
    return result_of(lines, backend, Box(0, 0, image.width, image.height), image.size)
