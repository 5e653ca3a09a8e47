"""Limits of a chart the tools can see, and the one option that states them (``skills/chart/limits.py``).

Charts here are built by hand as parse results (``ChartResult``), so each limit is traced to what the parser
reported: its texts, its warnings, the reason a chart was not read. The same code runs on real charts in
``test_chart_choices.py``.
"""

from __future__ import annotations

from skills.answer_form import answer_form
from skills.chart.choices import decide
from vision_tools.charts import ChartResult

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
