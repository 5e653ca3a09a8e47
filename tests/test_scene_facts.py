"""What signs and labels state in words, asked the way people ask: opening hours ("Is it open on Sunday?"), where a
product is from, whose name is on a door, what a shop is called, where a bus goes, which of two places is closer;
and a drawn shape named by its colour ("What shape is green?").

Each image is drawn here and each question goes through the default offline agent. The text reader answers only a
span of the kind asked, from the line that names what the question names; where two spans could be meant, or none
is printed, it abstains.
"""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw, ImageFont

from agents.config import Settings
from agents.runtime import Maestro
from skills.ocr.opening_hours import read_hours
from tests.calibrations import rated_rules
from vision_tools.image import Box
from vision_tools.text import OcrLine

SANS = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"


@pytest.fixture(scope="module")
def maestro(tmp_path_factory) -> Maestro:
    # What the rules read is the subject here: a data directory whose ratings have certified the reading rules
    # (on the shipped calibration alone they abstain: test_scene_facts.py shows both).
    home = tmp_path_factory.mktemp("home")
    rated_rules(home)
    return Maestro.open(Settings.resolve(data_dir=home))


def card(lines: list[tuple[str, int]], *, size: tuple[int, int] = (640, 720), paper=(250, 244, 214),
         ink=(40, 30, 20), font: str = SERIF, wall=(70, 50, 40)) -> Image.Image:
    """A card pinned on a wall, its lines centred one under another."""
    image = Image.new("RGB", size, wall)
    draw = ImageDraw.Draw(image)
    draw.rectangle((40, 40, size[0] - 40, size[1] - 40), fill=paper)
    y = 80
    for text, points in lines:
        face = ImageFont.truetype(font, points)
        width = draw.textlength(text, font=face)
        draw.text(((size[0] - width) / 2, y), text, fill=ink, font=face)
        y += int(points * 1.6)
    return image


@pytest.fixture(scope="module")
def deli_door() -> Image.Image:
    return card([("Rosa's Deli", 48), ("Opening times", 34), ("Mon - Fri  8:00 - 18:00", 32),
                 ("Sat  9:00 - 13:00", 32), ("Sun  closed", 32)])


@pytest.mark.parametrize(("question", "answer"), [
    ("What time does it close on Saturday?", "13:00"),
    ("when do they open on tuesday", "8:00"),
    ("Is the deli open on Sunday?", "No"),
    ("Are they open on Saturday?", "Yes"),
    ("Which day is it closed?", "Sun"),
    ("What's the name of the deli?", "Rosa's Deli"),
])
def test_a_shop_door_answers_hours_and_its_name(maestro, deli_door, question: str, answer: str) -> None:
    run = maestro.ask(deli_door, question)
    assert (run.status, run.answer) == ("done", answer), run.reason


def test_on_the_shipped_calibration_a_reading_rule_abstains_until_rated_runs_certify_it(deli_door, tmp_path) -> None:
    # No dev set labels what the rule for a sign's facts reads, and new users' wordings found the reading rules well
    # below OCR's pooled record: the rule's answer is kept as the withheld candidate and the reason names the rule.
    bare = Maestro.open(Settings.resolve(data_dir=tmp_path / "bare"))
    run = bare.ask(deli_door, "What's the name of the deli?")
    assert run.status == "abstained" and run.answer is None
    assert "too few rated examples" in run.reason and "rule for a fact a sign states" in run.reason, run.reason
    assert run.trust["candidate"] == "Rosa's Deli"
    # The notices benchmark labels opening hours (docs/trust.md §8): that rule answers on the shipped calibration.
    hours = bare.ask(deli_door, "What time does it close on Saturday?")
    assert (hours.status, hours.answer) == ("done", "13:00"), hours.reason
    # A printed span of the kind the dev sets label still answers on the shipped calibration.
    label = card([("Oat Crunch", 48), ("Net weight 500 g", 36)])
    printed = bare.ask(label, "what is the net weight")
    assert (printed.status, printed.answer) == ("done", "500 g"), printed.reason
    rated_rules(tmp_path / "rated")
    rated = Maestro.open(Settings.resolve(data_dir=tmp_path / "rated"))
    run = rated.ask(deli_door, "What's the name of the deli?")
    assert (run.status, run.answer) == ("done", "Rosa's Deli"), run.reason


def test_hours_that_differ_by_day_need_the_day(maestro, deli_door) -> None:
    run = maestro.ask(deli_door, "What time does it close?")  # 18:00 on weekdays, 13:00 on Saturday
    assert run.status == "abstained" and "which day" in run.reason


