"""The trajectory types, one each from the loop to storage, UI, replay and exports; and the other plain records.

``Step`` (one orchestrator turn and what the system did with it), ``ToolCall`` (one vision-tool call inside a
step) and ``ModelCall`` (one exact prompt sent to a model and its raw reply) are created by the loop and the
skills, written by ``Store.add_step`` and read back by ``Store.get_run`` as the very same classes; the ORM mapping
(``storage/convert.py``) copies every field that has a column of the same name. Fields marked transient (the live
PIL images) exist only in memory: the recorder stores their pixels and keeps the content ids instead.

No SQLAlchemy object ever leaves ``storage``: callers exchange only these dataclasses, so a record can be kept after
its session is closed, compared, or serialised with ``dataclasses.asdict``.
"""

from __future__ import annotations

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


@dataclass
class RatingVersion:
    """A rating version that is no longer live (``rating_history``): replaced by an edit, or undone."""

    id: int
    rating_id: int
    run_id: str
    step_index: int | None
    rater: str
    verdict: Verdict
    corrected_answer: str | None
    comment: str | None
    step_marks: dict[str, Any]
    updated_at: datetime  # when this version was saved
    replaced_at: datetime  # when it stopped being live
    change: str  # "edited" | "undone"
    score: float | None = None


@dataclass
class RunRecord:
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


@dataclass
class RunSummary:
    """One row of a run listing; ``models``/``skills`` are aligned per search step, ``rating`` is the latest verdict."""

    id: str
    created_at: datetime
    question: str
    status: RunStatus
    answer: str | None
    latency_ms: float | None
    skills: list[str]
    models: list[str]
    rating: str | None
    image_id: str
    dataset: str | None = None
    item_id: str | None = None
    reason: str | None = None
    confidence: float | None = None


@dataclass
class DatasetItem:
    """One item of an evaluation set as stored in the ``items`` table."""

    item_id: str
    question: str
    answer: str | None = None
    image_id: str | None = None
    category: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
