"""Questions that name a group of the chart's categories: "at the weekend", "on weekdays", "which of Mon, Tue and
Wed". The group is read; before, "total minutes walked at the weekend" was the total of the whole week, and "which
of mon, tue and wed had the longest walk" named Saturday.
"""

from __future__ import annotations

import pytest

from skills.chart.category_groups import spell_out_day_groups
from skills.chart.skill import answer_from_table
from vision_tools.charts import ChartResult

MINUTES = {"Mon": 45.0, "Tue": 30.0, "Wed": 60.0, "Thu": 40.0, "Fri": 35.0, "Sat": 90.0, "Sun": 75.0}
WALKS = ChartResult(kind="bar", title="Dog walks this week", value_title="Minutes", series=["value"],
                    categories=list(MINUTES), texts=["Dog walks this week", "Minutes", *MINUTES],
                    table={day: {"value": v} for day, v in MINUTES.items()})


@pytest.mark.parametrize(("question", "answer"), [
    ("total minutes walked at the weekend", "165"),
    ("how many minutes on weekends combined", "165"),
    ("whats the average walk on weekdays", "42"),
    ("which of mon, tue and wed had the longest walk", "Wed"),
    ("out of the weekdays, which had the shortest walk", "Tue"),
    ("which day had the longest walk", "Sat"),  # no group named: the whole week
])
def test_the_days_a_question_names_are_the_days_read(question: str, answer: str) -> None:
    assert answer_from_table(WALKS, question)[0] == answer


def test_one_named_category_is_no_group_to_take_the_highest_of() -> None:
    # "which podcast had the most listeners in June" asks for a series within June, not for the highest month.
    assert answer_from_table(WALKS, "which walk was the longest on wed") == (None, None)


def test_a_chart_that_prints_weekend_keeps_its_own_names() -> None:
    split = ChartResult(kind="bar", title="Weekday vs weekend check-ins", series=["Weekday", "Weekend"],
                        categories=["Mon", "Tue"], texts=["Weekday vs weekend check-ins"],
                        table={"Mon": {"Weekday": 1.0, "Weekend": 2.0}, "Tue": {"Weekday": 3.0, "Weekend": 4.0}})
    assert spell_out_day_groups(split, "busiest at the weekend") == "busiest at the weekend"
    months = ChartResult(kind="bar", series=["value"], categories=["Jan", "Feb"], table={})
    assert spell_out_day_groups(months, "the weekend total") == "the weekend total"


def test_a_group_with_a_label_read_clipped_is_no_group_to_take_the_lowest_of() -> None:
    # "Matcha latte" read "atcha latte": the group named would be Espresso and Mocha only, and Espresso the fewest.
    cups = {"Espresso": 40.0, "atcha latte": 23.0, "Mocha": 55.0, "Chai latte": 31.0}
    chart = ChartResult(kind="bar", title="Cups sold", series=["value"], categories=list(cups),
                        texts=["Cups sold", *cups], table={c: {"value": v} for c, v in cups.items()})
    assert answer_from_table(chart, "which of espresso, matcha latte and mocha sold the fewest cups") == (None, None)
    assert answer_from_table(chart, "which of espresso, chai latte and mocha sold the fewest cups")[0] == "Chai latte"
