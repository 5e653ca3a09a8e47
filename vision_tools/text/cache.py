"""OCR results kept per image, by the hash of its pixels, so a second question about the same image reads nothing.

``read_text_cached(image, **settings)`` returns what ``read_text`` would, from a bounded, thread-safe LRU keyed by
the SHA-256 of the image's mode, size and pixel bytes plus the settings. Two threads asking for the same image at
once share one OCR run: the second waits for the first instead of reading the image again. The picture of the
boxes (``annotated``) is drawn the first time a caller asks for it. Results are shared: treat them as read-only.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass

from PIL import Image

from vision_tools.image.boxes import Box
from vision_tools.text import config
from vision_tools.text.ocr import OcrResult, draw_lines, read_text

#: Images whose readings are kept (an entry holds the lines and a <=1600 px annotated copy, a few MB).
CACHE_SIZE = 24


@dataclass(frozen=True)
class CacheInfo:
    hits: int
    misses: int
    size: int
    capacity: int


class OcrCache:
    """A bounded LRU of OCR results keyed by image content and settings."""

    def __init__(self, capacity: int = CACHE_SIZE) -> None:
        self.capacity = capacity
        self._items: OrderedDict[str, OcrResult] = OrderedDict()
        self._pending: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def read(self, image: Image.Image, region: Box | None = None, backend: str = "rapidocr",
             min_confidence: float = 0.5, max_det_side: int = 1536, annotate: bool = True) -> OcrResult:
        key = _key(image, region, backend, min_confidence, max_det_side)
        result = self._read(key, image, region, backend, min_confidence, max_det_side)
        if annotate and result.annotated is None:
            # Drawn on first demand and kept: questions that need no picture of the boxes never pay for one.
            result.annotated = draw_lines(image, result.lines, region=result.region if region is not None else None)
        return result

    def _read(self, key: str, image: Image.Image, region: Box | None, backend: str, min_confidence: float,
              max_det_side: int) -> OcrResult:
        while True:
            with self._lock:
                if key in self._items:
                    self._items.move_to_end(key)
                    self.hits += 1
                    return self._items[key]
                waiting = self._pending.get(key)
                if waiting is None:
                    self._pending[key] = threading.Event()
                    self.misses += 1
                    break
            waiting.wait()  # another thread is reading this image; its result (or its failure) ends the wait
        try:
            result = read_text(image, region=region, backend=backend, min_confidence=min_confidence,
                               max_det_side=max_det_side, annotate=False)
            with self._lock:
                self._items[key] = result
                while len(self._items) > self.capacity:
                    self._items.popitem(last=False)
            return result
        finally:
            with self._lock:
                self._pending.pop(key).set()

    def info(self) -> CacheInfo:
        with self._lock:
            return CacheInfo(self.hits, self.misses, len(self._items), self.capacity)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.hits = self.misses = 0


def image_digest(image: Image.Image) -> str:
    """SHA-256 of the image's mode, size and pixels (the same picture from a PNG or a re-opened file agrees)."""
    digest = hashlib.sha256(f"{image.mode}:{image.width}x{image.height}:".encode())
    digest.update(image.tobytes())
    return digest.hexdigest()


def _key(image: Image.Image, region: Box | None, backend: str, min_confidence: float, max_det_side: int) -> str:
    where = "all" if region is None else ",".join(f"{v:.1f}" for v in region.as_list())
    # The family's version: other code or thresholds (vision_tools.text.config) read differently.
    return f"{image_digest(image)}|{where}|{backend}|{min_confidence}|{max_det_side}|{config.CONFIG.compute_hash()}"


_shared = OcrCache()


def read_text_cached(image: Image.Image, region: Box | None = None, backend: str = "rapidocr",
                     min_confidence: float = 0.5, max_det_side: int = 1536, annotate: bool = True) -> OcrResult:
    """``read_text`` through the process-wide cache (see the module docstring)."""
    return _shared.read(image, region=region, backend=backend, min_confidence=min_confidence,
                        max_det_side=max_det_side, annotate=annotate)


def ocr_cache_info() -> CacheInfo:
    """Hits, misses and size of the process-wide OCR cache."""
    return _shared.info()


def clear_ocr_cache() -> None:
    _shared.clear()
