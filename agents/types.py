"""The data of a live run as the loop sees it: a ``Run`` made of ``Step``s, and the events streamed while it grows.

``Step`` (with its ``ToolCall``s and ``ModelCall``s) is the one trajectory type from the loop to storage, UI,
replay and exports; it is defined in ``storage/records.py`` because storage, the lowest layer, must read and write
it too. A ``Run`` holds the live image; its stored counterpart is ``storage.RunRecord``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from PIL import Image

from storage.records import RunStatus, Step

__all__ = ["Event", "Run", "RunStatus", "Step"]


@dataclass
class Run:
    """A question about an image, and every step taken to answer it.

    Outcomes (``status``): ``done`` (an answer in the form the question asks, backed by evidence, with a
    confidence), ``abstained`` (no answer; ``reason`` names what is missing), ``failed`` (no expert or tool could
    produce evidence; ``reason`` carries the errors), ``cancelled`` (stopped by the user), ``interrupted``."""

    question: str
    image: Image.Image
    policy: str
    id: str | None = None
    steps: list[Step] = field(default_factory=list)
    status: RunStatus = "running"
    answer: str | None = None
    reason: str | None = None
    confidence: float | None = None
    answer_form: dict[str, Any] = field(default_factory=dict)
    forced_answer: bool = False
    error: str | None = None
    latency_ms: float = 0.0
    vote: dict[str, Any] = field(default_factory=dict)
    #: The candidate answer, its evidence and the calibration's decision and version (``agents.outcome``).
    trust: dict[str, Any] = field(default_factory=dict)

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
