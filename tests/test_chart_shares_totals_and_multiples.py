"""Charts asked about in ways round 17 of new users' questions found unsafe or unread:

- a count of things ("how many phones did Apex ship?") over a pie of market shares is no share;
- options typed in lower case ("a) 18% b) 22%") are options, answered by letter;
- a measure named before "from" ("the revenue from Laptop Pro") must be printed;
- "how much did it grow from January to December" where January went unread is no look-up of December;
- "more than double" compares with twice the other value;
- a total of labels printed "€412k" is written as they are, or in the scale the question asks;
- labels printed inside the end of horizontal bars are their values.
"""

from __future__ import annotations

import pytest
from PIL import Image

from agents.config import Settings
from agents.runtime import Maestro
from tests.test_answers_as_asked import render

SHARES = {"Apex": 27, "Nova": 22, "Orbit": 18, "Zenit": 13, "Lumo": 8, "Others": 12}
SALES = {"Aero Kettle": 412, "Brew Pro": 386, "CityBlend": 254, "DuoToast": 198, "EcoPress": 471}


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


@pytest.fixture(scope="module")
def market_shares() -> Image.Image:
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        ax.pie(list(SHARES.values()), colors=["#e63946", "#457b9d", "#f4a261", "#2a9d8f", "#a8dadc", "#adb5bd"],
               autopct="%d%%", startangle=90, counterclock=False, wedgeprops={"edgecolor": "white"})
        ax.legend(list(SHARES), loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
        ax.set_title("Smartphone Shipments - Market Share, Q4")

    return render(draw)


@pytest.fixture(scope="module")
def product_sales() -> Image.Image:
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        names = list(SALES)[::-1]
        bars = ax.barh(names, [SALES[n] for n in names], color="#006d77")
        ax.bar_label(bars, labels=[f"€{SALES[n]}k" for n in names], label_type="edge", padding=-48, color="white",
                     fontweight="bold")
        ax.set_xticks([])
        for side in ("top", "right", "bottom"):
            ax.spines[side].set_visible(False)
        ax.set_title("Q3 Sales by Product (€ thousand)")

    return render(draw)


@pytest.mark.parametrize("question", ["How many phones did Apex ship in Q4?", "how many units did Nova sell"])
def test_a_count_is_not_read_off_a_pie_of_shares(maestro: Maestro, market_shares: Image.Image,
                                                 question: str) -> None:
    run = maestro.ask(market_shares, question)
    assert run.status == "abstained" and run.answer is None, run.answer


def test_options_in_lower_case_are_answered_by_letter(maestro: Maestro, market_shares: Image.Image) -> None:
    run = maestro.ask(market_shares, "what share does Nova hold? a) 18% b) 22% c) 27% d) 12%")
    assert run.answer in (None, "B"), run.answer  # never "22%": the question offers letters
    share = maestro.ask(market_shares, "What is Orbit's market share?")
    assert (share.status, share.answer) == ("done", "18%"), share.reason


def test_values_printed_inside_horizontal_bars(maestro: Maestro, product_sales: Image.Image) -> None:
    value = maestro.ask(product_sales, "duotoast sales?")
    assert (value.status, value.answer) == ("done", "€198k"), value.reason
    best = maestro.ask(product_sales, "Which product had the highest Q3 sales?")
    assert (best.status, best.answer) == ("done", "EcoPress"), best.reason


@pytest.mark.parametrize(("question", "expected"), [
    ("What were total Q3 sales across all five products, in € thousand?", "1721"),
    ("total sales of aero kettle and brew pro", "€798k"),
])
def test_a_total_of_scaled_labels_keeps_their_scale(maestro: Maestro, product_sales: Image.Image, question: str,
                                                    expected: str) -> None:
    run = maestro.ask(product_sales, question)
    assert (run.status, run.answer) == ("done", expected), run.reason


def test_a_measure_named_before_from_must_be_printed(maestro: Maestro, product_sales: Image.Image) -> None:
    run = maestro.ask(product_sales, "What was the revenue from Brew Pro in Q3?")
    assert run.status == "abstained", run.answer
    assert "revenue" in (run.reason or ""), run.reason


@pytest.fixture(scope="module")
def two_lines() -> Image.Image:
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        years = ["2019", "2020", "2021", "2022", "2023"]
        ax.plot(years, [5.8, 9.7, 15.8, 23.2, 30.4], color="tab:red", marker="o", label="Battery electric")
        ax.plot(years, [8.2, 10.9, 13.7, 15.3, 16.8], color="tab:blue", marker="s", label="Hybrid")
        ax.set_yticks(range(0, 36, 5))
        ax.legend()
        ax.set_title("Share of new car sales (%)")

    return render(draw)


@pytest.mark.parametrize(("question", "expected"), [
    ("Was the battery electric share in 2023 more than double the hybrid share that year?", "No"),  # 30.4 < 33.6
    ("Was the battery electric share in 2023 more than triple that in 2019?", "Yes"),  # 30.4 > 17.4
])
def test_more_than_double_compares_with_twice_the_other(maestro: Maestro, two_lines: Image.Image, question: str,
                                                        expected: str) -> None:
    run = maestro.ask(two_lines, question)
    assert (run.status, run.answer) == ("done", expected), run.reason


def test_a_month_the_chart_does_not_show_is_not_dropped(maestro: Maestro) -> None:
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        months = ["Mar", "Apr", "May", "Jun", "Jul", "Aug"]
        ax.bar(months, [2.6, 2.6, 2.8, 3.0, 3.2, 3.2], color="tab:green")
        ax.set_title("Monthly active users (million)")

    image = render(draw)
    # "from January to August": January is not on the chart, so the answer is not August's value.
    run = maestro.ask(image, "By how much did monthly active users grow from January to August?")
    assert run.status == "abstained", run.answer
    assert "January" in (run.reason or ""), run.reason


@pytest.fixture(scope="module")
def grey_panel_line() -> Image.Image:
    """A seaborn-like line: white gridlines on a grey panel, no axis lines, no flat colour areas."""
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        ax.plot(months, [5.1, 5.4, 7.8, 10.2, 13.4, 16.3, 18.6, 18.2, 15.6, 12.4, 8.4, 5.9], color="tab:blue")
        ax.set_facecolor("#eaeaf2")
        ax.grid(color="white", linewidth=1.2)
        for side in ax.spines.values():
            side.set_visible(False)
        ax.set_title("Average monthly temperature (°C)")

    return render(draw)


def test_a_chart_with_gridlines_and_no_axis_lines_is_taken_for_a_chart(maestro: Maestro,
                                                                      grey_panel_line: Image.Image) -> None:
    # Its look scored 0.3 (no axes, no flat colour areas), so a question naming no chart word went to OCR alone.
    run = maestro.ask(grey_panel_line, "which month is the warmest on average")
    assert (run.status, run.answer) == ("done", "Jul"), run.reason
    when = maestro.ask(grey_panel_line, "When was it coldest?")
    assert (when.status, when.answer) == ("done", "Jan"), when.reason


@pytest.mark.parametrize(("question", "expected"), [
    ("which product had the second lowest sales", "CityBlend"),  # 254 after 198, before 386
    ("Which product sold the 2nd most?", "Aero Kettle"),
    # Asked by its rank without "which"
    ("2nd highest selling product?", "Aero Kettle"),
    ("the product with the 2nd lowest sales", "CityBlend"),
    ("name the product ranked 2nd", "Aero Kettle"),
])
def test_a_rank_other_than_the_first_when_clear_on_both_sides(maestro: Maestro, product_sales: Image.Image,
                                                            question: str, expected: str) -> None:
    run = maestro.ask(product_sales, question)
    assert (run.status, run.answer) == ("done", expected), run.reason


def test_a_share_is_what_a_pie_measures_and_is_given_in_percent(maestro: Maestro,
                                                                market_shares: Image.Image) -> None:
    run = maestro.ask(market_shares, "what proportion of the market is Zenit's")
    assert (run.status, run.answer) == ("done", "13%"), run.reason


@pytest.mark.parametrize(("question", "expected"), [
    ("Was the hybrid share ever higher than battery electric?", "Yes"),  # 2019 and 2020
    ("was battery electric higher than hybrid in every year", "No"),
    ("Was battery electric always above 5?", None),  # a threshold, not the other line: not this comparison
])
def test_ever_and_every_compare_two_lines_over_all_categories(maestro: Maestro, two_lines: Image.Image,
                                                              question: str, expected: str | None) -> None:
    run = maestro.ask(two_lines, question)
    assert run.answer == expected, run.reason


def test_slowest_is_the_lowest_speed_but_not_the_lowest_time(maestro: Maestro) -> None:
    def times(ax) -> None:  # noqa: ANN001 - matplotlib axes
        ax.bar(["Berlin", "Madrid", "Rome", "Vienna"], [26.4, 31.8, 35.2, 19.6], color="#264653")
        ax.set_title("Average parcel delivery time (hours)")

    def speeds(ax) -> None:  # noqa: ANN001 - matplotlib axes
        ax.bar(["Alto", "Brio", "Corsa", "Dart"], [182, 224, 205, 167], color="#e76f51")
        ax.set_title("Top speed (km/h)")

    # "The slowest deliveries" took the shortest time for the slowest: Vienna, where Rome was meant.
    slow = maestro.ask(render(times), "Which city has the slowest deliveries?")
    assert slow.status == "abstained" and slow.answer is None, slow.answer
    fast = maestro.ask(render(speeds), "which car is the fastest")
    assert (fast.status, fast.answer) == ("done", "Brio"), fast.reason


@pytest.fixture(scope="module")
def books_by_month() -> Image.Image:
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        bars = ax.bar(["Sep", "Oct", "Nov", "Dec", "Jan", "Feb", "Mar"], [28, 41, 33, 27, 35, 30, 46], color="tab:blue")
        ax.bar_label(bars)
        ax.set_title("Books read by Class 4B")

    return render(draw)


def test_which_pupil_is_not_answered_with_a_month(maestro: Maestro, books_by_month: Image.Image) -> None:
    pupil = maestro.ask(books_by_month, "Which pupil in Class 4B read the most books?")
    assert pupil.status == "abstained" and pupil.answer is None, pupil.answer
    month = maestro.ask(books_by_month, "In which month did Class 4B read the most books?")
    assert (month.status, month.answer) == ("done", "Mar"), month.reason


def test_a_percentage_is_not_read_off_a_chart_of_other_values(maestro: Maestro, books_by_month: Image.Image) -> None:
    run = maestro.ask(books_by_month, "what percentage of the class read books in October?")
    assert run.status == "abstained" and run.answer is None, run.answer


def test_a_difference_of_labels_in_millions_keeps_their_scale(maestro: Maestro) -> None:
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        cities = {"Chicago": 42.7, "Denver": 18.3, "Austin": 25.9, "Seattle": 37.1}
        bars = ax.bar(list(cities), list(cities.values()), color="#1d3557")
        ax.bar_label(bars, labels=[f"${v}M" for v in cities.values()])
        ax.set_yticks(range(0, 50, 10), labels=[f"${v}M" for v in range(0, 50, 10)])
        ax.set_title("Q3 revenue by city")

    # The labels are in the table in the axis's millions: the difference had been written "$0M".
    run = maestro.ask(render(draw), "By how much did Seattle's Q3 revenue exceed Austin's?")
    assert (run.status, run.answer) == ("done", "$11.2M"), run.reason


def test_a_period_the_chart_does_not_show_is_not_answered_from_the_one_it_does(maestro: Maestro,
                                                                             product_sales: Image.Image) -> None:
    # The chart is of Q3 ("Q3 Sales by Product"): Q2 is nowhere on it.
    q2 = maestro.ask(product_sales, "what were brew pro sales in Q2")
    assert q2.status == "abstained" and "Q2" in (q2.reason or ""), q2.answer
    q3 = maestro.ask(product_sales, "what were brew pro sales in Q3")
    assert (q3.status, q3.answer) == ("done", "€386k"), q3.reason


def test_an_amount_is_not_read_off_a_pie_of_shares(maestro: Maestro) -> None:
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        shares = {"Rent": 38, "Groceries": 14, "Transport": 9, "Savings": 15, "Other": 24}
        ax.pie(list(shares.values()), labels=[f"{k}\n{v}%" for k, v in shares.items()], startangle=90,
               counterclock=False, wedgeprops={"width": 0.4})
        ax.text(0, 0, "€2,400", ha="center", fontsize=18)
        ax.set_title("Where my money went in March")

    image = render(draw)
    cost = maestro.ask(image, "how much did rent cost in March?")  # €912, which the pie does not print
    assert cost.status == "abstained" and cost.answer is None, cost.answer
    february = maestro.ask(image, "what share went to rent in February?")
    assert february.status == "abstained", february.answer
    share = maestro.ask(image, "how much of the money went to rent")
    assert (share.status, share.answer) == ("done", "38%"), share.reason


def test_how_many_of_the_people_asks_a_number_of_them_not_their_share(maestro: Maestro) -> None:
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        shares = {"Car": 41, "Bus": 22, "Bike": 15, "Walk": 13, "Train": 9}
        ax.pie(list(shares.values()), labels=[f"{k}\n{v}%" for k, v in shares.items()], startangle=90,
               counterclock=False)
        ax.set_title("How staff get to work (n = 200)")

    image = render(draw)
    people = maestro.ask(image, "how many of the people surveyed take the train?")  # 18 of 200, not "9"
    assert people.answer is None, people.answer
    staff = maestro.ask(image, "how many of the staff bike to work")
    assert staff.answer is None, staff.answer
    share = maestro.ask(image, "what percent of staff take the bus?")
    assert (share.status, share.answer) == ("done", "22%"), share.reason


@pytest.mark.parametrize("question", [
    "where will the share of battery electric be in 2024?",  # a forecast: the chart records what was
    "In which year did hybrid sales begin to slow down?",  # a category, which no look-up of a value names
    "What was the battery electric profit margin in 2023?",  # a measure of more words than one, not printed
])
def test_questions_the_table_does_not_answer_are_not_answered_with_a_value(maestro: Maestro, two_lines: Image.Image,
                                                                          question: str) -> None:
    run = maestro.ask(two_lines, question)
    assert run.status == "abstained" and run.answer is None, run.answer


def test_a_product_code_before_the_measure_does_not_hide_it(maestro: Maestro) -> None:
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        bars = ax.bar(["SKU-114", "SKU-207", "SKU-319"], [1400, 890, 1210], color="tab:green")
        ax.bar_label(bars)
        ax.set_title("Units sold in Q2")

    run = maestro.ask(render(draw), "What was SKU-114's revenue in Q2 in dollars?")
    assert run.status == "abstained" and "revenue" in (run.reason or ""), run.answer
