"""The documented offline-model workflow, as a user runs it: build the tiny model folder with ``python -m
tests.tiny_vlm``, then ``maestro doctor`` and ``maestro ask`` with the shipped ``assets/registries/tiny-offline.yaml``
(docs/experts.md, section 7). Real subprocesses, the real registry file, the transformers back end on a CPU."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

pytest.importorskip("torch")
pytest.importorskip("transformers")

REPO = Path(__file__).resolve().parent.parent
REGISTRY = REPO / "assets" / "registries" / "tiny-offline.yaml"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # Run from a scratch folder, as from the repository root: the registry's model_path is relative to it.
    env = {**os.environ, "PYTHONPATH": str(REPO), "MAESTRO_HOME": str(cwd / "home")}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_build_the_tiny_model_and_ask_through_the_shipped_registry(tmp_path: Path) -> None:
    built = run("-m", "tests.tiny_vlm", "models/tiny-qwen2vl", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    folder = tmp_path / "models" / "tiny-qwen2vl"
    assert built.stdout.strip().endswith("models/tiny-qwen2vl")
    assert {"config.json", "model.safetensors", "tokenizer.json", "preprocessor_config.json",
            "chat_template.jinja"} <= {p.name for p in folder.iterdir()}

    doctor = run("-m", "ui.cli", "doctor", "--registry", str(REGISTRY), "--json", cwd=tmp_path)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    [row] = json.loads(doctor.stdout)
    assert row["name"] == "Tiny" and row["ok"] and "weights at models/tiny-qwen2vl" in row["detail"]

    image = Image.new("RGB", (360, 240), "white")
    for i in range(3):
        ImageDraw.Draw(image).ellipse((30 + 110 * i, 80, 110 + 110 * i, 160), outline=(200, 40, 40), width=5)
    image.save(tmp_path / "circles.png")
    asked = run("-m", "ui.cli", "ask", "circles.png", "How many circles are there?", "--registry", str(REGISTRY),
                "--json", cwd=tmp_path)
    # A random model's answer may or may not be accepted; the run is stored either way.
    assert asked.returncode in (0, 1), asked.stderr
    result = json.loads(asked.stdout)
    called = [s for s in result["steps"] if s["model"] == "Tiny" and s["kind"] == "search"]
    # The image went through the real processor: 360x240 -> 252x168 px -> 9x6 merged patches = 54 image tokens,
    # plus the skill's prompt; at most the registry's max_tokens came back.
    assert called and called[0]["tokens_in"] > 54 and 0 < called[0]["tokens_out"] <= 16
    shown = run("-m", "ui.cli", "runs", "show", result["run_id"], "--json", cwd=tmp_path)
    assert shown.returncode == 0 and result["run_id"] in shown.stdout
