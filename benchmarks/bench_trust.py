"""Trust benchmark: how much the whole agent answers, how often it is right when it does, and how that trades
against the confidence threshold — per dev set, so ``orchestrator.min_confidence`` can be chosen from data.

    python -m benchmarks.bench_trust [--sets blindtest sroie charts synthetic] [--limit N] [--concurrency N]
                                     [--per-kind N] [--seed S] [--keep DIR]

Every item runs through the default registry's agent (``agents.evaluate.evaluate``: stored runs, the answer form,
abstentions) in a temporary data directory, with one change: ``min_confidence`` is 0, so every answer the evidence
produced is kept with its confidence and each threshold can be applied afterwards. For each set it prints coverage,
precision when answering and accuracy at the default registry's threshold, latency p50/p95, a risk-coverage table
(precision at each confidence threshold), the categories, and the wrong answers that would be given. The synthetic
mix (``benchmarks.make_synthetic``) is generated into the temporary directory.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

from agents.config import Settings
from agents.evaluate import evaluate
from agents.registry import DEFAULT_REGISTRY, load_registry
from agents.runtime import Maestro

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
DEV_SETS = {"blindtest": "blindtest-dev", "sroie": "sroie-dev", "charts": "misleading-chartqa-dev"}
ALL_SETS = (*DEV_SETS, "synthetic")
THRESHOLDS = (0.0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
Row = dict[str, Any]


def answered_at(row: Row, threshold: float) -> bool:
    """Whether the run answers when answers below ``threshold`` are withheld (an answer without a score counts
    as answered: nothing says it is weak)."""
    confidence = row.get("confidence")
    return row.get("status") == "done" and (confidence is None or confidence >= threshold)


def rates(rows: list[Row], threshold: float) -> dict[str, float | int | None]:
    answered = [r for r in rows if answered_at(r, threshold)]
    right = sum(1 for r in answered if r.get("correct"))
    n = len(rows) or 1
    return {"answered": len(answered), "coverage": len(answered) / n,
            "precision": right / len(answered) if answered else None, "accuracy": right / n}


def _pct(value: float | None) -> str:
    return "   -  " if value is None else f"{value:6.1%}"


def _percentile(values: list[float], q: float) -> float | None:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else None


def report(name: str, rows: list[Row], default: float) -> None:
    """Print one set's numbers."""
    at_default = rates(rows, default)
    latencies = [r["latency_ms"] / 1000 for r in rows if r.get("run_id")]
    statuses: dict[str, int] = defaultdict(int)
    for r in rows:
        statuses[r.get("status") or "failed"] += 1
    unscored = sum(1 for r in rows if r.get("status") == "done" and r.get("confidence") is None)
    print(f"\n=== {name}: {len(rows)} items; statuses {dict(statuses)}; answers without a confidence: {unscored}")
    print(f"at min_confidence {default:.2f}: coverage {_pct(at_default['coverage'])}, precision "
          f"{_pct(at_default['precision'])}, accuracy {_pct(at_default['accuracy'])}; latency p50 "
          f"{_percentile(latencies, 0.5) or 0:.3f} s, p95 {_percentile(latencies, 0.95) or 0:.3f} s")
    print(f"{'threshold':>10}{'answered':>10}{'coverage':>10}{'precision':>11}{'accuracy':>10}")
    for threshold in THRESHOLDS:
        r = rates(rows, threshold)
        print(f"{threshold:>10.2f}{r['answered']:>10}{_pct(r['coverage']):>10}{_pct(r['precision']):>11}"
              f"{_pct(r['accuracy']):>10}")
    by_category: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        by_category[r["category"]].append(r)
    print(f"{'category':<42}{'n':>5}{'coverage':>10}{'precision':>11}{'accuracy':>10}")
    for category, members in sorted(by_category.items()):
        r = rates(members, default)
        print(f"{category[:41]:<42}{len(members):>5}{_pct(r['coverage']):>10}{_pct(r['precision']):>11}"
              f"{_pct(r['accuracy']):>10}")
    wrong = [r for r in rows if answered_at(r, default) and not r.get("correct")]
    print(f"wrong answers at {default:.2f} ({len(wrong)}):")
    for r in wrong[:25]:
        print(f"  {r['id']}: expected {r['expected']!r}, answered {r['answer']!r} (confidence "
              f"{r.get('confidence')}) via {', '.join(r.get('pairs') or [])}")


def _permissive_registry(folder: Path) -> Path:
    """The default registry with ``min_confidence`` 0: every answer is kept with its confidence."""
    config = yaml.safe_load(DEFAULT_REGISTRY.read_text(encoding="utf-8"))
    config.setdefault("orchestrator", {})["min_confidence"] = 0.0
    path = folder / "registry.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def _dataset(name: str, folder: Path, per_kind: int, seed: int) -> Path:
    if name == "synthetic":
        from benchmarks.make_synthetic import build

        build(folder / "synthetic", per_kind, seed)
        return folder / "synthetic" / "items.jsonl"
    return DATASETS / DEV_SETS[name] / "items.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", choices=ALL_SETS, default=list(ALL_SETS))
    parser.add_argument("--limit", type=int, default=None, help="at most this many items per set")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--per-kind", type=int, default=20, help="synthetic items per generator")
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic mix")
    parser.add_argument("--keep", type=Path, default=None, help="keep results here (results.jsonl per set)")
    args = parser.parse_args()
    default = load_registry().orchestrator.min_confidence
    with tempfile.TemporaryDirectory(prefix="bench-trust-") as tmp:
        folder = Path(tmp)
        maestro = Maestro.open(Settings.resolve(data_dir=folder / "home", registry_path=_permissive_registry(folder)))
        for name in args.sets:
            dataset = _dataset(name, folder, args.per_kind, args.seed)
            out = (args.keep or folder / "results") / name
            evaluate(maestro, dataset, out, concurrency=args.concurrency, limit=args.limit, progress=False)
            rows = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
            report(name, rows, default)


if __name__ == "__main__":
    main()
