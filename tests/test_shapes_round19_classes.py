"""Shapes round 19 of new users' questions answered wrongly:

- a heart, whose hull has six corners, had been called a hexagon ("what colour is the hexagon?" → "orange" with no
  hexagon drawn); a filled convex kind with a notch no other shape explains is no such kind, while a hexagon partly
  hidden by a shape of another colour still is;
- a 14-pixel speck of a cloth's weave had been "the circle" ("what colour is the circle?" → "brown"): weak
  likenesses, none clear in any colour, are no shape (the weave drawn here is a guard: its specks were already
  refused as many faint likenesses alike).
"""

from __future__ import annotations

import random

import pytest
from PIL import Image, ImageDraw

from agents.config import Settings
from agents.runtime import Maestro
from vision_tools.detection import count_shapes


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


def _heart(draw: ImageDraw.ImageDraw, cx: int, cy: int, r: int, fill: tuple[int, int, int]) -> None:
    draw.ellipse([cx - 2 * r, cy - r, cx, cy + r], fill=fill)
    draw.ellipse([cx, cy - r, cx + 2 * r, cy + r], fill=fill)
    draw.polygon([(cx - 2 * r + 4, cy + r // 3), (cx + 2 * r - 4, cy + r // 3), (cx, cy + 2 * r + r // 2)],
                 fill=fill)


@pytest.fixture(scope="module")
def heart_and_shapes() -> Image.Image:
    image = Image.new("RGB", (1200, 800), (236, 234, 228))
    draw = ImageDraw.Draw(image)
    draw.ellipse([100, 100, 330, 330], fill=(200, 30, 30))
    draw.rectangle([500, 120, 700, 320], fill=(30, 70, 200))
    _heart(draw, 900, 520, 70, (250, 135, 20))
    draw.regular_polygon((250, 560, 110), 5, fill=(130, 60, 180))
    return image


def test_a_heart_is_no_hexagon(heart_and_shapes: Image.Image) -> None:
    found = count_shapes(heart_and_shapes)
    # Since round 36 a heart is a kind of its own (``vision_tools.detection.hearts``).
    assert sorted(d.label for d in found.detections) == ["circle", "heart", "pentagon", "square"]
    assert "orange concave shape" not in found.others


def test_a_hexagon_partly_hidden_by_another_colour_is_still_a_hexagon() -> None:
    image = Image.new("RGB", (900, 700), (240, 240, 240))
    draw = ImageDraw.Draw(image)
    draw.regular_polygon((400, 350, 180), 6, fill=(40, 150, 70))
    draw.ellipse([480, 120, 700, 340], fill=(200, 30, 30))
    assert "hexagon" in [d.label for d in count_shapes(image, shape="hexagon").detections]


def test_a_heart_gives_no_colour_of_a_polygon(maestro: Maestro, heart_and_shapes: Image.Image) -> None:
    # This heart's hull has seven corners: the classifier had called it a heptagon.
    run = maestro.ask(heart_and_shapes, "what colour is the heptagon?")
    assert run.status == "abstained" and run.answer is None, run.answer


def test_a_speck_of_the_weave_is_no_circle(maestro: Maestro) -> None:
    rng = random.Random(5)
    image = Image.new("RGB", (1600, 1200), (214, 198, 170))
    draw = ImageDraw.Draw(image)
    for _ in range(30000):  # a beige weave of small darker and lighter flecks
        x, y = rng.randrange(1600), rng.randrange(1200)
        tone = rng.randint(-40, 30)
        draw.rectangle([x, y, x + rng.randint(2, 9), y + rng.randint(1, 4)],
                       fill=(214 + tone, 198 + tone, 170 + tone))
    for cx, cy in ((300, 300), (900, 400), (600, 900)):
        draw.regular_polygon((cx, cy, 120), 5, fill=(30, 100, 40), rotation=rng.randint(0, 60))
    run = maestro.ask(image, "what colour is the circle?")
    assert run.status == "abstained" and run.answer is None, run.answer


def _no_circle() -> Image.Image:
    """A purple pentagon, a red square, a green diamond and a small cyan hexagon: round-ish, but no circle."""
    image = Image.new("RGB", (800, 700), "white")
    draw = ImageDraw.Draw(image)
    draw.regular_polygon((200, 380, 130), 5, fill=(130, 40, 170))
    draw.rectangle([420, 60, 560, 200], fill=(220, 30, 30))
    draw.regular_polygon((620, 380, 80), 4, rotation=45, fill=(30, 150, 60))
    draw.regular_polygon((540, 610, 55), 6, fill=(0, 200, 220))
    return image


def test_a_hexagon_the_search_takes_for_round_is_no_circle(maestro: Maestro) -> None:
    # The tiled search calls any round-ish blob a circle: a hexagon had answered "what colour is the circle?".
    circle = maestro.ask(_no_circle(), "what colour is the circle")
    assert circle.status == "abstained" and "hexagon" in (circle.reason or ""), circle.answer
    hexagon = maestro.ask(_no_circle(), "what colour is the hexagon")
    assert (hexagon.status, hexagon.answer) == ("done", "cyan"), hexagon.reason
    drawn = _no_circle()
    ImageDraw.Draw(drawn).ellipse([60, 560, 160, 660], fill=(250, 140, 0))
    assert maestro.ask(drawn, "what colour is the circle").answer == "orange"


@pytest.mark.parametrize("outline", [
    [(200, 100), (300, 100), (300, 400), (550, 400), (550, 500), (200, 500)],  # an L
    [(200, 100), (600, 100), (600, 200), (450, 200), (450, 500), (350, 500), (350, 200), (200, 200)],  # a T
])
def test_a_blob_no_shape_fits_is_not_called_other(maestro: Maestro, outline: list[tuple[int, int]]) -> None:
    # "what shape is the blue thing" over a price label's logo had been answered "other", the search's own word.
    image = Image.new("RGB", (800, 600), "white")
    ImageDraw.Draw(image).polygon(outline, fill=(30, 60, 200))
    run = maestro.ask(image, "what shape is the blue thing")
    assert (run.status, run.answer) == ("abstained", None)


def test_the_diamond_is_a_square_on_its_corner_not_any_square(maestro: Maestro) -> None:
    # An upright black square had answered "what colour is the diamond" in a scene with no diamond.
    image = Image.new("RGB", (800, 600), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle([80, 150, 200, 270], fill=(20, 20, 20))
    draw.regular_polygon((550, 300, 110), 6, fill=(0, 90, 220))
    run = maestro.ask(image, "what colour is the diamond")
    assert run.status == "abstained" and "diamond" in (run.reason or ""), run.answer
    draw.regular_polygon((330, 450, 80), 4, rotation=45, fill=(30, 150, 60))
    assert maestro.ask(image, "what colour is the diamond").answer == "green"
