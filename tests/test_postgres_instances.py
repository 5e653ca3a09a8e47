"""Several Maestro processes sharing one PostgreSQL database and one data directory, as the README describes for
running several instances: two ``maestro eval`` of the same set at once, a ``maestro ask`` started while they run,
and a rater process that rates every finished run the moment it appears (feeding the handbook) and keeps opening
the store (each open looks for runs of dead processes). Afterwards every run, step, rating and dataset item is
there exactly once, nothing was marked ``interrupted``, and the handbook equals a rebuild from scratch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from agents.routing.handbook import handbook_rows, rebuild_handbook
from storage import open_store

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

REPO = Path(__file__).resolve().parent.parent
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
WORDS = ["BAKERY", "EXIT", "PHARMACY", "LIBRARY", "HOTEL", "GARAGE"]
QUESTION = "What is written on the sign?"

RATER = textwrap.dedent("""
    import json, sys, time
    from pathlib import Path
    from agents.routing.handbook import record_feedback
    from storage import open_store

    home, url, stop = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    store = open_store(home, url)
    rated, marked, running_seen, opens = [], 0, 0, 0
    print("OPEN", flush=True)
    while True:
        finishing = stop.exists()  # read first: the pass below then sees every run finished before the stop
        for summary in store.list_runs(limit=100, status="done", rating="unrated"):
            verdict = "correct" if len(rated) % 3 else "incorrect"
            rating_id = store.add_rating(summary.id, rater="rater", verdict=verdict, comment=f"#{len(rated)}")
            record_feedback(store, summary.id)
            rated.append([rating_id, summary.id, verdict])
        # A second start while the others run: it must leave their live runs alone.
        running = store.count_runs(status="running")
        with open_store(home, url) as again:
            marked += again.mark_interrupted()
        opens += 1
        running_seen = max(running_seen, running)
        if finishing:
            break
        time.sleep(0.1)
    print(json.dumps({"rated": rated, "marked": marked, "running_seen": running_seen, "opens": opens}), flush=True)
""")


def sign(path: Path, word: str) -> None:
    image = Image.new("RGB", (460, 200), (245, 245, 240))
    draw = ImageDraw.Draw(image)
    draw.rectangle((6, 6, 454, 194), outline=(30, 30, 160), width=8)
    draw.text((230, 100), word, fill=(15, 15, 15), font=ImageFont.truetype(FONT, 56), anchor="mm")
    image.save(path)


def spawn(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, *args], cwd=REPO, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen[str], timeout: float = 400) -> str:
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    assert proc.returncode == 0, f"{proc.args[1:3]} exited {proc.returncode}:\n{err[-3000:]}"
    return out


def test_two_evals_an_ask_and_a_rater_on_one_database_lose_nothing(tmp_path: Path, postgres_url: str) -> None:
    images = tmp_path / "set"
    images.mkdir()
    items = []
    for word in WORDS:
        sign(images / f"{word.lower()}.png", word)
        items.append({"id": word.lower(), "image": f"{word.lower()}.png", "question": QUESTION, "answer": word,
                      "category": "ocr"})
    dataset = images / "items.jsonl"
    dataset.write_text("".join(json.dumps(i) + "\n" for i in items))
    home = tmp_path / "shared-home"  # one data directory for every instance: the images live there
    env = {**os.environ, "MAESTRO_HOME": str(home), "MAESTRO_DB": postgres_url, "PYTHONPATH": str(REPO)}
    env.pop("MAESTRO_REGISTRY", None)
    with open_store(home, postgres_url):
        pass  # the schema exists before the instances start, as after any first start
    stop = tmp_path / "stop-rating"

    rater = spawn(["-c", RATER, str(home), postgres_url, str(stop)], env)
    assert rater.stdout.readline().strip() == "OPEN", rater.stderr.read()
    started = time.monotonic()
    evals = [spawn(["-m", "ui.cli", "eval", str(dataset), "--out", str(tmp_path / f"out-{name}"),
                    "--concurrency", "2"], env) for name in ("a", "b")]
    time.sleep(3)
    ask = spawn(["-m", "ui.cli", "ask", str(images / "exit.png"), QUESTION, "--json"], env)
    try:
        asked = json.loads(finish(ask))
        for proc in evals:
            finish(proc)
        stop.touch()
        report = json.loads(finish(rater).strip().splitlines()[-1])
    finally:
        for proc in (rater, ask, *evals):
            if proc.poll() is None:
                proc.kill()
    elapsed = time.monotonic() - started

    results = {name: [json.loads(line) for line in (tmp_path / f"out-{name}" / "results.jsonl").read_text()
                      .splitlines()] for name in ("a", "b")}
    with open_store(home, postgres_url) as store:
        run_ids = [r["run_id"] for rows in results.values() for r in rows] + [asked["run_id"]]
        assert len(set(run_ids)) == len(run_ids) == 2 * len(WORDS) + 1 and all(run_ids)
        assert store.count_runs() == len(run_ids), "no run lost, none doubled"
        assert store.count_runs(status="interrupted") == 0 and report["marked"] == 0
        assert report["running_seen"] > 0, "the rater never saw a live run: the check above proved nothing"
        for rows in results.values():
            assert [r["id"] for r in rows] == [i["id"] for i in items]
            for row in rows:
                record = store.get_run(row["run_id"])
                assert (record.status, record.answer, record.item_id) == (row["status"], row["answer"], row["id"])
                assert record.status == "done" and record.answer == record.expected
                assert [s.index for s in record.steps] == list(range(len(record.steps)))
                assert record.steps[-1].kind == "answer" and any(s.kind == "search" for s in record.steps)
                assert store.images.open(record.image_id).size == (460, 200)
        assert store.get_run(asked["run_id"]).answer == "EXIT"

        rated = report["rated"]
        assert sorted(run for _, run, _ in rated) == sorted(run_ids), "every finished run rated exactly once"
        for rating_id, run_id, verdict in rated:
            assert [(r.id, r.verdict, r.rater) for r in store.ratings_for(run_id)] == [(rating_id, verdict, "rater")]
        assert len(store.recent_ratings(limit=100)) == len(rated)
        assert sorted(i.item_id for i in store.dataset_items("set")) == sorted(i["id"] for i in items)

        incremental = handbook_rows(store)
        assert sum(row["runs"] for row in incremental) >= len(run_ids)
        rebuild_handbook(store)
        rebuilt = handbook_rows(store)
        # Latency sums may add up in another order; everything else must match to the digit.
        assert [{**r, "latency_ms": None} for r in rebuilt] == [{**r, "latency_ms": None} for r in incremental], \
            "a concurrent handbook update lost a credit or kept a stale one"
        assert [r["latency_ms"] for r in rebuilt] == pytest.approx([r["latency_ms"] for r in incremental], abs=0.11)
    print(f"{len(run_ids)} runs, {len(rated)} ratings, {report['opens']} store opens in {elapsed:.1f} s")
