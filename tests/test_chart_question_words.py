"""Every word of a question about a chart is accounted for by what the chart prints, or no value of it answers.

Rules for one wording at a time ("how many X", "the most X", "X vs Y") were each outrun by the next user's wording:
"the average weekend ridership", "which docking station", "a kilo of coffee". ``unexplained_words`` asks it of
every word; the chart skill then withholds the answer and names the word.
"""

from __future__ import annotations

import pytest

from skills.chart.measure import unprinted_measure
from skills.chart.question_words import unexplained_words
from vision_tools.charts import ChartResult


def _chart(title: str, value_title: str, categories: list[str], series: list[str] | None = None,
           texts: list[str] | None = None) -> ChartResult:
    series = series or ["value"]
    table = {s: {c: 10.0 + i for i, c in enumerate(categories)} for s in series}
    return ChartResult(kind="bar", title=title, value_title=value_title, categories=categories,
                       series=series if len(series) > 1 else [], table=table,
                       texts=[title, value_title, *(texts or []), *categories])


ROUTES = _chart("Average route length per van per day", "Route length (km)", ["Team North", "Team South", "Team East"])
RIDERSHIP = _chart("Weekday trips by line, 2023", "Trips (thousands)", ["Line 1", "Line 2", "Line 3"])
MONTHS = _chart("Bike hire trips by month", "Trips", ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul"])
PRICES = _chart("Coffee price per kg (€)", "€ per kg", ["Germany", "France", "Spain"], texts=["€10", "€15", "€20"])
USERS = _chart("FitTrack monthly active users", "Users (millions)", ["2019", "2020", "2021"])
SURVEY = _chart("How staff get to work (n=200)", "Respondents", ["Car", "Bus", "Bike", "Walk"])


@pytest.mark.parametrize(("chart", "question", "words"), [
    (ROUTES, "how many parcels does team north deliver a day?", ["parcels", "deliver"]),
    (RIDERSHIP, "whats the average weekend ridership on line 3?", ["weekend", "ridership"]),
    (MONTHS, "which docking station was the most popular one?", ["docking", "station"]),
    (PRICES, "how much did the coffee farmers earn in Spain?", ["farmers"]),
    (USERS, "how much revenue did fittrack make from premium subscriptions in 2021?",
     ["revenue", "premium", "subscriptions"]),
    (SURVEY, "whats the avg commute time for people who take the bus", ["commute"]),
    (ROUTES, "which route carried the most cars?", ["carried", "cars"]),
    (RIDERSHIP, "how many of the line 3 trips came back late", ["late"]),  # a status, not a time
    (MONTHS, "how many early bookings in march?", ["early", "bookings"]),
])
def test_a_thing_the_chart_does_not_print_is_named(chart: ChartResult, question: str, words: list[str]) -> None:
    assert unexplained_words(chart, question) == words


@pytest.mark.parametrize(("chart", "question"), [
    # Typed slips, chat and the words of any question about a chart.
    (ROUTES, "hey can u tell me the route lenght for team north?"),
    (ROUTES, "which team drives the furthest per day"),  # a distance, which the chart is in
    (ROUTES, "whats the difference between team north and team south, roughly"),
    (MONTHS, "busiest month for the bikes? and was it more than double january"),
    (MONTHS, "did trips go up every single month from jan to jul?"),
    (PRICES, "which country had the cheapest coffee, and is it under 15 euros?"),  # money over "€"
    (PRICES, "what did a kilogram cost in france"),
    (USERS, "how many MAU did FitTrack have in 2020, in millions?"),  # initials of "monthly active users"
    (USERS, "in which year did the users first pass 2 million?"),
    (SURVEY, "how many people answered the survey"),  # people over respondents, n=200
    (SURVEY, "whats the second most common way to get to work?"),
    (SURVEY, "which mode is the least popular?"),
    (MONTHS, "were trips higher in late march or early in the year"),  # "late", "early" in a time
])
def test_the_words_of_a_question_the_chart_answers_are_all_accounted_for(chart: ChartResult, question: str) -> None:
    assert unexplained_words(chart, question) == []


def test_a_kind_of_thing_names_the_categories_only_when_they_are_not_times() -> None:
    assert unexplained_words(ROUTES, "which team had the shortest route?") == []
    assert unexplained_words(MONTHS, "which team had the most trips?") == ["team"]


def test_a_measure_word_is_accounted_for_only_over_that_measure() -> None:
    assert unexplained_words(PRICES, "which is the most expensive country?") == []
    assert unexplained_words(ROUTES, "which is the most expensive team?") == ["expensive"]
    assert unexplained_words(ROUTES, "which team is the hottest?") == ["hottest"]


def test_a_measure_typed_with_a_slip_is_the_measure_printed() -> None:
    admissions = _chart("Ward 7B admissions per month, 2023", "Admissions", ["Jan", "Feb", "Mar"])
    assert unprinted_measure(admissions, "roughly how many admisions did ward 7B have in march?") is None
    assert unexplained_words(admissions, "roughly how many admisions did ward 7B have in march?") == []
    assert unprinted_measure(admissions, "how many patients did ward 7B discharge in march?") is not None


def test_what_before_a_measure_names_no_kind_of_category() -> None:
    gym = _chart("Gym class attendance, Jan-Jun", "Attendees", ["Yoga", "Spin", "Pilates"])
    assert unexplained_words(gym, "which class had the most attendees?") == []
    assert unexplained_words(gym, "what revenue did spin make in april?") == ["revenue"]
