"""Charts asked about in ways round 19 of new users' questions answered wrongly:

- "how much does a ticket to the gallery cost?" over a chart of its visitors: money the chart does not print;
- "how many volunteers worked at the food bank?" over "Volunteer hours by program": the word is printed only as
  what the hours are of;
- "whats the average weekend ridership on line 3?" over weekday boardings: a measure named before "on";
- "were there more returns due to 'damaged or defective' than 'changed mind'?" is a Yes/No question: the "or" is
  inside a quoted name;
- a bar whose printed number disagrees with its height ("9,870" on a bar of 11,000) is read neither way;
- "Line 3" in the question names a category, not the kind of chart: a bar chart of tram lines is read as bars;
- "by how much did the fare rise?" asks a difference, not a price printed on the chart.
"""

from __future__ import annotations

import pytest
from PIL import Image

from agents.config import Settings
from agents.runtime import Maestro
from skills.answer_form import answer_form
from skills.chart.measure import unprinted_measure
from skills.document_questions import asks_a_difference
from tests.test_answers_as_asked import render
from vision_tools.charts import ChartResult

LINES = {"Line 1": 18450, "Line 2": 12300, "Line 3": 9870, "Line 4": 15120}


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


def _tram_lines(labels: dict[str, str]) -> Image.Image:
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        bars = ax.bar(list(LINES), list(LINES.values()), color="#2a9d8f")
        ax.bar_label(bars, labels=[labels.get(name, f"{value:,}") for name, value in LINES.items()])
        ax.set_ylabel("Boardings per weekday")
        ax.set_title("Average weekday tram boardings by line, 2023")

    return render(draw)


def _chart(title: str, texts: list[str]) -> ChartResult:
    return ChartResult(kind="hbar", title=title, series=["value"], categories=["Food bank", "Animal shelter"],
                       texts=[title, *texts, "Food bank", "Animal shelter"],
                       table={"Food bank": {"value": 3420.0}, "Animal shelter": {"value": 2300.0}})


@pytest.mark.parametrize(("title", "question", "missing"), [
    ("Museum visitors, 2024", "how much does a ticket to the food bank cost", "an amount of money"),
    ("Ticket prices, 2024", "how much does a ticket to the food bank cost", None),  # "price" printed, and "$"
    ("Sales by region (units)", "How much does the food bank cost?", "an amount of money"),  # units are sold too
    ("Volunteer hours by program", "how many volunteers worked at the food bank",
     "volunteers as a number (the chart gives volunteer hours)"),
    ("Volunteers by program", "how many volunteers worked at the food bank", None),
    ("Average weekday boardings", "whats the average weekend boardings on the food bank?", "weekend"),
])
def test_what_the_chart_does_not_measure(title: str, question: str, missing: str | None) -> None:
    texts = ["$0", "$2,000"] if "prices" in title.lower() else ["0", "2,000"]
    assert unprinted_measure(_chart(title, texts), question) == missing


def test_an_or_inside_quotes_names_no_alternative() -> None:
    form = answer_form("were there more returns due to 'damaged or defective' than 'changed mind'?")
    assert (form.kind, form.alternatives) == ("yesno", ())
    assert answer_form("is it red or blue?").alternatives == ("red", "blue")


@pytest.mark.parametrize(("question", "difference"), [
    ("by how much did the fare rise in total from 2015 to 2024", True),
    ("how much did the fare go up between 2015 and 2024?", True),
    ("what is the total?", False),
    ("how much was the bus fare in 2020?", False),
])
def test_a_change_is_a_difference_never_one_printed_value(question: str, difference: bool) -> None:
    assert asks_a_difference(question) is difference


def test_a_line_of_a_tram_network_is_a_bar_of_a_bar_chart(maestro: Maestro) -> None:
    run = maestro.ask(_tram_lines({}), "how many boardings on line 3?")
    assert (run.status, run.answer) == ("done", "9870")


def test_a_printed_number_at_odds_with_its_bar_is_read_neither_way(maestro: Maestro) -> None:
    run = maestro.ask(_tram_lines({"Line 3": "13,870"}), "how many boardings on line 3?")
    assert run.status == "abstained" and run.answer is None, run.answer


@pytest.mark.parametrize(("question", "missing"), [
    ("about how many sign ups were there on the food bank", None),  # printed "Sign-ups"
    ("about how many sign outs were there on the food bank", "outs"),
])
def test_a_measure_written_as_two_words_is_printed_as_one(question: str, missing: str | None) -> None:
    assert unprinted_measure(_chart("Daily sign-ups", ["0", "2,000"]), question) == missing
