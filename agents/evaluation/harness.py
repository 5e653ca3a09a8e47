"""The evaluation harness: run a JSONL set through the agent concurrently, store every run, report accuracy.

Each line is ``{id, image, question, answer, category}`` (optionally ``match``: the answer kind, e.g. ``choice``,
``relaxed``, ``text``) with ``image`` relative to the dataset file. Results go to ``OUT/results.jsonl`` (one line
per item: ``status``, ``answer`` — null when the run abstained or failed — ``reason``, ``confidence``,
``correct``; appended as each item ends, so a crash loses nothing finished and ``resume`` goes on from there;
rewritten in dataset order at the end) and ``OUT/summary.json``: coverage (share answered), precision when answering, and
accuracy, overall and per category; latency percentiles, calls per (model, skill) pair, and Level-1 routing
agreement when items say which skill they need. Only ``done`` counts as answered.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from agents.evaluation.answers import MatchRule, match_answer
from agents.evaluation.compare import compare_folders
from agents.evaluation.results import ResultsFile, read_rows
from agents.provenance.fingerprint import evaluation_record
from agents.provenance.options import prepared
from agents.replay.rerun import rerun, tools_mode
from agents.replay.tool_cache import StoredToolCache
from agents.routing.handbook import record_feedback

if TYPE_CHECKING:
    from agents.runtime import Maestro
    from storage import RunRecord, Store

#: A dataset's declared ``match`` kind -> the matching rule of ``agents.evaluation.answers``.
_MATCH_KINDS: dict[str, MatchRule] = {"choice": "choice", "relaxed": "numeric", "numeric": "numeric",
                                      "text": "exact", "exact": "exact", "yesno": "yesno", "grid": "grid",
                                      "contains": "contains"}


def match_kind(declared: str | None) -> MatchRule | None:
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
    #: Other forms of the answer that are right too ("5" for "Platform 5"), as a dataset may list them.
    alternatives: tuple[str, ...] = ()

    def accepts(self, prediction: str | None) -> bool:
        """Whether ``prediction`` is the expected answer or one of its alternatives, by the dataset's rule."""
        return any(match_answer(prediction, expected, match_kind(self.match))
                   for expected in (self.answer, *self.alternatives))


def load_items(path: str | Path, limit: int | None = None) -> list[Item]:
    """The items of a JSONL dataset, or ``DatasetError`` naming the file and line of the first bad one."""
    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"{path}: dataset file not found")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise DatasetError(f"{path}: not a text file (JSON lines in UTF-8 expected)") from None
    items: list[Item] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            items.append(_item(path, json.loads(line)))
        except (ValueError, KeyError, TypeError) as exc:  # json.JSONDecodeError is a ValueError
            raise DatasetError(f"{path}:{number}: each line needs id, image, question, answer ({exc})") from exc
        except RecursionError:  # json (and str() of what it read) recurse per level of nesting
            raise DatasetError(f"{path}:{number}: nested too deeply to read; each line is a flat object with id, "
                               f"image, question, answer") from None
        if limit and len(items) >= limit:
            break
    if not items:
        raise DatasetError(f"{path}: no items (one JSON object per line: id, image, question, answer)")
    return items


def _item(path: Path, row: Any) -> Item:
    """One dataset line as an ``Item``; ``ValueError`` for a line that is not a flat object of the right types."""
    if not isinstance(row, dict):
        raise ValueError(f"a JSON object, not {type(row).__name__}")
    for key, kinds in (("id", (str, int)), ("image", (str,)), ("question", (str,)), ("answer", (str, int, float)),
                       ("category", (str, type(None))), ("skill", (str, type(None))), ("match", (str, type(None)))):
        value = row.get(key) if key in ("category", "skill", "match") else row[key]
        if isinstance(value, bool) or not isinstance(value, kinds):
            raise ValueError(f"{key} must be {' or '.join(k.__name__ for k in kinds)}, not {type(value).__name__}")
    if "\x00" in row["image"] or not row["image"].strip():
        raise ValueError("image must be a file name")
    if not row["question"].strip():
        raise ValueError("question is empty")
    alternatives = row.get("alternatives") or []
    if not isinstance(alternatives, list) or not all(isinstance(a, str) for a in alternatives):
        raise ValueError("alternatives must be a list of strings")
    return Item(str(row["id"]), (path.parent / row["image"]).resolve(), row["question"], str(row["answer"]),
                row.get("category") or "all", row.get("skill"), row.get("match"), tuple(alternatives))


