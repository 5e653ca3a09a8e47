"""Shapes round 40 of new users' questions: facts of named shapes a person reads at a glance, which the tools had
measured all along and never answered (``skills/perception/shape_facts.py``).

- "is the pentagon filled in or just an outline?", "Is the star filled or outline? (A) filled (B) outline":
  segmentation says whether each shape is filled;
- "is the yellow triangle in the left half or the right half of the pic", "is the red circle on the left or the
  right side?": the centre of the one shape named, clearly off the middle;
- "which is bigger, the red circle or the diamond?": the areas of the two named shapes, clearly apart.

Each shape named must be the only one of its kind and colour, and the reading clear, or there is no answer.

And on busy pictures: "how many coloured shapes are hidden in this?" counts what stands out of the clutter
(``skills/counting/standouts.py``); "what colour is the small shape hidden in the clutter?" names the shape, not
"shape hidden". On drawings: "Which circle is the largest? (A) red (B) green" asks for its colour, and a square on
its corner is a "diamond" when its shape is asked.
"""

from __future__ import annotations

import math

import pytest
from PIL import Image, ImageDraw

from agents.config import Settings
from agents.runtime import Maestro
from skills.answer_form import answer_form, conform
from tests.test_prices_in_dates_and_positions import grey_gravel


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


def _star(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float, **style: object) -> None:
    points = [(cx + (r if k % 2 == 0 else 0.45 * r) * math.cos(-math.pi / 2 + k * math.pi / 5),
               cy + (r if k % 2 == 0 else 0.45 * r) * math.sin(-math.pi / 2 + k * math.pi / 5)) for k in range(10)]
    draw.polygon(points, **style)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def drawing() -> Image.Image:
    """An outlined green pentagon (top left), a filled red circle (top right), a filled blue hexagon (bottom left),
    an outlined orange star (bottom right), a small filled purple diamond in the middle, two teal squares."""
    image = Image.new("RGB", (1200, 800), (245, 245, 240))
    draw = ImageDraw.Draw(image)
    draw.regular_polygon((250, 250, 110), 5, outline=(40, 120, 40), width=8)
    draw.ellipse([800, 150, 1000, 350], fill=(200, 40, 40))
    draw.regular_polygon((300, 600, 90), 6, fill=(60, 60, 200))
    _star(draw, 900, 600, 120, outline=(230, 160, 20), width=8)
    draw.polygon([(600, 360), (660, 420), (600, 480), (540, 420)], fill=(110, 40, 160))
    draw.rectangle([520, 80, 580, 140], fill=(20, 150, 150))
    draw.rectangle([620, 640, 680, 700], fill=(20, 150, 150))
    return image


@pytest.mark.parametrize(("question", "answer"), [
    ("is the pentagon filled in or just an outline?", "outline"),
    ("Is the orange star filled or outline? (A) filled (B) outline", "B"),
    ("is the hexagon solid or hollow", "solid"),
    ("is the red circle on the left or the right side?", "the right side"),  # the alternative as offered
    ("is the blue hexagon in the top half or the bottom half of the picture", "bottom"),
    ("Is the red circle on the left or the right side of the picture?", "right"),  # round 41: "side of the picture"
    ("is the hexagon at the top or bottom of the image?", "bottom"),
    ("which is bigger, the red circle or the diamond?", "the red circle"),
    ("which one is smaller: the diamond or the orange star", "the diamond"),
])
def test_a_named_shapes_fill_half_and_size(maestro: Maestro, drawing: Image.Image, question: str,
                                           answer: str) -> None:
    run = maestro.ask(drawing, question)
    assert (run.status, run.answer) == ("done", answer), run.reason


@pytest.mark.parametrize("question", [
    "is the teal square on the left or the right?",  # two teal squares: which one is not said
    "is the red circle on the left or the right of the diamond?",  # beside another shape, not a half of the image
    "is the blue hexagon in the upper right or the lower left corner?",  # corners, not halves
    "is the red circle filled with red or blue?",  # the colour of its fill, not whether it is filled
    "is the green pentagon empty or does it have a dot in it?",  # what is inside, not how it is drawn
    "is the diamond in the left half or the right half?",  # it sits on the middle
    "which is bigger, the green pentagon or the blue hexagon?",  # areas 1.4 times apart: too near to call
    "is the yellow triangle filled in or just an outline?",  # there is none
])
def test_no_answer_where_the_shape_or_the_reading_is_not_clear(maestro: Maestro, drawing: Image.Image,
                                                               question: str) -> None:
    run = maestro.ask(drawing, question)
    assert run.status == "abstained" and run.answer is None, (run.answer, run.reason)


