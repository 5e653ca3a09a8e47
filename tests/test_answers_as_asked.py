"""Answers in the form and at the precision the question asks, worded the way new users word them.

Every image here is rendered (a road sign, a price tag, a matplotlib chart, a 4K image with clutter) and every
question goes through the default offline agent, routing included:

- a question about one part of the printed text is answered with that part only (the exit number, the distance
  to the named place, the chart's title), never the whole transcription;
- a Yes/No question about printed words is settled from the reading, both ways;
- a value measured on a chart is given at the precision its axis supports (65, not 65.1);
- "the <shape>" whose colour is asked is answered when one colour matches, and abstains, saying so, when
  shapes of several colours match;
- an abstention on a photograph of a sign does not speak of chart parsing.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from agents.config import Settings
from agents.runtime import Maestro
from skills.chart.precision import axis_decimals, decimals_of, measured_reading
from skills.document_questions import event_stems
from vision_tools.charts import ChartResult
from vision_tools.charts.result import AxisFit

BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"


@pytest.fixture(scope="module")
def maestro(tmp_path_factory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


def sign(*lines: str, size: tuple[int, int] = (760, 420)) -> Image.Image:
    """A green road sign with white capitals on a pale scene."""
    image = Image.new("RGB", size, (200, 215, 230))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((40, 40, size[0] - 40, 60 + 80 * len(lines)), radius=12, fill=(30, 120, 60))
    font = ImageFont.truetype(BOLD, 44)
    for row, line in enumerate(lines):
        draw.text((80, 70 + 80 * row), line, fill="white", font=font)
    return image


def test_one_part_of_a_sign_is_answered_with_that_part_only(maestro) -> None:
    image = sign("HARBOR ROAD", "EXIT 17")
    run = maestro.ask(image, "Which exit does this sign point to?")
    assert (run.status, run.answer) == ("done", "17")
    search = next(s for s in run.steps if s.kind == "search")
    assert search.skill == "OCR" and any(c.tool == "ocr.printed_span" for c in search.tool_calls)


def test_a_label_heading_a_column_does_not_take_the_number_far_to_its_right(maestro) -> None:
    # A boarding pass: labels in a row, each value under its label; "GROUP 3" sits far right of "SEAT".
    image = Image.new("RGB", (1100, 360), (250, 250, 245))
    draw = ImageDraw.Draw(image)
    small, big = ImageFont.truetype(BOLD, 26), ImageFont.truetype(BOLD, 44)
    for x, label, value in ((60, "GATE", "B22"), (300, "SEAT", "17C"), (560, "GROUP", "3"), (800, "SEQ", "084")):
        draw.text((x, 80), label, fill=(90, 90, 90), font=small)
        draw.text((x, 130), value, fill="black", font=big)
    draw.text((60, 40), "GATE   SEAT", fill=(90, 90, 90), font=small)  # a stub's labels, run together
    draw.text((560, 40), "3", fill="black", font=big)
    run = maestro.ask(image, "whats my seat number")
    assert run.answer != "3", run.reason


def test_digits_inside_a_tracking_code_are_no_phone_number(maestro) -> None:
    # A parcel label's "PW 8831 2209 57GB" had answered "what's the sender's phone number" with "8831 2209 57".
    assert maestro.ask(sign("TRACKING", "PW 8831 2209 57GB"), "what's the sender's phone number").answer is None
    assert maestro.ask(sign("CALL US", "0800 555 212"), "whats the phone number").answer == "0800 555 212"


def test_a_date_named_by_its_event_is_the_date_printed_with_that_event(maestro) -> None:
    # A wristband's "Admitted 18/01/2025" had answered "whats the patients date of birth".
    band = sign("ADMITTED 18/01/2025", "WARD 6B")
    assert maestro.ask(band, "whats the patients date of birth").answer is None
    assert event_stems("what is the expiry date") == event_stems("when does it expire")
    assert event_stems("Which date is printed on the receipt?") == ()


def test_an_event_is_its_verb_not_the_particle_after_it(maestro) -> None:
    # A library slip's "Date: 18/06/2025" (the checkout) had answered "when is dune due back": "back" was taken
    # for a name of the page, and the question for the slip's own date.
    slip = sign("CHECKOUT 18/06/2025", "MEMBER 4421")
    assert maestro.ask(slip, "when is dune due back").answer is None
    assert event_stems("when is dune due back") == event_stems("when is it due")
    assert event_stems("when does the permit run out") == event_stems("when does it expire")
    assert event_stems("when was this ticket bought") == ()


def test_the_distance_is_the_one_printed_beside_the_named_place(maestro) -> None:
    image = sign("AIRPORT 12 km", "CITY CENTRE 3 km")
    assert maestro.ask(image, "How far away is the city centre?").answer == "3 km"
    assert maestro.ask(image, "How far is the airport?").answer == "12 km"


def test_yes_no_about_printed_words_is_settled_from_the_reading(maestro) -> None:
    image = sign("STOP", "AHEAD")
    yes = maestro.ask(image, "Does the sign say STOP?")
    no = maestro.ask(image, "Is the word 'Exit' on the sign?")
    assert (yes.status, yes.answer) == ("done", "Yes")
    assert (no.status, no.answer) == ("done", "No")


def test_a_price_tag_gives_its_price(maestro) -> None:
    image = sign("FRESH BREAD", "$4.50", size=(600, 320))
    run = maestro.ask(image, "How much does it cost?")
    assert (run.status, run.answer) == ("done", "$4.50")


def test_a_label_gives_its_weight_and_the_price_printed_on_a_line_of_its_own(maestro) -> None:
    image = sign("GOLDEN MEADOW", "HONEY", "NET WT 500 g", "PRICE: $6.49", size=(700, 420))
    assert maestro.ask(image, "How much does it weigh?").answer == "500 g"
    assert maestro.ask(image, "How much does the honey cost?").answer == "$6.49"  # not on the HONEY line


def test_a_lone_weight_is_not_the_weight_of_another_thing_named(maestro) -> None:
    # Round 37: "how heavy is the tent in kg" over a pack's parts in percent and its total "12.5 kg" was answered
    # with the total; the one quantity printed is the named thing's only beside its name.
    image = sign("TENT 32%", "FOOD 22%", "TOTAL", "12.5 kg", size=(700, 420))
    run = maestro.ask(image, "how heavy is the tent in kg")
    assert run.answer is None and "no quantity beside it" in (run.reason or ""), run.answer


def test_a_time_that_starts_a_range_answers_only_its_start(maestro) -> None:
    # Round 37: "what time is the water back on" over "Time: 09:00 - 15:30" had been 09:00, when it goes off.
    image = sign("WATER SUPPLY OFF", "DATE: 14 MAY", "TIME: 09:00 - 15:30", size=(900, 420))
    back = maestro.ask(image, "what time is the water back on")
    assert back.answer != "09:00" and back.answer != "09:00 "


def test_axis_ticks_are_no_phone_number(maestro) -> None:
    # Round 37: "which phone charges the fastest" over a chart was answered "0 10 20 30 40 50 60 70", read as a
    # phone number from the axis.
    from skills.ocr.printed import _dialable

    image = sign("Pulse X 27 min", "Zeta Mini 64 min", "0 10 20 30 40 50 60 70", size=(800, 420))
    assert maestro.ask(image, "which phone charges the fastest").answer != "0 10 20 30 40 50 60 70"
    assert not _dialable("0 10 20 30 40 50 60 70") and _dialable("01 23 45 67 89") and _dialable("020 7946 0958")


def test_a_price_is_not_taken_from_a_line_that_names_something_else(maestro) -> None:
    image = sign("APPLES", "PEARS $2.49", size=(700, 260))
    run = maestro.ask(image, "How much do the apples cost?")
    assert run.status == "abstained" and "no price beside it" in run.reason


def test_a_fraction_of_a_mile_is_one_distance_and_mention_asks_whether_a_word_is_printed(maestro) -> None:
    image = sign("EXIT 24B", "1/2 MILE", "MAPLE AVE")
    assert maestro.ask(image, "How far away is the exit according to the sign?").answer == "1/2 MILE"
    # With another name between the exit and the distance, the distance may be that name's: no answer.
    farther = maestro.ask(sign("EXIT 24B", "MAPLE AVE", "1/2 MILE"), "How far away is the exit?")
    assert farther.status == "abstained"
    assert maestro.ask(image, "Does the sign mention Maple?").answer == "Yes"
    # "mention" is about what the text is about: words not printed may still say it, so no "No" from the reading.
    assert maestro.ask(image, "Does the sign mention Springfield?").status == "abstained"
    assert maestro.ask(image, "Does the sign say Springfield?").answer == "No"


def test_which_place_a_distance_is_printed_beside(maestro) -> None:
    image = sign("SPRINGFIELD 12 km", "OAK RIDGE 37 km")
    assert maestro.ask(image, "Which town is 12 km away?").answer == "SPRINGFIELD"
    assert maestro.ask(image, "What place is 37 km from here?").answer == "OAK RIDGE"
    assert maestro.ask(image, "Which town is 20 km away?").status == "abstained"


def test_two_numbers_and_a_question_that_does_not_say_which_abstains(maestro) -> None:
    image = sign("GATE 12", "ROOM 45")
    run = maestro.ask(image, "What number is written on the sign?")
    assert run.status == "abstained" and "'12'" in run.reason and "'45'" in run.reason


def render(draw) -> Image.Image:  # noqa: ANN001 - draws on matplotlib axes
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
    draw(ax)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")


def test_a_chart_title_is_the_title_not_the_whole_chart(maestro) -> None:
    def draw(ax) -> None:  # noqa: ANN001
        ax.bar(["Mon", "Tue", "Wed"], [30, 55, 41], color="tab:blue")
        ax.set_title("Visitors per day")

    run = maestro.ask(render(draw), "What does the title say?")
    assert (run.status, run.answer) == ("done", "Visitors per day")


def test_a_measured_chart_value_has_the_precision_of_its_axis(maestro) -> None:
    def draw(ax) -> None:  # noqa: ANN001
        ax.bar(["North", "South", "East"], [65, 32, 81], color="tab:green")
        ax.set_yticks(range(0, 100, 10))
        ax.set_title("Units sold")

    run = maestro.ask(render(draw), "What is the value of North in the bar chart?")
    assert run.status == "done" and run.answer == "65"  # a whole number: the axis steps by 10


def test_a_bar_measured_on_a_coarse_axis_is_given_in_the_unit_its_pixels_support(maestro) -> None:
    # Steps of 100 over about 100 pixels: a bar's end is placed to a pixel or two, so 158.7 is read as 160.
    def draw(ax) -> None:  # noqa: ANN001
        ax.barh(["Pears", "Plums", "Figs", "Kiwis"], [230, 470, 160, 390], color="darkorange")
        ax.set_xticks(range(0, 600, 100))
        ax.set_title("Fruit sold (crates)")

    image = render(draw)
    assert maestro.ask(image, "How many figs were sold?").answer == "160"
    assert maestro.ask(image, "How many more plums than pears were sold?").answer == "240"


def test_a_value_read_off_ticks_with_a_scale_letter_is_written_as_the_ticks_are(maestro) -> None:
    # Ticks "€0M" … "€18M": 9,900,000 is given as "€9.9M", as the chart writes its numbers; "in € million" asks 9.9.
    def draw(ax) -> None:  # noqa: ANN001
        ax.bar(["North", "South", "West"], [14.2e6, 6.1e6, 9.9e6], color="#457b9d")
        ax.set_yticks([v * 1e6 for v in range(0, 20, 2)], [f"€{v}M" for v in range(0, 20, 2)])
        ax.set_title("Revenue by region, Q4")

    image = render(draw)
    run = maestro.ask(image, "west region revenue?")
    assert run.status == "done" and run.answer is not None and re.fullmatch(r"€\d+(?:\.\d)?M", run.answer), run.answer
    assert abs(float(run.answer[1:-1]) - 9.9) <= 0.2
    bare = maestro.ask(image, "what was the west region's revenue in € million?")
    assert bare.answer == run.answer[1:-1], bare.reason


def test_precision_rules() -> None:
    assert (decimals_of(65.0), decimals_of(12.25), decimals_of(0.5)) == (0, 2, 1)

    class Axis:
        ticks = [(0.0, 0.0), (10.0, 0.5), (20.0, 1.0)]

    class Chart:
        axis = Axis()

    assert axis_decimals(Chart()) == 1  # steps of 0.5: a tenth can be told apart
    Chart.axis.ticks = [(0.0, 0.0), (10.0, 10.0), (20.0, 20.0)]
    assert axis_decimals(Chart()) == 0


@pytest.mark.parametrize(("step", "pixels_per_step", "measured", "given"), [
    (100.0, 110.0, 148.7, 150.0),  # two pixels are worth 1.8: the roundest number within them
    (100.0, 110.0, 338.4, 340.0),
    (100.0, 110.0, 143.0, 143.0),  # no round number within two pixels: the measure, in units within them
    (50.0, 60.0, 13.6, 14.0),  # never rounded coarser than two pixels (1.7 here): not 10
    (2.0, 39.0, 14.06, 14.0),  # a point a pixel off a whole number on a whole-number axis
    (1.0, 50.0, 3.5, 3.5),  # halfway between ticks on a fine axis stays a half
    (50.0, 200.0, 137.4, 137.0),  # a fine axis keeps whole numbers
    (10.0, 30.0, 65.1, 65.0),
])
def test_a_measured_value_is_the_roundest_number_within_two_pixels(step: float, pixels_per_step: float,
                                                                   measured: float, given: float) -> None:
    slope = step / pixels_per_step
    axis = AxisFit("y", slope, 0.0, [(k * pixels_per_step, k * step) for k in range(5)], 0.0)
    assert measured_reading(ChartResult(kind="bar", axis=axis), measured) == pytest.approx(given)


def test_the_colour_of_the_one_coloured_shape_in_a_busy_4k_image(maestro) -> None:
    image = Image.new("RGB", (3840, 2160), (215, 215, 210))
    draw = ImageDraw.Draw(image)
    for k in range(120):  # gray clutter: strokes, rings and shapes
        x, y, tone = (k * 397) % 3700, (k * 263) % 2000, 60 + (k * 37) % 150
        draw.line((x, y, x + 300, y + (k % 7) * 40), fill=(tone, tone, tone), width=4)
        draw.regular_polygon((x + 60, y + 60, 30 + k % 40), 4, fill=(tone, tone, tone))
    draw.regular_polygon((2900, 700, 26), 4, fill=(25, 70, 225))
    run = maestro.ask(image, "What colour is the small square?")
    assert (run.status, run.answer) == ("done", "blue")


def busy_4k_with(draw_needle) -> Image.Image:  # noqa: ANN001 - draws the one coloured shape
    image = Image.new("RGB", (3840, 2160), (205, 208, 210))
    draw = ImageDraw.Draw(image)
    for k in range(90):  # gray clutter: strokes and discs
        x, y, tone = (k * 431) % 3600, (k * 277) % 1950, 70 + (k * 53) % 140
        draw.line((x, y, x + 250, y + (k % 5) * 50), fill=(tone, tone, tone), width=5)
        draw.ellipse((x + 40, y + 80, x + 100, y + 140), fill=(tone, tone, tone))
    draw_needle(draw)
    return image


@pytest.mark.parametrize(("question", "answer"), [
    ("There is one coloured shape in this picture. What colour is it?", "orange"),
    ("What colour is the small shape?", "orange"),
    ("What shape is the orange object?", "triangle"),
])
def test_a_shape_of_any_kind_is_the_one_coloured_blob(maestro, question: str, answer: str) -> None:
    image = busy_4k_with(lambda d: d.regular_polygon((1100, 1500, 34), 3, fill=(245, 130, 20)))
    run = maestro.ask(image, question)
    assert (run.status, run.answer) == ("done", answer), run.reason


def test_the_shape_among_shapes_of_several_colours_is_ambiguous(maestro) -> None:
    image = Image.new("RGB", (900, 600), "white")
    draw = ImageDraw.Draw(image)
    draw.regular_polygon((200, 200, 60), 4, fill=(30, 90, 220))  # a square's fuller box must not outrank the rest
    draw.regular_polygon((600, 380, 60), 3, fill=(40, 170, 60))
    draw.ellipse((350, 420, 470, 540), fill=(220, 30, 30))
    run = maestro.ask(image, "What colour is the shape?")
    assert run.status == "abstained" and "different colours" in run.reason


def test_the_colour_of_a_triangle_is_its_own_not_its_boxs(maestro) -> None:
    # Half a triangle's box is ground: on a blue gradient its colour is the triangle's pixels', not the box's.
    ramp = np.linspace(0, 1, 900)[None, :, None]
    ground = np.array([30, 70, 190]) * (1 - ramp) + np.array([240, 240, 250]) * ramp
    image = Image.fromarray((ground * np.ones((600, 1, 1))).astype(np.uint8))
    ImageDraw.Draw(image).polygon([(380, 70), (150, 540), (610, 540)], fill=(15, 15, 15))
    run = maestro.ask(image, "What colour is the big triangle?")
    assert run.answer in (None, "black")


def test_shapes_of_several_colours_make_the_shape_ambiguous_and_the_reason_says_so(maestro) -> None:
    image = Image.new("RGB", (1600, 900), "white")
    draw = ImageDraw.Draw(image)
    draw.regular_polygon((300, 300, 40), 4, fill=(220, 30, 30))
    draw.regular_polygon((1200, 600, 40), 4, fill=(30, 90, 220))
    run = maestro.ask(image, "What colour is the small square?")
    assert run.status == "abstained" and "different colours" in run.reason


def test_an_abstention_on_a_sign_does_not_speak_of_chart_parsing(maestro) -> None:
    run = maestro.ask(sign("WELCOME", "TO THE HARBOR"), "Why is the harbor closed on Sundays?")
    assert run.status == "abstained"
    for jargon in ("axis", "polyline", "Bar 1", "parser"):
        assert jargon not in run.reason



def test_the_answer_format_sentence_is_not_looked_for_on_a_sign() -> None:
    """A distance asked as a multiple-choice question: the words of "Answer with the option's letter from the given
    choices directly" are not names to find on the sign (here a place called Choices Mall)."""
    from skills.ocr.printed import printed_answer
    from vision_tools.image import Box
    from vision_tools.text import OcrLine

    lines = [OcrLine("Choices Mall 5 km", Box(10, 10, 300, 40), 0.99),
             OcrLine("Harbour 12 km", Box(10, 60, 300, 90), 0.99)]
    question = ("How far is the airport?\nA. 5 km\nB. 12 km\n"
                "Answer with the option's letter from the given choices directly.")
    span = printed_answer(question, lines, None)
    assert span is None or span.answer is None  # the airport is not on the sign: never "5 km"


