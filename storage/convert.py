"""Conversions between ORM rows and the plain records of ``storage.records`` (nothing ORM leaves the package)."""

from __future__ import annotations

from typing import Any

from storage.models import Item, Rating, Run, Step, ToolCall, utcnow
from storage.records import DatasetItem, RatingRecord, RunRecord, RunSummary, StepRecord, ToolCallRecord


def step_row(step: StepRecord) -> Step:
    """A new ``Step`` row (with its tool-call rows) for ``step``; numbers are coerced so odd types still store."""
    calls = [
        ToolCall(index=int(c.index), tool=c.tool, args=dict(c.args or {}), summary=c.summary or "",
                 latency_ms=float(c.latency_ms or 0), image_id=c.image_id, error=c.error, data=dict(c.data or {}))
        for c in step.tool_calls
    ]
    return Step(
        index=int(step.index), kind=step.kind, raw_text=step.raw_text or "", think=step.think, model=step.model,
        skill=step.skill, level2=step.level2, level2_reason=step.level2_reason, query=step.query,
        observation=step.observation, answer=step.answer, status=step.status, error=step.error,
        latency_ms=float(step.latency_ms or 0), policy_ms=float(step.policy_ms or 0),
        tool_ms=float(step.tool_ms or 0), expert_ms=float(step.expert_ms or 0), tokens_in=int(step.tokens_in or 0),
        tokens_out=int(step.tokens_out or 0), routing=dict(step.routing or {}), artifacts=list(step.artifacts or []),
        created_at=utcnow(), tool_calls=calls)


def tool_call_record(row: ToolCall) -> ToolCallRecord:
    return ToolCallRecord(index=row.index, tool=row.tool, args=dict(row.args or {}), summary=row.summary,
                          latency_ms=row.latency_ms, image_id=row.image_id, error=row.error, data=dict(row.data or {}))


def step_record(row: Step) -> StepRecord:
    return StepRecord(
        index=row.index, kind=row.kind, raw_text=row.raw_text, think=row.think, model=row.model, skill=row.skill,
        level2=row.level2, level2_reason=row.level2_reason, query=row.query, observation=row.observation,
        answer=row.answer, status=row.status, error=row.error, latency_ms=row.latency_ms, policy_ms=row.policy_ms,
        tool_ms=row.tool_ms, expert_ms=row.expert_ms, tokens_in=row.tokens_in, tokens_out=row.tokens_out,
        routing=dict(row.routing or {}), artifacts=list(row.artifacts or []),
        tool_calls=[tool_call_record(c) for c in row.tool_calls], id=row.id, created_at=row.created_at)


def rating_record(row: Rating) -> RatingRecord:
    return RatingRecord(id=row.id, run_id=row.run_id, step_index=row.step_index, rater=row.rater,
                        verdict=row.verdict, score=row.score, corrected_answer=row.corrected_answer,
                        comment=row.comment, step_marks=dict(row.step_marks or {}), created_at=row.created_at)


def run_record(row: Run) -> RunRecord:
    return RunRecord(
        id=row.id, created_at=row.created_at, question=row.question, image_id=row.image_id, policy=row.policy,
        registry_hash=row.registry_hash, status=row.status, answer=row.answer, latency_ms=row.latency_ms,
        tokens_in=row.tokens_in, tokens_out=row.tokens_out, cost=row.cost, error=row.error,
        forced_answer=row.forced_answer, config=dict(row.config or {}), finished_at=row.finished_at,
        dataset=row.dataset, item_id=row.item_id, expected=row.expected,
        steps=[step_record(s) for s in row.steps], ratings=[rating_record(r) for r in row.ratings])


def run_summary(row: Run, verdict: str | None, pairs: list[tuple[str, str]]) -> RunSummary:
    return RunSummary(id=row.id, created_at=row.created_at, question=row.question, status=row.status,
                      answer=row.answer, latency_ms=row.latency_ms, skills=[s for _, s in pairs],
                      models=[m for m, _ in pairs], rating=verdict, image_id=row.image_id, dataset=row.dataset,
                      item_id=row.item_id)


def dataset_item(row: Item) -> DatasetItem:
    extra: dict[str, Any] = dict(row.extra or {})
    return DatasetItem(item_id=row.item_id, question=row.question, answer=row.answer, image_id=row.image_id,
                       category=row.category, extra=extra)
