"""Category labels printed on a slant (matplotlib's ``rotation=45, ha="right"``, the usual fix for long names).

Each slanted label's box overlaps its neighbours', so read as one row they had been joined into a few long
"categories" ("40 Riverside 52 Eastfield"), and the lowest bar was answered with two routes' names.
"""

from __future__ import annotations

import pytest

from tests.test_answers_as_asked import render
from vision_tools.charts import parse_chart

ROUTES = {"1 Airport Express": 91, "4 Harbour Loop": 78, "7 Hospital-Station": 82, "12 University": 69,
          "15 Northgate": 88, "21 Old Town": 73, "33 Retail Park": 81, "40 Riverside": 62, "52 Eastfield": 87}


def _routes():  # noqa: ANN202 - a PIL image
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        ax.bar(list(ROUTES), list(ROUTES.values()), color="#5b8f7d")
        ax.set_ylim(50, 100)
        ax.set_ylabel("Buses on time (%)")
        ax.set_title("Punctuality by route")
        ax.tick_params(axis="x", labelrotation=45)
        for label in ax.get_xticklabels():
            label.set_horizontalalignment("right")

    return render(draw)


def test_each_slanted_label_names_its_own_bar() -> None:
    chart = parse_chart(_routes())
    assert chart.categories == list(ROUTES)
    for name, value in ROUTES.items():
        assert chart.table[name]["value"] == pytest.approx(value, abs=1.5)


def test_the_lowest_bar_is_named_by_its_own_label(tmp_path) -> None:  # noqa: ANN001 - pytest's tmp_path
    from agents.config import Settings
    from agents.runtime import Maestro

    run = Maestro.open(Settings.resolve(data_dir=tmp_path)).ask(_routes(), "which bus route is the least punctual")
    assert (run.status, run.answer) == ("done", "40 Riverside")


EPISODES = {"Ep 1: Why We Started This Podcast": 12480, "Ep 2: Interview with a Beekeeper": 9315,
            "Ep 3: The Great Sourdough Disaster": 15702, "Ep 4: Listener Questions Special": 7860,
            "Ep 5: Behind the Scenes at a Radio Station": 11045, "Ep 6: Our Trip to the Lake District": 13590}


def test_long_slanted_labels_are_read_whole_not_cut_at_the_strip_read_again() -> None:
    # The labels' strip read again had ended 3.5 lines under the axis, and "Ep 4: Listener Questions Special" was
    # read "estions Special": the lowest episode was answered with a fragment of its name.
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        bars = ax.bar(list(EPISODES), list(EPISODES.values()), color="#3d5a80")
        ax.bar_label(bars, labels=[f"{v:,}" for v in EPISODES.values()], padding=3)
        ax.set_ylabel("Downloads (first 30 days)")
        ax.set_title("Kitchen Table Chats podcast - downloads per episode")
        ax.tick_params(axis="x", labelrotation=35)
        for label in ax.get_xticklabels():
            label.set_horizontalalignment("right")

    from skills.chart.skill import answer_from_table

    chart = parse_chart(render(draw))
    assert "Ep 4: Listener Questions Special" in chart.categories, chart.categories
    assert answer_from_table(chart, "which ep got the fewest downloads")[0] == "Ep 4: Listener Questions Special"
