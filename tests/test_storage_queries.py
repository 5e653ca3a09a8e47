"""``Store.recent_ratings`` and ``Store.pair_stats`` on a real SQLite file and a real PostgreSQL database: order, paging, the run's question
beside each rating, and per (expert, skill) counts where only a run's latest whole-run verdict counts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from storage import Step, Store, open_store

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


@pytest.fixture
def store(data_dir: Path, db_url: str | None) -> Iterator[Store]:
    with open_store(data_dir, db_url) as opened:
        yield opened


@pytest.fixture
def image_id(store: Store) -> str:
    image = Image.new("RGB", (200, 60), "white")
    ImageDraw.Draw(image).text((10, 15), "EXIT 42", fill="black", font=ImageFont.truetype(FONT, 24))
    return store.images.put_image(image).id


def make_run(store: Store, image_id: str, question: str, pairs: list[tuple[str, str]], answer: str = "EXIT") -> str:
    run_id = store.create_run(question=question, image_id=image_id, policy="keyword", registry_hash="h", config={})
    for i, (model, skill) in enumerate(pairs):
        store.add_step(run_id, Step(index=i, kind="search", model=model, skill=skill, query=question))
    store.add_step(run_id, Step(index=len(pairs), kind="answer", answer=answer))
    store.finish_run(run_id, status="done", answer=answer, latency_ms=3.0)
    return run_id


def test_recent_ratings_newest_first_with_the_run_question(store: Store, image_id: str) -> None:
    first = make_run(store, image_id, "What does the sign say?", [("Tools", "OCR")])
    second = make_run(store, image_id, "How many signs?", [("Tools", "Counting")], answer="1")
    store.add_rating(first, rater="ann", verdict="incorrect", corrected_answer="EXIT 42", comment="partial read")
    store.add_rating(second, rater="bob", verdict="correct")
    store.add_rating(first, rater="cy", verdict="partial", step_index=0, step_marks={"0": ["wrong skill"]})
    rows = store.recent_ratings(limit=10)
    assert [(r.rater, r.verdict, r.run_id) for r in rows] == [("cy", "partial", first), ("bob", "correct", second),
                                                            ("ann", "incorrect", first)]
    assert rows[0].step_index == 0 and rows[0].step_marks == {"0": ["wrong skill"]}
    assert (rows[1].question, rows[1].answer) == ("How many signs?", "1")
    assert (rows[2].corrected_answer, rows[2].comment) == ("EXIT 42", "partial read")
    assert [r.rater for r in store.recent_ratings(limit=2, offset=1)] == ["bob", "ann"]
    assert store.recent_ratings(limit=5, offset=3) == []
    assert store.recent_ratings(limit=0) == []


def test_pair_stats_counts_calls_runs_and_latest_verdicts(store: Store, image_id: str) -> None:
    a = make_run(store, image_id, "q1", [("Tools", "OCR"), ("Tools", "OCR")])
    b = make_run(store, image_id, "q2", [("Tools", "OCR"), ("Qwen", "Chart")])
    c = make_run(store, image_id, "q3", [("Qwen", "Chart")])
    make_run(store, image_id, "q4", [("Tools", "OCR")])
    store.add_rating(a, rater="r", verdict="correct")
    store.add_rating(b, rater="r", verdict="correct")
    store.add_rating(b, rater="s", verdict="incorrect")  # b's latest whole-run verdict: incorrect
    store.add_rating(c, rater="r", verdict="correct", step_index=0)  # a step rating does not rate the run
    stats = {(p.model, p.skill): p for p in store.pair_stats()}
    assert set(stats) == {("Tools", "OCR"), ("Qwen", "Chart")}
    ocr, chart = stats[("Tools", "OCR")], stats[("Qwen", "Chart")]
    assert (ocr.calls, ocr.runs, ocr.rated_runs, ocr.correct_runs) == (4, 3, 2, 1)
    assert ocr.correct_share == pytest.approx(0.5)
    assert (chart.calls, chart.runs, chart.rated_runs, chart.correct_runs) == (2, 2, 1, 0)
    assert [(p.model, p.skill) for p in store.pair_stats()][0] == ("Tools", "OCR"), "most called first"


def test_pair_stats_of_an_empty_store(store: Store) -> None:
    assert store.pair_stats() == [] and store.recent_ratings() == []
