"""Chat before a question ("hey, is …", "ok so did …") is not the question: its form and wording are read after it.

"hey is glass more than plastics and textiles put together?" had been answered "2460": the question did not start
with "is", so it was read as asking for a value, and the sum of the two was given.
"""

from __future__ import annotations

import pytest

from agents.config import Settings
from agents.runtime import Maestro
from skills.answer_form import answer_form
from skills.chat import without_opener
from tests.test_answers_as_asked import render

TONNES = {"Garden waste": 2900, "Glass": 2600, "Paper": 1800, "Plastics": 1500, "Textiles": 960}


@pytest.mark.parametrize(("typed", "proper"), [
    ("hey is glass more than plastics?", "is glass more than plastics?"),
    ("hi, are there more cats than dogs", "are there more cats than dogs"),
    ("ok so did sales go up", "did sales go up"),
    ("pls whats the total", "whats the total"),
    ("so many shapes, how many are red", "so many shapes, how many are red"),  # no chat: "so" starts no question
    ("please note the date: what is it", "please note the date: what is it"),
])
def test_chat_before_a_question_is_left_out(typed: str, proper: str) -> None:
    assert without_opener(typed) == proper


def test_the_form_is_the_question_propers() -> None:
    assert answer_form("hey is glass more than plastics and textiles put together?").kind == "yesno"
    assert answer_form("hey how many bins are there").kind == "count"


def test_a_yes_no_question_after_a_greeting_is_answered_yes_or_no(tmp_path) -> None:  # noqa: ANN001 - pytest's tmp_path
    def draw(ax) -> None:  # noqa: ANN001 - matplotlib axes
        bars = ax.barh(list(TONNES), list(TONNES.values()), color="#4c956c")
        ax.bar_label(bars, labels=[f"{v:,} kg" for v in TONNES.values()])
        ax.set_xlabel("Collected (kg)")
        ax.set_title("Recycling centre, materials collected in May")

    maestro = Maestro.open(Settings.resolve(data_dir=tmp_path))
    image = render(draw)
    run = maestro.ask(image, "hey is glass more than paper?")
    assert (run.status, run.answer) == ("done", "Yes"), run.reason
    # Never the sum of the two for a Yes/No question: Yes or No, or no answer.
    summed = maestro.ask(image, "hey is glass more than plastics and textiles put together?")
    assert summed.answer in ("Yes", None) and summed.status in ("done", "abstained")


@pytest.mark.parametrize("question", ["what colour r the 2 shapes that are touching", "hey which shapes touch",
                                      "where is the star"])
def test_yes_or_no_answers_no_question_asking_what_which_or_where(question: str) -> None:
    from skills.answer_form import conform

    form = answer_form(question)
    assert form.asks_wh and conform(form, "Yes") is None and conform(form, "No") is None
    assert conform(form, "blue") == "blue"
    assert conform(answer_form("is the star blue"), "Yes") == "Yes"
