"""Which category or series changed (the most) between two points the question names.

"which region grew its revenue the most between 2022 and 2024?" over grouped bars and "which platform lost
subscribers between 2022 and 2024?" over lines had been refused as changes the chart does not print. The change is
the second reading less the first; a rise, a fall or "the most" is called only by a clear margin.
"""

from __future__ import annotations

import pytest
from PIL import Image

from agents.config import Settings
from agents.runtime import Maestro
from tests.test_answers_as_asked import render
from vision_tools.charts import parse_chart

YEARS = ["2022", "2023", "2024"]
REVENUE = {"North": [420, 470, 510], "Europe": [310, 260, 335], "Asia": [180, 245, 330], "South": [95, 140, 160]}
SUBSCRIBERS = {"Beatbox": [48, 44, 39, 35], "Tunely": [20, 26, 31, 38], "Auralis": [30, 33, 41, 47]}


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


@pytest.fixture(scope="module")
def revenue() -> Image.Image:
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        width = 0.26
        for n, (year, colour) in enumerate(zip(YEARS, ("#264653", "#2a9d8f", "#e9c46a"), strict=True)):
            xs = [i + (n - 1) * width for i in range(len(REVENUE))]
            bars = ax.bar(xs, [v[n] for v in REVENUE.values()], width, label=year, color=colour)
            ax.bar_label(bars, fontsize=7)
        ax.set_xticks(range(len(REVENUE)), list(REVENUE))
        ax.set_ylabel("Revenue ($ million)")
        ax.set_title("Revenue by region")
        ax.legend(title="Fiscal year")

    return render(draw)


@pytest.fixture(scope="module")
def subscribers() -> Image.Image:
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        for name, values in SUBSCRIBERS.items():
            ax.plot(["2021", "2022", "2023", "2024"], values, marker="o", label=name)
        ax.set_ylabel("Paid subscribers (millions)")
        ax.set_title("Music streaming subscribers")
        ax.grid(alpha=0.3)
        ax.legend()

    return render(draw)


@pytest.mark.parametrize(("question", "answer"), [
    ("In absolute terms, which region grew its revenue the most between 2022 and 2024?", "Asia"),  # +150
    ("which region saw its revenue fall from 2022 to 2023", "Europe"),
    ("Which region saw revenue drop from 2022 to 2023? A) North B) Europe C) Asia D) South", "B"),
    ("which region grew the most in percentage terms from 2022 to 2024?", None),  # a rate, not a difference
    ("which region grew the most from 2023 to 2024", None),  # Asia +85, Europe +75: too close to call
])
def test_which_category_changed_between_two_series(maestro: Maestro, revenue: Image.Image, question: str,
                                                   answer: str | None) -> None:
    run = maestro.ask(revenue, question)
    assert run.answer == answer, run.reason


@pytest.mark.parametrize(("question", "answer"), [
    ("Which platform lost subscribers between 2022 and 2024?", "Beatbox"),
    ("which platform gained the most subscribers from 2022 to 2024? A) Beatbox B) Tunely C) Auralis", "C"),  # +14
    ("which platform gained the most subscribers from 2021 to 2024?", None),  # Tunely +18, Auralis +17: too close
    ("which platform gained subscribers between 2022 and 2024?", None),  # two did: the question presumes one
])
def test_which_series_changed_between_two_categories(maestro: Maestro, subscribers: Image.Image, question: str,
                                                     answer: str | None) -> None:
    run = maestro.ask(subscribers, question)
    assert run.answer == answer, run.reason


def test_round_markers_are_no_printed_zeros(subscribers: Image.Image) -> None:
    # OCR reads a round marker as "0"; given to the point, it had been a printed 0 "disagreeing" with the line.
    chart = parse_chart(subscribers)
    assert [m for m in chart.marks if m.printed is not None] == []
    assert not any("disagrees" in w for w in chart.warnings), chart.warnings
