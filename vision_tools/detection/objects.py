"""Object detectors that work offline: faces (OpenCV Haar cascade), people (OpenCV HOG + linear SVM), and a
YOLO back end (ultralytics) used only when the user configures weights.

The cascade and the HOG model ship inside opencv-python-headless 4.x (docs/design.md §8), so nothing is downloaded.
The app calls tools from several threads: the OpenCV detectors are built once per thread (they are not safe to
share), YOLO once per process under a lock.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import cv2
import cv2.data  # the Haar cascades' folder: a submodule the cv2 stubs do not import
import numpy as np
from PIL import Image

from vision_tools.detection.counting import CountResult, Detection, annotate, check_image, nms
from vision_tools.image.boxes import Box

FACE_LABELS = {"face", "faces", "human face", "human faces", "head", "heads"}
PERSON_LABELS = {"person", "people", "persons", "pedestrian", "pedestrians", "human", "humans", "man", "men",
                 "woman", "women", "child", "children"}
BACKENDS = ("auto", "haar", "hog", "yolo")

_lock = threading.Lock()
_models: dict[str, Any] = {}
#: One cascade and one HOG detector per thread: OpenCV's ``detectMultiScale`` keeps working buffers inside the
#: object, and two threads in one shared classifier crashed the process (a segfault under ``maestro eval
#: --concurrency 2`` on photos). Each is cheap to build (tens of milliseconds).
_per_thread = threading.local()


def _face_cascade() -> cv2.CascadeClassifier:
    cascade = getattr(_per_thread, "haar", None)
    if cascade is None:
        path = Path(cv2.data.haarcascades) / "haarcascade_frontalface_default.xml"
        cascade = cv2.CascadeClassifier(str(path))
        if cascade.empty():
            raise RuntimeError(f"the Haar face cascade could not be loaded from {path}; OpenCV 4.x is needed")
        _per_thread.haar = cascade
    return cascade


def _people_hog() -> cv2.HOGDescriptor:
    hog = getattr(_per_thread, "hog", None)
    if hog is None:
        hog = cv2.HOGDescriptor()
        # The stubs say Sequence[float]; it is a float32 array already, which asarray returns as is
        hog.setSVMDetector(np.asarray(cv2.HOGDescriptor.getDefaultPeopleDetector(), dtype=np.float32))
        _per_thread.hog = hog
    return hog


def _yolo(weights: str) -> Any:
    try:
        from ultralytics import YOLO  # optional extra: pip install 'maestro-agent[yolo]'
    except ImportError as exc:
        raise ValueError(
            "the YOLO back end needs the optional 'ultralytics' package (pip install 'maestro-agent[yolo]'), "
            "which is not installed"
        ) from exc
    path = Path(weights).expanduser()
    if not path.is_file():
        raise ValueError(f"YOLO weights not found: {path}")
    key = f"yolo:{path.resolve()}"
    with _lock:
        if key not in _models:
            _models[key] = YOLO(str(path))
        return _models[key]


def _resized(rgb: np.ndarray, max_side: int) -> tuple[np.ndarray, float]:
    h, w = rgb.shape[:2]
    scale = min(1.0, max_side / max(h, w))
    if scale < 1.0:
        rgb = cv2.resize(rgb, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    return rgb, scale


def _haar_faces(rgb: np.ndarray, min_score: float) -> list[tuple[Box, float]]:
    small, scale = _resized(rgb, 1024)
    gray = cv2.equalizeHist(cv2.cvtColor(small, cv2.COLOR_RGB2GRAY))
    min_side = max(20, round(min(gray.shape) * 0.04))
    rects, _, weights = _face_cascade().detectMultiScale3(
        gray, scaleFactor=1.1, minNeighbors=5, minSize=(min_side, min_side), outputRejectLevels=True
    )
    out = []
    for (x, y, w, h), weight in zip(np.asarray(rects).reshape(-1, 4), np.asarray(weights).reshape(-1), strict=False):
        # Cascade stage weights are unbounded; squash to 0-1 so min_score means the same across back ends.
        score = float(1.0 / (1.0 + np.exp(-float(weight))))
        if score >= min_score:
            out.append((Box(x / scale, y / scale, (x + w) / scale, (y + h) / scale), score))
    return out


def _hog_people(rgb: np.ndarray, min_score: float) -> list[tuple[Box, float]]:
    small, scale = _resized(rgb, 800)
    if small.shape[0] < 128 or small.shape[1] < 64:
        return []  # smaller than the detector's 64x128 window: nobody can be found
    rects, weights = _people_hog().detectMultiScale(
        cv2.cvtColor(small, cv2.COLOR_RGB2BGR), winStride=(8, 8), padding=(8, 8), scale=1.05
    )
    out = []
    for (x, y, w, h), weight in zip(np.asarray(rects).reshape(-1, 4), np.asarray(weights).reshape(-1), strict=False):
        score = float(1.0 / (1.0 + np.exp(-2.0 * float(weight))))  # SVM margin -> 0-1
        if score >= min_score:
            out.append((Box(x / scale, y / scale, (x + w) / scale, (y + h) / scale), score))
    return out


def _yolo_objects(rgb: np.ndarray, label: str, weights: str, min_score: float) -> list[tuple[Box, float]]:
    model = _yolo(weights)
    names = {int(k): str(v).lower() for k, v in dict(model.names).items()}
    wanted = {k for k, v in names.items() if v == label or v + "s" == label or v == label.rstrip("s")}
    if not wanted:
        raise ValueError(f"the YOLO model has no class {label!r}; it knows: {', '.join(sorted(names.values()))}")
    result = model.predict(cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), verbose=False, conf=min_score)[0]
    out = []
    for xyxy, cls, conf in zip(result.boxes.xyxy.tolist(), result.boxes.cls.tolist(), result.boxes.conf.tolist(),
                               strict=False):
        if int(cls) in wanted:
            out.append((Box(*xyxy), float(conf)))
    return out


def detect_objects(
    image: Image.Image, label: str, backend: str = "auto", weights: str | None = None, min_score: float = 0.25
) -> CountResult:
    """Find every ``label`` in ``image``, de-duplicated by NMS and numbered in reading order.

    ``backend``: "haar" (faces), "hog" (people), "yolo" (needs ``weights``, a local .pt file, and ultralytics),
    or "auto": faces -> haar, people -> hog, anything else -> yolo when ``weights`` is given.
    """
    rgb = check_image(image)
    name = label.strip().lower()
    if not name:
        raise ValueError("label must name what to detect, e.g. 'face' or 'person'")
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; use one of {', '.join(BACKENDS)}")
    if backend == "auto":
        if weights:
            backend = "yolo"
        elif name in FACE_LABELS:
            backend = "haar"
        elif name in PERSON_LABELS:
            backend = "hog"
        else:
            raise ValueError(
                f"no offline detector for {label!r}: faces and people work out of the box; for other objects "
                "configure YOLO weights (backend='yolo', weights=PATH)"
            )
    if backend == "haar":
        if name not in FACE_LABELS:
            raise ValueError(f"the Haar back end detects faces only, not {label!r}")
        found, method, target = _haar_faces(rgb, min_score), "OpenCV Haar cascade (frontal faces)", "face"
    elif backend == "hog":
        if name not in PERSON_LABELS:
            raise ValueError(f"the HOG back end detects people only, not {label!r}")
        found, method, target = _hog_people(rgb, min_score), "OpenCV HOG people detector", "person"
    else:
        if not weights:
            raise ValueError("the YOLO back end needs weights=PATH to a local model file (.pt)")
        found, method, target = _yolo_objects(rgb, name, weights, min_score), f"YOLO ({Path(weights).name})", name
    boxes, scores = [b for b, _ in found], [s for _, s in found]
    keep = nms(boxes, scores, 0.4)
    keep.sort(key=lambda i: (round(boxes[i].y0 / max(boxes[i].height, 1.0)), boxes[i].x0))
    detections = [Detection(n, target, boxes[i], scores[i]) for n, i in enumerate(keep, 1)]
    notes = [f"{len(found) - len(keep)} overlapping detection(s) merged"] if len(keep) < len(found) else []
    w, h = rgb.shape[1], rgb.shape[0]
    plural = {"person": "people", "face": "faces"}.get(target, target if target.endswith("s") else target + "s")
    return CountResult(target if len(detections) == 1 else plural, len(detections), detections, method, (w, h),
                       {}, notes, annotate(rgb, detections))
