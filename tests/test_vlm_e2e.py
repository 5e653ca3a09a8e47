"""End to end on CPU: a tiny random Qwen2-VL as both the VLM orchestrator and an expert, through ``transformers``.

The registry is written by the test (policy ``vlm``; the tiny model as ``Tiny-Orchestrator`` and as the expert
``Tiny``, sharing one set of loaded weights; plus ``Tools``) and used through ``Maestro.open(...).ask(...)`` on a
rendered image. The real processor, chat template and ``generate`` run on every turn. The tiny model writes
gibberish, so the orchestrator run almost surely ends failed; the tests assert what is stored and that it is
honest, whatever the gibberish is.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

pytest.importorskip("torch")
pytest.importorskip("transformers")

from agents.config import Settings  # noqa: E402
from agents.experts.transformers_backend import TransformersExpert  # noqa: E402
from agents.policies.base import ScriptedPolicy  # noqa: E402
from agents.policies.vlm import VLMPolicy  # noqa: E402
from agents.runtime import Maestro  # noqa: E402
from tests.tiny_vlm import build_tiny_qwen2vl  # noqa: E402

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
MAX_TURNS = 2
ACTION_TOKENS = 12


@pytest.fixture(scope="module")
def tiny_vlm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_qwen2vl(tmp_path_factory.mktemp("tiny-qwen2vl"))


@pytest.fixture(scope="module")
def circles(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("img") / "circles.png"
    image = Image.new("RGB", (360, 240), "white")
    draw = ImageDraw.Draw(image)
    for i in range(3):
        draw.ellipse((30 + 110 * i, 80, 110 + 110 * i, 160), outline=(200, 40, 40), width=5)
    draw.text((20, 10), "How many circles?", fill="black", font=ImageFont.truetype(FONT, 22))
    image.save(path)
    return path


@pytest.fixture
def maestro(tiny_vlm: Path, tmp_path: Path) -> Maestro:
    registry = tmp_path / "registry.yaml"
    registry.write_text(f"""
orchestrator:
  policy: vlm
  expert: Tiny-Orchestrator
  max_turns: {MAX_TURNS}
experts:
  - name: Tiny-Orchestrator
    backend: transformers
    model_path: {tiny_vlm}
    device: cpu
    max_tokens: {ACTION_TOKENS}
  - name: Tiny
    description: A tiny random Qwen2-VL (gibberish, real plumbing).
    backend: transformers
    model_path: {tiny_vlm}
    device: cpu
    max_tokens: {ACTION_TOKENS}
    strengths: [Science]
  - name: Tools
    backend: tools
""", encoding="utf-8")
    return Maestro.open(Settings.resolve(data_dir=tmp_path / "home", registry_path=registry))


@pytest.mark.slow
def test_tiny_vlm_orchestrates_and_the_run_is_stored_honestly(maestro: Maestro, circles: Path) -> None:
    assert isinstance(maestro.policy, VLMPolicy)
    result = maestro.ask(circles, "How many circles are in the image?")

    stored = maestro.store.get_run(result.id)
    assert stored is not None and stored.status == result.status
    assert stored.policy == "vlm" and stored.config["max_turns"] == MAX_TURNS
    assert 1 <= len(stored.steps) <= MAX_TURNS + 1
    assert [s.index for s in stored.steps] == list(range(len(stored.steps)))
    for live, saved in zip(result.steps, stored.steps, strict=True):
        assert saved.raw_text == live.raw_text  # exactly what the model wrote (cut after an action tag)
        # Every turn went through the real chat template with the image: ~54 image tokens plus the prompt.
        assert saved.tokens_in > 54
        assert 0 < saved.tokens_out <= ACTION_TOKENS
        assert saved.policy_ms > 0
        assert saved.routing["orchestrator"] == "Tiny-Orchestrator"
        if saved.status == "error":
            assert saved.error and saved.violations, saved
    assert stored.tokens_in == sum(s.tokens_in for s in stored.steps)
    assert stored.tokens_out == sum(s.tokens_out for s in stored.steps)

    if stored.status == "done":
        last = stored.steps[-1]
        assert last.kind == "answer" and stored.answer == last.answer
        assert stored.forced_answer == (len(stored.steps) == MAX_TURNS + 1)
    elif stored.status == "abstained":
        # A valid answer turn whose text is not a count (random models write gibberish): withheld, with why.
        assert stored.answer is None and "a whole number" in (stored.reason or "")
    else:
        # The honest outcome for a random model: no valid answer in T_max turns plus the forced one.
        assert stored.status == "failed" and stored.answer is None
        assert f"no valid answer within {MAX_TURNS} turns" in (stored.reason or "")
        assert len(stored.steps) == MAX_TURNS + 1
        assert any(s.violations for s in stored.steps)


@pytest.mark.slow
def test_tiny_vlm_as_an_expert_through_a_skill(maestro: Maestro, circles: Path) -> None:
    turns = ["<think>Ask the tiny expert.</think><search> Tiny@@Science: How many circles? </search>",
             "<think>Done.</think><answer>3</answer>"]
    result = maestro.ask(circles, "How many circles are in the image?", policy=ScriptedPolicy(turns))
    # An expert with no rated record, whose reply no tool checked: the answer is withheld, and says why.
    assert result.status == "abstained" and "too few rated examples of this kind" in result.reason
    assert result.trust["candidate"] == "3" and result.trust["evidence"]["source"] == "expert:Tiny"
    search = maestro.store.get_run(result.id).steps[0]
    assert (search.kind, search.model, search.skill, search.status) == ("search", "Tiny", "Science", "ok")
    # The expert's reply (gibberish, possibly empty) is the observation; its tokens and time are counted.
    assert search.observation
    assert search.tokens_in > 54 and 0 < search.tokens_out <= ACTION_TOKENS and search.expert_ms > 0
    # Orchestrator and expert entries name the same folder, so one model is loaded and shared.
    orchestrator = maestro.registry.expert("Tiny-Orchestrator")
    expert = maestro.registry.expert("Tiny")
    assert isinstance(expert, TransformersExpert) and orchestrator is not expert
    assert orchestrator.load() is expert.load()
