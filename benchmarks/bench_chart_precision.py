"""How a value measured against a chart's axis should be given: as measured, or as the roundest number within
two pixels (``skills.chart.precision.measured_reading``)?

    python -m benchmarks.bench_chart_precision [--n 80] [--seed 0]

Two kinds of chart, both with values read from the axis (no printed value): the synthetic generator's charts
(``benchmarks.synthetic.charts``, values drawn at random: 1562, 823) and charts as people draw them (round values,
multiples of 5, 10, 50 or 100, over axes of several sizes and steps, bars both ways and lines). For every value
question whose mark was measured it prints, per rule, how many answers are exactly the value and how many are
within 5 % (the ChartQA convention the evaluation uses).
"""

from __future__ import annotations

import argparse
import io
import random
import tempfile
from collections.abc import Callable
from pathlib import Path

from PIL import Image

from benchmarks.bench_charts import _VALUE_RE
from benchmarks.synthetic.charts import generate
from skills.chart.precision import axis_decimals, measured_reading
from vision_tools.charts import ChartResult, match_name, parse_chart
from vision_tools.image import load_image

Rule = Callable[[ChartResult, float], float]
RULES: dict[str, Rule] = {
    "a fifth of a step": lambda chart, value: round(value, axis_decimals(chart) or 0),  # the rule before
    "roundest within 2 px": lambda chart, value: round(measured_reading(chart, value), axis_decimals(chart) or 0),
}
_NAMES = ["North", "South", "East", "West", "Oslo", "Rome", "Lima", "Kyiv"]


def round_valued(rng: random.Random) -> tuple[Image.Image, list[tuple[str, float]]]:
    """A chart a person would draw: round values, a random size, bars (either way) or a line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    unit = rng.choice([5, 10, 50, 100])
    names = rng.sample(_NAMES, rng.randint(3, 6))
    values = [unit * rng.randint(1, 12) for _ in names]
    fig, ax = plt.subplots(figsize=(rng.uniform(5, 9), rng.uniform(3.5, 6)), dpi=rng.choice([80, 100, 120]))
    kind = rng.choice(["bar", "barh", "line"])
    {"bar": ax.bar, "barh": ax.barh, "line": ax.plot}[kind](names, values)
    ax.set_title("Items per site")
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return Image.open(io.BytesIO(buffer.getvalue())).convert("RGB"), list(zip(names, values, strict=True))


def score(rows: list[tuple[ChartResult, str, str | None, float]]) -> dict[str, tuple[int, int]]:
    """Per rule: (exact, within 5 %) over the measured marks in ``rows`` (chart, category, series, truth)."""
    out = {}
    for name, rule in RULES.items():
        exact = close = 0
        for chart, category, series, truth in rows:
            given = round(rule(chart, chart.value(category, series) or 0.0), 6)
            exact += abs(given - truth) < 1e-6
            close += abs(given - truth) <= 0.05 * abs(truth)
        out[name] = (exact, close)
    return out


def measured(chart: ChartResult, category: str, series: str | None) -> bool:
    name = match_name(category, chart.categories)
    marks = [m for m in chart.marks if m.category == name and (series is None or m.series == series)]
    return len(marks) == 1 and marks[0].source == "axis"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=80, help="charts of each kind")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    synthetic, drawn = [], []
    with tempfile.TemporaryDirectory() as folder:
        for item in generate(Path(folder), args.n, seed=args.seed):
            match = _VALUE_RE.search(item["question"].split(", ", 1)[-1])
            if not match or "pie" in item["image"]:
                continue
            chart = parse_chart(load_image(Path(folder) / item["image"]))
            series = match.group("series")
            if chart.value(match.group("cat"), series) is not None and measured(chart, match.group("cat"), series):
                synthetic.append((chart, match.group("cat"), series, float(item["answer"])))
    rng = random.Random(args.seed)
    for _ in range(args.n):
        image, values = round_valued(rng)
        chart = parse_chart(image)
        drawn += [(chart, name, None, float(value)) for name, value in values
                  if chart.value(name) is not None and measured(chart, name, None)]
    for label, rows in (("synthetic (random values)", synthetic), ("drawn (round values)", drawn)):
        print(f"{label}: {len(rows)} measured values")
        for rule, (exact, close) in score(rows).items():
            print(f"  {rule:22s} exact {exact / max(1, len(rows)):.3f}  within 5% {close / max(1, len(rows)):.3f}")


if __name__ == "__main__":
    main()