def test_the_distance_is_read_from_the_line_naming_the_whole_place() -> None:
    """Round 36: "how far to the rose garden" over a signpost with "Japanese Garden 1.2 km" too had found two lines
    naming a garden; the line printing both words is the place's."""
    from skills.ocr.printed import printed_answer
    from vision_tools.image import Box
    from vision_tools.text import OcrLine

    lines = [OcrLine("Glasshouse 350 m", Box(10, 10, 300, 40), 0.99),
             OcrLine("Rose Garden 600 m", Box(10, 60, 300, 90), 0.99),
             OcrLine("Japanese Garden 1.2 km", Box(10, 110, 300, 140), 0.99)]
    rose = printed_answer("how far to the rose garden", lines, None)
    assert rose is not None and rose.answer == "600 m"
    garden = printed_answer("how far is the garden", lines, None)
    assert garden is None or garden.answer is None  # two gardens: which one is not said


def test_a_number_in_a_yes_no_question_is_matched_exactly_and_may_be_said_in_other_words(maestro) -> None:
    image = Image.new("RGB", (900, 360), (245, 240, 230))
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(BOLD, 40)
    draw.text((40, 40), "IBUPROFEN", fill="black", font=font)
    draw.text((40, 120), "200 mg Tablets", fill="black", font=font)
    draw.text((620, 120), "24", fill="black", font=font)  # set apart on the row, as a box prints its count
    draw.text((700, 120), "tablets", fill="black", font=font)
    draw.text((40, 220), "Mon - Fri", fill="black", font=font)
    draw.text((420, 220), "7:00 - 18:30", fill="black", font=font)
    # "400 mg tablets" is a character away from "200 mg Tablets" as a string, and had been "Yes".
    assert maestro.ask(image, "Does the label say 400 mg tablets?").answer == "No"
    assert maestro.ask(image, "does it say 24 tablets").answer == "Yes"  # the row read as one phrase
    # Its number is printed, its words are not: the sign may say it in other words, so neither Yes nor No.
    assert maestro.ask(image, "does the sign say they close at 18:30 on weekdays").status == "abstained"


def test_the_date_of_another_event_and_another_month_are_not_answered(maestro) -> None:
    label = sign("SHIP TO: M. KOVACS", "Ship date: 03/11/2025", "Groceries $520", size=(900, 360))
    delivered = maestro.ask(label, "when will it be delivered")  # the ship date is no delivery date
    assert delivered.status == "abstained" and delivered.answer is None, delivered.answer
    shipped = maestro.ask(label, "when was it shipped")
    assert (shipped.status, shipped.answer) == ("done", "03/11/2025"), shipped.reason
    february = maestro.ask(label, "How much did I spend on groceries in February?")
    assert february.status == "abstained" and "February" in (february.reason or ""), february.answer
