"""``maestro eval --repeat K``: the same evaluation K times, and how far the numbers spread across them.

One number from one pass hides how much of it is noise: sampling, vLLM's batch-dependent kernels, and, with
``--shuffle-options SEED``, where the options sit (repetition r shuffles with SEED + r - 1, so each repetition is a
different, reproducible order). Each repetition is a full evaluation in ``OUT/repeat-<r>/`` (its own results,
summary and stored runs); ``OUT/summary.json`` gives per metric the values, mean, standard deviation, minimum and
maximum, and the reproducibility record.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agents.runtime import Maestro

#: The summary numbers whose spread is reported.
METRICS = ("accuracy", "coverage", "precision")


def spread(values: list[float | None]) -> dict[str, Any]:
    """Values and their mean, sample standard deviation (0 for one value), min and max; None values are left out of
    the statistics (a repetition that answered nothing has no precision)."""
    known = [float(v) for v in values if v is not None]
    if not known:
        return {"values": values, "mean": None, "std": None, "min": None, "max": None}
    return {"values": values, "mean": round(statistics.fmean(known), 4),
            "std": round(statistics.stdev(known), 4) if len(known) > 1 else 0.0,
            "min": round(min(known), 4), "max": round(max(known), 4)}


def evaluate_repeated(maestro: Maestro, dataset: str | Path, out_dir: str | Path, *, repeat: int,
                      shuffle_options: int | None = None, **options: Any) -> dict[str, Any]:
    """Run ``agents.evaluation.harness.evaluate`` ``repeat`` times into ``out_dir/repeat-<r>`` and summarise the spread."""
    from agents.evaluation.harness import evaluate

    if repeat < 1:
        raise ValueError(f"--repeat needs at least 1 repetition, got {repeat}")
    out = Path(out_dir)
    passes: list[dict[str, Any]] = []
    for r in range(1, repeat + 1):
        seed = None if shuffle_options is None else shuffle_options + r - 1
        passes.append(evaluate(maestro, dataset, out / f"repeat-{r}", shuffle_options=seed, **options))
    summary: dict[str, Any] = {
        "dataset": str(dataset), "repeat": repeat, "items": passes[0]["items"],
        "spread": {name: spread([p.get(name) for p in passes]) for name in METRICS},
        "per_category": {category: {name: spread([p["per_category"].get(category, {}).get(name) for p in passes])
                                    for name in METRICS}
                         for category in passes[0]["per_category"]},
        "repeats": [{"folder": str(out / f"repeat-{r}"), "shuffle_options": p["reproducibility"]["harness"].get(
            "shuffle_options"), **{name: p.get(name) for name in METRICS}} for r, p in enumerate(passes, 1)],
        "reproducibility": {**passes[0]["reproducibility"],
                            "harness": {**passes[0]["reproducibility"]["harness"], "repeat": repeat,
                                        "shuffle_options": shuffle_options}},
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return summary
