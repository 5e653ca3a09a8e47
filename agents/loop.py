"""The run loop: drive a policy turn by turn, execute each ``<search>`` through the registry, stop at ``<answer>``.

At most ``max_turns`` policy turns; a run that reaches the limit without an answer gets one forced final-answer turn
and is marked as such. A malformed turn is recorded (with its violations) and the policy is asked again with a
hint; an expert or skill that fails becomes a failed step whose observation says so, and the run goes on. Every
step is emitted as an ``Event`` the moment it completes, so a UI can stream it and storage can commit it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PIL import Image

from agents import protocol
from agents.policies.base import Context, Policy
from agents.types import Event, Run, Step
from skills.base import ToolTrace
from skills.runner import choose_level2, run_skill

EventSink = Callable[[Event], None]


def run(question: str, image: Image.Image, *, registry: Any, policy: Policy, max_turns: int | None = None,
        on_event: EventSink | None = None) -> Run:
    """Answer ``question`` about ``image``; returns the finished ``Run`` (status done, failed or interrupted)."""
    max_turns = max_turns or registry.orchestrator.max_turns
    emit = on_event or (lambda event: None)
    started = time.perf_counter()
    current = Run(question=question, image=image, policy=policy.name)
    emit(Event("run_started", current))
    try:
        _drive(current, registry, policy, max_turns, emit)
    except KeyboardInterrupt:
        current.status, current.error = "interrupted", "interrupted by the user"
        _finish(current, started, emit)
        raise
    except Exception as exc:  # a policy that crashes ends the run honestly, with its steps kept
        current.status, current.error = "failed", f"{type(exc).__name__}: {exc}"
    _finish(current, started, emit)
    return current


def _finish(current: Run, started: float, emit: EventSink) -> None:
    current.latency_ms = (time.perf_counter() - started) * 1000
    emit(Event("run_finished", current))


def _drive(current: Run, registry: Any, policy: Policy, max_turns: int, emit: EventSink) -> None:
    models, skills = registry.model_names, registry.skill_names
    repair_hint: str | None = None
    for turn in range(max_turns + 1):
        force = turn == max_turns
        ctx = Context(current.question, current.image, registry, current.steps, max_turns, turn,
                      force_answer=force, repair_hint=repair_hint)
        emit(Event("step_started", current))
        step = _take_turn(ctx, policy, models, skills, registry, lambda s: emit(Event("action", current, s)))
        current.steps.append(step)
        emit(Event("step", current, step))
        if step.kind == "answer" and step.status != "error":
            current.answer, current.status = step.answer, "done"
            current.forced_answer = force
            return
        repair_hint = "; ".join(step.violations) if step.violations else None
    current.status = "failed"
    current.error = f"no valid answer after {max_turns} turns and a forced final turn"


def _take_turn(ctx: Context, policy: Policy, models: protocol.Names, skills: protocol.Names, registry: Any,
               on_action: Callable[[Step], None]) -> Step:
    started = time.perf_counter()
    reply = policy.next_turn(ctx)
    policy_ms = (time.perf_counter() - started) * 1000
    parsed = protocol.parse_turn(reply.text, models, skills)
    step = Step(index=len(ctx.steps), kind="think", raw_text=reply.text, think=parsed.think, policy_ms=policy_ms,
                tokens_in=reply.tokens_in, tokens_out=reply.tokens_out, routing=reply.routing,
                violations=[f"{v.code}: {v.message}" for v in parsed.violations])
    action = parsed.action
    if isinstance(action, protocol.Answer):
        step.kind, step.answer = "answer", action.text
        if ctx.force_answer:
            step.status = "forced"
    elif isinstance(action, protocol.Search) and not ctx.force_answer:
        step.kind, step.model, step.skill, step.query = "search", action.model, action.skill, action.query
        on_action(step)  # the pair is chosen; a UI can say "Tools@@OCR: reading text…" while the skill runs
        execute_search(step, ctx, registry)
    elif isinstance(action, protocol.Search):
        step.status, step.error = "error", "the turn limit was reached but the policy searched instead of answering"
    if parsed.violations and step.kind != "search":
        step.status = "error"
        step.error = step.error or "malformed turn: " + "; ".join(step.violations)
    step.latency_ms = (time.perf_counter() - started) * 1000
    return step


def execute_search(step: Step, ctx: Context, registry: Any) -> None:
    """Run the (expert, skill) pair of a search ``step`` in place; any failure becomes the step's error and an
    honest observation. Public because RL rollouts (training/) must produce exactly the app's observations."""
    limit = registry.orchestrator.observation_max_chars
    trace = ToolTrace()
    try:
        expert = registry.expert(step.model)
        skill = registry.skill(step.skill)
        choice = choose_level2(skill.spec.level2, f"{ctx.question}\n{step.query or ''}")
        step.level2, step.level2_reason = choice.level2.name, choice.reason
        result, _ = run_skill(skill, query=step.query or "", question=ctx.question, image=ctx.image,
                              expert=expert, trace=trace, level2=choice)
    except Exception as exc:
        step.status, step.error = "error", f"{type(exc).__name__}: {exc}"
        step.tool_calls, step.tool_ms = trace.calls, trace.total_ms
        step.observation = protocol.sanitize_observation(f"The call {step.model}@@{step.skill} failed: {exc}")
        return
    step.tool_calls, step.tool_ms = trace.calls, trace.total_ms
    step.expert_ms = result.expert_ms
    step.tokens_in += result.tokens_in
    step.tokens_out += result.tokens_out
    step.extra_images = result.extra_images
    step.settled_answer = result.answer
    step.cost = registry.expert_spec(step.model).cost.of(result.tokens_in, result.tokens_out)
    # Cut huge outputs before sanitising (its cost grows with length); sanitising still runs on what is kept.
    raw = result.observation[: limit * 10]
    step.observation = protocol.truncate_observation(protocol.sanitize_observation(raw), limit)
