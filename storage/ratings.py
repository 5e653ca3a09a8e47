"""Ratings: one live verdict per annotator per run (or per step), editable, with history, undo and agreement.

``RatingsMixin`` is the ratings half of ``storage.Store`` (the web UI, the CLI and the API all rate through it):

- ``add_rating`` saves an annotator's verdict. Rating the same run (or step) again edits the live row in place and
  moves the version it replaces to ``rating_history``, so ``ratings`` never holds two live rows for one annotator.
- ``undo_last_rating(rater)`` takes back that annotator's most recent save: an edit gets its previous version
  back, a first rating is removed; the taken-back version is kept in the history. Undo again walks further back.
- ``rating_queue`` / ``rating_progress``: the runs an annotator has not rated yet, with filters, and how far along
  they are; a run assigned to some annotators (``storage.team.assign``) is queued for them only, and first. ``agreement`` compares annotators who rated the same runs (share agreeing and Cohen's κ per pair).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import combinations
from typing import Any

from sqlalchemy import Select, exists, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from storage import convert
from storage.models import Dataset, ImageRow, Item, Rating, RatingHistory, RunRow, StepRow, utcnow
from storage.records import RatingVersion, RunSummary
from storage.team import Assignment
from storage.trace import RUN_STATUSES, VERDICTS, RatingRecord, Verdict

#: Statuses a person can judge: an answer, or a decision not to answer.
RATEABLE = ("done", "abstained")
_COPIED = ("run_id", "step_index", "rater", "verdict", "score", "corrected_answer", "comment", "step_marks",
           "boxes", "created_at", "updated_at")
#: At most this many box corrections per rating.
MAX_BOXES = 50


@dataclass
class RatingInput:
    """One verdict to save (``Store.add_ratings``); validated by ``check`` before anything is written."""

    run_id: str
    rater: str
    verdict: str
    corrected_answer: str | None = None
    score: float | None = None
    comment: str | None = None
    step_index: int | None = None
    step_marks: dict[str, Any] = field(default_factory=dict)
    boxes: list[dict[str, Any]] = field(default_factory=list)

    def check(self) -> RatingInput:
        """This input cleaned (names and texts stripped, empty texts None), or ``ValueError`` saying what is wrong."""
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}; got {self.verdict!r:.60}")
        if not isinstance(self.rater, str) or not self.rater.strip():
            raise ValueError("rater must be a non-empty name")
        if len(self.rater.strip()) > 200:
            raise ValueError("rater names are at most 200 characters")
        score = self.score
        if score is not None:
            if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
                raise ValueError(f"score must be a finite number; got {score!r:.40}")
            score = float(score)
        if self.step_marks is not None and not isinstance(self.step_marks, dict):
            raise ValueError("step_marks must be a dict")
        step = self.step_index
        if step is not None and (isinstance(step, bool) or not isinstance(step, int) or step < 0):
            raise ValueError("step_index must be a step number (0 or more) or None")
        return RatingInput(run_id=str(self.run_id), rater=self.rater.strip(), verdict=self.verdict,
                           corrected_answer=_text(self.corrected_answer), score=score, comment=_text(self.comment),
                           step_index=step, step_marks=dict(self.step_marks or {}), boxes=check_boxes(self.boxes))


@dataclass
class Saved:
    """What ``add_ratings`` did for one input: the live rating's id and whether it replaced an earlier version."""

    id: int
    replaced: bool


@dataclass
class Undone:
    """What ``undo_last_rating`` took back, and the version now live again (None: the run is unrated by them)."""

    run_id: str
    step_index: int | None
    verdict: str
    restored: RatingRecord | None


@dataclass
class PairAgreement:
    """Two annotators over the runs both rated: how many, how many alike, and Cohen's κ (None if undefined)."""

    rater_a: str
    rater_b: str
    runs: int
    agreeing: int
    kappa: float | None


@dataclass
class Agreement:
    """Runs with whole-run verdicts from two or more annotators, how many of those agree, and each pair's κ."""

    runs: int = 0
    agreeing: int = 0
    pairs: list[PairAgreement] = field(default_factory=list)

    @property
    def share(self) -> float | None:
        return self.agreeing / self.runs if self.runs else None


def run_agreement(ratings: Iterable[RatingRecord]) -> tuple[dict[str, Verdict], bool | None]:
    """Whole-run verdict per annotator of one run, and whether they all agree (None with fewer than two)."""
    verdicts = {r.rater: r.verdict for r in ratings if r.step_index is None}
    return verdicts, (len(set(verdicts.values())) == 1 if len(verdicts) >= 2 else None)


