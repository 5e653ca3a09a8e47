"""Read-only queries the web pages need that the ``Store`` API does not offer (yet): recent ratings across all
runs, and per (expert, skill) call counts with the share of rated runs judged correct.

They read the storage models through the store's own engine, one short session each. If ``storage`` grows
``recent_ratings`` / ``pair_stats`` methods, these become thin wrappers.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from storage.models import Rating, Run, Step


@dataclass
class RatingRow:
    """One rating with the question of its run, for the Rate tab's history."""

    id: int
    created_at: datetime
    rater: str
    verdict: str
    run_id: str
    question: str
    answer: str | None
    corrected_answer: str | None
    comment: str | None
    step_marks: dict[str, Any]


@dataclass
class PairStats:
    """How often an (expert, skill) pair was called, and how its rated runs were judged."""

    model: str
    skill: str
    calls: int
    runs: int
    rated_runs: int
    correct_runs: int

    @property
    def correct_share(self) -> float | None:
        return self.correct_runs / self.rated_runs if self.rated_runs else None


def recent_ratings(store: Any, *, limit: int = 50, offset: int = 0) -> list[RatingRow]:
    """Ratings newest first, each with its run's question and answer."""
    query = (select(Rating, Run.question, Run.answer).join(Run, Run.id == Rating.run_id)
             .order_by(Rating.id.desc()).limit(max(0, limit)).offset(max(0, offset)))
    with Session(store.engine) as session:
        return [RatingRow(id=r.id, created_at=r.created_at, rater=r.rater, verdict=r.verdict, run_id=r.run_id,
                          question=question, answer=answer, corrected_answer=r.corrected_answer, comment=r.comment,
                          step_marks=dict(r.step_marks or {}))
                for r, question, answer in session.execute(query)]


def count_ratings(store: Any) -> int:
    with Session(store.engine) as session:
        return int(session.scalar(select(func.count()).select_from(Rating)) or 0)


def pair_stats(store: Any) -> list[PairStats]:
    """Per (expert, skill): search calls, distinct runs, runs with a whole-run rating, and those rated correct
    (a run's latest whole-run verdict counts)."""
    latest_id = (select(Rating.run_id, func.max(Rating.id).label("rid")).where(Rating.step_index.is_(None))
                 .group_by(Rating.run_id).subquery())
    verdicts = select(Rating.run_id, Rating.verdict).join(latest_id, Rating.id == latest_id.c.rid).subquery()
    query = (select(Step.model, Step.skill, func.count(Step.id), func.count(func.distinct(Step.run_id)),
                    func.count(func.distinct(verdicts.c.run_id)),
                    func.count(func.distinct(_correct_run(verdicts))))
             .outerjoin(verdicts, verdicts.c.run_id == Step.run_id)
             .where(Step.kind == "search")
             .group_by(Step.model, Step.skill).order_by(func.count(Step.id).desc()))
    with Session(store.engine) as session:
        return [PairStats(model or "", skill or "", int(calls), int(runs), int(rated), int(correct))
                for model, skill, calls, runs, rated, correct in session.execute(query)]


def _correct_run(verdicts: Any) -> Any:
    return case((verdicts.c.verdict == "correct", verdicts.c.run_id), else_=None)
