"""Multiple choice whose options only name the chart's categories is answered by the open question's look-up,
mapped to the option naming what it finds (round 18 of new users' questions abstained on both kinds below):

- "Which is the smallest slice? A) Weather B) Air traffic control …", options shortening the legend's long labels;
- "Which hospital has the 2nd shortest wait? A) Northgate …", a rank.

An option that names no category, or two options naming one, leave the question unanswered.
"""

from __future__ import annotations

import pytest
from PIL import Image

from agents.config import Settings
from agents.runtime import Maestro
from skills.chart.named_options import category_named, option_naming
from tests.test_answers_as_asked import render

CAUSES = {"Late-arriving aircraft": 39, "Carrier issues (crew, maintenance)": 30,
          "Air traffic control / airspace": 22, "Weather": 6, "Security": 3}
WAITS = {"Northgate": 52, "Lakeview": 45, "Cedar Park": 31, "St. Mary's": 38, "Mercy West": 61}


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


@pytest.fixture(scope="module")
def delay_causes() -> Image.Image:
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        ax.pie(list(CAUSES.values()), colors=["#264653", "#2a9d8f", "#e9c46a", "#f4a261", "#e76f51"],
               startangle=90, counterclock=False, wedgeprops={"width": 0.35, "edgecolor": "white"})
        ax.legend(list(CAUSES), loc="center left", bbox_to_anchor=(0.92, 0.5), frameon=False, fontsize=9)
        ax.set_title("Why flights were delayed, 2023")

    return render(draw)


@pytest.fixture(scope="module")
def waits() -> Image.Image:
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        bars = ax.bar(list(WAITS), list(WAITS.values()), color="#457b9d")
        ax.bar_label(bars, labels=[f"{v} min" for v in WAITS.values()])
        ax.set_title("Median ER wait by hospital")

    return render(draw)


def test_options_shortening_the_legend_name_its_categories() -> None:
    categories = list(CAUSES)
    assert category_named("Air traffic control", categories) == "Air traffic control / airspace"
    assert category_named("carrier issues", categories) == "Carrier issues (crew, maintenance)"
    assert category_named("Weather.", categories) == "Weather"
    assert category_named("Snow", categories) is None
    options = {"A": "Weather", "B": "Air traffic control", "C": "Carrier issues", "D": "Security"}
    assert option_naming(options, categories, "Security") == "D"
    assert option_naming({**options, "E": "Snow"}, categories, "Security") is None  # E names nothing shown
    assert option_naming({"A": "Weather", "B": "weather"}, categories, "Weather") is None  # two name one


def test_the_smallest_slice_is_the_option_naming_it(maestro: Maestro, delay_causes: Image.Image) -> None:
    run = maestro.ask(delay_causes, "Which is the smallest slice? A) Weather B) Air traffic control "
                                    "C) Carrier issues D) Security")
    assert (run.status, run.answer) == ("done", "D")


def test_a_rank_is_the_option_naming_it(maestro: Maestro, waits: Image.Image) -> None:
    run = maestro.ask(waits, "Which hospital has the 2nd shortest wait? A) Northgate B) Lakeview C) St. Mary's "
                             "D) Mercy West")
    assert (run.status, run.answer) == ("done", "C")


def test_options_naming_what_the_chart_does_not_show_get_no_letter(maestro: Maestro, waits: Image.Image) -> None:
    run = maestro.ask(waits, "Which hospital has the shortest wait? A) Northgate B) Riverside General "
                             "C) Lakeview")
    assert run.status == "abstained" and run.answer is None, run.answer


def test_the_extreme_of_the_options_is_not_the_charts_when_it_is_not_offered(maestro: Maestro,
                                                                             waits: Image.Image) -> None:
    # Cedar Park (31) has the shortest wait and no option offers it; Riverside is not on the chart.
    run = maestro.ask(waits, "Which hospital has the lowest wait? A) Northgate B) Riverside C) Lakeview "
                             "D) St. Mary's")
    assert run.status == "abstained" and run.answer is None, run.answer