def cohen_kappa(pairs: Sequence[tuple[str, str]]) -> float | None:
    """Cohen's κ of two annotators' verdicts on the same items; None when chance agreement is total."""
    n = len(pairs)
    if not n:
        return None
    observed = sum(a == b for a, b in pairs) / n
    labels = {v for pair in pairs for v in pair}
    expected = sum((sum(a == v for a, _ in pairs) / n) * (sum(b == v for _, b in pairs) / n) for v in labels)
    return None if expected >= 1.0 else (observed - expected) / (1.0 - expected)


def check_boxes(boxes: Any, size: tuple[int, int] | None = None) -> list[dict[str, Any]]:
    """Box corrections cleaned: ``[{"box": [x0, y0, x1, y1], "label": str}]`` with whole-pixel corners, x0 < x1
    and y0 < y1, inside the image when its ``size`` (width, height) is given; ``ValueError`` otherwise."""
    if boxes is None:
        return []
    if not isinstance(boxes, list) or len(boxes) > MAX_BOXES:
        raise ValueError(f"boxes must be a list of at most {MAX_BOXES} boxes")
    cleaned = []
    for item in boxes:
        corners = item.get("box") if isinstance(item, dict) else None
        if (not isinstance(corners, list | tuple) or len(corners) != 4
                or not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
                           for v in corners)):
            raise ValueError("each box is {\"box\": [x0, y0, x1, y1]} in image pixels")
        x0, y0, x1, y1 = (round(float(v)) for v in corners)
        if not (0 <= x0 < x1 and 0 <= y0 < y1):
            raise ValueError(f"a box needs 0 <= x0 < x1 and 0 <= y0 < y1; got {[x0, y0, x1, y1]}")
        if size is not None and (x1 > size[0] or y1 > size[1]):
            raise ValueError(f"box {[x0, y0, x1, y1]} lies outside the {size[0]}x{size[1]} image")
        label = item.get("label")
        cleaned.append({"box": [x0, y0, x1, y1], "label": str(label)[:200] if label else ""})
    return cleaned


def _text(value: str | None) -> str | None:
    value = (value or "").strip() if isinstance(value, str) or value is None else str(value).strip()
    return value or None


def _latest_verdict() -> Any:
    """The newest whole-run verdict of the outer run (any annotator), as a correlated scalar subquery."""
    return (select(Rating.verdict).where(Rating.run_id == RunRow.id, Rating.step_index.is_(None))
            .order_by(Rating.updated_at.desc(), Rating.id.desc()).limit(1).correlate(RunRow).scalar_subquery())


def _category_filter(category: str) -> Any:
    """Runs of an evaluation item in ``category`` (runs keep dataset name + item id; items keep the category)."""
    return exists().where(Item.dataset_id == Dataset.id, Dataset.name == RunRow.dataset, Item.item_id == RunRow.item_id,
                          Item.category == category)