def evaluate(maestro: Maestro, dataset: str | Path, out_dir: str | Path, *, concurrency: int = 1,
             limit: int | None = None, progress: bool = True, resume: bool = False,
             from_runs: str | Path | None = None, tools: str = "live",
             baseline: str | Path | None = None, sc: int | None = None,
             shuffle_options: int | None = None) -> dict[str, Any]:
    """Run every item, write results and summary into ``out_dir``, return the summary.

    Each item's row is appended to ``results.jsonl`` the moment it ends (``agents.evaluation.results``); ``resume``
    keeps the rows of an interrupted evaluation in ``out_dir`` and runs only the items without one. With
    ``from_runs`` (an earlier results folder) each item reruns that evaluation's stored run of it (same image and
    question; ``agents.replay.rerun``); ``tools="cached"`` reuses stored tool outputs. ``baseline`` (default: the
    ``from_runs`` folder) compares item by item with that folder: ``comparison.json`` (``agents.evaluation.compare``),
    its counts also in the summary. ``sc`` > 1 samples each new item k times and votes
    (``agents.evaluation.self_consistency``); rows then carry the vote's agreement. ``shuffle_options`` (a seed) shuffles
    each multiple-choice item's options (``agents.provenance.options``); every run and the summary record what is
    needed to reproduce them (``agents.provenance``)."""
    tools = tools_mode(tools)
    items = load_items(dataset, limit)
    out = Path(out_dir)
    sources = {row["id"]: row["run_id"] for row in read_rows(from_runs) if row.get("run_id")} if from_runs else {}
    baseline = baseline if baseline is not None else from_runs
    if baseline is not None:
        if Path(baseline).resolve() == out.resolve():
            raise ValueError(f"the baseline {baseline} is the output folder itself; write the new results elsewhere")
        read_rows(baseline)  # a wrong --baseline folder is reported before anything runs
    name = Path(dataset).parent.name or Path(dataset).stem
    _save_dataset(maestro.store, name, items)
    cache = StoredToolCache(maestro.store) if tools == "cached" else None
    results = ResultsFile(out)
    manifest = {"dataset": str(Path(dataset).resolve()), "limit": limit, "tools": tools,
                "from_runs": str(from_runs) if from_runs else None}
    finished = results.resume(manifest) if resume else results.start(manifest)

    def one(item: Item) -> dict[str, Any]:
        item, provenance = prepared(item, shuffle_options)
        source = maestro.store.get_run(sources[item.id]) if item.id in sources else None
        return item_row(maestro, item, name, cache=cache, source=source, sc=sc, provenance=provenance)

    pending = [item for item in items if item.id not in finished]
    try:
        with tqdm(total=len(items), initial=len(items) - len(pending), desc="eval", unit="item",
                  disable=not progress) as bar:

            def keep(row: dict[str, Any]) -> None:
                results.append(row)  # on disk before the next one is taken: a crash loses only running items
                finished[row["id"]] = row
                bar.update(1)

            _run_all(pending, one, keep, concurrency)
    finally:
        results.close()
    rows = [finished[item.id] for item in items]
    results.finish(rows)
    summary = summarize(rows)
    summary["dataset"] = str(dataset)
    summary["reproducibility"] = evaluation_record(maestro, shuffle_options=shuffle_options, sc=sc,
                                                   concurrency=concurrency, tools=tools)
    summary["trust"] = trust_summary(rows, out)
    if resume:
        summary["resumed"] = {"kept": len(items) - len(pending), "ran": len(pending),
                              "dropped_lines": results.dropped_lines}
    if from_runs is not None:  # items whose stored run is not in this data directory were run afresh
        reran = sum(1 for row in rows if row.get("rerun_of"))
        summary["from_runs"] = {"folder": str(from_runs), "reran": reran, "ran_afresh": len(rows) - reran}
    if baseline is not None:
        comparison = compare_folders(baseline, out)
        summary["comparison"] = {"baseline": str(baseline), **comparison["counts"]}
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return summary


