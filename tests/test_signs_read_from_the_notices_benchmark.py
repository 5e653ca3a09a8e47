"""Wrong answers the notices benchmark (``benchmarks/synthetic/notices.py``) found on the certified reading path:

- a price list photographed at a tilt of 3.5° paired every item with the next one's price: rows slope, and were
  grouped as if level (``vision_tools.text.ocr.order_lines`` now levels the page by its skew);
- "how far is it to the bus station" was the Railway Station's distance: one named word printed, the other
  ("bus") nowhere;
- "till what time is it closed?" was "11.30-17.00": one time is asked, and a range is printed.
"""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw, ImageFont

from agents.config import Settings
from agents.runtime import Maestro
from tests.test_answers_as_asked import BOLD
from vision_tools.text import read_text
from vision_tools.text.ocr import order_lines, text_skew

SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


def board(title: str, rows: list[tuple[str, str]], tilt: float = 0.0) -> Image.Image:
    """A board with names at the left and their values right-aligned far to the right, turned by ``tilt`` degrees
    (positive: the right side lower, as a photo taken from the left)."""
    image = Image.new("RGB", (1300, 150 + 70 * len(rows)), (25, 60, 45))
    draw = ImageDraw.Draw(image)
    head, body = ImageFont.truetype(BOLD, 48), ImageFont.truetype(SERIF, 38)
    draw.text((60, 30), title, font=head, fill=(250, 220, 120))
    for k, (name, value) in enumerate(rows):
        y = 120 + 70 * k
        draw.text((60, y), name, font=body, fill=(250, 250, 245))
        draw.text((1240 - draw.textlength(value, font=body), y), value, font=body, fill=(250, 250, 245))
    ground = Image.new("RGB", (1500, image.height + 400), (120, 140, 110))
    ground.paste(image, (100, 200))
    return ground.rotate(-tilt, resample=Image.Resampling.BICUBIC, fillcolor=(120, 140, 110))


MENU = [("Flapjack", "£1.85"), ("Croissant", "£2.40"), ("Teacake", "£1.95"), ("Pain au Raisin", "£2.70"),
        ("Egg Sandwich", "£3.60")]


def test_rows_of_a_tilted_board_are_read_level() -> None:
    lines = read_text(board("CAFE", MENU, tilt=3.5)).lines
    assert text_skew(lines) == pytest.approx(3.5, abs=1.0)
    rows = [" ".join(line.text for line in row) for row in order_lines(lines)]
    assert any("Croissant" in row and "£2.40" in row for row in rows), rows
    assert any("Egg Sandwich" in row and "£3.60" in row for row in rows), rows


@pytest.mark.parametrize(("question", "expected"), [("how much is a croissant", "£2.40"),
                                                     ("teacake price pls", "£1.95")])
def test_a_tilted_price_list_gives_each_item_its_own_price(maestro: Maestro, question: str, expected: str) -> None:
    run = maestro.ask(board("CAFE", MENU, tilt=3.5), question)
    assert (run.status, run.answer) == ("done", expected), run.reason


def test_a_place_named_by_a_word_printed_nowhere_gets_no_distance(maestro: Maestro) -> None:
    sign = board("TOWN CENTRE", [("Railway Station", "1.2 km"), ("Harbour", "0.8 km"), ("Museum", "450 m")])
    assert maestro.ask(sign, "how far is it to the bus station pls").status != "done"
    run = maestro.ask(sign, "how far to the harbour")
    assert (run.status, run.answer) == ("done", "0.8 km"), run.reason


def test_one_time_asked_over_a_range_printed(maestro: Maestro) -> None:
    notice = Image.new("RGB", (1000, 420), (250, 250, 245))
    draw = ImageDraw.Draw(notice)
    draw.text((60, 40), "GYM CLOSED", font=ImageFont.truetype(BOLD, 60), fill=(160, 20, 20))
    body = ImageFont.truetype(BOLD, 40)
    draw.text((60, 160), "Date: Tuesday 4 March", font=body, fill=(20, 20, 20))
    draw.text((60, 240), "Time: 10.15-16.45", font=body, fill=(20, 20, 20))
    run = maestro.ask(notice, "till what time is it closed?")
    assert run.status != "done", run.answer


def test_a_word_for_what_the_thing_is_need_not_be_printed(maestro: Maestro) -> None:
    # "ticket" after "student" says what is bought; the board prints the kinds of visitor only.
    prices = board("ADMISSION", [("Adult", "€14.00"), ("Student", "€9.50"), ("Under 6", "Free")])
    run = maestro.ask(prices, "how much is a student ticket")
    assert (run.status, run.answer) == ("done", "€9.50"), run.reason
