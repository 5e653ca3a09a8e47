"""Quantities of the kind asked, printed on signs, labels and receipts: a voltage, how long one may park, how many
tablets a box holds, which item costs most, an expiry month, the nearest place on a direction sign.

Every image is drawn here and every question goes through the default offline agent. A quantity of another kind
(a dose in the directions, a condition's duration, an add-on's price) is never the answer.
"""

from __future__ import annotations

import pytest
from PIL import Image

from agents.config import Settings
from agents.runtime import Maestro
from tests.calibrations import rated_rules
from tests.test_scene_facts import BOLD, SANS, card, receipt


@pytest.fixture(scope="module")
def maestro(tmp_path_factory) -> Maestro:
    # What the rules read is the subject here: a data directory whose ratings have certified the reading rules
    # (on the shipped calibration alone they abstain: test_scene_facts.py shows both).
    home = tmp_path_factory.mktemp("home")
    rated_rules(home)
    return Maestro.open(Settings.resolve(data_dir=home))


def test_a_measure_is_read_in_the_units_asked(maestro) -> None:
    sign = card([("WARNING", 60), ("Low bridge", 44), ("Max height 3.4 m", 44), ("400 V cables", 40)],
                size=(720, 520), paper=(250, 210, 20), ink="black", font=BOLD)
    assert maestro.ask(sign, "what's the maximum height?").answer == "3.4 m"
    assert maestro.ask(sign, "What voltage do the cables carry?").answer == "400 V"


def test_how_long_is_the_limit_not_a_condition(maestro) -> None:
    sign = card([("P", 110), ("3 HOURS MAX", 48), ("No return", 40), ("within 2 hours", 40)], paper="white",
                ink=(20, 60, 150), font=BOLD, wall=(150, 155, 160))
    run = maestro.ask(sign, "How long can I stay here?")
    assert (run.status, run.answer) == ("done", "3 HOURS"), run.reason


def medicine_box() -> Image.Image:
    return card([("IBUPROFEN", 52), ("200 mg", 36), ("24 tablets", 36), ("Take 1-2 tablets every 6 hours", 26),
                 ("Do not take more than 6 tablets", 26), ("in 24 hours", 26), ("EXP 11/2027", 30)],
                size=(760, 760), paper="white", ink=(30, 30, 90), font=SANS)


def test_a_pack_count_is_not_a_dose(maestro) -> None:
    run = maestro.ask(medicine_box(), "How many tablets are in the box?")
    assert (run.status, run.answer) == ("done", "24"), run.reason


def test_an_expiry_printed_as_month_and_year(maestro) -> None:
    run = maestro.ask(medicine_box(), "When does it expire?")
    assert (run.status, run.answer) == ("done", "11/2027"), run.reason


@pytest.mark.parametrize(("question", "answer"), [
    ("What's the most expensive thing on the menu?", "Club Sandwich"),
    ("which item is the cheapest", "Tea"),
])
def test_the_priciest_item_is_the_row_of_the_highest_price(maestro, question: str, answer: str) -> None:
    board = card([("Lunch Menu", 52), ("Tea £1.80", 36), ("Soup of the day £4.50", 36), ("Club Sandwich £6.20", 36),
                  ("Extra cheese +£0.90", 30)], size=(720, 560), paper=(30, 35, 30), ink="white", font=SANS)
    run = maestro.ask(board, question)
    assert (run.status, run.answer) == ("done", answer), run.reason


def test_the_priciest_item_on_a_receipt_is_never_its_total(maestro) -> None:
    page = receipt(["CORNER SHOP", "Butter     2.10", "Coffee     4.75", "Milk       0.99", "TOTAL      7.84",
                    "CASH      10.00", "CHANGE     2.16"])
    run = maestro.ask(page, "Which item was the most expensive?")
    assert (run.status, run.answer) == ("done", "Coffee"), run.reason


def test_the_nearest_place_on_a_direction_sign(maestro) -> None:
    sign = card([("A38 Dunmore 14 km", 44), ("Old Quay 3 km", 44), ("Station 6 km", 44)], size=(720, 440),
                paper=(0, 70, 160), ink="white", font=BOLD)
    assert maestro.ask(sign, "Which destination is the nearest?").answer == "Old Quay"
    assert maestro.ask(sign, "which place is farthest away").answer == "Dunmore"


def test_a_parking_rule_does_not_apply_on_a_day_it_leaves_out(maestro) -> None:
    sign = card([("P", 110), ("2 HOURS MAX", 48), ("Mon - Fri", 44), ("9am - 5pm", 44)], paper="white",
                ink=(20, 60, 150), font=BOLD, wall=(150, 155, 160))
    assert maestro.ask(sign, "Does the limit apply on Saturdays?").answer == "No"
    assert maestro.ask(sign, "Does the limit apply on Tuesdays?").answer == "Yes"


def test_a_percentage_named_in_other_words(maestro) -> None:
    tag = card([("Linen Shirt", 48), ("NOW £24.00", 44), ("SAVE 20%", 44)], size=(620, 460))
    run = maestro.ask(tag, "What percentage discount does the tag advertise?")
    assert (run.status, run.answer) == ("done", "20%"), run.reason
