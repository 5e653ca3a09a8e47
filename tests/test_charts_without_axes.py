"""A bar chart drawn without axis lines or a value axis, its values printed on the bars (a slide, a news graphic):
"Which year had the highest admissions?" over such a chart had gone to no skill at all, since the quick look before
OCR saw no axes and no saturated colour (the bars were grey). A row of flat bars on one baseline is a chart; a sign
of panels alike in size is not."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from agents.config import Settings
from agents.runtime import Maestro
from tests.test_answers_as_asked import render
from vision_tools.charts import chart_likeness

ADMISSIONS = {"2016": 168.3, "2017": 170.6, "2018": 177.0, "2019": 176.1, "2020": 44.0, "2021": 74.0, "2022": 117.3}


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


@pytest.fixture(scope="module")
def slide() -> Image.Image:
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        colours = ["#f28e2b" if year in ("2020", "2021") else "#7a8b99" for year in ADMISSIONS]
        bars = ax.bar(list(ADMISSIONS), list(ADMISSIONS.values()), color=colours, width=0.7)
        ax.bar_label(bars, labels=[f"{v:.1f}" for v in ADMISSIONS.values()], fontweight="bold")
        ax.set_title("Cinema admissions (millions of people)", loc="left", fontweight="bold")
        ax.set_yticks([])
        for side in ("left", "right", "top"):
            ax.spines[side].set_visible(False)

    return render(draw)


def test_a_row_of_grey_bars_is_a_chart(slide: Image.Image) -> None:
    assert chart_likeness(slide).chart


def test_panels_of_one_size_are_no_chart() -> None:
    board = Image.new("RGB", (900, 600), (245, 245, 240))
    draw = ImageDraw.Draw(board)
    for x in (60, 330, 600):  # three price panels alike in height on one line
        draw.rectangle([x, 200, x + 240, 420], fill=(120, 136, 152))
    assert not chart_likeness(board).chart


@pytest.mark.parametrize(("question", "answer"), [
    ("Which year had the highest admissions?", "2018"),
    ("What was the first year that admissions fell below 100 million?", "2020"),
])
def test_the_slide_is_read(maestro: Maestro, slide: Image.Image, question: str, answer: str) -> None:
    run = maestro.ask(slide, question)
    assert (run.status, run.answer) == ("done", answer), run.reason
