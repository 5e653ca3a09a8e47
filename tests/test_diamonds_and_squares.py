"""A diamond is a square standing on its corner: "how many diamonds?" counts those only, and "how many squares?"
counts every square, however it stands.

"how many diamonds? include the hollow one" over three green diamonds and an orange upright square had been
answered 4: the word "diamond" was read as "square" and the upright one counted with them.
"""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from agents.config import Settings
from agents.runtime import Maestro


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


def _diamond(draw: ImageDraw.ImageDraw, cx: int, cy: int, r: int, colour: tuple[int, int, int],
             hollow: bool = False) -> None:
    points = [(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)]
    if hollow:
        draw.polygon(points, outline=colour, width=6)
    else:
        draw.polygon(points, fill=colour)


def _scene(upright: bool = True) -> Image.Image:
    image = Image.new("RGB", (1200, 900), (232, 236, 242))
    draw = ImageDraw.Draw(image)
    _diamond(draw, 250, 250, 100, (40, 160, 70))
    _diamond(draw, 600, 450, 85, (40, 160, 70), hollow=True)
    _diamond(draw, 980, 750, 60, (40, 160, 70))
    if upright:
        draw.rectangle([520, 80, 650, 210], outline=(240, 130, 20), width=6)
        draw.rectangle([850, 250, 980, 380], fill=(30, 90, 200))
    draw.ellipse([100, 620, 200, 720], fill=(200, 30, 30))
    return image


def test_diamonds_are_the_squares_on_a_corner(maestro: Maestro) -> None:
    run = maestro.ask(_scene(), "how many diamonds? include the hollow one")
    assert (run.status, run.answer) == ("done", "3"), run.reason


def test_squares_of_both_stances_are_all_squares(maestro: Maestro) -> None:
    # A square on its corner is still a square: the synthetic mix draws squares at any angle and counts them all.
    run = maestro.ask(_scene(), "how many squares are there?")
    assert (run.status, run.answer) == ("done", "5"), run.reason


def test_squares_all_on_a_corner_are_still_squares(maestro: Maestro) -> None:
    run = maestro.ask(_scene(upright=False), "How many squares are in the picture?")
    assert (run.status, run.answer) == ("done", "3"), run.reason
