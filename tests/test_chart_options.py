"""Checking multiple-choice options against a chart's readings: each kind of option, margins, and the guards.

The readings are written by hand here (``ChartFacts``), so every verdict can be traced to known numbers; the same
logic runs on parsed charts in ``test_chart_choices.py``.
"""

from __future__ import annotations

from skills.answer_form import answer_form
from skills.chart.choices import ChoiceDecision, decide_on_facts
from skills.chart.facts import ChartFacts, Reading, time_key
from skills.chart.trends import check_trend, shape_of

INSTRUCTION = "Answer with the option's letter from the given choices directly."


def facts(values: dict[str, float], source: str = "printed", sigma: float = 0.1, kind: str = "bar",
          title: str = "", complete: bool = True) -> ChartFacts:
    cells = {c: {"value": Reading(v, sigma, source, 0.93)} for c, v in values.items()}
    return ChartFacts(kind, title, ["value"], list(values), cells, complete=complete)


def decide_on(table: ChartFacts, question: str) -> ChoiceDecision:
    form = answer_form(question)
    stem = question.split("\n")[0]
    return decide_on_facts(stem, form.options, table)


def mc(stem: str, *options: str) -> str:
    return "\n".join([stem, *(f"{chr(65 + i)}. {o}" for i, o in enumerate(options)), INSTRUCTION])


SHARES = facts({"Apple": 2, "Samsung": 20, "Xiaomi": 65, "Huawei": 7, "Others": 6})


def test_a_statement_about_printed_values_is_chosen_when_the_others_are_false() -> None:
    question = mc("Which statement is correct according to the percentages shown?",
                  "Huawei has a higher market share than Others.", "Others has the largest market share.",
                  "Apple has a higher market share than Samsung.", "Apple and Huawei have the same market share.")
    decision = decide_on(SHARES, question)
    assert decision.letter == "A" and decision.confidence >= 0.85
    assert [v.status for v in decision.verdicts.values()] == ["true", "false", "false", "false"]


def test_comparisons_inside_the_reading_uncertainty_are_not_called() -> None:
    measured = facts({"North": 50.0, "South": 50.6}, source="axis", sigma=0.5)
    question = mc("Which is true?", "North is higher than South.", "South is higher than North.")
    decision = decide_on(measured, question)
    assert decision.letter is None and "too close" in decision.missing


def test_ratio_claims_need_the_factor_within_tolerance() -> None:
    table = facts({"Latin America": 52, "Europe": 27, "North America": 25, "Africa": 62})
    question = mc("Which conclusion can be made?", "Latin America has nearly four times the usage of Europe.",
                  "North America has the highest usage.", "Latin America has the second-highest usage.",
                  "Africa has about four times the usage of North America.")
    verdicts = decide_on(table, question).verdicts
    assert [v.status for v in verdicts.values()] == ["false", "false", "true", "false"]  # 52/27 = 1.9; 62/25 = 2.5
    between = mc("Which is true?", "Africa has about twice the usage of North America.", "Europe is the highest.")
    assert decide_on(table, between).verdicts["A"].status == "unknown"  # 2.5 is neither clearly 2 nor clearly not


def test_numeric_options_pick_the_one_nearest_the_asked_quantity() -> None:
    table = facts({"January": 287.4, "February": 325.6, "March": 421.6}, source="axis", sigma=2.0)
    question = mc("What is the approximate average number of customers from January to March?", "290", "360",
                  "420", "250")
    decision = decide_on(table, question)
    assert decision.letter == "B"  # the mean is 344.9
    near_two = mc("What is the approximate average number of customers from January to March?", "340", "350")
    assert decide_on(table, near_two).letter is None  # two options within reach: no call


def test_extreme_among_named_options_and_the_all_equal_option() -> None:
    table = ChartFacts("bar", "", ["Station X", "Station Y", "Station Z"], ["Mon", "Tue"], {
        "Mon": {"Station X": Reading(3650, 30, "axis", 0.9), "Station Y": Reading(3550, 30, "axis", 0.9),
                "Station Z": Reading(4550, 30, "axis", 0.9)},
        "Tue": {"Station X": Reading(3150, 30, "axis", 0.9), "Station Y": Reading(4100, 30, "axis", 0.9),
                "Station Z": Reading(3000, 30, "axis", 0.9)}})
    question = mc("Across all shown dates, which station has the lowest total number of visitors?", "Station X",
                  "Station Y", "Station Z", "All three stations have about the same total")
    decision = decide_on(table, question)
    assert decision.letter == "A" and decision.verdicts["D"].status == "false"


