"""Chart parsing benchmark: synthetic charts with known values, answered from ``parse_chart``'s table.

Renders N charts (``benchmarks.synthetic.charts``: bar, horizontal bar, grouped bar, line, pie; matplotlib
needed), parses each with the kind left to auto-detection, answers the item's question from the table and prints
accuracy per task (numbers within 5 % relative, names exact up to case and spacing), kind-detection accuracy, where
the values came from (printed label, axis, angle) and the latency of ``parse_chart`` per call (p50/p95, OCR included).

    python -m benchmarks.bench_charts [--n 100] [--seed 0] [--out DIR] [--show-failures]
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

from benchmarks.synthetic.charts import generate
from vision_tools.charts import ChartResult, match_name, normalise_name, parse_chart
from vision_tools.image import load_image

_VALUE_RE = re.compile(r"what is the value of (?:the (?P<series>.+?) series for )?(?P<cat>.+?)(?: in the .*)?\?$",
                       re.IGNORECASE)
_PERCENT_RE = re.compile(r"what percentage is (?P<cat>.+?) in the pie chart\?$", re.IGNORECASE)
_EXTREME_RE = re.compile(r"which (?:category|slice) (?:has the|is the) (?P<word>highest|lowest|largest|smallest)"
                         r"(?: (?P<series>.+?))?(?: value)?(?: in the .*)?\?$", re.IGNORECASE)


def answer(question: str, result: ChartResult) -> str | None:
    """The answer to one of the generator's question forms, read from the parsed table."""
    text = question.split(", ", 1)[1] if question.lower().startswith("in the ") else question
    match = _PERCENT_RE.search(text) or _VALUE_RE.search(text)
    if match:
        series = match.groupdict().get("series")
        value = result.value(match.group("cat"), series)
        return None if value is None else f"{value:g}"
    match = _EXTREME_RE.search(text)
    if match:
        highest = match.group("word").lower() in ("highest", "largest")
        series = match.group("series")
        if series and match_name(series, result.series) is None:
            series = None
        return result.extreme(highest, series)
    return None


def correct(got: str | None, expected: str) -> bool:
    if got is None:
        return False
    try:
        truth = float(expected)
    except ValueError:
        return normalise_name(got) == normalise_name(expected)
    try:
        value = float(got)
    except ValueError:
        return False
    return abs(value - truth) <= 0.05 * abs(truth)


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100, help="charts to render and parse")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="keep the rendered charts here")
    parser.add_argument("--show-failures", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp)
        items = generate(out, args.n, seed=args.seed)
        parse_chart(load_image(out / items[0]["image"]))  # load the OCR models outside the timings

        per_task: dict[str, list[bool]] = defaultdict(list)
        per_kind_value: dict[str, list[bool]] = defaultdict(list)
        kinds_ok: list[bool] = []
        sources: Counter[str] = Counter()
        latencies: list[float] = []
        errors: list[float] = []
        failures = []
        for item in items:
            image = load_image(out / item["image"])
            start = time.perf_counter()
            result = parse_chart(image)
            latencies.append(time.perf_counter() - start)
            kind, _, task = item["category"].split("_", 1)[1].rpartition("_")
            got = answer(item["question"], result)
            ok = correct(got, item["answer"])
            per_task[item["category"]].append(ok)
            if task in ("value", "percent"):
                per_kind_value["bar" if "bar" in kind else kind].append(ok)
                if got is not None and float(item["answer"]) != 0:
                    errors.append(abs(float(got) - float(item["answer"])) / abs(float(item["answer"])))
            kinds_ok.append(result.kind == kind)
            sources.update(m.source for m in result.marks)
            if not ok:
                failures.append((item["id"], item["question"], item["answer"], got, result.summary()))

    print(f"charts: {len(items)} (seed {args.seed})")
    print("accuracy per task:")
    for name in sorted(per_task):
        hits = per_task[name]
        print(f"  {name:28s} {sum(hits):3d}/{len(hits):3d} = {100 * sum(hits) / len(hits):5.1f}%")
    print("value questions (within 5 % relative):")
    for name in ("bar", "line", "pie"):
        hits = per_kind_value.get(name, [])
        if hits:
            print(f"  {name:5s} {sum(hits):3d}/{len(hits):3d} = {100 * sum(hits) / len(hits):5.1f}%")
    if errors:
        print(f"  relative error of answered values: median {100 * statistics.median(errors):.2f}%, "
              f"p95 {100 * percentile(errors, 95):.2f}%")
    total = [ok for hits in per_task.values() for ok in hits]
    print(f"all questions: {sum(total)}/{len(total)} = {100 * sum(total) / len(total):.1f}%")
    print(f"kind detected: {sum(kinds_ok)}/{len(kinds_ok)} = {100 * sum(kinds_ok) / len(kinds_ok):.1f}%")
    print("value sources:", ", ".join(f"{k}={v}" for k, v in sources.most_common()))
    print(f"parse_chart latency: p50 {percentile(latencies, 50):.3f} s, p95 {percentile(latencies, 95):.3f} s, "
          f"mean {statistics.mean(latencies):.3f} s (OCR included; machine shared, so noisy)")
    if args.show_failures:
        for failure in failures:
            print("FAIL", *failure, sep="\n   ")


if __name__ == "__main__":
    main()
