"""Text asked for by the shape around it: "what number is written inside the hexagon?" is read inside the one
hexagon of the drawing, never from the reader's guess elsewhere. A drawing of shapes without text had been answered
"6" (read off the shapes' corners)."""

from __future__ import annotations

import math

import pytest
from PIL import Image, ImageDraw, ImageFont

from agents.config import Settings
from agents.runtime import Maestro
from skills.ocr.inside_shapes import asks_for_text_inside_a_shape
from tests.test_scene_facts import BOLD


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


def _drawing(number: str | None) -> Image.Image:
    image = Image.new("RGB", (1200, 900), (250, 246, 232))
    draw = ImageDraw.Draw(image)
    draw.ellipse([220, 220, 680, 680], fill=(20, 30, 100))
    draw.polygon([(430, 335), (560, 110), (690, 335)], fill=(250, 110, 90))
    draw.regular_polygon((1000, 210, 110), 6, outline=(210, 0, 150), width=10)
    draw.polygon([(910, 780), (980, 645), (1050, 780)], fill=(128, 128, 0))
    if number is not None:
        draw.text((1000, 210), number, font=ImageFont.truetype(BOLD, 90), fill=(30, 30, 30), anchor="mm")
    return image


@pytest.mark.parametrize(("question", "shape"), [
    ("what number is written inside the hexagon", "hexagon"),
    ("what does it say on the red circle please", "red circle"),
    ("which letter is in the big blue star?", "big blue star"),
    ("what is written on the sign", None),
    ("what colour is the hexagon", None),  # no text asked
])
def test_the_shape_a_question_reads_inside(question: str, shape: str | None) -> None:
    assert asks_for_text_inside_a_shape(question) == shape


def test_the_number_inside_the_hexagon_is_read_there(maestro: Maestro) -> None:
    run = maestro.ask(_drawing("7"), "what number is written inside the hexagon")
    assert (run.status, run.answer) == ("done", "7"), run.reason


def test_an_empty_hexagon_holds_no_number(maestro: Maestro) -> None:
    run = maestro.ask(_drawing(None), "what number is written inside the hexagon")
    assert run.status == "abstained" and run.answer is None, run.answer


def test_a_star_read_as_the_glyph_of_a_star_holds_no_number(maestro: Maestro) -> None:
    # The reader reads a filled star on its own as "★": no letter or digit is printed inside it.
    image = Image.new("RGB", (900, 700), (236, 230, 214))
    draw = ImageDraw.Draw(image)
    draw.regular_polygon((250, 250, 90), 4, fill=(40, 150, 70))
    draw.ellipse([560, 140, 760, 340], fill=(40, 150, 70))
    star = [(450 + (120 if i % 2 == 0 else 50) * math.cos(-1.5708 + i * 0.6283),
             500 + (120 if i % 2 == 0 else 50) * math.sin(-1.5708 + i * 0.6283)) for i in range(10)]
    draw.polygon(star, fill=(220, 30, 30))
    run = maestro.ask(image, "what number is written on the red star")
    assert run.answer is None, run.answer
