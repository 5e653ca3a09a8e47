"""How well confidences predict correctness: reliability table, ECE, risk–coverage table, and their PNG plots.

Input everywhere is a list of ``Scored`` items: every item of an evaluation (or rated run), with the calibrated
P(correct) of its candidate answer (None: no candidate, or no calibrated kind), whether the candidate is right, and
whether the run answers it at the target. Coverage is over all items (an item without a candidate is never
answered); precision is over the answered ones.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

#: P thresholds of the risk–coverage table (a single threshold for every kind, unlike the per-kind operating point).
CURVE = (0.0, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.97, 0.99)
BINS = 10


@dataclass(frozen=True)
class Scored:
    probability: float | None
    correct: bool
    answered: bool


def from_rows(rows: Sequence[dict[str, Any]]) -> list[Scored]:
    """An evaluation's ``results.jsonl`` rows as scored items: the candidate's stated confidence (kept also when the
    run withheld it), whether the candidate was right, and whether the run answered."""
    items = []
    for row in rows:
        candidate = row.get("candidate") is not None or row.get("status") == "done"
        right = row.get("candidate_correct") if row.get("candidate_correct") is not None else row.get("correct")
        items.append(Scored(row.get("confidence") if candidate else None, bool(right) and candidate,
                            row.get("status") == "done"))
    return items


def ece(items: Sequence[Scored], bins: int = BINS) -> float | None:
    """Expected calibration error over the items with a probability: the item-weighted mean |mean P − rate right|
    over equal-width bins of P (None when none has one)."""
    scored = [i for i in items if i.probability is not None]
    if not scored:
        return None
    p = np.array([i.probability for i in scored], dtype=float)
    y = np.array([1.0 if i.correct else 0.0 for i in scored])
    return round(_ece(p, y, bins), 4)


def _ece(p: np.ndarray, y: np.ndarray, bins: int) -> float:
    index = np.minimum((p * bins).astype(int), bins - 1)
    total = sum(float((index == b).sum() * abs(p[index == b].mean() - y[index == b].mean()))
                for b in range(bins) if (index == b).any())
    return total / len(p)


def ece_by_chance(items: Sequence[Scored], draws: int = 2000, seed: int = 0) -> dict[str, float] | None:
    """The ECE a perfectly calibrated P would still show on this many items: each item's outcome drawn as right with
    its own P, ``draws`` times. Its mean and 95th percentile tell a real miscalibration from the noise of a small
    set (on ~100 answers, ECE ≈ 0.04 is chance alone). None when no item has a probability."""
    p = np.array([i.probability for i in items if i.probability is not None], dtype=float)
    if not len(p):
        return None
    rng = np.random.default_rng(seed)
    drawn = [_ece(p, (rng.random(len(p)) < p).astype(float), BINS) for _ in range(draws)]
    return {"mean": round(float(np.mean(drawn)), 4), "p95": round(float(np.percentile(drawn, 95)), 4)}


def reliability(items: Sequence[Scored], bins: int = BINS) -> list[dict[str, Any]]:
    """Per bin of P: how many, their mean P, and the share right."""
    rows = []
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        members = [i for i in items if i.probability is not None
                   and (low <= i.probability < high or (b == bins - 1 and i.probability == 1.0))]
        if members:
            rows.append({"bin": f"{low:.1f}-{high:.1f}", "n": len(members),
                         "mean_p": round(float(np.mean([i.probability for i in members])), 4),
                         "right": round(sum(i.correct for i in members) / len(members), 4)})
    return rows


def risk_coverage(items: Sequence[Scored]) -> list[dict[str, Any]]:
    """Coverage and precision when every candidate with P >= t is answered, for each t of ``CURVE``."""
    total = len(items) or 1
    rows = []
    for t in CURVE:
        kept = [i for i in items if i.probability is not None and i.probability >= t]
        right = sum(i.correct for i in kept)
        rows.append({"threshold": t, "answered": len(kept), "coverage": round(len(kept) / total, 4),
                     "precision": round(right / len(kept), 4) if kept else None})
    return rows


def operating_point(items: Sequence[Scored]) -> dict[str, Any]:
    """Coverage, precision and accuracy of what the runs answer (per-kind thresholds)."""
    answered = [i for i in items if i.answered]
    right = sum(i.correct for i in answered)
    n = len(items)
    return {"items": n, "answered": len(answered), "coverage": round(len(answered) / n, 4) if n else 0.0,
            "precision": round(right / len(answered), 4) if answered else None,
            "accuracy": round(right / n, 4) if n else 0.0}


def summary(items: Sequence[Scored]) -> dict[str, Any]:
    """Everything above, as one JSON-ready dict."""
    return {**operating_point(items), "ece": ece(items), "ece_by_chance": ece_by_chance(items),
            "reliability": reliability(items),
            "risk_coverage": risk_coverage(items)}


def format_tables(title: str, data: dict[str, Any]) -> str:
    """The summary as plain-text tables (what ``maestro calibrate`` prints)."""
    precision = "-" if data["precision"] is None else f"{data['precision']:.3f}"
    lines = [f"== {title}: {data['items']} items, answered {data['answered']} (coverage {data['coverage']:.3f}), "
             f"precision {precision}, ECE {data['ece'] if data['ece'] is not None else '-'}{_chance(data)}",
             f"{'P bin':>10}{'n':>6}{'mean P':>9}{'right':>8}"]
    lines += [f"{r['bin']:>10}{r['n']:>6}{r['mean_p']:>9.3f}{r['right']:>8.3f}" for r in data["reliability"]]
    lines.append(f"{'P >=':>10}{'answered':>10}{'coverage':>10}{'precision':>11}")
    for r in data["risk_coverage"]:
        shown = "-" if r["precision"] is None else f"{r['precision']:.3f}"
        lines.append(f"{r['threshold']:>10.2f}{r['answered']:>10}{r['coverage']:>10.3f}{shown:>11}")
    return "\n".join(lines)


def _chance(data: dict[str, Any]) -> str:
    chance = data.get("ece_by_chance")
    if not chance:
        return ""
    return f" (perfectly calibrated on this many: {chance['mean']}, 95 % below {chance['p95']})"


def plot(groups: Mapping[str, Sequence[Scored]], folder: Path, stem: str = "") -> list[Path]:
    """``reliability.png`` and ``risk_coverage.png`` in ``folder`` (one line per group, e.g. per split)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"{stem}reliability.png", folder / f"{stem}risk_coverage.png"]
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], color="grey", linestyle=":", label="perfectly calibrated")
    for name, items in groups.items():
        table = reliability(items)
        if table:
            ax.plot([r["mean_p"] for r in table], [r["right"] for r in table], marker="o",
                    label=f"{name} (ECE {ece(items)})")
    ax.set(xlabel="stated P(correct)", ylabel="share right", xlim=(0, 1), ylim=(0, 1.02), title="Reliability")
    ax.legend(loc="lower right", fontsize=8)
    fig.savefig(paths[0], dpi=110, bbox_inches="tight")
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(5, 5))
    for name, items in groups.items():
        scored = sorted((i for i in items if i.probability is not None), key=lambda i: -(i.probability or 0))
        if not scored:
            continue
        right = np.cumsum([1.0 if i.correct else 0.0 for i in scored])
        kept = np.arange(1, len(scored) + 1)
        ax.plot(kept / max(len(items), 1), 1 - right / kept, label=name)
        point = operating_point(items)
        if point["precision"] is not None:
            ax.scatter([point["coverage"]], [1 - point["precision"]], marker="*", s=90)
    ax.set(xlabel="coverage (share answered)", ylabel="risk (share of answers wrong)", xlim=(0, 1),
           title="Risk–coverage (star: the per-kind thresholds)")
    ax.legend(loc="upper left", fontsize=8)
    fig.savefig(paths[1], dpi=110, bbox_inches="tight")
    plt.close(fig)
    return paths
