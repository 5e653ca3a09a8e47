"""Many writers on one database at once: eval worker threads, a second Store (the web UI) and a second process
(the CLI), all writing runs, steps, images and ratings at the same time, on a SQLite file ("database is locked"
must never happen) and on a PostgreSQL database (nothing may be lost or doubled)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from storage import Step, Store, ToolCall, open_store

REPO = Path(__file__).resolve().parent.parent
RUNS_PER_WORKER = 12
STEPS_PER_RUN = 3


def work(store: Store, tag: str, n_runs: int, n_steps: int) -> int:
    """One writer's share: runs with an image, steps, a finish and a rating, reading in between."""
    for r in range(n_runs):
        image = Image.new("RGB", (48, 24), "white")
        ImageDraw.Draw(image).text((2, 4), f"{tag}{r}", fill="black")
        ref = store.images.put_image(image)
        run_id = store.create_run(question=f"{tag} run {r}", image_id=ref.id, policy="p", registry_hash="r",
                                  config={"worker": tag})
        for s in range(n_steps):
            store.add_step(run_id, Step(index=s, kind="search", model=f"m{s}", skill="OCR",
                                              observation=f"{tag}-{r}-{s}", artifacts=[ref.id],
                                              tool_calls=[ToolCall(0, "ocr", {"s": s}, "ok", 1.0)]))
            store.list_runs(limit=5, skill="OCR")  # readers interleave with writers
        store.finish_run(run_id, status="done", answer=str(r), latency_ms=1.0)
        store.add_rating(run_id, rater=tag, verdict="correct" if r % 2 else "partial")
    return n_runs


CHILD = textwrap.dedent("""
    import sys
    from concurrent.futures import ThreadPoolExecutor
    from storage import open_store
    from tests.test_storage_concurrent import work

    store = open_store(sys.argv[1], sys.argv[4] or None)
    print("OPEN", flush=True)
    sys.stdin.readline()  # start together with the parent
    with ThreadPoolExecutor(4) as pool:
        done = sum(pool.map(lambda i: work(store, f"child{i}", int(sys.argv[2]), int(sys.argv[3])), range(4)))
    print("DONE", done, flush=True)
""")


@pytest.mark.slow
def test_threads_stores_and_a_second_process_write_at_once(data_dir: Path, db_url: str | None) -> None:
    # e.g. the web UI and an eval in one process
    ui_store, cli_store = open_store(data_dir, db_url), open_store(data_dir, db_url)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(data_dir), str(RUNS_PER_WORKER), str(STEPS_PER_RUN),
                              db_url or ""],
                             env=env, cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "OPEN"
        child.stdin.write("go\n")
        child.stdin.flush()
        jobs = [(ui_store if i % 2 else cli_store, f"parent{i}") for i in range(6)]
        with ThreadPoolExecutor(len(jobs)) as pool:
            finished = list(pool.map(lambda job: work(job[0], job[1], RUNS_PER_WORKER, STEPS_PER_RUN), jobs))
        out, err = child.communicate(timeout=300)
    finally:
        if child.poll() is None:
            child.kill()
    assert "locked" not in err, err
    assert child.returncode == 0, err
    assert out.strip() == f"DONE {4 * RUNS_PER_WORKER}"
    assert finished == [RUNS_PER_WORKER] * len(jobs)

    expected_runs = (len(jobs) + 4) * RUNS_PER_WORKER
    with open_store(data_dir, db_url) as store:
        assert store.count_runs() == store.count_runs(status="done") == expected_runs
        assert store.count_runs(rating="correct") + store.count_runs(rating="partial") == expected_runs
        questions = set()
        for summary in store.list_runs(limit=expected_runs):
            record = store.get_run(summary.id)
            questions.add(record.question)
            tag, _, r = record.question.split()
            assert [s.observation for s in record.steps] == [f"{tag}-{r}-{s}" for s in range(STEPS_PER_RUN)]
            assert [(x.rater, x.step_index) for x in record.ratings] == [(tag, None)]
            assert store.images.open(record.image_id).size == (48, 24)
            assert store.image_info(record.image_id).width == 48
        assert len(questions) == expected_runs  # every run once, none doubled
    ui_store.close()
    cli_store.close()


