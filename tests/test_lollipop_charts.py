"""Lollipop charts: a thin stem from the baseline to a round head at the value. Each is read as a bar to the
head's centre, so its category label, its printed number and its length against the axis all count; round
markers without stems (a line chart's, a scatter plot's, a dot plot's) are never taken for lollipops."""

from __future__ import annotations

import pytest
from PIL import Image

from agents.config import Settings
from agents.runtime import Maestro
from tests.test_answers_as_asked import render
from vision_tools.charts import chart_likeness, parse_chart

WAITS = {"Bella Napoli": 23.5, "Golden Dragon": 17.2, "Oak Grill": 31.8, "Taco Loco": 12.6, "Sushi Zen": 26.4}


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


def lollipops(values: dict[str, float], *, vertical: bool, labelled: bool) -> Image.Image:
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        names, heights = list(values), list(values.values())
        if vertical:
            ax.vlines(names, 0, heights, color="grey", linewidth=2)
            ax.plot(names, heights, "o", color="crimson", markersize=11)
            ax.set_ylim(0, 40)
        else:
            ax.hlines(names, 0, heights, color="grey", linewidth=2)
            ax.plot(heights, names, "o", color="crimson", markersize=11)
            ax.set_xlim(0, 40)
        if labelled:
            for name, value in values.items():
                xy = (name, value) if vertical else (value, name)
                ax.annotate(f"{value}", xy, textcoords="offset points", xytext=(0, 10) if vertical else (12, -4))
        ax.set_title("Average wait (minutes)")

    return render(draw)


@pytest.mark.parametrize("vertical", [True, False])
def test_each_lollipop_is_a_bar_to_its_head(vertical: bool) -> None:
    chart = parse_chart(lollipops(WAITS, vertical=vertical, labelled=False))
    assert chart.kind == ("bar" if vertical else "hbar"), chart.reason
    assert chart.categories == list(WAITS) if vertical else sorted(chart.categories) == sorted(WAITS)
    for name, value in WAITS.items():
        assert chart.value(name) == pytest.approx(value, abs=0.8)  # measured to the head's centre


def test_printed_numbers_beside_the_heads_answer_exactly(maestro: Maestro) -> None:
    image = lollipops(WAITS, vertical=False, labelled=True)
    assert maestro.ask(image, "which restaurant has the shortest wait").answer == "Taco Loco"
    assert maestro.ask(image, "whats the diff between oak grill and taco loco").answer == "19.2"
    assert maestro.ask(image, "sushi zen wait vs 25 min - is it more?").answer == "Yes"


def test_round_markers_without_stems_are_no_lollipops() -> None:
    def line(ax) -> None:  # noqa: ANN001
        ax.plot(["Jan", "Feb", "Mar", "Apr", "May"], [12, 18, 15, 22, 19], "-o", markersize=11)
        ax.set_title("Orders")

    def dots(ax) -> None:  # noqa: ANN001
        ax.plot(list(WAITS.values()), list(WAITS), "o", color="crimson", markersize=11)
        ax.set_xlim(0, 40)
        ax.set_title("Average wait (minutes)")

    assert parse_chart(render(line)).kind == "line"
    assert parse_chart(render(dots)).kind not in ("bar", "hbar")


def test_a_lollipop_chart_without_axis_lines_is_taken_for_a_chart(maestro: Maestro) -> None:
    # Round 36: a slide's lollipops, no spines but the bottom one, printed minutes: the image was not taken for a
    # chart, and only the text was read.
    times = {"Roast chicken": 90, "Lasagne": 75, "Chilli": 60, "Spag bol": 45, "Risotto": 35}

    def draw(ax) -> None:  # noqa: ANN001
        names = list(times)[::-1]
        ax.hlines(names, 0, [times[n] for n in names], color="grey", linewidth=2)
        ax.plot([times[n] for n in names], names, "o", color="crimson", markersize=11)
        for name in names:
            ax.annotate(f"{times[name]} min", (times[name], name), textcoords="offset points", xytext=(12, -4))
        for side in ("left", "top", "right"):
            ax.spines[side].set_visible(False)
        ax.tick_params(left=False)
        ax.set_xlim(0, 100)
        ax.set_xlabel("Total cooking time (minutes)")
        ax.set_title("How long our recipes take")

    image = render(draw)
    assert chart_likeness(image).chart
    assert maestro.ask(image, "which one takes the longest to cook").answer == "Roast chicken"
    assert maestro.ask(image, "how much longer is lasagne than spag bol").answer == "30"
    assert maestro.ask(image, "how much longer is spag bol than lasagne").answer is None  # it is shorter
