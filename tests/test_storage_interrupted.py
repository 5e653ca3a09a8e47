"""Crash recovery with real processes: a SIGKILLed run becomes ``interrupted`` with its finished steps intact,
while runs of live processes, of other hosts and of recycled pids are judged correctly; on SQLite and PostgreSQL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from storage import Step, ToolCall, open_store

REPO = Path(__file__).resolve().parent.parent

CHILD = textwrap.dedent("""
    import sys, time
    from storage import Step, ToolCall, open_store

    store = open_store(sys.argv[1], sys.argv[3] or None)
    run_id = store.create_run(question=sys.argv[2], image_id="ab" * 32, policy="scripted", registry_hash="r",
                              config={"child": True})
    store.add_step(run_id, Step(index=0, kind="think", think="look first", raw_text="<think>look</think>"))
    store.add_step(run_id, Step(index=1, kind="search", model="RapidOCR", skill="OCR", observation="EXIT",
                                      tool_calls=[ToolCall(0, "ocr", {"lang": "en"}, "1 line", 5.0)]))
    print("READY", run_id, flush=True)
    time.sleep(300)
""")


@pytest.fixture
def children() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for child in started:
        if child.poll() is None:
            child.kill()
        child.wait(timeout=30)


def start_child(children: list[subprocess.Popen[str]], data_dir: Path, question: str,
                db_url: str | None = None) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(data_dir), question, db_url or ""], env=env, cwd=REPO,
                             stdout=subprocess.PIPE, text=True)
    children.append(child)
    line = child.stdout.readline()  # blocks until both steps are committed
    assert line.startswith("READY "), f"child failed before READY (exit {child.poll()})"
    return child, line.split()[1]


@pytest.mark.slow
def test_killed_run_is_interrupted_with_its_steps_and_a_live_run_is_not(
        data_dir: Path, db_url: str | None, children: list[subprocess.Popen[str]]) -> None:
    doomed, doomed_run = start_child(children, data_dir, "will be killed", db_url)
    alive, alive_run = start_child(children, data_dir, "keeps going", db_url)

    with open_store(data_dir, db_url) as store:  # both owners alive: nothing may be marked
        assert store.mark_interrupted() == 0
        assert {store.get_run(r).status for r in (doomed_run, alive_run)} == {"running"}

    doomed.send_signal(signal.SIGKILL)
    doomed.wait(timeout=30)
    assert doomed.returncode == -signal.SIGKILL

    with open_store(data_dir, db_url) as store:  # "the next start"
        record = store.get_run(doomed_run)
        assert record.status == "interrupted" and record.finished_at is not None and record.answer is None
        assert "interrupted" in record.error
        assert [(s.index, s.kind) for s in record.steps] == [(0, "think"), (1, "search")]
        assert record.steps[0].think == "look first"
        assert (record.steps[1].skill, record.steps[1].observation) == ("OCR", "EXIT")
        assert [(c.tool, c.args, c.summary) for c in record.steps[1].tool_calls] == [("ocr", {"lang": "en"}, "1 line")]
        assert record.question == "will be killed" and record.config == {"child": True}

        assert alive.poll() is None
        assert store.get_run(alive_run).status == "running"  # its process still lives
        assert store.mark_interrupted() == 0  # idempotent: nothing left to mark


@pytest.mark.slow
def test_unreaped_zombie_counts_as_dead(data_dir: Path, children: list[subprocess.Popen[str]]) -> None:
    if not Path("/proc/self/stat").exists():
        pytest.skip("needs /proc to tell a zombie from a live process")
    child, run_id = start_child(children, data_dir, "zombie")
    os.kill(child.pid, signal.SIGKILL)
    # Not waited for yet: the pid still exists, as a zombie, until this test reaps it.
    deadline = time.monotonic() + 10
    while (state := Path(f"/proc/{child.pid}/stat").read_text().rpartition(")")[2].split()[0]) != "Z":
        assert time.monotonic() < deadline, f"child never became a zombie (state {state})"
        time.sleep(0.01)
    with open_store(data_dir) as store:
        assert store.get_run(run_id).status == "interrupted"


def test_recycled_pid_other_host_and_own_process(data_dir: Path, db_url: str | None) -> None:
    with open_store(data_dir, db_url) as store:
        ids = {name: store.create_run(question=name, image_id="c" * 64, policy="p", registry_hash="r", config={})
               for name in ("mine", "recycled", "other-host", "gone-pid", "no-stamp-alive")}
        store.add_step(ids["recycled"], Step(index=0, kind="search", model="m", skill="s",
                                                   tool_calls=[ToolCall(0, "t", {}, "", 1.0)]))
        dead_pid = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                                  text=True, check=True).stdout.strip()
        with store.engine.begin() as conn:
            def change(run: str, values: str, **params: object) -> None:
                conn.execute(text(f"update runs set {values} where id = :id"), {"id": ids[run], **params})

            # Same live pid (ours) but a different start stamp: a recycled pid, so its run is dead.
            change("recycled", "owner_start = owner_start || '0'")
            change("other-host", "owner_host = 'another-machine', owner_pid = 1")
            change("gone-pid", "owner_pid = :pid", pid=int(dead_pid))
            change("no-stamp-alive", "owner_start = null")

    with open_store(data_dir, db_url) as store:
        status = {name: store.get_run(run_id).status for name, run_id in ids.items()}
        assert status == {"mine": "running", "recycled": "interrupted", "other-host": "running",
                          "gone-pid": "interrupted", "no-stamp-alive": "running"}
        assert len(store.get_run(ids["recycled"]).steps) == 1
        # A finished run is never touched, even when its process is gone.
        store.finish_run(ids["mine"], status="done", answer="ok", latency_ms=1)
    with open_store(data_dir, db_url) as store:
        assert store.get_run(ids["mine"]).status == "done"
