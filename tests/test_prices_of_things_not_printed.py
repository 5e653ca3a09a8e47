"""A price the question asks for a thing the image does not print: "how much is the fine if I overstay?" over a
parking sign whose one price is its hourly rate had been answered with that rate at P 0.99. The one price printed
answers a question only when the question names nothing else ("how much is it?", "how much did this ticket
cost?"), or names what the price's line prints ("the hourly rate"). And "can u read her email address off the
badge" asks for the address, not whether it can be read: it had been answered "No".
"""

from __future__ import annotations

import pytest
from PIL import Image

from agents.config import Settings
from agents.runtime import Maestro
from skills.answer_form import answer_form
from tests.test_scene_facts import BOLD, SANS, card


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


@pytest.fixture(scope="module")
def parking() -> Image.Image:
    return card([("PAY & DISPLAY", 44), ("Mon - Sat 8am - 6pm", 30), ("Max stay 2 hours", 30),
                 ("£1.80 per hour", 40), ("Permit holders exempt", 26)], font=BOLD, paper=(240, 240, 245),
                size=(640, 560))


@pytest.mark.parametrize("question", [
    "how much is the fine if I overstay?",
    "how much does a monthly permit cost?",
])
def test_no_price_for_a_thing_the_sign_does_not_print(maestro: Maestro, parking: Image.Image, question: str) -> None:
    run = maestro.ask(parking, question)
    assert run.status == "abstained" and run.answer is None, run.answer
    assert "printed nowhere" in (run.reason or "") or "no price beside it" in (run.reason or ""), run.reason


@pytest.mark.parametrize("question", ["whats the hourly rate", "how much is it per hour?"])
def test_the_price_the_question_names_is_read(maestro: Maestro, parking: Image.Image, question: str) -> None:
    run = maestro.ask(parking, question)
    assert (run.status, run.answer) == ("done", "£1.80"), run.reason


def test_this_ticket_is_the_image_itself(maestro: Maestro) -> None:
    ticket = card([("GREAT WESTERN", 34), ("Anytime Return", 30), ("London to Bath", 30), ("£63.40", 44)],
                  font=SANS, paper=(235, 245, 235), size=(640, 460))
    run = maestro.ask(ticket, "How much did this ticket cost?")
    assert (run.status, run.answer) == ("done", "£63.40"), run.reason


def test_a_capacity_is_no_count_of_what_the_photo_shows(maestro: Maestro) -> None:
    # "max how many people can go in this lift" over a lift certificate had been "1": a person "seen" in its print.
    certificate = card([("LIFT INSPECTION CERTIFICATE", 30), ("Safe working load", 28), ("630 kg / 8 persons", 34),
                        ("Next inspection: 03/2026", 26)], font=SANS, paper=(250, 250, 245), size=(760, 460))
    run = maestro.ask(certificate, "max how many people can go in this lift")
    assert run.answer == "8" or (run.status == "abstained" and "limit" in (run.reason or "")), run.reason


@pytest.mark.parametrize(("question", "limit"), [
    ("max how many people can go in this lift", True),
    ("how many guests can stay in the room?", True),
    ("how many people are allowed in", True),
    ("How many white stars can you see?", False),  # what the image shows
    ("how many circles can be seen", False),
    ("how many triangles could you find", False),
])
def test_a_limit_is_told_from_what_can_be_seen(question: str, limit: bool) -> None:
    from skills.counting.skill import _CAPACITY

    assert bool(_CAPACITY.search(question)) is limit


@pytest.mark.parametrize(("question", "kind"), [
    ("can u read her email address off the badge", "text"),
    ("could you pls tell me the price", "free"),
    ("can u see a dog?", "yesno"),
])
def test_a_request_in_text_speak_is_no_yes_no_question(question: str, kind: str) -> None:
    assert answer_form(question).kind == kind
