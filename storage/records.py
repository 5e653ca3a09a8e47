"""Plain dataclasses that cross the storage boundary: runs, steps, tool calls, ratings, dataset items.

Callers build and receive only these; no SQLAlchemy object ever leaves ``storage``, so a record can be kept
after its session is closed, compared, or serialised with ``dataclasses.asdict``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

STEP_KINDS = ("think", "search", "answer")
STEP_STATUSES = ("ok", "error", "forced")
RUN_STATUSES = ("running", "done", "failed", "interrupted")
FINISHED_STATUSES = ("done", "failed", "interrupted")
VERDICTS = ("correct", "incorrect", "partial")
RATING_FILTERS = (*VERDICTS, "unrated")


@dataclass
class ToolCallRecord:
    """One vision-tool call made inside a search step; ``image_id`` is the annotated output, if any."""

    index: int
    tool: str
    args: dict[str, Any]
    summary: str
    latency_ms: float
    image_id: str | None = None
    error: str | None = None
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class StepRecord:
    """One completed step of a run, as the loop produced it."""

    index: int
    kind: str  # think | search | answer
    raw_text: str = ""
    think: str | None = None
    model: str | None = None
    skill: str | None = None
    level2: str | None = None
    level2_reason: str | None = None
    query: str | None = None
    observation: str | None = None
    answer: str | None = None
    status: str = "ok"  # ok | error | forced
    error: str | None = None
    latency_ms: float = 0
    policy_ms: float = 0
    tool_ms: float = 0
    expert_ms: float = 0
    tokens_in: int = 0
    tokens_out: int = 0
    routing: dict[str, Any] = field(default_factory=dict)  # why this (model, skill) pair was chosen
    artifacts: list[str] = field(default_factory=list)  # image ids: crops, annotated images
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    id: int | None = None
    created_at: datetime | None = None


@dataclass
class RatingRecord:
    """A person's verdict on a whole run (``step_index`` None) or on one of its steps."""

    id: int
    run_id: str
    step_index: int | None
    rater: str
    verdict: str  # correct | incorrect | partial
    score: float | None
    corrected_answer: str | None
    comment: str | None
    step_marks: dict[str, Any]
    created_at: datetime


@dataclass
class RunRecord:
    """A stored run with its steps (ordered) and ratings (oldest first)."""

    id: str
    created_at: datetime
    question: str
    image_id: str
    policy: str
    registry_hash: str
    status: str  # running | done | failed | interrupted
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
    steps: list[StepRecord]
    ratings: list[RatingRecord]


@dataclass
class RunSummary:
    """One row of a run listing; ``models``/``skills`` are aligned per search step, ``rating`` is the latest verdict."""

    id: str
    created_at: datetime
    question: str
    status: str
    answer: str | None
    latency_ms: float | None
    skills: list[str]
    models: list[str]
    rating: str | None
    image_id: str
    dataset: str | None = None
    item_id: str | None = None


@dataclass
class DatasetItem:
    """One item of an evaluation set as stored in the ``items`` table."""

    item_id: str
    question: str
    answer: str | None = None
    image_id: str | None = None
    category: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
