"""Which drawn shape is the biggest or the smallest, and its colour.

"Which shape is the biggest?" over a purple hexagon among smaller circles had been refused ("the tools cannot
locate a 'biggest'"). The shapes are measured by the area inside their outline; an extreme is named only when it
is clearly one, and never past a piece the tools cannot name that is as large (a heart).
"""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from agents.config import Settings
from agents.runtime import Maestro
from skills.perception.sizes import asks_about_size
from tests.test_shapes_round19_classes import _heart


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


def _scene(big: bool = True) -> Image.Image:
    """A big purple hexagon (unless ``big`` is False: then as small as the circles), three blue circles, two
    orange triangles and one tiny green square."""
    image = Image.new("RGB", (1200, 800), (238, 238, 238))
    draw = ImageDraw.Draw(image)
    draw.regular_polygon((600, 420, 230 if big else 70), 6, fill=(120, 50, 170))
    for x in (150, 300, 1000):
        draw.ellipse([x - 60, 120, x + 60, 240], fill=(30, 90, 210))
    draw.polygon([(120, 700), (250, 700), (185, 580)], fill=(240, 130, 20))
    draw.polygon([(950, 700), (1080, 700), (1015, 580)], fill=(240, 130, 20))
    draw.rectangle([1060, 340, 1080, 360], fill=(40, 160, 60))
    return image


@pytest.mark.parametrize(("question", "answer"), [
    ("Which shape is the biggest?", "hexagon"),
    ("what colour is the largest shape?", "purple"),
    ("which shape is the smallest?", "square"),
    ("What colour is the tiniest shape in the picture", "green"),
    ("whats the biggest shape?", "hexagon"),  # "whats" had asked nothing the size reading knew
    ("what colour is the biggest circle?", None),  # three circles alike: none is the biggest
])
def test_the_clear_extreme_is_named(maestro: Maestro, question: str, answer: str | None) -> None:
    run = maestro.ask(_scene(), question)
    assert run.answer == answer, run.reason


def test_no_extreme_among_shapes_alike_in_size(maestro: Maestro) -> None:
    # The hexagon is now as large as a circle: no shape is clearly the biggest.
    run = maestro.ask(_scene(big=False), "Which shape is the biggest?")
    assert run.status == "abstained" and run.answer is None, run.answer


def test_a_large_piece_the_tools_cannot_name_may_be_the_biggest(maestro: Maestro) -> None:
    image = Image.new("RGB", (1700, 800), (238, 238, 238))
    image.paste(_scene(), (0, 0))
    _heart(ImageDraw.Draw(image), 1450, 330, 110, (220, 30, 60))  # a heart nearly as large as the hexagon
    run = maestro.ask(image, "Which shape is the biggest?")
    assert run.status == "abstained" and run.answer is None, run.answer


@pytest.mark.parametrize(("question", "asks"), [
    ("Which shape is the biggest?", True),
    ("what colour is the largest shape?", True),
    ("which is the smallest one", True),
    ("whats the biggest shape?", True),
    ("which city has the largest population?", False),
    ("what is the biggest number on the sign?", False),
])
def test_what_asks_about_a_shape_s_size(question: str, asks: bool) -> None:
    assert asks_about_size(question) is asks


def test_a_shape_the_classifier_names_only_by_its_corners_is_no_answer(maestro: Maestro) -> None:
    # A small brown rhombus had been named "quadrilateral" for "whats the smallest shape" (a diamond, to a person).
    image = Image.new("RGB", (1200, 800), (238, 238, 238))
    draw = ImageDraw.Draw(image)
    draw.ellipse([100, 100, 400, 400], fill=(30, 40, 110))
    draw.regular_polygon((800, 300, 150), 5, fill=(120, 120, 0))
    draw.polygon([(600, 560), (640, 640), (600, 720), (560, 640)], fill=(150, 90, 40))  # taller than wide
    run = maestro.ask(image, "whats the smallest shape")
    assert run.answer != "quadrilateral" and (run.status == "abstained" or run.answer == "diamond"), run.answer


@pytest.mark.parametrize("diagonals", [(64, 84), (70, 78), (80, 80)])
def test_a_shape_on_its_corner_is_no_rectangle(maestro: Maestro, diagonals: tuple[int, int]) -> None:
    # A black rhombus on graph paper had been named "rectangle" for "whats the smallest shape".
    image = Image.new("RGB", (1200, 800), (250, 250, 245))
    draw = ImageDraw.Draw(image)
    for x in range(0, 1200, 40):
        draw.line([(x, 0), (x, 800)], fill=(200, 215, 230), width=1)
    for y in range(0, 800, 40):
        draw.line([(0, y), (1200, y)], fill=(200, 215, 230), width=1)
    draw.ellipse([80, 450, 600, 720], fill=(120, 60, 160))
    draw.rectangle([850, 480, 1080, 630], fill=(40, 90, 200))
    w, h = diagonals[0] / 2, diagonals[1] / 2
    draw.polygon([(720, 450 - h), (720 + w, 450), (720, 450 + h), (720 - w, 450)], fill=(20, 20, 20))
    run = maestro.ask(image, "whats the smallest shape")
    assert run.answer in (None, "diamond"), run.answer
