"""The run loop: turns, searches through the registry, forced answers, malformed turns, failures, events."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from agents.loop import run
from agents.policies.base import ScriptedPolicy
from agents.protocol import render_information
from agents.registry import load_registry

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def registry():
    return load_registry(FIXTURES / "registry_echo.yaml")


@pytest.fixture
def image() -> Image.Image:
    return Image.new("RGB", (64, 48), "white")


def test_search_then_answer_records_every_step(registry, image) -> None:
    events = []
    policy = ScriptedPolicy([
        "<think>Echo it.</think>\n<search> Tools@@Echo: repeat hello </search>",
        "<think>The echo said hello.</think>\n<answer>hello</answer>",
    ])
    at_emit = []  # what each event's step looked like at the moment it was emitted
    result = run("say hello", image, registry=registry, policy=policy,
                 on_event=lambda e: (events.append(e), at_emit.append(e.step and (e.step.skill, e.step.observation))))

    # The answer agrees with what the Echo tool settled, so it carries that tool's confidence.
    assert result.status == "done" and result.answer == "hello" and not result.forced_answer
    assert result.confidence == 0.9
    search, answer = result.steps
    assert (search.kind, search.model, search.skill, search.query) == ("search", "Tools", "Echo", "repeat hello")
    assert search.level2 == "Plain Echo" and "repeat" in search.level2_reason
    assert search.observation == "64x48 repeat hello"
    assert [c.tool for c in search.tool_calls] == ["size"] and search.tool_calls[0].summary == "64x48"
    assert search.tool_calls[0].image is image
    assert search.latency_ms >= search.policy_ms + search.tool_ms + search.expert_ms
    assert answer.kind == "answer" and answer.think == "The echo said hello."
    kinds = [e.kind for e in events]
    assert kinds == ["run_started", "step_started", "action", "step", "step_started", "step", "run_finished"]
    assert at_emit[2] == ("Echo", None)  # the action event comes before the skill has run
    assert result.protocol_text(render_information)[1] == "<information>64x48 repeat hello</information>"


def test_aliases_resolve_to_canonical_names(registry, image) -> None:
    policy = ScriptedPolicy(["<think>x</think><search>other@@Echo-Skill: shout hi</search>",
                             "<think>y</think><answer>HI</answer>"])
    result = run("q", image, registry=registry, policy=policy)
    assert (result.steps[0].model, result.steps[0].skill, result.steps[0].level2) == ("Other-Tools", "Echo", "Loud Echo")
    assert result.steps[0].observation.endswith("SHOUT HI")


def test_observations_cannot_forge_protocol_tags(registry, image) -> None:
    from agents.protocol import validate_trajectory

    policy = ScriptedPolicy(["<think>x</think><search>Tools@@Echo: forge</search>",
                             "<think>y</think><answer>fine</answer>"])
    result = run("q", image, registry=registry, policy=policy)
    assert result.status == "done" and result.answer == "fine"
    observation = result.steps[0].observation
    assert "hacked" in observation  # the text is kept for the reader...
    for tag in ("<answer>", "</information>", "<search>", "<information>"):
        assert tag not in observation  # ...but no tag survives
    assert validate_trajectory(result.protocol_text(render_information), registry.model_names, registry.skill_names) == []


def test_the_turn_limit_forces_a_final_answer(registry, image) -> None:
    search = "<think>again</think><search>Tools@@Echo: repeat</search>"
    policy = ScriptedPolicy([search, search, search, "<think>enough</think><answer>done</answer>"])
    result = run("q", image, registry=registry, policy=policy, max_turns=3)
    assert result.status == "done" and result.forced_answer and result.answer == "done"
    assert [s.kind for s in result.steps] == ["search", "search", "search", "answer"]
    assert result.steps[-1].status == "forced"


def test_a_policy_that_never_answers_fails_honestly(registry, image) -> None:
    search = "<think>again</think><search>Tools@@Echo: repeat</search>"
    result = run("q", image, registry=registry, policy=ScriptedPolicy([search] * 5), max_turns=2)
    assert result.status == "failed" and result.answer is None
    assert "no valid answer" in result.reason
    assert result.steps[-1].status == "error" and len(result.steps) == 3


def test_malformed_and_unknown_names_become_visible_error_steps(registry, image) -> None:
    policy = ScriptedPolicy([
        "<think>oops<search>Tools@@Echo: unbalanced</search>",
        "<think>who?</think><search>GPT-9@@Echo: hi</search>",
        "<think>ok</think><answer>recovered</answer>",
    ])
    result = run("q", image, registry=registry, policy=policy)
    assert result.status == "done" and result.answer == "recovered"
    first, second, _ = result.steps
    assert first.status == "error" and first.violations
    assert second.status == "error" and any("unknown_model" in v for v in second.violations)


def test_a_crashing_skill_keeps_its_tool_calls_and_the_run_goes_on(registry, image) -> None:
    policy = ScriptedPolicy(["<think>x</think><search>Tools@@Crashy: go</search>",
                             "<think>it failed</think><answer>unknown</answer>"])
    result = run("q", image, registry=registry, policy=policy)
    step = result.steps[0]
    assert step.status == "error" and "the skill broke" in step.error
    assert [c.tool for c in step.tool_calls] == ["noop"]
    assert "failed" in step.observation
    # Its only source of evidence broke: the run failed (with the error), it did not answer "unknown".
    assert result.status == "failed" and result.answer is None and "the skill broke" in result.reason


def test_a_crashing_policy_ends_the_run_as_failed_with_its_steps(registry, image) -> None:
    class Flaky:
        name = "flaky"

        def next_turn(self, ctx):
            if ctx.turn == 0:
                return ScriptedPolicy(["<think>x</think><search>Tools@@Echo: repeat</search>"]).next_turn(ctx)
            raise ConnectionError("orchestrator server went away")

    result = run("q", image, registry=registry, policy=Flaky())
    assert result.status == "failed" and "orchestrator server went away" in result.error
    assert len(result.steps) == 1 and result.steps[0].kind == "search"
