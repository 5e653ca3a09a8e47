"""Yes/No questions that hold one value of a chart against a number the question states.

"did the conservatory crack 1 million visitors?" over a label "1.02M" had been answered with the value
("1020000"), which is not Yes or No, so the run abstained. The number is read in the chart's own unit, and where
the two cannot be put on one scale, or a measured bar sits on the limit, there is no answer.
"""

from __future__ import annotations

import pytest
from PIL import Image

from agents.config import Settings
from agents.runtime import Maestro
from skills.chart.thresholds import against_a_number
from tests.test_answers_as_asked import render
from vision_tools.charts import ChartMark, ChartResult, parse_chart
from vision_tools.image.boxes import Box

MUSEUMS = {"Gallery": 2_410_000, "Science Centre": 1_650_000, "History Museum": 1_180_000,
           "Conservatory": 1_020_000, "Harbour Museum": 870_000, "Railway Museum": 415_000}
BEDS = {"Central City": 42, "Westbrook": 27, "Lakeshore": 35, "Southern Hills": 19}


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


def _short(value: int) -> str:
    return f"{value / 1e6:.2f}M" if value >= 1e6 else f"{value // 1000}k"


@pytest.fixture(scope="module")
def labelled_in_millions() -> Image.Image:
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        bars = ax.barh(list(MUSEUMS), list(MUSEUMS.values()), color="#6a4c93")
        ax.bar_label(bars, labels=[_short(v) for v in MUSEUMS.values()], padding=3)
        ax.set_xticks([0, 500_000, 1_000_000, 1_500_000, 2_000_000, 2_500_000],
                      ["0", "500k", "1.0M", "1.5M", "2.0M", "2.5M"])
        ax.invert_yaxis()
        ax.set_title("Museum visitors in 2023")

    return render(draw)


