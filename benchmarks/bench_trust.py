"""Trust benchmark: how much the whole agent answers at the registry's target precision, how often it is right when
it does, and how well its stated P(correct) predicts that — per dev set, tuning and validation split apart.

    python -m benchmarks.bench_trust [--sets blindtest sroie charts synthetic] [--limit N] [--concurrency N]
                                     [--per-kind N] [--seed S] [--keep DIR] [--folders DIR ...]

Every item runs through the default registry's agent (``agents.evaluation.harness.evaluate``: stored runs, the answer form,
the calibrated decision) in a temporary data directory, so the shipped calibration (or ``--calibration FILE``) is
what answers. Each row keeps its candidate answer and evidence also when it was withheld, so the report can show
the whole risk–coverage curve. For each set and split (``agents.trust.labels.split_of``: validation = a quarter of
the images by a hash of the file name, never tuned on) it prints coverage, precision when answering and accuracy at
the per-kind thresholds, ECE, the reliability table, the risk–coverage table, latency p50/p95, and the wrong answers
given. ``--folders`` reports on existing evaluation folders instead of running anything. The synthetic mix
(``benchmarks.make_synthetic``) is generated into the temporary directory.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from agents.config import Settings
from agents.evaluation.harness import evaluate, load_items
from agents.evaluation.results import read_rows
from agents.runtime import Maestro
from agents.trust import report
from agents.trust.labels import split_of

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
DEV_SETS = {"blindtest": "blindtest-dev", "sroie": "sroie-dev", "charts": "misleading-chartqa-dev"}
ALL_SETS = (*DEV_SETS, "synthetic")
Row = dict[str, Any]


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def report_folder(name: str, folder: Path, plots: Path | None = None) -> dict[str, Any]:
    """Print one evaluation folder's numbers, per split; return them."""
    rows = read_rows(folder)
    dataset = json.loads((folder / "eval.json").read_text(encoding="utf-8"))["dataset"]
    images = {item.id: item.image.name for item in load_items(dataset)}
    latencies = [r["latency_ms"] / 1000 for r in rows if r.get("run_id")]
    print(f"\n##### {name}: {len(rows)} items; latency p50 {_percentile(latencies, 0.5):.3f} s, "
          f"p95 {_percentile(latencies, 0.95):.3f} s (this machine, under its current load)")
    out: dict[str, Any] = {}
    splits: dict[str, list[report.Scored]] = {}
    for split in ("tuning", "validation", "all"):
        chosen = [r for r in rows if split == "all" or split_of(images.get(r["id"], r["id"])) == split]
        splits[split] = report.from_rows(chosen)
        out[split] = report.summary(splits[split])
        print(report.format_tables(f"{name} {split}", out[split]))
    wrong = [r for r in rows if r.get("status") == "done" and not r.get("correct")]
    print(f"wrong answers given ({len(wrong)}):")
    for r in wrong[:25]:
        print(f"  {r['id']}: expected {r['expected']!r}, answered {r['answer']!r} (P {r.get('confidence')}) "
              f"via {', '.join(r.get('pairs') or [])}")
    if plots is not None:
        out["plots"] = [str(p) for p in report.plot({k: v for k, v in splits.items() if k != "all"}, plots,
                                                    stem=f"{name}_")]
        print("plots: " + ", ".join(out["plots"]))
    return out


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
    parser.add_argument("--keep", type=Path, default=None, help="keep results here (a folder per set)")
    parser.add_argument("--calibration", type=Path, default=None, help="answer with this calibration JSON")
    parser.add_argument("--folders", type=Path, nargs="+", default=None,
                        help="report on these evaluation folders instead of running the sets")
    parser.add_argument("--plots", type=Path, default=None, help="write reliability and risk-coverage PNGs here")
    args = parser.parse_args()
    if args.folders:
        for folder in args.folders:
            report_folder(folder.name, folder, args.plots)
        return
    with tempfile.TemporaryDirectory(prefix="bench-trust-") as tmp:
        folder = Path(tmp)
        if args.calibration is not None:
            (folder / "home").mkdir()
            shutil.copy(args.calibration, folder / "home" / "calibration.json")
        maestro = Maestro.open(Settings.resolve(data_dir=folder / "home"))
        version = maestro.registry.calibration.version if maestro.registry.calibration else None
        print(f"target precision {maestro.registry.orchestrator.target_precision}, calibration {version}")
        for name in args.sets:
            dataset = _dataset(name, folder, args.per_kind, args.seed)
            out = (args.keep or folder / "results") / name
            evaluate(maestro, dataset, out, concurrency=args.concurrency, limit=args.limit, progress=False)
            report_folder(name, out, args.plots)


if __name__ == "__main__":
    main()
