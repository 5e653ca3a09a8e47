"""First and later questions on real images: real charts (misleading-chartqa-dev, ~10 MP JPEGs) and receipts
(sroie-dev), in one warm process (the models loaded before the clock starts, as the web app does at start).

For each of ``--charts`` chart images: its dataset question (the first question on that image), then the same
question reworded ("Looking at the chart again: …": a later question, whose tools' outputs are stored by then).
For each of ``--receipts`` receipt images: its first dataset question, then its other three. Prints p50 and p95
of wall time and of process CPU time (user + system of every thread: less sensitive to a shared, loaded machine)
for first and later questions, the median ratio later / first per image, the machine's load, and how many first
answers were correct. ``--answers FILE`` writes every answer (to compare two checkouts: ``--repo``).

    python -m benchmarks.bench_first_question [--charts 20] [--receipts 20] [--answers FILE]
    PYTHONPATH=OTHER_CHECKOUT python benchmarks/bench_first_question.py ...   # the same on another checkout
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from agents.config import Settings
from agents.evaluation.answers import match_answer
from agents.evaluation.harness import load_items, match_kind
from agents.runtime import Maestro

DATASETS = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets"


def _timed(maestro: Maestro, image: Path, question: str, **kwargs: Any) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    run = maestro.ask(image, question, **kwargs)
    return run, time.perf_counter() - wall, time.process_time() - cpu


def _pct(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))] if ordered else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--charts", type=int, default=20)
    parser.add_argument("--receipts", type=int, default=20)
    parser.add_argument("--datasets", type=Path, default=DATASETS)
    parser.add_argument("--answers", type=Path, default=None)
    args = parser.parse_args()
    maestro = Maestro.open(Settings.resolve(data_dir=Path(tempfile.mkdtemp(prefix="maestro-first-"))))
    if hasattr(maestro, "warm"):
        maestro.warm()
    else:  # an older checkout: one question loads the models
        maestro.ask(Path(__file__).resolve().parent.parent / "assets" / "examples" / "sign.png", "What is written?")
    has_live = "live_tools" in inspect.signature(maestro.ask).parameters
    load_before = os.getloadavg()[0]

    charts = load_items(args.datasets / "misleading-chartqa-dev" / "items.jsonl")
    step = max(1, len(charts) // max(1, args.charts))
    groups: dict[str, list[tuple[Path, str, str, str | None, str]]] = {}
    for item in charts[::step][:args.charts]:
        groups[f"chart:{item.image.name}"] = [
            (item.image, item.question, item.answer, item.match, item.id),
            (item.image, f"Looking at the chart again: {item.question}", item.answer, item.match, item.id + "#2")]
    receipts = load_items(args.datasets / "sroie-dev" / "items.jsonl")
    by_image: dict[Path, list[Any]] = defaultdict(list)
    for item in receipts:
        by_image[item.image].append(item)
    for image in list(by_image)[:args.receipts]:
        groups[f"receipt:{image.name}"] = [(i.image, i.question, i.answer, i.match, i.id) for i in by_image[image]]

    stats: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    answers: dict[str, Any] = {}
    for name, questions in groups.items():
        kind = name.split(":", 1)[0]
        first_wall = first_cpu = 0.0
        for n, (image, question, expected, match, item_id) in enumerate(questions):
            run, wall, cpu = _timed(maestro, image, question)
            answers[item_id] = {"status": run.status, "answer": run.answer}
            which = "first" if n == 0 else "later"
            stats[kind][f"{which}_wall"].append(wall)
            stats[kind][f"{which}_cpu"].append(cpu)
            if n == 0:
                first_wall, first_cpu = wall, cpu
                right = run.status == "done" and match_answer(run.answer, expected, match_kind(match))
                stats[kind]["answered"].append(float(run.status == "done"))
                stats[kind]["right"].append(float(right))
            else:
                stats[kind]["ratio_wall"].append(wall / first_wall)
                stats[kind]["ratio_cpu"].append(cpu / first_cpu)
    print(f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after ({os.cpu_count()} CPUs); "
          f"per-image tool reuse {'on' if has_live else 'not in this checkout'}")
    for kind, s in stats.items():
        answered = sum(s["answered"])
        print(f"{kind}: {len(s['first_wall'])} images; first question wall p50 {_pct(s['first_wall'], 50):.2f} s "
              f"p95 {_pct(s['first_wall'], 95):.2f} s, CPU p50 {_pct(s['first_cpu'], 50):.2f} s "
              f"p95 {_pct(s['first_cpu'], 95):.2f} s")
        print(f"{kind}: later questions wall p50 {_pct(s['later_wall'], 50):.2f} s, CPU p50 "
              f"{_pct(s['later_cpu'], 50):.2f} s; later / first median: wall "
              f"{statistics.median(s['ratio_wall']):.3f}x, CPU {statistics.median(s['ratio_cpu']):.3f}x")
        print(f"{kind}: first questions answered {answered:.0f}/{len(s['answered'])}, right "
              f"{sum(s['right']):.0f} (precision {sum(s['right']) / answered if answered else float('nan'):.3f})")
    if args.answers:
        args.answers.write_text(json.dumps(answers, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
