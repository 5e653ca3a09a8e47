"""A near tie is no extreme and no rank: "2nd most preferred channel?" over Phone and Chat both at 40 had been
answered "Phone" at P 0.99 (the skill halved its score, which a calibration fit where ties were rare cannot see).
"""

from __future__ import annotations

import pytest
from PIL import Image

from agents.config import Settings
from agents.runtime import Maestro
from tests.test_answers_as_asked import render


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


def _channels(values: dict[str, int]) -> Image.Image:
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        bars = ax.bar(list(values), list(values.values()), color="#577590")
        ax.bar_label(bars, labels=[f"{v}%" for v in values.values()])
        ax.set_title("Preferred support channel (% of customers)")

    return render(draw)


@pytest.mark.parametrize(("question", "answer"), [
    ("2nd most preferred channel?", None),  # Phone and Chat tie at 40
    ("which channel has the 2nd lowest share", None),
    ("which channel is the most preferred?", "Email"),
    ("which channel is preferred least", "Letter"),
])
def test_a_tie_at_a_rank_is_not_broken_by_a_guess(maestro: Maestro, question: str, answer: str | None) -> None:
    run = maestro.ask(_channels({"Email": 50, "Phone": 40, "Chat": 40, "Letter": 20}), question)
    assert run.answer == answer, run.reason


def test_a_tie_at_the_top_is_no_highest(maestro: Maestro) -> None:
    run = maestro.ask(_channels({"Email": 45, "Phone": 45, "Chat": 30, "Letter": 20}),
                      "which channel is the most preferred?")
    assert run.status == "abstained" and run.answer is None, run.answer


def test_printed_shares_two_points_apart_are_ranked(maestro: Maestro) -> None:
    # Printed numbers are exact: 23 % against 21 % is no tie, at a rank as at the top. The rank had been refused on
    # a fixed 3 % of the scale ("whats the second biggest source of electricity" over a donut of printed shares).
    image = _channels({"Wind": 29, "Hydro": 23, "Gas": 21, "Solar": 13})
    second = maestro.ask(image, "whats the second biggest channel")
    assert (second.status, second.answer) == ("done", "Hydro"), second.reason
    third = maestro.ask(image, "3rd biggest channel?")
    assert (third.status, third.answer) == ("done", "Gas"), third.reason
