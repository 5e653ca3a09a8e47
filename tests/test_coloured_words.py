"""The one word printed in a colour among a clutter of grey words in a 4K image: read, placed, and its colour named.

"what does the orange word say?" and "where is the coloured word?" over 4,000 grey words had been refused: reading
everything drowned the word, and the colour search saw its letters only as faint specks.
"""

from __future__ import annotations

import random

import pytest
from PIL import Image, ImageDraw, ImageFont

from agents.config import Settings
from agents.runtime import Maestro
from skills.coloured_words import WordQuestion, coloured_word_question
from tests.test_answers_as_asked import BOLD

GREY_WORDS = ["salt", "door", "river", "frame", "stone", "wire", "lamp", "paper", "glass", "cloud"]


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


def _clutter(words: list[tuple[str, tuple[int, int], tuple[int, int, int]]], seed: int = 4) -> Image.Image:
    """A 4K grey ground strewn with grey words, and ``words`` (text, top-left, colour) printed over it."""
    rng = random.Random(seed)
    image = Image.new("RGB", (3840, 2160), (150, 148, 144))
    draw = ImageDraw.Draw(image)
    small = ImageFont.truetype(BOLD, 34)
    for _ in range(1400):
        tone = rng.randint(70, 200)
        draw.text((rng.randrange(3700), rng.randrange(2120)), rng.choice(GREY_WORDS), fill=(tone, tone, tone - 4),
                  font=small)
    big = ImageFont.truetype(BOLD, 110)
    for text, at, colour in words:
        draw.text(at, text, fill=colour, font=big)
    return image


@pytest.fixture(scope="module")
def orange_word() -> Image.Image:
    return _clutter([("MANGO", (420, 260), (245, 135, 20))])


@pytest.mark.parametrize(("question", "answer"), [
    ("what does the orange word say?", "MANGO"),
    ("where is the coloured word located", "top-left"),
    ("One word is in colour - which colour?", "orange"),
    ("what does the blue word say?", None),  # there is none
    ("which word is in colour?", "MANGO"),  # had been "orange", and before that no answer
    ("what colour is that word", "orange"),  # rounds 33 and 34: "the word" alone, no answer
])
def test_the_coloured_word_is_read_placed_and_named(maestro: Maestro, orange_word: Image.Image, question: str,
                                                    answer: str | None) -> None:
    run = maestro.ask(orange_word, question)
    assert run.answer == answer, run.reason


def test_two_words_of_the_colour_are_not_one(maestro: Maestro) -> None:
    image = _clutter([("MANGO", (420, 260), (220, 30, 30)), ("LIME", (2900, 1700), (220, 30, 30))])
    run = maestro.ask(image, "what does the red word say?")
    assert run.status == "abstained" and run.answer is None, run.answer


@pytest.mark.parametrize(("question", "asked"), [
    ("what word is written in pink?", WordQuestion("read", "pink")),
    ("where in the picture is the red word", WordQuestion("where", "red")),
    ("what colour is the hidden text?", WordQuestion("colour", None)),
    ("What is written on the red sign?", None),  # the text of a sign, not a word picked by its colour
    ("what colour is the red word?", None),  # answered by the question itself
    # "in colour?" says which word, and asks for the word, not its colour.
    ("which word is in colour?", WordQuestion("read", None)),
    ("is the coloured word on the left or right side?", WordQuestion("where", None)),
    ("what word is printed in colour", WordQuestion("read", None)),
    ("one word is in colour - which colour?", WordQuestion("colour", None)),
    ("what colour is the word?", WordQuestion("colour", None)),
    ("what colour is the word STOP written in", None),  # one word named: not whichever is coloured
    ("what color is the text", None),  # all the text, whose colour is not one word's
])
def test_what_a_question_asks_of_a_coloured_word(question: str, asked: WordQuestion | None) -> None:
    assert coloured_word_question(question) == asked
