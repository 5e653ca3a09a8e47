"""Which of two named things is higher or further left: "which one is higher up in the image, the blue square or
the orange triangle?" had been sent to geometry and refused, though both shapes were plain to see.
"""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from agents.config import Settings
from agents.runtime import Maestro
from skills.answer_form import answer_form
from tests.test_prices_in_dates_and_positions import grey_gravel


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


@pytest.fixture(scope="module")
def scene() -> Image.Image:
    """4K gravel: a blue square top left, an orange triangle bottom right, a red circle and a green star level."""
    image = grey_gravel(8)
    draw = ImageDraw.Draw(image)
    draw.rectangle([340, 290, 430, 380], fill=(30, 90, 220))
    draw.polygon([(3450, 1740), (3400, 1830), (3500, 1830)], fill=(245, 140, 20))
    draw.ellipse([1500, 1000, 1600, 1100], fill=(215, 30, 30))
    draw.regular_polygon((2400, 1060, 60), 5, fill=(40, 170, 60))
    return image


@pytest.mark.parametrize(("question", "answer"), [
    ("which one is higher up in the image, the blue square or the orange triangle?", "the blue square"),
    ("Which is lower, the blue square or the orange triangle?", "the orange triangle"),
    ("which is further left, the orange triangle or the red circle?", "the red circle"),
    ("which one is higher, the red circle or the green star?", None),  # level with each other
])
def test_the_higher_or_further_left_of_two(maestro: Maestro, scene: Image.Image, question: str,
                                           answer: str | None) -> None:
    run = maestro.ask(scene, question)
    assert run.answer == answer, run.reason


def test_the_alternatives_keep_their_articles() -> None:
    form = answer_form("which one is higher up in the image, the blue square or the orange triangle?")
    assert form.alternatives == ("the blue square", "the orange triangle")
