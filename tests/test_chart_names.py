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
