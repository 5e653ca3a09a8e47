"""Signs round 40 of new users' questions: prices printed under their names, and two prices compared.

- "how much r the eggs" over market price tags, "how much is the deluxe wash" over a board of three columns: the
  price is printed under the name, in its column, not beside it; the reading joins rows across the tags, so the
  columns are read from the reader's own lines (``skills/ocr/spans_by_name.py: under_a_name``);
- "Which is cheaper: the honey or the sourdough? (A) Honey (B) Sourdough": the two prices read, compared, unless
  they are for different amounts ("per kg" and "each") or one is not read.
"""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw, ImageFont

from agents.config import Settings
from agents.runtime import Maestro
from tests.test_scene_facts import BOLD, SERIF


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


def _centred(draw: ImageDraw.ImageDraw, x: float, y: float, text: str, font: str, size: int, fill) -> None:  # noqa: ANN001
    face = ImageFont.truetype(font, size)
    draw.text((x - draw.textlength(text, font=face) / 2, y), text, font=face, fill=fill)


@pytest.fixture(scope="module")
def tags() -> Image.Image:
    """Six tags on a wooden stall, two rows of three: a name, its price under it, sometimes what the price is for."""
    image = Image.new("RGB", (1500, 900), (120, 85, 50))
    draw = ImageDraw.Draw(image)
    for k, (name, price, per) in enumerate([("Duck Eggs", "£2.60", "per half dozen"), ("Honey", "£5.50", "340g jar"),
                                            ("Leeks", "£1.10", "each"), ("Plums", "£2.40", "per kg"),
                                            ("Sourdough", "£3.80", ""), ("Chutney", "£2.90", "")]):
        x, y = 60 + (k % 3) * 480, 80 + (k // 3) * 400
        draw.rectangle([x, y, x + 400, y + 300], fill=(250, 245, 225))
        _centred(draw, x + 200, y + 40, name, BOLD, 40, (30, 30, 30))
        _centred(draw, x + 200, y + 120, price, SERIF, 64, (150, 20, 20))
        if per:
            _centred(draw, x + 200, y + 220, per, SERIF, 30, (60, 60, 60))
    return image


@pytest.mark.parametrize(("question", "answer"), [
    ("how much r the duck eggs", "£2.60"),
    ("whats the price of the honey", "£5.50"),
    ("how much is the chutney?", "£2.90"),
    ("What is the price of the plums? (A) £2.40 (B) £3.80 (C) £1.10", "A"),
    ("Which is cheaper: the Honey or the Sourdough? (A) Honey (B) Sourdough", "B"),
    ("what costs more, the sourdough or the chutney", "sourdough"),
])
def test_a_price_under_its_name_on_a_tag(maestro: Maestro, tags: Image.Image, question: str, answer: str) -> None:
    run = maestro.ask(tags, question)
    assert (run.status, run.answer) == ("done", answer), run.reason


@pytest.mark.parametrize("question", [
    "how much are the strawberries",  # no tag names them
    "which is cheaper, the leeks or the chutney",  # £1.10 each against £2.90: not the same amount of anything
    "which is cheaper, plums or honey?",  # per kg against a jar
])
def test_no_price_where_the_tags_do_not_give_it(maestro: Maestro, tags: Image.Image, question: str) -> None:
    run = maestro.ask(tags, question)
    assert run.status == "abstained" and run.answer is None, (run.answer, run.reason)


def test_a_price_board_of_columns(maestro: Maestro) -> None:
    image = Image.new("RGB", (1500, 800), (240, 240, 250))
    draw = ImageDraw.Draw(image)
    _centred(draw, 750, 20, "SPARKLE CAR WASH", BOLD, 60, (20, 20, 20))
    for k, (name, price, what) in enumerate([("BASIC", "£6", "Wash & rinse"), ("DELUXE", "£10", "Wash, wax & dry"),
                                             ("ULTIMATE", "£15", "Deluxe + interior")]):
        x = 80 + k * 470
        draw.rectangle([x, 100, x + 420, 700], outline=(20, 60, 140), width=6)
        _centred(draw, x + 210, 150, name, BOLD, 54, (20, 60, 140))
        _centred(draw, x + 210, 280, price, BOLD, 90, (200, 30, 30))
        _centred(draw, x + 210, 460, what, SERIF, 32, (30, 30, 30))
    for question, answer in [("how much is the deluxe wash", "£10"), ("price of ultimate?", "£15")]:
        run = maestro.ask(image, question)
        assert (run.status, run.answer) == ("done", answer), (question, run.reason)


def test_a_grid_of_sizes_is_no_column_of_one_items_prices(maestro: Maestro) -> None:
    """"a large latte" over a board with sizes across and drinks down: under "Large" is the Americano's price."""
    image = Image.new("RGB", (1300, 620), (30, 30, 30))
    draw = ImageDraw.Draw(image)
    for k, size in enumerate(("Small", "Medium", "Large")):
        _centred(draw, 600 + 240 * k, 60, size, BOLD, 40, (250, 250, 250))
    for r, (drink, prices) in enumerate([("Americano", ("£2.50", "£2.90", "£3.20")),
                                         ("Latte", ("£2.80", "£3.10", "£3.40")),
                                         ("Mocha", ("£3.00", "£3.30", "£3.60"))]):
        y = 160 + 130 * r
        draw.text((60, y), drink, font=ImageFont.truetype(SERIF, 44), fill=(250, 250, 250))
        for k, price in enumerate(prices):
            _centred(draw, 600 + 240 * k, y, price, SERIF, 44, (250, 220, 120))
    run = maestro.ask(image, "how much is a large latte?")
    assert run.answer != "£3.20", run.reason


@pytest.mark.parametrize(("rows", "question", "answer"), [
    ([("MacBook Air", "$1,299"), ("Dell XPS", "$899")], "which is cheaper, the macbook air or the dell xps?",
     "dell xps"),
    ([("Adult", "£15"), ("Family", "£25")], "which is cheaper: 2 adult tickets or a family ticket?", None),
    ([("Tea", "£2.20"), ("Coffee", "£2.90")], "which is not cheaper, tea or coffee?", None),
])
def test_two_prices_compared_as_amounts_of_one_thing(maestro: Maestro, rows, question: str, answer: str | None) -> None:
    image = Image.new("RGB", (900, 140 + 110 * len(rows)), (250, 248, 240))
    draw = ImageDraw.Draw(image)
    for k, (name, price) in enumerate(rows):
        draw.text((60, 60 + 110 * k), name, font=ImageFont.truetype(SERIF, 48), fill=(20, 20, 20))
        draw.text((600, 60 + 110 * k), price, font=ImageFont.truetype(BOLD, 48), fill=(20, 20, 20))
    run = maestro.ask(image, question)
    assert run.answer == answer, run.reason
