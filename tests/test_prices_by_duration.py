"""A price for a length of stay (round 38): "how much is it for 2 hrs" over a parking tariff had been "hrs, printed
nowhere" (the sign says "hours"). A short form is now the word in full, and a number with its unit ("2 hours") is
read only from the row printing both; a stay the tariff does not list is not answered with a listed one's price.
"""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw, ImageFont

from agents.config import Settings
from agents.runtime import Maestro
from tests.test_answers_as_asked import BOLD


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


@pytest.fixture(scope="module")
def tariff() -> Image.Image:
    """A car park's tariff: the stays left, their prices right-aligned in a column of their own."""
    image = Image.new("RGB", (900, 640), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    big, body = ImageFont.truetype(BOLD, 46), ImageFont.truetype(BOLD, 34)
    draw.rectangle([0, 0, 900, 100], fill=(20, 60, 150))
    draw.text((40, 25), "MARKET STREET PARKING", font=big, fill=(255, 255, 255))
    rows = [("Up to 30 minutes", "FREE"), ("Up to 1 hour", "£1.20"), ("Up to 2 hours", "£2.10"),
            ("Up to 4 hours", "£3.90"), ("All day", "£7.50")]
    for k, (stay, price) in enumerate(rows):
        y = 140 + 80 * k
        draw.text((50, y), stay, font=body, fill=(0, 0, 0))
        width = draw.textlength(price, font=body)
        draw.text((850 - width, y), price, font=body, fill=(0, 0, 0))
    return image


@pytest.mark.parametrize(("question", "expected"), [
    ("how much is it for 2 hrs", "£2.10"),
    ("whats the price for 4 hours", "£3.90"),
])
def test_the_price_of_the_stay_asked(maestro: Maestro, tariff: Image.Image, question: str, expected: str) -> None:
    run = maestro.ask(tariff, question)
    assert (run.status, run.answer) == ("done", expected), run.reason


@pytest.mark.parametrize("question", ["how much for 3 hrs", "how much is it for 2 days"])
def test_a_stay_the_tariff_does_not_list_is_not_priced(maestro: Maestro, tariff: Image.Image, question: str) -> None:
    run = maestro.ask(tariff, question)
    assert run.status != "done", run.answer
