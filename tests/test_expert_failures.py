"""An expert that is down, answers HTTP 500 or garbage, or times out: the run is ``failed`` (with the errors, not
"done" with a non-answer), ``maestro ask`` exits non-zero, and the run ends within its time budget. Real HTTP
against a local server, as a vLLM endpoint would be reached."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw

from agents.config import Settings
from agents.runtime import Maestro
from tests.local_http import JsonHandler, serve

REPO = Path(__file__).resolve().parent.parent
QUESTION = "How many people are in the image?"


class Broken(JsonHandler):
    """An OpenAI-compatible server that fails the way the class attribute ``mode`` says."""

    mode = "500"
    calls: list[float]

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        self.calls.append(time.monotonic())
        self.rfile.read(int(self.headers["Content-Length"]))
        if self.mode == "500":
            self.send_json(500, {"error": {"message": "CUDA out of memory"}})
        elif self.mode == "garbage":
            self.send_json(200, b"<html>502 Bad Gateway</html>")
        elif self.mode == "slow":
            time.sleep(30)


def registry(tmp_path: Path, base_url: str, *, timeout_s: float = 2, budget_s: float = 300) -> Path:
    path = tmp_path / "registry.yaml"
    path.write_text(f"""
orchestrator: {{policy: keyword, run_budget_s: {budget_s}}}
experts:
  - name: Remote-VLM
    backend: openai
    base_url: {base_url}/v1
    model: qwen
    timeout_s: {timeout_s}
    retries: 2
""")
    return path


@pytest.fixture
def crowd(tmp_path: Path) -> Path:
    image = Image.new("RGB", (320, 240), "white")
    ImageDraw.Draw(image).ellipse((100, 60, 180, 140), outline="black", width=3)
    path = tmp_path / "crowd.png"
    image.save(path)
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def ask(tmp_path: Path, reg: Path, image: Path) -> Any:
    maestro = Maestro.open(Settings.resolve(data_dir=tmp_path / "home", registry_path=reg))
    started = time.monotonic()
    run = maestro.ask(image, QUESTION)
    return run, time.monotonic() - started, maestro.store.get_run(run.id)


@pytest.mark.parametrize("mode", [pytest.param("500", marks=pytest.mark.slow), "garbage"])
def test_an_expert_that_errors_makes_the_run_fail_with_its_error(tmp_path: Path, crowd: Path, mode: str) -> None:
    with serve(Broken, mode=mode, calls=[]) as url:
        run, _, stored = ask(tmp_path, registry(tmp_path, url), crowd)
    assert run.status == "failed" and run.answer is None
    assert stored.status == "failed" and stored.answer is None
    expected = "HTTP 500" if mode == "500" else "malformed JSON"
    assert expected in stored.reason and "Remote-VLM@@Counting" in stored.reason
    search = next(s for s in stored.steps if s.kind == "search")
    # The exact prompt that was sent is kept with the error, so the failure can be reproduced.
    assert search.model_calls and search.model_calls[0].error and search.model_calls[0].messages


@pytest.mark.slow
def test_an_unreachable_expert_fails_fast(tmp_path: Path, crowd: Path) -> None:
    run, elapsed, stored = ask(tmp_path, registry(tmp_path, f"http://127.0.0.1:{free_port()}"), crowd)
    assert stored.status == "failed" and "could not be reached" in stored.reason
    assert elapsed < 10


@pytest.mark.slow
def test_a_timing_out_expert_ends_within_the_budget_and_ask_exits_non_zero(tmp_path: Path, crowd: Path) -> None:
    with serve(Broken, mode="slow", calls=[]) as url:
        reg = registry(tmp_path, url, timeout_s=2, budget_s=5)
        env = {**os.environ, "MAESTRO_HOME": str(tmp_path / "home")}
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "ui.cli", "ask", str(crowd), QUESTION, "--registry", str(reg),
                               "--json"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
        elapsed = time.monotonic() - started
    assert done.returncode == 3, done.stderr
    # Either the expert's attempts timed out, or (on a loaded machine) the budget ran out first; never an answer.
    assert '"status": "failed"' in done.stdout
    assert "timed out after 2 s" in done.stdout or "time budget" in done.stdout
    assert elapsed < 20  # two attempts of 2 s, no third once the 5 s budget cannot hold it, plus start-up


@pytest.mark.slow
def test_retries_stop_when_the_run_budget_is_spent(tmp_path: Path, crowd: Path) -> None:
    with serve(Broken, mode="slow", calls=[]) as url:
        run, elapsed, stored = ask(tmp_path, registry(tmp_path, url, timeout_s=10, budget_s=3), crowd)
    assert stored.status == "failed" and elapsed < 8
    assert "timed out after" in stored.reason
