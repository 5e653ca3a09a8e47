"""Reading a document page once and answering field after field from that one reading.

``read_document(image)`` runs OCR through the per-image cache (``vision_tools.text.read_text_cached``), levels the
lines into rows (``Layout``) and keeps a small preview for drawing answers; the same image asked again costs a
hash of its pixels and a dictionary look-up. ``read_field(image, "total")`` answers one field from it.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cached_property

from PIL import Image

from vision_tools.documents import config
from vision_tools.documents.dates import find_date
from vision_tools.documents.header import find_address, find_company
from vision_tools.documents.labels import find_label_value, label_words
from vision_tools.documents.layout import Layout
from vision_tools.documents.patterns import amounts_in, dates_in
from vision_tools.documents.result import FieldAnswer
from vision_tools.documents.times import FIELD as ISSUE_TIME
from vision_tools.documents.times import find_issue_time
from vision_tools.documents.totals import find_total
from vision_tools.image.loading import shrink
from vision_tools.text import OcrResult, read_text_cached

#: The fields read by their own rules; any other name is looked up as a printed label.
FIELDS = ("total", "date", "company", "address")
_DOCUMENT_WORDS = frozenset(["total", "subtotal", "invoice", "receipt", "tax", "gst", "sst", "vat", "cashier", "qty",
                             "cash", "change", "amount", "bill", "date", "payment", "price", "rounding", "item"])


@dataclass
class DocumentReading:
    """One OCR reading of a page, levelled into rows, with a preview to draw answers on."""

    ocr: OcrResult
    layout: Layout
    preview: Image.Image = field(repr=False)
    preview_scale: float = 1.0

    #: No picture of its own: each field answer draws the boxes it was read from.
    annotated = None

    @cached_property
    def money_lines(self) -> int:
        return sum(1 for p in self.layout.lines if amounts_in(p.text))

    @cached_property
    def looks_like_document(self) -> bool:
        """Enough of a receipt or invoice to read fields from: lines with amounts, a date, document words."""
        words = {w for p in self.layout.lines for w in label_words(p.text)}
        signals = min(self.money_lines, 3) + (1 if any(dates_in(p.text) for p in self.layout.lines) else 0)
        signals += min(len(words & _DOCUMENT_WORDS), 3)
        return len(self.layout.lines) >= 5 and signals >= 4

    def field(self, name: str) -> FieldAnswer:
        """Field ``name`` ("total", "date", "company", "address", or any printed label), drawn on the preview."""
        key = re.sub(r"\s+", " ", name.strip().lower())
        if not self.layout.lines:
            answer = FieldAnswer(key, None, 0.0, missing="no text could be read in the image")
        elif key in ("company", "address") and not self.looks_like_document:
            answer = FieldAnswer(key, None, 0.0, missing="the image does not look like a receipt or invoice (no "
                                                         "amounts, dates or document words to anchor its header)")
        elif key == "total":
            answer = find_total(self.layout)
        elif key == "date":
            answer = find_date(self.layout)
        elif key == "company":
            answer = find_company(self.layout)
        elif key == "address":
            answer = find_address(self.layout)
        elif key == ISSUE_TIME:
            answer = find_issue_time(self.layout, self.looks_like_document)
        else:
            answer = find_label_value(self.layout, key)
        return answer.draw(self.preview, self.preview_scale)

    def summary(self) -> str:
        kind = "looks like a receipt or invoice" if self.looks_like_document else "does not look like a document"
        return (f"document: {len(self.layout.lines)} line(s) in {len(self.layout.rows)} row(s), skew "
                f"{self.layout.skew:.1f} deg, amounts on {self.money_lines} line(s); {kind}. {self.ocr.summary()}")

    def to_dict(self) -> dict[str, object]:
        return {"skew": round(self.layout.skew, 2), "rows": len(self.layout.rows),
                "looks_like_document": self.looks_like_document, "ocr": self.ocr.to_dict()}


#: Readings kept for the OCR results last read (as many as the OCR cache keeps images).
_READINGS_KEPT = 24
# Keyed by the OCR result and the thresholds the reading was levelled and drawn under.
_readings: OrderedDict[tuple[int, config.DocumentConfig], DocumentReading] = OrderedDict()
_readings_lock = threading.Lock()


def read_document(image: Image.Image, backend: str = "rapidocr", ocr: OcrResult | None = None) -> DocumentReading:
    """The page's reading (OCR from the per-image cache unless ``ocr`` is given), levelled into rows."""
    if ocr is None:
        ocr = read_text_cached(image, backend=backend, annotate=False)
    key = (id(ocr), config.CONFIG)
    with _readings_lock:
        reading = _readings.get(key)
        if reading is not None and reading.ocr is ocr:  # an id is only reused after its object died
            _readings.move_to_end(key)
            return reading
    rgb = image if image.mode == "RGB" else image.convert("RGB")
    preview, scale = shrink(rgb, config.CONFIG.preview_side)
    reading = DocumentReading(ocr, Layout.of(ocr.lines, ocr.image_size), preview, scale)
    with _readings_lock:
        _readings[key] = reading
        while len(_readings) > _READINGS_KEPT:
            _readings.popitem(last=False)
    return reading


def read_field(image: Image.Image, name: str, backend: str = "rapidocr", ocr: OcrResult | None = None) -> FieldAnswer:
    """Field ``name`` of the document in ``image``: its printed value, box(es) and confidence, or what is missing."""
    return read_document(image, backend=backend, ocr=ocr).field(name)
