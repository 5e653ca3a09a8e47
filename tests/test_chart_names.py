"""A chart's names as a question abbreviates or spells them out: "the UK" for a bar "United Kingdom", "the United
States" for a bar "US"; capitals written for emphasis ("IS", "OR", a shouted question) are never names."""

from __future__ import annotations

import pytest

from agents.config import Settings
from agents.runtime import Maestro
from skills.chart.names import initials, names_as_printed
from tests.test_chart_wordings import bar_chart

COUNTRIES = ["United States", "Germany", "United Kingdom", "India"]


@pytest.mark.parametrize(("question", "names", "expected"), [
    ("How many more sessions came from Germany than from the UK?", COUNTRIES,
     "How many more sessions came from Germany than from the United Kingdom?"),
    ("and the U.S.?", COUNTRIES, "and the United States?"),
    ("and the USA?", COUNTRIES, "and the United States?"),
    ("what about the United States?", ["US", "Germany"], "what about the US?"),
    ("what about the United States of America?", ["US", "USA", "Germany"], "what about the USA?"),
    ("Did North America beat the EU?", ["NA", "European Union"], "Did NA beat the European Union?"),
    # Capitals for emphasis, and a shouted question, name nothing.
    ("IS it OR the other one?", ["In Store", "Other Regions"], "IS it OR the other one?"),
    ("WHAT IS THE VALUE FOR THE UK", ["United Kingdom"], "WHAT IS THE VALUE FOR THE UK"),
    # Two names with the same initials: neither is meant.
    ("and the SA?", ["South Africa", "South America"], "and the SA?"),
    # The chart prints the abbreviation itself.
    ("and the UK?", ["UK", "United Kingdom"], "and the UK?"),
])
def test_names_are_written_as_the_chart_prints_them(question: str, names: list[str], expected: str) -> None:
    assert names_as_printed(question, names) == expected


def test_initials_skip_linking_words() -> None:
    assert initials("United States of America") == "USA"
    assert initials("Bosnia and Herzegovina") == "BH"
    assert initials("Germany") == ""


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


def test_a_difference_between_countries_named_by_their_initials(maestro: Maestro) -> None:
    # "the UK" over a bar "United Kingdom" had matched no category, and the run abstained.
    image = bar_chart(["United States", "Germany", "United Kingdom"], [5200, 3100, 2400], "Sessions by country",
                      labelled=True)
    run = maestro.ask(image, "How many more sessions came from Germany than from the UK?")
    assert (run.status, run.answer) == ("done", "700"), run.reason
    usa = maestro.ask(image, "how many sessions from the USA?")
    assert (usa.status, usa.answer) == ("done", "5200"), usa.reason


@pytest.mark.parametrize(("question", "expected"), [
    ("median tech salary for 25-34 year olds?", "median Tech sector salary for 25-34 year olds?"),
    ("and the public one?", "and the Public sector one?"),
    # A word both legend entries share names neither; a name given whole stays as it is.
    ("which sector pays most?", "which sector pays most?"),
    ("Tech sector pay in 18-24?", "Tech sector pay in 18-24?"),
])
def test_a_legend_entry_is_known_by_the_word_only_it_has(question: str, expected: str) -> None:
    series = ["Tech sector", "Public sector"]
    assert names_as_printed(question, ["18-24", "25-34", *series], series) == expected


def test_a_value_of_a_series_named_by_one_word(maestro: Maestro) -> None:
    from tests.test_answers_as_asked import render

    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        ages = ["18-24", "25-34", "35-44"]
        tech = ax.bar([i - 0.2 for i in range(3)], [31, 48, 61], width=0.4, label="Tech sector")
        public = ax.bar([i + 0.2 for i in range(3)], [24, 32, 40], width=0.4, label="Public sector")
        ax.bar_label(tech)
        ax.bar_label(public)
        ax.set_xticks(range(3), ages)
        ax.legend()
        ax.set_title("Median salary (£k) by age band")

    run = maestro.ask(render(draw), "median tech salary for 25-34 yr olds?")
    assert (run.status, run.answer) == ("done", "48"), run.reason


@pytest.mark.parametrize(("question", "names", "expected"), [
    ("Is Germany's download speed faster than the UK's?", ["UK", "DE", "FR"],
     "Is DE's download speed faster than the UK's?"),
    ("wat is the upload speed in france", ["UK", "DE", "FR"], "wat is the upload speed in FR"),
    ("and North Korea?", ["KR", "JP"], "and North Korea?"),  # South Korea's code is no Korea's
    ("diff between airport and harbour teams", ["Team North", "Team Airport", "Team Harbour"],
     "diff between Team Airport and Team Harbour teams"),
    ("what about europe?", ["Eastern Europe", "Asia Pacific"], "what about europe?"),  # no shared word
])
def test_country_codes_and_names_known_by_one_word(question: str, names: list[str], expected: str) -> None:
    assert names_as_printed(question, names, ["value"]) == expected


def test_faster_is_higher_over_speeds_and_not_read_over_times(maestro: Maestro) -> None:
    from tests.test_answers_as_asked import render

    def speeds(ax) -> None:  # noqa: ANN001 - matplotlib axes
        ax.bar(["UK", "DE", "FR"], [98, 84, 176], color="#1f77b4")
        ax.tick_params(axis="x", labelsize=16)
        ax.set_ylabel("Download speed (Mbps)")
        ax.set_title("Fixed broadband, median download speed")

    def times(ax) -> None:  # noqa: ANN001 - matplotlib axes
        ax.bar(["Berlin", "Paris", "Rome"], [215, 232, 251], color="#2ca02c")
        ax.set_ylabel("Median finishing time (minutes)")
        ax.set_title("Marathon finishing times")

    run = maestro.ask(render(speeds), "Is Germany's download speed faster than the UK's? yes or no")
    assert (run.status, run.answer) == ("done", "No"), run.reason
    run = maestro.ask(render(times), "was Berlin faster than Rome?")  # a time's "faster" is left to a reader
    assert run.status == "abstained" and run.answer is None, run.answer
    diff = maestro.ask(render(speeds), "diff between france and the uk?")
    assert (diff.status, diff.answer) == ("done", "78"), diff.reason
