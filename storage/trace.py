"""The trace: one type per concept from the loop to storage, UI, replay and exports.

``Step`` (one orchestrator turn and what the system did with it), ``ToolCall`` (one vision-tool call inside a
step) and ``ModelCall`` (one exact prompt sent to a model and its raw reply) are created by the loop and the
skills, written by ``Store.add_step`` and read back by ``Store.get_run`` as the very same classes; the ORM rows
(``storage/models.py``: ``RunRow``, ``StepRow``, ``ToolCallRow``) are mapped by ``storage/convert.py``, which copies
every field that has a column of the same name. ``Run`` is a live run (it holds the PIL image) and ``RunRecord``
the same run as stored (with its ratings); ``Event`` is what the loop streams while a run grows.

Every trace type has ``to_json()`` (plain JSON values: what ``maestro runs show --json`` and the web API print) and
the step-bearing ones have ``to_messages()`` (the orchestrator's turns and the system's replies as chat messages).
The ``<information>`` wrapper is passed in by the caller (``agents.protocol.render_information``): the turn
grammar has one owner, and storage imports nothing of the rest of the project.

Fields marked transient (the live PIL images) exist only in memory: the recorder stores their pixels and keeps
the content ids instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from PIL import Image

StepKind = Literal["think", "search", "answer"]
StepStatus = Literal["ok", "error", "forced"]
RunStatus = Literal["running", "done", "abstained", "failed", "cancelled", "interrupted"]
Verdict = Literal["correct", "incorrect", "partial"]

STEP_KINDS: tuple[StepKind, ...] = ("think", "search", "answer")
STEP_STATUSES: tuple[StepStatus, ...] = ("ok", "error", "forced")
RUN_STATUSES: tuple[RunStatus, ...] = ("running", "done", "abstained", "failed", "cancelled", "interrupted")
FINISHED_STATUSES: tuple[RunStatus, ...] = ("done", "abstained", "failed", "cancelled", "interrupted")
VERDICTS: tuple[Verdict, ...] = ("correct", "incorrect", "partial")
RATING_FILTERS = (*VERDICTS, "unrated")

#: ``field(metadata=TRANSIENT)``: kept in memory only, never stored (live images; storage keeps their ids).
TRANSIENT = {"transient": True}


#: Wraps an observation as the system's protocol reply (``agents.protocol.render_information``), sanitising it.
InformationRenderer = Callable[[str], str]


def _chat(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "content": [{"type": "text", "text": text}]}


def transient(default_factory: Any = None) -> Any:
    """A dataclass field that lives only in memory (see ``TRANSIENT``)."""
    if default_factory is None:
        return field(default=None, repr=False, compare=False, metadata=TRANSIENT)
    return field(default_factory=default_factory, repr=False, compare=False, metadata=TRANSIENT)


@dataclass
class ToolCall:
    """One vision-tool call inside a search step: a recorded sub-step that replay shows exactly.

    ``image`` is the live annotated output; once stored, ``image_id`` is its content address. ``cache_key``
    identifies the call by tool, arguments and input image, so a rerun can reuse its output (``reused``); ``output``
    is the live result object, which the recorder stores in a re-loadable form under that key."""

    index: int
    tool: str
    args: dict[str, Any]
    summary: str
    latency_ms: float
    image_id: str | None = None
    error: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    cache_key: str | None = None
    reused: bool = False
    #: Version of the tool's family (its code and thresholds) when the call ran; part of ``cache_key``.
    tool_version: str | None = None
    image: Image.Image | None = transient()
    output: object = transient()

    def to_json(self) -> dict[str, Any]:
        """What a reader of a run's JSON needs of a tool call (its full data stays in storage)."""
        return {"tool": self.tool, "summary": self.summary, "latency_ms": round(self.latency_ms, 2),
                "reused": self.reused}


