"""New users' wordings benchmark: does a question worded unlike the keyword tables reach the skill that can read
its answer, and is the answer in the form asked (the exit number, not the whole sign)?

    python -m benchmarks.bench_wordings [--per-wording 2] [--seed 0] [--kinds ...] [--keep DIR] [--show]

Generates ``benchmarks.synthetic.wordings`` (signs, labels, charts, shapes, 4K needles; each kind of question in
several wordings) into a temporary folder and runs every item through the agent with the default registry and
its default threshold (``agents.evaluation.harness``). Prints coverage and precision when answering for the tuning half
(wordings at even positions) and for the held-out half (odd positions, never tuned on) separately, per kind, and
every wrong answer and abstention reason of the held-out half.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from agents.config import Settings
from agents.evaluation.harness import evaluate
from agents.runtime import Maestro
from benchmarks.synthetic import write_items
from benchmarks.synthetic.wordings import WORDINGS, generate

Row = dict[str, Any]


def summary(rows: list[Row]) -> str:
    answered = [r for r in rows if r.get("status") == "done"]
    right = sum(1 for r in answered if r.get("correct"))
    precision = f"{right / len(answered):.3f}" if answered else "  -  "
    return (f"n={len(rows):<3} answered={len(answered):<3} coverage={len(answered) / max(1, len(rows)):.3f} "
            f"precision={precision} accuracy={right / max(1, len(rows)):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-wording", type=int, default=2, help="images per wording")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kinds", nargs="*", choices=list(WORDINGS), default=None)
    parser.add_argument("--keep", type=Path, default=None, help="keep the results folder here")
    parser.add_argument("--show", action="store_true", help="print every item, not only held-out misses")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-wordings-") as tmp:
        folder = Path(tmp)
        items = generate(folder / "set", args.per_wording, args.seed, args.kinds)
        dataset = write_items(folder / "set", items)
        out = args.keep or folder / "results"
        evaluate(Maestro.open(Settings.resolve(data_dir=folder / "home")), dataset, out, progress=False)
        by_id = {item["id"]: item for item in items}
        rows = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    for row in rows:
        row.update({k: by_id[row["id"]][k] for k in ("split", "category", "wording")})
    for split in ("tune", "held-out"):
        part = [r for r in rows if r["split"] == split]
        print(f"{split:<9} {summary(part)}")
        kinds: dict[str, list[Row]] = defaultdict(list)
        for row in part:
            kinds[row["category"]].append(row)
        for kind, kind_rows in kinds.items():
            print(f"  {kind:<15} {summary(kind_rows)}")
    for row in rows:
        if args.show or (row["split"] == "held-out" and not (row.get("status") == "done" and row.get("correct"))):
            print(f"[{row['split']}] {row['id']}: {row['question']!r} expected {row.get('expected')!r} -> "
                  f"{row.get('status')} {row.get('answer')!r} ({row.get('confidence')}) "
                  f"{(row.get('reason') or '')[:140]}")


if __name__ == "__main__":
    main()