def test_on_a_busy_4k_scene_the_coloured_shapes_are_placed_and_compared(maestro: Maestro) -> None:
    image = grey_gravel(5)
    draw = ImageDraw.Draw(image)
    draw.polygon([(2900, 700), (2840, 800), (2960, 800)], fill=(235, 200, 20))
    draw.rectangle([500, 1500, 640, 1640], fill=(30, 80, 210))
    half = maestro.ask(image, "is the yellow triangle in the left half or the right half of the pic")
    assert (half.status, half.answer) == ("done", "right"), half.reason
    thing = maestro.ask(image, "is the yellow thing in the left or right half of the pic")  # round 41: by its colour
    assert (thing.status, thing.answer) == ("done", "right"), thing.reason
    needles = maestro.ask(image, "how many colored needles r hidden in the clutter")
    assert (needles.status, needles.answer) == ("done", "2"), needles.reason
    bigger = maestro.ask(image, "which is bigger, the blue square or the yellow triangle?")
    assert (bigger.status, bigger.answer) == ("done", "the blue square"), bigger.reason


def test_the_alternatives_of_a_side_share_their_noun() -> None:
    form = answer_form("is the orange rectangle on the left or the right side?")
    assert form.alternatives == ("left side", "the right side")
    assert conform(answer_form("is the heart filled in or just an outline"), "filled") == "filled"


def _needles(shapes: list[tuple[str, tuple[int, int], int, tuple[int, int, int]]], seed: int = 2) -> Image.Image:
    image = grey_gravel(seed)
    draw = ImageDraw.Draw(image)
    for kind, (x, y), r, colour in shapes:
        if kind == "circle":
            draw.ellipse([x - r, y - r, x + r, y + r], fill=colour)
        elif kind == "star":
            _star(draw, x, y, r, fill=colour)
        else:
            draw.polygon([(x, y - r), (x + r, y), (x, y + r), (x - r, y)], fill=colour)
    return image


@pytest.mark.parametrize(("shapes", "question", "answer"), [
    ([("circle", (900, 400), 50, (220, 30, 200)), ("star", (2500, 1500), 60, (20, 200, 220)),
      ("diamond", (3300, 300), 45, (40, 170, 60))], "count the colored shapes hidden in the clutter", "3"),
    ([("circle", (2000, 1000), 25, (200, 40, 40))], "theres some coloured shapes hidden in this, how many are there",
     "1"),
])
def test_coloured_shapes_that_stand_out_of_clutter_are_counted(maestro: Maestro, shapes, question: str,
                                                               answer: str) -> None:
    run = maestro.ask(_needles(shapes), question)
    assert (run.status, run.answer) == ("done", answer), run.reason


def test_no_count_where_nothing_stands_out(maestro: Maestro) -> None:
    run = maestro.ask(grey_gravel(3), "how many brightly coloured shapes are in this image?")
    assert run.status == "abstained" and run.answer is None, run.answer


def test_the_colour_of_a_shape_hidden_in_clutter(maestro: Maestro) -> None:
    image = _needles([("star", (2500, 1500), 60, (20, 60, 210))])
    run = maestro.ask(image, "What colour is the small coloured shape hidden in the clutter?")
    assert (run.status, run.answer) == ("done", "blue"), run.reason


@pytest.fixture(scope="module")
def circles() -> Image.Image:
    image = Image.new("RGB", (1000, 700), (250, 250, 250))
    draw = ImageDraw.Draw(image)
    for x, y, r, colour in [(200, 200, 60, (220, 30, 30)), (500, 350, 140, (30, 160, 60)),
                            (800, 200, 70, (240, 200, 20)), (300, 550, 30, (140, 50, 170))]:
        draw.ellipse([x - r, y - r, x + r, y + r], fill=colour)
    draw.polygon([(820, 470), (890, 540), (820, 610), (750, 540)], fill=(20, 200, 220))
    return image


@pytest.mark.parametrize(("question", "answer"), [
    ("Which circle is the largest? (A) red (B) green (C) yellow (D) purple", "B"),
    ("which circle is the smallest", "purple"),
    ("what shape is the cyan one", "diamond"),
    ("Which shape is cyan? (A) circle (B) diamond (C) star", "B"),
])
def test_which_circle_and_a_diamond_named_as_people_do(maestro: Maestro, circles: Image.Image, question: str,
                                                       answer: str) -> None:
    run = maestro.ask(circles, question)
    assert (run.status, run.answer) == ("done", answer), run.reason
