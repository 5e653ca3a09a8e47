"""OCR engines behind one small interface: RapidOCR (default, offline), Tesseract and PaddleOCR (optional).

Each back end turns an RGB array into raw lines ``(text, quad, confidence)`` in the array's own pixels; ordering,
regions, upscaling and result types live in ``vision_tools.text.ocr``. Engines are built once per process, lazily,
under a lock, and every call is serialised per engine: RapidOCR keeps per-call settings on the shared engine
object, and on a 2-core machine parallel inference would only fight over the same cores.

Optional back ends raise ``OcrBackendUnavailable`` with what to install when they are missing, and PaddleOCR also
when its models cannot be fetched (it downloads them on first use; there is no network here).

RapidOCR can also run its two halves apart (``DetectingBackend``): ``detect`` finds line quads without reading
them and ``read_lines`` reads chosen lines only. A search for one word in a cluttered 4K image reads a few lines
instead of all of them (``vision_tools.text.search``).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np

from vision_tools.text import config

#: Four corner points (x, y) of a text line, clockwise from its top-left, in the input array's pixels.
Quad = list[tuple[float, float]]
#: One detected line: its text, its quad, and a 0-1 confidence.
RawLine = tuple[str, Quad, float]


class OcrBackendUnavailable(RuntimeError):
    """An OCR back end that cannot run here, with the sentence that says what to install or why."""


class OcrBackend(Protocol):
    name: str

    def recognize(self, rgb: np.ndarray, det_side: int) -> list[RawLine]:
        """Lines found in ``rgb`` ((H, W, 3) uint8); ``det_side`` caps the long side the detector looks at."""
        ...


class DetectingBackend(OcrBackend, Protocol):
    """A back end whose detector and recogniser can run apart."""

    def detect(self, rgb: np.ndarray, det_side: int) -> list[Quad]:
        """Quads of the text lines in ``rgb``, unread."""
        ...

    def read_lines(self, pieces: list[np.ndarray]) -> list[tuple[str, float]]:
        """``(text, confidence)`` for each line image (RGB, rectified to upright, one line each)."""
        ...


@dataclass
class RapidOcrBackend:
    """PP-OCR ONNX models shipped inside the ``rapidocr`` wheel, run by onnxruntime on the CPU."""

    name: str = "rapidocr"
    #: onnxruntime threads per model; 0 means one per core this process may use, at most ``MAX_AUTO_THREADS``.
    #: Calls are serialised per engine (see the module docstring), so the threads never compete with each other.
    threads: int = int(os.environ.get("MAESTRO_OCR_THREADS", "0"))
    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._engine = None
        self._built_for: tuple[int, int] | None = None

    def _load(self):  # noqa: ANN202 - RapidOCR has no stable public type to name here
        # The recogniser's batch and width are thresholds of the OCR family (vision_tools.text.config): an engine
        # built for other values is built again.
        settings = (config.CONFIG.rec_batch, config.CONFIG.rec_width)
        if self._engine is None or self._built_for != settings:
            self._built_for = settings
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
                "Rec.rec_batch_num": max(1, settings[0]),
                "Rec.rec_img_shape": [3, 48, max(16, settings[1])],
                "EngineConfig.onnxruntime.intra_op_num_threads": self.thread_count(),
                "EngineConfig.onnxruntime.inter_op_num_threads": 1,
                # Reusing buffers between calls: the detector's input size changes with every image.
                "EngineConfig.onnxruntime.enable_cpu_mem_arena": True,
            })
            # RapidOCR builds each model's session on its first use, and only there can the options it does not
            # expose be set: load all three now, so the first question does not wait for them either.
            with _sessions_without_spinning():
                detector = self._engine._load_det_model()
                self._engine._load_cls_model()
                self._engine._load_rec_model()
            _normalise_by_table(detector)
        return self._engine

    def warm(self) -> None:
        """Load the models now (a server does this at start, so its first question does not wait for them)."""
        with self._lock:
            self._load()

    def thread_count(self) -> int:
        """The onnxruntime threads per model this back end uses."""
        if self.threads > 0:
            return self.threads
        return max(1, min(MAX_AUTO_THREADS, len(os.sched_getaffinity(0))))

    def recognize(self, rgb: np.ndarray, det_side: int) -> list[RawLine]:
        with self._lock:
            engine = self._set_det_side(det_side)
            # RapidOCR keeps the use_* switches of its last call, so every call names all three.
            output = engine(_bgr(rgb), use_det=True, use_cls=True, use_rec=True)
        if output is None or getattr(output, "txts", None) is None or output.boxes is None:
            return []
        return [(str(text), _points(quad), float(score))
                for quad, text, score in zip(output.boxes, output.txts, output.scores, strict=False)]

    def detect(self, rgb: np.ndarray, det_side: int) -> list[Quad]:
        with self._lock:
            engine = self._set_det_side(det_side)
            output = engine(_bgr(rgb), use_det=True, use_cls=False, use_rec=False)
        boxes = getattr(output, "boxes", None)
        return [] if boxes is None else [_points(quad) for quad in boxes]

    def read_lines(self, pieces: list[np.ndarray]) -> list[tuple[str, float]]:
        from rapidocr.ch_ppocr_rec import TextRecInput

        if not pieces:
            return []
        with self._lock:
            engine = self._load()
            # The angle fix and recogniser of a full call, without its detector and whole-image resizing.
            upright = engine._load_cls_model()([_bgr(piece) for piece in pieces]).img_list
            output = engine._load_rec_model()(TextRecInput(img=upright))
        read = [("", 0.0)] * len(pieces)
        for i, (text, score) in enumerate(zip(output.txts or (), output.scores or (), strict=False)):
            read[i] = (str(text), float(score))
        return read

    def _set_det_side(self, det_side: int):  # noqa: ANN202
        engine = self._load()
        engine._load_det_model().limit_side_len = int(det_side)
        return engine


#: Threads an automatic ``RapidOcrBackend.threads`` uses at most: beyond two, the small models gain little.
MAX_AUTO_THREADS = 2


@contextmanager
def _sessions_without_spinning() -> Iterator[None]:
    """onnxruntime sessions built meanwhile by RapidOCR let their idle threads sleep instead of spin.

    A recogniser call is short (one line), so onnxruntime's default of spinning between calls kept a second core
    busy for nothing: on receipts spinning doubled the recogniser's CPU time and, on a loaded machine, slowed it
    down too (its spinning thread competes for the cores). The outputs are the same bit for bit.
    """
    from rapidocr.inference_engine.onnxruntime.main import OrtInferSession

    library_options = OrtInferSession.__dict__.get("_init_sess_opts")
    if not isinstance(library_options, staticmethod):  # another RapidOCR: build its sessions as it does
        yield
        return

    def options(cfg):  # noqa: ANN001, ANN202 - RapidOCR's config and onnxruntime's SessionOptions
        opts = library_options.__func__(cfg)
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.add_session_config_entry("session.inter_op.allow_spinning", "0")
        return opts

    OrtInferSession._init_sess_opts = staticmethod(options)  # type: ignore[method-assign]
    try:
        yield
    finally:
        OrtInferSession._init_sess_opts = library_options  # type: ignore[method-assign]


def _normalise_by_table(detector) -> None:  # noqa: ANN001 - RapidOCR's TextDetector
    """The detector's input normalised through a 256-entry table per channel instead of float64 arithmetic.

    RapidOCR scales, centres and divides every pixel in float64, then casts to float32: 50-70 ms per detector
    call on a receipt or chart. The table holds the library's own results for the 256 levels, so the detector's
    input is the same bit for bit, in one pass (a detector whose code differs from what this expects is left as is).
    """
    from rapidocr.ch_ppocr_det.utils import DetPreProcess

    if not callable(getattr(detector, "get_preprocess", None)) or not hasattr(DetPreProcess, "normalize"):
        return

    class TableDetPreProcess(DetPreProcess):
        def __call__(self, img: np.ndarray) -> np.ndarray | None:
            if img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8:
                return super().__call__(img)
            resized = self.resize(img)
            if resized is None:
                return None
            levels = np.arange(256, dtype=np.uint8).reshape(1, 256, 1).repeat(3, axis=2)
            table = np.ascontiguousarray(self.normalize(levels), dtype=np.float32)
            return np.ascontiguousarray(cv2.LUT(resized, table).transpose(2, 0, 1))[np.newaxis]

    detector.get_preprocess = lambda: TableDetPreProcess(
        detector.limit_side_len, detector.limit_type, detector.mean, detector.std)


def _bgr(rgb: np.ndarray) -> np.ndarray:
    """RapidOCR expects OpenCV's BGR order for arrays (cvtColor copies a 4K image ~5x faster than slicing)."""
    return cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2BGR)


def _points(quad: np.ndarray) -> Quad:
    return [(float(x), float(y)) for x, y in np.asarray(quad).reshape(-1, 2)]


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
