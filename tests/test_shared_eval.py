"""One evaluation shared by three ``maestro eval --shared`` worker processes on one PostgreSQL database, one of
them killed with SIGKILL while it holds an item: every item gets exactly one result, the killed worker's item is
run again by another worker, and the results collected from the database are complete."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import select

from storage import open_store
from storage.shared_eval import SharedEvalItem
from tests.test_postgres_instances import QUESTION, WORDS, sign, spawn

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

REPO = Path(__file__).resolve().parent.parent
ITEMS = 60


def _finish_both(proc: subprocess.Popen[str]) -> tuple[str, str]:
    out, err = proc.communicate(timeout=900)
    assert proc.returncode == 0, err[-3000:]
    return out, err


def _claims(home: Path, url: str) -> list[SharedEvalItem]:
    with open_store(home, url) as store, store.reading() as session:
        rows = list(session.scalars(select(SharedEvalItem).where(SharedEvalItem.eval_name == "dev")))
        session.expunge_all()
    return rows


def test_three_workers_run_each_item_once_through_a_kill(tmp_path: Path, postgres_url: str) -> None:
    images = tmp_path / "set"
    images.mkdir()
    for word in WORDS:
        sign(images / f"{word.lower()}.png", word)
    items = [{"id": f"item-{i:02d}", "image": f"{WORDS[i % len(WORDS)].lower()}.png", "question": QUESTION,
              "answer": WORDS[i % len(WORDS)], "category": "ocr"} for i in range(ITEMS)]
    dataset = images / "items.jsonl"
    dataset.write_text("".join(json.dumps(i) + "\n" for i in items))
    home = tmp_path / "home"
    env = {**os.environ, "MAESTRO_HOME": str(home), "MAESTRO_DB": postgres_url, "PYTHONPATH": str(REPO),
           "MAESTRO_EVAL_LEASE_S": "6"}
    env.pop("MAESTRO_REGISTRY", None)
    with open_store(home, postgres_url):
        pass

    workers = [spawn(["-m", "ui.cli", "eval", str(dataset), "--out", str(tmp_path / f"out-{n}"), "--shared", "dev"],
                     env) for n in range(3)]
    victim = workers[0]
    try:
        deadline = time.monotonic() + 240
        held: list[str] = []
        while not held and time.monotonic() < deadline:  # kill it while it holds an item
            held = [c.item_id for c in _claims(home, postgres_url)
                    if c.state == "claimed" and f":{victim.pid}:" in (c.worker or "")]
            time.sleep(0.2)
        assert held, "the first worker never claimed an item"
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait(30)
        ended = [_finish_both(proc) for proc in workers[1:]]
        outputs, errors = [out for out, _ in ended], [err for _, err in ended]
    finally:
        for proc in workers:
            if proc.poll() is None:
                proc.kill()
    assert victim.returncode == -signal.SIGKILL
    assert all("results:" in out for out in outputs)
    assert all("60 done" in err for err in errors), "each worker's progress is the whole evaluation's"

    claims = _claims(home, postgres_url)
    assert len(claims) == ITEMS and all(c.state == "done" and c.result for c in claims)
    assert all(c.attempts >= 2 for c in claims if c.item_id in held), "the killed worker's item was run again"
    assert not any(f":{victim.pid}:" in (c.worker or "") for c in claims if c.item_id in held)
    for n in (1, 2):  # each surviving worker wrote the whole evaluation, in dataset order
        rows = [json.loads(line) for line in (tmp_path / f"out-{n}" / "results.jsonl").read_text().splitlines()]
        assert [r["id"] for r in rows] == [i["id"] for i in items]
        assert all(r["status"] == "done" and r["correct"] for r in rows)
    summary = json.loads((tmp_path / "out-1" / "summary.json").read_text())
    assert summary["items"] == ITEMS and summary["shared"]["missing"] == 0

    collected = subprocess.run([sys.executable, "-m", "ui.cli", "eval", "--collect", "dev", "--out",
                                str(tmp_path / "collected")], cwd=REPO, env=env, capture_output=True, text=True,
                               timeout=300)
    assert collected.returncode == 0, collected.stderr
    rows = [json.loads(line) for line in (tmp_path / "collected" / "results.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == [i["id"] for i in items]

    with open_store(home, postgres_url) as store:
        # Each item has exactly one finished run, the run its result names. The killed worker's item may also
        # have the run the kill cut short (or, had the kill fallen between the end of its run and the recording
        # of its result, a finished one that no result names).
        runs = store.list_runs(limit=10_000)
        finished = Counter(s.item_id for s in runs if s.status in ("done", "abstained"))
        assert all(finished[i["id"]] == 1 for i in items if i["id"] not in held), finished
        assert len({r["run_id"] for r in rows}) == ITEMS
        assert {r["run_id"] for r in rows} <= {s.id for s in runs if s.status == "done"}
        unfinished = [s.item_id for s in runs if s.status not in ("done", "abstained")]
        assert set(unfinished) <= set(held)