@dataclass
class ModelCall:
    """One call to a model (an expert inside a skill, or the orchestrator): the exact messages sent (images as
    content ids), the raw reply before any sanitising, and what it cost."""

    role: str  # "expert" | "orchestrator"
    model: str  # the registry entry's name
    messages: list[dict[str, Any]]
    raw_reply: str
    tokens_in: int = 0
    tokens_out: int = 0
    latency_ms: float = 0.0
    error: str | None = None
    params: dict[str, Any] = field(default_factory=dict)  # temperature, max_tokens, seed…
    reasoning: str | None = None  # the model's reasoning, kept apart from ``raw_reply`` (never parsed)
    #: Boxes the reply gave, in original pixels of the question's image: [{"box": [x0, y0, x1, y1], "label"}].
    boxes: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out = {"role": self.role, "model": self.model, "messages": self.messages, "raw_reply": self.raw_reply,
               "tokens_in": self.tokens_in, "tokens_out": self.tokens_out, "latency_ms": self.latency_ms,
               "error": self.error, "params": self.params}
        if self.reasoning is not None:
            out["reasoning"] = self.reasoning
        if self.boxes:
            out["boxes"] = self.boxes
        return out

    def to_json(self) -> dict[str, Any]:
        """``to_dict`` with plain-JSON messages: images by content id (a live image not yet stored as ``<image>``)."""
        data = self.to_dict()
        data["messages"] = [
            {**m, "content": [p if not isinstance(p, dict) or "image" not in p else {"type": "image", "image_id": "<image>"}
                              for p in m["content"]]} if isinstance(m.get("content"), list) else m
            for m in data["messages"]]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelCall:
        return cls(role=str(data.get("role", "")), model=str(data.get("model", "")),
                   messages=list(data.get("messages") or []), raw_reply=str(data.get("raw_reply", "")),
                   tokens_in=int(data.get("tokens_in") or 0), tokens_out=int(data.get("tokens_out") or 0),
                   latency_ms=float(data.get("latency_ms") or 0.0), error=data.get("error"),
                   params=dict(data.get("params") or {}), reasoning=data.get("reasoning"),
                   boxes=list(data.get("boxes") or []))


@dataclass
class Step:
    """One orchestrator turn and what the system did with it."""

    index: int
    kind: StepKind
    raw_text: str = ""  # the policy's turn exactly as written
    think: str | None = None
    model: str | None = None
    skill: str | None = None
    level2: str | None = None
    level2_reason: str | None = None
    query: str | None = None
    observation: str | None = None  # sanitised text that went into <information>
    answer: str | None = None
    status: StepStatus = "ok"
    error: str | None = None
    violations: list[str] = field(default_factory=list)  # protocol violations of the turn (format reward)
    settled_answer: str | None = None  # what the skill's tools settled, in the form the question asks
    confidence: float | None = None  # how far the evidence supports the settled answer, 0-1
    missing: str | None = None  # when the skill settled nothing: what is missing
    latency_ms: float = 0.0
    policy_ms: float = 0.0
    tool_ms: float = 0.0
    expert_ms: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    routing: dict[str, Any] = field(default_factory=dict)  # why this (model, skill) pair was chosen
    artifacts: list[str] = field(default_factory=list)  # image ids: crops, annotated images
    tool_calls: list[ToolCall] = field(default_factory=list)
    model_calls: list[ModelCall] = field(default_factory=list)
    id: int | None = None
    created_at: datetime | None = None
    extra_images: list[Image.Image] = transient(list)  # live crops; stored as ``artifacts``

    @property
    def overhead_ms(self) -> float:
        """Wall time not spent in the policy, the tools or the expert: the loop's own cost."""
        return max(0.0, self.latency_ms - self.policy_ms - self.tool_ms - self.expert_ms)

    def to_json(self) -> dict[str, Any]:
        """The step as plain JSON, as ``maestro runs show --json`` prints it."""
        return {"index": self.index, "kind": self.kind, "status": self.status, "model": self.model,
                "skill": self.skill, "level2": self.level2, "query": self.query, "observation": self.observation,
                "answer": self.answer, "settled_answer": self.settled_answer, "confidence": self.confidence,
                "missing": self.missing, "error": self.error, "latency_ms": round(self.latency_ms, 2),
                "policy_ms": round(self.policy_ms, 2), "tool_ms": round(self.tool_ms, 2),
                "expert_ms": round(self.expert_ms, 2), "tokens_in": self.tokens_in, "tokens_out": self.tokens_out,
                "tool_calls": [c.to_json() for c in self.tool_calls],
                "model_calls": [c.to_json() for c in self.model_calls]}

    def to_messages(self, information: InformationRenderer) -> list[dict[str, Any]]:
        """The turn as chat messages: the policy's text (assistant), then for a search the system's reply
        (user), ``information(observation)``: the protocol's renderer, with whatever truncation the caller wants."""
        out = [_chat("assistant", self.raw_text)]
        if self.kind == "search":
            out.append(_chat("user", information(self.observation or "")))
        return out


