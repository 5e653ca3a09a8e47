"""A labelling team's records: who is assigned which run (overlap k), the reviewer's final label for a run the
annotators disagree on (adjudication), and the conversations follow-up questions make in Ask.

- ``assign(store, run_ids, annotators, k)`` gives each run to ``k`` annotators in all (the least loaded first, so
  work spreads evenly); a run with assignments is queued only for its assignees (``ratings.rating_queue``), a run
  without any stays open to everyone.
- ``disagreements(store)`` lists runs whose annotators disagree (whole-run verdict, or corrected answer) and that
  no reviewer has settled since the last rating; ``adjudicate`` stores the final label (verdict, answer, boxes and a
  reason). Exports use it instead of the annotators' verdicts (``agents.export.training_data``).
- ``annotator_stats(store)``: per annotator, runs done, assigned runs done, the median time between saves (a break
  longer than ``IDLE_S`` is not work) and Cohen's κ against each other annotator on shared runs.
- ``link_turn`` / ``conversations`` / ``conversation_runs``: runs asked one after another on the same image are one
  conversation (turn 1, 2, …), listed per person.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import JSON, ForeignKey, Integer, func, select
from sqlalchemy.orm import Mapped, mapped_column

from storage.models import Base, Rating, RunRow, SafeString, utcnow

if TYPE_CHECKING:
    from storage.store import Store

#: Verdicts a reviewer can give as the final label.
FINAL_VERDICTS = ("correct", "incorrect", "partial")
#: A gap between two saves longer than this is a break, not time spent on the item.
IDLE_S = 600.0


class Assignment(Base):
    """One run given to one annotator."""

    __tablename__ = "assignments"

    run_id: Mapped[str] = mapped_column(SafeString(32), ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True)
    annotator: Mapped[str] = mapped_column(SafeString(200), primary_key=True, index=True)
    assigned_by: Mapped[str] = mapped_column(SafeString(200))
    assigned_at: Mapped[datetime] = mapped_column(default=utcnow)


class Adjudication(Base):
    """A reviewer's final label for a run: what exports use, whatever the annotators said."""

    __tablename__ = "adjudications"

    run_id: Mapped[str] = mapped_column(SafeString(32), ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True)
    reviewer: Mapped[str] = mapped_column(SafeString(200))
    verdict: Mapped[str] = mapped_column(SafeString(16))
    final_answer: Mapped[str | None]
    reason: Mapped[str]
    boxes: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class ConversationTurn(Base):
    """A run as one turn of a conversation on the same image."""

    __tablename__ = "conversation_turns"

    run_id: Mapped[str] = mapped_column(SafeString(32), ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True)
    conversation_id: Mapped[str] = mapped_column(SafeString(32), index=True)
    turn: Mapped[int] = mapped_column(Integer)
    owner: Mapped[str] = mapped_column(SafeString(200), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


@dataclass
class FinalLabel:
    run_id: str
    reviewer: str
    verdict: str
    final_answer: str | None
    reason: str
    boxes: list[dict[str, Any]]
    updated_at: datetime


@dataclass
class Disagreement:
    run_id: str
    question: str
    answer: str | None
    labels: dict[str, tuple[str, str | None]]  # annotator -> (verdict, corrected answer)
    reopened: bool = False  # settled before, but a rating changed since


@dataclass
class AnnotatorStats:
    name: str
    done: int = 0
    assigned: int = 0
    assigned_done: int = 0
    seconds_per_item: float | None = None
    kappa: dict[str, float | None] = field(default_factory=dict)  # other annotator -> κ on shared runs


def _names(values: Iterable[str]) -> list[str]:
    names = list(dict.fromkeys(v.strip() for v in values if v and v.strip()))
    if not names:
        raise ValueError("name at least one annotator")
    return names


def assign(store: Store, run_ids: Sequence[str], annotators: Sequence[str], k: int, *, by: str) -> int:
    """Give every run in ``run_ids`` to ``k`` annotators in all (existing assignees count towards ``k``; the ones
    with the fewest assignments are picked first). Returns how many assignments were added."""
    names = _names(annotators)
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= len(names):
        raise ValueError(f"overlap k must be between 1 and the {len(names)} annotator(s) named; got {k!r:.20}")
    added = 0
    with store.transaction() as session:
        load = dict.fromkeys(names, 0)
        for name, count in session.execute(select(Assignment.annotator, func.count()).where(
                Assignment.annotator.in_(names)).group_by(Assignment.annotator)):
            load[name] = int(count)
        for run_id in dict.fromkeys(run_ids):
            if session.get(RunRow, run_id) is None:
                raise KeyError(f"no run {run_id!r}")
            have = set(session.scalars(select(Assignment.annotator).where(Assignment.run_id == run_id)))
            for name in sorted((n for n in names if n not in have), key=lambda n: (load[n], n)):
                if len(have) >= k:
                    break
                session.add(Assignment(run_id=run_id, annotator=name, assigned_by=by, assigned_at=utcnow()))
                have.add(name)
                load[name] += 1
                added += 1
    return added


def assignees(store: Store, run_id: str) -> list[str]:
    with store.reading() as session:
        return sorted(session.scalars(select(Assignment.annotator).where(Assignment.run_id == run_id)))


def adjudicate(store: Store, run_id: str, *, reviewer: str, verdict: str, final_answer: str | None, reason: str,
               boxes: list[dict[str, Any]] | None = None) -> FinalLabel:
    """Store (or replace) the final label of a run; a reason is required (it is what the team learns from)."""
    if verdict not in FINAL_VERDICTS:
        raise ValueError(f"the final verdict must be one of {', '.join(FINAL_VERDICTS)}")
    reason = (reason or "").strip()
    if not reason:
        raise ValueError("say why: a final label needs a reason")
    answer = (final_answer or "").strip() or None
    with store.transaction() as session:
        if session.get(RunRow, run_id) is None:
            raise KeyError(f"no run {run_id!r}")
        row = session.get(Adjudication, run_id) or Adjudication(run_id=run_id)
        row.reviewer, row.verdict, row.final_answer, row.reason = reviewer, verdict, answer, reason
        row.boxes, row.updated_at = list(boxes or []), utcnow()
        session.add(row)
    label = final_label(store, run_id)
    assert label is not None
    return label


def final_label(store: Store, run_id: str) -> FinalLabel | None:
    with store.reading() as session:
        row = session.get(Adjudication, run_id)
        return None if row is None else _label(row)


def _label(row: Adjudication) -> FinalLabel:
    return FinalLabel(row.run_id, row.reviewer, row.verdict, row.final_answer, row.reason, list(row.boxes or []),
                      row.updated_at)


def _same_answer(a: str | None, b: str | None) -> bool:
    return " ".join((a or "").lower().split()) == " ".join((b or "").lower().split())


def disagreements(store: Store, limit: int = 100) -> list[Disagreement]:
    """Runs whose annotators disagree, not settled by a reviewer since their last rating; oldest run first."""
    with store.reading() as session:
        rows = session.execute(select(Rating.run_id, Rating.rater, Rating.verdict, Rating.corrected_answer,
                                      Rating.updated_at).where(Rating.step_index.is_(None))).all()
        settled = dict(session.execute(select(Adjudication.run_id, Adjudication.updated_at)).all())
        by_run: dict[str, dict[str, tuple[str, str | None]]] = defaultdict(dict)
        latest: dict[str, datetime] = {}
        for run_id, rater, verdict, corrected, when in rows:
            by_run[run_id][rater] = (verdict, corrected)
            latest[run_id] = max(latest.get(run_id, when), when)
        disputed = []
        for run_id, labels in by_run.items():
            values = list(labels.values())
            differ = len({v for v, _ in values}) > 1 or any(not _same_answer(values[0][1], c) for _, c in values)
            if len(labels) < 2 or not differ:
                continue
            if run_id in settled and settled[run_id] >= latest[run_id]:
                continue
            disputed.append((run_id, labels, run_id in settled))
        runs = {r.id: r for r in session.scalars(select(RunRow).where(RunRow.id.in_([d[0] for d in disputed])))}
    ordered = sorted(disputed, key=lambda d: (runs[d[0]].created_at, d[0]))[:max(0, int(limit))]
    return [Disagreement(rid, runs[rid].question, runs[rid].answer, labels, reopened) for rid, labels, reopened
            in ordered]


def annotator_stats(store: Store) -> list[AnnotatorStats]:
    """Per annotator (everyone who rated or was assigned): see the module docstring."""
    from storage.ratings import cohen_kappa  # the ratings module imports this one

    with store.reading() as session:
        rows = session.execute(select(Rating.run_id, Rating.rater, Rating.verdict, Rating.updated_at)
                               .where(Rating.step_index.is_(None))).all()
        assigned = session.execute(select(Assignment.annotator, Assignment.run_id)).all()
    verdicts: dict[str, dict[str, str]] = defaultdict(dict)
    times: dict[str, list[datetime]] = defaultdict(list)
    for run_id, rater, verdict, when in rows:
        verdicts[rater][run_id] = verdict
        times[rater].append(when)
    mine: dict[str, set[str]] = defaultdict(set)
    for name, run_id in assigned:
        mine[name].add(run_id)
    stats = []
    for name in sorted(set(verdicts) | set(mine)):
        gaps = [(b - a).total_seconds() for a, b in zip(sorted(times[name]), sorted(times[name])[1:], strict=False)]
        gaps = [g for g in gaps if 0 < g <= IDLE_S]
        row = AnnotatorStats(name, done=len(verdicts[name]), assigned=len(mine[name]),
                             assigned_done=len(mine[name] & set(verdicts[name])),
                             seconds_per_item=statistics.median(gaps) if gaps else None)
        for other in sorted(verdicts):
            shared = sorted(set(verdicts[name]) & set(verdicts[other]))
            if other != name and shared:
                row.kappa[other] = cohen_kappa([(verdicts[name][r], verdicts[other][r]) for r in shared])
        stats.append(row)
    return stats


def link_turn(store: Store, run_id: str, conversation_id: str, owner: str) -> int:
    """Make ``run_id`` the next turn of ``conversation_id`` (idempotent); returns its turn number (1 = first)."""
    with store.transaction() as session:
        row = session.get(ConversationTurn, run_id)
        if row is not None:
            return row.turn
        turn = 1 + int(session.scalar(select(func.count()).select_from(ConversationTurn).where(
            ConversationTurn.conversation_id == conversation_id)) or 0)
        session.add(ConversationTurn(run_id=run_id, conversation_id=conversation_id, turn=turn, owner=owner,
                                     created_at=utcnow()))
        return turn


@dataclass
class Conversation:
    id: str
    title: str  # the first question
    turns: int
    image_id: str
    updated_at: datetime


def conversations(store: Store, owner: str, limit: int = 30) -> list[Conversation]:
    """``owner``'s conversations, the most recently continued first."""
    with store.reading() as session:
        rows = session.execute(select(ConversationTurn.conversation_id, ConversationTurn.turn,
                                      ConversationTurn.created_at, RunRow.question, RunRow.image_id)
                               .join(RunRow, RunRow.id == ConversationTurn.run_id)
                               .where(ConversationTurn.owner == owner)).all()
    found: dict[str, Conversation] = {}
    for conv_id, _turn, when, question, image_id in sorted(rows, key=lambda r: r[1]):
        conv = found.setdefault(conv_id, Conversation(conv_id, question, 0, image_id, when))
        conv.turns += 1
        conv.updated_at = max(conv.updated_at, when)
    return sorted(found.values(), key=lambda c: c.updated_at, reverse=True)[:max(0, int(limit))]


def conversation_runs(store: Store, conversation_id: str) -> list[str]:
    """The run ids of a conversation, first turn first."""
    with store.reading() as session:
        return list(session.scalars(select(ConversationTurn.run_id).where(
            ConversationTurn.conversation_id == conversation_id).order_by(ConversationTurn.turn)))


def conversation_of(store: Store, run_id: str) -> str | None:
    with store.reading() as session:
        row = session.get(ConversationTurn, run_id)
        return None if row is None else row.conversation_id
