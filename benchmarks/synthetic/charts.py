"""Synthetic charts with known values: bar, horizontal bar, grouped bar, line and pie, rendered with matplotlib.

Each chart varies style (default, ggplot, seaborn grids, bmh), size, resolution, palette and whether values are
printed on the marks, so a parser cannot lean on one look. Values are drawn so that the smallest mark is at least a
tenth of the axis range: a bar a few pixels high cannot be measured to 5 %, and real charts rarely ask that.

matplotlib is a benchmark/test dependency only (``pip install matplotlib``); the runtime never imports this module.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # headless: no display on the benchmark machines

import matplotlib.colors  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

KINDS = ("bar", "hbar", "grouped_bar", "line", "pie")
KIND_WORDS = {"bar": "bar chart", "hbar": "horizontal bar chart", "grouped_bar": "grouped bar chart",
              "line": "line chart", "pie": "pie chart"}
STYLES = ("default", "ggplot", "seaborn-v0_8-whitegrid", "seaborn-v0_8-darkgrid", "bmh", "default")
CATEGORY_POOLS = (
    ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
    ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug"],
    ["Apples", "Bananas", "Cherries", "Grapes", "Mangoes", "Oranges", "Pears"],
    ["Paris", "Berlin", "Madrid", "Rome", "Vienna", "Lisbon", "Oslo"],
    ["2017", "2018", "2019", "2020", "2021", "2022", "2023"],
    ["North", "South", "East", "West", "Central"],
    ["Alpha", "Beta", "Gamma", "Delta", "Omega", "Sigma"],
)
SERIES_POOLS = (["Sales", "Costs", "Profit"], ["2022", "2023", "2024"], ["Men", "Women", "Children"],
                ["Online", "Store", "Phone"], ["Team A", "Team B", "Team C"])
TITLES = {"bar": ["Sales per day", "Visitors", "Units sold", "Monthly revenue", "Population (thousands)", ""],
          "hbar": ["Votes per city", "Downloads", "Scores", "Orders by region", ""],
          "grouped_bar": ["Sales by channel", "Survey results", "Revenue comparison", ""],
          "line": ["Temperature trend", "Weekly traffic", "Stock price", "Active users", ""],
          "pie": ["Market share", "Budget split", "Fruit sales", "Time spent", ""]}
COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
          "#bcbd22", "teal", "crimson", "darkorange", "slateblue", "seagreen", "goldenrod", "steelblue"]
SCALES = (10, 50, 100, 500, 1000, 5000)


@dataclass
class ChartSpec:
    """What was drawn: the ground truth a parser should recover."""

    kind: str
    title: str
    categories: list[str]
    series: list[str]
    values: dict[str, dict[str, float]] = field(default_factory=dict)  # category -> series -> value (pie: percent)
    labels_printed: bool = False


def generate(out_dir: Path, n: int, seed: int = 0) -> list[dict]:
    """Render ``n`` charts into ``out_dir/images/`` and return one question item per chart."""
    out_dir = Path(out_dir)
    (out_dir / "images").mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    items = []
    for index in range(n):
        kind = KINDS[index % len(KINDS)]
        spec = random_spec(kind, rng)
        name = f"chart_{seed}_{index:04d}_{kind}.png"
        render(spec, out_dir / "images" / name, rng)
        question, answer, task = make_question(spec, rng)
        items.append({"id": f"chart-{seed}-{index:04d}", "image": f"images/{name}", "question": question,
                      "answer": answer, "category": f"chart_{kind}_{task}"})
    return items


def random_spec(kind: str, rng: random.Random) -> ChartSpec:
    pool = rng.choice(CATEGORY_POOLS)
    count = rng.randint(3, min(6 if kind in ("pie", "grouped_bar") else 7, len(pool)))
    start = rng.randint(0, len(pool) - count)
    categories = pool[start:start + count]
    title = rng.choice(TITLES[kind])
    if kind == "pie":
        weights = [rng.uniform(1.0, 6.0) for _ in categories]
        total = sum(weights)
        percents = [round(100 * w / total, 1) for w in weights]
        percents[-1] = round(100 - sum(percents[:-1]), 1)
        return ChartSpec(kind, title, categories, ["percent"],
                         {c: {"percent": p} for c, p in zip(categories, percents, strict=True)},
                         labels_printed=rng.random() < 0.6)
    # year series over year categories would make "the value of 2023 for 2018" ambiguous
    series_pools = [p for p in SERIES_POOLS if not set(p) & {"2022", "2023"} or pool is not CATEGORY_POOLS[4]]
    series = ["value"]
    if kind == "grouped_bar" or (kind == "line" and rng.random() < 0.4):
        series = rng.choice(series_pools)[:rng.randint(2, 3) if kind == "grouped_bar" else 2]
    scale = rng.choice(SCALES)
    decimals = 1 if scale <= 10 or (scale <= 100 and rng.random() < 0.3) else 0
    values: dict[str, dict[str, float]] = {}
    used: set[float] = set()
    for category in categories:
        row = {}
        for name in series:
            value = round(rng.uniform(0.15, 1.0) * scale, decimals)
            while value in used:  # distinct values keep "which is highest" unambiguous
                value = round(value + 10 ** -decimals * rng.randint(1, 5), decimals)
            used.add(value)
            row[name] = int(value) if decimals == 0 else value
        values[category] = row
    return ChartSpec(kind, title, categories, series, values, labels_printed=rng.random() < 0.5)


def render(spec: ChartSpec, path: Path, rng: random.Random) -> None:
    style = rng.choice(STYLES)
    sizes = [(6.4, 4.8), (8, 5), (7, 4.5), (5.5, 4.2), (9, 5.5)]
    if spec.kind != "hbar" and len(spec.categories) * max(map(len, spec.categories)) > 36:
        sizes = sizes[1:2] + sizes[4:]  # long labels overlap on narrow figures, which no reader could split
    width, height = rng.choice(sizes)
    dpi = rng.choice([80, 100, 100, 120])
    with plt.style.context(style):
        fig, ax = plt.subplots(figsize=(width, height), dpi=dpi)
        try:
            _DRAWERS[spec.kind](ax, spec, rng)
            if spec.title:
                ax.set_title(spec.title)
            fig.tight_layout()
            fig.savefig(path)
        finally:
            plt.close(fig)


def distinct_colours(rng: random.Random, k: int) -> list[str]:
    """``k`` colours from ``COLORS`` that a reader can tell apart (no two within 60/255 on every channel)."""
    chosen: list[str] = []
    for name in rng.sample(COLORS, len(COLORS)):
        rgb = matplotlib.colors.to_rgb(name)
        if all(max(abs(a - b) for a, b in zip(rgb, matplotlib.colors.to_rgb(c), strict=True)) > 60 / 255
               for c in chosen):
            chosen.append(name)
        if len(chosen) == k:
            return chosen
    raise ValueError(f"cannot pick {k} distinct colours")


def _fmt(value: float) -> str:
    return f"{value:g}"


def _draw_bar(ax, spec: ChartSpec, rng: random.Random) -> None:
    values = [spec.values[c]["value"] for c in spec.categories]
    colors = rng.choice(["single", "single", "each"])
    color = rng.choice(COLORS) if colors == "single" else distinct_colours(rng, len(values))
    bars = ax.bar(spec.categories, values, color=color, width=rng.choice([0.5, 0.6, 0.8]))
    if spec.labels_printed:
        ax.bar_label(bars, labels=[_fmt(v) for v in values])
    if rng.random() < 0.5:
        ax.set_ylabel(rng.choice(["Value", "Count", "Amount"]))


def _draw_hbar(ax, spec: ChartSpec, rng: random.Random) -> None:
    values = [spec.values[c]["value"] for c in spec.categories]
    color = rng.choice(COLORS)
    bars = ax.barh(spec.categories, values, color=color, height=rng.choice([0.5, 0.6, 0.8]))
    if spec.labels_printed:
        ax.bar_label(bars, labels=[_fmt(v) for v in values], padding=3)
    if rng.random() < 0.5:
        ax.set_xlabel(rng.choice(["Value", "Count", "Amount"]))


def _draw_grouped(ax, spec: ChartSpec, rng: random.Random) -> None:
    k = len(spec.series)
    width = rng.choice([0.8, 0.7]) / k
    colors = distinct_colours(rng, k)
    positions = range(len(spec.categories))
    for j, name in enumerate(spec.series):
        values = [spec.values[c][name] for c in spec.categories]
        offsets = [p + (j - (k - 1) / 2) * width for p in positions]
        bars = ax.bar(offsets, values, width, label=name, color=colors[j])
        if spec.labels_printed:
            ax.bar_label(bars, labels=[_fmt(v) for v in values], fontsize=8)
    ax.set_xticks(list(positions), spec.categories)
    top = max(max(row.values()) for row in spec.values.values())
    ax.set_ylim(0, top * 1.25)  # room for the legend above the bars
    ax.legend(loc="upper left", ncols=k)


def _draw_line(ax, spec: ChartSpec, rng: random.Random) -> None:
    colors = distinct_colours(rng, len(spec.series))
    marker = rng.choice(["o", "s", "", "o"])
    for j, name in enumerate(spec.series):
        values = [spec.values[c][name] for c in spec.categories]
        ax.plot(spec.categories, values, marker=marker, color=colors[j], label=name,
                linewidth=rng.choice([1.5, 2, 2.5]))
        if spec.labels_printed:
            for x, v in enumerate(values):
                ax.annotate(_fmt(v), (x, v), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=9)
    top = max(max(row.values()) for row in spec.values.values())
    ax.set_ylim(0, top * 1.2)
    if len(spec.series) > 1:
        ax.legend(loc="lower right")


def _draw_pie(ax, spec: ChartSpec, rng: random.Random) -> None:
    percents = [spec.values[c]["percent"] for c in spec.categories]
    colors = distinct_colours(rng, len(percents))
    edge = {"edgecolor": "white", "linewidth": 1.5} if rng.random() < 0.5 else None
    legend = rng.random() < 0.3
    ax.pie(percents, labels=None if legend else spec.categories, colors=colors,
           autopct="%1.1f%%" if spec.labels_printed else None, startangle=rng.choice([0, 90, 140]),
           wedgeprops=edge, counterclock=rng.random() < 0.7)
    if legend:
        ax.legend(spec.categories, loc="center left", bbox_to_anchor=(1.0, 0.5))
    ax.set_aspect("equal")


_DRAWERS = {"bar": _draw_bar, "hbar": _draw_hbar, "grouped_bar": _draw_grouped, "line": _draw_line,
            "pie": _draw_pie}


def _clear_extremes(spec: ChartSpec, series: str, largest_only: bool = False) -> bool:
    """Whether the largest (and smallest) value stands out by 3 % of the largest: a reader cannot rank near-ties."""
    values = sorted(spec.values[c][series] for c in spec.categories)
    margin = 0.03 * values[-1]
    return values[-1] - values[-2] >= margin and (largest_only or values[1] - values[0] >= margin)


def make_question(spec: ChartSpec, rng: random.Random) -> tuple[str, str, str]:
    """A question a person would ask about this chart, its answer, and the task name."""
    chart = KIND_WORDS[spec.kind]
    category = rng.choice(spec.categories)
    if spec.kind == "pie":
        if rng.random() < 0.75:
            return (f"What percentage is {category} in the pie chart?", _fmt(spec.values[category]["percent"]),
                    "percent")
        if _clear_extremes(spec, "percent", largest_only=True):
            best = max(spec.categories, key=lambda c: spec.values[c]["percent"])
            return "Which slice is the largest in the pie chart?", best, "max"
        return (f"What percentage is {category} in the pie chart?", _fmt(spec.values[category]["percent"]),
                "percent")
    series = rng.choice(spec.series)
    if rng.random() < 0.75 or not _clear_extremes(spec, series):
        value = _fmt(spec.values[category][series])
        if len(spec.series) > 1:
            return f"In the {chart}, what is the value of the {series} series for {category}?", value, "value"
        return f"What is the value of {category} in the {chart}?", value, "value"
    highest = rng.random() < 0.6
    pick = max if highest else min
    best = pick(spec.categories, key=lambda c: spec.values[c][series])
    word = "highest" if highest else "lowest"
    if len(spec.series) > 1:
        return f"In the {chart}, which category has the {word} {series} value?", best, word
    return f"Which category has the {word} value in the {chart}?", best, word
