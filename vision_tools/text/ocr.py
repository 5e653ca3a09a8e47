"""Reading text: lines with boxes and confidences in reading order, from the whole image or a region of it.

``read_text(image, region=None, backend="rapidocr")`` returns an ``OcrResult``: ``lines`` (``OcrLine(text, box,
confidence)``, boxes in original-image pixels), ``.text`` (the lines joined in reading order: top to bottom, left
to right within a visual row, rows separated by newlines), ``summary()``, ``to_dict()`` and an ``annotated`` image
with numbered boxes. ``find_text(image, target)`` returns the lines that contain ``target``, case-insensitively and
tolerating a small share of misread characters.

Small inputs (a crop of a label, a 300-pixel screenshot) are upscaled before OCR, up to 2x: the text detector
misses 8-12 px text at native size, while larger factors start to merge words (measured on DejaVu renderings).
Large inputs are not downscaled for recognition; only the detector sees a size-capped copy (``max_det_side``).
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from difflib import SequenceMatcher

import cv2
import numpy as np
from PIL import Image, ImageDraw

from vision_tools.image.boxes import Box
from vision_tools.image.drawing import label_font
from vision_tools.image.loading import require_rgb, shrink
from vision_tools.text import config
from vision_tools.text.backends import DetectingBackend, OcrBackendUnavailable, Quad, RawLine, get_backend

__all__ = ["OcrBackendUnavailable", "OcrLine", "OcrResult", "Quad", "detect_lines", "find_text", "match_score",
           "line_image", "order_lines", "read_quads", "read_text", "result_of"]

#: Smallest side, in pixels, of an image or region that can hold a readable character (``config.CONFIG.min_side``
#: is what the reading functions use; this is its default, for callers that check sizes first).
MIN_SIDE = config.CONFIG.min_side


@dataclass(frozen=True)
class OcrLine:
    """One line of text as the engine found it; ``box`` is in original-image pixels."""

    text: str
    box: Box
    confidence: float
    #: Slope of the line's top edge in degrees (positive: falling to the right, as image y grows downwards); the
    #: detector's quads are rotated rectangles, so a skewed scan shows here. 0 for back ends without quads.
    angle: float = 0.0

    def to_dict(self) -> dict:
        return {"text": self.text, "box": self.box.as_list(), "confidence": round(self.confidence, 4),
                "angle": round(self.angle, 2)}


@dataclass
class OcrResult:
    """Every line read, in reading order, and where it was read from."""

    lines: list[OcrLine]
    backend: str
    region: Box  # the part of the image that was read, original pixels
    image_size: tuple[int, int]
    scale: float  # upscaling applied before OCR (1.0 = none)
    rows: list[list[OcrLine]] = field(default_factory=list, repr=False)
    annotated: Image.Image | None = field(default=None, repr=False)

    @property
    def text(self) -> str:
        """Lines in reading order: boxes of one visual row joined by spaces, rows by newlines."""
        return "\n".join(" ".join(line.text for line in row) for row in self.rows)

    def summary(self) -> str:
        if not self.lines:
            return f"OCR ({self.backend}) found no text in region {self.region.as_list()}"
        joined = " | ".join(" ".join(line.text for line in row) for row in self.rows)
        if len(joined) > 300:
            joined = joined[:297] + "..."
        mean_conf = float(np.mean([line.confidence for line in self.lines]))
        return (f"OCR ({self.backend}) read {len(self.lines)} line(s) in {len(self.rows)} row(s), "
                f"mean confidence {mean_conf:.2f}: {joined}")

    def to_dict(self) -> dict:
        return {
            "backend": self.backend,
            "region": self.region.as_list(),
            "image_size": list(self.image_size),
            "scale": round(self.scale, 3),
            "text": self.text,
            "lines": [line.to_dict() for line in self.lines],
        }


def read_text(
    image: Image.Image,
    region: Box | None = None,
    backend: str = "rapidocr",
    min_confidence: float = 0.5,
    max_det_side: int = 1536,
    annotate: bool = True,
) -> OcrResult:
    """Read the text of ``image`` (or of ``region`` in it, original pixels) with OCR back end ``backend``.

    Raises ``ValueError`` for unusable inputs and ``OcrBackendUnavailable`` when the back end cannot run here.
    """
    settings = config.CONFIG
    image = require_rgb(image, settings.min_side, "hold readable text")
    width, height = image.size
    box = Box(0, 0, width, height) if region is None else region.clamp(width, height)
    x0, y0 = int(np.floor(box.x0)), int(np.floor(box.y0))
    x1, y1 = int(np.ceil(box.x1)), int(np.ceil(box.y1))
    if x1 - x0 < settings.min_side or y1 - y0 < settings.min_side:
        raise ValueError(f"region {box.as_list()} of a {width}x{height} image is smaller than {settings.min_side} px on a "
                         "side: too small to hold readable text")
    crop = image if (x0, y0, x1, y1) == (0, 0, width, height) else image.crop((x0, y0, x1, y1))
    scale = min(settings.max_upscale, max(1.0, settings.upscale_target / max(crop.size)))
    if scale > 1.0:
        crop = crop.resize((round(crop.width * scale), round(crop.height * scale)), Image.Resampling.LANCZOS)
    engine = get_backend(backend)
    det_side = int(min(max(crop.size), max_det_side))
    raw = engine.recognize(np.asarray(crop), det_side=max(det_side, 32))

    lines = _to_lines(raw, (x0, y0), scale, (width, height), min_confidence)
    result = result_of(lines, engine.name, Box(x0, y0, x1, y1), (width, height), scale)
    if annotate:
        result.annotated = draw_lines(image, result.lines, region=result.region if region is not None else None)
    return result


def detect_lines(image: Image.Image, max_det_side: int = 1280, backend: str = "rapidocr") -> list[Quad]:
    """Where the text lines of ``image`` are, without reading them: quads in original pixels, from the detector
    run on a copy at most ``max_det_side`` on its long side. Raises ``OcrBackendUnavailable`` for back ends that
    only read whole images (Tesseract, PaddleOCR)."""
    image = require_rgb(image, config.CONFIG.min_side, "hold readable text")
    engine = _detecting(backend)
    side = max(32, max_det_side)
    # The detector sees a shrunken copy anyway; shrinking here spares copying and converting all the pixels.
    small, _ = shrink(image, side)
    sx, sy = image.width / small.width, image.height / small.height
    quads = engine.detect(np.asarray(small), det_side=int(min(max(small.size), side)))
    return [[(x * sx, y * sy) for x, y in quad] for quad in quads]


def read_quads(image: Image.Image, quads: list[Quad], backend: str = "rapidocr",
               min_confidence: float = 0.5) -> list[OcrLine]:
    """Read only the lines at ``quads`` (original pixels, as ``detect_lines`` gives them) at full resolution;
    lines read with less than ``min_confidence``, or as nothing, are left out."""
    image = require_rgb(image, config.CONFIG.min_side, "hold readable text")
    engine = _detecting(backend)
    pieces = [line_image(image, quad) for quad in quads]
    usable = [i for i, piece in enumerate(pieces) if min(piece.shape[:2]) >= 2]
    read = engine.read_lines([pieces[i] for i in usable])
    raw: list[RawLine] = [(text, quads[i], confidence) for i, (text, confidence) in zip(usable, read, strict=True)]
    return _to_lines(raw, (0, 0), 1.0, image.size, min_confidence)


def line_image(image: Image.Image, quad: Quad) -> np.ndarray:
    """The text line inside ``quad`` (corners clockwise from its top-left) as an upright RGB array: the quad's
    bounding box is cut out, then warped to a rectangle as long and as tall as the quad's sides; a line much
    taller than wide (vertical text) is turned to run left to right."""
    corners = np.asarray(quad, dtype=np.float32)[:4]
    x0, y0 = np.floor(corners.min(axis=0)).astype(int).clip(0)
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 1
    patch = np.asarray(image.crop((int(x0), int(y0), int(min(x1, image.width)), int(min(y1, image.height)))))
    width = int(max(np.linalg.norm(corners[0] - corners[1]), np.linalg.norm(corners[3] - corners[2])))
    height = int(max(np.linalg.norm(corners[0] - corners[3]), np.linalg.norm(corners[1] - corners[2])))
    if width < 1 or height < 1 or min(patch.shape[:2]) < 1:
        return np.zeros((0, 0, 3), np.uint8)
    target = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    matrix = cv2.getPerspectiveTransform(corners - np.array([x0, y0], np.float32), target)
    line = cv2.warpPerspective(patch, matrix, (width, height), flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE)
    return np.ascontiguousarray(np.rot90(line)) if height >= 1.5 * width else line


def result_of(lines: list[OcrLine], backend: str, region: Box, image_size: tuple[int, int],
              scale: float = 1.0) -> OcrResult:
    """An ``OcrResult`` holding ``lines`` in reading order (for lines read piecemeal with ``read_quads``)."""
    rows = order_lines(lines)
    return OcrResult(lines=[line for row in rows for line in row], backend=backend, region=region,
                     image_size=image_size, scale=scale, rows=rows)


def order_lines(lines: list[OcrLine]) -> list[list[OcrLine]]:
    """Group ``lines`` into visual rows (by vertical overlap) and sort: rows top to bottom, left to right inside.

    On a photo taken at a tilt the rows slope: a price list's prices sit a row lower at the right than their names
    at the left (round 38's bakery board paired each item with the next one's price). Rows are therefore compared
    with the page levelled by its skew (``text_skew``)."""
    slope = math.tan(math.radians(text_skew(lines)))

    def span(line: OcrLine) -> tuple[float, float]:
        shift = slope * line.box.center[0]
        return line.box.y0 - shift, line.box.y1 - shift

    rows: list[list[OcrLine]] = []
    spans: list[tuple[float, float]] = []
    for line in sorted(lines, key=lambda item: (sum(span(item)) / 2, item.box.x0)):
        top_of, bottom_of = span(line)
        placed = False
        for i, (top, bottom) in enumerate(spans):
            overlap = min(bottom, bottom_of) - max(top, top_of)
            # Half the smaller height: neighbours on one row overlap nearly fully, stacked lines barely at all.
            if overlap >= 0.5 * min(bottom - top, line.box.height):
                rows[i].append(line)  # the row keeps its first line's span so that rows cannot creep downwards
                placed = True
                break
        if not placed:
            rows.append([line])
            spans.append((top_of, bottom_of))
    ordered = sorted(rows, key=lambda row: min(span(item)[0] for item in row) + max(span(item)[1] for item in row))
    return [sorted(row, key=lambda item: item.box.x0) for row in ordered]


#: Skews smaller than this are left alone (a scan's fraction of a degree moves no line into another row); larger
#: than ``MAX_SKEW`` is a rotated image, which the reader's own angle fix handles, not a tilt.
MIN_SKEW, MAX_SKEW = 1.0, 12.0


def text_skew(lines: list[OcrLine]) -> float:
    """The page's tilt in degrees: the median slope of the lines long enough to measure one (at least three times
    as wide as tall), when at least three agree within a degree and a half of it; else 0."""
    slopes = sorted(line.angle for line in lines if line.box.width >= 3 * line.box.height)
    if len(slopes) < 3:
        return 0.0
    median = slopes[len(slopes) // 2]
    agreeing = [a for a in slopes if abs(a - median) <= 1.5]
    if len(agreeing) < max(3, 0.6 * len(slopes)) or not MIN_SKEW <= abs(median) <= MAX_SKEW:
        return 0.0
    return median


def find_text(
    image: Image.Image,
    target: str,
    region: Box | None = None,
    backend: str = "rapidocr",
    threshold: float = 0.8,
    ocr: OcrResult | None = None,
) -> list[OcrLine]:
    """Lines whose text contains ``target`` (case, accents, punctuation and spacing ignored; fuzzy up to
    ``threshold``), best match first. Pass ``ocr`` to search an existing reading instead of reading again."""
    if not _normalise(target):
        raise ValueError("find_text needs a target with at least one letter or digit")
    result = ocr if ocr is not None else read_text(image, region=region, backend=backend, annotate=False)
    scored = [(match_score(line.text, target), line) for line in result.lines]
    # Neighbouring boxes on one row are also tried together: engines split phrases at wide gaps.
    for row in result.rows:
        for i in range(len(row) - 1):
            a, b = row[i], row[i + 1]
            merged = OcrLine(f"{a.text} {b.text}", Box(a.box.x0, min(a.box.y0, b.box.y0), b.box.x1,
                                                         max(a.box.y1, b.box.y1)), min(a.confidence, b.confidence))
            score = match_score(merged.text, target)
            if score > max(match_score(a.text, target), match_score(b.text, target)):
                scored.append((score, merged))
    hits = [(score, line) for score, line in scored if score >= threshold]
    hits.sort(key=lambda item: (-item[0], item[1].box.y0, item[1].box.x0))
    return [line for _, line in hits]


def match_score(text: str, target: str) -> float:
    """How well ``target`` occurs in ``text``: 1.0 when it is contained after normalising, else the best fuzzy
    ratio between ``target`` and a same-length window of ``text`` (0 when either is empty)."""
    hay, needle = _normalise(text), _normalise(target)
    if not hay or not needle:
        return 0.0
    if needle in hay:
        return 1.0
    hay_c, needle_c = hay.replace(" ", ""), needle.replace(" ", "")
    if needle_c in hay_c:
        return 0.97  # only spacing differs, which OCR often gets wrong
    n = len(needle_c)
    best = 0.0
    for size in {max(1, n - 1), n, n + 1}:
        for start in range(0, max(1, len(hay_c) - size + 1)):
            best = max(best, SequenceMatcher(None, needle_c, hay_c[start:start + size], autojunk=False).ratio())
    return best


def draw_lines(image: Image.Image, lines: list[OcrLine], region: Box | None = None) -> Image.Image:
    """``image`` (at most 1600 px on the long side) with each line's box and number drawn on it."""
    out, scale = shrink(image if image.mode == "RGB" else image.convert("RGB"), 1600)
    out = out.copy()
    draw = ImageDraw.Draw(out)
    font = label_font(14)
    if region is not None:
        draw.rectangle([v * scale for v in region.as_list()], outline=(255, 0, 255), width=2)
    for number, line in enumerate(lines, start=1):
        rect = [v * scale for v in line.box.as_list()]
        draw.rectangle(rect, outline=(0, 200, 0), width=2)
        label = str(number)
        tx, ty = rect[0], max(0.0, rect[1] - 16)
        draw.rectangle([tx, ty, tx + 9 * len(label) + 4, ty + 16], fill=(0, 200, 0))
        draw.text((tx + 2, ty), label, fill=(255, 255, 255), font=font)
    return out


