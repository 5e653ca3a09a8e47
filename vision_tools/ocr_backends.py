"""OCR engines behind one small interface: RapidOCR (default, offline), Tesseract and PaddleOCR (optional).

Each back end turns an RGB array into raw lines ``(text, quad, confidence)`` in the array's own pixels; ordering,
regions, upscaling and result types live in ``vision_tools.ocr``. Engines are built once per process, lazily,
under a lock, and every call is serialised per engine: RapidOCR keeps per-call settings on the shared engine
object, and on a 2-core machine parallel inference would only fight over the same cores.

Optional back ends raise ``OcrBackendUnavailable`` with what to install when they are missing, and PaddleOCR also
when its models cannot be fetched (it downloads them on first use; there is no network here).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

#: One detected line: its text, four corner points (x, y) in the input array's pixels, and a 0-1 confidence.
RawLine = tuple[str, list[tuple[float, float]], float]


class OcrBackendUnavailable(RuntimeError):
    """An OCR back end that cannot run here, with the sentence that says what to install or why."""


class OcrBackend(Protocol):
    name: str

    def recognize(self, rgb: np.ndarray, det_side: int) -> list[RawLine]:
        """Lines found in ``rgb`` ((H, W, 3) uint8); ``det_side`` caps the long side the detector looks at."""
        ...


@dataclass
class RapidOcrBackend:
    """PP-OCR ONNX models shipped inside the ``rapidocr`` wheel, run by onnxruntime on the CPU."""

    name: str = "rapidocr"
    #: onnxruntime threads per model. One by default: its thread pool spin-waits, and on a shared 2-core machine
    #: two threads doubled the CPU per call and were slower in wall-clock too (measured, see bench_ocr).
    threads: int = int(os.environ.get("MAESTRO_OCR_THREADS", "1"))

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._engine = None

    def _load(self):  # noqa: ANN202 - RapidOCR has no stable public type to name here
        if self._engine is None:
            logging.getLogger("RapidOCR").setLevel(logging.ERROR)
            try:
                from rapidocr import RapidOCR
            except ImportError as exc:  # pragma: no cover - a base dependency
                raise OcrBackendUnavailable("RapidOCR is not installed: pip install 'rapidocr>=3,<4' onnxruntime") from exc
            self._engine = RapidOCR(params={
                "Global.log_level": "error",
                # The detector alone is limited in size (fast); recognition crops come from the full-resolution
                # input, so small text keeps its pixels. Hence no global downscale and a "max" detector limit.
                "Global.max_side_len": 10000,
                "Global.min_side_len": 16,
                "Global.text_score": 0.3,
                "Det.limit_type": "max",
                "Det.limit_side_len": 960,
                "EngineConfig.onnxruntime.intra_op_num_threads": max(1, self.threads),
                "EngineConfig.onnxruntime.inter_op_num_threads": 1,
            })
        return self._engine

    def recognize(self, rgb: np.ndarray, det_side: int) -> list[RawLine]:
        with self._lock:
            engine = self._load()
            detector = engine._load_det_model()
            detector.limit_side_len = int(det_side)
            # RapidOCR expects OpenCV's BGR order for arrays.
            output = engine(np.ascontiguousarray(rgb[..., ::-1]))
        if output is None or getattr(output, "txts", None) is None or output.boxes is None:
            return []
        lines: list[RawLine] = []
        for quad, text, score in zip(output.boxes, output.txts, output.scores, strict=False):
            points = [(float(x), float(y)) for x, y in np.asarray(quad).reshape(-1, 2)]
            lines.append((str(text), points, float(score)))
        return lines


@dataclass
class TesseractBackend:
    """Tesseract through pytesseract (needs the Debian ``tesseract-ocr`` package and ``pip install pytesseract``)."""

    name: str = "tesseract"
    lang: str = "eng"

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._module = None

    def _load(self):  # noqa: ANN202
        if self._module is None:
            try:
                import pytesseract
            except ImportError as exc:
                raise OcrBackendUnavailable(
                    "the Tesseract back end needs pytesseract: pip install pytesseract, and the tesseract-ocr "
                    "system package (apt-get install tesseract-ocr)") from exc
            try:
                pytesseract.get_tesseract_version()
            except Exception as exc:  # pytesseract raises its own NotFound type, or OSError
                raise OcrBackendUnavailable(
                    "the tesseract program was not found: apt-get install tesseract-ocr") from exc
            self._module = pytesseract
        return self._module

    def recognize(self, rgb: np.ndarray, det_side: int) -> list[RawLine]:
        with self._lock:
            tess = self._load()
            data = tess.image_to_data(rgb, lang=self.lang, output_type=tess.Output.DICT)
        # Tesseract reports words; words sharing (block, paragraph, line) numbers form one line.
        groups: dict[tuple[int, int, int], list[int]] = {}
        for i, word in enumerate(data["text"]):
            if word.strip() and float(data["conf"][i]) >= 0:
                groups.setdefault((data["block_num"][i], data["par_num"][i], data["line_num"][i]), []).append(i)
        lines: list[RawLine] = []
        for idx in groups.values():
            x0 = min(data["left"][i] for i in idx)
            y0 = min(data["top"][i] for i in idx)
            x1 = max(data["left"][i] + data["width"][i] for i in idx)
            y1 = max(data["top"][i] + data["height"][i] for i in idx)
            text = " ".join(data["text"][i].strip() for i in idx)
            conf = float(np.mean([float(data["conf"][i]) for i in idx])) / 100.0
            lines.append((text, [(x0, y0), (x1, y0), (x1, y1), (x0, y1)], conf))
        return lines


@dataclass
class PaddleOcrBackend:
    """PaddleOCR (``pip install paddleocr paddlepaddle``); its models are downloaded on first use."""

    name: str = "paddleocr"

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._engine = None

    def _load(self):  # noqa: ANN202
        if self._engine is None:
            try:
                from paddleocr import PaddleOCR
            except ImportError as exc:
                raise OcrBackendUnavailable(
                    "the PaddleOCR back end needs paddleocr and paddlepaddle: pip install paddleocr paddlepaddle") from exc
            try:
                self._engine = PaddleOCR(lang="en")
            except Exception as exc:  # network errors surface as many types while it fetches models
                raise OcrBackendUnavailable(
                    f"PaddleOCR could not load its models (it downloads them on first use; is there network "
                    f"access?): {exc}") from exc
        return self._engine

    def recognize(self, rgb: np.ndarray, det_side: int) -> list[RawLine]:
        with self._lock:
            engine = self._load()
            pages = engine.ocr(np.ascontiguousarray(rgb[..., ::-1]))
        lines: list[RawLine] = []
        for page in pages or []:
            if isinstance(page, dict):  # PaddleOCR 3.x result objects behave like dicts
                for quad, text, score in zip(page.get("rec_polys", []), page.get("rec_texts", []),
                                             page.get("rec_scores", []), strict=False):
                    lines.append((str(text), [(float(x), float(y)) for x, y in np.asarray(quad)], float(score)))
            else:  # PaddleOCR 2.x: [[quad, (text, score)], ...]
                for quad, (text, score) in page or []:
                    lines.append((str(text), [(float(x), float(y)) for x, y in quad], float(score)))
        return lines


_FACTORIES: dict[str, Callable[[], OcrBackend]] = {
    "rapidocr": RapidOcrBackend,
    "tesseract": TesseractBackend,
    "paddleocr": PaddleOcrBackend,
}
_ALIASES = {"rapid": "rapidocr", "paddle": "paddleocr", "pytesseract": "tesseract"}
_instances: dict[str, OcrBackend] = {}
_instances_lock = threading.Lock()


def available_backends() -> tuple[str, ...]:
    """Names accepted by ``get_backend`` (whether their packages are installed is only checked on use)."""
    return tuple(_FACTORIES)


def get_backend(name: str = "rapidocr") -> OcrBackend:
    """The process-wide instance of back end ``name``; its models load on its first ``recognize``."""
    key = _ALIASES.get(name.strip().lower(), name.strip().lower())
    if key not in _FACTORIES:
        raise ValueError(f"unknown OCR back end {name!r}; choose one of {', '.join(_FACTORIES)}")
    with _instances_lock:
        if key not in _instances:
            _instances[key] = _FACTORIES[key]()
        return _instances[key]
