"""The answer-form contract: the form a question asks for, and answers that fit it (or are refused)."""

import json
from pathlib import Path

import pytest

from skills.answer_form import answer_form, conform, is_non_answer, parse_options

DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"

MC = """Which series is higher in 2020?
A. North
B. South
C. They are equal
D. Cannot be determined
Answer with the option's letter from the given choices directly."""


@pytest.mark.parametrize("question, kind", [
    (MC, "choice"),
    ("Are the two circles touching each other? Answer with Yes/No.", "yesno"),
    ("Is the light on?", "yesno"),
    ("Is the cup red or blue?", "free"),
    ("Count the circles in the image. Answer with a number in curly brackets e.g. {3}.", "count"),
    ("How many rows are in the grid?", "count"),
    ("How many rows and columns are in the table? Answer with only the numbers in a pair (row, column), e.g., (5,6)",
     "grid"),
    ("How much was paid in total?", "number"),
    # A measurement may fall between whole units: 16.5 hours is no count.
    ("How many more hours per week do farm workers put in than retail workers?", "number"),
    ("how many km is it to the airport", "number"),
    ("about how many thousand ppl visited in july", "number"),  # 34.8 thousand is a count in thousands
    ("How many hour-long sessions were booked?", "count"),
    ("which month had the lowest number of admissions", "free"),  # a month, named by its count
    ("what is the highest number of goals", "count"),
    ("What is the grand total on the receipt?", "number"),
    ("Which business issued this receipt?", "text"),
    ("What is written on the sign?", "text"),
    ("When was this purchase made?", "text"),
    ("Why is the sky blue?", "free"),
    # The question proper after what it is about: "26.4" answers no "is it more?".
    ("sushi zen wait vs 25 min - is it more?", "yesno"),
    ("glasgow vs leeds in 2024, is glasgow dearer?", "yesno"),
    ("tom or maya - who practiced more?", "free"),
])
def test_the_form_is_read_from_the_question(question: str, kind: str) -> None:
    assert answer_form(question).kind == kind


def test_options_are_parsed_in_order_and_must_start_at_a() -> None:
    assert parse_options(MC) == {"A": "North", "B": "South", "C": "They are equal", "D": "Cannot be determined"}
    assert parse_options("Pick one: (A) cat (B) dog (C) bird") == {"A": "cat", "B": "dog", "C": "bird"}
    assert parse_options("Mr. B. Smith signed it. C. Jones too.") == {}


def test_options_typed_in_lower_case_are_options() -> None:
    assert parse_options("what share does Nova hold? a) 18% b) 22% c) 27%") == {"A": "18%", "B": "22%", "C": "27%"}
    assert parse_options("which team? (a) Reds (b) Blues") == {"A": "Reds", "B": "Blues"}
    assert answer_form("which team? (a) Reds (b) Blues").kind == "choice"
    # The "or" between two options belongs to neither (round 36: option A had been "drama or").
    assert parse_options("which got more, (A) drama or (B) sci-fi") == {"A": "drama", "B": "sci-fi"}
    assert parse_options("pick one: (a) red, (b) blue, or (c) green") == {"A": "red", "B": "blue", "C": "green"}
    # A sentence's "a." is no option, nor one "(a)" alone.
    assert parse_options("pick a. b. or c.") == {}
    assert parse_options("is it (a) good thing?") == {}


@pytest.mark.parametrize("answer, expected", [
    ("B", "B"), ("(B)", "B"), ("B.", "B"), ("B. South", "B"), ("The answer is C", "C"), ("South", "B"),
    ("E", None), ("r", None), ("Day 14", None), ("86.53", None), ("I could not determine the answer.", None),
])
def test_only_an_offered_letter_fits_a_choice_question(answer: str, expected: str | None) -> None:
    assert conform(answer_form(MC), answer) == expected


def test_a_count_read_off_ticks_in_thousands_keeps_its_scale() -> None:
    form = answer_form("Approximately how many loans were there for History books?")
    assert (conform(form, "63k"), conform(form, "1.25M")) == ("63000", "1250000")  # never 63


