"""``maestro doctor``: every expert's reachability against real HTTP servers that are up, down or wrong.

An in-thread stdlib HTTP server plays an OpenAI-compatible ``/v1/models``; a port nobody listens on plays a server
that is down; a folder with a tiny Qwen2-VL ``config.json`` and one without play transformers weights present and
missing. The command runs as a real subprocess, so the exit code and the table are what a person sees.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.experts.serving import check_expert
from agents.registry import ExpertSpec
from tests.local_http import JsonHandler, models_reply, refused_url, serve

REPO = Path(__file__).resolve().parent.parent


class ModelsHandler(JsonHandler):
    def do_GET(self) -> None:
        self.send_json(200 if self.path == "/v1/models" else 404, models_reply("org/served"))


@pytest.fixture(scope="module")
def up() -> Iterator[str]:
    with serve(ModelsHandler) as url:
        yield f"{url}/v1"


@pytest.fixture
def down() -> str:
    return f"{refused_url()}/v1"


@pytest.fixture
def weights(tmp_path: Path) -> Path:
    folder = tmp_path / "tiny-weights"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "qwen2_vl"}), encoding="utf-8")
    return folder


def openai(name: str, url: str, model: str = "org/served") -> dict[str, Any]:
    return {"name": name, "backend": "openai", "base_url": url, "model": model, "retries": 0, "timeout_s": 5}


def doctor(registry: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ui.cli", "doctor", "--registry", str(registry), *args], cwd=REPO,
                          env={**os.environ, "COLUMNS": "250", "HF_HUB_OFFLINE": "1"}, capture_output=True,
                          text=True, timeout=120)


def write(path: Path, experts: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"experts": experts}), encoding="utf-8")  # JSON is YAML
    return path


def test_check_expert_per_backend(up: str, down: str, weights: Path, tmp_path: Path) -> None:
    serving = check_expert(ExpertSpec.model_validate(openai("Up", up)))
    assert serving.ok and serving.latency_ms is not None and serving.latency_ms > 0
    assert serving.detail == f"{up}: serving org/served"
    wrong = check_expert(ExpertSpec.model_validate(openai("Wrong", up, model="org/other")))
    assert not wrong.ok and "'org/other' not served (server has: org/served)" in wrong.detail
    refused = check_expert(ExpertSpec.model_validate(openai("Down", down)))
    assert not refused.ok and "unreachable" in refused.detail
    tools = check_expert(ExpertSpec.model_validate({"name": "Tools", "backend": "tools"}))
    assert tools.ok and tools.latency_ms is None
    local = check_expert(ExpertSpec.model_validate({"name": "Tiny", "backend": "transformers",
                                                    "model_path": str(weights)}))
    assert local.ok and str(weights) in local.detail and "torch " in local.detail
    missing = check_expert(ExpertSpec.model_validate({"name": "Gone", "backend": "transformers",
                                                      "model_path": str(tmp_path / "nowhere")}))
    assert not missing.ok and "no model weights at" in missing.detail


def test_uncached_hub_model_is_reported_not_fetched(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # an empty cache
    result = check_expert(ExpertSpec.model_validate({"name": "Hub", "backend": "transformers",
                                                     "model": "Qwen/Qwen2.5-VL-3B-Instruct"}))
    assert not result.ok and "not in the local Hugging Face cache" in result.detail
    assert "hf download Qwen/Qwen2.5-VL-3B-Instruct" in result.detail


@pytest.mark.slow
def test_doctor_table_and_exit_codes(up: str, down: str, weights: Path, tmp_path: Path) -> None:
    healthy = write(tmp_path / "healthy.yaml", [
        openai("Served-Expert", up), {"name": "Tiny", "backend": "transformers", "model_path": str(weights)},
        {"name": "Tools", "backend": "tools"}])
    result = doctor(healthy)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    for name in ["Served-Expert", "Tiny", "Tools"]:
        row = next(line for line in lines if f" {name} " in line)
        assert " ok " in row and "unreachable" not in row
    assert " ms " in next(line for line in lines if " Served-Expert " in line)

    broken = write(tmp_path / "broken.yaml", [openai("Served-Expert", up), openai("Dead-Expert", down),
                                              {"name": "Tools", "backend": "tools"}])
    result = doctor(broken)
    assert result.returncode == 1
    dead = next(line for line in result.stdout.splitlines() if " Dead-Expert " in line)
    assert "unreachable" in dead

    as_json = doctor(broken, "--json")
    assert as_json.returncode == 1
    rows = {row["name"]: row for row in json.loads(as_json.stdout)}
    assert (rows["Served-Expert"]["ok"], rows["Dead-Expert"]["ok"], rows["Tools"]["ok"]) == (True, False, True)
    assert rows["Dead-Expert"]["backend"] == "openai" and "unreachable" in rows["Dead-Expert"]["detail"]


def test_doctor_on_a_bad_registry_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("experts: []\n", encoding="utf-8")
    result = doctor(bad)
    assert result.returncode == 2 and result.stderr.startswith("error: ") and len(result.stderr.splitlines()) == 1
