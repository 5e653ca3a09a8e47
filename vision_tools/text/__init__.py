"""Reading text: OCR lines with boxes and confidences (RapidOCR by default, Tesseract or PaddleOCR optional),
readings cached per image (``read_text_cached``), and searching a large image for a word by reading only the lines
that could hold it.
"""

from vision_tools.text.backends import OcrBackendUnavailable, available_backends, get_backend
from vision_tools.text.cache import CacheInfo, clear_ocr_cache, image_digest, ocr_cache_info, read_text_cached
from vision_tools.text.ocr import (
    OcrLine,
    OcrResult,
    detect_lines,
    find_text,
    match_score,
    read_quads,
    read_text,
)
from vision_tools.text.search import TextSearch, search_text

__all__ = [
    "CacheInfo", "OcrBackendUnavailable", "OcrLine", "OcrResult", "TextSearch", "available_backends", "clear_ocr_cache", "detect_lines",
    "find_text", "get_backend", "image_digest", "match_score", "ocr_cache_info", "read_quads", "read_text", "read_text_cached", "search_text",
]