def test_a_pair_is_not_a_count_and_a_count_is_braced_when_asked() -> None:
    rows = answer_form("How many rows are in the grid?")
    assert conform(rows, "(3,4)") is None
    assert conform(rows, "3") == "3"
    braced = answer_form("Count the circles. Answer with a number in curly brackets e.g. {3}.")
    assert conform(braced, "There are {4} circles") == "{4}"
    assert conform(braced, "four") == "{4}"
    assert conform(braced, "3 or 4") is None


def test_yes_no_and_grid_answers_are_normalised() -> None:
    yesno = answer_form("Are the two circles touching each other? Answer with Yes/No.")
    assert conform(yesno, "yes, they touch") == "Yes"
    assert conform(yesno, "yes and no") is None
    grid = answer_form("How many rows and columns are in the table? Answer with only the numbers in a pair "
                       "(row, column), e.g., (5,6)")
    assert conform(grid, "(4, 5)") == "(4,5)"
    assert conform(grid, "4 rows and 5 columns") == "(4,5)"
    assert conform(grid, "4") is None


def test_numbers_keep_their_printed_form_and_need_exactly_one_value() -> None:
    total = answer_form("What is the total?")
    assert conform(total, "RM 14.10") == "RM 14.10"
    assert conform(total, "1,234.50") == "1,234.50"
    assert conform(total, "14.10 or 15.00") is None
    assert conform(total, "no digits here") is None


def test_non_answers_never_fit() -> None:
    for text in ("", "  ", "I could not determine the answer.", "Unknown", "cannot tell", "N/A"):
        assert is_non_answer(text)
        assert conform(answer_form("What is written on the sign?"), text) is None
    assert not is_non_answer("No")


def test_a_dataset_match_kind_overrides_the_wording() -> None:
    assert answer_form("Which business issued this receipt?", "relaxed").kind == "number"
    assert answer_form("Anything", "choice").kind == "choice"


@pytest.mark.skipif(not DATASETS.is_dir(), reason="shared datasets not present")
@pytest.mark.parametrize("name", ["blindtest-dev", "sroie-dev", "misleading-chartqa-dev"])
def test_every_reference_answer_of_the_dev_sets_fits_its_question(name: str) -> None:
    rows = [json.loads(line) for line in (DATASETS / name / "items.jsonl").read_text().splitlines() if line.strip()]
    misfits = [r["id"] for r in rows if conform(answer_form(r["question"]), r["answer"]) is None]
    assert misfits == []


def test_one_vocabulary_of_answer_kinds() -> None:
    from typing import get_args

    from skills.answer_form import ANSWER_KINDS, AnswerKind, answer_form

    assert get_args(AnswerKind) == ANSWER_KINDS
    assert {answer_form(q).kind for q in ("Which is larger? A. 3 B. 4", "Is it red?", "How many dots are there?",
                                          "What is written on the sign?")} <= set(ANSWER_KINDS)


@pytest.mark.parametrize(("question", "position", "expected"), [
    ("where is the blue star - left side or right side?", "top-left", "left side"),
    ("is the red triangle in the left or right half?", "bottom-right", "right half"),
    ("is it in the top or bottom half?", "top-left", "top half"),
    ("is it in the top left or top right?", "bottom-left", None),  # neither: never the nearer one
    ("left or right?", "center", None),
    ("top half or bottom half - where is the blue triangle", "bottom-right", "bottom half"),  # offered first
])
def test_a_position_answers_the_side_a_question_offers(question: str, position: str, expected: str | None) -> None:
    assert conform(answer_form(question), position) == expected


@pytest.mark.parametrize("question", ["what is the lot number", "What's the tracking number?",
                                      "what is the order no. on the receipt"])
def test_an_identifier_is_text_as_printed_not_a_number(question: str) -> None:
    # "B47K29" is the lot number as printed: a number form refused it.
    assert answer_form(question).kind == "text"
