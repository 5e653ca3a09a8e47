"""The ``Store``: every read and write of runs, steps, ratings and datasets, one short session per operation.

A run row is committed the moment a run starts and each step the moment it completes, so a crash loses at most the
step in flight; ``mark_interrupted`` later closes the runs whose process died. The store is thread-safe: it keeps
no session between calls, and writes go through an engine whose transactions take the SQLite write lock up front.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from sqlalchemy import CursorResult, Engine, Select, case, exists, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload, sessionmaker

from storage import convert
from storage.images import ImageRef, ImageStore
from storage.locks import hold
from storage.models import Dataset, ImageRow, Item, Rating, RegistrySnapshot, RunRow, StepRow, utcnow
from storage.process import current_owner, hostname, is_alive
from storage.ratings import RatingsMixin, _category_filter, _latest_verdict
from storage.records import DatasetItem, RunSummary
from storage.trace import (
    FINISHED_STATUSES,
    RATING_FILTERS,
    RUN_STATUSES,
    STEP_KINDS,
    STEP_STATUSES,
    RunRecord,
    Step,
)


def _choice(name: str, value: str, allowed: Iterable[str]) -> str:
    allowed = tuple(allowed)
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r:.60}")
    return value


def load_run(session: Session, run_id: str) -> RunRecord | None:
    """The run with its steps, tool calls and ratings, read in ``session`` (so inside its transaction)."""
    run = session.scalar(select(RunRow).where(RunRow.id == run_id)
                         .options(selectinload(RunRow.steps).selectinload(StepRow.tool_calls), selectinload(RunRow.ratings)))
    return None if run is None else convert.run_record(run)


@dataclass
class RatingRow:
    """One rating with the question and answer of its run (``Store.recent_ratings``)."""

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
    step_index: int | None = None
    status: str | None = None  # the run's


@dataclass
class PairStats:
    """How often an (expert, skill) pair was called, and how its rated runs were judged (``Store.pair_stats``)."""

    model: str
    skill: str
    calls: int
    runs: int
    rated_runs: int
    correct_runs: int

    @property
    def correct_share(self) -> float | None:
        return self.correct_runs / self.rated_runs if self.rated_runs else None


class Store(RatingsMixin):
    """Runs, steps, ratings, datasets and the image store of one data directory."""

    def __init__(self, data_dir: Path, url: str, engine: Engine, write_engine: Engine | None = None) -> None:
        self.data_dir = Path(data_dir)
        self.url = url
        self.engine = engine
        self._read = sessionmaker(engine, expire_on_commit=False)
        self._write = sessionmaker(write_engine or engine, expire_on_commit=False)
        self.images = ImageStore(self.data_dir / "images", on_store=self._record_image)

    # -- lifecycle -----------------------------------------------------------------------------------------------
    def transaction(self) -> AbstractContextManager[Session]:
        """One write transaction: committed when the block ends, rolled back if it raises. The storage modules
        (handbook, tool outputs) write through it, and so can maintenance scripts and tests that must shape rows
        no other method writes (an output stored by an older version, a run from before snapshots)."""
        return self._write.begin()

    def reading(self) -> AbstractContextManager[Session]:
        """A read-only session on the store's reading connection pool."""
        return self._read()

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- runs and steps ------------------------------------------------------------------------------------------
    def create_run(self, *, question: str, image_id: str, policy: str, registry_hash: str, config: dict[str, Any],
                   dataset: str | None = None, item_id: str | None = None, expected: str | None = None,
                   parent_run_id: str | None = None) -> str:
        """Record a new ``running`` run owned by this process; committed before returning its id.
        ``parent_run_id`` links a rerun to the run it repeats."""
        owner = current_owner()
        run = RunRow(id=uuid.uuid4().hex, created_at=utcnow(), question=question, image_id=image_id, policy=policy,
                  registry_hash=registry_hash, status="running", config=dict(config or {}), dataset=dataset,
                  item_id=item_id, expected=expected, parent_run_id=parent_run_id, tokens_in=0, tokens_out=0,
                  cost=0.0, forced_answer=False, owner_host=owner.host, owner_pid=owner.pid, owner_start=owner.start)
        with self._write.begin() as session:
            session.add(run)
        return run.id

    def add_step(self, run_id: str, step: Step) -> int:
        """Commit one completed step with its tool calls; returns the step's id (also set on ``step.id``)."""
        _choice("step kind", step.kind, STEP_KINDS)
        _choice("step status", step.status, STEP_STATUSES)
        row = convert.step_row(step)
        try:
            with self._write.begin() as session:
                # One light query (not session.get, which loads the whole run row) for both checks.
                known, taken = session.execute(select(
                    exists().where(RunRow.id == run_id),
                    exists().where(StepRow.run_id == run_id, StepRow.index == step.index))).one()
                if not known:
                    raise KeyError(f"no run {run_id!r}")
                if taken:
                    raise ValueError(f"run {run_id} already has a step {step.index}")
                row.run_id = run_id
                session.add(row)
                session.flush()
                step_id = row.id
        except IntegrityError as exc:
            # PostgreSQL runs writers side by side: another one may add this index between the check and the insert.
            if "uq_steps_run_id_index" in str(exc.orig):
                raise ValueError(f"run {run_id} already has a step {step.index}") from exc
            raise
        step.id, step.created_at = step_id, row.created_at
        return step_id

    def finish_run(self, run_id: str, *, status: str, answer: str | None, latency_ms: float, tokens_in: int = 0,
                   tokens_out: int = 0, cost: float = 0.0, error: str | None = None,
                   forced_answer: bool = False, reason: str | None = None, confidence: float | None = None,
                   answer_form: dict[str, Any] | None = None, vote: dict[str, Any] | None = None,
                   trust: dict[str, Any] | None = None) -> None:
        """Close a run with its outcome: ``done`` needs an answer; ``abstained`` and ``failed`` need a reason.
        ``trust`` (the candidate, its evidence, the calibrated decision) also sets ``calibration``, its version."""
        _choice("run status", status, FINISHED_STATUSES)
        if status == "done" and (answer is None or not str(answer).strip()):
            raise ValueError("a 'done' run needs an answer; a run without one is 'abstained' or 'failed'")
        if status in ("abstained", "failed") and not (reason or error):
            raise ValueError(f"an '{status}' run needs a reason a user can act on")
        if confidence is not None and not (isinstance(confidence, int | float) and 0.0 <= confidence <= 1.0):
            raise ValueError(f"confidence must be between 0 and 1; got {confidence!r:.40}")
        values: dict[str, Any] = dict(status=status, answer=answer, latency_ms=float(latency_ms), error=error,
                                      tokens_in=int(tokens_in), tokens_out=int(tokens_out), cost=float(cost),
                                      forced_answer=bool(forced_answer), finished_at=utcnow(), reason=reason,
                                      confidence=None if confidence is None else float(confidence))
        if answer_form is not None:
            values["answer_form"] = dict(answer_form)
        if vote is not None:
            values["vote"] = dict(vote)
        if trust is not None:
            values["trust"] = dict(trust)
            version = trust.get("calibration")
            values["calibration"] = str(version)[:64] if version else None
        with self._write.begin() as session:
            # Session.execute is typed Result for any statement; an UPDATE's is a CursorResult (rowcount).
            updated = cast(CursorResult[Any], session.execute(update(RunRow).where(RunRow.id == run_id)
                                                              .values(**values)))
            if not updated.rowcount:
                raise KeyError(f"no run {run_id!r}")

    def save_registry_snapshot(self, digest: str, content: dict[str, Any]) -> None:
        """Keep the registry a run used, once per content hash (``runs.registry_hash`` refers to it)."""
        with self._read() as session:
            if session.get(RegistrySnapshot, digest) is not None:
                return
        try:
            with self._write.begin() as session:
                if session.get(RegistrySnapshot, digest) is None:
                    session.add(RegistrySnapshot(hash=digest, content=dict(content), created_at=utcnow()))
        except IntegrityError:  # another process stored the same snapshot first
            pass

    def registry_snapshot(self, digest: str) -> dict[str, Any] | None:
        """The registry stored under ``digest``, or None when runs older than snapshots refer to it."""
        with self._read() as session:
            row = session.get(RegistrySnapshot, digest)
            return None if row is None else dict(row.content or {})

    def get_run(self, run_id: str) -> RunRecord | None:
        with self._read() as session:
            return load_run(session, run_id)

    def mark_interrupted(self) -> int:
        """Mark ``running`` runs of this host whose owning process is gone as ``interrupted``; returns how many.

        Runs of other hosts are left alone (their processes cannot be checked from here), and so are runs whose
        process is still alive, this one included.
        """
        host = hostname()
        with self._read() as session:
            candidates = session.execute(
                select(RunRow.id, RunRow.owner_pid, RunRow.owner_start).where(RunRow.status == "running", RunRow.owner_host == host)
            ).all()
        dead = [rid for rid, pid, start in candidates if not is_alive(pid, start)]
        if not dead:
            return 0
        with self._write.begin() as session:
            result = cast(CursorResult[Any], session.execute(  # an UPDATE's result: see finish_run
                update(RunRow).where(RunRow.id.in_(dead), RunRow.status == "running")
                .values(status="interrupted", finished_at=utcnow(),
                        error="interrupted: the process running it ended before it finished")))
            return int(result.rowcount or 0)

    # -- listing -------------------------------------------------------------------------------------------------
    def _filtered(self, query: Select[Any], *, status: str | None = None, skill: str | None = None,
                  model: str | None = None, rating: str | None = None, text: str | None = None,
                  dataset: str | None = None, category: str | None = None) -> Select[Any]:
        if status:
            query = query.where(RunRow.status == _choice("status", status, RUN_STATUSES))
        if skill:
            query = query.where(exists().where(StepRow.run_id == RunRow.id, StepRow.skill == skill))
        if model:
            query = query.where(exists().where(StepRow.run_id == RunRow.id, StepRow.model == model))
        if rating:
            _choice("rating", rating, RATING_FILTERS)
            latest = _latest_verdict()
            query = query.where(latest.is_(None) if rating == "unrated" else latest == rating)
        if text:
            query = query.where(RunRow.question.icontains(text, autoescape=True)
                                | RunRow.answer.icontains(text, autoescape=True))
        if dataset:
            query = query.where(RunRow.dataset == dataset)
        if category:
            query = query.where(_category_filter(category))
        return query

    def list_runs(self, *, limit: int = 50, offset: int = 0, status: str | None = None, skill: str | None = None,
                  model: str | None = None, rating: str | None = None, text: str | None = None,
                  dataset: str | None = None, category: str | None = None) -> list[RunSummary]:
        """Runs matching every given filter, newest first; ``rating`` may be a verdict or ``"unrated"``."""
        query = select(RunRow, _latest_verdict().label("rating"))
        query = self._filtered(query, status=status, skill=skill, model=model, rating=rating, text=text,
                               dataset=dataset, category=category)
        query = query.order_by(RunRow.created_at.desc(), RunRow.id.desc()).limit(max(0, int(limit))).offset(
            max(0, int(offset)))
        return self._summaries(query)

    def count_runs(self, *, status: str | None = None, skill: str | None = None, model: str | None = None,
                   rating: str | None = None, text: str | None = None, dataset: str | None = None,
                   category: str | None = None) -> int:
        query = self._filtered(select(func.count()).select_from(RunRow), status=status, skill=skill, model=model,
                               rating=rating, text=text, dataset=dataset, category=category)
        with self._read() as session:
            return int(session.scalar(query) or 0)

    def unrated_runs(self, *, limit: int = 50, order: str = "oldest") -> list[RunSummary]:
        """Answered or abstained runs without a whole-run rating, for the rating queue."""
        _choice("order", order, ("oldest", "random"))
        query = select(RunRow, _latest_verdict().label("rating")).where(RunRow.status.in_(("done", "abstained")))
        query = self._filtered(query, status=None, skill=None, model=None, rating="unrated", text=None, dataset=None)
        ordering = (func.random(),) if order == "random" else (RunRow.created_at.asc(), RunRow.id.asc())
        return self._summaries(query.order_by(*ordering).limit(max(0, int(limit))))

    def _summaries(self, query: Select[Any]) -> list[RunSummary]:
        with self._read() as session:
            rows = session.execute(query).all()
            ids = [run.id for run, _ in rows]
            pairs: dict[str, list[tuple[str, str]]] = {run_id: [] for run_id in ids}
            for chunk in (ids[i:i + 500] for i in range(0, len(ids), 500)):  # stay under SQLite's variable limit
                for run_id, model, skill in session.execute(
                        select(StepRow.run_id, StepRow.model, StepRow.skill)
                        .where(StepRow.run_id.in_(chunk), StepRow.kind == "search").order_by(StepRow.run_id, StepRow.index)):
                    pairs[run_id].append((model or "", skill or ""))
            return [convert.run_summary(run, verdict, pairs[run.id]) for run, verdict in rows]

    # -- ratings -------------------------------------------------------------------------------------------------
    def recent_ratings(self, limit: int = 50, offset: int = 0, rater: str | None = None) -> list[RatingRow]:
        """Live ratings newest first (whole-run and per-step; of one annotator when given), each with its run's
        question, answer and status."""
        query = select(Rating, RunRow.question, RunRow.answer, RunRow.status).join(RunRow, RunRow.id == Rating.run_id)
        if rater:
            query = query.where(Rating.rater == rater)
        query = (query.order_by(Rating.updated_at.desc(), Rating.id.desc()).limit(max(0, int(limit)))
                 .offset(max(0, int(offset))))
        with self._read() as session:
            return [RatingRow(id=r.id, created_at=r.updated_at or r.created_at, rater=r.rater, verdict=r.verdict,
                              run_id=r.run_id, question=question, answer=answer, corrected_answer=r.corrected_answer,
                              comment=r.comment, step_marks=dict(r.step_marks or {}), step_index=r.step_index,
                              status=status)
                    for r, question, answer, status in session.execute(query)]

    def pair_stats(self) -> list[PairStats]:
        """Per (expert, skill): search calls, distinct runs, runs with a whole-run rating, and those whose latest
        whole-run verdict is correct; most called first."""
        verdicts = (select(RunRow.id.label("run_id"), _latest_verdict().label("verdict"))
                    .where(exists().where(Rating.run_id == RunRow.id, Rating.step_index.is_(None))).subquery())
        correct = case((verdicts.c.verdict == "correct", verdicts.c.run_id), else_=None)
        calls = func.count(StepRow.id)
        query = (select(StepRow.model, StepRow.skill, calls, func.count(func.distinct(StepRow.run_id)),
                        func.count(func.distinct(verdicts.c.run_id)), func.count(func.distinct(correct)))
                 .outerjoin(verdicts, verdicts.c.run_id == StepRow.run_id).where(StepRow.kind == "search")
                 .group_by(StepRow.model, StepRow.skill).order_by(calls.desc(), StepRow.model, StepRow.skill))
        with self._read() as session:
            return [PairStats(model or "", skill or "", int(n), int(runs), int(rated), int(right))
                    for model, skill, n, runs, rated, right in session.execute(query)]

    # -- images and datasets -------------------------------------------------------------------------------------
    def _record_image(self, ref: ImageRef, size: int) -> None:
        with self._read() as session:
            if session.get(ImageRow, ref.id) is not None:
                return
        try:
            with self._write.begin() as session:
                if session.get(ImageRow, ref.id) is None:
                    session.add(ImageRow(id=ref.id, width=ref.width, height=ref.height, mime=ref.mime,
                                         size_bytes=size, created_at=utcnow()))
        except IntegrityError:  # another store (non-SQLite back end) recorded it first: same content, same row
            pass

    def image_info(self, image_id: str) -> ImageRef | None:
        """Width, height and mime of a stored image from the images table (None if it was never recorded)."""
        with self._read() as session:
            row = session.get(ImageRow, image_id)
            if row is None:
                return None
            return ImageRef(row.id, row.width, row.height, row.mime, self.images.path(row.id))

    def save_dataset(self, name: str, items: Iterable[DatasetItem], *, description: str | None = None) -> int:
        """Create or update evaluation set ``name``; items are matched by ``item_id``. Returns the item count."""
        if not isinstance(name, str) or not name.strip():
            raise ValueError("dataset name must be non-empty")
        items = list(items)
        ids = [item.item_id for item in items]
        if len(set(ids)) != len(ids):
            raise ValueError(f"dataset {name!r} has repeated item ids")
        with self._write.begin() as session:
            hold(session, f"dataset:{name}")  # two evaluations of one set: the second updates the first's rows
            dataset = session.scalar(select(Dataset).where(Dataset.name == name))
            if dataset is None:
                dataset = Dataset(name=name, description=description, created_at=utcnow())
                session.add(dataset)
                session.flush()
            elif description is not None:
                dataset.description = description
            existing = {row.item_id: row for row in session.scalars(select(Item).where(Item.dataset_id == dataset.id))}
            for item in items:
                row = existing.get(item.item_id) or Item(dataset_id=dataset.id, item_id=item.item_id)
                row.question, row.answer, row.image_id = item.question, item.answer, item.image_id
                row.category, row.extra = item.category, dict(item.extra or {})
                session.add(row)
            session.flush()
            return int(session.scalar(select(func.count()).where(Item.dataset_id == dataset.id)) or 0)

    def dataset_items(self, name: str) -> list[DatasetItem]:
        with self._read() as session:
            rows = session.scalars(select(Item).join(Dataset).where(Dataset.name == name).order_by(Item.id)).all()
            return [convert.dataset_item(row) for row in rows]

    def list_datasets(self) -> list[str]:
        with self._read() as session:
            return list(session.scalars(select(Dataset.name).order_by(Dataset.name)))

