"""One evaluation run by many workers on one database: ``maestro eval DATASET --out DIR --db URL --shared NAME``.

Every worker (on this machine or another, all on the same PostgreSQL) opens or joins evaluation ``NAME``: the
first one writes the item pool to the database (``storage.shared_eval``), every one then claims a few items at a
time (``FOR UPDATE SKIP LOCKED``), runs them exactly as ``maestro eval`` does (``agents.evaluation.harness.item_row``),
and records each result under its claim. A background thread renews the worker's leases; a worker killed with
SIGKILL stops renewing, and once its leases run out (``lease_s``) the others claim its items again. A result is
kept only from the worker that holds the item, so each item has exactly one result. Progress is the whole
evaluation's, read from the database. When no item is left, a worker writes ``results.jsonl`` and
``summary.json`` for all items into its ``--out`` (every worker that sees the end does; the files are the same);
``maestro eval --collect NAME --out DIR`` writes them from the database at any time.

A killed worker may leave the run it was in the middle of as an unfinished run in storage; its item is run again
by another worker and only that run's result counts.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from agents.evaluation.harness import _save_dataset, item_row, load_items, summarize
from agents.evaluation.results import ResultsFile
from storage import shared_eval as pool

if TYPE_CHECKING:
    from agents.runtime import Maestro
    from storage import Store

#: Seconds a claim lasts without renewal; a killed worker's items return to the pool after this
#: (``MAESTRO_EVAL_LEASE_S``: tests shorten it).
LEASE_S = float(os.environ.get("MAESTRO_EVAL_LEASE_S", "60"))
#: Seconds between two looks at the pool while other workers finish the last items.
POLL_S = 2.0
#: Seconds between two progress lines on stderr when it is not a terminal.
PROGRESS_LINE_S = 10.0


@dataclass(frozen=True)
class Collected:
    summary: dict[str, Any]
    missing: int  # items without a result yet


def worker_name() -> str:
    """This worker's name in the claims table: host, process and a random part (pids repeat across hosts)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


class _Leases:
    """The items this worker holds, renewed by a daemon thread every third of the lease."""

    def __init__(self, store: Store, name: str, worker: str, lease_s: float) -> None:
        self.store, self.name, self.worker, self.lease_s = store, name, worker, lease_s
        self.held: set[str] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._renew, name="maestro-eval-leases", daemon=True)
        self._thread.start()

    def add(self, item_ids: list[str]) -> None:
        with self._lock:
            self.held.update(item_ids)

    def drop(self, item_id: str) -> None:
        with self._lock:
            self.held.discard(item_id)

    def _renew(self) -> None:
        while not self._stop.wait(self.lease_s / 3):
            with self._lock:
                ids = sorted(self.held)
            try:
                pool.renew(self.store, self.name, self.worker, ids, self.lease_s)
            except Exception:  # a database hiccup: the next renewal tries again, well inside the lease
                continue

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def evaluate_shared(maestro: Maestro, dataset: str | Path, out_dir: str | Path, name: str, *,
                    limit: int | None = None, concurrency: int = 1, lease_s: float | None = None,
                    progress: bool = True, worker: str | None = None) -> Collected:
    """Work on shared evaluation ``name`` until every item has a result, then write ``out_dir``'s files."""
    items = load_items(dataset, limit)
    by_id = {item.id: item for item in items}
    if len(by_id) != len(items):
        raise ValueError(f"{dataset}: item ids repeat; a shared evaluation needs each id once")
    dataset_name = Path(dataset).parent.name or Path(dataset).stem
    manifest = {"limit": limit, "tools": "live", "shared": name}
    if pool.open_eval(maestro.store, name, str(Path(dataset).resolve()), manifest, list(by_id)):
        _save_dataset(maestro.store, dataset_name, items)
    worker = worker or worker_name()
    lease_s = lease_s or LEASE_S
    leases = _Leases(maestro.store, name, worker, lease_s)
    run = ThreadPoolExecutor(max_workers=max(1, concurrency))
    next_line = 0.0
    try:
        with tqdm(total=len(items), desc=f"eval {name}", unit="item", disable=not progress) as bar:
            while True:
                claimed = pool.claim(maestro.store, name, worker, max(1, concurrency), lease_s)
                if claimed:
                    leases.add(claimed)
                    rows = run.map(lambda item_id: item_row(maestro, by_id[item_id], dataset_name), claimed)
                    for item_id, row in zip(claimed, rows, strict=True):
                        pool.finish(maestro.store, name, worker, item_id, row)
                        leases.drop(item_id)
                state = pool.progress(maestro.store, name)
                bar.n = state.done
                bar.set_postfix_str(f"{state.claimed} running on {state.workers} worker(s), {state.pending} waiting")
                bar.refresh()
                finished = state.done == state.total
                if not progress and (finished or time.monotonic() >= next_line):  # a log: a line now and then
                    print(f"eval {name}: {state}", file=sys.stderr, flush=True)
                    next_line = time.monotonic() + PROGRESS_LINE_S
                if finished:
                    break
                if not claimed:  # the rest is held by others: wait for them, or for a dead worker's leases
                    time.sleep(POLL_S)
    finally:
        run.shutdown(wait=True)
        leases.close()
    return collect(maestro.store, name, out_dir)


def collect(store: Store, name: str, out_dir: str | Path) -> Collected:
    """Write ``results.jsonl`` (dataset order) and ``summary.json`` of shared evaluation ``name`` from the
    database; items without a result yet are counted in ``missing`` (and in the summary's ``shared``)."""
    manifest, results = pool.results(store, name)
    if manifest is None:
        raise ValueError(f"no shared evaluation named {name!r} in this database")
    rows = [row for row in results if row is not None]
    missing = len(results) - len(rows)
    files = ResultsFile(Path(out_dir))
    files.start({**manifest, "shared": name})
    files.finish(rows)
    summary = summarize(rows)
    summary["dataset"] = manifest.get("dataset")
    summary["shared"] = {"name": name, "items": len(results), "with_result": len(rows), "missing": missing}
    (Path(out_dir) / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return Collected(summary, missing)
