"""BlindTest benchmark of the diagram primitives: accuracy per category and overall, latency per function.

Run from the repository root: ``python -m benchmarks.bench_blindtest [--data DIR] [--category CAT] [--repeat N]
[--heldout N --seed S]``. Each item goes to the function that answers its category
(``vision_tools.diagrams.letters.TOOL_FOR_CATEGORY``); images are decoded before timing so latency is the tool's
own. Failures are listed by id with the tool's summary and confidence. ``--heldout N`` also renders N fresh
BlindTest-style diagrams (``benchmarks.synthetic.diagrams``: strokes 0.5-4 px, black, faint gray or coloured) and
reports accuracy per category and per stroke width, and how confident the tools were when right and when wrong.
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
    parser.add_argument("--heldout", type=int, default=0, help="also render and score this many fresh diagrams")
    parser.add_argument("--seed", type=int, default=0, help="seed of the held-out diagrams")
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
    if args.heldout:
        heldout(args.heldout, args.seed)


def heldout(n: int, seed: int) -> None:
    """Accuracy of the diagram tools on ``n`` freshly rendered diagrams, per category and per stroke width."""
    import tempfile

    from benchmarks.synthetic.diagrams import generate
    from vision_tools.diagrams import (
        circles_touch,
        count_line_crossings,
        count_nested_squares,
        count_overlapping_shapes,
        grid_shape,
    )

    def answer(category: str, image, meta: dict):  # noqa: ANN001, ANN202 - PIL image in, (answer, confidence) out
        if category == "diagram_grid":
            grid = grid_shape(image)
            value = {"pair": grid.answer, "rows": str(grid.rows), "columns": str(grid.columns)}[meta["asked"]]
            return value, grid.confidence
        result = {"diagram_circles": lambda: count_overlapping_shapes(image, "circle"),
                  "diagram_pentagons": lambda: count_overlapping_shapes(image, "pentagon"),
                  "diagram_nested_squares": lambda: count_nested_squares(image),
                  "diagram_crossings": lambda: count_line_crossings(image, *meta["colours"]),
                  "diagram_touching": lambda: circles_touch(image)}[category]()
        return result.answer, result.confidence

    tally: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    confidence: dict[bool, list[float]] = defaultdict(list)
    misses: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for item in generate(Path(tmp), n, seed):
            image = load_image(Path(tmp) / item["image"])
            try:
                got, sure = answer(item["category"], image, item["meta"])
            except ValueError as exc:
                got, sure = f"ValueError: {exc}", 0.0
            right = got == item["answer"]
            for key in ((item["category"], "all"), ("all widths", f"{item['meta']['width_px']:g} px")):
                tally[key][0] += right
                tally[key][1] += 1
            confidence[right].append(sure)
            if not right:
                misses.append(f"{item['id']}: expected {item['answer']!r}, got {got!r} (confidence {sure:.2f}); "
                              f"{item['meta']}")
    print(f"\nHeld-out rendered diagrams: {n} items (seed {seed})")
    for (category, width), (ok, total) in sorted(tally.items()):
        print(f"  {category:<26}{width:<9}{ok:>5}/{total:<5}{ok / total:>8.1%}")
    for right in (True, False):
        values = confidence[right]
        if values:
            print(f"  confidence when {'right' if right else 'wrong'}: n={len(values)} min {min(values):.2f} "
                  f"median {statistics.median(values):.2f}")
    for line in misses:
        print("  miss " + line)


if __name__ == "__main__":
    main()
