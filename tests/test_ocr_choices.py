"""Multiple-choice questions about printed text are answered with the one option the reading settles.

The first tests give the reading as OCR lines (what the recogniser returned); the last ones render a sign and ask
through the default offline agent, routing and calibration included.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.config import Settings
from agents.runtime import Maestro
from skills.ocr.choices import choose_printed_option
from tests.test_answers_as_asked import sign
from vision_tools.image import Box
from vision_tools.text import OcrLine

LETTER = "Answer with the option's letter from the given choices directly."


def read(*texts: str) -> list[OcrLine]:
    return [OcrLine(text, Box(10, 10 + 50 * i, 400, 45 + 50 * i), 0.99) for i, text in enumerate(texts)]


def ask(question: str, *options: str) -> str:
    return question + "\n" + "\n".join(f"{chr(65 + i)}. {o}" for i, o in enumerate(options)) + "\n" + LETTER


def test_the_one_option_printed_on_the_sign_is_chosen() -> None:
    chosen = choose_printed_option(ask("What is written on the sign?", "Keep left", "Wet floor", "Exit only"),
                                   read("CAUTION", "WET FLOOR"), None)
    assert chosen is not None and chosen.answer == "B"
    assert "A: false" in chosen.how and "B: true" in chosen.how
    named = choose_printed_option(ask("Which road is named on the sign?", "Oak Ave", "Maple Ave", "Pine St"),
                                  read("EXIT 24B", "Maple Ave", "1/2 MILE"), None)
    assert named is not None and named.answer == "B"


def test_two_options_printed_or_one_an_ocr_slip_away_is_no_answer() -> None:
    both = choose_printed_option(ask("Which word appears on the sign?", "Parking", "Smoking"),
                                 read("NO SMOKING", "PARKING ONLY"), None)
    assert both is not None and both.answer is None and "A, B are all printed" in (both.missing or "")
    close = choose_printed_option(ask("What is written on the sign?", "Bakers", "Bakery"), read("BAKERY"), None)
    assert close is not None and close.answer is None and "resemble" in (close.missing or "")
    # One word printed nowhere rules an option out, however alike the rest.
    differs = choose_printed_option(ask("What is written on the sign?", "Wet floor", "Dry floor"),
                                    read("WET FLOOR"), None)
    assert differs is not None and differs.answer == "A"
    absent = choose_printed_option(ask("What does the label say?", "Organic", "Fresh"), read("SALE TODAY"), None)
    assert absent is not None and absent.answer is None and "none of the options" in (absent.missing or "")


def test_text_over_two_lines_is_one_option_and_a_printed_whole_beats_its_part() -> None:
    two_lines = choose_printed_option(ask("What does the sign say?", "Caution dry floor", "Caution wet floor"),
                                      read("CAUTION", "WET FLOOR"), None)
    assert two_lines is not None and two_lines.answer == "B"
    options = ("PARKING", "NO PARKING", "NO SMOKING")
    whole = choose_printed_option(ask("What does the sign say?", *options), read("NO PARKING"), None)
    assert whole is not None and whole.answer == "B"
    # The converse never holds: "NO PARKING" is not printed on a sign reading PARKING, though nearly all its
    # letters are.
    part = choose_printed_option(ask("What does the sign say?", *options), read("PARKING"), None)
    assert part is not None and part.answer == "A"


def test_names_a_letter_apart_are_not_told_apart_and_the_reason_says_why() -> None:
    chosen = choose_printed_option(ask("What is written on the sign?", "Halloway Bakery", "Holloway Bakery"),
                                   read("HOLLOWAY BAKERY"), None)
    assert chosen is not None and chosen.answer is None and "too closely to tell apart" in (chosen.missing or "")


def test_one_part_of_the_text_is_matched_to_the_option_that_is_that_part() -> None:
    lines = read("AIRPORT 12 km", "CITY CENTRE 3 km")
    chosen = choose_printed_option(ask("How far is the airport?", "3 km", "12 km", "15 km"), lines, None)
    assert chosen is not None and chosen.answer == "B"
    exit_sign = choose_printed_option(ask("Which exit does the sign show?", "71", "17"),
                                      read("HARBOR ROAD", "EXIT 17"), None)
    assert exit_sign is not None and exit_sign.answer == "B"


@pytest.mark.parametrize("question", [
    "Which word is NOT on the sign?",  # negation
    "What does the sign prohibit?",  # meaning: PARKING printed does not mean parking is prohibited
    "What colour is the text on the sign?",  # an attribute of the text, not its words
    "How many words are written on the sign?",
    "Which word is most likely misspelled on the sign?",
])
def test_questions_about_meaning_negation_or_attributes_are_not_matched(question: str) -> None:
    options = ("Parking", "Red", "Two", "Exit")
    assert choose_printed_option(ask(question, *options), read("RED PARKING"), None) is None


def test_a_question_without_options_is_not_this_module_s() -> None:
    assert choose_printed_option("What is written on the sign?", read("EXIT"), None) is None


@pytest.fixture(scope="module")
def maestro(tmp_path_factory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


def test_a_multiple_choice_question_about_a_sign_is_answered_with_a_letter(maestro) -> None:
    image = sign("MUSEUM", "NORTH GATE")
    run = maestro.ask(image, ask("What is written on the sign?", "South gate", "North gate", "Museum shop"))
    assert run.status == "done" and run.answer == "B", run.reason
    search = next(s for s in run.steps if s.kind == "search" and s.skill == "OCR")
    assert any(c.tool == "ocr.printed_option" for c in search.tool_calls)
    meaning = maestro.ask(image, ask("What does the sign warn about?", "Museum", "Falling rocks"))
    assert meaning.status == "abstained"


@pytest.mark.parametrize(("question", "answered"), [
    ("What is written on the sign?", True),
    ("In which quadrant is the word 'GATE' written? Answer with the quadrant: top-left, top-right, bottom-left or "
     "bottom-right.", False),
    ("Where on the sign is the word GATE written?", False),
    # One part of the text is asked for: the whole reading ("NORTH GATE") is not its answer.
    ("What's the first word on the sign?", False),
    ("What does the red text at the top say?", False),
    ("Which exit is this?", False),
    # The sign's one line naming a gate is the gate's name (skills.ocr.scene_facts), not a transcription.
    ("Which gate is this?", True),
    ("What's the name of this place?", False),
    ("Read the sign for me.", True),
    ("What does it say?", True),
])
def test_a_transcription_answers_what_is_written_never_where_it_is(question: str, answered: bool) -> None:
    from types import SimpleNamespace

    from skills.base import SkillContext, ToolTrace
    from skills.ocr import skill as ocr
    from skills.spec import parse_skill_md

    spec = parse_skill_md(Path(ocr.__file__).with_name("SKILL.md"))
    level2 = next(level for level in spec.level2 if level.id == "text_recognition")
    context = SkillContext(query=question, question=question, image=sign("NORTH GATE"),
                           expert=SimpleNamespace(neural=False), spec=spec, level2=level2, trace=ToolTrace())
    result = ocr.run(context)
    assert (result.answer is not None) == answered, result.observation
