"""Routing that learns: does the router, fed simulated ratings round by round, climb to the oracle pair per skill?

    python -m benchmarks.bench_routing [--rounds 5] [--batch 12] [--seed 0] [--out DIR]

Two ``tools`` experts that differ for real: ``Tess`` reads text with Tesseract, ``Rapid`` with RapidOCR (set by
``options: {ocr_backend: ...}`` in the registry; ``Rapid`` also has a price per call). ``Tess`` declares OCR among
its strengths, so keyword routing sends OCR to it. The question set mixes rendered text (OCR) and shapes to count
(Counting) from ``benchmarks.make_synthetic``, with ground truth. Each round a fresh batch is answered by the
router (every run is then rated from ground truth and fed to the handbook), by keyword-only routing, and by every
(expert, item's skill) pair; the oracle is the pair per skill with the best accuracy over the whole set. Printed
per round: accuracy of router / keyword / oracle and each policy's share of calls per expert.

The OCR skill reads the engine from the calling expert's ``options``. Needs ``tesseract-ocr`` and ``pytesseract``.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from agents.answers import match_answer
from agents.config import Settings
from agents.handbook import handbook_rows, record_feedback
from agents.policies.answering import abstain_turn, answer_from_search
from agents.policies.base import Context, PolicyTurn
from agents.policies.keyword import KeywordPolicy
from agents.policies.router import RouterPolicy
from agents.protocol import Search, render_turn
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


def answer(app: Maestro, item: dict[str, Any], data: Path, policy: Any) -> tuple[bool, list[str], str]:
    result = app.ask(data / item["image"], item["question"], policy=policy)
    experts = [s.model for s in result.steps if s.kind == "search" and s.model]
    return bool(match_answer(result.answer, item["answer"])), experts, result.id or ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--batch", type=int, default=12, help="items per round (half text, half shapes)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="keep the work folder here (default: a temp dir)")
    args = parser.parse_args()
    work = args.out or Path(tempfile.mkdtemp(prefix="bench_routing_"))
    started = time.perf_counter()
    per_kind = args.rounds * args.batch // 2
    items = build(work / "data", per_kind, args.seed, ["text", "shapes"])
    random.Random(args.seed).shuffle(items)
    rounds = [items[i * args.batch:(i + 1) * args.batch] for i in range(args.rounds)]
    registry_path = setup(work)

    def open_app(name: str) -> Maestro:
        return Maestro.open(Settings.resolve(data_dir=work / name, registry_path=registry_path))

    learner, baseline, oracle_app = open_app("router"), open_app("keyword"), open_app("oracle")
    router = RouterPolicy(learner.registry, learner.store, seed=args.seed)
    keyword = KeywordPolicy()
    print(f"{len(items)} items ({', '.join(f'{k}: {v}' for k, v in Counter(i['skill'] for i in items).items())}), "
          f"{args.rounds} rounds of {args.batch}; experts {', '.join(EXPERTS)}; λ = {router.cost_weight}")

    # Every item with every expert on its ground-truth skill: the table the oracle pair is read from.
    table: dict[tuple[str, str], bool] = {}
    for item in items:
        for expert in EXPERTS:
            table[(item["id"], expert)] = answer(oracle_app, item, work / "data", PairPolicy(expert, item["skill"]))[0]
    by_skill: dict[str, dict[str, float]] = defaultdict(dict)
    for skill in sorted({i["skill"] for i in items}):
        of_skill = [i for i in items if i["skill"] == skill]
        for expert in EXPERTS:
            by_skill[skill][expert] = sum(table[(i["id"], expert)] for i in of_skill) / len(of_skill)
    # Ties go to the expert without a price (Tess), as the router's cost term would have it.
    oracle = {skill: max(EXPERTS, key=lambda e, s=skill: (by_skill[s][e], e == "Tess")) for skill in by_skill}
    print("accuracy per (expert, skill) over all items: " + "; ".join(
        f"{skill}: " + ", ".join(f"{e} {acc:.2f}" for e, acc in accs.items()) for skill, accs in by_skill.items()))
    print("oracle pair per skill: " + ", ".join(f"{s} -> {e}" for s, e in oracle.items()))
    print()
    print(f"{'round':>5} {'router':>7} {'keyword':>8} {'oracle':>7}   router calls          keyword calls")
    history = []
    for number, batch in enumerate(rounds, start=1):
        r_ok, k_ok, o_ok = [], [], []
        r_calls: Counter[str] = Counter()
        k_calls: Counter[str] = Counter()
        for item in batch:
            correct, experts, run_id = answer(learner, item, work / "data", router)
            r_ok.append(correct)
            r_calls.update(experts)
            # The simulated person rates the run from ground truth; the handbook learns at once.
            learner.store.add_rating(run_id, rater="simulated", verdict="correct" if correct else "incorrect")
            record_feedback(learner.store, run_id, learner.registry)
            correct, experts, _ = answer(baseline, item, work / "data", keyword)
            k_ok.append(correct)
            k_calls.update(experts)
            o_ok.append(table[(item["id"], oracle[item["skill"]])])
        accs = [100 * sum(x) / len(x) for x in (r_ok, k_ok, o_ok)]
        history.append(accs)
        print(f"{number:>5} {accs[0]:>6.1f}% {accs[1]:>7.1f}% {accs[2]:>6.1f}%   {_shares(r_calls):<21} "
              f"{_shares(k_calls)}")

    print()
    print("handbook (router's store):")
    for row in handbook_rows(learner.store):
        print(f"  {row['skill']:<9} {row['level2']:<24} {row['expert']:<6} Beta({row['alpha']:.0f}, {row['beta']:.0f}) "
              f"mean {row['mean']:.2f}  {row['latency_ms']:.0f} ms  money {row['money']:.4f}")
    final = history[-1]
    tail = [sum(h[i] for h in history[-2:]) / len(history[-2:]) for i in range(3)]
    print()
    print(f"final round: router {final[0]:.1f}%, keyword {final[1]:.1f}%, oracle {final[2]:.1f}%; "
          f"last two rounds: router {tail[0]:.1f}%, keyword {tail[1]:.1f}%, oracle {tail[2]:.1f}%")
    print(f"router within 2 points of the oracle in the final round: {final[2] - final[0] <= 2.0}; "
          f"router beats keyword-only over the last two rounds: {tail[0] > tail[1]}")
    print(f"total time {time.perf_counter() - started:.0f} s; work folder {work}")
    for app in (learner, baseline, oracle_app):
        app.store.close()


def _shares(calls: Counter[str]) -> str:
    total = sum(calls.values()) or 1
    return " ".join(f"{e} {100 * calls[e] / total:.0f}%" for e in EXPERTS)


if __name__ == "__main__":
    main()
