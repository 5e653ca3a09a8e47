"""Questions round 22 of new users asked of charts that do not answer them, which had been answered anyway:

- "which docking station was the most popular one?" over monthly trips had been "Jul": the chart's categories are
  months, not stations;
- "how many points did Rovers have after matchweek 10?" over league positions had been "1" (its position);
- "how much does a household in Spain pay for gas per year?" over electricity bills had been "€1,180";
- "did City get better or worse over these 10 weeks?" had been answered "18": the question offers two words.
"""

from __future__ import annotations

import pytest

from skills.answer_form import answer_form
from skills.chart.measure import unprinted_measure
from skills.chart.names import asks_for_another_kind, names_the_categories, norm
from vision_tools.charts import ChartResult

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul"]


def _chart(title: str, categories: list[str], series: list[str] | None = None,
           texts: list[str] | None = None) -> ChartResult:
    names = series or ["value"]
    return ChartResult(kind="line" if series else "bar", title=title, series=names, categories=categories,
                       texts=[title, *(texts or []), *categories],
                       table={c: {s: float(i + j) for j, s in enumerate(names)} for i, c in enumerate(categories)})


@pytest.mark.parametrize(("question", "other"), [
    ("which docking station was the most popular one?", True),
    ("busiest month for the bikes? which month", False),
    ("which month had the most trips", False),
    ("In the line chart, which category has the highest value?", False),  # any chart's categories
    ("Which slice is the largest in the pie chart?", False),
])
def test_a_which_question_about_another_kind_of_thing(question: str, other: bool) -> None:
    trips = _chart("Bike-share trips per month, 2024", MONTHS)
    assert asks_for_another_kind(norm(question), trips) is other


def test_a_which_question_over_named_categories_is_theirs() -> None:
    cities = _chart("Trips by city", ["Leeds", "York", "Hull"])
    assert not asks_for_another_kind(norm("which station was the busiest?"), cities)


@pytest.mark.parametrize(("question", "missing"), [
    ("how many points did rovers have after matchweek 10?", "points"),
    ("By how many percentage points did Rovers fall?", None),
])
def test_points_are_a_measure_unless_of_percentages(question: str, missing: str | None) -> None:
    league = _chart("League position by matchweek", ["1", "2", "3"], ["Rovers", "City"], ["Position"])
    assert unprinted_measure(league, question) == missing


@pytest.mark.parametrize(("question", "missing"), [
    ("How much does an average household in Spain pay for gas per year?", "gas"),
    ("How much does a household in Spain pay for electricity?", None),
    ("how much do households in Spain pay per year?", None),
])
def test_what_money_is_paid_for_must_be_printed(question: str, missing: str | None) -> None:
    bills = _chart("Household electricity bills (€ per year)", ["Spain", "Germany"], texts=["€1.0k", "€2.0k"])
    assert unprinted_measure(bills, question) == missing


def test_two_opposite_words_inside_the_question_are_its_alternatives() -> None:
    assert answer_form("did City get better or worse over these 10 weeks?").alternatives == ("better", "worse")
    assert answer_form("Did unemployment rise or fall between January and July?").alternatives == ("rise", "fall")


def test_one_misread_month_keeps_the_categories_months() -> None:
    trips = _chart("Bike-share trips per month, 2024", ["okan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug"])
    assert asks_for_another_kind(norm("which docking station was the most popular one?"), trips)


def test_the_value_axis_title_names_what_is_counted_not_the_categories() -> None:
    # "how many pupils are shown altogether?" over "Number of pupils" by mode of travel asks for the total (26),
    # not for the number of bars (5).
    travel = _chart("How our class gets to school", ["Walk", "Car", "Bus", "Bike", "Scooter"],
                    texts=["Number of pupils"])
    travel.value_title = "Number of pupils"
    assert not names_the_categories("pupils", travel)
    assert names_the_categories("modes", _chart("Pupils by travel modes", ["Walk", "Car", "Bus"]))
