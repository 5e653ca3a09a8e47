"""`maestro eval` survives crashes: killed with SIGKILL mid-way, `--resume` finishes the evaluation in the same
folder with every item exactly once and the finished items not run again (a torn last line is dropped)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agents.evaluation.results import ResultsFile, ResumeError
from storage import open_store

REPO = Path(__file__).resolve().parent.parent


def small_dataset(blindtest_dir: Path, out: Path, n: int) -> list[str]:
    """``n`` BlindTest items from every category, with absolute image paths; returns their ids in order."""
    rows = [json.loads(line) for line in (blindtest_dir / "items.jsonl").read_text().splitlines()]
    picked = rows[:: max(1, len(rows) // n)][:n]
    for row in picked:
        row["image"] = str(blindtest_dir / row["image"])
    out.write_text("".join(json.dumps(row) + "\n" for row in picked))
    return [row["id"] for row in picked]


def maestro_eval(*args: str) -> list[str]:
    return [sys.executable, "-m", "ui.cli", "eval", *args]


def result_lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


@pytest.mark.slow
def test_sigkill_mid_eval_then_resume_runs_each_item_exactly_once(tmp_path: Path, blindtest_dir: Path) -> None:
    dataset, out, home = tmp_path / "items.jsonl", tmp_path / "out", tmp_path / "home"
    ids = small_dataset(blindtest_dir, dataset, 14)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    args = [str(dataset), "--out", str(out), "--data-dir", str(home)]
    child = subprocess.Popen(maestro_eval(*args), env=env, cwd=REPO, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while len(result_lines(out / "results.jsonl")) < 3:
            assert child.poll() is None, "the evaluation ended before it could be killed"
            assert time.monotonic() < deadline, "no results appeared"
            time.sleep(0.02)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
    kept = [json.loads(line) for line in result_lines(out / "results.jsonl")]
    assert 3 <= len(kept) < len(ids), "the kill should land mid-evaluation"
    with (out / "results.jsonl").open("a") as handle:  # what a kill in the middle of a write leaves behind
        handle.write('{"id": "' + ids[-1] + '", "status": "do')

    resumed = subprocess.run(maestro_eval(*args, "--resume"), env=env, cwd=REPO, capture_output=True, text=True,
                             timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"resumed: {len(kept)} finished items kept, {len(ids) - len(kept)} run now, 1 torn line" in resumed.stdout

    rows = [json.loads(line) for line in result_lines(out / "results.jsonl")]
    assert [row["id"] for row in rows] == ids  # every item exactly once, in dataset order
    by_id = {row["id"]: row for row in rows}
    assert all(by_id[row["id"]]["run_id"] == row["run_id"] for row in kept)  # finished rows kept as they were
    assert all(row["run_id"] and row["status"] == "done" for row in rows)
    store = open_store(home)
    runs = store.list_runs(limit=1000, dataset=tmp_path.name)  # a dataset is named by its folder
    per_item = {item: [r for r in runs if r.item_id == item] for item in ids}
    assert all(len(per_item[row["id"]]) == 1 for row in kept), "a finished item was run again"
    for item in ids:  # the one that was running when killed is left 'interrupted', beside its new run
        assert [r.status for r in per_item[item]].count("done") == 1
        assert {r.status for r in per_item[item]} <= {"done", "interrupted"}
    assert len(runs) <= len(ids) + 1
    summary = json.loads((out / "summary.json").read_text())
    assert summary["items"] == len(ids) and summary["resumed"]["kept"] == len(kept)


def test_resume_keeps_whole_rows_and_drops_a_torn_tail(tmp_path: Path) -> None:
    manifest = {"dataset": "/data/a.jsonl"}
    results = ResultsFile(tmp_path)
    results.start(manifest)
    results.append({"id": "a", "status": "done"})
    results.append({"id": "b", "status": "abstained"})
    results.close()
    with (tmp_path / "results.jsonl").open("a") as handle:
        handle.write('{"id": "c", "stat')
    again = ResultsFile(tmp_path)
    assert sorted(again.resume(manifest)) == ["a", "b"] and again.dropped_lines == 1
    again.append({"id": "c", "status": "done"})
    again.close()
    assert [json.loads(line)["id"] for line in (tmp_path / "results.jsonl").read_text().splitlines()] == \
           ["a", "b", "c"]


def test_a_row_cut_just_before_its_newline_is_whole(tmp_path: Path) -> None:
    manifest = {"dataset": "/data/a.jsonl"}
    (tmp_path / "results.jsonl").write_text('{"id": "a", "status": "done"}\n{"id": "b", "status": "done"}')
    results = ResultsFile(tmp_path)
    assert sorted(results.resume(manifest)) == ["a", "b"] and results.dropped_lines == 0
    results.append({"id": "c", "status": "done"})
    results.close()
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == 3


def test_ctrl_c_keeps_the_items_that_were_running(tmp_path: Path) -> None:
    from agents.evaluation.harness import Item, _run_all

    items = [Item(name, tmp_path / "x.png", "q", "a", "c") for name in ("slow", "interrupt", "c", "d", "e")]
    returned: list[str] = []
    kept: list[str] = []

    def one(item: Item) -> dict[str, str]:
        if item.id == "interrupt":
            raise KeyboardInterrupt
        time.sleep(0.3)
        returned.append(item.id)
        return {"id": item.id}

    with pytest.raises(KeyboardInterrupt):
        _run_all(items, one, lambda row: kept.append(row["id"]), concurrency=2)
    assert "slow" in kept and sorted(kept) == sorted(returned)  # every finished item kept exactly once
    assert len(kept) < 4  # and nothing new was started once interrupted


def test_resume_refuses_a_folder_of_another_dataset(tmp_path: Path) -> None:
    results = ResultsFile(tmp_path)
    results.start({"dataset": "/data/a.jsonl"})
    results.append({"id": "a", "status": "done"})
    results.close()
    with pytest.raises(ResumeError, match="a.jsonl"):
        ResultsFile(tmp_path).resume({"dataset": "/data/b.jsonl"})
