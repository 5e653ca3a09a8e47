"""A labelling team's records on a real SQLite file: assignment with overlap k and the queues it makes, the
reviewer's queue of disagreements and the final label the exports use, box corrections (validated in image
pixels, kept through edit and undo, exported for grounding), the per-annotator dashboard and conversations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.config import Settings
from agents.export.training_data import export
from agents.runtime import Maestro
from storage import team
from tests.test_web_api import seed_run

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"


@pytest.fixture
def maestro(data_dir: Path) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=data_dir))


def _runs(maestro: Maestro, n: int) -> list[str]:
    image_id = maestro.store.images.put_bytes((EXAMPLES / "sign.png").read_bytes()).id
    return [seed_run(maestro, image_id, f"What is written on sign {i}?") for i in range(n)]


def test_overlap_k_gives_each_run_to_k_annotators_and_queues_follow(maestro: Maestro) -> None:
    store = maestro.store
    runs = _runs(maestro, 4)
    open_run = runs[3]
    assert team.assign(store, runs[:3], ["alice", "bob", "carol"], 2, by="rita") == 6
    assert all(len(team.assignees(store, r)) == 2 for r in runs[:3])
    loads = {n: sum(n in team.assignees(store, r) for r in runs[:3]) for n in ("alice", "bob", "carol")}
    assert sorted(loads.values()) == [2, 2, 2], "the least loaded annotator is picked first"
    assert team.assign(store, runs[:3], ["alice", "bob", "carol"], 2, by="rita") == 0, "k already met"
    for name in ("alice", "bob", "carol"):
        queue = [r.id for r in store.rating_queue(name, limit=10)]
        mine = [r for r in runs[:3] if name in team.assignees(store, r)]
        assert queue == [*mine, open_run], "own assignments first, then runs assigned to nobody"
        assert store.rating_progress(name) == (0, 3)
    with pytest.raises(ValueError, match="overlap k"):
        team.assign(store, runs, ["alice"], 2, by="rita")
    with pytest.raises(KeyError):
        team.assign(store, ["0" * 32], ["alice"], 1, by="rita")


def test_disagreement_is_adjudicated_and_the_final_label_is_exported(maestro: Maestro, tmp_path: Path) -> None:
    store = maestro.store
    disputed, agreed = _runs(maestro, 2)
    store.add_rating(disputed, rater="alice", verdict="correct")
    store.add_rating(disputed, rater="bob", verdict="incorrect", corrected_answer="MAIN ST")
    store.add_rating(agreed, rater="alice", verdict="correct")
    store.add_rating(agreed, rater="bob", verdict="correct")
    (item,) = team.disagreements(store)
    assert item.run_id == disputed and item.labels == {"alice": ("correct", None), "bob": ("incorrect", "MAIN ST")}
    manifest = export(store, maestro.registry, tmp_path / "before", formats=["labels", "sft"])
    assert manifest.skipped.get("annotators_disagree") == 1
    with pytest.raises(ValueError, match="reason"):
        team.adjudicate(store, disputed, reviewer="rita", verdict="incorrect", final_answer="MAIN ST", reason=" ")
    team.adjudicate(store, disputed, reviewer="rita", verdict="incorrect", final_answer="MAIN STREET EXIT 42",
                    reason="the exit number is on the sign too")
    assert team.disagreements(store) == []
    manifest = export(store, maestro.registry, tmp_path / "after", formats=["labels", "sft", "grpo"])
    assert "annotators_disagree" not in manifest.skipped
    labels = {r["run_id"]: r for r in map(json.loads, (tmp_path / "after" / "labels.jsonl").read_text().splitlines())}
    assert labels[disputed]["source"] == "adjudicated" and labels[disputed]["verdict"] == "incorrect"
    assert labels[disputed]["final_answer"] == "MAIN STREET EXIT 42" and labels[disputed]["labelled_by"] == "rita"
    assert labels[agreed]["source"] == "agreed"
    grpo = [json.loads(line) for line in (tmp_path / "after" / "grpo.jsonl").read_text().splitlines()]
    assert any("MAIN STREET EXIT 42" in json.dumps(row) for row in grpo), "RL ground truth is the final label"
    # A rating changed after the adjudication reopens the run for the reviewer.
    store.add_rating(disputed, rater="alice", verdict="partial")
    (again,) = team.disagreements(store)
    assert again.reopened


def test_box_corrections_are_checked_kept_through_undo_and_exported(maestro: Maestro, tmp_path: Path) -> None:
    store = maestro.store
    (run,) = _runs(maestro, 1)
    record = store.get_run(run)
    assert record is not None
    ref = store.images.path(record.image_id)
    from PIL import Image

    width, height = Image.open(ref).size
    with pytest.raises(ValueError, match="outside"):
        store.add_rating(run, rater="alice", verdict="incorrect", boxes=[{"box": [0, 0, width + 5, 10]}])
    with pytest.raises(ValueError, match="x0 < x1"):
        store.add_rating(run, rater="alice", verdict="incorrect", boxes=[{"box": [50, 10, 20, 30]}])
    assert store.rating_of(run, "alice") is None, "nothing written for a bad box"
    store.add_rating(run, rater="alice", verdict="incorrect", corrected_answer="MAIN STREET",
                     boxes=[{"box": [10.4, 20, 110, 60.6], "label": "MAIN STREET"}])
    store.add_rating(run, rater="alice", verdict="correct")  # an edit without boxes...
    assert store.rating_of(run, "alice").boxes == []
    store.undo_last_rating("alice")  # ...undone: the boxes come back
    assert store.rating_of(run, "alice").boxes == [{"box": [10, 20, 110, 61], "label": "MAIN STREET"}]
    export(store, maestro.registry, tmp_path / "out", formats=["grounding", "ratings"])
    (row,) = [json.loads(line) for line in (tmp_path / "out" / "grounding.jsonl").read_text().splitlines()]
    assert json.loads(row["boxes"]) == [{"label": "MAIN STREET", "box": [10, 20, 110, 61]}]
    assert row["answer"] == "MAIN STREET" and (tmp_path / "out" / row["images"][0]).is_file()
    (rating,) = [json.loads(line) for line in (tmp_path / "out" / "ratings.jsonl").read_text().splitlines()]
    assert json.loads(rating["boxes"])[0]["box"] == [10, 20, 110, 61]


def test_dashboard_counts_time_and_kappa(maestro: Maestro) -> None:
    store = maestro.store
    runs = _runs(maestro, 4)
    team.assign(store, runs[:2], ["alice", "bob"], 2, by="rita")
    for i, run in enumerate(runs):
        store.add_rating(run, rater="alice", verdict="correct" if i % 2 else "incorrect")
        store.add_rating(run, rater="bob", verdict="correct" if i % 2 else "incorrect")
    stats = {s.name: s for s in team.annotator_stats(store)}
    assert stats["alice"].done == 4 and stats["alice"].assigned == 2 and stats["alice"].assigned_done == 2
    assert stats["alice"].kappa == {"bob": pytest.approx(1.0)}
    assert stats["bob"].seconds_per_item is not None and stats["bob"].seconds_per_item >= 0


def test_conversations_link_turns_per_owner(maestro: Maestro) -> None:
    store = maestro.store
    first, second, other = _runs(maestro, 3)
    assert team.link_turn(store, first, "c1", "alice") == 1
    assert team.link_turn(store, second, "c1", "alice") == 2
    assert team.link_turn(store, second, "c1", "alice") == 2, "linking again changes nothing"
    team.link_turn(store, other, "c2", "bob")
    (conv,) = team.conversations(store, "alice")
    assert (conv.id, conv.turns, conv.title) == ("c1", 2, "What is written on sign 0?")
    assert team.conversation_runs(store, "c1") == [first, second]
    assert team.conversation_of(store, other) == "c2"


@pytest.mark.slow
def test_team_cli_assigns_lists_settles_and_reports(maestro: Maestro, data_dir: Path) -> None:
    from tests.test_cli_rate import maestro as cli

    store = maestro.store
    first, second = _runs(maestro, 2)
    done = cli("team", "assign", "--to", "alice,bob,carol", "-k", "2", home=data_dir)
    assert done.returncode == 0 and "2 runs, overlap 2: 4 new assignments" in done.stdout
    assert all(len(team.assignees(store, r)) == 2 for r in (first, second))
    store.add_rating(first, rater="alice", verdict="correct")
    store.add_rating(first, rater="bob", verdict="incorrect")
    listed = cli("team", "disagreements", home=data_dir)
    assert first in listed.stdout and second not in listed.stdout
    refused = cli("team", "adjudicate", first, "--verdict", "maybe", "--reason", "x", home=data_dir)
    assert refused.returncode == 2 and refused.stderr.startswith("error: the final verdict") and not refused.stdout
    settled = cli("team", "adjudicate", first, "--verdict", "correct", "--reason", "the sign says so",
                  home=data_dir, rater="rita")
    assert settled.returncode == 0 and team.final_label(store, first).reviewer == "rita"
    assert "alice: 1 done" in cli("team", "stats", home=data_dir).stdout
