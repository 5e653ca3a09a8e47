"""The skill handbook's tables: per-run credits and the per (expert, skill, Level-2) aggregate built from them.

A *credit* is what one run contributed for one (expert, skill, Level-2) triple: a success value in [0, 1] (its
verdict: 1 correct, 0 incorrect, 0.5 partial) and the measured cost of the calls it made with that triple. The
*entry* is the sum over all credits: a Beta(α, β) success posterior (prior Beta(1, 1)) and mean latency, tokens and
money per call. Credits are replaced per run (a re-rated run changes its own contribution, never twice), and each
touched entry is recomputed from its credits in the same transaction, so an incremental update and a rebuild from
scratch give the same numbers. Which run earns which credit is decided in ``agents.routing.handbook``; storage only keeps
the numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Float, ForeignKey, Index, Integer, delete, func, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from storage.locks import hold
from storage.models import Base, Rating, RunRow, SafeString, utcnow
from storage.store import load_run
from storage.trace import RunRecord

if TYPE_CHECKING:
    from storage.store import Store

#: Beta prior every entry starts from (uniform: no opinion before the first verdict).
PRIOR_ALPHA = 1.0
PRIOR_BETA = 1.0


class HandbookCredit(Base):
    __tablename__ = "handbook_credits"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(SafeString(32), ForeignKey("runs.id", ondelete="CASCADE"), index=True)
    expert: Mapped[str] = mapped_column(SafeString(200))
    skill: Mapped[str] = mapped_column(SafeString(200))
    level2: Mapped[str] = mapped_column(SafeString(200))
    success: Mapped[float] = mapped_column(Float)
    calls: Mapped[int] = mapped_column(Integer, default=1)
    latency_ms: Mapped[float] = mapped_column(Float, default=0.0)
    tokens: Mapped[int] = mapped_column(Integer, default=0)
    money: Mapped[float] = mapped_column(Float, default=0.0)
    source: Mapped[str] = mapped_column(SafeString(16))  # rating | eval
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (Index("ix_handbook_credits_expert_skill_level2", "expert", "skill", "level2"),)


class HandbookEntry(Base):
    __tablename__ = "handbook"

    expert: Mapped[str] = mapped_column(SafeString(200), primary_key=True)
    skill: Mapped[str] = mapped_column(SafeString(200), primary_key=True)
    level2: Mapped[str] = mapped_column(SafeString(200), primary_key=True)
    alpha: Mapped[float] = mapped_column(Float)
    beta: Mapped[float] = mapped_column(Float)
    runs: Mapped[int] = mapped_column(Integer)
    calls: Mapped[int] = mapped_column(Integer)
    latency_ms: Mapped[float] = mapped_column(Float)  # mean per call
    tokens: Mapped[float] = mapped_column(Float)  # mean per call
    money: Mapped[float] = mapped_column(Float)  # mean per call
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


@dataclass(frozen=True)
class Credit:
    """One run's contribution to one (expert, skill, Level-2) triple."""

    expert: str
    skill: str
    level2: str
    success: float
    calls: int = 1
    latency_ms: float = 0.0
    tokens: int = 0
    money: float = 0.0
    source: str = "rating"


@dataclass(frozen=True)
class HandbookRecord:
    """One handbook row: the Beta posterior and mean measured cost per call of an (expert, skill, Level-2)."""

    expert: str
    skill: str
    level2: str
    alpha: float
    beta: float
    runs: int
    calls: int
    latency_ms: float
    tokens: float
    money: float
    updated_at: datetime | None = None

    @property
    def mean(self) -> float:
        return self.alpha / (self.alpha + self.beta)

    @property
    def evidence(self) -> float:
        """Verdicts seen (α + β minus the prior)."""
        return self.alpha + self.beta - PRIOR_ALPHA - PRIOR_BETA

    def as_dict(self) -> dict[str, Any]:
        return {"expert": self.expert, "skill": self.skill, "level2": self.level2, "alpha": round(self.alpha, 3),
                "beta": round(self.beta, 3), "mean": round(self.mean, 4), "runs": self.runs, "calls": self.calls,
                "latency_ms": round(self.latency_ms, 1), "tokens": round(self.tokens, 1),
                "money": round(self.money, 6)}


def replace_credits(store: Store, run_id: str, credits: list[Credit]) -> list[tuple[str, str, str]]:
    """Make ``credits`` the run's whole contribution (an empty list withdraws it); returns the triples touched."""
    with store.transaction() as session:
        hold(session, "handbook")  # recomputing an entry must see every other writer's credits (storage.locks)
        return _replace(session, run_id, credits)


def _replace(session: Session, run_id: str, credits: list[Credit]) -> list[tuple[str, str, str]]:
    old = session.execute(select(HandbookCredit.expert, HandbookCredit.skill, HandbookCredit.level2)
                          .where(HandbookCredit.run_id == run_id)).all()
    session.execute(delete(HandbookCredit).where(HandbookCredit.run_id == run_id))
    session.add_all(_credit_rows(run_id, credits))
    session.flush()
    keys = sorted({(expert, skill, level2) for expert, skill, level2 in old}
                  | {(c.expert, c.skill, c.level2) for c in credits})
    for key in keys:
        _recompute(session, key)
    return keys


