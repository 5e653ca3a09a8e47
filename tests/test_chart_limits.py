"""Limits of a chart the tools can see, and the one option that states them (``skills/chart/limits.py``).

Charts here are built by hand as parse results (``ChartResult``), so each limit is traced to what the parser
reported: its texts, its warnings, the reason a chart was not read. The same code runs on real charts in
``test_chart_choices.py``.
"""

from __future__ import annotations

from skills.answer_form import answer_form
from skills.chart.choices import decide
from vision_tools.charts import ChartResult
from vision_tools.charts.result import ChartMark
from vision_tools.image.boxes import Box

INSTRUCTION = "Answer with the option's letter from the given choices directly."


def mc(stem: str, *options: str) -> str:
    return "\n".join([stem, *(f"{chr(65 + i)}. {o}" for i, o in enumerate(options)), INSTRUCTION])


def choose(chart: ChartResult, question: str) -> str | None:
    return decide(chart, question, answer_form(question)).letter


def unread(reason: str, *texts: str) -> ChartResult:
    """A chart whose values the parser could not read, with the texts it did read."""
    return ChartResult(None, reason=reason, texts=list(texts), shapes=["bars"])


TOTALS_MAP = unread("no pie, bars or lines", "Total CO2 Emissions by Country", "20,000", "15,000", "CO2 Emissions")


def test_a_rate_per_person_asked_of_a_map_of_totals_cannot_be_inferred() -> None:
    question = mc("Which labelled country has the highest CO2 emissions per person?", "A", "D",
                  "Cannot be inferred / inadequate information", "C")
    assert choose(TOTALS_MAP, question) == "C"


def test_a_rate_the_chart_itself_shows_is_not_a_limit() -> None:
    rates = unread("no pie, bars or lines", "Total CO2 emissions per capita", "20", "15", "tonnes per person")
    question = mc("Which labelled country has the highest CO2 emissions per person?", "A", "D",
                  "Cannot be inferred / inadequate information", "C")
    assert choose(rates, question) is None


def test_totals_asked_about_as_totals_are_no_limit() -> None:
    question = mc("Which labelled country has the highest total CO2 emissions?", "A", "D",
                  "Cannot be inferred / inadequate information", "C")
    assert choose(TOTALS_MAP, question) is None


def test_shares_of_a_100_percent_stack_do_not_give_amounts() -> None:
    stack = unread("stacked bars (segments of several colours piled on one another) are not read by the tools",
                   "Quarterly Engagement", "100.00%", "Page Views", "80.00%", "31.6%")
    question = mc("What can be concluded about Page Views over the year?",
                  "The share of Page Views rises, so their absolute number rises too.",
                  "The chart only shows each quarter's share of Page Views, so it does not reveal whether their "
                  "absolute number rises or falls.",
                  "Page Views are the same every quarter because every bar reaches 100%.")
    assert choose(stack, question) == "B"
    # Without the 100 % axis the stack shows amounts: the same option is no longer backed by anything seen.
    amounts = unread(stack.reason, "Quarterly Engagement", "400", "Page Views", "300")
    assert choose(amounts, question) is None


def test_partial_data_are_seen_even_when_the_values_cannot_be_read() -> None:
    stack = unread("stacked bars (segments of several colours piled on one another) are not read by the tools",
                   "Annual Campaign Performance (as of February 2024)", "Digital Ads", "70", "50")
    question = mc("What can we conclude about the latest year?",
                  "All channels clearly performed worse in the latest year.",
                  "We cannot make a valid statement about the latest year's full performance: the data cover only "
                  "its first weeks.", "Digital Ads has permanently lost effectiveness.")
    assert choose(stack, question) == "B"


def test_two_options_stating_limits_are_never_chosen_between() -> None:
    question = mc("Which labelled country has the highest CO2 emissions per person?", "A",
                  "Cannot be inferred from this map.", "There is not enough information to tell.")
    assert choose(TOTALS_MAP, question) is None


def printed(values: dict[str, float]) -> list[ChartMark]:
    """Marks whose values are printed on the chart (so read without an axis)."""
    return [ChartMark(c, "value", v, "label", Box(10 * i, 0, 10 * i + 8, 50), printed=v)
            for i, (c, v) in enumerate(values.items())]


