"""BlindTest benchmark of the diagram primitives: accuracy per category and overall, latency per function.

Run from the repository root: ``python -m benchmarks.bench_blindtest [--data DIR] [--category CAT] [--repeat N]``.
Each item goes to the function that answers its category (``vision_tools.diagrams.letters.TOOL_FOR_CATEGORY``); images
are decoded before timing so latency is the tool's own. Failures are listed by id with the tool's summary.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from pathlib import Path

from vision_tools.diagrams import TOOL_FOR_CATEGORY
from vision_tools.image import load_image

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "blindtest-dev"
FUNCTION_NAME = {
    "line_intersection": "count_line_crossings",
    "touching_circles": "circles_touch",
    "counting_circles": "count_overlapping_shapes(circle)",
    "counting_pentagons": "count_overlapping_shapes(pentagon)",
    "nested_squares": "count_nested_squares",
    "grid_rows_columns": "grid_shape",
    "circled_letter": "highlighted_letter",
}


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder with items.jsonl and images/")
    parser.add_argument("--category", action="append", help="only these categories (repeatable)")
    parser.add_argument("--repeat", type=int, default=1, help="time each call this many times (latency only)")
    args = parser.parse_args()

    items = [json.loads(line) for line in (args.data / "items.jsonl").read_text().splitlines() if line.strip()]
    items = [it for it in items if it["category"] in TOOL_FOR_CATEGORY]
    if args.category:
        items = [it for it in items if it["category"] in args.category]
    correct: dict[str, int] = defaultdict(int)
    total: dict[str, int] = defaultdict(int)
    latency: dict[str, list[float]] = defaultdict(list)
    failures: list[str] = []
    for it in items:
        category = it["category"]
        tool = TOOL_FOR_CATEGORY[category]
        image = load_image(args.data / it["image"])
        answer, summary = "", ""
        for _ in range(max(1, args.repeat)):
            start = time.perf_counter()
            try:
                result = tool(image)
                answer, summary = result.answer, result.summary()
            except ValueError as exc:
                answer, summary = "", f"ValueError: {exc}"
            latency[FUNCTION_NAME[category]].append(time.perf_counter() - start)
        total[category] += 1
        if answer == it["answer"]:
            correct[category] += 1
        else:
            failures.append(f"{it['id']}: expected {it['answer']!r}, got {answer!r} — {summary[:160]}")

    print(f"BlindTest diagram primitives on {len(items)} items from {args.data}")
    print(f"{'category':<22}{'correct':>9}{'total':>7}{'accuracy':>10}")
    for category in sorted(total):
        print(f"{category:<22}{correct[category]:>9}{total[category]:>7}{correct[category] / total[category]:>10.1%}")
    n_ok, n_all = sum(correct.values()), sum(total.values())
    if n_all:
        print(f"{'overall':<22}{n_ok:>9}{n_all:>7}{n_ok / n_all:>10.1%}")
    print(f"\n{'function':<38}{'calls':>6}{'p50 s':>8}{'p95 s':>8}{'mean s':>8}")
    for name, values in sorted(latency.items()):
        print(f"{name:<38}{len(values):>6}{_percentile(values, 0.5):>8.3f}{_percentile(values, 0.95):>8.3f}"
              f"{statistics.fmean(values):>8.3f}")
    print(f"\nfailures ({len(failures)}):")
    for line in failures:
        print("  " + line)


if __name__ == "__main__":
    main()
