"""Charts round 38 of new users' questions, each a class of chart or wording.

Wrong answers it found:
- "how many mm of rain does London get" over a chart of rainy days answered the days: units of two letters ("mm",
  "kg", "km") were never looked up among the chart's words;
- "how many minutes longer was the bus than the car on Thursday" answered the bus's time: a unit between "how many"
  and "longer" hid the difference, and one value was given for two series named;
- "the total weight in the middle of the donut? (A) 35.4 kg (B) 48.6 kg (C) 100 kg" chose C: a pie's slices sum to
  100 % by construction, which is no total of anything.

Unanswered questions it found: "hrs" over "Hours played", "bill" over spending, "what game did I play the most",
and a line chart with a dashed goal line, which had been read as a second series.
"""

from __future__ import annotations

import pytest
from PIL import Image

from agents.config import Settings
from agents.runtime import Maestro
from tests.test_answers_as_asked import render
from vision_tools.charts import parse_chart


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


def snowy_days() -> Image.Image:
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        bars = ax.bar(["Oslo", "Helsinki", "Riga", "Tallinn", "Vilnius"], [62, 81, 57, 66, 49], color="#5e81ac")
        ax.bar_label(bars)
        ax.set_ylabel("Snowy days per year")
        ax.set_title("Which capital gets the most snow?")

    return render(draw)


@pytest.mark.parametrize("question", ["how many mm of snow does riga get per year",
                                      "roughly how many cm of snow falls in oslo"])
def test_a_unit_of_two_letters_the_chart_does_not_print_is_not_answered(maestro: Maestro, question: str) -> None:
    run = maestro.ask(snowy_days(), question)
    assert run.status != "done", run.answer


def test_the_measure_the_chart_prints_is_still_answered(maestro: Maestro) -> None:
    run = maestro.ask(snowy_days(), "how many snowy days does riga get")
    assert (run.status, run.answer) == ("done", "57"), run.reason


def delivery_times() -> Image.Image:
    days = ["Mon", "Tue", "Wed", "Thu", "Fri"]

    def draw(ax) -> None:  # noqa: ANN001
        ax.plot(days, [30, 42, 36, 48, 33], marker="o", label="Courier")
        ax.plot(days, [20, 25, 22, 24, 18], marker="s", label="Drone")
        ax.set_yticks(range(0, 61, 10))
        ax.grid(axis="y")
        ax.set_ylabel("Delivery time (minutes)")
        ax.set_title("Average delivery time by day")
        ax.legend(loc="upper left")

    return render(draw)


def test_a_unit_between_how_many_and_longer_asks_a_difference(maestro: Maestro) -> None:
    run = maestro.ask(delivery_times(), "on thu how many minutes longer did the courier take than the drone?")
    assert (run.status, run.answer) == ("done", "24"), run.reason


@pytest.mark.parametrize("question", [
    "on thu how many minutes longer did the drone take than the courier?",  # the drone was the quicker
    "how long did the courier and the drone take on tuesday",  # two values asked, one answer
])
def test_one_value_of_two_series_named_is_no_answer(maestro: Maestro, question: str) -> None:
    run = maestro.ask(delivery_times(), question)
    assert run.status != "done", run.answer


def test_the_slices_of_a_pie_are_no_total_of_a_quantity(maestro: Maestro) -> None:
    def draw(ax) -> None:  # noqa: ANN001
        ax.pie([41.5, 30.2, 18.1, 10.2], labels=["Paper", "Glass", "Plastic", "Metal"], autopct="%.1f%%",
               wedgeprops={"width": 0.4})
        ax.text(0, 0, "Total\n212 kg", ha="center", va="center")
        ax.set_title("Recycling collected in March (share by weight)")

    run = maestro.ask(render(draw), "what's the total weight collected? (A) 41.5 kg (B) 212 kg (C) 100 kg")
    assert run.answer != "C"


