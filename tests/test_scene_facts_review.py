"""What a reviewer made the first version of the sign and label rules answer wrongly, at P 0.98-0.99: each case
now answers right or abstains. The images are drawn here in the reviewer's layouts; the questions are theirs.

The rules must tie the span to what was asked: the row of hours naming the day and the subject, the time right
after the word asked about, the role's own line, a country printed as a name beside an origin word.
"""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw, ImageFont

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


@pytest.mark.parametrize(("lines", "question", "answer"), [
    # A lunch break: the day closes at the second range's end.
    ([("Corner Books", 48), ("Mon - Fri 9:00 - 12:30, 14:00 - 18:00", 28), ("Sat 9:00 - 13:00", 28)],
     "What time does it close on Monday?", "18:00"),
    # Two groups of days on one row, each with its own hours.
    ([("Garden Centre", 48), ("Sat 10am - 4pm, Sun 11am - 3pm", 30)], "What time does it close on Sunday?", "3pm"),
    # The cafe's own row of hours, not the museum's.
    ([("City Museum", 48), ("Daily 10:00 - 18:00", 32), ("Museum Cafe 10:30 - 16:00", 32)],
     "What time does the cafe close on Sunday?", "16:00"),
    ([("Town Museum", 48), ("Open Tue - Sun 10:00 - 17:00", 30), ("Closed Mondays", 30)],
     "Is it open on Monday?", "No"),
    ([("Pharmacy", 48), ("Pharmacist on duty today: Sarah Jones", 26), ("Manager: Mr T. Brown", 26)],
     "Who is the pharmacist on duty?", "Sarah Jones"),
])
def test_the_span_asked_about(maestro, lines, question: str, answer: str) -> None:
    run = maestro.ask(card(lines, size=(760, 480), font=SANS), question)
    assert (run.status, run.answer) == ("done", answer), run.reason


@pytest.mark.parametrize(("lines", "question", "wrong"), [
    ([("Sorry, we're CLOSED", 44), ("Open daily 9:00 - 17:30", 32)], "Is the shop open?", "Yes"),
    ([("Corner Books", 48), ("Mon - Sat 9:00 - 18:00", 30)], "Is the shop open at 8pm on Saturday?", "Yes"),
    ([("The Anchor", 48), ("Open Daily 11:00 - 23:00", 32), ("Kitchen closes at 21:00", 32)],
     "What time does the kitchen close?", "23:00"),
    ([("Town Museum", 48), ("Museum open Tue - Sun 10:00 - 17:00", 28)], "Which day is the museum closed?",
     "Tue - Sun"),
    ([("Bone china from Stoke", 40), ("Dishwasher safe", 32)], "Which country is it from?", "china"),
    ([("Green Curry Paste", 44), ("Authentic recipe from Thailand", 28), ("Packed in the UK", 28)],
     "Which country is it from?", "Thailand"),
    ([("Bus 42 stop moved to Church Street", 30)], "Where does bus 42 go?", "Church Street"),
    ([("ANNA NOVAK", 48), ("Winter Light", 40), ("Foreword by Dr. Peter Lang", 26)],
     "Who is the author of this book?", "Dr. Peter Lang"),
    ([("Station Road", 56)], "What is this station called?", "Station Road"),
    ([("Rosie's", 64), ("Cafe Hours", 36), ("Mon - Fri 8:00 - 16:00", 30)], "What is the name of the cafe?",
     "Cafe Hours"),
    ([("Popped out at 2:15 - back in 20 mins", 30)], "When will they be back?", "2:15"),
    ([("Summer Concert", 48), ("Saturday 14 June, 7:30 pm", 30), ("Concert hall bar opens 6:00 pm", 30)],
     "What time does the concert start?", "6:00 pm"),
    ([("LONDON (M25)", 44), ("Dover 12 mi", 44), ("Folkestone 20 mi", 44)],
     "How many destinations are listed on this sign?", "2"),
    ([("SUNRISE HONEY FARM", 52), ("Beeswax Candles", 36), ("£3.50", 48)], "How much is the honey?", "£3.50"),
    ([("Wildflower Honey", 40), ("Beeswax Candles (pack of 6)", 40), ("£4.00", 40)], "How much is the honey?",
     "£4.00"),
])
def test_a_span_not_about_what_was_asked_is_no_answer(maestro, lines, question: str, wrong: str) -> None:
    run = maestro.ask(card(lines, size=(760, 480), font=SANS), question)
    assert run.answer != wrong and run.status == "abstained", run.answer


def test_a_vintage_on_its_own_line_beats_an_award_naming_the_wine(maestro) -> None:
    label = card([("Chateau Merle", 44), ("2021", 60), ("Gold Medal Wine Awards 2019", 26)], size=(700, 480))
    run = maestro.ask(label, "What year is this wine?")
    assert (run.status, run.answer) == ("done", "2021"), run.reason


def test_a_destination_stops_at_the_next_sign_word(maestro) -> None:
    sign = Image.new("RGB", (860, 260), (0, 50, 130))
    draw = ImageDraw.Draw(sign)
    draw.text((40, 90), "Trains to York", fill="white", font=ImageFont.truetype(BOLD, 44))
    draw.text((560, 90), "Platform 3", fill="white", font=ImageFont.truetype(BOLD, 44))
    run = maestro.ask(sign, "Where do the trains go?")
    assert run.answer in ("York", None), run.answer


def test_a_receipts_lone_time_away_from_the_date_is_no_time_of_sale(maestro) -> None:
    page = receipt(["HILL DELI", "22/03/2025", "Soup        4.50", "TOTAL       4.50", "Collect after 17:00"])
    assert maestro.ask(page, "What time was this receipt printed?").status == "abstained"
    pickup = receipt(["HILL DELI", "22/03/2025", "Pickup time: 12:30", "Soup        4.50", "TOTAL       4.50"])
    assert maestro.ask(pickup, "What time was the order placed?").status == "abstained"


def test_a_flag_question_is_not_a_country_of_origin(maestro) -> None:
    flag = Image.new("RGB", (600, 420), "white")
    draw = ImageDraw.Draw(flag)
    draw.ellipse((220, 130, 380, 290), fill=(190, 0, 40))
    draw.text((420, 380), "Made in China", fill="black", font=ImageFont.truetype(SANS, 18))
    run = maestro.ask(flag, "Which country's flag is this? A. Japan B. China")
    assert run.answer != "B"


def test_what_the_blue_object_is_is_not_its_shape(maestro) -> None:
    image = Image.new("RGB", (640, 420), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((120, 140, 520, 300), fill=(30, 80, 200))
    for x in (160, 260, 360, 460):
        draw.rectangle((x, 160, x + 60, 210), fill=(200, 230, 255))
    draw.ellipse((160, 280, 230, 350), fill="black")
    draw.ellipse((410, 280, 480, 350), fill="black")
    run = maestro.ask(image, "What is the blue object?")
    assert run.answer != "rectangle"
