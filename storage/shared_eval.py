"""Evaluations shared by several workers: the item pool in the database, claimed with a lease.

``shared_evals`` names an evaluation (its dataset and manifest); ``shared_eval_items`` holds one row per item with
its state: ``pending`` -> ``claimed`` (by a worker, until ``lease_until``) -> ``done`` (with its results row). A
worker claims items with ``SELECT … FOR UPDATE SKIP LOCKED`` (PostgreSQL; SQLite serialises writers instead), and
every state change is a conditional UPDATE, so two workers never both hold an item and a result is written once.
A worker renews its leases while it runs (``renew``); a worker killed with SIGKILL renews nothing, its leases run
out, and its items are claimed again by the others. Storage keeps rows; what a result means is decided in agents.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import CursorResult, ForeignKey, Index, Integer, and_, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from storage.models import Base, SafeString, utcnow

if TYPE_CHECKING:
    from storage.store import Store

PENDING, CLAIMED, DONE = "pending", "claimed", "done"


class SharedEval(Base):
    __tablename__ = "shared_evals"

    name: Mapped[str] = mapped_column(SafeString(200), primary_key=True)
    dataset: Mapped[str]
    manifest: Mapped[dict[str, Any]] = mapped_column(default=dict)
    items_total: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class SharedEvalItem(Base):
    __tablename__ = "shared_eval_items"

    eval_name: Mapped[str] = mapped_column(SafeString(200), ForeignKey("shared_evals.name", ondelete="CASCADE"),
                                           primary_key=True)
    item_id: Mapped[str] = mapped_column(SafeString(200), primary_key=True)
    position: Mapped[int] = mapped_column(Integer)
    state: Mapped[str] = mapped_column(SafeString(16), default=PENDING)
    worker: Mapped[str | None] = mapped_column(SafeString(200))
    lease_until: Mapped[datetime | None]
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    run_id: Mapped[str | None] = mapped_column(SafeString(64))
    result: Mapped[dict[str, Any] | None]
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (Index("ix_shared_eval_items_eval_name_state", "eval_name", "state"),)


@dataclass(frozen=True)
class Progress:
    total: int
    done: int
    claimed: int
    pending: int
    workers: int  # distinct workers holding a live lease now

    def __str__(self) -> str:
        return (f"{self.done}/{self.total} done, {self.claimed} running on {self.workers} worker(s), "
                f"{self.pending} waiting")


def open_eval(store: Store, name: str, dataset: str, manifest: dict[str, Any], item_ids: list[str]) -> bool:
    """Create evaluation ``name`` with ``item_ids`` pending, or join it when it exists (then the dataset must be the
    same: ``ValueError`` otherwise). Returns whether it was created here."""
    with store.reading() as session:
        existing = session.get(SharedEval, name)
        if existing is not None:
            _same(existing, dataset, len(item_ids))
            return False
    now = utcnow()
    try:
        with store.transaction() as session:
            session.add(SharedEval(name=name, dataset=dataset, manifest=manifest, items_total=len(item_ids),
                                   created_at=now))
            session.flush()
            session.add_all(SharedEvalItem(eval_name=name, item_id=item_id, position=i, state=PENDING,
                                           attempts=0, updated_at=now) for i, item_id in enumerate(item_ids))
        return True
    except IntegrityError:  # another worker created it at the same moment: join that one
        with store.reading() as session:
            existing = session.get(SharedEval, name)
            if existing is None:
                raise
            _same(existing, dataset, len(item_ids))
        return False


def _same(existing: SharedEval, dataset: str, total: int) -> None:
    if existing.dataset != dataset or existing.items_total != total:
        raise ValueError(f"shared evaluation {existing.name!r} runs {existing.dataset} ({existing.items_total} "
                         f"items), not {dataset} ({total} items): choose another --shared name")


def claim(store: Store, name: str, worker: str, n: int, lease_s: float) -> list[str]:
    """Claim up to ``n`` items for ``worker`` (pending ones, or claimed ones whose lease ran out), in dataset
    order; their ids. Rows another transaction is claiming right now are skipped, not waited for."""
    now = utcnow()
    claimable = and_(SharedEvalItem.eval_name == name,
                     or_(SharedEvalItem.state == PENDING,
                         and_(SharedEvalItem.state == CLAIMED, SharedEvalItem.lease_until < now)))
    claimed: list[str] = []
    with store.transaction() as session:
        candidates = session.scalars(select(SharedEvalItem.item_id).where(claimable)
                                     .order_by(SharedEvalItem.position).limit(n)
                                     .with_for_update(skip_locked=True)).all()
        for item_id in candidates:
            # Conditional: on SQLite (no row locks) a concurrent worker may have taken it since the SELECT.
            # Session.execute is typed Result for any statement; an UPDATE's is a CursorResult (rowcount).
            taken = cast(CursorResult[Any], session.execute(
                update(SharedEvalItem).where(claimable, SharedEvalItem.item_id == item_id)
                .values(state=CLAIMED, worker=worker, lease_until=now + timedelta(seconds=lease_s),
                        attempts=SharedEvalItem.attempts + 1, updated_at=now)))
            if taken.rowcount == 1:
                claimed.append(item_id)
    return claimed


def renew(store: Store, name: str, worker: str, item_ids: list[str], lease_s: float) -> list[str]:
    """Extend ``worker``'s leases on ``item_ids``; the ids it still holds (a lease that ran out and was claimed by
    another worker is lost: that worker's result will be the one kept)."""
    if not item_ids:
        return []
    now = utcnow()
    with store.transaction() as session:
        held = session.scalars(update(SharedEvalItem)
                               .where(SharedEvalItem.eval_name == name, SharedEvalItem.item_id.in_(item_ids),
                                      SharedEvalItem.state == CLAIMED, SharedEvalItem.worker == worker)
                               .values(lease_until=now + timedelta(seconds=lease_s), updated_at=now)
                               .returning(SharedEvalItem.item_id)).all()
    return list(held)