def screen_time() -> Image.Image:
    def draw(ax) -> None:  # noqa: ANN001
        ax.bar(["Chess", "Tetris", "Zelda", "Mario Kart"], [12, 7, 26, 15], color="#4a7bb7")
        ax.set_yticks(range(0, 31, 5))
        ax.grid(axis="y")
        ax.set_ylabel("Hours played")
        ax.set_title("What we played over the holidays")

    return render(draw)


@pytest.mark.parametrize(("question", "expected"), [
    ("approx how many hrs of chess", "12"),
    ("what game did we play the most", "Zelda"),
])
def test_short_and_what_wordings(maestro: Maestro, question: str, expected: str) -> None:
    run = maestro.ask(screen_time(), question)
    assert (run.status, run.answer) == ("done", expected), run.reason


def test_bill_is_money_over_a_chart_of_spending(maestro: Maestro) -> None:
    def draw(ax) -> None:  # noqa: ANN001
        bars = ax.bar(["Jan", "Feb", "Mar", "Apr"], [182.4, 149.9, 171.2, 160.5], color="#6a994e")
        ax.bar_label(bars, fmt="$%.2f")
        ax.set_ylabel("Spent ($)")
        ax.set_title("Phone and internet")

    run = maestro.ask(render(draw), "which month was the bill highest")
    assert (run.status, run.answer) == ("done", "Jan"), run.reason


def test_a_dashed_goal_line_is_not_a_series() -> None:
    def draw(ax) -> None:  # noqa: ANN001
        weeks = [f"Wk {i}" for i in range(1, 9)]
        ax.plot(weeks, [3.1, 4.5, 2.2, 5.8, 4.9, 6.3, 3.7, 5.2], marker="o", color="#7b2cbf")
        ax.axhline(5, linestyle="--", color="#d62828")
        ax.text(7.0, 5.15, "Target: 5 km", color="#d62828")
        ax.set_ylabel("Distance run (km)")
        ax.set_title("Weekly running")

    chart = parse_chart(render(draw))
    assert len(chart.series) == 1
    assert chart.table["Wk4"][chart.series[0]] == pytest.approx(5.8, abs=0.3)  # OCR reads "Wk 4" as one word
    assert chart.doubts == []


@pytest.mark.parametrize("question", ["what does the y axis say", "whats the y-axis label?"])
def test_what_the_value_axis_says_is_its_title_as_printed(maestro: Maestro, question: str) -> None:
    run = maestro.ask(delivery_times(), question)
    assert (run.status, run.answer) == ("done", "Delivery time (minutes)"), run.reason


def test_the_y_axis_of_a_horizontal_bar_chart_holds_no_value_title(maestro: Maestro) -> None:
    def draw(ax) -> None:  # noqa: ANN001
        ax.barh(["Oak", "Pine", "Birch"], [31, 24, 18], color="#2a9d8f")
        ax.set_xlabel("Trees planted")
        ax.set_ylabel("Species")
        ax.set_title("Spring planting")

    run = maestro.ask(render(draw), "what does the y axis say")
    assert run.answer != "Trees planted"


def clinic() -> Image.Image:
    def draw(ax) -> None:  # noqa: ANN001
        bars = ax.bar(["Jan", "Feb", "Mar", "Apr"], [132, 118, 150, 140], color="#577590")
        ax.bar_label(bars)
        ax.set_ylabel("Surgeries")
        ax.set_title("Surgeries per month")

    return render(draw)


@pytest.mark.parametrize(("question", "wrong"), [
    ("did surgeries go down from mar to apr?", "No"),  # "surgeries" is no verb of rising
    ("how many surgeries were done from feb to mar", "32"),  # a count over two months, not a change
])
def test_a_noun_is_not_read_as_a_rise(maestro: Maestro, question: str, wrong: str) -> None:
    assert maestro.ask(clinic(), question).answer != wrong


def test_what_revenue_asks_for_a_value_not_a_region(maestro: Maestro) -> None:
    def draw(ax) -> None:  # noqa: ANN001
        bars = ax.bar(["North", "South", "East"], [410, 655, 380], color="#90be6d")
        ax.bar_label(bars)
        ax.set_title("Revenue by region ($k)")

    assert maestro.ask(render(draw), "what revenue did the biggest region have").answer != "South"
