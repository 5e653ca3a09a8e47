"""The plain records storage hands out besides the trace: rating history, run listings and dataset items.

The trace types (``Step``, ``ToolCall``, ``ModelCall``, ``RunRecord`` with its ``RatingRecord``s, and the live
``Run``) are in ``storage/trace.py``. No SQLAlchemy object ever leaves ``storage``: callers exchange only
dataclasses, so a record can be kept after its session is closed, compared, or serialised.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from storage.trace import RunStatus, Verdict


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
