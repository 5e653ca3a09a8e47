"""Receipt key fields through the whole agent: accuracy, coverage, precision when answering, latency, risk-coverage.

Run from the repository root: ``python -m benchmarks.bench_receipts [--data DIR] [--split all|tune|val]
[--wordings dataset|extra|both] [--limit N]``. Every question goes through ``Maestro.ask`` with the default
registry (routing, the OCR skill, the key-information tool, storage), exactly as a user's question would.

Scoring is the issue's: a total is right within 5 % as a number; the date, company and address must match the
label ignoring case, spaces and punctuation. An abstention is not an answer: coverage is the share answered,
precision the share of answers that are right. ``--split`` uses a fixed tuning/validation split of the receipts
(every image whose position in name order is 3, 6 or 9 modulo 10 is validation) so the validation receipts stay
out of tuning; ``--wordings extra`` asks each field in wordings the dataset does not use.

Latency is per question: ``first`` is the first question on an image (OCR runs), ``again`` the later ones on the
same image (OCR comes from the per-image cache); ``tools`` is the time inside the skill's tool calls, ``wall`` the
whole run with routing and storage. The risk-coverage table uses the confidence the key-information tool gave
each read field (also below the skill's threshold) to show the precision a threshold would buy.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from agents.config import Settings
from agents.runtime import Maestro
from skills.document_questions import DEFAULT_MIN_CONFIDENCE

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "sroie-dev"
FIELDS = ("total", "date", "company", "address")
#: Wordings not used by the dev set, rotated over the receipts.
EXTRA_WORDINGS = {
    "total": ["How much did I pay?", "What's the amount due?", "What was the total bill?",
              "How much did this cost in total?"],
    "date": ["What day was this bought?", "On what date was this receipt issued?", "When did I buy this?",
             "Date of purchase?"],
    "company": ["Which shop is this from?", "Name of the store?", "Who issued this receipt?",
                "Which company sold this?"],
    "address": ["Store address?", "Where is the store?", "What is the address of the shop?",
                "Where is this business located?"],
}


def score(field: str, predicted: str | None, expected: str) -> bool:
    """The issue's scorer: totals within 5 % as numbers, other fields equal ignoring case, spaces, punctuation."""
    if predicted is None:
        return False
    if field == "total":
        want, got = _number(expected), _number(predicted)
        return want is not None and got is not None and abs(got - want) <= 0.05 * abs(want)
    return _plain(predicted) == _plain(expected) and bool(_plain(expected))


def _number(text: str) -> float | None:
    found = re.findall(r"\d[\d,]*(?:\.\d+)?", text)
    return float(found[-1].replace(",", "")) if found else None


def _plain(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.lower())


@dataclass
class Outcome:
    field: str
    split: str
    wording: str  # dataset | extra
    answered: bool
    correct: bool
    tool_value: str | None  # the field the tool read, answered or not
    tool_confidence: float
    tool_correct: bool
    routed: str
    first: bool
    wall_s: float
    tools_s: float


def split_of(images: list[str]) -> dict[str, str]:
    ordered = sorted(set(images))
    return {name: ("val" if i % 10 in (3, 6, 9) else "tune") for i, name in enumerate(ordered)}


