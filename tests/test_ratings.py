"""Ratings on a real SQLite file: one live rating per annotator per run or step, edits kept in the history, undo
that walks back through an annotator's saves, agreement between annotators, the per-annotator queue with its
filters and progress, bulk saves that are all-or-nothing, and migration 0004 folding old duplicates."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from storage import DatasetItem, RatingInput, Step, Store, cohen_kappa, open_store
from storage.db import alembic_config, make_engine


@pytest.fixture
def store(data_dir: Path) -> Store:
    with open_store(data_dir) as opened:
        yield opened


def finished(store: Store, question: str, *, status: str = "done", dataset: str | None = None,
             item_id: str | None = None) -> str:
    run_id = store.create_run(question=question, image_id="0" * 64, policy="keyword", registry_hash="h", config={},
                              dataset=dataset, item_id=item_id)
    store.add_step(run_id, Step(index=0, kind="search", model="Tools", skill="OCR", query="q", observation="o"))
    if status != "running":
        store.finish_run(run_id, status=status, answer="A" if status == "done" else None, latency_ms=5.0,
                         reason=None if status == "done" else "nothing readable")
    return run_id


def live_rows(store: Store) -> list[tuple[str, str, int | None, str]]:
    with store.engine.connect() as conn:
        return [tuple(r) for r in conn.execute(text(
            "select run_id, rater, step_index, verdict from ratings order by id"))]


def test_rating_again_edits_in_place_and_keeps_the_old_version(store: Store) -> None:
    run = finished(store, "What is written?")
    first = store.add_rating(run, rater="ann", verdict="incorrect", corrected_answer="  EXIT 42 ")
    again = store.add_rating(run, rater="ann ", verdict="correct", comment="looked again")
    assert first == again, "the same live row, edited"
    assert live_rows(store) == [(run, "ann", None, "correct")], "no second live row"
    (live,) = store.ratings_for(run)
    assert (live.verdict, live.corrected_answer, live.comment) == ("correct", None, "looked again")
    assert live.updated_at >= live.created_at
    (old,) = store.rating_history(run)
    assert (old.rater, old.verdict, old.corrected_answer, old.change) == ("ann", "incorrect", "EXIT 42", "edited")
    step = store.add_rating(run, rater="ann", verdict="incorrect", step_index=0)
    assert step != first and len(store.ratings_for(run)) == 2, "a step rating is its own rating"
    bob = store.add_rating(run, rater="bob", verdict="incorrect")
    assert bob not in (first, step) and store.count_ratings() == 3 and store.count_ratings("ann") == 2
    assert store.get_run(run).ratings[-1].rater == "bob", "ratings are ordered by when they were saved"
    assert store.list_runs(rating="incorrect")[0].id == run, "the newest whole-run verdict is the run's rating"


def test_the_database_refuses_a_second_live_row(store: Store) -> None:
    run = finished(store, "q")
    store.add_rating(run, rater="ann", verdict="correct")
    store.add_rating(run, rater="ann", verdict="correct", step_index=0)
    now = datetime.now(UTC).replace(tzinfo=None)
    for step in ("NULL", "0"):
        with pytest.raises(IntegrityError), store.engine.begin() as conn:
            conn.execute(text("insert into ratings (run_id, step_index, rater, verdict, step_marks, created_at, "
                              f"updated_at) values (:r, {step}, 'ann', 'incorrect', '{{}}', :t, :t)"),
                         {"r": run, "t": now})


def test_undo_walks_back_through_an_annotators_saves(store: Store) -> None:
    a, b = finished(store, "a"), finished(store, "b")
    store.add_rating(a, rater="ann", verdict="correct")
    store.add_rating(b, rater="ann", verdict="incorrect", corrected_answer="7")
    store.add_rating(a, rater="ann", verdict="incorrect", corrected_answer="8")  # an edit of a
    store.add_rating(a, rater="bob", verdict="partial")  # bob's saves are not ann's to undo
    undone = store.undo_last_rating("ann")
    assert (undone.run_id, undone.verdict) == (a, "incorrect")
    assert undone.restored is not None and undone.restored.verdict == "correct", "the edit is taken back"
    assert store.rating_of(a, "ann").verdict == "correct"
    undone = store.undo_last_rating("ann")
    assert (undone.run_id, undone.restored) == (b, None), "then b, which was a first rating: removed"
    assert store.rating_of(b, "ann") is None
    undone = store.undo_last_rating("ann")
    assert (undone.run_id, undone.restored) == (a, None)
    assert store.undo_last_rating("ann") is None, "nothing left to undo"
    assert [(r.rater, r.verdict) for r in store.ratings_for(a)] == [("bob", "partial")]
    changes = [(v.run_id, v.verdict, v.change) for v in store.rating_history(a)]
    assert changes == [(a, "correct", "edited"), (a, "incorrect", "undone"), (a, "correct", "undone")]


def test_bulk_saves_are_all_or_nothing(store: Store) -> None:
    run = finished(store, "q")
    good = RatingInput(run, "ann", "correct")
    for bad in (RatingInput(run, "ann", "great"), RatingInput(run, " ", "correct"),
                RatingInput("nope", "ann", "correct"), RatingInput(run, "ann", "correct", step_index=5),
                RatingInput(run, "ann", "correct", score=float("nan"))):
        with pytest.raises((ValueError, KeyError)):
            store.add_ratings([good, bad])
        assert store.ratings_for(run) == []
    saved = store.add_ratings([good, RatingInput(run, "bob", "incorrect", corrected_answer="B"),
                               RatingInput(run, "ann", "partial")])
    assert [s.replaced for s in saved] == [False, False, True]
    assert {(r.rater, r.verdict) for r in store.ratings_for(run)} == {("ann", "partial"), ("bob", "incorrect")}


def test_agreement_between_annotators(store: Store) -> None:
    runs = [finished(store, f"q{i}") for i in range(5)]
    ann = ["correct", "correct", "incorrect", "incorrect", "correct"]
    bob = ["correct", "incorrect", "incorrect", "incorrect", None]
    for run, a, b in zip(runs, ann, bob, strict=True):
        store.add_rating(run, rater="ann", verdict=a)
        if b:
            store.add_rating(run, rater="bob", verdict=b)
    store.add_rating(runs[4], rater="cy", verdict="correct")
    store.add_rating(runs[1], rater="bob", verdict="incorrect", step_index=0)  # steps do not count
    result = store.agreement()
    assert (result.runs, result.agreeing) == (5, 4) and result.share == pytest.approx(0.8)
    pair = next(p for p in result.pairs if (p.rater_a, p.rater_b) == ("ann", "bob"))
    # 4 shared runs, 3 alike; marginals ann 2/4 correct, bob 1/4: p_e = .5*.25 + .5*.75 = .5, κ = (.75-.5)/.5
    assert (pair.runs, pair.agreeing) == (4, 3) and pair.kappa == pytest.approx(0.5)
    assert cohen_kappa([("correct", "correct")] * 3) is None, "no variation: κ is undefined, not 1"
    assert cohen_kappa([]) is None


def test_queue_is_per_annotator_with_filters_and_progress(store: Store) -> None:
    store.save_dataset("dev", [DatasetItem("1", "q", "A", category="charts"), DatasetItem("2", "q", "B",
                                                                                         category="text")])
    chart = finished(store, "chart run", dataset="dev", item_id="1")
    text_run = finished(store, "text run", dataset="dev", item_id="2")
    abstained = finished(store, "abstained run", status="abstained")
    finished(store, "failed run", status="failed")
    finished(store, "still running", status="running")
    queue = [r.id for r in store.rating_queue("ann")]
    assert queue == [chart, text_run, abstained], "finished answers and abstentions, oldest first"
    assert store.rating_progress("ann") == (0, 3)
    store.add_rating(chart, rater="ann", verdict="correct")
    store.add_rating(text_run, rater="bob", verdict="incorrect")
    assert [r.id for r in store.rating_queue("ann")] == [text_run, abstained]
    assert [r.id for r in store.rating_queue("bob")] == [chart, abstained], "bob's queue is his own"
    assert store.rating_progress("ann") == (1, 3) and store.rating_progress("bob", dataset="dev") == (1, 2)
    assert [r.id for r in store.rating_queue("ann", status="abstained")] == [abstained]
    assert [r.id for r in store.rating_queue("bob", category="charts")] == [chart]
    assert [r.id for r in store.rating_queue("ann", verdict="incorrect")] == [text_run], "others' verdicts"
    assert [r.id for r in store.rating_queue("ann", verdict="unrated")] == [abstained]
    assert [r.id for r in store.rating_queue("ann", exclude=[text_run])] == [abstained]
    assert store.list_categories() == ["charts", "text"] and store.count_runs(category="text") == 1
    with pytest.raises(ValueError):
        store.rating_queue("ann", status="great")


def test_migration_0004_folds_duplicates_into_history_and_goes_back(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    cfg = alembic_config(url)
    command.upgrade(cfg, "0003_trust")
    t0 = datetime(2026, 1, 1, 12, 0, 0)
    with sqlite3.connect(tmp_path / "old.db") as conn:
        conn.execute("insert into runs (id, created_at, question, image_id, policy, registry_hash, status, "
                     "tokens_in, tokens_out, cost, forced_answer, config, answer_form, vote) values "
                     "('r1', ?, 'q', 'img', 'p', 'h', 'done', 0, 0, 0, 0, '{}', '{}', '{}')", (t0,))
        for minutes, rater, verdict in ((0, "ann", "incorrect"), (1, "bob", "correct"), (2, "ann", "partial"),
                                        (3, "ann", "correct")):
            conn.execute("insert into ratings (run_id, rater, verdict, step_marks, created_at) "
                         "values ('r1', ?, ?, '{}', ?)", (rater, verdict, t0 + timedelta(minutes=minutes)))
    command.upgrade(cfg, "head")
    with open_store(tmp_path / "home", db_url=url) as store:
        assert {(r.rater, r.verdict) for r in store.ratings_for("r1")} == {("ann", "correct"), ("bob", "correct")}
        assert [(v.verdict, v.change) for v in store.rating_history("r1")] == [("incorrect", "edited"),
                                                                                ("partial", "edited")]
        assert store.undo_last_rating("ann").restored.verdict == "partial", "the folded versions chain for undo"
        assert store.undo_last_rating("ann").restored.verdict == "incorrect"
    command.downgrade(cfg, "0003_trust")
    engine = make_engine(url)
    with engine.connect() as conn:
        columns = {r[1] for r in conn.execute(text("pragma table_info(ratings)"))}
        tables = {r[0] for r in conn.execute(text("select name from sqlite_master where type='table'"))}
    engine.dispose()
    assert "updated_at" not in columns and "rating_history" not in tables
