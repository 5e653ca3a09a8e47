"""How runs end: an answer only in the form the question asks and backed by evidence; otherwise an abstention that
says what is missing, or a failure when nothing could produce evidence."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PIL import Image

from agents.loop import run
from agents.outcome import abstention, abstention_reason, settle
from agents.policies.base import ScriptedPolicy
from agents.policies.keyword import KeywordPolicy
from agents.policies.router import RouterPolicy
from agents.registry import load_registry
from skills.answer_form import answer_form
from storage.trace import Step

FIXTURES = Path(__file__).parent / "fixtures"
MC = "Which is larger?\nA. North\nB. South\nAnswer with the option's letter from the given choices directly."


def search(settled: str | None = None, confidence: float | None = None, *, model: str = "Tools",
           error: str | None = None, missing: str | None = None) -> Step:
    return Step(index=0, kind="search", model=model, skill="Chart", settled_answer=settled, confidence=confidence,
                status="error" if error else "ok", error=error, missing=missing)


def outcome(answer: str | None, steps: list[Step], question: str = MC, neural: frozenset[str] = frozenset()):
    return settle(answer, steps, answer_form(question), min_confidence=0.5, expert_confidence=0.6,
                  neural_models=neural)


def test_an_answer_outside_the_offered_letters_is_withheld() -> None:
    result = outcome("E", [search("E", 0.99)])
    assert result.status == "abstained" and result.answer is None
    assert "one of the option letters A, B" in result.reason


def test_a_supported_letter_is_answered_with_the_tools_confidence() -> None:
    result = outcome("B. South", [search("B", 0.93)])
    assert (result.status, result.answer, result.confidence) == ("done", "B", 0.93)


def test_weak_evidence_abstains_and_says_so() -> None:
    result = outcome("B", [search("B", 0.3, missing=None)])
    assert result.status == "abstained" and result.answer is None and result.confidence == 0.3
    assert "too weak" in result.reason and "0.30" in result.reason


def test_a_non_answer_names_what_each_skill_was_missing() -> None:
    result = outcome(abstention("no chart axis was found"), [search(missing="no chart axis was found")])
    assert result.status == "abstained" and result.reason == "no chart axis was found"
    assert abstention_reason("I cannot answer: the total is cut off") == "the total is cut off"


def test_when_every_call_failed_the_run_failed_with_the_errors() -> None:
    result = outcome("I could not determine the answer.", [search(error="ExpertError: HTTP 500")])
    assert result.status == "failed" and "HTTP 500" in result.reason


def test_an_expert_contradicted_by_confident_tools_is_not_trusted() -> None:
    question = "How many circles are there?"
    neural = frozenset({"VLM"})
    agreeing = outcome("3", [search("3", 0.95, model="VLM")], question, neural)
    assert agreeing.status == "done" and agreeing.confidence == 0.95
    contradicted = outcome("5", [search("3", 0.95, model="VLM")], question, neural)
    assert contradicted.status == "abstained" and "contradicts what the tools read" in contradicted.reason
    unverified = outcome("5", [search(None, None, model="VLM")], question, neural)
    assert unverified.status == "done" and unverified.confidence == 0.6


@pytest.fixture(scope="module")
def registry():
    return load_registry(FIXTURES / "registry_echo.yaml")


@pytest.fixture
def image() -> Image.Image:
    return Image.new("RGB", (64, 48), "white")


def test_the_loop_withholds_a_low_confidence_settled_answer(registry, image) -> None:
    policy = ScriptedPolicy(["<think>Echo it.</think><search>Tools@@Echo: unsure: 42</search>",
                             "<think>It said 42.</think><answer>42</answer>"])
    result = run("repeat the number, what is the value?", image, registry=registry, policy=policy)
    assert result.status == "abstained" and result.answer is None and result.confidence == 0.2
    assert result.steps[0].settled_answer == "42" and result.steps[0].confidence == 0.2


def test_no_default_skill_answers_a_question_nothing_recognises(registry, image) -> None:
    result = run("Why do people like sunsets?", image, registry=registry, policy=KeywordPolicy())
    assert result.status == "abstained" and result.answer is None
    # Only the text fallback looked (agents.policies.fallback): it reads, and settles no span of a blank image.
    assert [(s.kind, s.skill) for s in result.steps] == [("search", "OCR"), ("answer", None)]
    assert "names nothing the skills recognise" in result.reason and "VLM expert" in result.reason


def test_the_router_says_when_only_the_fallback_looked(registry, image) -> None:
    result = run("Why do people like sunsets?", image, registry=registry,
                 policy=RouterPolicy(registry, explore=False, use_embeddings=False))
    assert result.status == "abstained"
    assert result.reason.startswith("the question names nothing the skills recognise"), result.reason


def test_a_cancelled_run_stops_between_turns(registry, image) -> None:
    cancel = threading.Event()
    policy = ScriptedPolicy(["<think>a</think><search>Tools@@Echo: repeat</search>",
                             "<think>b</think><answer>repeat</answer>"])
    events = []

    def on_event(event) -> None:
        events.append(event.kind)
        if event.kind == "step":
            cancel.set()

    result = run("repeat", image, registry=registry, policy=policy, on_event=on_event, cancel=cancel)
    assert result.status == "cancelled" and result.answer is None and len(result.steps) == 1
    assert events[-1] == "run_finished"


@pytest.mark.slow
def test_the_time_budget_ends_a_slow_run(tmp_path: Path, image) -> None:
    text = (FIXTURES / "registry_echo.yaml").read_text().replace("max_turns: 3", "max_turns: 3\n  run_budget_s: 1")
    (tmp_path / "registry.yaml").write_text(text.replace("skills_paths: [skills]",
                                                         f"skills_paths: [{FIXTURES / 'skills'}]"))
    slow = load_registry(tmp_path / "registry.yaml")
    policy = ScriptedPolicy(["<think>nap</think><search>Tools@@Sleepy: 1.5</search>",
                             "<think>again</think><search>Tools@@Sleepy: 1.5</search>",
                             "<think>done</think><answer>awake</answer>"])
    result = run("nap", image, registry=slow, policy=policy)
    assert result.status in ("abstained", "failed") and "time budget of 1 s ran out" in result.reason
    assert len(result.steps) == 1  # the second nap never started
