"""The run loop: drive a policy turn by turn, execute each ``<search>`` through the registry, stop at ``<answer>``.

At most ``max_turns`` policy turns; a run that reaches the limit without an answer gets one forced final-answer turn
and is marked as such. A malformed turn is recorded (with its violations) and the policy is asked again with a
hint; an expert or skill that fails becomes a failed step whose observation says so, and the run goes on. The final
answer is settled by ``agents.outcome``: ``done`` only in the form the question asks and backed by evidence,
otherwise ``abstained`` with a reason, or ``failed`` when nothing could produce evidence. The whole run lives
within the registry's time budget (``agents.budget``), and a ``cancel`` event stops it between turns. Every step is
emitted as an ``Event`` the moment it completes, so a UI can stream it and storage can commit it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from PIL import Image

from agents import budget, protocol
from agents.outcome import settle_for
from agents.policies.base import Context, Policy
from agents.registry import Registry
from skills.answer_form import AnswerForm, answer_form
from skills.base import ToolTrace
from skills.runner import choose_level2, run_skill
from storage.trace import Event, Run, Step

EventSink = Callable[[Event], None]


def run(question: str, image: Image.Image, *, registry: Registry, policy: Policy, max_turns: int | None = None,
        on_event: EventSink | None = None, form: AnswerForm | None = None,
        cancel: threading.Event | None = None) -> Run:
    """Answer ``question`` about ``image``; returns the finished ``Run`` (never ``running``)."""
    spec = registry.orchestrator
    max_turns = max_turns or spec.max_turns
    form = form or answer_form(question)
    emit = on_event or (lambda event: None)
    started = time.perf_counter()
    current = Run(question=question, image=image, policy=policy.name, answer_form=form.to_dict())
    emit(Event("run_started", current))
    try:
        with budget.run_budget(spec.run_budget_s):
            _drive(current, registry, policy, max_turns, form, emit, cancel)
    except KeyboardInterrupt:
        current.status, current.reason = "interrupted", "interrupted by the user"
        _finish(current, started, emit)
        raise
    except budget.BudgetExceeded:
        current.status = "failed"
        current.reason = f"the run's time budget of {spec.run_budget_s:g} s ran out before an answer"
    except Exception as exc:  # a policy that crashes ends the run honestly, with its steps kept
        current.status, current.error = "failed", f"{type(exc).__name__}: {exc}"
        current.reason = f"the orchestrator failed: {current.error}"
    _finish(current, started, emit)
    return current


def _finish(current: Run, started: float, emit: EventSink) -> None:
    current.latency_ms = (time.perf_counter() - started) * 1000
    emit(Event("run_finished", current))


def _drive(current: Run, registry: Registry, policy: Policy, max_turns: int, form: AnswerForm, emit: EventSink,
           cancel: threading.Event | None) -> None:
    models, skills = registry.model_names, registry.skill_names
    repair_hint: str | None = None
    for turn in range(max_turns + 1):
        if cancel is not None and cancel.is_set():
            current.status, current.reason = "cancelled", "stopped by the user"
            return
        force = turn == max_turns
        ctx = Context(current.question, current.image, registry, current.steps, max_turns, turn,
                      force_answer=force, repair_hint=repair_hint, form=form)
        emit(Event("step_started", current))
        step = _take_turn(ctx, policy, models, skills, registry, lambda s: emit(Event("action", current, s)))
        current.steps.append(step)
        emit(Event("step", current, step))
        if step.kind == "answer" and step.status != "error":
            _settle(current, step.answer, registry, form)
            current.forced_answer = force
            return
        left = budget.remaining()
        if left is not None and left < budget.MIN_USEFUL_S:
            _settle(current, None, registry, form)
            current.reason = (f"the run's time budget of {registry.orchestrator.run_budget_s:g} s ran out "
                              f"before an answer: {current.reason}")
            return
        repair_hint = "; ".join(step.violations) if step.violations else None
    # The orchestrator never wrote a usable answer turn: the system failed, it did not choose to abstain.
    current.status, current.answer = "failed", None
    current.reason = f"the orchestrator wrote no valid answer within {max_turns} turns and a forced final turn"


def _settle(current: Run, answer: str | None, registry: Registry, form: AnswerForm) -> None:
    outcome = settle_for(registry, answer, current.steps, form)
    current.status, current.answer = outcome.status, outcome.answer
    current.reason, current.confidence, current.trust = outcome.reason, outcome.confidence, outcome.trust


def _take_turn(ctx: Context, policy: Policy, models: protocol.Names, skills: protocol.Names, registry: Registry,
               on_action: Callable[[Step], None]) -> Step:
    started = time.perf_counter()
    reply = policy.next_turn(ctx)
    policy_ms = (time.perf_counter() - started) * 1000
    parsed = protocol.parse_turn(reply.text, models, skills)
    step = Step(index=len(ctx.steps), kind="think", raw_text=reply.text, think=parsed.think, policy_ms=policy_ms,
                tokens_in=reply.tokens_in, tokens_out=reply.tokens_out, routing=reply.routing.to_dict() if reply.routing else {},
                violations=[f"{v.code}: {v.message}" for v in parsed.violations],
                model_calls=list(reply.model_calls))
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


def execute_search(step: Step, ctx: Context, registry: Registry) -> None:
    """Run the (expert, skill) pair of a search ``step`` in place; any failure becomes the step's error and an
    honest observation. Public because RL rollouts (training/) must produce exactly the app's observations."""
    limit = registry.orchestrator.observation_max_chars
    trace = ToolTrace()
    try:
        budget.check()
        expert = registry.expert(step.model or "")
        skill = registry.skill(step.skill or "")
        choice = choose_level2(skill.spec.level2, f"{ctx.question}\n{step.query or ''}")
        step.level2, step.level2_reason = choice.level2.name, choice.reason
        result, _ = run_skill(skill, query=step.query or "", question=ctx.question, image=ctx.image,
                              expert=expert, trace=trace, level2=choice)
    except Exception as exc:
        step.status, step.error = "error", f"{type(exc).__name__}: {exc}"
        step.tool_calls, step.tool_ms = trace.calls, trace.total_ms
        step.model_calls += trace.model_calls
        step.observation = protocol.sanitize_observation(f"The call {step.model}@@{step.skill} failed: {exc}")
        return
    step.tool_calls, step.tool_ms = trace.calls, trace.total_ms
    step.model_calls += trace.model_calls
    step.expert_ms = result.expert_ms
    step.tokens_in += result.tokens_in
    step.tokens_out += result.tokens_out
    step.extra_images = result.extra_images
    step.settled_answer = result.answer
    step.confidence = result.confidence
    step.missing = result.missing
    step.cost = registry.expert_spec(step.model or "").cost.of(result.tokens_in, result.tokens_out)
    # Cut huge outputs before sanitising (its cost grows with length); sanitising still runs on what is kept.
    raw = result.observation[: limit * 10]
    step.observation = protocol.truncate_observation(protocol.sanitize_observation(raw), limit)
