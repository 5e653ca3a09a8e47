"""Rerunning stored BlindTest runs with cached tool outputs vs the live evaluation that produced them.

Evaluates N BlindTest dev items (spread over every category) live, then re-evaluates the stored runs of that
evaluation with ``--tools cached`` under the same registry (``evaluate(from_runs=…, tools="cached")``, what
``maestro eval --from-runs DIR --tools cached`` runs), and reruns each stored run once more one by one (what
``maestro rerun RUN_ID`` runs). Each phase runs ``--repeat`` times (the machine is shared: the fastest of the
repeats is the least disturbed, as ``timeit`` reports). Prints the wall times, the speed-up, whether every answer is
identical, how many tool calls were reused, the comparison's counts, and what keeping tool outputs costs the live
run per step. Exits 1 when an answer differs or a tool output was not reused.

    python -m benchmarks.bench_rerun [--n 20] [--repeat 3] [--dataset ../shared/datasets/blindtest-dev/items.jsonl]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from agents import recorder
from agents.config import Settings
from agents.evaluation.harness import evaluate
from agents.replay.rerun import rerun, reuse_count
from agents.runtime import Maestro

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATASET = REPO.parent / "shared" / "datasets" / "blindtest-dev" / "items.jsonl"
EXAMPLES = REPO / "assets" / "examples"


def spread_items(dataset: Path, n: int, out: Path) -> int:
    """Write ``n`` items taken evenly over the dataset (so every category is in) with absolute image paths."""
    rows = [json.loads(line) for line in dataset.read_text().splitlines() if line.strip()]
    picked = rows[:: max(1, len(rows) // n)][:n]
    for row in picked:
        row["image"] = str((dataset.parent / row["image"]).resolve())
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(row) + "\n" for row in picked))
    return len(picked)


def rows(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


def _times(values: list[float]) -> str:
    return "/".join(f"{v:.2f}" for v in values) + " s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    args = parser.parse_args()
    if not args.dataset.is_file():
        sys.exit(f"dataset not found: {args.dataset}")
    keeping: list[float] = []
    original_save = recorder.save_step_outputs

    def timed_save(store, step):  # what keeping the tool outputs costs the live run, per step
        started = time.perf_counter()
        try:
            return original_save(store, step)
        finally:
            keeping.append((time.perf_counter() - started) * 1000)

    recorder.save_step_outputs = timed_save
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        dataset = root / "blindtest" / "items.jsonl"
        n = spread_items(args.dataset, args.n, dataset)
        maestro = Maestro.open(Settings.resolve(data_dir=root / "home"))
        maestro.ask(EXAMPLES / "shapes.png", "How many circles are there?")  # warm-up: imports, first calls
        keeping.clear()

        live_times, cached_times, rerun_times = [], [], []
        for attempt in range(args.repeat):
            started = time.perf_counter()
            evaluate(maestro, dataset, root / f"live{attempt}", progress=False)
            live_times.append(time.perf_counter() - started)
            if attempt == 0:
                live_keeping = list(keeping)
        for attempt in range(args.repeat):  # every repeat re-evaluates the runs of the first live evaluation
            started = time.perf_counter()
            summary = evaluate(maestro, dataset, root / f"cached{attempt}", from_runs=root / "live0",
                               tools="cached", progress=False)
            cached_times.append(time.perf_counter() - started)
        live, cached = rows(root / "live0"), rows(root / "cached0")
        for _ in range(args.repeat):
            started = time.perf_counter()
            one_by_one = [rerun(maestro, row["run_id"], tools="cached") for row in live]
            rerun_times.append(time.perf_counter() - started)
        live_s, cached_s, rerun_s = min(live_times), min(cached_times), min(rerun_times)

        same = sum(a["answer"] == b["answer"] and a["status"] == b["status"] for a, b in zip(live, cached, strict=True))
        same_rerun = sum(r.answer == row["answer"] for r, row in zip(one_by_one, live, strict=True))
        calls = sum(row["tool_calls"] for row in cached)
        reused = sum(row["reused_tool_calls"] for row in cached)
        counts = [reuse_count(r) for r in one_by_one]
        rerun_calls, rerun_reused = sum(c.calls for c in counts), sum(c.reused for c in counts)

    print(f"{n} BlindTest dev items, categories: {sorted({row['category'] for row in live})}")
    print(f"wall time, fastest of {args.repeat} (all: live {_times(live_times)}, re-evaluation "
          f"{_times(cached_times)}, reruns {_times(rerun_times)})")
    print(f"live evaluation:                     {live_s:6.2f} s ({live_s / n * 1000:.0f} ms per item)")
    print(f"re-evaluation, --tools cached:       {cached_s:6.2f} s ({cached_s / n * 1000:.0f} ms per item)  "
          f"speed-up {live_s / cached_s:.1f}x (medians: {statistics.median(live_times) / statistics.median(cached_times):.1f}x)")
    print(f"maestro rerun one by one, cached:    {rerun_s:6.2f} s ({rerun_s / n * 1000:.0f} ms per run)   "
          f"speed-up {live_s / rerun_s:.1f}x")
    print(f"identical answers: {same}/{n} (re-evaluation), {same_rerun}/{n} (reruns)")
    print(f"tool calls reused: {reused}/{calls} (re-evaluation), {rerun_reused}/{rerun_calls} (reruns)")
    print(f"comparison with the live evaluation: {summary['comparison']}")
    print(f"keeping tool outputs, live evaluation: p50 {statistics.median(live_keeping):.2f} ms, "
          f"max {max(live_keeping):.2f} ms per step ({len(live_keeping)} steps)")
    ok = same == n and same_rerun == n and reused == calls and rerun_reused == rerun_calls
    print(f"identical and fully reused: {'yes' if ok else 'NO'}; at least 5x faster: "
          f"{'yes' if live_s / cached_s >= 5 else 'NO'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