def replace_run_credits(store: Store, run_id: str,
                        credits_of: Callable[[RunRecord], list[Credit]]) -> list[tuple[str, str, str]]:
    """Like :func:`replace_credits`, with the credits worked out from the run as it is once the handbook lock is
    held: a rating that lands while another process updates the same run's credits is then never overwritten by
    credits computed before it. ``KeyError`` if there is no such run."""
    with store.transaction() as session:
        hold(session, "handbook")
        run = load_run(session, run_id)
        if run is None:
            raise KeyError(f"no run {run_id!r}")
        return _replace(session, run_id, credits_of(run))


def rebuild(store: Store, credits_by_run: dict[str, list[Credit]]) -> int:
    """Drop every credit and entry and store ``credits_by_run`` afresh, in one transaction; returns entry count."""
    with store.transaction() as session:
        hold(session, "handbook")
        session.execute(delete(HandbookCredit))
        session.execute(delete(HandbookEntry))
        for run_id, credits in credits_by_run.items():
            session.add_all(_credit_rows(run_id, credits))
        session.flush()
        keys = session.execute(select(HandbookCredit.expert, HandbookCredit.skill, HandbookCredit.level2)
                               .distinct()).all()
        for expert, skill, level2 in keys:
            _recompute(session, (expert, skill, level2))
        return len(keys)


def entries(store: Store, *, expert: str | None = None, skill: str | None = None) -> list[HandbookRecord]:
    """Handbook rows (optionally of one expert / skill), ordered by skill, Level-2, expert."""
    query = select(HandbookEntry)
    if expert:
        query = query.where(HandbookEntry.expert == expert)
    if skill:
        query = query.where(HandbookEntry.skill == skill)
    query = query.order_by(HandbookEntry.skill, HandbookEntry.level2, HandbookEntry.expert)
    with store.reading() as session:
        return [_record(row) for row in session.scalars(query)]


def credited_runs(store: Store) -> set[str]:
    """Ids of the runs that currently contribute to the handbook."""
    with store.reading() as session:
        return set(session.scalars(select(HandbookCredit.run_id).distinct()))


def feedback_run_ids(store: Store) -> list[str]:
    """Finished runs that may earn credit (answered, abstained or failed): those with a whole-run rating, or an
    expected answer (evaluations). The same runs ``agents.routing.handbook.run_outcome`` judges, so a rebuild equals the
    incremental updates."""
    rated = select(Rating.run_id).where(Rating.step_index.is_(None))
    query = (select(RunRow.id).where(RunRow.status.in_(("done", "abstained", "failed")))
             .where(RunRow.id.in_(rated) | RunRow.expected.is_not(None)).order_by(RunRow.created_at, RunRow.id))
    with store.reading() as session:
        return list(session.scalars(query))


def skill_outcomes(store: Store, *, limit: int = 2000) -> list[tuple[str, str, str, float]]:
    """(question, expert, skill, success) of the most recent credits, newest first: every verdict routing can learn
    from, failures as well as successes."""
    query = (select(RunRow.question, HandbookCredit.expert, HandbookCredit.skill, HandbookCredit.success)
             .join(RunRow, RunRow.id == HandbookCredit.run_id).order_by(HandbookCredit.id.desc())
             .limit(max(0, int(limit))))
    with store.reading() as session:
        return [(question, expert, skill, float(success)) for question, expert, skill, success
                in session.execute(query)]


def _credit_rows(run_id: str, credits: list[Credit]) -> list[HandbookCredit]:
    now = utcnow()
    return [HandbookCredit(run_id=run_id, expert=c.expert, skill=c.skill, level2=c.level2,
                           success=min(1.0, max(0.0, float(c.success))), calls=max(0, int(c.calls)),
                           latency_ms=float(c.latency_ms), tokens=int(c.tokens), money=float(c.money),
                           source=c.source, created_at=now) for c in credits]


def _recompute(session: Session, key: tuple[str, str, str]) -> None:
    expert, skill, level2 = key
    where = (HandbookCredit.expert == expert, HandbookCredit.skill == skill, HandbookCredit.level2 == level2)
    runs, wins, calls, latency, tokens, money = session.execute(
        select(func.count(func.distinct(HandbookCredit.run_id)), func.sum(HandbookCredit.success),
               func.sum(HandbookCredit.calls), func.sum(HandbookCredit.latency_ms), func.sum(HandbookCredit.tokens),
               func.sum(HandbookCredit.money)).where(*where)).one()
    row = session.get(HandbookEntry, (expert, skill, level2))
    if not runs:
        if row is not None:
            session.delete(row)
        return
    # Each credited run is one Bernoulli-like observation: success s adds s to α and 1 - s to β.
    count = session.scalar(select(func.count()).where(*where)) or 0
    values = dict(alpha=PRIOR_ALPHA + float(wins or 0), beta=PRIOR_BETA + float(count) - float(wins or 0),
                  runs=int(runs), calls=int(calls or 0), latency_ms=float(latency or 0) / max(1, int(calls or 0)),
                  tokens=float(tokens or 0) / max(1, int(calls or 0)), money=float(money or 0) / max(1, int(calls or 0)),
                  updated_at=utcnow())
    if row is None:
        session.add(HandbookEntry(expert=expert, skill=skill, level2=level2, **values))
    else:
        for name, value in values.items():
            setattr(row, name, value)


def _record(row: HandbookEntry) -> HandbookRecord:
    return HandbookRecord(row.expert, row.skill, row.level2, row.alpha, row.beta, row.runs, row.calls,
                          row.latency_ms, row.tokens, row.money, row.updated_at)
