"""Questions about the steps of a series, one category to the next: "did it ever go down?", "did it go up every
month?", "which month did the bill go down vs the month before?"."""

from __future__ import annotations

import pytest
from PIL import Image

from agents.config import Settings
from agents.runtime import Maestro
from tests.test_answers_as_asked import render
from tests.test_chart_wordings import bar_chart


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


def height_line(ages: list[str], heights: list[int]) -> Image.Image:
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        ax.plot(ages, heights, marker="o")
        for age, height in zip(ages, heights, strict=True):
            ax.annotate(str(height), (age, height), textcoords="offset points", xytext=(0, 8), ha="center")
        ax.set_title("Height by age (cm)")
        ax.set_xlabel("Age")

    return render(draw)


@pytest.mark.parametrize(("question", "expected"), [
    ("did her height ever go down", "No"),
    ("did she grow every year?", "Yes"),
    ("how much did she grow between age 4 and age 8", "25"),
])
def test_a_rising_line_never_went_down(maestro: Maestro, question: str, expected: str) -> None:
    image = height_line(["2", "3", "4", "5", "6", "7", "8"], [86, 95, 103, 110, 116, 122, 128])
    run = maestro.ask(image, question)
    assert (run.status, run.answer) == ("done", expected), run.reason


def test_the_one_month_reached_by_a_fall_is_named(maestro: Maestro) -> None:
    bills = bar_chart(["Jan", "Feb", "Mar", "Apr", "May"], [12400, 13150, 12980, 14620, 15300], "Cloud bill ($)",
                      labelled=True)
    assert maestro.ask(bills, "which month did the bill go down vs the month before").answer == "Mar"
    assert maestro.ask(bills, "did the bill drop at any point?").answer == "Yes"
    assert maestro.ask(bills, "did the bill go up every month").answer == "No"
    twice = bar_chart(["Jan", "Feb", "Mar", "Apr", "May"], [12, 10, 14, 11, 15], "Orders", labelled=True)
    assert maestro.ask(twice, "which month did orders go down").answer is None  # Feb and Apr: no one month


def test_bars_named_by_words_have_no_steps_and_unprinted_near_ties_are_not_called(maestro: Maestro) -> None:
    cities = bar_chart(["Leeds", "York", "Hull"], [30, 20, 25], "Rainy days", labelled=True)
    assert maestro.ask(cities, "did rainy days ever go down").answer is None  # no order from city to city
    # Unlabelled bars of 40 then 39.5 on a 0-50 axis: a step the eye cannot call, so "ever" cannot be denied.
    flat = bar_chart(["Jan", "Feb", "Mar", "Apr"], [30, 35, 40, 39.5], "Members", yticks=range(0, 51, 10))
    assert maestro.ask(flat, "did members ever go down?").answer is None