def finish(store: Store, name: str, worker: str, item_id: str, row: dict[str, Any]) -> bool:
    """Record ``row`` as the result of ``item_id`` if ``worker`` still holds it; whether it was recorded."""
    now = utcnow()
    with store.transaction() as session:
        done = cast(CursorResult[Any], session.execute(  # an UPDATE's result: see claim
            update(SharedEvalItem)
            .where(SharedEvalItem.eval_name == name, SharedEvalItem.item_id == item_id,
                   SharedEvalItem.state == CLAIMED, SharedEvalItem.worker == worker)
            .values(state=DONE, result=row, run_id=row.get("run_id"), lease_until=None, updated_at=now)))
    return done.rowcount == 1


def progress(store: Store, name: str) -> Progress:
    """How far evaluation ``name`` is, over all its workers."""
    now = utcnow()
    with store.reading() as session:
        counts = dict(session.execute(select(SharedEvalItem.state, func.count())
                                      .where(SharedEvalItem.eval_name == name)
                                      .group_by(SharedEvalItem.state)).all())
        workers = session.scalar(select(func.count(func.distinct(SharedEvalItem.worker)))
                                 .where(SharedEvalItem.eval_name == name, SharedEvalItem.state == CLAIMED,
                                        SharedEvalItem.lease_until >= now)) or 0
    total = sum(counts.values())
    return Progress(total, counts.get(DONE, 0), counts.get(CLAIMED, 0), counts.get(PENDING, 0), int(workers))


def results(store: Store, name: str) -> tuple[dict[str, Any] | None, list[dict[str, Any] | None]]:
    """The evaluation's manifest (None when there is no such evaluation) and every item's result in dataset order
    (None for an item not done yet)."""
    with store.reading() as session:
        head = session.get(SharedEval, name)
        if head is None:
            return None, []
        manifest = {"dataset": head.dataset, **dict(head.manifest or {})}
        rows = session.scalars(select(SharedEvalItem.result).where(SharedEvalItem.eval_name == name)
                               .order_by(SharedEvalItem.position)).all()
    return manifest, [dict(r) if r is not None else None for r in rows]
