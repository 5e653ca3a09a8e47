"""The evaluation harness: run a JSONL set through the agent concurrently, store every run, report accuracy.

Each line is ``{id, image, question, answer, category}`` (optionally ``match``: the answer kind, e.g. ``choice``,
``relaxed``, ``text``) with ``image`` relative to the dataset file. Results go to ``OUT/results.jsonl`` (one line
per item, in dataset order: ``status``, ``answer`` — null when the run abstained or failed — ``reason``,
``confidence``, ``correct``) and ``OUT/summary.json``: coverage (share answered), precision when answering, and
accuracy, overall and per category; latency percentiles, calls per (model, skill) pair, and Level-1 routing
agreement when items say which skill they need. Only ``done`` counts as answered.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from agents.answers import MatchKind, match_answer
from agents.handbook import record_feedback

#: A dataset's declared ``match`` kind -> the matching rule of ``agents.answers``.
_MATCH_KINDS: dict[str, MatchKind] = {"choice": "choice", "relaxed": "numeric", "numeric": "numeric",
                                      "text": "exact", "exact": "exact", "yesno": "yesno", "grid": "grid",
                                      "contains": "contains"}


def match_kind(declared: str | None) -> MatchKind | None:
    """The matching rule for a dataset's declared ``match`` kind (None: detect it from the expected answer)."""
    return _MATCH_KINDS.get(declared or "")


class DatasetError(ValueError):
    """A dataset file that cannot be read; the message names the file and line."""


@dataclass
class Item:
    id: str
    image: Path
    question: str
    answer: str
    category: str
    skill: str | None = None
    match: str | None = None  # the dataset's answer kind, when it declares one


def load_items(path: str | Path, limit: int | None = None) -> list[Item]:
    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"{path}: dataset file not found")
    items: list[Item] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            items.append(Item(str(row["id"]), (path.parent / row["image"]).resolve(), str(row["question"]),
                              str(row["answer"]), str(row.get("category", "all")), row.get("skill"),
                              row.get("match")))
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise DatasetError(f"{path}:{number}: each line needs id, image, question, answer ({exc})") from exc
        if limit and len(items) >= limit:
            break
    return items


def evaluate(maestro: Any, dataset: str | Path, out_dir: str | Path, *, concurrency: int = 1,
             limit: int | None = None, progress: bool = True, sc: int | None = None) -> dict[str, Any]:
    """Run every item, write results and summary into ``out_dir``, return the summary. ``sc`` > 1 samples each
    item k times and votes (``agents.self_consistency``); rows then carry the vote's agreement."""
    items = load_items(dataset, limit)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    name = Path(dataset).parent.name or Path(dataset).stem
    _save_dataset(maestro.store, name, items)

    def one(item: Item) -> dict[str, Any]:
        try:
            result = maestro.ask(item.image, item.question, dataset=name, item_id=item.id, expected=item.answer,
                                 expected_kind=item.match, sc=sc)
        except ValueError as exc:  # bad item: recorded as failed, the evaluation goes on
            return {"id": item.id, "category": item.category, "question": item.question, "expected": item.answer,
                    "status": "failed", "answer": None, "reason": str(exc), "confidence": None, "correct": False,
                    "run_id": None, "latency_ms": 0.0, "error": str(exc), "pairs": [], "skill_expected": item.skill}
        pairs = [f"{s.model}@@{s.skill}" for s in result.steps if s.kind == "search"]
        if result.id:  # the result lands: the handbook learns from it at once (the router's next run sees it)
            record_feedback(maestro.store, result.id, maestro.registry)
        answered = result.status == "done"
        return {"id": item.id, "category": item.category, "question": item.question, "expected": item.answer,
                "status": result.status, "answer": result.answer if answered else None,
                "reason": None if answered else result.reason, "confidence": result.confidence,
                "correct": answered and match_answer(result.answer, item.answer, match_kind(item.match)),
                "run_id": result.id, "latency_ms": round(result.latency_ms, 1), "pairs": pairs,
                "skill_expected": item.skill, "vote_agreement": (result.vote or {}).get("agreement")}

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        rows = list(tqdm(pool.map(one, items), total=len(items), desc="eval", unit="item", disable=not progress))
    with (out / "results.jsonl").open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    summary = summarize(rows)
    summary["dataset"] = str(dataset)
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return summary


def _save_dataset(store: Any, name: str, items: list[Item]) -> None:
    """Keep the evaluation set in storage (``datasets``/``items``), so exports can draw RL prompts from it."""
    from storage import DatasetItem

    rows = []
    for item in items:
        try:
            image_id = store.images.put_bytes(item.image.read_bytes()).id
        except (OSError, ValueError):  # a missing or broken image fails its own run, not the whole set
            image_id = None
        rows.append(DatasetItem(item_id=item.id, question=item.question, answer=item.answer, image_id=image_id,
                                category=item.category, extra={"image": str(item.image), "skill": item.skill}))
    store.save_dataset(name, rows)


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Coverage, precision when answering and accuracy (overall and per category), latency, calls per pair."""
    by_category: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_category[row["category"]].append(row)
    latencies = sorted(row["latency_ms"] for row in rows if row.get("run_id"))
    pairs = Counter(pair for row in rows for pair in row.get("pairs", []))
    routed = [row for row in rows if row.get("skill_expected")]
    routing_ok = sum(1 for row in routed if any(p.split("@@", 1)[1] == row["skill_expected"] for p in row["pairs"]))
    statuses = Counter(row.get("status") or "failed" for row in rows)
    return {
        "items": len(rows),
        **outcome_rates(rows),
        "per_category": {cat: {"n": len(v), **outcome_rates(v)} for cat, v in sorted(by_category.items())},
        "statuses": dict(statuses.most_common()),
        "latency_ms": {"p50": _percentile(latencies, 50), "p95": _percentile(latencies, 95),
                       "mean": round(statistics.fmean(latencies), 1) if latencies else None},
        "calls": dict(pairs.most_common()),
        "routing_accuracy": round(routing_ok / len(routed), 4) if routed else None,
        "errors": statuses.get("failed", 0) + statuses.get("interrupted", 0),
    }


def outcome_rates(rows: list[dict[str, Any]]) -> dict[str, float | int | None]:
    """``coverage`` (answered / all), ``precision`` (right / answered; None when nothing was answered),
    ``accuracy`` (right / all) and the counts behind them. Only ``done`` runs count as answered."""
    answered = [r for r in rows if r.get("status") == "done"]
    right = sum(1 for r in answered if r.get("correct"))
    n = len(rows)
    return {"answered": len(answered), "correct": right,
            "coverage": round(len(answered) / n, 4) if n else 0.0,
            "precision": round(right / len(answered), 4) if answered else None,
            "accuracy": round(right / n, 4) if n else 0.0}


def _percentile(values: list[float], pct: float) -> float | None:
    if not values:
        return None
    index = min(len(values) - 1, max(0, round(pct / 100 * (len(values) - 1))))
    return round(values[index], 1)