def test_periods_are_summed_in_time_order_even_when_the_chart_scrambles_them() -> None:
    days = {f"Day {d}": v for d, v in zip([2, 3, 5, 8, 4, 14, 10, 11, 6, 7, 12, 9, 13, 1],
                                          [39, 35, 30, 25, 33, 8, 18, 17, 28, 27, 17, 21, 13, 42], strict=True)}
    question = mc("Which statement about rainfall over these 14 days is most accurate?",
                  "Total rainfall was greater during the first 7 days than during the last 7 days.",
                  "Total rainfall was greater during the last 7 days than during the first 7 days.",
                  "It is impossible to compare totals for the first and last 7 days from this chart.",
                  "The totals for the first 7 days and the last 7 days were exactly the same.")
    decision = decide_on(facts(days), question)
    assert decision.letter == "A"
    assert decision.verdicts["C"].kind == "cannot" and decision.verdicts["C"].status == "unknown"


def test_trend_wording_against_a_series() -> None:
    rising = shape_of([Reading(v, 1, "axis", 0.9) for v in (1010, 1160, 1584, 1773, 1988, 2228, 2096, 1952,
                                                            2641, 2993, 3118, 2656)])
    assert check_trend("Generally increasing", rising).status == "true"
    assert check_trend("Generally decreasing", rising).status == "false"
    assert check_trend("Generally constant", rising).status == "false"
    assert check_trend("It increases steadily every year", rising).status == "false"  # it dips twice
    flat = shape_of([Reading(v, 0.05, "axis", 0.9) for v in (68.5, 68.2, 68.0, 67.4, 66.4, 66.5, 67.0, 67.6)])
    assert check_trend("Approval ratings fluctuated slightly but overall changes were small.", flat).status == "true"
    assert check_trend("Approval ratings experienced a major and sustained decline.", flat).status == "false"
    legs = shape_of([Reading(v, 1, "axis", 0.9) for v in (300, 100, 500, 800, 600)])
    assert check_trend("Decreasing, then increasing, and finally decreasing", legs).status == "true"
    assert check_trend("Increasing, then decreasing, and finally increasing", legs).status == "false"


def test_cannot_determine_is_never_chosen_by_default() -> None:
    question = mc("What is the trend?", "Cannot be determined from the chart.", "It is magnificent.")
    decision = decide_on(SHARES, question)
    assert decision.letter is None and "VLM expert" in decision.missing


def test_a_missing_value_blocks_ranks_and_trends() -> None:
    partial = facts({"2019": 10, "2020": 12, "2021": 15}, complete=False)
    question = mc("Which statement is correct?", "2021 has the highest value.", "2019 has the highest value.")
    assert decide_on(partial, question).letter is None
    whole = facts({"2019": 10, "2020": 12, "2021": 15})
    assert decide_on(whole, question).letter == "A"


def test_a_sample_of_years_cannot_settle_a_longer_period() -> None:
    table = facts({str(y): 10 + y - 1968 for y in range(1968, 1976)})
    question = mc("What do these price movements suggest about 1960 to 1980?",
                  "They show steady growth across the entire 1960-1980 period.",
                  "This segment alone cannot reliably indicate behaviour over 1960-1980.")
    decision = decide_on(table, question)
    assert decision.letter == "B" and "1968-1975" in decision.verdicts["B"].why
    # A bare "cannot be determined" does not speak of the years missing: the question is abstained on instead.
    bare = mc("What do these price movements suggest about 1960 to 1980?",
              "They show steady growth across the entire 1960-1980 period.", "It cannot be determined from this chart.")
    decision = decide_on(table, bare)
    assert decision.letter is None and "1968-1975" in decision.missing


def test_a_period_one_step_past_the_labels_is_not_a_sample() -> None:
    """A line of 1924-2024 labelled every ten years from 1930: the ends are drawn, just not labelled."""
    table = facts({str(y): 5 + (y - 1930) / 10 for y in range(1930, 2030, 10)})
    question = mc("How did sales change from 1924 to 2024?", "They rose overall.",
                  "This limited sample cannot reliably show the whole period.")
    assert decide_on(table, question).letter != "B"


def test_partial_data_cannot_settle_how_a_period_ends() -> None:
    table = facts({"Candidate A": 35, "Candidate B": 59}, title="Election Poll Results as of Aug 15, 2022")
    question = mc("The poll ends on Sep 01, 2022. Which is true?", "Cannot be determined.",
                  "Candidate B will be elected as the winner.")
    decision = decide_on(table, question)
    assert decision.letter == "A" and "partial" in decision.verdicts["A"].why
    no_option = mc("The poll ends on Sep 01, 2022. Who will be elected?", "Candidate A", "Candidate B")
    decision = decide_on(table, no_option)
    assert decision.letter is None and "partial" in decision.missing


def test_a_limit_option_is_not_chosen_over_an_option_the_values_make_true() -> None:
    table = facts({"Candidate A": 35, "Candidate B": 59}, title="Election Poll Results as of Aug 15, 2022")
    question = mc("The poll ends on Sep 01, 2022. Which is true so far?", "Cannot be determined.",
                  "Candidate B has a higher share than Candidate A.")
    assert decide_on(table, question).letter != "A"


