"""The skill handbook: Beta posteriors and cost from real stored runs, ratings and evaluation results, stored in
SQLite and in PostgreSQL."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PIL import Image

from agents.config import Settings
from agents.evaluation.harness import evaluate
from agents.policies.base import ScriptedPolicy
from agents.routing.handbook import (
    handbook_rows,
    load_handbook,
    rebuild_handbook,
    record_feedback,
    skill_summary,
)
from agents.runtime import Maestro

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def registry_file(tmp_path: Path) -> Path:
    """The echo fixture registry with a price on Other-Tools (so money is measured too)."""
    path = tmp_path / "registry.yaml"
    path.write_text(f"""
orchestrator: {{policy: keyword, max_turns: 3}}
skills_paths: [{FIXTURES / 'skills'}]
experts:
  - {{name: Tools, backend: tools, strengths: [Echo]}}
  - {{name: Other-Tools, aliases: [other], backend: tools, cost: {{per_call: 0.25}}}}
""", encoding="utf-8")
    return path


@pytest.fixture
def maestro(data_dir: Path, db_url: str | None, registry_file: Path) -> Maestro:
    app = Maestro.open(Settings.resolve(data_dir=data_dir, db_url=db_url, registry_path=registry_file))
    yield app
    app.store.close()


def image() -> Image.Image:
    return Image.new("RGB", (64, 48), "white")


def ask(maestro: Maestro, expert: str, skill: str = "Echo", query: str = "repeat hello",
        expected: str | None = None) -> str:
    """One real stored run that searches with (expert, skill) and answers from the observation."""
    policy = ScriptedPolicy([f"<think>Call it.</think>\n<search>{expert}@@{skill}: {query}</search>",
                             "<think>Done.</think>\n<answer>hello</answer>"])
    return maestro.ask(image(), f"please {query}", policy=policy, expected=expected).id


def row(maestro: Maestro, expert: str, level2: str = "Plain Echo", skill: str = "Echo"):
    return load_handbook(maestro.store).get((expert, skill, level2))


def test_ratings_update_the_posterior_and_a_new_rating_replaces_the_old(maestro: Maestro) -> None:
    run_id = ask(maestro, "Tools")
    assert record_feedback(maestro.store, run_id, maestro.registry) == []  # unrated, no expected answer: no credit
    assert row(maestro, "Tools") is None

    maestro.store.add_rating(run_id, rater="ann", verdict="correct")
    touched = record_feedback(maestro.store, run_id, maestro.registry)
    assert [(r.expert, r.skill, r.level2, r.alpha, r.beta) for r in touched] == [("Tools", "Echo", "Plain Echo", 2, 1)]
    assert touched[0].latency_ms > 0 and touched[0].calls == 1

    # Each annotator's live verdict counts once: ann says correct, bob incorrect -> half a success.
    maestro.store.add_rating(run_id, rater="bob", verdict="incorrect")
    record_feedback(maestro.store, run_id, maestro.registry)
    assert (row(maestro, "Tools").alpha, row(maestro, "Tools").beta) == (1.5, 1.5)

    maestro.store.add_rating(run_id, rater="bob", verdict="partial")  # bob's edit replaces his own verdict
    record_feedback(maestro.store, run_id, maestro.registry)
    assert (row(maestro, "Tools").alpha, row(maestro, "Tools").beta) == (1.75, 1.25)
    maestro.store.add_rating(run_id, rater="cy", verdict="incorrect", step_index=0)  # a step mark is no verdict
    record_feedback(maestro.store, run_id, maestro.registry)
    assert (row(maestro, "Tools").alpha, row(maestro, "Tools").beta) == (1.75, 1.25)


def test_eval_results_count_against_the_expected_answer_and_money_is_measured(maestro: Maestro) -> None:
    right = ask(maestro, "other", expected="hello")  # alias: credited to the canonical name
    wrong = ask(maestro, "Other-Tools", expected="goodbye")
    for run_id in (right, wrong):
        record_feedback(maestro.store, run_id, maestro.registry)
    entry = row(maestro, "Other-Tools")
    assert (entry.alpha, entry.beta, entry.runs, entry.calls) == (2, 2, 2, 2)
    assert entry.money == pytest.approx(0.25) and entry.mean == 0.5
    # A person's rating overrides the automatic comparison.
    maestro.store.add_rating(wrong, rater="ann", verdict="correct")
    record_feedback(maestro.store, wrong, maestro.registry)
    assert (row(maestro, "Other-Tools").alpha, row(maestro, "Other-Tools").beta) == (3, 1)


def test_a_failed_call_earns_nothing_even_when_the_run_was_right(maestro: Maestro) -> None:
    policy = ScriptedPolicy(["<think>Try.</think>\n<search>Tools@@Crashy: anything</search>",
                             "<think>Echo instead.</think>\n<search>Other-Tools@@Echo: repeat hi</search>",
                             "<think>Done.</think>\n<answer>hi</answer>"])
    run_id = maestro.ask(image(), "repeat hi", policy=policy).id
    maestro.store.add_rating(run_id, rater="ann", verdict="correct")
    record_feedback(maestro.store, run_id, maestro.registry)
    crashy = load_handbook(maestro.store)[("Tools", "Crashy", "Boom")]
    assert (crashy.alpha, crashy.beta) == (1, 2)
    assert (row(maestro, "Other-Tools").alpha, row(maestro, "Other-Tools").beta) == (2, 1)


def test_rebuild_from_storage_equals_the_incremental_handbook(maestro: Maestro) -> None:
    verdicts = [("Tools", "correct"), ("Tools", "incorrect"), ("Other-Tools", "correct"), ("Tools", "partial"),
                ("Other-Tools", "incorrect"), ("Other-Tools", "correct")]
    for i, (expert, verdict) in enumerate(verdicts):
        run_id = ask(maestro, expert, query="shout hello" if i % 2 else "repeat hello")
        maestro.store.add_rating(run_id, rater="ann", verdict=verdict)
        record_feedback(maestro.store, run_id, maestro.registry)
        if i == 2:  # a re-rating on the way
            maestro.store.add_rating(run_id, rater="bob", verdict="incorrect")
            record_feedback(maestro.store, run_id, maestro.registry)
    record_feedback(maestro.store, ask(maestro, "Tools", expected="hello"), maestro.registry)
    incremental = handbook_rows(maestro.store)
    assert {(r["expert"], r["level2"]) for r in incremental} == {
        ("Tools", "Plain Echo"), ("Tools", "Loud Echo"), ("Other-Tools", "Plain Echo"), ("Other-Tools", "Loud Echo")}
    assert rebuild_handbook(maestro.store, maestro.registry) == 4
    rebuilt = handbook_rows(maestro.store)
    assert len(rebuilt) == len(incremental)
    for a, b in zip(incremental, rebuilt, strict=True):
        assert {k: v for k, v in a.items() if k != "latency_ms"} == {k: v for k, v in b.items() if k != "latency_ms"}
        assert a["latency_ms"] == pytest.approx(b["latency_ms"], rel=1e-6)
    pooled = {r["expert"]: r for r in skill_summary(maestro.store)}
    assert pooled["Tools"]["alpha"] + pooled["Tools"]["beta"] == 2 + 4  # prior + four verdicts over two Level-2s


def test_the_evaluation_harness_feeds_the_handbook(maestro: Maestro, tmp_path: Path) -> None:
    image().save(tmp_path / "white.png")
    lines = [{"id": "a", "image": "white.png", "question": "repeat hello", "answer": "hello"},
             {"id": "b", "image": "white.png", "question": "repeat this", "answer": "something else"}]
    (tmp_path / "set.jsonl").write_text("\n".join(json.dumps(x) for x in lines), encoding="utf-8")
    summary = evaluate(maestro, tmp_path / "set.jsonl", tmp_path / "out", progress=False)
    assert summary["accuracy"] == 0.5
    entry = row(maestro, "Tools")  # the keyword policy sends echo questions to Tools (its declared strength)
    assert (entry.alpha, entry.beta) == (2, 2)


@pytest.mark.slow
def test_cli_rebuild_and_show(maestro: Maestro, data_dir: Path, registry_file: Path) -> None:
    run_id = ask(maestro, "Tools")
    maestro.store.add_rating(run_id, rater="ann", verdict="correct")  # no record_feedback: rebuild must find it
    args = ["--data-dir", str(data_dir), *(["--db", maestro.store.url] if maestro.settings.db_url else [])]
    rebuilt = subprocess.run([sys.executable, "-m", "ui.cli", "handbook", "rebuild", *args, "--registry",
                              str(registry_file)], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert "1 (expert, skill, Level-2) rows" in rebuilt.stdout
    shown = subprocess.run([sys.executable, "-m", "ui.cli", "handbook", "show", "--json", *args], cwd=REPO,
                           capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    rows = json.loads(shown.stdout)
    assert [(r["expert"], r["skill"], r["level2"], r["alpha"], r["beta"]) for r in rows] == [
        ("Tools", "Echo", "Plain Echo", 2.0, 1.0)]


def test_a_rating_landing_while_another_update_runs_is_not_undone(maestro: Maestro,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """An evaluation's feedback for a run is being worked out when a person's rating of that run lands (another
    process, another thread): the rating's credit must win, not the stale automatic one computed before it."""
    import threading

    import agents.routing.handbook as handbook

    run_id = ask(maestro, "Tools", expected="something else")  # the automatic verdict: wrong
    real, slowed = handbook.credits_for, threading.Event()

    def slow_first_call(run, registry=None):  # the evaluation's update, caught half way
        if not slowed.is_set():
            slowed.set()
            time.sleep(1.0)
        return real(run, registry)

    monkeypatch.setattr(handbook, "credits_for", slow_first_call)
    evaluation = threading.Thread(target=record_feedback, args=(maestro.store, run_id, maestro.registry))
    evaluation.start()
    assert slowed.wait(10)
    maestro.store.add_rating(run_id, rater="ann", verdict="correct")  # lands while the update is half way
    record_feedback(maestro.store, run_id, maestro.registry)
    evaluation.join(30)
    assert (row(maestro, "Tools").alpha, row(maestro, "Tools").beta) == (2, 1)
