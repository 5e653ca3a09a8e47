"""A question that asks for a kind of unit (a duration, a distance, a weight, a speed, a temperature, an age) is
answered from a chart only when the chart prints such a unit: "on average how long is a weather delay in minutes?"
over a donut of delay causes asks for no share, although "Weather" is one of its slices (round 18 of new users'
questions had it answered "6")."""

from __future__ import annotations

import pytest
from PIL import Image

from agents.config import Settings
from agents.runtime import Maestro
from tests.test_chart_options_naming_categories import delay_causes, waits

__all__ = ["delay_causes", "waits"]  # fixtures shared with that module


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


@pytest.mark.parametrize("question", [
    "on average how long is a weather delay in minutes?",
    "how long does a security delay last",
    "how far do the weather-delayed planes fly?",
    "what's the temperature during weather delays",
])
def test_a_unit_the_chart_does_not_print_is_not_answered(maestro: Maestro, delay_causes: Image.Image,
                                                         question: str) -> None:
    run = maestro.ask(delay_causes, question)
    assert run.status == "abstained" and run.answer is None, run.answer


def test_the_share_itself_is_still_read(maestro: Maestro, delay_causes: Image.Image) -> None:
    run = maestro.ask(delay_causes, "Which cause has the biggest slice?")
    assert (run.status, run.answer) == ("done", "Late-arriving aircraft")


def test_a_duration_is_answered_where_the_chart_prints_its_unit(maestro: Maestro, waits: Image.Image) -> None:
    run = maestro.ask(waits, "how long is the wait at Lakeview?")
    assert run.status == "done" and run.answer is not None and run.answer.startswith("45"), run.answer
