"""Multiple-choice chart benchmark: the Misleading ChartQA dev set through the Chart skill and through the agent.

For each item the Chart skill runs with the tools expert (as the loop would call it) and, unless ``--no-agent``,
the whole agent runs with the default registry and the keyword policy (routing included). Printed per half of the
set — even-numbered lines ("tune": where rules were decided) and odd-numbered lines ("check": reported apart) —
and overall: coverage, precision when answering, accuracy, how often the misleader's letter was chosen, answers
that are not one of the offered letters (must be 0), latency p50/p95, and for the skill a risk-coverage table
(precision and coverage at each confidence threshold) to choose ``MIN_CONFIDENCE`` from.

    python -m benchmarks.bench_chart_choices [--data DIR] [--limit N] [--no-agent] [--show]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from agents.loop import run as run_agent
from agents.policies.keyword import KeywordPolicy
from agents.registry import load_registry
from skills.answer_form import answer_form, conform
from skills.base import ToolTrace
from skills.chart.choices import MIN_CONFIDENCE
from skills.runner import run_skill
from vision_tools.image import load_image

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "misleading-chartqa-dev"
THRESHOLDS = (0.0, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)


@dataclass
class Outcome:
    """One item through one path: the letter given (None = abstained), its confidence, the raw answer, time."""

    line: int
    expected: str
    misleader: str
    letter: str | None
    raw: str | None
    confidence: float | None
    seconds: float
    reason: str = ""
    decided: str | None = None  # the skill's choice before its confidence threshold
    decided_confidence: float | None = None


def skill_outcome(registry, line: int, item: dict, image) -> Outcome:
    chart = registry.skill("Chart")
    tools = registry.expert("Tools")
    started = time.perf_counter()
    result, _ = run_skill(chart, query=item["question"], question=item["question"], image=image, expert=tools,
                          trace=ToolTrace())
    seconds = time.perf_counter() - started
    raw = result.answer
    letter = conform(answer_form(item["question"]), raw) if raw is not None else None
    # The decision below the skill's threshold is kept here (with its confidence) for the risk-coverage table;
    # coverage and precision count only what the skill answered.
    decision = result.evidence.get("choice", {})
    return Outcome(line, item["answer"], item.get("misleader_answer", ""), letter, raw, result.confidence, seconds,
                   result.missing or "", decision.get("letter"), decision.get("confidence"))


def agent_outcome(registry, line: int, item: dict, image) -> Outcome:
    started = time.perf_counter()
    run = run_agent(item["question"], image, registry=registry, policy=KeywordPolicy())
    seconds = time.perf_counter() - started
    raw = run.answer
    letter = conform(answer_form(item["question"]), raw) if raw is not None else None
    skills = ",".join(s.skill or "" for s in run.steps if s.kind == "search")
    return Outcome(line, item["answer"], item.get("misleader_answer", ""), letter, raw, None, seconds, skills)


def report(name: str, outcomes: list[Outcome], with_table: bool) -> None:
    n = len(outcomes)
    if not n:
        return
    answered = [o for o in outcomes if o.raw is not None and o.raw.strip() and not _is_abstention(o.raw)]
    fitted = [o for o in answered if o.letter is not None]
    outside = len(answered) - len(fitted)
    right = sum(o.letter == o.expected for o in fitted)
    misled = sum(o.letter == o.misleader for o in fitted)
    times = sorted(o.seconds for o in outcomes)
    precision = right / len(answered) if answered else float("nan")
    print(f"  {name:<24} n={n:<3} answered={len(answered):<3} coverage={len(answered) / n:.3f} "
          f"precision={precision:.3f} accuracy={right / n:.3f} misleader={misled} outside_letters={outside} "
          f"p50={_pct(times, 0.5):.2f}s p95={_pct(times, 0.95):.2f}s")
    if with_table:
        print(f"    risk-coverage (skill confidence >= t): {'t':>6} {'answered':>9} {'coverage':>9} {'precision':>10}")
        for t in THRESHOLDS:
            kept = [o for o in outcomes if o.decided is not None and (o.decided_confidence or 0.0) >= t]
            good = sum(o.decided == o.expected for o in kept)
            prec = f"{good / len(kept):.3f}" if kept else "  -  "
            mark = "  <- MIN_CONFIDENCE" if t == MIN_CONFIDENCE else ""
            print(f"    {'':39} {t:>6.2f} {len(kept):>9} {len(kept) / n:>9.3f} {prec:>10}{mark}")


def _is_abstention(raw: str) -> bool:
    from skills.answer_form import is_non_answer

    return is_non_answer(raw)


def _pct(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))] if values else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder with items.jsonl and images/")
    parser.add_argument("--limit", type=int, default=0, help="only the first N items")
    parser.add_argument("--no-agent", action="store_true", help="only the Chart skill (half the time)")
    parser.add_argument("--show", action="store_true", help="print every item's outcome")
    args = parser.parse_args()
    items = [json.loads(line) for line in (args.data / "items.jsonl").read_text().splitlines() if line.strip()]
    if args.limit:
        items = items[: args.limit]
    registry = load_registry()
    skill_runs: list[Outcome] = []
    agent_runs: list[Outcome] = []
    for line, item in enumerate(items):
        image = load_image(args.data / item["image"])
        skill_runs.append(skill_outcome(registry, line, item, image))
        if not args.no_agent:
            agent_runs.append(agent_outcome(registry, line, item, image))
        if args.show:
            s = skill_runs[-1]
            extra = f" | agent {agent_runs[-1].raw!r} via {agent_runs[-1].reason}" if agent_runs else ""
            print(f"{line:>3} {item['category']:<58} expected {s.expected} misleader {s.misleader} -> "
                  f"skill {s.letter} ({s.confidence}) {s.seconds:.1f}s{extra}\n      {s.reason[:160]}", flush=True)
    for path, outcomes, table in (("Chart skill", skill_runs, True), ("agent (default registry)", agent_runs, False)):
        if not outcomes:
            continue
        print(f"{path} (MIN_CONFIDENCE {MIN_CONFIDENCE}):")
        report("tune (even lines)", [o for o in outcomes if o.line % 2 == 0], table)
        report("check (odd lines)", [o for o in outcomes if o.line % 2 == 1], table)
        report("all", outcomes, table)
    latencies = [o.seconds for o in skill_runs]
    print(f"skill latency mean {statistics.fmean(latencies):.2f}s over {len(latencies)} items")


if __name__ == "__main__":
    main()
