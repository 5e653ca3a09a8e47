"""Two counts compared (round 38): "are there more blue circles than green circles?" and "more stars or squares?
(A) stars (B) squares (C) same number" had gone unanswered although each count was read. Each side is counted as
a question of its own, with every check a count gets, and a side the tools cannot count leaves the comparison open.
"""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from agents.config import Settings
from agents.runtime import Maestro
from skills.counting.compare import compared_counts


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


def _star(draw: ImageDraw.ImageDraw, cx: int, cy: int, r: int, fill: tuple[int, int, int]) -> None:
    import math

    points = [(cx + (r if k % 2 == 0 else r * 0.45) * math.sin(k * math.pi / 5),
               cy - (r if k % 2 == 0 else r * 0.45) * math.cos(k * math.pi / 5)) for k in range(10)]
    draw.polygon(points, fill=fill)


@pytest.fixture(scope="module")
def board() -> Image.Image:
    """Three orange circles, one green circle, two purple squares and three orange stars, none touching."""
    image = Image.new("RGB", (1200, 800), (250, 250, 246))
    draw = ImageDraw.Draw(image)
    for x in (120, 330, 540):
        draw.ellipse([x, 90, x + 140, 230], fill=(240, 130, 20))
    draw.ellipse([800, 90, 940, 230], fill=(40, 160, 70))
    draw.rectangle([120, 330, 270, 480], fill=(120, 50, 170))
    draw.rectangle([420, 330, 570, 480], fill=(120, 50, 170))
    for x in (760, 960):
        _star(draw, x, 420, 80, (240, 130, 20))
    _star(draw, 600, 650, 80, (240, 130, 20))
    return image


@pytest.mark.parametrize(("question", "expected"), [
    ("are there more orange circles than green circles?", "Yes"),
    ("r there fewer orange circles than green ones", "No"),
    ("are there more squares or stars? (A) squares (B) stars (C) same number", "B"),
    ("are there more circles or stars?", "circles"),
])
def test_two_counts_compared(maestro: Maestro, board: Image.Image, question: str, expected: str) -> None:
    run = maestro.ask(board, question)
    assert (run.status, run.answer) == ("done", expected), run.reason


def test_equal_counts_answer_only_an_option_that_says_so(maestro: Maestro, board: Image.Image) -> None:
    run = maestro.ask(board, "are there more orange circles or orange stars? (A) circles (B) stars (C) the same")
    assert (run.status, run.answer) == ("done", "C"), run.reason


def test_a_side_that_cannot_be_counted_leaves_the_comparison_open(maestro: Maestro, board: Image.Image) -> None:
    run = maestro.ask(board, "are there more cups than circles?")  # no detector for cups
    assert run.status != "done", run.answer


def test_what_is_compared() -> None:
    pair = compared_counts("are there more red squares than green ones?")
    assert pair is not None and (pair.first, pair.second) == ("how many red squares", "how many green squares")
    assert compared_counts("how many circles are there?") is None


def test_how_many_more_is_no_yes_or_no(maestro: Maestro, board: Image.Image) -> None:
    run = maestro.ask(board, "how many more orange circles than green circles are there?")
    assert run.answer not in ("Yes", "No")
