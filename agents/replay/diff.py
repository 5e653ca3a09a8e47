"""What differs between two stored runs, step by step: the pair chosen, the query, the tool outputs, the observation,
the settled answer, the final answer or abstention, the confidence — and, kept apart, the timings.

Timings always differ, so they never count as a difference: two runs whose every other field agrees are
"identical apart from timings". Whether a tool call was reused from storage is provenance, not outcome, and is not
compared either; its output (summary, data, evidence image) is. Steps are paired by index; a step only one run has
is a difference of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from storage import RunRecord, Step, ToolCall

#: Run fields compared, in the order they are reported.
RUN_FIELDS = ("status", "answer", "reason", "confidence", "forced_answer", "error")
#: Step fields compared (the pair chosen, what was asked, what came back, what it settled).
STEP_FIELDS = ("kind", "model", "skill", "level2", "query", "status", "error", "think", "observation",
               "settled_answer", "confidence", "missing", "answer")
#: Tool-call fields compared: which tool, with what, and its output.
CALL_FIELDS = ("tool", "args", "summary", "data", "image_id", "error")
#: Text fields that may quote a duration ("python ok in 41 ms"): durations in them are not differences.
_TIMED_TEXT = frozenset({"summary", "observation"})
_DURATION = re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|s)\b")


@dataclass
class StepDiff:
    """One step position: the fields that differ (name -> [a, b]) and both latencies."""

    index: int
    differences: dict[str, list[Any]] = field(default_factory=dict)
    only_in: str | None = None  # "a" or "b" when only one run has this step
    latency_ms: list[float | None] = field(default_factory=list)
    title: list[str | None] = field(default_factory=list)  # e.g. "search Tools@@OCR" on each side

    @property
    def same(self) -> bool:
        return not self.differences and self.only_in is None

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "same": self.same, "only_in": self.only_in, "title": self.title,
                "differences": self.differences, "latency_ms": self.latency_ms}


@dataclass
class RunDiff:
    """The comparison of run ``a`` with run ``b``."""

    run_a: str
    run_b: str
    run: dict[str, list[Any]]
    steps: list[StepDiff]
    latency_ms: list[float | None]
    related: str | None  # "b reruns a", "a reruns b" or None

    @property
    def identical(self) -> bool:
        """Everything but timings agrees."""
        return not self.run and all(step.same for step in self.steps)

    @property
    def changed_steps(self) -> list[int]:
        return [step.index for step in self.steps if not step.same]

    def headline(self) -> str:
        """One plain sentence saying whether the runs differ, and where."""
        if self.identical:
            return "identical apart from timings"
        parts = []
        if self.changed_steps:
            parts.append("step" + ("s " if len(self.changed_steps) > 1 else " ")
                         + ", ".join(str(i + 1) for i in self.changed_steps)
                         + (" differ" if len(self.changed_steps) > 1 else " differs"))
        if self.run:
            parts.append("the outcome differs (" + ", ".join(self.run) + ")")
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {"run_a": self.run_a, "run_b": self.run_b, "identical_apart_from_timings": self.identical,
                "headline": self.headline(), "related": self.related, "run": self.run,
                "latency_ms": self.latency_ms, "steps": [step.to_dict() for step in self.steps]}


def diff_runs(a: RunRecord, b: RunRecord) -> RunDiff:
    """Compare two stored runs (see the module docstring)."""
    run = {name: [getattr(a, name), getattr(b, name)] for name in RUN_FIELDS
           if getattr(a, name) != getattr(b, name)}
    if a.question != b.question or a.image_id != b.image_id:
        run["question_or_image"] = [f"{a.question} [{a.image_id[:12]}]", f"{b.question} [{b.image_id[:12]}]"]
    steps = [_diff_step(i, _at(a.steps, i), _at(b.steps, i)) for i in range(max(len(a.steps), len(b.steps)))]
    related = "b reruns a" if b.parent_run_id == a.id else "a reruns b" if a.parent_run_id == b.id else None
    return RunDiff(a.id, b.id, run, steps, [a.latency_ms, b.latency_ms], related)


def step_title(step: Step | None) -> str | None:
    if step is None:
        return None
    if step.kind == "search":
        return f"search {step.model}@@{step.skill}" + (f" · {step.level2}" if step.level2 else "")
    return step.kind


def _at(steps: list[Step], index: int) -> Step | None:
    return steps[index] if index < len(steps) else None


def _diff_step(index: int, a: Step | None, b: Step | None) -> StepDiff:
    diff = StepDiff(index, latency_ms=[a.latency_ms if a else None, b.latency_ms if b else None],
                    title=[step_title(a), step_title(b)])
    if a is None or b is None:
        diff.only_in = "a" if b is None else "b"
        return diff
    for name in STEP_FIELDS:
        if _differ(name, getattr(a, name), getattr(b, name)):
            diff.differences[name] = [getattr(a, name), getattr(b, name)]
    if sorted(a.artifacts) != sorted(b.artifacts):
        diff.differences["artifacts"] = [a.artifacts, b.artifacts]
    for i in range(max(len(a.tool_calls), len(b.tool_calls))):
        diff.differences.update(_diff_call(i, _call_at(a.tool_calls, i), _call_at(b.tool_calls, i)))
    return diff


def _call_at(calls: list[ToolCall], index: int) -> ToolCall | None:
    return calls[index] if index < len(calls) else None


def _diff_call(index: int, a: ToolCall | None, b: ToolCall | None) -> dict[str, list[Any]]:
    prefix = f"tool_calls[{index}]"
    if a is None or b is None:
        return {prefix: [a.tool if a else None, b.tool if b else None]}
    return {f"{prefix}.{name}": [getattr(a, name), getattr(b, name)] for name in CALL_FIELDS
            if _differ(name, getattr(a, name), getattr(b, name))}


def _differ(name: str, a: Any, b: Any) -> bool:
    if a == b:
        return False
    if name in _TIMED_TEXT and isinstance(a, str) and isinstance(b, str):
        return _DURATION.sub("<duration>", a) != _DURATION.sub("<duration>", b)
    return True
