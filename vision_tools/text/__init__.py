"""Reading text: OCR lines with boxes and confidences (RapidOCR by default, Tesseract or PaddleOCR optional), and
searching a large image for a word by reading only the lines that could hold it.
"""

from vision_tools.text.backends import OcrBackendUnavailable, available_backends, get_backend
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
    "OcrBackendUnavailable", "OcrLine", "OcrResult", "TextSearch", "available_backends", "detect_lines",
    "find_text", "get_backend", "match_score", "read_quads", "read_text", "search_text",
]