def test_a_parking_sign_gives_its_hours_and_days(maestro) -> None:
    sign = card([("P", 120), ("2 hour parking", 40), ("Mon - Sat", 44), ("8am - 6pm", 44)], paper="white",
                ink=(20, 60, 150), font=BOLD, wall=(150, 155, 160))
    assert maestro.ask(sign, "What hours does this apply?").answer == "8am - 6pm"
    run = maestro.ask(sign, "Which days does it apply? A. Every day B. Weekends C. Mon - Sat")
    assert (run.status, run.answer) == ("done", "C"), run.reason


def test_hours_rows_are_read_with_their_days() -> None:
    def line(text: str, row: int) -> OcrLine:
        return OcrLine(text, Box(10, 40 * row, 300, 40 * row + 30), 0.99)

    entries = read_hours([line("Weekdays 7:30 - 16:00", 0), line("Saturday", 1), line("10am - 2pm", 2),
                          line("Sunday closed", 3)])
    assert [(sorted(e.days or []), e.span) for e in entries] == [
        ([0, 1, 2, 3, 4], "7:30 - 16:00"), ([5], "10am - 2pm"), ([6], "closed")]
    # Days listed together share the hours after them; a lunch break is two ranges of one day.
    shared = read_hours([line("Tue & Thu 14:00 - 16:00", 0), line("Fri 9:00 - 12:30, 14:00 - 18:00", 1)])
    assert [(sorted(e.days or []), e.opens, e.closes) for e in shared] == [([1, 3], "14:00", "16:00"),
                                                                          ([4], "9:00", "18:00")]


@pytest.mark.parametrize(("lines", "question", "answer"), [
    ([("Sunrise Honey", 50), ("Raw wildflower", 34), ("Product of New Zealand", 32), ("340 g", 40), ("$8.99", 56)],
     "Which country is it from?", "New Zealand"),
    # Between the name and its price only details: a weight, a labelled origin.
    ([("Sunrise Honey", 50), ("340 g", 40), ("Origin: New Zealand", 32), ("$8.99", 56)], "price of the honey?",
     "$8.99"),
    ([("Casa Verde", 50), ("Olive Oil", 44), ("Harvest 2023", 32), ("Acidity 0.2%", 32), ("750 ml", 44),
      ("Made in Portugal", 32)], "How much oil is in the bottle?", "750 ml"),
    ([("Casa Verde", 50), ("Olive Oil", 44), ("Harvest 2023", 32), ("Acidity 0.2%", 32), ("750 ml", 44),
      ("Made in Portugal", 32)], "where is this oil made", "Portugal"),
])
def test_a_label_states_origin_price_and_content(maestro, lines, question: str, answer: str) -> None:
    run = maestro.ask(card(lines, paper=(255, 250, 235)), question)
    assert (run.status, run.answer) == ("done", answer), run.reason


def test_two_countries_and_no_way_to_choose_is_no_answer(maestro) -> None:
    label = card([("Blend No. 4", 48), ("Product of Kenya", 32), ("Made in Ireland", 32), ("500 g", 40)])
    run = maestro.ask(label, "Which country is it from?")
    assert run.status == "abstained" and "Kenya" in run.reason and "Ireland" in run.reason


def test_a_door_plate_names_its_owner_and_the_day(maestro) -> None:
    plate = card([("Suite 5", 56), ("Prof. Amal Haddad", 36), ("Consulting:", 28), ("Thu 14:00-16:00", 28)],
                 size=(720, 520), paper=(60, 60, 70), ink="white", font=SANS, wall=(180, 160, 130))
    assert maestro.ask(plate, "Whose office is this?").answer == "Prof. Amal Haddad"
    assert maestro.ask(plate, "Which day is consulting?").answer == "Thu"


def test_a_stand_sign_says_where_the_buses_go(maestro) -> None:
    sign = card([("Stand 4", 56), ("Buses to Harbour Road", 36), ("Next bus 10:20", 36)], size=(760, 460),
                paper=(0, 50, 130), ink="white", font=BOLD, wall=(30, 30, 30))
    assert maestro.ask(sign, "where do the buses from this stand go?").answer == "Harbour Road"


@pytest.mark.parametrize(("question", "answer"), [
    ("Is Millbrook closer than Ashby?", "Yes"),
    ("is kelton further than millbrook", "No"),
    ("Which is farther, Kelton or Millbrook?", "Millbrook"),
    ("How many destinations are on this sign?", "3"),
])
def test_a_direction_sign_compares_and_counts_its_places(maestro, question: str, answer: str) -> None:
    sign = card([("Millbrook  8 km", 48), ("Ashby  15 km", 48), ("Kelton  3 km", 48)], size=(700, 480),
                paper=(0, 110, 60), ink="white", font=BOLD, wall=(140, 170, 200))
    run = maestro.ask(sign, question)
    assert (run.status, run.answer) == ("done", answer), run.reason


