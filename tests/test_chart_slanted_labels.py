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