def test_claims_about_the_future_are_never_true() -> None:
    question = mc("Which is true?", "Xiaomi will remain the leader next year.", "Apple has the largest share.")
    decision = decide_on(SHARES, question)
    assert decision.letter is None


def test_time_keys_order_years_quarters_months_and_days() -> None:
    assert time_key("2007-08") < time_key("2008-09")
    assert time_key("Q4 2022") < time_key("Q1 2023")
    assert time_key("Dec") > time_key("Jan") and time_key("Day 10") > time_key("Day 9")
    assert time_key("Apples") is None


def test_a_narrow_range_is_judged_by_the_spread_against_the_values_size() -> None:
    """A truncated axis makes 46.6 -> 45.4 look like a collapse; the values stay within 3 % of each other."""
    def readings(values: list[float]) -> list[Reading]:
        return [Reading(v, 0.05, "axis", 0.9) for v in values]

    gentle = shape_of(readings([46.6, 46.4, 46.2, 45.8, 45.9, 45.5, 45.4]))
    assert gentle is not None
    assert check_trend("It stayed within a very narrow range", gentle).status == "true"
    assert check_trend("There were only small changes overall", gentle).status == "true"
    assert check_trend("The rating collapsed sharply over the period", gentle).status == "false"
    steep = shape_of(readings([20, 35, 50, 65, 80]))
    assert steep is not None
    assert check_trend("It stayed within a narrow range", steep).status == "false"
    assert check_trend("There were only small changes overall", steep).status == "false"


def test_an_overall_change_over_the_years_is_a_trend_question() -> None:
    table = facts({str(y): v for y, v in zip(range(2000, 2006), [60.6, 60.2, 60.5, 59.5, 59.9, 60.4], strict=True)},
                  source="axis", sigma=0.05)
    question = mc("What does the chart suggest about the overall change in the share detected over the years shown?",
                  "It remained within a narrow range with only minor fluctuations.", "It collapsed sharply.",
                  "It increased dramatically.", "The trend cannot be determined from this chart.")
    assert decide_on(table, question).letter == "A"


def test_a_stated_change_between_two_years_is_checked_with_its_sign_and_unit() -> None:
    table = facts({"2018": 13, "2019": 18, "2022": 19, "2023": 30})
    points = mc("Which statement is correct?", "The share growth from 2018 to 2023 is 17 percentage points.",
                "The share in 2019 is 13%.")
    assert decide_on(table, points).letter == "A"
    falling = facts({"2018": 50, "2019": 40, "2020": 45})
    decline = mc("Which statement is correct?", "The decline from 2018 to 2019 was 10 units.",
                 "2018 has the lowest value.")
    assert decide_on(falling, decline).letter == "A"
    relative = mc("Which statement is correct?", "The increase from 2019 to 2020 was 5%.", "2018 has the lowest value.")
    assert decide_on(falling, relative).verdicts["A"].status == "unknown"  # 12.5 % in fact: not a difference of 5


def test_small_changes_are_judged_by_the_spread_not_where_the_series_ends() -> None:
    spiky = shape_of([Reading(v, 0.1, "axis", 0.9) for v in (10, 50, 10, 11)])
    assert spiky is not None and check_trend("Only small changes overall", spiky).status == "false"


def test_years_offered_as_options_are_the_charts_categories_not_numbers_to_compare() -> None:
    growth = facts({"2017": 3.1, "2018": 3.4, "2019": 2.9, "2020": 1.8, "2021": 2.6}, kind="line",
                   title="GDP growth (%)")
    question = mc("Which year had the lowest growth?", "2017", "2019", "2020", "2021")
    decision = decide_on(growth, question)
    assert decision.letter == "C"
    assert [v.status for v in decision.verdicts.values()] == ["false", "false", "true", "false"]


def test_an_option_the_table_lacks_may_be_the_bar_whose_label_was_misread() -> None:
    sales = facts({"一": 3.2, "2020": 4.1, "2021": 6.8, "2022": 9.5, "2023": 12.3}, title="EV sales")  # "2019" misread
    lowest = decide_on(sales, mc("Which year had the lowest sales?", "2019", "2020", "2021", "2023"))
    assert lowest.letter is None  # 2019, the misread bar, is the lowest: never "2020"
    highest = decide_on(sales, mc("Which year had the highest sales?", "2019", "2020", "2021", "2023"))
    assert highest.letter == "D"  # the misread bar is clearly not the highest


def test_the_tallest_and_the_shortest_are_extremes_like_the_highest() -> None:
    table = facts({"Oak": 31, "Birch": 18, "Pine": 44, "Elm": 25})
    tallest = decide_on(table, mc("Which tree is the tallest?", "Oak", "Birch", "Pine", "Elm"))
    shortest = decide_on(table, mc("which one is shortest", "Oak", "Birch", "Pine", "Elm"))
    assert (tallest.letter, shortest.letter) == ("C", "B")
