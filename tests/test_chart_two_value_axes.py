"""A chart with a value axis on each side, on different scales: bars of container throughput against the left
axis, a line of trade value against the right. The line's points had been read against the left axis ("8.1" for a
trade value of $171bn), and a bar's value had been answered from the line. The tools cannot tell which axis a mark
belongs to, so they answer no value of such a chart; a chart with one axis is read as before."""

from __future__ import annotations

import pytest
from PIL import Image

from agents.config import Settings
from agents.runtime import Maestro
from tests.test_answers_as_asked import render
from vision_tools.charts import parse_chart

YEARS = ["2016", "2017", "2018", "2019", "2020", "2021"]
TEU = [8.2, 8.9, 9.4, 9.7, 9.1, 10.3]
TRADE = [142, 155, 168, 171, 149, 196]


def _throughput(ax, twin: bool) -> None:  # noqa: ANN001 - matplotlib axes
    ax.bar(YEARS, TEU, color="#9fb7c9", width=0.6)
    ax.set_ylim(0, 12)
    ax.set_yticks(range(0, 13, 2))
    ax.set_ylabel("Throughput (million TEU)")
    ax.set_title("Port volumes and value of trade")
    if twin:
        right = ax.twinx()
        right.plot(YEARS, TRADE, color="#c0392b", marker="D")
        right.set_ylim(0, 250)
        right.set_yticks(range(0, 251, 50))
        right.set_yticklabels([f"${v}bn" for v in range(0, 251, 50)])


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


@pytest.fixture(scope="module")
def dual() -> Image.Image:
    return render(lambda ax: _throughput(ax, twin=True))


def test_a_second_value_axis_is_noticed(dual: Image.Image) -> None:
    assert parse_chart(dual).axis.twin
    assert not parse_chart(render(lambda ax: _throughput(ax, twin=False))).axis.twin


@pytest.mark.parametrize("question", [
    "container throughput in 2021?",
    "approximately what was the trade value in 2019, in $bn",
    "which year had the highest trade value?",
])
def test_no_value_is_read_off_a_chart_with_two_value_axes(maestro: Maestro, dual: Image.Image, question: str) -> None:
    run = maestro.ask(dual, question)
    assert run.status == "abstained" and run.answer is None, run.answer
    assert "two value axes" in (run.reason or ""), run.reason


def test_the_same_bars_with_one_axis_are_read(maestro: Maestro) -> None:
    run = maestro.ask(render(lambda ax: _throughput(ax, twin=False)), "which year had the highest throughput?")
    assert (run.status, run.answer) == ("done", "2021"), run.reason