def cut_off(*names: str, values: dict[str, float]) -> ChartResult:
    """A bar chart whose bars of ``names`` run past the top of the plot (the parser's warning, no value read)."""
    return ChartResult("bar", title="Tickets resolved per quarter", series=["value"], categories=list(values),
                       table={c: {"value": v} for c, v in values.items()}, marks=printed(values),
                       warnings=[f"{n}: clipped at the top of the plot (the value is beyond what is drawn)"
                                 for n in names], texts=["Tickets resolved per quarter"], shapes=["bars"])


def test_one_bar_cut_off_is_still_the_tallest_so_the_limit_does_not_settle_which_is_highest() -> None:
    chart = cut_off("Q3", values={"Q1": 30, "Q2": 85, "Q4": 60})
    highest = mc("In which quarter were the most tickets resolved?", "Q1", "Q2", "Q3",
                 "The chart cannot tell because a bar exceeds the plotted range")
    assert choose(chart, highest) is None  # never Q2 (Q3 is taller), never the limit (Q3 is the most)
    value = mc("How many tickets were resolved in Q3?", "100", "85", "60", "The chart cannot tell the exact number")
    assert choose(chart, value) == "D"


def test_two_bars_cut_off_cannot_be_ranked_against_each_other() -> None:
    chart = cut_off("2021", "2022", values={"2019": 30, "2020": 45})
    question = mc("Which statement is supported by the chart?", "2021 and 2022 had exactly the same revenue.",
                  "Revenue was highest in 2019.",
                  "It is not possible to tell whether 2021 or 2022 had the higher revenue.")
    assert choose(chart, question) == "C"


def test_a_sample_settles_what_happened_at_least_once_so_the_period_limit_gives_way() -> None:
    years = {str(y): v for y, v in zip(range(2015, 2021), [10, 12, 15, 14, 18, 21], strict=True)}
    chart = ChartResult("line", title="Bike rentals", series=["value"], categories=list(years),
                        table={c: {"value": v} for c, v in years.items()}, marks=printed(years),
                        texts=["Bike rentals"], shapes=["line"])
    question = mc("Did bike rentals increase every single year from 2010 to 2020?", "Yes, every year",
                  "No, they fell in at least one year", "They never changed",
                  "The chart cannot tell, since it only covers part of that period")
    assert choose(chart, question) != "D"


RENTALS = {str(y): v for y, v in zip(range(2015, 2021), [1200, 1500, 1900, 1700, 2100, 2400], strict=True)}


def rentals() -> ChartResult:
    return ChartResult("line", title="Bike rentals", series=["value"], categories=list(RENTALS),
                       table={c: {"value": v} for c, v in RENTALS.items()}, marks=printed(RENTALS),
                       texts=["Bike rentals"], shapes=["line"])


def test_a_number_that_is_no_year_is_no_period() -> None:
    question = mc("In which year did rentals first exceed 1800?", "2016", "2017", "2019",
                  "The chart does not show the full period")
    assert choose(rentals(), question) != "D"


def test_as_of_in_the_question_dates_it_and_says_nothing_partial_about_the_chart() -> None:
    question = mc("As of the end of 2020, how many rentals were there in 2020?", "2400", "2100",
                  "Cannot be determined")
    assert choose(rentals(), question) != "C"


def test_a_claim_about_the_data_worded_with_does_not_is_no_statement_of_a_limit() -> None:
    chart = cut_off("2022", values={"2019": 30, "2020": 45, "2021": 60})
    question = mc("Which statement is supported?", "Revenue in 2020 does not show the same growth as in 2021.",
                  "Revenue fell every year.", "Revenue was highest in 2019.")
    assert choose(chart, question) != "A"


def test_per_100_grams_is_no_rate_per_person() -> None:
    snacks = unread("no pie, bars or lines", "Total calories by snack", "250", "300")
    question = mc("How many calories per 100 g does Snack A have?", "250", "300",
                  "Cannot be inferred / inadequate information")
    assert choose(snacks, question) is None