def run(args: argparse.Namespace) -> list[Outcome]:
    items = [json.loads(line) for line in (args.data / "items.jsonl").read_text().splitlines() if line.strip()]
    splits = split_of([it["image"] for it in items])
    by_image: dict[str, list[dict]] = defaultdict(list)
    for it in items:
        if args.split in ("all", splits[it["image"]]):
            by_image[it["image"]].append(it)
    maestro = Maestro.open(Settings.resolve(data_dir=Path(tempfile.mkdtemp(prefix="bench_receipts_"))))
    outcomes: list[Outcome] = []
    for n, (image, image_items) in enumerate(sorted(by_image.items())[: args.limit or None]):
        questions: list[tuple[dict, str, str]] = []
        for it in image_items:
            field = it["category"].removeprefix("receipt_")
            if args.wordings in ("dataset", "both"):
                questions.append((it, field, "dataset"))
            if args.wordings in ("extra", "both"):
                questions.append((it, field, "extra"))
        for q, (it, field, wording) in enumerate(questions):
            question = it["question"] if wording == "dataset" else \
                EXTRA_WORDINGS[field][n % len(EXTRA_WORDINGS[field])]
            started = time.perf_counter()
            result = maestro.ask(args.data / image, question)
            wall = time.perf_counter() - started
            searches = [s for s in result.steps if s.kind == "search"]
            calls = [c for s in searches for c in s.tool_calls]
            read = next((c.data for c in calls if c.tool == "documents.read_field"), {})
            value = read.get("value")
            answered = result.status == "done" and result.answer != "I could not determine the answer."
            outcomes.append(Outcome(
                field, splits[image], wording, answered, answered and score(field, result.answer, it["answer"]),
                value, float(read.get("confidence") or 0.0), score(field, value, it["answer"]),
                searches[0].skill if searches else "-", q == 0, wall, sum(c.latency_ms for c in calls) / 1000))
            if args.verbose and not outcomes[-1].correct:
                print(f"  miss {it['id']} [{wording}] {question!r}: answered={result.answer!r} "
                      f"read={value!r} conf={outcomes[-1].tool_confidence:.2f} want={it['answer']!r}")
    return outcomes


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else float("nan")


def report(outcomes: list[Outcome]) -> None:
    groups = sorted({(o.split, o.wording) for o in outcomes})
    print(f"{'split':6} {'wording':8} {'field':8} {'n':>4} {'accuracy':>9} {'coverage':>9} {'precision':>10} "
          f"{'routed OCR':>11}")
    for split, wording in [*groups, ("all", "all")]:
        chosen = [o for o in outcomes if (split == "all" or o.split == split) and (wording == "all" or
                                                                                     o.wording == wording)]
        for field in (*FIELDS, "overall"):
            rows = [o for o in chosen if field in ("overall", o.field)]
            if not rows:
                continue
            answered = [o for o in rows if o.answered]
            print(f"{split:6} {wording:8} {field:8} {len(rows):4d} {_share(rows, 'correct'):9.3f} "
                  f"{len(answered) / len(rows):9.3f} {_share(answered, 'correct'):10.3f} "
                  f"{sum(o.routed == 'OCR' for o in rows) / len(rows):11.3f}")
    print()
    for kind, rows in (("first", [o for o in outcomes if o.first]), ("again", [o for o in outcomes if not o.first]),
                       ("all", outcomes)):
        if rows:
            wall = [o.wall_s for o in rows]
            tools = [o.tools_s for o in rows]
            print(f"latency {kind:5} n={len(rows):4d}  wall p50 {_pct(wall, .5):.3f} s  p95 {_pct(wall, .95):.3f} s"
                  f"   tools p50 {_pct(tools, .5):.3f} s  p95 {_pct(tools, .95):.3f} s")
    print()
    print(f"risk-coverage of the tool's confidence (the skill answers at >= {DEFAULT_MIN_CONFIDENCE}):")
    print(f"{'threshold':>9} {'coverage':>9} {'precision':>10} {'accuracy':>9}   per field precision/coverage")
    for threshold in (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
        kept = [o for o in outcomes if o.tool_value is not None and o.tool_confidence >= threshold]
        per_field = "  ".join(
            f"{f} {_share([o for o in kept if o.field == f], 'tool_correct'):.2f}/"
            f"{len([o for o in kept if o.field == f]) / max(1, len([o for o in outcomes if o.field == f])):.2f}"
            for f in FIELDS)
        print(f"{threshold:9.1f} {len(kept) / len(outcomes):9.3f} {_share(kept, 'tool_correct'):10.3f} "
              f"{sum(o.tool_correct for o in kept) / len(outcomes):9.3f}   {per_field}")


def _share(rows: list[Outcome], attribute: str) -> float:
    return sum(getattr(o, attribute) for o in rows) / len(rows) if rows else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder with items.jsonl and images/")
    parser.add_argument("--split", choices=("all", "tune", "val"), default="all")
    parser.add_argument("--wordings", choices=("dataset", "extra", "both"), default="both")
    parser.add_argument("--limit", type=int, default=0, help="only the first N receipts")
    parser.add_argument("--verbose", action="store_true", help="list every miss")
    args = parser.parse_args()
    report(run(args))


if __name__ == "__main__":
    main()
