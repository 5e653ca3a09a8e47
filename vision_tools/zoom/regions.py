"""Zooming in: cropping a box given in any model frame, tiling, and searching very large images for a target.

``crop`` converts coordinates with ``boxes.to_pixels`` (the one place frames are converted), pads, clamps, and
upscales small crops so that a model or OCR sees enough pixels. ``tile`` cuts an image into overlapping tiles.
``find_region`` finds where a target is in images up to 8K: a colour ("red"), a shape ("star", "red star"), or a
text string. Colour and shape searches run on a downscaled copy first (so 8K costs about what 1.5K costs), then
refine each candidate on full-resolution pixels. Text search (``vision_tools.text.search``) detects lines on a
size-capped copy and reads, at full resolution, only the lines whose shape could hold the target.
Every box returned is in original-image pixels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np
from PIL import Image, ImageDraw

from vision_tools.detection.hearts import is_heart
from vision_tools.image.boxes import Box, BoxFrame, tile_boxes, to_pixels
from vision_tools.image.colour import ALIASES, CHROMATIC, PALETTE, canonical_name, classify_pixels
from vision_tools.image.loading import require_rgb, shrink
from vision_tools.image.shape_words import SEARCHABLE, shape_name
from vision_tools.text.ocr import match_score
from vision_tools.text.search import search_text
from vision_tools.zoom import config

QUADRANTS = ("top-left", "top-right", "bottom-left", "bottom-right")
#: Share of a blob's chromatic pixels one colour must have to be its colour when the search names none.
MAIN_COLOUR_SHARE = 0.5


@dataclass
class CropResult:
    """A crop of the original image; ``box`` says where it came from in original pixels."""

    image: Image.Image = field(repr=False)
    box: Box
    scale: float  # the crop was resized by this factor (>1: upscaled)
    annotated: Image.Image | None = field(default=None, repr=False)

    def summary(self) -> str:
        return (f"crop {self.box.as_list()} ({round(self.box.width)}x{round(self.box.height)} px) shown at "
                f"{self.image.width}x{self.image.height} (x{self.scale:.2f})")

    def to_dict(self) -> dict:
        return {"box": self.box.as_list(), "size": [self.image.width, self.image.height], "scale": round(self.scale, 3)}


@dataclass
class RegionMatch:
    """One place where the target was found."""

    box: Box
    score: float  # 0-1, higher is a better match
    label: str  # what was matched there: "red star", "text 'EXIT'", ...
    quadrant: str
    text: str | None = None
    crop: Image.Image | None = field(default=None, repr=False)

    def to_dict(self) -> dict:
        out = {"box": self.box.as_list(), "score": round(self.score, 3), "label": self.label, "quadrant": self.quadrant}
        if self.text is not None:
            out["text"] = self.text
        return out


@dataclass
class SearchResult:
    """Where ``target`` was found, best match first."""

    target: str
    kind: str  # "colour", "shape", "colour+shape" or "text"
    matches: list[RegionMatch]
    image_size: tuple[int, int]
    annotated: Image.Image | None = field(default=None, repr=False)
    effort: str = ""  # how much was looked at, e.g. "read 3 of 21 detected lines (plausible@1440)"

    def summary(self) -> str:
        effort = f" [{self.effort}]" if self.effort else ""
        if not self.matches:
            return (f"{self.kind} search for {self.target!r} found nothing in the {self.image_size[0]}x"
                    f"{self.image_size[1]} image{effort}")
        best = "; ".join(f"{m.label} at {m.box.as_list()} ({m.quadrant}, score {m.score:.2f})" for m in self.matches[:3])
        return f"{self.kind} search for {self.target!r}: {len(self.matches)} match(es); {best}{effort}"

    def to_dict(self) -> dict:
        out = {"target": self.target, "kind": self.kind, "image_size": list(self.image_size),
               "matches": [m.to_dict() for m in self.matches]}
        if self.effort:
            out["effort"] = self.effort
        return out


def crop(
    image: Image.Image,
    coords: Box | tuple[float, float, float, float] | list[float],
    frame: BoxFrame | str = "pixels",
    resized_size: tuple[int, int] | None = None,
    min_side: int = 448,
    pad: float = 0.0,
    max_side: int = 2048,
    annotate: bool = True,
) -> CropResult:
    """Crop ``coords`` (in ``frame``) out of ``image``, padded by ``pad`` (a fraction of the box's width and height
    on each side), clamped to the image, and upscaled (LANCZOS) until its short side is at least ``min_side``
    without its long side passing ``max_side``."""
    image = require_rgb(image)
    width, height = image.size
    values = coords.as_list() if isinstance(coords, Box) else list(coords)
    if len(values) != 4 or not all(math.isfinite(float(v)) for v in values):
        raise ValueError(f"coords must be four finite numbers x0, y0, x1, y1; got {values!r}")
    box = to_pixels(values, frame, (width, height), resized_size)
    if pad < 0:
        raise ValueError(f"pad must be >= 0, got {pad}")
    if pad:
        box = Box(box.x0 - pad * box.width, box.y0 - pad * box.height,
                  box.x1 + pad * box.width, box.y1 + pad * box.height).clamp(width, height)
    x0, y0 = int(math.floor(box.x0)), int(math.floor(box.y0))
    x1, y1 = int(math.ceil(box.x1)), int(math.ceil(box.y1))
    if x1 - x0 < 1 or y1 - y0 < 1:
        raise ValueError(f"box {values!r} ({frame}) is empty once clamped to the {width}x{height} image")
    piece = image.crop((x0, y0, x1, y1))
    scale = max(1.0, min(min_side / min(piece.size), max_side / max(piece.size)))
    if scale > 1.0:
        piece = piece.resize((round(piece.width * scale), round(piece.height * scale)), Image.Resampling.LANCZOS)
    pixel_box = Box(x0, y0, x1, y1)
    return CropResult(piece, pixel_box, scale,
                      annotated=_annotate(image, [(pixel_box, "crop")]) if annotate else None)


def tile(image: Image.Image, tile_size: int = 1024, overlap: int = 128) -> list[tuple[Box, Image.Image]]:
    """``(box, tile image)`` pairs covering ``image``, row by row."""
    image = require_rgb(image)
    return [(box, image.crop(box.as_tuple())) for box in tile_boxes(image.size, tile_size, overlap)]


def quadrant(box: Box, image_size: tuple[int, int]) -> str:
    """"top-left", "top-right", "bottom-left" or "bottom-right": where the centre of ``box`` lies."""
    cx, cy = box.center
    return f"{'top' if cy < image_size[1] / 2 else 'bottom'}-{'left' if cx < image_size[0] / 2 else 'right'}"


#: Where along one axis (0-1) a centre lies as people name it: a side below ``SIDE`` (above 1 - ``SIDE``), the
#: middle within ``MIDDLE`` of 0.5, and between the two a border no one names alike ("top right" or "top"?).
SIDE, MIDDLE = 0.35, 0.1


def position(box: Box, image_size: tuple[int, int]) -> tuple[str, bool]:
    """Where the centre of ``box`` lies as a person says it, and whether that is clear: a corner ("top-right"), a
    side when it is halfway along the other axis ("right" for a shape 80 % across and halfway down, which no one
    calls "top-right"), or "centre". Not clear near a border between those zones."""
    cx, cy = box.center
    column, clear_x = _zone(cx / image_size[0], "left", "right")
    row, clear_y = _zone(cy / image_size[1], "top", "bottom")
    name = "-".join(part for part in (row, column) if part) or "centre"
    return name, clear_x and clear_y


def _zone(at: float, low: str, high: str) -> tuple[str | None, bool]:
    """``low``, ``high`` or None (the middle) for a position ``at`` (0-1) along one axis, and whether it is clear."""
    if abs(at - 0.5) <= MIDDLE:
        return None, True
    side = low if at < 0.5 else high
    return side, abs(at - 0.5) >= 0.5 - SIDE


def find_region(
    image: Image.Image,
    target: str,
    kind: str = "auto",
    max_results: int = 5,
    min_side: int = 448,
    pad: float = 0.25,
) -> SearchResult:
    """Find ``target`` in ``image``: a colour name, a shape word, both ("red star"), or text (``kind="text"``, or
    ``"auto"`` when the target names no colour or shape). Matches carry boxes in original pixels and a padded,
    upscaled crop ready for a closer look."""
    image = require_rgb(image)
    colour, shape = _parse_target(target) if kind != "text" else (None, None)
    if kind in ("colour", "color") and colour is None:
        raise ValueError(f"no colour named in {target!r}; known colours: {', '.join(PALETTE)}")
    if kind == "shape" and shape is None:
        raise ValueError(f"no shape named in {target!r}; searchable shapes: {', '.join(sorted(SEARCHABLE))}")
    if kind not in ("auto", "text", "colour", "color", "shape"):
        raise ValueError(f"kind must be auto, text, colour or shape; got {kind!r}")
    effort = ""
    if colour is None and shape is None:
        matches, effort = _search_text(image, target, max_results)
        found_kind = "text"
    else:
        matches = _search_blobs(image, colour, shape, max_results)
        found_kind = "+".join(k for k, v in (("colour", colour), ("shape", shape)) if v)
    for match in matches:
        match.crop = crop(image, match.box, min_side=min_side, pad=pad, annotate=False).image
    annotated = _annotate(image, [(m.box, f"{i + 1}") for i, m in enumerate(matches)])
    return SearchResult(target, found_kind, matches, image.size, annotated, effort)


#: Words for a drawn shape of any kind ("the small shape", "the red object"): any solid coloured blob, named by the
#: shape it has.
ANY_SHAPE = "shape"
#: Solidity (blob area over its box, less for thin strokes) below which a blob is a stroke, not a drawn shape.
MIN_SHAPE_SOLIDITY = 0.3
GENERIC_SHAPE_WORDS = frozenset(["shape", "object", "thing", "dot", "blob", "item", "figure", "spot", "mark", "symbol",
                                 "icon"])


def _parse_target(target: str) -> tuple[str | None, str | None]:
    colour = shape = None
    for word in target.lower().replace("-", " ").split():
        word = word.strip(".,;:!?'\"")
        name = shape_name(word)
        if colour is None and (word in PALETTE or word in ALIASES):
            colour = canonical_name(word)
        elif shape is None and name in SEARCHABLE:
            shape = "circle" if name == "ellipse" else name  # the search's classifier calls ellipses circles
        elif shape is None and word in GENERIC_SHAPE_WORDS:
            shape = ANY_SHAPE
    return colour, shape


def _search_blobs(image: Image.Image, colour: str | None, shape: str | None, max_results: int) -> list[RegionMatch]:
    width, height = image.size
    factor = min(1.0, config.CONFIG.search_side / max(width, height))
    full = np.asarray(image)
    small = full if factor == 1.0 else cv2.resize(
        full, (max(1, round(width * factor)), max(1, round(height * factor))), interpolation=cv2.INTER_AREA)
    # Any colour: the blobs of all colours together, and of each colour alone (a red disc on a bluish ground is
    # one blob with the ground in the first mask, its own in the second).
    masks = [(colour, _target_mask(small, colour))]
    if colour is None:
        classes = classify_pixels(np.ascontiguousarray(small))
        masks += [(name, classes == index) for index, name in enumerate(PALETTE)
                  if name in CHROMATIC and np.any(classes == index)]
    components: list[tuple[int, str | None, tuple[int, int, int, int]]] = []
    largest_of_each: list[tuple[int, str | None, tuple[int, int, int, int]]] = []
    for mask_colour, target in masks:
        # Closing joins the pieces of one object that dark print (a label's text) splits at the reduced scale.
        mask = cv2.morphologyEx(target.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        count, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        found = sorted(((int(stats[i, cv2.CC_STAT_AREA]), mask_colour,
                         (int(stats[i, 0]), int(stats[i, 1]), int(stats[i, 2]), int(stats[i, 3])))
                        for i in range(1, count) if stats[i, cv2.CC_STAT_AREA] >= 3), key=lambda c: -c[0])
        components += found
        largest_of_each += found[:3]
    components.sort(key=lambda c: -c[0])
    # The largest blobs, and the largest few of each colour: on gravel, a 70 px red disc in 4K is smaller than a
    # hundred brown blobs of the ground, and the one red blob there is.
    chosen = components[: max(50, 10 * max_results)]
    chosen += [c for c in largest_of_each if c not in chosen]
    matches: list[RegionMatch] = []
    for _, mask_colour, (x, y, w, h) in chosen:
        margin = 3
        coarse = Box((x - margin) / factor, (y - margin) / factor, (x + w + margin) / factor,
                     (y + h + margin) / factor).clamp(width, height)
        refined = _refine(full, coarse, mask_colour)
        if refined is None:
            continue
        box, found_shape, shape_score, solid, vivid = refined
        if shape not in (None, ANY_SHAPE) and found_shape != shape and not (
                shape == "rectangle" and found_shape == "square"):
            continue
        if shape is not None and _touches_border(box, width, height):
            continue  # a blob the image's edge cuts is background or a part: its outline is not the shape's
        # Colour-only: solid, compact blobs (objects, labels) rank above strokes and thin lines, whatever their
        # size; a blob under ~20 px across is discounted as likely antialiasing or noise.
        size_factor = min(1.0, math.sqrt(box.area) / 20.0)
        # A shape is ranked by its vividness too: a clear red disc above a dull blob of the ground.
        if shape == ANY_SHAPE:
            # Any drawn shape: every solid blob counts alike (a square's fuller box must not outrank a triangle,
            # or "the shape" among several would be the square); strokes and thin lines are no shape.
            if solid < MIN_SHAPE_SOLIDITY:
                continue
            score = size_factor * vivid
        else:
            score = shape_score * size_factor * vivid if shape else solid * size_factor * vivid
        label = " ".join(v for v in (colour or (mask_colour if shape == ANY_SHAPE else None),
                                     found_shape if shape else "region") if v)
        matches.append(RegionMatch(box, float(score), label, quadrant(box, (width, height))))
    matches = _dedupe(matches)
    matches.sort(key=lambda m: (-round(m.score, 2), -m.box.area))
    return matches[:max_results]


def _touches_border(box: Box, width: int, height: int) -> bool:
    return box.x0 <= 1 or box.y0 <= 1 or box.x1 >= width - 1 or box.y1 >= height - 1


def _target_mask(rgb: np.ndarray, colour: str | None) -> np.ndarray:
    classes = classify_pixels(np.ascontiguousarray(rgb))
    if colour is not None:
        return classes == list(PALETTE).index(colour)
    chromatic = [list(PALETTE).index(name) for name in CHROMATIC]
    return np.isin(classes, chromatic)


def _refine(full: np.ndarray, coarse: Box, colour: str | None) -> tuple[Box, str, float, float, float] | None:
    """The tight full-resolution box of the largest target-coloured blob inside ``coarse``, its shape and shape
    confidence, its solidity (blob area over bounding-box area, times how far from a thin stroke it is) and its
    vividness (0.5-1 from the median saturation: a clear green beats a grayish one for "the green label")."""
    x0, y0, x1, y1 = coarse.as_list()
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    patch = full[y0:y1, x0:x1]
    # Any colour: the blob is the patch's main colour, so the noise of a busy background in other hues (bluish
    # grain round a green square) is not drawn into its outline.
    mask = _target_mask(patch, colour if colour is not None else _main_colour(patch)).astype(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    contour = max(contours, key=cv2.contourArea)
    if cv2.contourArea(contour) < 4:
        return None
    bx, by, bw, bh = cv2.boundingRect(contour)
    shape, score = classify_contour(contour)
    extent = cv2.contourArea(contour) / float(bw * bh)
    thickness = min(1.0, min(bw, bh) / (0.25 * max(bw, bh)))
    inside = patch[mask.astype(bool)]
    saturation = cv2.cvtColor(inside.reshape(-1, 1, 3), cv2.COLOR_RGB2HSV)[:, 0, 1] if len(inside) else np.zeros(1)
    vivid = 0.5 + 0.5 * float(np.median(saturation)) / 255.0
    return Box(x0 + bx, y0 + by, x0 + bx + bw, y0 + by + bh), shape, score, extent * thickness, vivid


def _main_colour(patch: np.ndarray) -> str | None:
    """The chromatic colour most of the patch's chromatic pixels have, when one has most of them; else None."""
    classes = classify_pixels(np.ascontiguousarray(patch))
    names = [name for name in PALETTE if name in CHROMATIC]
    counts = np.bincount(classes.ravel(), minlength=len(PALETTE))[[list(PALETTE).index(n) for n in names]]
    if counts.sum() == 0 or counts.max() < MAIN_COLOUR_SHARE * counts.sum():
        return None
    return names[int(np.argmax(counts))]