def test_many_threads_on_one_store(data_dir: Path, db_url: str | None) -> None:
    errors: list[BaseException] = []
    with open_store(data_dir, db_url) as store:
        def guarded(i: int) -> None:
            try:
                work(store, f"t{i}", 5, 2)
            except BaseException as exc:  # noqa: BLE001 - collected and asserted below
                errors.append(exc)

        threads = [threading.Thread(target=guarded, args=(i,)) for i in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert store.count_runs(status="done") == 60
        assert len(store.get_run(store.list_runs(limit=1)[0].id).steps) == 2


def test_plain_deferred_transactions_do_fail_here(tmp_path: Path) -> None:
    """The control: the read-then-write pattern of add_step, without BEGIN IMMEDIATE, hits "database is locked"
    at once when another writer commits between the read and the write (a busy timeout cannot help)."""
    import sqlite3

    path = tmp_path / "plain.db"
    setup = sqlite3.connect(path)
    setup.execute("pragma journal_mode=wal")
    setup.execute("create table t(x)")
    setup.commit()
    first = sqlite3.connect(path, timeout=30, isolation_level=None)
    second = sqlite3.connect(path, timeout=30, isolation_level=None)
    first.execute("begin")
    first.execute("select count(*) from t").fetchone()  # snapshot taken
    second.execute("insert into t values (1)")  # another writer commits meanwhile
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        first.execute("insert into t values (2)")
    first.execute("rollback")
    for conn in (first, second, setup):
        conn.close()



@pytest.mark.slow
def test_simultaneous_first_starts_migrate_once(tmp_path: Path, new_database: Callable[[], str | None]) -> None:
    """Several processes opening a brand-new database at the same moment (UI and CLI started together)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    code = ("import sys; from storage import open_store; s = open_store(sys.argv[1], sys.argv[2] or None);"
            "s.create_run(question='hi', image_id='d' * 64, policy='p', registry_hash='r', config={}); s.close()")
    for attempt in range(2):
        home = tmp_path / f"home{attempt}"
        url = new_database() or ""
        procs = [subprocess.Popen([sys.executable, "-c", code, str(home), url], env=env, cwd=REPO,
                                  stderr=subprocess.PIPE, text=True) for _ in range(4)]
        errors = [p.communicate(timeout=120)[1] for p in procs]
        assert [p.returncode for p in procs] == [0] * 4, errors
        with open_store(home, url or None) as store:
            assert store.count_runs() == 4


def test_concurrent_dataset_saves_and_handbook_updates_neither_fail_nor_lose(data_dir: Path,
                                                                             db_url: str | None) -> None:
    """Two evaluations of one dataset save its items at once, and their results update the same handbook rows at
    once: nothing may fail on a duplicate, and every credit must be counted in the aggregate."""
    from storage import DatasetItem
    from storage.handbook import Credit, entries, replace_credits

    items = [DatasetItem(f"item-{i}", f"question {i}", str(i)) for i in range(30)]
    with open_store(data_dir, db_url) as first, open_store(data_dir, db_url) as second:
        run_ids = [first.create_run(question=f"q{i}", image_id="e" * 64, policy="p", registry_hash="r", config={})
                   for i in range(24)]

        def save(i: int) -> int:
            return (first if i % 2 else second).save_dataset("shared", items[i % 3:], description=f"save {i}")

        def credit(i: int) -> list[tuple[str, str, str]]:
            return replace_credits(first if i % 2 else second, run_ids[i],
                                   [Credit("Tools", "OCR", "read", success=float(i % 2), calls=2, latency_ms=10.0)])

        with ThreadPoolExecutor(8) as pool:
            saved = list(pool.map(save, range(16)))
            credited = list(pool.map(credit, range(len(run_ids))))
        assert saved[-1] == 30 and all(27 <= n <= 30 for n in saved)
        assert sorted(i.item_id for i in first.dataset_items("shared")) == sorted(i.item_id for i in items)
        assert credited == [[("Tools", "OCR", "read")]] * len(run_ids)
        (row,) = entries(first)
        assert (row.runs, row.calls) == (24, 48)
        assert (row.alpha, row.beta) == (1.0 + 12, 1.0 + 12)


def test_a_step_index_taken_by_a_concurrent_writer_is_a_clear_refusal(data_dir: Path, db_url: str | None) -> None:
    """Another writer inserts step 0 and has not committed when ``add_step`` checks: PostgreSQL lets the check pass
    and the insert then waits on the unique index; either way the loser gets the ordinary ValueError."""
    from sqlalchemy.orm import Session

    from storage import convert

    with open_store(data_dir, db_url) as store:
        run_id = store.create_run(question="race", image_id="f" * 64, policy="p", registry_hash="r", config={})
        with Session(store.engine) as other, other.begin():
            row = convert.step_row(Step(index=0, kind="think", think="first"))
            row.run_id = run_id
            other.add(row)
            other.flush()  # inserted, not committed
            with ThreadPoolExecutor(1) as pool:
                late = pool.submit(store.add_step, run_id, Step(index=0, kind="think", think="second"))
                time.sleep(0.5)  # the late writer is now waiting on the first one's lock
                assert not late.done()
                other.commit()
                with pytest.raises(ValueError, match="already has a step 0"):
                    late.result(timeout=30)
        assert [s.think for s in store.get_run(run_id).steps] == ["first"]
