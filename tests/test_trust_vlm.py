"""Every answer is checked against what the tools read, whatever produced it: a VLM orchestrator's free text that
contradicts the OCR reading, or that rests on an expert that was down, timed out or answered HTTP 500, never ends
``done``. Real HTTP servers on loopback play the orchestrator (scripted protocol turns) and the broken expert; the
real ``Tools`` expert reads a rendered sign with RapidOCR; runs go to a real SQLite store through ``Maestro``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from agents.config import Settings
from agents.runtime import Maestro
from tests.local_http import JsonHandler, serve
from tests.test_vlm_policy import FONT, MODEL, ChatHandler, Script

QUESTION = "What is written on the sign?"


class BrokenExpert(JsonHandler):
    mode = "500"

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        self.rfile.read(int(self.headers["Content-Length"]))
        if self.mode == "500":
            self.send_json(500, {"error": {"message": "CUDA out of memory"}})
        elif self.mode == "garbage":
            self.send_json(200, b"<html>502 Bad Gateway</html>")
        else:  # "slow": longer than the expert's timeout
            time.sleep(5)


@pytest.fixture(scope="module")
def sign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A road sign that OCR reads as HARBOR ROAD EXIT 17."""
    image = Image.new("RGB", (760, 220), (250, 250, 245))
    ImageDraw.Draw(image).text((40, 75), "HARBOR ROAD EXIT 17", fill=(15, 15, 15), font=ImageFont.truetype(FONT, 56))
    image.save(path := tmp_path_factory.mktemp("img") / "sign.png")
    return path


@pytest.fixture(scope="module")
def orchestrator() -> Iterator[tuple[str, Script]]:
    script = Script()
    with serve(ChatHandler, script=script) as url:
        yield f"{url}/v1", script


def open_app(tmp_path: Path, orchestrator_url: str, expert_url: str | None = None) -> Maestro:
    expert = "" if expert_url is None else f"""
  - name: Remote-VLM
    description: A remote VLM expert.
    backend: openai
    base_url: {expert_url}/v1
    model: qwen
    timeout_s: 1
    retries: 0"""
    registry = tmp_path / "registry.yaml"
    registry.write_text(f"""
orchestrator: {{policy: vlm, expert: Orchestrator, max_turns: 2, run_budget_s: 60}}
experts:
  - name: Orchestrator
    description: The orchestrator model itself.
    backend: openai
    base_url: {orchestrator_url}
    model: {MODEL}
    retries: 0
  - name: Tools
    description: Deterministic vision tools, no neural model.
    backend: tools{expert}
""", encoding="utf-8")
    return Maestro.open(Settings.resolve(data_dir=tmp_path / "home", registry_path=registry))


def turns(pair: str, answer: str) -> list[str]:
    return [f"<think>Read the sign.</think>\n<search> {pair}: What is written on the sign? </search>",
            f"<think>The sign says it.</think>\n<answer>{answer}</answer>"]


def ask_scripted(orchestrator: tuple[str, Script], replies: list[str], sign: Path, tmp_path: Path):
    """Run QUESTION with the orchestrator playing ``replies``; the live run, the stored one and the app."""
    url, script = orchestrator
    script.replies[:] = replies
    app = open_app(tmp_path, url)
    run = app.ask(sign, QUESTION)
    return run, app.store.get_run(run.id), app


def test_free_text_that_contradicts_the_ocr_reading_does_not_end_done(orchestrator: tuple[str, Script], sign: Path,
                                                                       tmp_path: Path) -> None:
    run, stored, _ = ask_scripted(orchestrator, turns("Tools@@OCR", "BANANA STREET 99"), sign, tmp_path)
    assert run.status == "abstained" and run.answer is None and stored.status == "abstained"
    assert "contradicts what the tools read" in run.reason and "HARBOR" in run.reason
    assert stored.trust["evidence"]["check"] == "contradicted" and stored.trust["candidate"] == "BANANA STREET 99"


def test_free_text_supported_by_the_reading_is_verified(orchestrator: tuple[str, Script], sign: Path,
                                                        tmp_path: Path) -> None:
    run, stored, app = ask_scripted(orchestrator, turns("Tools@@OCR", "HARBOR ROAD EXIT 17"), sign, tmp_path)
    assert stored.trust["evidence"]["check"] == "verified" and stored.trust["evidence"]["source"] == "tools"
    # The calibration that scored it is recorded with the run, so a replay can explain the confidence.
    assert stored.calibration == app.registry.calibration.version == stored.trust["calibration"]
    assert run.status in ("done", "abstained")
    if run.status == "abstained":  # withheld only by the calibrated threshold, never by a contradiction
        assert "precision" in run.reason


def test_the_orchestrators_own_words_without_any_evidence_do_not_end_done(orchestrator: tuple[str, Script],
                                                                         sign: Path, tmp_path: Path) -> None:
    url, script = orchestrator
    script.replies[:] = ["<think>I know this one.</think>\n<answer>BANANA STREET 99</answer>"]
    run = open_app(tmp_path, url).ask(sign, "What is the name of the street this sign points to?")
    assert run.status != "done" and run.answer is None
    assert run.trust["evidence"]["source"] == "orchestrator"


@pytest.mark.parametrize("mode", ["down", "500", "garbage", pytest.param("slow", marks=pytest.mark.slow)])
def test_with_the_expert_failing_the_run_does_not_end_done_on_the_orchestrators_words(
        orchestrator: tuple[str, Script], sign: Path, tmp_path: Path, mode: str) -> None:
    url, script = orchestrator
    script.replies[:] = turns("Remote-VLM@@OCR", "BANANA STREET 99")
    if mode == "down":
        app = open_app(tmp_path, url, "http://127.0.0.1:9")  # nothing listens on the discard port
        run = app.ask(sign, QUESTION)
    else:
        with serve(BrokenExpert, mode=mode) as expert_url:
            app = open_app(tmp_path, url, expert_url)
            run = app.ask(sign, QUESTION)
    stored = app.store.get_run(run.id)
    assert run.status == stored.status != "done" and stored.answer is None
    assert run.status in ("failed", "abstained")