class RatingsMixin:
    """The ratings methods of ``storage.Store`` (see the module docstring)."""

    _read: sessionmaker[Session]
    _write: sessionmaker[Session]

    def _filtered(self, query: Select[Any], *, status: str | None = None, skill: str | None = None,
                  model: str | None = None, rating: str | None = None, text: str | None = None,
                  dataset: str | None = None, category: str | None = None) -> Select[Any]:  # defined by Store
        raise NotImplementedError

    def _summaries(self, query: Select[Any]) -> list[RunSummary]:  # defined by Store
        raise NotImplementedError

    # -- writing -------------------------------------------------------------------------------------------------
    def add_rating(self, run_id: str, *, rater: str, verdict: str, corrected_answer: str | None = None,
                   score: float | None = None, comment: str | None = None, step_index: int | None = None,
                   step_marks: dict[str, Any] | None = None, boxes: list[dict[str, Any]] | None = None) -> int:
        """Save ``rater``'s verdict on a run (or one step), replacing their earlier one; returns the live id.
        Invalid input raises before anything is written. ``boxes`` are box corrections in image pixels."""
        (saved,) = self.add_ratings([RatingInput(run_id, rater, verdict, corrected_answer, score, comment,
                                                 step_index, step_marks or {}, boxes or [])])
        return saved.id

    def add_ratings(self, inputs: Iterable[RatingInput]) -> list[Saved]:
        """Save several verdicts in one transaction: all are checked first, and none is written if one is bad."""
        cleaned = [item.check() for item in inputs]
        for attempt in (1, 2):
            try:
                with self._write.begin() as session:
                    return [self._save(session, item) for item in cleaned]
            except IntegrityError:  # another writer saved the same (run, rater, step) first: edit theirs
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _save(self, session: Session, item: RatingInput) -> Saved:
        image_id = session.scalar(select(RunRow.image_id).where(RunRow.id == item.run_id))
        if image_id is None:
            raise KeyError(f"no run {item.run_id!r}")
        if item.boxes:
            image = session.get(ImageRow, image_id)
            check_boxes(item.boxes, (image.width, image.height) if image is not None else None)
        if item.step_index is not None and not session.scalar(
                select(exists().where(StepRow.run_id == item.run_id, StepRow.index == item.step_index))):
            raise ValueError(f"run {item.run_id} has no step {item.step_index}")
        now = utcnow()
        live = session.scalar(select(Rating).where(*_same(item.run_id, item.rater, item.step_index)))
        values = dict(verdict=item.verdict, score=item.score, corrected_answer=item.corrected_answer,
                      comment=item.comment, step_marks=item.step_marks, boxes=item.boxes, updated_at=now)
        if live is None:
            live = Rating(run_id=item.run_id, step_index=item.step_index, rater=item.rater, created_at=now,
                          previous_id=None, **values)
            session.add(live)
            session.flush()
            return Saved(live.id, replaced=False)
        old = _archive(session, live, "edited", now)
        for name, value in values.items():
            setattr(live, name, value)
        live.previous_id = old.id
        session.flush()
        return Saved(live.id, replaced=True)

    def undo_last_rating(self, rater: str) -> Undone | None:
        """Take back ``rater``'s most recent save (see module docstring); None when they have nothing to undo."""
        rater = (rater or "").strip()
        with self._write.begin() as session:
            live = session.scalar(select(Rating).where(Rating.rater == rater)
                                  .order_by(Rating.updated_at.desc(), Rating.id.desc()).limit(1))
            if live is None:
                return None
            now = utcnow()
            _archive(session, live, "undone", now)
            undone = Undone(live.run_id, live.step_index, live.verdict, None)
            previous = session.get(RatingHistory, live.previous_id) if live.previous_id is not None else None
            if previous is None:
                session.delete(live)
                return undone
            for name in ("verdict", "score", "corrected_answer", "comment", "step_marks", "updated_at"):
                setattr(live, name, getattr(previous, name))
            live.step_marks = dict(previous.step_marks or {})
            live.boxes = list(previous.boxes or [])
            live.previous_id = previous.previous_id
            session.flush()
            undone.restored = convert.rating_record(live)
            return undone

    # -- reading -------------------------------------------------------------------------------------------------
    def ratings_for(self, run_id: str) -> list[RatingRecord]:
        """The live ratings of a run (whole-run and per step), oldest save first."""
        with self._read() as session:
            rows = session.scalars(select(Rating).where(Rating.run_id == run_id)
                                   .order_by(Rating.updated_at, Rating.id)).all()
            return [convert.rating_record(r) for r in rows]

    def rating_of(self, run_id: str, rater: str, step_index: int | None = None) -> RatingRecord | None:
        """``rater``'s live rating of a run (or step), if any: what an edit form starts from."""
        with self._read() as session:
            row = session.scalar(select(Rating).where(*_same(run_id, (rater or "").strip(), step_index)))
            return None if row is None else convert.rating_record(row)

    def rating_history(self, run_id: str) -> list[RatingVersion]:
        """Versions of the run's ratings that are no longer live, oldest first."""
        with self._read() as session:
            rows = session.scalars(select(RatingHistory).where(RatingHistory.run_id == run_id)
                                   .order_by(RatingHistory.replaced_at, RatingHistory.id)).all()
            return [RatingVersion(id=r.id, rating_id=r.rating_id, run_id=r.run_id, step_index=r.step_index,
                                  rater=r.rater, verdict=r.verdict, corrected_answer=r.corrected_answer,  # type: ignore[arg-type]
                                  comment=r.comment, step_marks=dict(r.step_marks or {}), updated_at=r.updated_at,
                                  replaced_at=r.replaced_at, change=r.change, score=r.score) for r in rows]

    def count_ratings(self, rater: str | None = None) -> int:
        """Live ratings (of one annotator, or of everyone)."""
        query = select(func.count()).select_from(Rating)
        if rater:
            query = query.where(Rating.rater == rater)
        with self._read() as session:
            return int(session.scalar(query) or 0)

    def raters(self) -> list[str]:
        with self._read() as session:
            return list(session.scalars(select(Rating.rater).distinct().order_by(Rating.rater)))

    def agreement(self) -> Agreement:
        """How annotators who rated the same runs (whole-run verdicts) agree; see ``Agreement``."""
        with self._read() as session:
            rows = session.execute(select(Rating.run_id, Rating.rater, Rating.verdict)
                                   .where(Rating.step_index.is_(None))).all()
        by_run: dict[str, dict[str, str]] = defaultdict(dict)
        for run_id, rater, verdict in rows:
            by_run[run_id][rater] = verdict
        shared = {rid: v for rid, v in by_run.items() if len(v) >= 2}
        result = Agreement(runs=len(shared), agreeing=sum(len(set(v.values())) == 1 for v in shared.values()))
        names = sorted({rater for v in shared.values() for rater in v})
        for a, b in combinations(names, 2):
            both = [(v[a], v[b]) for v in shared.values() if a in v and b in v]
            if both:
                result.pairs.append(PairAgreement(a, b, len(both), sum(x == y for x, y in both), cohen_kappa(both)))
        return result

    # -- the annotation queue ------------------------------------------------------------------------------------
    def _queue_query(self, query: Select[Any], *, dataset: str | None, category: str | None,
                     status: str | None) -> Select[Any]:
        if status:
            if status not in RUN_STATUSES:
                raise ValueError(f"status must be one of {', '.join(RUN_STATUSES)}; got {status!r:.60}")
            query = query.where(RunRow.status == status)
        else:
            query = query.where(RunRow.status.in_(RATEABLE))
        if dataset:
            query = query.where(RunRow.dataset == dataset)
        if category:
            query = query.where(_category_filter(category))
        return query

    def rating_queue(self, rater: str, *, dataset: str | None = None, category: str | None = None,
                     status: str | None = None, verdict: str | None = None, order: str = "oldest",
                     exclude: Sequence[str] = (), limit: int = 50) -> list[RunSummary]:
        """Finished runs ``rater`` has not rated yet (whole run), filtered; ``verdict`` filters by the newest
        verdict of other annotators (or ``unrated``: nobody has). Oldest first, or ``random``."""
        if order not in ("oldest", "random"):
            raise ValueError(f"order must be oldest or random; got {order!r:.40}")
        mine = exists().where(Rating.run_id == RunRow.id, Rating.rater == (rater or "").strip(),
                              Rating.step_index.is_(None))
        query = select(RunRow, _latest_verdict().label("rating")).where(~mine, _open_to(rater))
        query = self._queue_query(query, dataset=dataset, category=category, status=status)
        if verdict:
            query = self._filtered(query, rating=verdict)
        if exclude:
            query = query.where(RunRow.id.not_in(list(exclude)))
        ordering = (func.random(),) if order == "random" else (RunRow.created_at.asc(), RunRow.id.asc())
        ordering = (_assigned_to(rater).desc(), *ordering)  # what was given to them comes before the open pool
        return self._summaries(query.order_by(*ordering).limit(max(0, int(limit))))

    def rating_progress(self, rater: str, *, dataset: str | None = None, category: str | None = None,
                        status: str | None = None) -> tuple[int, int]:
        """(runs ``rater`` has rated, runs in scope) among the finished runs matching the filters."""
        mine = exists().where(Rating.run_id == RunRow.id, Rating.rater == (rater or "").strip(),
                              Rating.step_index.is_(None))
        scope = self._queue_query(select(func.count()).select_from(RunRow).where(_open_to(rater)), dataset=dataset,
                                  category=category, status=status)
        with self._read() as session:
            total = int(session.scalar(scope) or 0)
            done = int(session.scalar(scope.where(mine)) or 0)
        return done, total

    def list_categories(self, dataset: str | None = None) -> list[str]:
        """Item categories of the evaluation sets (of one set, when given)."""
        query = select(Item.category).where(Item.category.is_not(None)).distinct().order_by(Item.category)
        if dataset:
            query = query.join(Dataset, Dataset.id == Item.dataset_id).where(Dataset.name == dataset)
        with self._read() as session:
            return [c for c in session.scalars(query) if c]


def _assigned_to(rater: str) -> Any:
    return exists().where(Assignment.run_id == RunRow.id, Assignment.annotator == (rater or "").strip())


def _open_to(rater: str) -> Any:
    """Runs ``rater`` may rate: given to them, or given to nobody (``storage.team.assign``)."""
    return _assigned_to(rater) | ~exists().where(Assignment.run_id == RunRow.id)


def _same(run_id: str, rater: str, step_index: int | None) -> tuple[Any, ...]:
    step = Rating.step_index.is_(None) if step_index is None else Rating.step_index == step_index
    return Rating.run_id == run_id, Rating.rater == rater, step


def _archive(session: Session, live: Rating, change: str, now: datetime) -> RatingHistory:
    """Copy the live version of ``live`` into the history (it stops being live ``now``)."""
    old = RatingHistory(rating_id=live.id, replaced_at=now, change=change, previous_id=live.previous_id,
                        **{name: getattr(live, name) for name in _COPIED})
    old.step_marks = dict(live.step_marks or {})
    old.boxes = list(live.boxes or [])
    session.add(old)
    session.flush()
    return old