def classify_contour(contour: np.ndarray) -> tuple[str, float]:
    """Name the shape of a filled blob's outer contour (circle, triangle, square, rectangle, star, other) with a
    0-1 confidence, from polygon fit, solidity, convexity defects and circularity.

    Perimeters are measured on the convex hull (and the polygon fit on the hull for convex shapes): a pixel
    staircase, as on upscaled images, inflates the raw contour's length and would make circles look like polygons.
    """
    area = float(cv2.contourArea(contour))
    if area <= 0 or len(contour) < 3:
        return "other", 0.0
    hull = cv2.convexHull(contour)
    hull_area = float(cv2.contourArea(hull))
    hull_perimeter = float(cv2.arcLength(hull, True))
    if hull_area <= 0 or hull_perimeter <= 0:
        return "other", 0.0
    solidity = area / hull_area
    circularity = 4 * math.pi * hull_area / hull_perimeter**2
    (_, _), (rw, rh), _ = cv2.minAreaRect(contour)
    size = max(rw, rh)
    aspect = min(rw, rh) / size if size else 0.0
    if solidity < 0.8:
        # A star's concave corners: deep convexity defects, five of them for a five-pointed star.
        indices = cv2.convexHull(contour, returnPoints=False)
        try:
            defects = cv2.convexityDefects(contour, indices)
        except cv2.error:  # self-intersecting contours from one-pixel bridges
            defects = None
        deep = 0 if defects is None else int((defects[:, 0, 3] / 256.0 > 0.15 * size).sum())
        if 4 <= deep <= 8 and 0.3 <= solidity <= 0.75:
            return "star", max(0.0, 1.0 - abs(solidity - 0.55))
        return "other", 0.3
    if is_heart(contour):
        return "heart", solidity  # round 39: a heart's hull has four corners, and it had been named a square
    vertices = len(cv2.approxPolyDP(hull, 0.04 * hull_perimeter, True))
    if vertices == 3:
        return "triangle", solidity
    if vertices == 4 and solidity > 0.93:
        return ("square", aspect) if aspect > 0.8 else ("rectangle", solidity)
    if circularity > 0.88 and vertices > 4 and solidity > 0.9:
        return "circle", circularity
    return "other", 0.3