def item_row(maestro: Maestro, item: Item, dataset_name: str, *, cache: StoredToolCache | None = None,
             source: RunRecord | None = None, sc: int | None = None,
             provenance: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run one item (or rerun its stored run ``source``) and return its ``results.jsonl`` row. ``provenance``
    (``agents.provenance.options.prepared``) records a shuffled option order with the run and the row."""
    try:
        if source is not None:
            result = rerun(maestro, source, tools="cached" if cache else "live", cache=cache, expected=item.answer)
        else:
            result = maestro.ask(item.image, item.question, dataset=dataset_name, item_id=item.id,
                                 expected=item.answer, expected_kind=item.match, tool_cache=cache, sc=sc,
                                 provenance=provenance)
    except ValueError as exc:  # bad item: recorded as failed, the evaluation goes on
        return {"id": item.id, "category": item.category, "question": item.question, "expected": item.answer,
                "status": "failed", "answer": None, "reason": str(exc), "confidence": None, "correct": False,
                "run_id": None, "latency_ms": 0.0, "error": str(exc), "pairs": [], "skill_expected": item.skill,
                "rerun_of": source.id if source else None}
    pairs = [f"{s.model}@@{s.skill}" for s in result.steps if s.kind == "search"]
    calls = [c for s in result.steps for c in s.tool_calls]
    if result.id and cache is None:  # a replay of stored tool outputs teaches nothing new
        record_feedback(maestro.store, result.id, maestro.registry)  # the router's next run sees it at once
    answered = result.status == "done"
    trust = result.trust or {}
    candidate = trust.get("candidate")
    return {"id": item.id, "category": item.category, "question": item.question, "expected": item.answer,
            "status": result.status, "answer": result.answer if answered else None,
            "reason": None if answered else result.reason, "confidence": result.confidence,
            "correct": answered and item.accepts(result.answer),
            "run_id": result.id, "latency_ms": round(result.latency_ms, 1), "pairs": pairs,
            "skill_expected": item.skill, "tool_calls": len(calls),
            "reused_tool_calls": sum(1 for c in calls if c.reused), "rerun_of": source.id if source else None,
            "vote_agreement": (result.vote or {}).get("agreement"),
            **({"option_order": provenance["option_order"]} if provenance else {}),
            # Every candidate is a labelled example for ``maestro calibrate``, also one withheld.
            "candidate": candidate, "evidence": trust.get("evidence"),
            "candidate_correct": None if candidate is None else item.accepts(candidate),
            "calibration": trust.get("calibration")}


def _run_all(items: list[Item], one: Callable[[Item], dict[str, Any]], keep: Callable[[dict[str, Any]], None],
             concurrency: int) -> None:
    """Run ``one`` on every item, handing each row to ``keep`` as it finishes. On Ctrl-C nothing new starts, the
    items already running finish and are kept (so ``--resume`` does not run them twice), then it stops."""
    pool = ThreadPoolExecutor(max_workers=max(1, concurrency))
    futures = [pool.submit(one, item) for item in items]
    kept: set[Future[dict[str, Any]]] = set()
    try:
        for future in as_completed(futures):
            keep(future.result())
            kept.add(future)
    except KeyboardInterrupt:
        for future in futures:
            future.cancel()
        for future in futures:
            if future not in kept and not future.cancelled() and future.exception() is None:
                keep(future.result())
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _save_dataset(store: Store, name: str, items: list[Item]) -> None:
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


def trust_summary(rows: list[dict[str, Any]], out: Path | None = None) -> dict[str, Any]:
    """How well the stated confidences predict correctness: ECE, the reliability table and the risk–coverage table
    (``agents.trust.report``); with ``out``, their plots as PNGs there."""
    from agents.trust import report

    scored = report.from_rows(rows)
    data = report.summary(scored)
    trust = {"ece": data["ece"], "ece_by_chance": data["ece_by_chance"], "reliability": data["reliability"],
             "risk_coverage": data["risk_coverage"],
             "calibration": sorted({str(r["calibration"]) for r in rows if r.get("calibration")})}
    if out is not None and any(i.probability is not None for i in scored):
        trust["plots"] = [str(p) for p in report.plot({"all items": scored}, out)]
    return trust


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