@pytest.fixture(scope="module")
def in_thousands() -> Image.Image:
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        values = [v // 1000 for v in MUSEUMS.values()]
        bars = ax.bar(list(MUSEUMS), values, color="#1982c4")
        ax.bar_label(bars, labels=[f"{v:,}" for v in values])
        ax.set_ylabel("Visitors (thousands)")
        ax.set_title("Museum visitors in 2023")
        ax.tick_params(axis="x", labelsize=8)

    return render(draw)


@pytest.fixture(scope="module")
def unlabelled() -> Image.Image:
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        ax.bar(list(BEDS), list(BEDS.values()), color="#2a9d8f")
        ax.set_yticks(range(0, 50, 10))
        ax.grid(axis="y", alpha=0.4)
        ax.set_ylabel("Staffed beds per 10,000 residents")
        ax.set_title("Hospital beds by district")

    return render(draw)


@pytest.mark.parametrize(("question", "answer"), [
    ("did the conservatory crack 1 million visitors?", "Yes"),
    ("was the railway museum above 500k visitors", "No"),
    ("Did the history museum have fewer than 1.2 million visitors?", "Yes"),
    ("did the harbour museum get at least 900k visitors?", "No"),
])
def test_a_labelled_value_against_a_number_with_its_scale(maestro: Maestro, labelled_in_millions: Image.Image,
                                                          question: str, answer: str) -> None:
    run = maestro.ask(labelled_in_millions, question)
    assert (run.status, run.answer) == ("done", answer), run.reason


def test_a_million_over_an_axis_titled_in_thousands(maestro: Maestro, in_thousands: Image.Image) -> None:
    # The axis title "Visitors (thousands)" is turned on its side; read upright, it puts 1,020 at 1,020,000.
    run = maestro.ask(in_thousands, "did the conservatory get more than 1 million visitors?")
    assert (run.status, run.answer) == ("done", "Yes"), run.reason
    # A bare 600 over that axis: 600 visitors, or 600 thousand as the bars print it? Not said.
    run = maestro.ask(in_thousands, "Did the railway museum get more than 600 visitors?")
    assert run.status == "abstained" and run.answer is None, run.answer


def test_the_title_up_the_side_of_the_value_axis_is_read(in_thousands: Image.Image) -> None:
    assert "Visitors (thousands)" in parse_chart(in_thousands).texts


def test_numbers_not_on_the_chart_s_scale_are_not_compared() -> None:
    def chart(texts: list[str], values: dict[str, float]) -> ChartResult:
        marks = [ChartMark(name, "value", value, "label", Box(0, 0, 10, 10), printed=value)
                 for name, value in values.items()]
        return ChartResult(kind="bar", title="", series=["value"], categories=list(values),
                           texts=[*texts, *values], table={m.category: {"value": m.value} for m in marks},
                           marks=marks)

    shares = chart(["Share of sales", "0%", "20%", "40%"], {"Q3": 38.0, "Q4": 45.0})
    assert against_a_number(shares, "Is Q3 under 0.4?") == (None, None)  # a fraction, or 0.4 %?
    assert against_a_number(shares, "Is Q3 under 40%?")[0] == "Yes"
    billions = chart(["Revenue", "$0.0bn", "$1.0bn", "$2.0bn"], {"2021": 1.2e9, "2022": 1.62e9})
    assert against_a_number(billions, "Was 2022 revenue above $1,500?") == (None, None)  # $1,500 of $1.62bn?
    assert against_a_number(billions, "Was 2022 revenue above $1.5bn?")[0] == "Yes"


def test_an_axis_in_thousands_puts_a_million_on_its_own_scale() -> None:
    marks = [ChartMark(name, "value", value, "label", Box(0, 0, 10, 10), printed=value)
             for name, value in (("Conservatory", 1020.0), ("Harbour Museum", 870.0))]
    chart = ChartResult(kind="bar", title="Museum visitors in 2023 (thousands)", series=["value"],
                        categories=["Conservatory", "Harbour Museum"],
                        texts=["Museum visitors in 2023 (thousands)", "0", "500", "1000", "1,020", "870",
                               "Conservatory", "Harbour Museum"],
                        table={m.category: {"value": m.value} for m in marks}, marks=marks)
    assert against_a_number(chart, "did the conservatory get more than 1 million visitors?")[0] == "Yes"
    assert against_a_number(chart, "did the harbour museum get more than 1 million visitors?")[0] == "No"
    assert against_a_number(chart, "did the harbour museum get more than 900 visitors?") == (None, None)


def test_a_bare_number_over_an_axis_in_thousands_is_not_guessed(maestro: Maestro, in_thousands: Image.Image) -> None:
    # 900 visitors, or 900 thousand? The chart counts in thousands and the question does not say.
    run = maestro.ask(in_thousands, "did the harbour museum get more than 900 visitors?")
    assert run.status == "abstained" and run.answer is None, run.answer


def test_a_measured_bar_clearly_past_the_limit(maestro: Maestro, unlabelled: Image.Image) -> None:
    run = maestro.ask(unlabelled, "is central city above 40 beds per 10,000")
    assert (run.status, run.answer) == ("done", "Yes"), run.reason
    run = maestro.ask(unlabelled, "does southern hills have more than 25 beds per 10k residents?")
    assert (run.status, run.answer) == ("done", "No"), run.reason


@pytest.mark.parametrize("question", [
    "is westbrook above 27 beds per 10,000?",  # the bar ends on the limit: either side is a guess
    "is central city above 40% of the beds?",  # a percentage of counts
    "is lakeshore above 30 beds in 2019?",  # a year the chart does not show
])
def test_no_verdict_where_the_chart_cannot_settle_it(maestro: Maestro, unlabelled: Image.Image,
                                                    question: str) -> None:
    run = maestro.ask(unlabelled, question)
    assert run.status == "abstained" and run.answer is None, run.answer


@pytest.fixture(scope="module")
def monthly_temperature() -> Image.Image:
    temps = [-6.5, -4.0, -1.5, 4.5, 10.5, 14.6, 17.8, 17.0, 12.2, 6.0, 1.5, -3.0]
    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        ax.plot(months, temps, marker="o", color="#d62828")
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.set_yticks(range(-10, 25, 5))
        ax.grid(alpha=0.3)
        ax.set_ylabel("Mean temperature (°C)")
        ax.set_title("Mean monthly temperature, Valdoria 2023")

    return render(draw)


@pytest.mark.parametrize(("question", "answer"), [
    ("In how many months was the mean temperature below 0 °C?", "4"),  # Jan, Feb, Mar, Dec
    ("how many months were above 10 degrees", "5"),  # May to Sep, 10.5 to 17.8
    ("number of months below freezing?", "4"),
    ("how many months were above 17 degrees", None),  # 17.0 in Aug sits on the limit
])
def test_how_many_categories_lie_beyond_a_number(maestro: Maestro, monthly_temperature: Image.Image,
                                                 question: str, answer: str | None) -> None:
    run = maestro.ask(monthly_temperature, question)
    assert run.answer == answer, run.reason


def test_labels_in_millions_over_an_axis_in_millions() -> None:
    # "2.1M" and "870k" over ticks 0.25 … 2.00: the table holds 2.1 and 0.87, so each label says a unit is a million.
    marks = [ChartMark(name, "value", value, "label", Box(0, 0, 10, 10), measured=value, printed=printed)
             for name, value, printed in (("Paris", 2.1, 2.1e6), ("Rome", 0.87, 870e3), ("Berlin", 1.2, 1.2e6))]
    chart = ChartResult(kind="bar", title="Visitors 2023", series=["value"], categories=[m.category for m in marks],
                        texts=["Visitors 2023", "2.1M", "870k", "1.2M", "0.50", "1.00", "Paris", "Rome", "Berlin"],
                        table={m.category: {"value": m.value} for m in marks}, marks=marks)
    assert against_a_number(chart, "Did Paris get more than 2 million visitors?")[0] == "Yes"
    assert against_a_number(chart, "Did Rome have over 900k visitors?")[0] == "No"
    dollars = ChartResult(kind="bar", title="Revenue", series=["value"], categories=["2022"],
                          texts=["Revenue", "$1.62bn", "2022"], table={"2022": {"value": 1.62}},
                          marks=[ChartMark("2022", "value", 1.62, "label", Box(0, 0, 10, 10), measured=1.62,
                                           printed=1.62e9)])
    assert against_a_number(dollars, "Was 2022 revenue above $1.5bn?")[0] == "Yes"
    assert against_a_number(dollars, "Was 2022 revenue above €1.5bn?") == (None, None)  # euros of a chart in dollars


@pytest.mark.parametrize(("question", "answer"), [
    # The chart never prints "districts": a plural noun of things counts its categories.
    ("how many districts are above 30 beds?", "2"),  # Central City 42, Lakeshore 35
    ("how many bars are below 30?", "2"),
    # People are no categories of a chart of rates: which of them lie past 30 is not shown.
    ("how many residents are above 30 beds?", None),
    # Nor are months, over districts.
    ("how many months were above 30?", None),
])
def test_a_noun_the_chart_does_not_print_counts_its_categories(maestro: Maestro, unlabelled: Image.Image,
                                                              question: str, answer: str | None) -> None:
    run = maestro.ask(unlabelled, question)
    assert run.answer == answer, run.reason


@pytest.mark.parametrize(("question", "answer"), [
    ("first month the temperature hit 10 degrees or more", "May"),  # 10.5
    ("In which month did it first rise above 12 °C?", "Jun"),  # 14.6; May's 10.5 is below
    ("In which month did it first rise above 15 °C?", None),  # June's 14.6, measured, is too near 15 to call
    ("what was the first month above 17 degrees", "Jul"),  # 17.8; August's 17.0 on the limit comes after
])
def test_the_first_month_past_a_number(maestro: Maestro, monthly_temperature: Image.Image, question: str,
                                       answer: str | None) -> None:
    run = maestro.ask(monthly_temperature, question)
    assert run.answer == answer, run.reason


def test_the_first_month_of_months_sorted_by_value_is_not_read(maestro: Maestro) -> None:
    # Bars sorted by sales: "the first month above 300" is January by the calendar, not the leftmost bar (March).
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        months = {"Mar": 410, "Jul": 380, "Jan": 350, "Nov": 300, "May": 260, "Sep": 220}
        bars = ax.bar(list(months), list(months.values()), color="#6a4c93")
        ax.bar_label(bars)
        ax.set_title("Ticket sales by month, best first")

    run = maestro.ask(render(draw), "first month ticket sales went above 300")
    assert run.answer != "Mar", run.answer


@pytest.mark.parametrize(("question", "answer"), [
    ("how many tourists went to districts above 30?", None),  # tourists are no districts
    ("how many pupils got more than 30?", None),
    ("how many districts are above 30?", "2"),
])
def test_a_noun_for_people_counts_no_categories(maestro: Maestro, unlabelled: Image.Image, question: str,
                                                answer: str | None) -> None:
    assert maestro.ask(unlabelled, question).answer == answer
