"""Two confident wrong answers round 18 of new users' questions found on labels and big scenes:

- "How much does a bag of this cost?" over a coffee label printing only "Roasted on: 12.03.2025" had been answered
  "12.03": two digits after a point inside a date are no price;
- "Where is the yellow triangle?" for a triangle 80 % across and halfway down had been answered "top-right" (its
  centre was just above the middle): people name a shape halfway down by its side, "right".
"""

from __future__ import annotations

import random

import pytest
from PIL import Image, ImageDraw

from agents.config import Settings
from agents.runtime import Maestro
from skills.ocr.spans import PRICE
from tests.test_answers_as_asked import sign
from vision_tools.image import Box
from vision_tools.zoom import position


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


@pytest.mark.parametrize(("text", "prices"), [
    ("Roasted on: 12.03.2025", []),
    ("Best before 2026.08.14", []),
    ("Packed 03-11-24 Tea 4.50", ["4.50"]),
    ("Total 12.03", ["12.03"]),
    ("Croissant €2.60", ["€2.60"]),
])
def test_a_price_is_never_two_digits_of_a_date(text: str, prices: list[str]) -> None:
    assert [m.group(0) for m in PRICE.finditer(text)] == prices


def test_a_label_with_only_a_date_prints_no_price(maestro: Maestro) -> None:
    run = maestro.ask(sign("ETHIOPIA", "WHOLE BEAN 250 g", "ROASTED 12.03.2025"), "how much does a bag of this cost")
    assert run.status == "abstained" and run.answer is None, run.answer


@pytest.mark.parametrize(("centre", "named", "clear"), [
    ((0.80, 0.46), "right", True),
    ((0.20, 0.20), "top-left", True),
    ((0.85, 0.85), "bottom-right", True),
    ((0.50, 0.15), "top", True),
    ((0.52, 0.48), "centre", True),
    ((0.62, 0.20), "top-right", False),  # between the middle and the right: "top" or "top right"?
])
def test_a_position_is_named_as_people_name_it(centre: tuple[float, float], named: str, clear: bool) -> None:
    width, height = 3840, 2160
    x, y = centre[0] * width, centre[1] * height
    assert position(Box(x - 40, y - 40, x + 40, y + 40), (width, height)) == (named, clear)


def grey_gravel(seed: int) -> Image.Image:
    """Grey 4K gravel: 6000 stones of random greys and sizes, nothing coloured."""
    rng = random.Random(seed)
    image = Image.new("RGB", (3840, 2160), (120, 118, 112))
    draw = ImageDraw.Draw(image)
    for _ in range(6000):
        x, y, r = rng.randrange(3840), rng.randrange(2160), rng.randint(6, 22)
        tone = rng.randint(80, 170)
        draw.ellipse([x - r, y - r, x + r, y + r], fill=(tone, tone - 3, tone - 8))
    return image


def _gravel(centre: tuple[float, float]) -> Image.Image:
    """Grey 4K gravel with one small yellow triangle centred at ``centre`` (fractions of the width and height)."""
    image = grey_gravel(7)
    cx, cy = centre[0] * 3840, centre[1] * 2160
    ImageDraw.Draw(image).polygon([(cx, cy - 40), (cx - 44, cy + 36), (cx + 44, cy + 36)], fill=(250, 210, 20))
    return image


def test_a_shape_halfway_down_the_right_is_on_the_right(maestro: Maestro) -> None:
    run = maestro.ask(_gravel((0.80, 0.46)), "where is the yellow triangle")
    assert (run.status, run.answer) == ("done", "right")


def test_a_quadrant_question_still_gets_a_quadrant(maestro: Maestro) -> None:
    run = maestro.ask(_gravel((0.20, 0.22)), "In which quadrant is the yellow triangle?")
    assert (run.status, run.answer) == ("done", "top-left")
