"""A sign's ordinary hours do not say what happens on a holiday, and a poster's heading is no pet's name.

- "What time do they open on Easter Monday?" over a board of weekday hours had been the Monday's opening time: a
  holiday's hours are often not a weekday's, and a board that prints none for it does not answer. A board that
  prints the holiday ("Closed on bank holidays") still answers from that row.
- "What's the cat's name?" over a LOST CAT poster had been "LOST CAT": a short line of capitals ending in the noun
  is a shop's or a street's name ("Hartley's Bakery"), never a cat's, a dog's or a person's.
"""

from __future__ import annotations

import pytest

from agents.config import Settings
from agents.runtime import Maestro
from tests.calibrations import rated_rules
from tests.test_scene_facts import BOLD, card


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    # The rules' own reading is the subject: a data directory whose ratings certified them (tests/calibrations.py).
    home = tmp_path_factory.mktemp("home")
    rated_rules(home)
    return Maestro.open(Settings.resolve(data_dir=home))


@pytest.fixture(scope="module")
def bakery() -> object:
    return card([("Crumb & Co", 48), ("Mon - Fri  7:00 - 17:00", 32), ("Sat  8:00 - 14:00", 32),
                 ("Sun  closed", 32)])


@pytest.mark.parametrize("question", ["what time do they open on easter monday",
                                      "what time do they open on esater monday",  # typed with a slip
                                      "When do they close on Christmas Eve?",
                                      "are they open on boxing day",
                                      "is it open on bank holiday mondays?"])
def test_a_holiday_the_board_does_not_print_is_not_answered_with_a_weekdays_hours(maestro, bakery,
                                                                                    question: str) -> None:
    run = maestro.ask(bakery, question)
    assert run.status == "abstained" and run.answer is None, (run.answer, run.reason)
    assert "holiday" in run.reason or "no hours" in run.reason, run.reason


def test_the_weekday_itself_is_still_answered(maestro, bakery) -> None:
    run = maestro.ask(bakery, "what time do they open on monday")
    assert (run.status, run.answer) == ("done", "7:00"), run.reason


def test_a_holiday_the_board_prints_closed_is_a_no(maestro) -> None:
    pool = card([("Leisure Pool", 48), ("Mon - Fri  6:30 - 21:00", 32), ("Sat - Sun  8:00 - 18:00", 32),
                 ("Closed on Bank Holidays", 30)])
    run = maestro.ask(pool, "is the pool open on bank holiday mondays?")
    assert (run.status, run.answer) == ("done", "No"), run.reason
    # A "Yes" had been possible here only by the weekday's hours; the printed closure answers it.
    christmas = maestro.ask(card([("Open Daily 9:00 - 17:00", 32), ("Closed Christmas Day", 32)]),
                            "Is it open on Christmas Day?")
    assert (christmas.status, christmas.answer) == ("done", "No"), christmas.reason
    timed = maestro.ask(pool, "what time does it open on a bank holiday")
    assert timed.status == "abstained" and "closed" in timed.reason.lower(), timed.reason


@pytest.mark.parametrize(("lines", "question"), [
    ([("LOST CAT", 64), ("Pepper", 44), ("Grey tabby, green collar", 28), ("Call 07700 900123", 28)],
     "what's the cat's name"),
    ([("MISSING DOG", 64), ("Answers to Biscuit", 34), ("Call 07700 900456", 28)], "what is the dog's name?"),
])
def test_a_posters_heading_is_no_pets_name(maestro, lines, question: str) -> None:
    run = maestro.ask(card(lines, font=BOLD), question)
    assert run.answer not in ("LOST CAT", "MISSING DOG"), run.reason
    assert run.status == "abstained", (run.answer, run.reason)


def test_a_shops_name_is_still_read_with_its_noun(maestro) -> None:
    run = maestro.ask(card([("Hartley's Bakery", 48), ("Fresh bread daily", 30)]), "what's the bakery called")
    assert (run.status, run.answer) == ("done", "Hartley's Bakery"), run.reason


@pytest.mark.parametrize("question", [
    "Are you open on Christmas Eve?",  # the sign says Christmas Day
    "are you open over the christmas holidays?",  # a period of days
    "Is the shop closed on Christmas Day?",  # closed, not open, is asked: "No" would say the opposite
])
def test_a_holiday_is_read_word_for_word(maestro, question: str) -> None:
    sign = card([("Open Daily 9:00 - 17:00", 32), ("Closed Christmas Day", 32)])
    run = maestro.ask(sign, question)
    assert run.answer != "No", run.reason
