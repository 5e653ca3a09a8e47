"""How legible each character of a read line is: the recogniser's per-character scores.

A line's score (``OcrLine.confidence``) is the mean over its characters, so one misread letter in a long line
("SDN BHO" for "SDN BHD") hardly lowers it. ``char_scores(image, box)`` reads the line at ``box`` again with
RapidOCR's recogniser and returns the text with one score per character (its CTC probability; a space has one
too), so an answer that is one part of the line can be as sure as its least legible character
(``CharReading.span_score``). RapidOCR 3.x computes these scores itself (``return_word_box``); its per-word scores
are not used: in 3.10 they are the first characters' scores, not each word's.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image

from vision_tools.image.boxes import Box
from vision_tools.text.backends import get_backend

#: Line images shorter than this are upscaled before reading: the recogniser works at 48 px high.
MIN_HEIGHT = 32
_LOCK = threading.Lock()


@dataclass(frozen=True)
class CharReading:
    """A line read again: its text and one 0-1 score per character of ``text`` (spaces included)."""

    text: str
    scores: tuple[float, ...]

    def span_score(self, span: str) -> float | None:
        """The lowest score among the characters of ``span`` where it occurs in ``text`` (case and spacing
        ignored), or None when the re-read line does not contain it."""
        folded = self.text.casefold()
        start = folded.find(span.strip().casefold())
        if start < 0 or not span.strip():
            return None
        chars = range(start, start + len(span.strip()))
        scores = [self.scores[i] for i in chars if i < len(self.scores) and not self.text[i].isspace()]
        return min(scores) if scores else None

    @property
    def weakest(self) -> float:
        """The lowest score of any non-space character (1.0 for an empty line)."""
        scores = [s for c, s in zip(self.text, self.scores, strict=False) if not c.isspace()]
        return min(scores) if scores else 1.0

    def to_dict(self) -> dict:
        return {"text": self.text, "scores": [round(s, 4) for s in self.scores]}


def char_scores(image: Image.Image, box: Box, pad: int = 3) -> CharReading | None:
    """The line inside ``box`` (original pixels) read again with per-character scores; None when the box holds
    nothing readable or the RapidOCR recogniser cannot run here."""
    x0, y0 = max(0, int(box.x0) - pad), max(0, int(box.y0) - pad)
    x1, y1 = min(image.width, int(box.x1) + pad), min(image.height, int(box.y1) + pad)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    piece = np.asarray(image.convert("RGB").crop((x0, y0, x1, y1)))
    if piece.shape[0] < MIN_HEIGHT:
        factor = MIN_HEIGHT / piece.shape[0]
        piece = cv2.resize(piece, None, fx=factor, fy=factor, interpolation=cv2.INTER_CUBIC)
    try:
        from rapidocr.ch_ppocr_rec import TextRecInput

        backend = get_backend("rapidocr")
        engine = backend._load()  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - no RapidOCR here: the caller keeps the line's own score
        return None
    # The back end's own lock: RapidOCR's engine is shared and not safe to call from two threads at once.
    with getattr(backend, "_lock", _LOCK):
        output = engine._load_rec_model()(TextRecInput(img=[cv2.cvtColor(piece, cv2.COLOR_RGB2BGR)],
                                                       return_word_box=True))
    texts, words = output.txts or (), output.word_results or ()
    if not texts or not words or not getattr(words[0], "confs", None):
        return None
    text, confs = str(texts[0]), [float(c) for c in words[0].confs]
    if len(confs) != len(text):
        return None
    return CharReading(text, tuple(confs))