_WORD_WITH_ZERO = re.compile(r"^([^\w]*)([A-Za-z0]*0[A-Za-z0]*)([^\w]*)$")


def fix_confusables(text: str) -> str:
    """Digit zero inside an otherwise alphabetic word (two letters or more) is the letter O: "0ak" -> "Oak",
    "B00K" -> "BOOK", "c0ffee" -> "coffee". Words with other digits or joined by hyphens ("4B0", "C0-2", "A0")
    are codes and stay as read."""
    words = []
    for word in text.split(" "):
        match = _WORD_WITH_ZERO.match(word)
        core = match.group(2) if match else ""
        if match and sum(ch.isalpha() for ch in core) >= 2:
            upper = core.replace("0", "").isupper()
            fixed = "".join(("O" if upper or i == 0 else "o") if ch == "0" else ch for i, ch in enumerate(core))
            word = f"{match.group(1)}{fixed}{match.group(3)}"
        words.append(word)
    return " ".join(words)


def _to_lines(raw: list[RawLine], offset: tuple[int, int], scale: float, size: tuple[int, int],
              min_confidence: float) -> list[OcrLine]:
    """Engine lines (in the pixels of a crop at offset ``offset``, enlarged by ``scale``) as ``OcrLine``s in
    original-image pixels, cleaned, without the unconfident and the empty."""
    lines: list[OcrLine] = []
    for text, points, confidence in raw:
        text = fix_confusables(" ".join(text.split()))
        if not text or confidence < min_confidence:
            continue
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        box = Box(offset[0] + min(xs) / scale, offset[1] + min(ys) / scale,
                  offset[0] + max(xs) / scale, offset[1] + max(ys) / scale)
        lines.append(OcrLine(text, box.clamp(*size), confidence, _top_edge_angle(points)))
    return lines


def _top_edge_angle(points: Quad) -> float:
    """Degrees of the quad's top edge (first to second corner); 0 for degenerate or vertical-text quads."""
    (x0, y0), (x1, y1) = points[0], points[1]
    if x1 - x0 <= 0:
        return 0.0
    angle = float(np.degrees(np.arctan2(y1 - y0, x1 - x0)))
    return angle if abs(angle) < 45 else 0.0


def _detecting(backend: str) -> DetectingBackend:
    engine = get_backend(backend)
    if not (hasattr(engine, "detect") and hasattr(engine, "read_lines")):
        raise OcrBackendUnavailable(f"the {engine.name} back end cannot detect text without reading it; "
                                    "use read_text, or the rapidocr back end")
    return engine  # type: ignore[return-value]


def _normalise(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(re.sub(r"[^\w]+", " ", stripped).replace("_", " ").split())
