"""Answer matching follows the benchmarks' conventions: what counts as right, and what does not."""

import json

import pytest

from agents.evaluation.answers import detect_kind, match_answer


@pytest.mark.parametrize(
    ("prediction", "expected", "ok"),
    [
        ("{2}", "2", True),
        ("I count 7 circles, so {7}", "7", True),
        ("seven", "7", True),
        ("{8}", "7", False),
        ("104", "100", True),  # within 5 %
        ("106", "100", False),
        ("0", "0", True),
        ("0.01", "0", False),
        ("1,250", "1250", True),
        ("45%", "45", True),
        ("€9.9M", "9900000", True),  # as a chart writes its ticks
        ("870k", "870000", True),
        ("2.5 billion", "2500000000", True),
        ("500m", "500", True),  # metres: a lower-case m is no million
        ("9.9M", "9.9", False),
    ],
)
def test_numeric_answers_are_relaxed_to_five_percent(prediction: str, expected: str, ok: bool) -> None:
    assert match_answer(prediction, expected) is ok


def test_an_expected_amount_with_its_currency_is_compared_by_its_number() -> None:
    # Receipt totals are labelled as printed ("$8.20", "RM41.45"); the same amount answered is right.
    assert match_answer("$8.20", "$8.20", "numeric") and match_answer("RM 41.45", "RM41.45", "numeric")
    assert not match_answer("$8.70", "$8.20", "numeric")


@pytest.mark.parametrize(
    ("prediction", "expected", "ok"),
    [
        ("(3,4)", "(3,4)", True),
        ("{3, 4}", "(3,4)", True),
        ("The grid has 3 rows and 4 columns.", "(3,4)", True),
        ("4 columns and 3 rows", "(3,4)", True),
        ("(4,3)", "(3,4)", False),
        ("3", "(3,4)", False),
    ],
)
def test_grid_answers_need_both_rows_and_columns(prediction: str, expected: str, ok: bool) -> None:
    assert match_answer(prediction, expected) is ok


def test_the_braced_part_is_what_is_judged() -> None:
    assert match_answer("Not 2 but {3} intersections.", "3")
    assert not match_answer("Not 2 but {3} intersections.", "2")


def test_yes_no_and_choice_letters() -> None:
    assert match_answer("Yes, they touch.", "Yes")
    assert not match_answer("No.", "Yes")
    assert not match_answer("", "No")
    assert match_answer("(B)", "B")
    assert match_answer("B. 42 degrees", "B")
    assert match_answer("The answer is C", "C")
    assert not match_answer("(A)", "B")


def test_exact_strings_are_normalised_but_not_loose() -> None:
    assert match_answer("Stop here!", "STOP HERE")
    assert match_answer("the red one", "red one")
    assert not match_answer("STOP HERE NOW", "STOP HERE")
    assert match_answer("STOP HERE NOW", "STOP HERE", kind="contains")
    assert not match_answer(None, "anything")


def test_kinds_are_detected_from_the_expected_answer() -> None:
    assert detect_kind("(2,5)") == "grid"
    assert detect_kind("No") == "yesno"
    assert detect_kind("D") == "choice"
    assert detect_kind("12.5") == "numeric"
    assert detect_kind("Tuesday") == "exact"


def test_every_blindtest_answer_matches_itself_and_its_braced_form(blindtest_dir) -> None:
    for line in (blindtest_dir / "items.jsonl").read_text().splitlines():
        item = json.loads(line)
        assert match_answer(item["answer"], item["answer"]), item
        assert match_answer("{" + item["answer"].strip("()") + "}", item["answer"]), item
