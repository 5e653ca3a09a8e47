"""Charts round 41 of new users' questions, measured once on the final code of round 40: two wrong answers, each
a class.

- "total carrot cake slices wasted mon-sat?" was 4, Monday's and Saturday's values: a span of categories named by
  its ends ("mon-sat", "tue to thu") is every category in it for a total or a mean, and only its two ends for a
  change ("grow from mon to tue");
- "were there more tenors or basses in october" was "No": "more X or Y" between two series asks which of them,
  as it already did between two categories.

And a class the wrong answers brought to light: a legend naming a series whose marks were not read (three cakes in
the legend, two lines read) leaves every question over the series open; one about a series read is answered.
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from agents.config import Settings
from agents.runtime import Maestro
from skills.chart.names import unread_legend
from tests.test_answers_as_asked import render
from vision_tools.charts import ChartResult


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


def muffins() -> Image.Image:
    days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        bars = ax.bar(days, [12, 9, 14, 7, 16, 11], color="#bf616a")
        ax.bar_label(bars)
        ax.set_ylabel("Muffins sold")
        ax.set_title("Bake stall: muffins sold per day")

    return render(draw)


@pytest.mark.parametrize(("question", "answer"), [
    ("total muffins sold mon-sat?", "69"),
    ("how many muffins were sold tue to thu altogether", "30"),
    ("how many more muffins were sold on fri than on mon", "4"),
])
def test_a_span_of_days_is_every_day_in_it(maestro: Maestro, question: str, answer: str) -> None:
    run = maestro.ask(muffins(), question)
    assert (run.status, run.answer) == ("done", answer), run.reason


def choir() -> Image.Image:
    months = ["Sep", "Oct", "Nov", "Dec"]

    def draw(ax) -> None:  # noqa: ANN001
        x = np.arange(len(months))
        for k, (name, values) in enumerate({"Tenors": [9, 7, 8, 10], "Basses": [6, 11, 9, 7]}.items()):
            bars = ax.bar(x + (k - 0.5) * 0.4, values, 0.4, label=name)
            ax.bar_label(bars)
        ax.set_xticks(x, months)
        ax.set_ylabel("Singers at rehearsal")
        ax.set_title("Choir attendance")
        ax.legend()

    return render(draw)


@pytest.mark.parametrize(("question", "answer"), [
    ("were there more tenors or basses at rehersal in october", "Basses"),
    ("were there more tenors than basses in october?", "No"),
])
def test_more_of_two_series_or_asks_which(maestro: Maestro, question: str, answer: str) -> None:
    run = maestro.ask(choir(), question)
    assert (run.status, run.answer) == ("done", answer), run.reason


def test_a_legend_entry_read_as_no_series_is_named() -> None:
    chart = ChartResult(kind="line", title="Cake slices wasted", series=["Carrot cake", "Victoria sponge"],
                        categories=["Mon", "Tue"], legend=["Carrot cake", "Victoria sponge", "Chocolate fudge"],
                        table={"Mon": {"Carrot cake": 3.0, "Victoria sponge": 4.0},
                               "Tue": {"Carrot cake": 5.0, "Victoria sponge": 2.0}})
    assert unread_legend(chart) == ["Chocolate fudge"]
    # A pie's legend names its slices, which are its categories.
    pie = ChartResult(kind="pie", title="Votes", series=["value"], categories=["Pool", "Darts"],
                      legend=["Pool", "Darts"], table={"Pool": {"value": 60.0}, "Darts": {"value": 40.0}})
    assert unread_legend(pie) == []