def test_a_note_says_when_they_are_back(maestro) -> None:
    note = card([("Gone to lunch", 48), ("Back at 1:15 PM", 40)], size=(640, 400))
    assert maestro.ask(note, "When will they be back?").answer == "1:15 PM"


@pytest.mark.parametrize("lines", [
    [("STREET CLOSED", 56), ("Diversion ahead", 40)],  # sign words, not a street's name
    [("Harbour Street", 48), ("Mill Street", 48)],  # two streets, and the question does not say which
])
def test_a_name_is_only_a_name(maestro, lines) -> None:
    run = maestro.ask(card(lines, size=(760, 420)), "What is the name of the street?")
    assert run.status == "abstained", run.answer


def receipt(rows: list[str]) -> Image.Image:
    page = Image.new("RGB", (560, 110 + 56 * len(rows)), "white")
    draw = ImageDraw.Draw(page)
    for row, text in enumerate(rows):
        draw.text((40, 50 + 56 * row), text, fill="black", font=ImageFont.truetype(SANS, 28))
    return page


def test_a_receipt_prints_the_time_of_sale_once(maestro) -> None:
    page = receipt(["MILL LANE BAKERY", "22/03/2025 16:07", "Sourdough   4.20", "Bagel       1.80",
                    "TOTAL       6.00", "CASH        10.00", "CHANGE      4.00"])
    run = maestro.ask(page, "What time was this receipt printed?")
    assert (run.status, run.answer) == ("done", "16:07"), run.reason


def test_a_receipt_with_two_times_and_no_label_gives_none(maestro) -> None:
    page = receipt(["MILL LANE BAKERY", "Open 07:00 - 19:00", "22/03/2025 16:07", "Sourdough   4.20",
                    "TOTAL       4.20", "CASH        5.00", "CHANGE      0.80"])
    run = maestro.ask(page, "What time was this receipt printed?")
    assert run.status == "abstained", run.answer


def test_a_price_under_another_name_is_not_the_named_things(maestro) -> None:
    # "Tea" stands between "Coffee" and the one price, as large: the price may be the tea's.
    board = card([("Coffee", 44), ("Tea", 44), ("€3.00", 44)], size=(560, 460))
    run = maestro.ask(board, "price of the coffee?")
    assert run.status == "abstained", run.answer


def shapes() -> Image.Image:
    image = Image.new("RGB", (720, 480), "white")
    draw = ImageDraw.Draw(image)
    draw.polygon([(110, 360), (230, 140), (350, 360)], fill=(30, 160, 60))
    draw.ellipse((420, 160, 620, 360), fill=(240, 200, 20))
    return image


@pytest.mark.parametrize(("question", "answer"), [
    ("What shape is green?", "triangle"),
    ("what's the yellow shape", "circle"),
    ("Which shape is yellow? A. square B. triangle C. circle", "C"),
])
def test_a_shape_is_named_by_its_colour(maestro, question: str, answer: str) -> None:
    run = maestro.ask(shapes(), question)
    assert (run.status, run.answer) == ("done", answer), run.reason


def test_a_signs_colour_is_the_colour_around_its_words(maestro) -> None:
    green = card([("Millbrook  8 km", 48), ("Ashby  15 km", 48)], size=(700, 400), paper=(0, 110, 60), ink="white",
                 font=BOLD, wall=(140, 170, 200))
    assert maestro.ask(green, "What colour is the sign?").answer == "green"
    assert maestro.ask(green, "what's the background color of the sign").answer == "green"
    # A part of the sign, or what is behind it, is not the colour around its words.
    for question in ("What colour is the border of the sign?", "what colour is the wall behind the sign",
                     "What colour is the text on the sign?"):
        assert maestro.ask(green, question).answer != "green", question


def test_a_white_disc_in_a_red_ring_is_no_one_colour(maestro) -> None:
    sign = Image.new("RGB", (600, 600), (200, 205, 210))
    draw = ImageDraw.Draw(sign)
    draw.ellipse((60, 60, 540, 540), fill=(200, 20, 30))
    draw.ellipse((140, 140, 460, 460), fill="white")
    draw.text((190, 210), "40", fill="black", font=ImageFont.truetype(BOLD, 150))
    run = maestro.ask(sign, "What colour is the sign?")
    assert run.status == "abstained", run.answer


@pytest.mark.parametrize(("text", "answer"), [("Mill Lane", "Mill Lane"), ("Station Road", "Station Road")])
def test_a_streets_name_ends_in_any_street_word(maestro, text: str, answer: str) -> None:
    sign = card([(text, 64)], size=(760, 300), paper="white", ink="black", font=BOLD, wall=(150, 80, 60))
    run = maestro.ask(sign, "What is the name of the street on this sign?")
    assert (run.status, run.answer) == ("done", answer), run.reason
