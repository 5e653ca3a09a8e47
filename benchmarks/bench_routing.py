"""Routing that learns: fed simulated ratings round by round, does the router get better on items it never saw?

    python -m benchmarks.bench_routing [--rounds 4] [--batch 12] [--heldout 24] [--seed 0]
                                       [--kinds text shapes needles] [--out DIR]
    python -m benchmarks.bench_routing --dataset ../shared/datasets/blindtest-dev/items.jsonl [--registry FILE]

Two ``tools`` experts that differ for real: ``Tess`` reads text with Tesseract, ``Rapid`` with RapidOCR (set by
``options: {ocr_backend: ...}`` in the registry; ``Rapid`` also has a price per call). ``Tess`` declares OCR among
its strengths, so keyword routing sends OCR to it. The questions (``benchmarks.make_synthetic``, with ground truth)
mix rendered text (OCR), shapes to count (Counting) and 4K needles, where the words of a question point at two
plausible skills ("In which quadrant is the word 'HARBOR' written?": OCR or Perception), so the router must learn
skills as well as experts.

The items are split once: ``--heldout`` items are never rated; the rest come in ``--rounds`` batches. Each round
the router (exploring) answers a batch, a simulated person rates every run from ground truth (failures as well as
successes, abstentions as failures) and the handbook learns at once; then the router as trained so far (no
exploration, nothing fed back) answers the held-out items. Keyword routing answers them too, and the oracle is the
best single (expert, skill) pair per item's skill, chosen on the training items. Printed per round, on held-out:
accuracy, coverage and precision when answering of router / keyword / oracle; at the end whether learning ever made
the router worse on held-out than it was before any rating.

With ``--dataset`` the items are a ``maestro eval`` set instead (a dev set: tune on the kind of image, never on an
item), split the same way, under ``--registry`` (default: the shipped registry; the router is used whatever its
policy says); there is no oracle.

The OCR skill reads the engine from the calling expert's ``options``. Needs ``tesseract-ocr`` and ``pytesseract``.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.config import Settings
from agents.evaluation.answers import match_answer
from agents.evaluation.harness import load_items, match_kind
from agents.policies.answering import abstain_turn, answer_from_search
from agents.policies.base import Context, PolicyTurn
from agents.policies.keyword import KeywordPolicy
from agents.policies.router import RouterPolicy
from agents.protocol import Search, render_turn
from agents.registry import DEFAULT_REGISTRY
from agents.routing.handbook import handbook_rows, record_feedback
from agents.runtime import Maestro
from benchmarks.make_synthetic import build

REPO = Path(__file__).resolve().parent.parent
EXPERTS = ("Tess", "Rapid")


class PairPolicy:
    """Calls one fixed (expert, skill) pair and answers from it: how the oracle table is filled."""

    name = "pair"

    def __init__(self, expert: str, skill: str) -> None:
        self.expert, self.skill = expert, skill

    def next_turn(self, ctx: Context) -> PolicyTurn:
        if ctx.searches:
            return answer_from_search(ctx.searches[-1], ctx.registry) or abstain_turn(ctx)
        return PolicyTurn(render_turn(f"Fixed pair {self.expert}@@{self.skill}.",
                                      Search(self.expert, self.skill, ctx.question)))


def setup(work: Path) -> Path:
    """The benchmark's registry under ``work``; returns its path."""
    work.mkdir(parents=True, exist_ok=True)
    registry = work / "registry.yaml"
    registry.write_text("""
orchestrator: {policy: router, max_turns: 3, cost_weight: 0.1}
experts:
  - name: Tess
    description: Tools with Tesseract as the OCR engine.
    backend: tools
    strengths: [OCR]
    options: {ocr_backend: tesseract}
  - name: Rapid
    description: Tools with RapidOCR (PP-OCR) as the OCR engine.
    backend: tools
    cost: {per_call: 0.001}
    options: {ocr_backend: rapidocr}
""", encoding="utf-8")
    return registry