@dataclass
class RatingRecord:
    """A person's verdict on a whole run (``step_index`` None) or on one of its steps."""

    id: int
    run_id: str
    step_index: int | None
    rater: str
    verdict: Verdict
    score: float | None
    corrected_answer: str | None
    comment: str | None
    step_marks: dict[str, Any]
    created_at: datetime  # when this annotator first rated it
    updated_at: datetime | None = None  # when this version was saved (edits and undo change it)
    boxes: list[dict[str, Any]] = field(default_factory=list)  # box corrections, in the image's own pixels


class _StepConversions:
    """The conversions a run has through its steps, shared by the stored ``RunRecord`` and the live ``Run``."""

    steps: list[Step]

    def to_messages(self, information: InformationRenderer) -> list[dict[str, Any]]:
        """The policy's turns and the system's replies after the question, as chat messages."""
        return [m for step in self.steps for m in step.to_messages(information)]

    def protocol_text(self, information: InformationRenderer) -> list[str]:
        """The protocol text: each policy turn, then the ``<information>`` of each search that got an observation."""
        return _protocol_text(self.steps, information)


@dataclass
class RunRecord(_StepConversions):
    """A stored run with its steps (ordered) and ratings (oldest first)."""

    id: str
    created_at: datetime
    question: str
    image_id: str
    policy: str
    registry_hash: str
    status: RunStatus
    answer: str | None
    latency_ms: float | None
    tokens_in: int
    tokens_out: int
    cost: float
    error: str | None
    forced_answer: bool
    config: dict[str, Any]
    finished_at: datetime | None
    dataset: str | None
    item_id: str | None
    expected: str | None
    steps: list[Step]
    ratings: list[RatingRecord]
    reason: str | None = None  # abstained: what is missing; failed: what went wrong
    confidence: float | None = None  # how far the evidence supports the answer, 0-1
    answer_form: dict[str, Any] = field(default_factory=dict)  # the form the question asks (skills.answer_form)
    parent_run_id: str | None = None  # the run this one reran
    vote: dict[str, Any] = field(default_factory=dict)  # self-consistency: answers, counts, agreement
    trust: dict[str, Any] = field(default_factory=dict)  # candidate, evidence, calibrated decision (agents.trust)
    calibration: str | None = None  # version of the calibration that scored the answer

    def to_json(self) -> dict[str, Any]:
        """The run as plain JSON (the same keys as a live ``Run.to_json``)."""
        return _run_json(self)




@dataclass
class Run(_StepConversions):
    """A live run: a question about an image, and every step taken to answer it (stored, it is a ``RunRecord``).

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

    def to_json(self) -> dict[str, Any]:
        """The run as plain JSON (the same keys as a stored ``RunRecord.to_json``)."""
        return _run_json(self)


@dataclass
class Event:
    """Emitted by the loop: ``run_started``, ``step_started`` (the policy is thinking), ``action`` (a search was
    chosen and its skill is running; ``step`` is partly filled), ``step`` (a finished step), ``run_finished``."""

    kind: Literal["run_started", "step_started", "action", "step", "run_finished"]
    run: Run
    step: Step | None = None


def _protocol_text(steps: Sequence[Step], information: InformationRenderer) -> list[str]:
    parts: list[str] = []
    for step in steps:
        parts.append(step.raw_text)
        if step.kind == "search" and step.observation is not None:
            parts.append(information(step.observation))
    return parts


def _run_json(run: Run | RunRecord) -> dict[str, Any]:
    return {
        "run_id": run.id, "status": run.status, "answer": run.answer, "reason": run.reason,
        "confidence": run.confidence, "answer_form": run.answer_form, "latency_ms": round(run.latency_ms or 0.0, 1),
        "forced_answer": run.forced_answer, "error": run.error, "vote": run.vote or None, "trust": run.trust or None,
        "steps": [s.to_json() for s in run.steps],
    }