def _search_text(image: Image.Image, target: str, max_results: int) -> tuple[list[RegionMatch], str]:
    width, height = image.size
    search = search_text(image, target)
    matches = []
    for line in search.lines:
        box = _narrow_to_target(line.text, line.box, target)
        matches.append(RegionMatch(box, match_score(line.text, target) * line.confidence, f"text {line.text!r}",
                                   quadrant(box, (width, height)), text=line.text))
    matches = _dedupe(matches)
    matches.sort(key=lambda m: -m.score)
    return matches[:max_results], search.effort()


def _narrow_to_target(text: str, box: Box, target: str) -> Box:
    """The part of a line's box where ``target`` sits, by character position (engines often merge a word with
    its neighbours into one line); the whole box when the target is not literally in the text."""
    start = text.casefold().find(target.strip().casefold())
    if start < 0 or not text:
        return box
    end = start + len(target.strip())
    per_char = box.width / len(text)
    return Box(box.x0 + start * per_char, box.y0, box.x0 + end * per_char, box.y1)


def _dedupe(matches: list[RegionMatch]) -> list[RegionMatch]:
    kept: list[RegionMatch] = []
    for match in sorted(matches, key=lambda m: -m.score):
        if all(match.box.iou(other.box) < 0.5 for other in kept):
            kept.append(match)
    return kept


def _annotate(image: Image.Image, boxes: list[tuple[Box, str]]) -> Image.Image:
    out, scale = shrink(image, 1600)
    out = out.copy()
    draw = ImageDraw.Draw(out)
    for box, label in boxes:
        rect = [box.x0 * scale, box.y0 * scale, box.x1 * scale, box.y1 * scale]
        # Tiny needles vanish at 1600 px: draw at least a 12 px frame around them.
        cx, cy = (rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2
        half_w, half_h = max(6.0, (rect[2] - rect[0]) / 2 + 2), max(6.0, (rect[3] - rect[1]) / 2 + 2)
        draw.rectangle([cx - half_w, cy - half_h, cx + half_w, cy + half_h], outline=(255, 0, 255), width=3)
        draw.text((cx - half_w, max(0.0, cy - half_h - 12)), label, fill=(255, 0, 255))
    return out