@dataclass
class Result:
    correct: bool
    answered: bool
    experts: list[str]
    skills: list[str]
    run_id: str


def answer(app: Maestro, item: dict[str, Any], data: Path, policy: Any) -> Result:
    result = app.ask(data / item["image"], item["question"], policy=policy, expected_kind=item.get("match"))
    searches = [s for s in result.steps if s.kind == "search" and s.model]
    answered = result.status == "done"
    right = answered and bool(match_answer(result.answer, item["answer"], match_kind(item.get("match"))))
    return Result(right, answered, [s.model or "" for s in searches], [s.skill or "" for s in searches],
                  result.id or "")


def rates(results: list[Result]) -> dict[str, float]:
    """Accuracy, coverage and precision when answering, in percent."""
    n, answered, right = len(results), sum(r.answered for r in results), sum(r.correct for r in results)
    return {"accuracy": 100 * right / n if n else 0.0, "coverage": 100 * answered / n if n else 0.0,
            "precision": 100 * right / answered if answered else float("nan")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--batch", type=int, default=12, help="training items per round")
    parser.add_argument("--heldout", type=int, default=24, help="items never rated, answered after every round")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kinds", nargs="*", default=["text", "shapes", "needles"])
    parser.add_argument("--dataset", type=Path, default=None, help="a maestro eval JSONL set instead of synthetic")
    parser.add_argument("--registry", type=Path, default=None, help="with --dataset (default: the shipped one)")
    parser.add_argument("--out", type=Path, default=None, help="keep the work folder here (default: a temp dir)")
    args = parser.parse_args()
    work = args.out or Path(tempfile.mkdtemp(prefix="bench_routing_"))
    started = time.perf_counter()
    if args.dataset:
        items = [{"id": i.id, "image": str(i.image), "question": i.question, "answer": i.answer, "match": i.match}
                 for i in load_items(args.dataset)]
        registry_path, data = args.registry or DEFAULT_REGISTRY, Path("/")
    else:
        per_kind = -(-(args.rounds * args.batch + args.heldout) // len(args.kinds))
        items = build(work / "data", per_kind, args.seed, args.kinds)
        registry_path, data = setup(work), work / "data"
    random.Random(args.seed).shuffle(items)
    heldout, train = items[:args.heldout], items[args.heldout:]
    rounds = [train[i * args.batch:(i + 1) * args.batch] for i in range(args.rounds)]

    def open_app(name: str) -> Maestro:
        return Maestro.open(Settings.resolve(data_dir=work / name, registry_path=registry_path))

    learner, judge, baseline = open_app("router"), open_app("heldout"), open_app("keyword")
    router = RouterPolicy(learner.registry, learner.store, seed=args.seed)
    # The held-out runs are stored apart and never rated: this router reads what the learner's store has learned.
    frozen = RouterPolicy(learner.registry, learner.store, explore=False)
    kinds = Counter(i.get("skill") or "?" for i in items)
    print(f"{len(items)} items ({', '.join(f'{k}: {v}' for k, v in kinds.items())}); {args.rounds} rounds of "
          f"{args.batch} to train, {len(heldout)} held out; experts "
          f"{', '.join(e.name for e in learner.registry.experts)}; λ = {router.cost_weight}", flush=True)
    best = None if args.dataset else _oracle(items, [i for batch in rounds for i in batch], heldout,
                                             open_app("oracle"), data)
    keyword = rates([answer(baseline, item, data, KeywordPolicy()) for item in heldout])
    print()
    print("held-out items: accuracy / coverage / precision when answering (train: router accuracy on the round)")
    print(f"{'round':>5} {'train':>6} | {'router':<20} {'keyword':<20} {'oracle':<20} router's first skill")
    history = []
    for number in range(args.rounds + 1):
        train_acc = "-"
        if number:
            results = []
            for item in rounds[number - 1]:
                result = answer(learner, item, data, router)
                results.append(result)
                # The simulated person rates the run from ground truth; the handbook learns at once.
                learner.store.add_rating(result.run_id, rater="simulated",
                                         verdict="correct" if result.correct else "incorrect")
                record_feedback(learner.store, result.run_id, learner.registry)
            train_acc = f"{rates(results)['accuracy']:.0f}%"
        held = [answer(judge, item, data, frozen) for item in heldout]
        scores = rates(held)
        history.append(scores)
        skills = Counter(r.skills[0] if r.skills else "-" for r in held)
        print(f"{number:>5} {train_acc:>6} | {_fmt(scores):<20} {_fmt(keyword):<20} {_fmt(best):<20} "
              + ", ".join(f"{k} {v}" for k, v in skills.most_common()), flush=True)

    print()
    print("handbook (router's store):")
    for row in handbook_rows(learner.store):
        print(f"  {row['skill']:<17} {row['level2']:<28} {row['expert']:<6} Beta({row['alpha']:.0f}, "
              f"{row['beta']:.0f}) mean {row['mean']:.2f}  {row['latency_ms']:.0f} ms  money {row['money']:.4f}")
    first, final = history[0], history[-1]
    worst = min(h["accuracy"] for h in history[1:]) if len(history) > 1 else first["accuracy"]
    oracle_text = f"oracle {best['accuracy']:.1f}%" if best else "oracle n/a"
    print()
    print(f"held-out accuracy: before any rating {first['accuracy']:.1f}%, after {args.rounds} rounds "
          f"{final['accuracy']:.1f}% (lowest after a round {worst:.1f}%); keyword {keyword['accuracy']:.1f}%, "
          f"{oracle_text}")
    print(f"held-out precision when answering: router {final['precision']:.1f}% (before {first['precision']:.1f}%), "
          f"keyword {keyword['precision']:.1f}%; coverage router {final['coverage']:.1f}%, keyword "
          f"{keyword['coverage']:.1f}%")
    print(f"learning made the router worse on held-out at some round: {worst < first['accuracy']}; "
          f"final router at least as accurate as keyword: {final['accuracy'] >= keyword['accuracy']}")
    print(f"total time {time.perf_counter() - started:.0f} s; work folder {work}")
    for app in (learner, judge, baseline):
        app.store.close()


def _oracle(items: list[dict[str, Any]], trained_on: list[dict[str, Any]], heldout: list[dict[str, Any]],
            app: Maestro, data: Path) -> dict[str, float]:
    """Held-out rates of the best single (expert, skill) pair per item's skill, the pair chosen on training items."""
    # Every item with every expert on its ground-truth skill: the table the oracle pair is read from.
    table = {(item["id"], expert): answer(app, item, data, PairPolicy(expert, item["skill"]))
             for item in items for expert in EXPERTS}
    oracle = {}
    for skill in sorted({i["skill"] for i in items}):
        of_skill = [i for i in trained_on if i["skill"] == skill] or [i for i in items if i["skill"] == skill]
        accuracy = {e: sum(table[(i["id"], e)].correct for i in of_skill) / len(of_skill) for e in EXPERTS}
        # Ties go to the expert without a price (Tess), as the router's cost term would have it.
        oracle[skill] = max(EXPERTS, key=lambda e, a=accuracy: (a[e], e == "Tess"))
    print("oracle pair per skill (chosen on the training items): "
          + ", ".join(f"{s} -> {e}" for s, e in oracle.items()), flush=True)
    app.store.close()
    return rates([table[(item["id"], oracle[item["skill"]])] for item in heldout])


def _fmt(scores: dict[str, float] | None) -> str:
    if scores is None:
        return "n/a"
    return f"{scores['accuracy']:.0f}% / {scores['coverage']:.0f}% / {scores['precision']:.0f}%"


if __name__ == "__main__":
    main()
