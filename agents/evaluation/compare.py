"""Item-by-item comparison of two evaluation folders: what improved, what regressed, what stayed the same.

Each item's outcome is ranked the way trust asks: a right answer above no answer (abstained, failed…), and no
answer above a wrong one — a confident wrong answer is the worst outcome, so an abstention where the baseline was
wrong is an improvement. ``unchanged`` means the same status and the same answer; ``changed`` is a different
outcome of the same rank (a different wrong answer, abstained instead of failed). Items found in only one folder
are counted apart. ``compare_folders`` writes ``comparison.json`` into the new folder; every changed item is listed
with both sides' status, answer and run id.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agents.evaluation.results import read_rows

COMPARISON = "comparison.json"
CHANGES = ("improved", "regressed", "changed")


def outcome(row: dict[str, Any]) -> str:
    """``right``, ``wrong`` or ``no_answer``."""
    if row.get("status") != "done":
        return "no_answer"
    return "right" if row.get("correct") else "wrong"


_RANK = {"wrong": 0, "no_answer": 1, "right": 2}


def _side(row: dict[str, Any]) -> dict[str, Any]:
    return {"status": row.get("status"), "answer": row.get("answer"), "correct": bool(row.get("correct")),
            "outcome": outcome(row), "reason": row.get("reason"), "confidence": row.get("confidence"),
            "run_id": row.get("run_id")}


def classify(before: dict[str, Any], after: dict[str, Any]) -> str:
    """``improved``, ``regressed``, ``changed`` or ``unchanged`` for one item."""
    rank_before, rank_after = _RANK[outcome(before)], _RANK[outcome(after)]
    if rank_after > rank_before:
        return "improved"
    if rank_after < rank_before:
        return "regressed"
    same = before.get("status") == after.get("status") and before.get("answer") == after.get("answer")
    return "unchanged" if same else "changed"


def compare_rows(baseline: list[dict[str, Any]], current: list[dict[str, Any]]) -> dict[str, Any]:
    """The comparison of two evaluations' rows, matched by item id (see the module docstring)."""
    old = {row["id"]: row for row in baseline}
    new = {row["id"]: row for row in current}
    counts = {"improved": 0, "regressed": 0, "unchanged": 0, "changed": 0}
    items: dict[str, list[dict[str, Any]]] = {kind: [] for kind in CHANGES}
    for item_id, after in new.items():
        before = old.get(item_id)
        if before is None:
            continue
        kind = classify(before, after)
        counts[kind] += 1
        if kind in items:
            items[kind].append({"id": item_id, "category": after.get("category"), "before": _side(before),
                                "after": _side(after)})
    return {"items": len(new), "counts": counts, **{kind: items[kind] for kind in CHANGES},
            "only_in_baseline": sorted(set(old) - set(new)), "only_in_new": sorted(set(new) - set(old))}


def compare_folders(baseline_dir: str | Path, out_dir: str | Path) -> dict[str, Any]:
    """Compare ``out_dir``'s results with ``baseline_dir``'s, write ``out_dir/comparison.json``, return it."""
    comparison = {"baseline": str(baseline_dir), "current": str(out_dir),
                  **compare_rows(read_rows(baseline_dir), read_rows(out_dir))}
    (Path(out_dir) / COMPARISON).write_text(json.dumps(comparison, indent=2, ensure_ascii=False) + "\n",
                                            encoding="utf-8")
    return comparison


def load_comparison(path: str | Path) -> dict[str, Any]:
    """A ``comparison.json`` (or the folder holding one); ``ValueError`` when it is not one."""
    path = Path(path)
    if path.is_dir():
        path = path / COMPARISON
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no comparison.json here")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # json.JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise ValueError(f"{path}: not a readable comparison.json ({exc})") from exc
    except RecursionError:
        raise ValueError(f"{path}: not a readable comparison.json (nested too deeply)") from None
    if not isinstance(data, dict) or "counts" not in data:
        raise ValueError(f"{path}: not a comparison.json written by `maestro eval --baseline`")
    return data
