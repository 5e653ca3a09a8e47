"""The data of a run as the loop sees it: a ``Run`` made of ``Step``s, and the events streamed while it grows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from PIL import Image

from skills.base import ToolCall

StepKind = Literal["think", "search", "answer"]
RunStatus = Literal["running", "done", "failed", "interrupted"]


@dataclass
class Step:
    """One orchestrator turn and what the system did with it."""

    index: int
    kind: StepKind
    raw_text: str = ""
    think: str | None = None
    model: str | None = None
    skill: str | None = None
    level2: str | None = None
    level2_reason: str | None = None
    query: str | None = None
    observation: str | None = None  # sanitised text that went into <information>
    answer: str | None = None
    status: Literal["ok", "error", "forced"] = "ok"
    error: str | None = None
    violations: list[str] = field(default_factory=list)
    latency_ms: float = 0.0
    policy_ms: float = 0.0
    tool_ms: float = 0.0
    expert_ms: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    routing: dict[str, Any] = field(default_factory=dict)
    tool_calls: list[ToolCall] = field(default_factory=list)
    extra_images: list[Image.Image] = field(default_factory=list)
    settled_answer: str | None = None  # what the skill's tools settled, for policies that read structure

    @property
    def overhead_ms(self) -> float:
        """Wall time not spent in the policy, the tools or the expert: the loop's own cost."""
        return max(0.0, self.latency_ms - self.policy_ms - self.tool_ms - self.expert_ms)


@dataclass
class Run:
    """A question about an image, and every step taken to answer it."""

    question: str
    image: Image.Image
    policy: str
    id: str | None = None
    steps: list[Step] = field(default_factory=list)
    status: RunStatus = "running"
    answer: str | None = None
    forced_answer: bool = False
    error: str | None = None
    latency_ms: float = 0.0

    @property
    def tokens_in(self) -> int:
        return sum(s.tokens_in for s in self.steps)

    @property
    def tokens_out(self) -> int:
        return sum(s.tokens_out for s in self.steps)

    @property
    def cost(self) -> float:
        return sum(s.cost for s in self.steps)

    def trajectory(self) -> list[str]:
        """The protocol text: each policy turn followed by its ``<information>`` block, as the policy saw it."""
        from agents.protocol import render_information

        parts: list[str] = []
        for step in self.steps:
            parts.append(step.raw_text)
            if step.kind == "search" and step.observation is not None:
                parts.append(render_information(step.observation))
        return parts


@dataclass
class Event:
    """Emitted by the loop: ``run_started``, ``step_started`` (the policy is thinking), ``action`` (a search was
    chosen and its skill is running; ``step`` is partly filled), ``step`` (a finished step), ``run_finished``."""

    kind: Literal["run_started", "step_started", "action", "step", "run_finished"]
    run: Run
    step: Step | None = None
